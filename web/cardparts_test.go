package web_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

// TestBrowserCardPartsRemoved: in a card's detail, a checklist item is removed, a comment and an
// attachment deleted after a confirmation, a document linked and unlinked; a document is deleted from its
// page after a confirmation. Each is checked through the API.
func TestBrowserCardPartsRemoved(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("cleo@example.com")
	var wsOut struct{ ID string }
	s.call("GET", a.ws(), a.Token, nil, &wsOut)
	prj, card := s.projectWithCard(a, "Office", map[string]any{"title": "Move desks",
		"checklist": []map[string]any{{"title": "Measure"}, {"title": "Book a van"}}})
	cardPath := a.ws() + "/projects/" + prj + "/cards/" + card
	s.call("POST", cardPath+"/comments", a.Token, map[string]string{"content": "Thursday works"}, nil)
	var doc struct{ ID string }
	s.call("POST", a.ws()+"/documents", a.Token, map[string]any{"title": "Floor plan", "docType": "document",
		"contextType": "workspace", "contextId": wsOut.ID, "contentFormat": "markdown",
		"content": "Desks by the window"}, &doc)

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/p/"+prj+"?card="+card),
		chromedp.WaitVisible(chromedp.CSS(`#checklist-new`)))
	waitFor(t, ctx, "the comment and the document to link", `document.querySelector("ol.comments")?.textContent
		.includes("Thursday works") && document.querySelector("#doc-link")?.options.length === 1`)
	accessible(t, ctx, "card detail with its parts")

	// A checklist item removed.
	do(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Remove Measure"]`)))
	waitFor(t, ctx, "the item gone", `!document.querySelector('button[aria-label="Remove Measure"]')`)
	var got struct {
		Checklist []struct{ Title string }
	}
	s.call("GET", cardPath, a.Token, nil, &got)
	require.Len(t, got.Checklist, 1)
	require.Equal(t, "Book a van", got.Checklist[0].Title)

	// A document linked, then unlinked.
	do(t, ctx, chromedp.Click(chromedp.CSS(`#doc-link ~ button`)))
	waitFor(t, ctx, "the linked document", `document.querySelector(".linked-docs")?.textContent.includes("Floor plan")`)
	var linked []struct{ ID string }
	s.call("GET", cardPath+"/documents", a.Token, nil, &linked)
	require.Len(t, linked, 1)
	require.Equal(t, doc.ID, linked[0].ID)
	do(t, ctx, chromedp.Click(chromedp.CSS(`button[aria-label="Unlink Floor plan"]`)))
	waitFor(t, ctx, "no linked document", `document.body.textContent.includes("No document is linked")`)
	s.call("GET", cardPath+"/documents", a.Token, nil, &linked)
	require.Empty(t, linked)

	// The comment deleted after a confirmation.
	do(t, ctx, chromedp.Click(chromedp.CSS(`ol.comments li button.danger`)))
	confirm(t, ctx, "delete a comment")
	waitFor(t, ctx, "no comment", `document.body.textContent.includes("No comment yet")`)
	var comments []struct{ ID string }
	s.call("GET", cardPath+"/comments", a.Token, nil, &comments)
	require.Empty(t, comments)

	// An attachment uploaded, then removed after a confirmation.
	file := filepath.Join(t.TempDir(), "plan.txt")
	require.NoError(t, os.WriteFile(file, []byte("desk A by the window"), 0o600))
	do(t, ctx, chromedp.SetUploadFiles(chromedp.CSS(`#attachment-file`), []string{file}))
	// Submitted from the page rather than by a mouse click at the button's box: a click at coordinates
	// failed now and then ("invalid dimensions") while the card's sections were still laying out.
	eval[bool](t, ctx, `(document.querySelector("#attachment-file").form.requestSubmit(), true)`)
	waitFor(t, ctx, "the attachment", `document.querySelector("a[download='plan.txt']") !== null`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[download='plan.txt'] ~ button.danger`)))
	confirm(t, ctx, "remove an attachment")
	waitFor(t, ctx, "no attachment", `document.querySelector("a[download='plan.txt']") === null`)
	var files []struct{ ID string }
	s.call("GET", cardPath+"/attachments", a.Token, nil, &files)
	require.Empty(t, files)

	// A document deleted from its page after a confirmation.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/docs?doc="+doc.ID),
		chromedp.WaitVisible(chromedp.CSS(`#doc-h`)))
	waitFor(t, ctx, "the document's delete button", `!!document.querySelector(".document .actions button.danger")`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`.document .actions button.danger`)))
	confirm(t, ctx, "delete a document")
	waitFor(t, ctx, "the documents list without it", `location.search === "" && !document.querySelector("#doc-h")`)
	require.Equal(t, 404, s.status("GET", a.ws()+"/documents/"+doc.ID, a.Token, ""))
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#doc-title`), "Seating"+kb.Enter))
	waitFor(t, ctx, "a new document", `document.querySelector("#doc-h")?.textContent === "Seating"`)
}

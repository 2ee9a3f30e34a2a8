package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

// The daily screens' rough edges: the inbox, documents' review, search, and a mission's outcome.

// roughSignIn signs a in on the page and waits for the workspace.
func roughSignIn(t *testing.T, ctx context.Context, s *server, a account) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname.startsWith("/w/")`)
}

// roughTeam is an owner and a mate who joined the owner's personal workspace, the mate with the pilotage
// role given ("" keeps the invitation's); the mate's account names the owner's workspace.
func roughTeam(t *testing.T, s *server, pilotageRole string) (owner, mate account) {
	t.Helper()
	owner = s.register("olga@example.com")
	mate = s.register("ivan@example.com")
	var inv struct{ Token string }
	s.call("POST", owner.ws()+"/members/invite", owner.Token, map[string]string{"email": mate.Email}, &inv)
	require.NotEmpty(t, inv.Token)
	s.call("POST", "/invitations/"+inv.Token+"/accept", mate.Token, nil, nil)
	var me struct{ User struct{ ID string } }
	s.call("GET", "/auth/me", mate.Token, nil, &me)
	if pilotageRole != "" {
		s.call("PATCH", owner.ws()+"/members/"+me.User.ID, owner.Token, map[string]string{"pilotageRole": pilotageRole},
			nil)
	}
	mate.Org, mate.WS = owner.Org, owner.WS
	return owner, mate
}

// roughButton is a script answering whether the document shows a button labelled label.
func roughButton(label string) string {
	return `[...document.querySelectorAll(".document button")].some(b => b.textContent === "` + label + `")`
}

// roughRaw makes an API request that may fail, answering its status and body.
func roughRaw(t *testing.T, s *server, method, path, token string, body any) (int, string) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(out)
}

// TestBrowserInboxNamesCardAndActor: an entry of the inbox says the card's title, who acted and what
// changed, and its link opens the card on its board.
func TestBrowserInboxNamesCardAndActor(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	owner, mate := roughTeam(t, s, "")
	var prj struct{ ID string }
	s.call("POST", owner.ws()+"/projects", owner.Token, map[string]string{"name": "Fair"}, &prj)
	s.call("POST", owner.ws()+"/projects/"+prj.ID+"/members", owner.Token, map[string]string{"email": mate.Email}, nil)
	var cols []struct{ ID, Name string }
	s.call("GET", owner.ws()+"/projects/"+prj.ID+"/columns", owner.Token, nil, &cols)
	var card struct{ ID string }
	s.call("POST", owner.ws()+"/projects/"+prj.ID+"/columns/"+cols[0].ID+"/cards", owner.Token,
		map[string]string{"title": "Book the venue"}, &card)
	s.call("PATCH", owner.ws()+"/projects/"+prj.ID+"/cards/"+card.ID, owner.Token,
		map[string]any{"columnId": cols[1].ID}, nil)
	require.Eventually(t, func() bool {
		var ns []struct{ Activity struct{ Type string } }
		s.call("GET", "/notifications", mate.Token, nil, &ns)
		return len(ns) >= 3 // added to the project, the card created, the card moved
	}, 20*time.Second, 100*time.Millisecond, "the mate's notifications")

	ctx := page(t)
	roughSignIn(t, ctx, s, mate)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+mate.Org+"/"+mate.WS+"/inbox"))
	moved := `document.querySelector('.notifications li[data-type="card_moved"]')`
	waitFor(t, ctx, "the move in the inbox", moved+`?.textContent.includes("Book the venue")`)
	entry := text(t, ctx, `.notifications li[data-type="card_moved"]`)
	require.Contains(t, entry, "olga moved it to "+cols[1].Name)
	require.NotContains(t, entry, "card moved")
	require.Contains(t, text(t, ctx, `.notifications li[data-type="card_created"]`), "olga created the card")
	accessible(t, ctx, "notifications, named")
	do(t, ctx, chromedp.Click(chromedp.CSS(`.notifications li[data-type="card_moved"] a`)))
	waitFor(t, ctx, "the card open on its board", `location.pathname === "/w/`+mate.Org+`/`+mate.WS+`/p/`+prj.ID+
		`" && location.search === "?card=`+card.ID+`" &&
		document.querySelector("#card-dialog-title")?.textContent === "Book the venue"`)
	accessible(t, ctx, "card from the inbox")
}

// TestBrowserInboxLinksIntoTheNoticesWorkspace: a notice of another workspace than the open one links into
// the workspace it happened in, not into the open one (where its project does not exist).
func TestBrowserInboxLinksIntoTheNoticesWorkspace(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	owner, mate := roughTeam(t, s, "")
	second := "/orgs/" + owner.Org + "/workspaces/second"
	s.call("POST", "/orgs/"+owner.Org+"/workspaces", owner.Token, map[string]string{"name": "Second", "slug": "second"},
		nil)
	var inv struct{ Token string }
	s.call("POST", second+"/members/invite", owner.Token, map[string]string{"email": mate.Email}, &inv)
	s.call("POST", "/invitations/"+inv.Token+"/accept", mate.Token, nil, nil)
	var prj struct{ ID string }
	s.call("POST", second+"/projects", owner.Token, map[string]string{"name": "Elsewhere"}, &prj)
	s.call("POST", second+"/projects/"+prj.ID+"/members", owner.Token, map[string]string{"email": mate.Email}, nil)
	var cols []struct{ ID string }
	s.call("GET", second+"/projects/"+prj.ID+"/columns", owner.Token, nil, &cols)
	var card struct{ ID string }
	s.call("POST", second+"/projects/"+prj.ID+"/columns/"+cols[0].ID+"/cards", owner.Token,
		map[string]string{"title": "Far away"}, &card)

	ctx := page(t)
	roughSignIn(t, ctx, s, mate)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+mate.Org+"/"+mate.WS+"/inbox"))
	link := `document.querySelector('.notifications li[data-type="card_created"] a')`
	waitFor(t, ctx, "the other workspace's card in the inbox", link+`?.textContent === "Far away"`)
	require.Equal(t, "/w/"+owner.Org+"/second/p/"+prj.ID+"?card="+card.ID,
		eval[string](t, ctx, link+`.getAttribute("href")`))
	do(t, ctx, chromedp.Click(chromedp.CSS(`.notifications li[data-type="card_created"] a`)))
	waitFor(t, ctx, "the card open in its own workspace",
		`document.querySelector("#card-dialog-title")?.textContent === "Far away"`)
}

// TestBrowserDocumentReviewRules: the new document form is empty again after a create; while pending
// review a document offers no Edit, and says why; its author, in a workspace with another reviewer, is
// offered no Approve (a sentence says a teammate reviews it), which the teammate then gives.
func TestBrowserDocumentReviewRules(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	owner, mate := roughTeam(t, s, "reviewer")
	ctx := page(t)
	roughSignIn(t, ctx, s, owner)
	docs := s.url + "/w/" + owner.Org + "/" + owner.WS + "/docs"
	do(t, ctx, chromedp.Navigate(docs), chromedp.WaitVisible(chromedp.CSS(`#doc-title`)),
		chromedp.SendKeys(chromedp.CSS(`#doc-title`), "Runbook"+kb.Enter))
	waitFor(t, ctx, "the new document", `document.querySelector("#doc-h")?.textContent === "Runbook"`)
	waitFor(t, ctx, "the form ready for the next", `document.querySelector("#doc-title").value === ""`)
	require.True(t, eval[bool](t, ctx, roughButton("Edit")))
	do(t, ctx, chromedp.Click(chromedp.CSS(`.document .actions button.secondary`)))
	waitFor(t, ctx, "pending review", `document.querySelector(".document .status")?.textContent === "Pending review"`)
	waitFor(t, ctx, "the review note",
		`document.querySelector(".document")?.textContent.includes("Pending review: editing reopens after the review.")`)
	require.False(t, eval[bool](t, ctx, roughButton("Edit")), "no Edit while pending")
	require.False(t, eval[bool](t, ctx, roughButton("Approve")), "no Approve for the author")
	require.Contains(t, text(t, ctx, `.document`), "a teammate who reviews documents approves it")
	accessible(t, ctx, "document pending, its author")
	docID := eval[string](t, ctx, `new URLSearchParams(location.search).get("doc")`)

	// The API refuses the author's approval too.
	code, body := roughRaw(t, s, "POST", owner.ws()+"/documents/"+docID+"/review", owner.Token,
		map[string]string{"status": "approved"})
	require.Equal(t, http.StatusForbidden, code, body)
	require.Contains(t, body, "another reviewer")

	// The teammate approves it.
	ctx2 := page(t)
	roughSignIn(t, ctx2, s, mate)
	do(t, ctx2, chromedp.Navigate(docs+"?doc="+docID))
	waitFor(t, ctx2, "the Approve button", roughButton("Approve"))
	accessible(t, ctx2, "document pending, a reviewer")
	do(t, ctx2, chromedp.Click(chromedp.CSS(`.document .actions button:not(.secondary)`)))
	waitFor(t, ctx2, "approved", `document.querySelector(".document .status")?.textContent === "Approved"`)
	waitFor(t, ctx2, "Edit again", roughButton("Edit"))
}

// TestBrowserSearchCommentsAndSnippets: a snippet reads as text (no markdown syntax), and a card is
// found by a word only its comment has, said to be found in a comment, its link opening the card.
func TestBrowserSearchCommentsAndSnippets(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("sara@example.com")
	var prj struct{ ID string }
	s.call("POST", a.ws()+"/projects", a.Token, map[string]string{"name": "Moves"}, &prj)
	var cols []struct{ ID string }
	s.call("GET", a.ws()+"/projects/"+prj.ID+"/columns", a.Token, nil, &cols)
	var card, other struct{ ID string }
	s.call("POST", a.ws()+"/projects/"+prj.ID+"/columns/"+cols[0].ID+"/cards", a.Token,
		map[string]string{"title": "Plan the database move", "description": "We run the **migration** in `two` steps"},
		&card)
	s.call("POST", a.ws()+"/projects/"+prj.ID+"/columns/"+cols[0].ID+"/cards", a.Token,
		map[string]string{"title": "Call the movers"}, &other)
	s.call("POST", a.ws()+"/projects/"+prj.ID+"/cards/"+other.ID+"/comments", a.Token,
		map[string]string{"content": "They bring a _zeppelin_ for the boxes"}, nil)

	ctx := page(t)
	roughSignIn(t, ctx, s, a)
	base := s.url + "/w/" + a.Org + "/" + a.WS
	do(t, ctx, chromedp.Navigate(base+"/search?q=migration"))
	waitFor(t, ctx, "the snippet", `document.querySelector(".results mark")?.textContent === "migration"`)
	snippet := text(t, ctx, `.results .snippet`)
	require.Contains(t, snippet, "migration in two steps")
	require.NotContains(t, snippet, "**")
	require.NotContains(t, snippet, "`")
	accessible(t, ctx, "search, plain snippet")

	do(t, ctx, chromedp.Navigate(base+"/search?q=zeppelin"))
	waitFor(t, ctx, "the card found by its comment",
		`document.querySelector(".results li")?.textContent.includes("Call the movers")`)
	require.Contains(t, text(t, ctx, `.results li`), "found in a comment")
	require.NotContains(t, text(t, ctx, `.results .snippet`), "_")
	accessible(t, ctx, "search, found in a comment")
	do(t, ctx, chromedp.Click(chromedp.CSS(`.results li a`)))
	waitFor(t, ctx, "the card open", `location.search === "?card=`+other.ID+`" &&
		document.querySelector("#card-dialog-title")?.textContent === "Call the movers"`)
}

// TestBrowserMissionOutcome: a mission whose two proposals wait says so (never "finished" nor "Done"),
// its turns' text apart; after one is approved and one rejected, the page says which was applied and
// which rejected, and so does the mission's last event.
func TestBrowserMissionOutcome(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("mia@example.com")
	_, card := s.projectWithCard(a, "Site", map[string]any{"title": "Plan the launch",
		"description": "- Pick the date\n- Write the checklist"})
	var agent struct{ ID string }
	s.call("POST", a.ws()+"/agents", a.Token, map[string]any{"name": "Planner", "slug": "planner",
		"autonomyMode": "approval"}, &agent)
	var m struct{ ID string }
	s.call("POST", a.ws()+"/agents/"+agent.ID+"/missions", a.Token, map[string]string{"cardId": card,
		"prompt": "Plan this card"}, &m)

	ctx := page(t)
	roughSignIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/missions/"+m.ID))
	waitFor(t, ctx, "the proposals waiting",
		`document.querySelector("[data-status]")?.dataset.status === "awaiting_approval" &&
		document.querySelectorAll(".proposal .actions").length === 2 && !!document.querySelector(".stream")`)
	said := text(t, ctx, `.stream`)
	require.Contains(t, said, "wait for approval")
	require.NotContains(t, said, "finished")
	require.NotContains(t, said, "Done:")
	require.True(t, eval[bool](t, ctx, `document.querySelector(".stream").textContent.includes("\n\nMission on")`),
		"the comment and the summary are apart: %q", said)
	require.Contains(t, text(t, ctx, `.outcome`), "Waiting for approval: add checklist items; post a comment")
	accessible(t, ctx, "mission, waiting")

	// Approve the comment, reject the checklist.
	approve := func(tool string, yes bool) {
		t.Helper()
		btn := `button:not(.secondary)`
		if !yes {
			btn = `button.secondary`
		}
		do(t, ctx, chromedp.Click(chromedp.CSS(`.proposal[data-tool="`+tool+`"] .actions `+btn)))
		waitFor(t, ctx, tool+" decided", `!document.querySelector('.proposal[data-tool="`+tool+`"] .actions')`)
	}
	approve("add_comment", true)
	approve("add_checklist_items", false)
	waitFor(t, ctx, "the mission completed", `document.querySelector("[data-status]")?.dataset.status === "completed"`)
	waitFor(t, ctx, "the outcome",
		`document.querySelector('.outcome [data-outcome="applied"]')?.textContent.includes("post a comment") &&
		document.querySelector('.outcome [data-outcome="rejected"]')?.textContent.includes("add checklist items") &&
		!document.querySelector('.outcome [data-outcome="pending"]')`)
	waitFor(t, ctx, "the mission's last word",
		`[...document.querySelectorAll(".events li")].pop()?.textContent.includes("Rejected: add checklist items.")`)
	accessible(t, ctx, "mission, decided")
	require.False(t, strings.Contains(text(t, ctx, `.outcome`), "Waiting"))
}

package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

// TestBrowserBoard: a person signs up, creates a project, adds cards, drags one to another column and
// moves another with the keyboard; after a reload both are where they were put.
func TestBrowserBoard(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctx := page(t)
	do(t, ctx, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS(`#email`)))
	waitFor(t, ctx, "the sign-in page", `location.pathname === "/sign-in"`)
	shot(t, ctx, "sign-in", 1440, 900)
	accessible(t, ctx, "sign-in")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`a[href^="/sign-up"]`)), chromedp.WaitVisible(chromedp.CSS(`#name`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Ann"), chromedp.SendKeys(chromedp.CSS(`#email`), "ann@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "a long password"), chromedp.SendKeys(chromedp.CSS(`#password`),
			kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#project-name`)),
	)
	waitFor(t, ctx, "the workspace's projects",
		`location.pathname.startsWith("/w/") && document.querySelector("h1").textContent === "Projects"`)
	accessible(t, ctx, "projects")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#project-name`), "Launch"), chromedp.SendKeys(chromedp.CSS(`#project-name`),
		kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`.column`)))
	waitFor(t, ctx, "three columns", `document.querySelectorAll(".column").length === 3`)
	first := `.column:nth-child(1) input[name=title]`
	for _, title := range []string{"Write the brief", "Book the venue", "Print posters"} {
		do(t, ctx, chromedp.SendKeys(chromedp.CSS(first), title+kb.Enter))
		waitFor(t, ctx, "the card "+title,
			`[...document.querySelectorAll(".column:nth-child(1) .card")].some(c => c.textContent.includes(`+jsString(title)+
				`))`)
	}
	// Drag "Write the brief" into the third column (the browser's drag and drop events, as a mouse makes them).
	eval[bool](t, ctx, `(() => {
		const card = [...document.querySelectorAll(".card")].find(c => c.textContent.includes("Write the brief"));
		const list = document.querySelector(".column:nth-child(3) ol.cards");
		const dt = new DataTransfer();
		const r = list.getBoundingClientRect();
		card.dispatchEvent(new DragEvent("dragstart", {bubbles: true, dataTransfer: dt}));
		list.dispatchEvent(new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: dt,
			clientX: r.left + 10, clientY: r.top + 5}));
		list.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt,
			clientX: r.left + 10, clientY: r.top + 5}));
		card.dispatchEvent(new DragEvent("dragend", {bubbles: true, dataTransfer: dt}));
		return true;
	})()`)
	waitFor(t, ctx, "the dragged card in the third column",
		`document.querySelector(".column:nth-child(3) .card")?.textContent.includes("Write the brief")`)
	// With the keyboard: "Print posters" one column right, then up above... it is alone there: Alt+ArrowRight.
	do(t, ctx, chromedp.Focus(chromedp.CSS(`.column:nth-child(1) .card:last-of-type`)),
		chromedp.KeyEvent(kb.ArrowRight, chromedp.KeyModifiers(chromedp.ModifierAlt)))
	waitFor(t, ctx, "the card moved by keyboard",
		`document.querySelector(".column:nth-child(2) .card")?.textContent.includes("Print posters")`)
	waitFor(t, ctx, "focus to follow the moved card", `document.activeElement?.textContent.includes("Print posters")`)
	// The moves are saved: wait for the server to have them, then reload.
	waitFor(t, ctx, "the server to have both moves", `(async () => {
		const m = location.pathname.split("/");
		const r = await fetch("/orgs/" + m[2] + "/workspaces/" + m[3] + "/projects/" + m[5] + "/cards");
		const cards = await r.json();
		const cols = await (await fetch("/orgs/" + m[2] + "/workspaces/" + m[3] + "/projects/" + m[5] + "/columns")).json();
		cols.sort((a, b) => a.order - b.order);
		const at = (t) => cols.findIndex(c => c.id === cards.find(x => x.title === t).columnId);
		return at("Write the brief") === 2 && at("Print posters") === 1;
	})()`)
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`.card`)))
	waitFor(t, ctx, "the cards where they were put after a reload",
		`document.querySelector(".column:nth-child(3) .card")?.textContent.includes("Write the brief") &&
		document.querySelector(".column:nth-child(2) .card")?.textContent.includes("Print posters") &&
		document.querySelectorAll(".column:nth-child(1) .card").length === 1`)
	shot(t, ctx, "board", 1440, 900)
	accessible(t, ctx, "board")
	shot(t, ctx, "board-390", 390, 844)

	// The card's detail: edit the description in markdown; it is rendered, its HTML as text.
	do(t, ctx, chromedp.Click(chromedp.CSS(`.column:nth-child(1) .card a`)),
		chromedp.WaitVisible(chromedp.CSS(`#card-description`)),
		chromedp.SetValue(chromedp.CSS(`#card-description`), "## Plan\n\n- **venue** booked\n- <img src=x onerror=alert(1)>"),
		chromedp.Click(chromedp.CSS(`.card-form button[type=submit]`)))
	waitFor(t, ctx, "the rendered description",
		`[...document.querySelectorAll(".card-detail .markdown strong")].some(e => e.textContent === "venue")`)
	imgs := eval[int](t, ctx, `document.querySelectorAll(".card-detail img").length`)
	require.Zero(t, imgs, "markup in markdown must stay text")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#checklist-new`), "Call them"+kb.Enter))
	waitFor(t, ctx, "the checklist item", `document.querySelector(".checklist")?.textContent.includes("Call them")`)
	// A new label on the card, a comment (markdown), an attachment uploaded and offered for download.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#label-new`), "Urgent"+kb.Enter))
	waitFor(t, ctx, "the label on the card",
		`document.querySelector(".column:nth-child(1) .card .label")?.textContent === "Urgent"`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#comment-new`), "Called them, **confirmed**"),
		chromedp.Click(chromedp.CSS(`#comment-new ~ button`)))
	waitFor(t, ctx, "the comment", `document.querySelector(".comments strong")?.textContent === "confirmed"`)
	file := filepath.Join(t.TempDir(), "quote.txt")
	require.NoError(t, os.WriteFile(file, []byte("300 EUR"), 0o600))
	do(t, ctx, chromedp.SetUploadFiles(chromedp.CSS(`#attachment-file`), []string{file}),
		chromedp.Click(chromedp.CSS(`#attachment-file ~ button`)))
	waitFor(t, ctx, "the attachment", `document.querySelector("a[download='quote.txt']") !== null`)
	got := eval[string](t, ctx, `fetch(document.querySelector("a[download='quote.txt']").href).then(r => r.text())`)
	require.Equal(t, "300 EUR", got)
	shot(t, ctx, "card", 1440, 900)
	accessible(t, ctx, "card detail")
	// The counts on the board, and the filter by label.
	do(t, ctx, chromedp.Click(chromedp.CSS(`.detail-head button`)))
	waitFor(t, ctx, "the focus back on the card",
		`document.activeElement?.dataset.cardId !== undefined && !document.querySelector(".card-detail")`)
	waitFor(t, ctx, "the card's counts",
		`document.querySelector(".column:nth-child(1) .card .comments")?.textContent.trim() === "1 comment" &&
		document.querySelector(".column:nth-child(1) .card .attachments")?.textContent.trim() === "1 attachment"`)
	do(t, ctx, chromedp.SetValue(chromedp.CSS(`.filters label:first-child select`), eval[string](t, ctx,
		`[...document.querySelectorAll(".filters label:first-child option")].find(o => o.textContent === "Urgent").value`)))
	eval[bool](t, ctx,
		`document.querySelector(".filters label:first-child select").dispatchEvent(new Event("change", {bubbles: true}))`)
	waitFor(t, ctx, "only the labelled card", `document.querySelectorAll(".card").length === 1`)
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestBrowserErrorShown: an API refusal is shown in words (the error shape's message).
func TestBrowserErrorShown(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.register("bob@example.com")
	ctx := page(t)
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), "bob@example.com"), chromedp.SendKeys(chromedp.CSS(`#password`),
			"not the password"),
		chromedp.SendKeys(chromedp.CSS(`#password`), kb.Enter), chromedp.WaitVisible(chromedp.CSS(`[role=alert]`)))
	msg := text(t, ctx, `[role=alert]`)
	accessible(t, ctx, "sign-in with an error")
	require.Contains(t, strings.ToLower(msg), "invalid")
}

package web_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

// settingsSignIn signs a in on a fresh page and waits for the workspace.
func settingsSignIn(t *testing.T, ctx context.Context, s *server, a account) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname.startsWith("/w/")`)
}

// settingsClick clicks the first element matching the CSS selector sel whose text, trimmed, is label (or whose
// aria-label is), failing the test when there is none.
func settingsClick(t *testing.T, ctx context.Context, sel, label string) {
	t.Helper()
	waitFor(t, ctx, label, `[...document.querySelectorAll(`+jsString(sel)+`)].some(e => e.textContent.trim() === `+
		jsString(label)+` || e.getAttribute("aria-label") === `+jsString(label)+`)`)
	eval[bool](t, ctx, `(() => { [...document.querySelectorAll(`+jsString(sel)+`)].find(e => e.textContent.trim() === `+
		jsString(label)+` || e.getAttribute("aria-label") === `+jsString(label)+`).click(); return true; })()`)
}

// settingsSetValue sets a form control's value as a person's typing or choosing would, with its input and
// change events.
func settingsSetValue(t *testing.T, ctx context.Context, sel, value string) {
	t.Helper()
	waitFor(t, ctx, sel, `document.querySelector(`+jsString(sel)+`) !== null`)
	eval[bool](t, ctx, `(() => { const e = document.querySelector(`+jsString(sel)+`); e.value = `+jsString(value)+`;
		e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true}));
		return true; })()`)
}

// settingsFetch fetches an API path from the page (the session's cookie) and answers its JSON, or null on an
// error answer.
func settingsFetch(path string) string {
	return `fetch(` + jsString(path) + `).then(r => r.ok ? r.json() : null)`
}

// TestBrowserProjectSettings: from the board to the project's settings; columns added, renamed,
// reordered with the keyboard and deleted (an empty one, and one whose card moves to another column);
// a label created with a colour from the palette and deleted; a custom field defined; a scope created,
// its view changed, renamed and deleted; the project renamed, exported (the file's content checked),
// imported back as a new project, and that copy deleted after typing its name.
func TestBrowserProjectSettings(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("sam@example.com")
	var prj struct{ ID string }
	s.call("POST", a.ws()+"/projects", a.Token, map[string]string{"name": "Launch"}, &prj)
	base := a.ws() + "/projects/" + prj.ID
	var cols []struct{ ID, Name string }
	s.call("GET", base+"/columns", a.Token, nil, &cols)
	require.Len(t, cols, 3)
	s.call("POST", base+"/columns/"+cols[1].ID+"/cards", a.Token, map[string]any{"title": "Book the venue"}, nil)
	columnNames := func() string {
		return `fetch(` + jsString(base+"/columns") + `).then(r => r.json()).then(cs => cs.sort((a, b) => a.order - b.order)
			.map(c => c.name).join("|"))`
	}

	ctx := page(t)
	settingsSignIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/p/"+prj.ID), chromedp.WaitVisible(chromedp.CSS(`.column`)))
	settingsClick(t, ctx, `a`, "Project settings")
	waitFor(t, ctx, "the settings", `location.pathname.endsWith("/settings") &&
		document.querySelectorAll("[data-settings-column]").length === 3`)
	accessible(t, ctx, "project settings")

	// Columns: add, rename, move left with the keyboard (the focus stays on the moved column's button).
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#column-new`), "Review"+kb.Enter))
	waitFor(t, ctx, "the new column", `document.querySelectorAll("[data-settings-column]").length === 4`)
	require.Equal(t, cols[0].Name+"|"+cols[1].Name+"|"+cols[2].Name+"|Review", eval[string](t, ctx, columnNames()))
	settingsSetValue(t, ctx, `[data-settings-column]:nth-child(4) input[name=name]`, "QA review")
	settingsClick(t, ctx, `[data-settings-column]:nth-child(4) button`, "Rename")
	waitFor(t, ctx, "the renamed column", `(async () => (await `+columnNames()+`).endsWith("|QA review"))()`)
	do(t, ctx, chromedp.Focus(chromedp.CSS(`[aria-label="Move QA review left"]`)), chromedp.KeyEvent(kb.Enter))
	want := cols[0].Name + "|" + cols[1].Name + "|QA review|" + cols[2].Name
	waitFor(t, ctx, "the column moved left", `(async () => (await `+columnNames()+`) === `+jsString(want)+`)()`)
	waitFor(t, ctx, "the list in the new order and the focus kept",
		`document.querySelector("[data-settings-column]:nth-child(3) input[name=name]").value === "QA review" &&
		document.activeElement?.getAttribute("aria-label") === "Move QA review left"`)

	// Deleting the column that holds a card: the dialog says so and moves it to the column chosen.
	settingsClick(t, ctx, `button`, "Delete "+cols[1].Name)
	waitFor(t, ctx, "the delete dialog",
		`document.querySelector("dialog[open]")?.textContent.includes("This column holds 1 card")`)
	accessible(t, ctx, "delete a column")
	settingsSetValue(t, ctx, `dialog[open] select`, cols[2].ID)
	settingsClick(t, ctx, `dialog[open] button`, "Delete the column")
	waitFor(t, ctx, "the column gone, its card moved", `(async () => {
		const cards = await `+settingsFetch(base+"/cards")+`;
		return (await `+columnNames()+`) === `+jsString(cols[0].Name+"|QA review|"+cols[2].Name)+` &&
			cards.length === 1 && cards[0].columnId === `+jsString(cols[2].ID)+`;
	})()`)
	settingsClick(t, ctx, `button`, "Delete QA review")
	waitFor(t, ctx, "the empty column's dialog",
		`document.querySelector("dialog[open]")?.textContent.includes("The column is empty")`)
	settingsClick(t, ctx, `dialog[open] button`, "Delete the column")
	waitFor(t, ctx, "two columns left", `document.querySelectorAll("[data-settings-column]").length === 2`)

	// Labels: a colour from the named palette; the picker is a real swatch, not a thin line.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#label-create`), "Urgent"))
	settingsSetValue(t, ctx, `#label-create-colour`, "#b3261e")
	require.GreaterOrEqual(t, eval[float64](t, ctx,
		`document.querySelector("#label-create-colour-any").getBoundingClientRect().height`),
		24.0)
	settingsClick(t, ctx, `button`, "Create label")
	waitFor(t, ctx, "the label, red", `(async () => { const ls = await `+settingsFetch(base+"/labels")+`;
		return ls.length === 1 && ls[0].name === "Urgent" && ls[0].color === "#b3261e"; })()`)
	settingsClick(t, ctx, `button`, "Delete Urgent")
	waitFor(t, ctx, "the label's dialog",
		`document.querySelector("dialog[open]")?.textContent.includes("taken off every card")`)
	accessible(t, ctx, "delete a label")
	settingsClick(t, ctx, `dialog[open] button`, "Delete the label")
	waitFor(t, ctx, "no label", `(async () => (await `+settingsFetch(base+"/labels")+`).length === 0)()`)

	// A custom field, its type chosen in words; a field of choices with its options.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#settings-fields ~ form input[name=name]`), "Size"))
	settingsSetValue(t, ctx, `#settings-fields ~ form select[name=type]`, "select")
	waitFor(t, ctx, "the choices", `document.querySelector("#field-new-options") !== null`)
	require.Contains(t, text(t, ctx, `#settings-fields ~ form select[name=type]`), "Several choices from a list")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#field-new-options`), "S\nM\nL"))
	settingsClick(t, ctx, `button`, "Define field")
	waitFor(t, ctx, "the field", `(async () => { const fs = await `+settingsFetch(base+"/custom-fields")+`;
		return fs.length === 1 && fs[0].name === "Size" && fs[0].type === "select" && fs[0].options.join() === "S,M,L"; })()`)
	waitFor(t, ctx, "the field in words",
		`document.querySelector("[data-settings-field]")?.textContent.includes("One choice from a list: S, M, L")`)

	// A scope: created, its view changed, renamed, deleted.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#scope-new-name`), "Phase 1"))
	settingsClick(t, ctx, `button`, "Create scope")
	waitFor(t, ctx, "the scope and its views",
		`document.querySelector("[data-settings-scope] select")?.value === "kanban" &&
		document.querySelectorAll("[data-settings-scope] select option").length === 5`)
	settingsSetValue(t, ctx, `[data-settings-scope] select`, "list")
	waitFor(t, ctx, "the scope's view",
		`(async () => (await `+settingsFetch(base+"/scopes")+`)[0]?.activeView === "list")()`)
	settingsSetValue(t, ctx, `[data-settings-scope] input[name=name]`, "Phase one")
	settingsClick(t, ctx, `[data-settings-scope] button`, "Rename")
	waitFor(t, ctx, "the scope renamed",
		`(async () => (await `+settingsFetch(base+"/scopes")+`)[0]?.name === "Phase one")()`)
	settingsClick(t, ctx, `button`, "Delete Phase one")
	settingsClick(t, ctx, `dialog[open] button`, "Delete the scope and its cards")
	waitFor(t, ctx, "no scope", `(async () => (await `+settingsFetch(base+"/scopes")+`).length === 0)()`)
	shot(t, ctx, "project-settings", 1366, 900)
	accessible(t, ctx, "project settings, filled")

	// The project renamed, then exported: the link's file is the project's snapshot.
	settingsSetValue(t, ctx, `#project-settings-name`, "Launch 2025")
	settingsClick(t, ctx, `#settings-project ~ form button`, "Save")
	waitFor(t, ctx, "the new name", `document.querySelector("h1").textContent === "Settings of Launch 2025"`)
	require.Equal(t, "Launch-2025.json", eval[string](t, ctx,
		`document.querySelector("a[download]").getAttribute("download")`))
	exported := eval[string](t, ctx, `fetch(document.querySelector("a[download]").href).then(r => r.text())`)
	var doc struct {
		Project struct{ Name string }
		Columns []struct{ Name string }
		Cards   []struct {
			Title       string
			ColumnIndex int
		}
		CustomFields []struct{ Name string }
	}
	require.NoError(t, json.Unmarshal([]byte(exported), &doc))
	require.Equal(t, "Launch 2025", doc.Project.Name)
	require.Len(t, doc.Columns, 2)
	require.Equal(t, cols[2].Name, doc.Columns[1].Name)
	require.Len(t, doc.Cards, 1)
	require.Equal(t, "Book the venue", doc.Cards[0].Title)
	require.Equal(t, 1, doc.Cards[0].ColumnIndex)
	require.Len(t, doc.CustomFields, 1)

	// Imported back, from the file, as a new project with another name.
	file := filepath.Join(t.TempDir(), "Launch-2025.json")
	require.NoError(t, os.WriteFile(file, []byte(exported), 0o600))
	settingsClick(t, ctx, `nav a`, "Projects")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#import-file`)))
	require.Contains(t, text(t, ctx, `#import-limits`), "at most 8 MB, with at most 50 columns and 500 cards")
	accessible(t, ctx, "projects, with the import")
	do(t, ctx, chromedp.SetUploadFiles(chromedp.CSS(`#import-file`), []string{file}),
		chromedp.SendKeys(chromedp.CSS(`#import-name`), "Launch copy"))
	settingsClick(t, ctx, `button`, "Import")
	waitFor(t, ctx, "the imported board", `document.querySelector("h1")?.textContent === "Launch copy" &&
		document.querySelectorAll(".column").length === 2 &&
		document.querySelector(".column:nth-child(2) .card")?.textContent.includes("Book the venue")`)
	copyPath := eval[string](t, ctx, `location.pathname`)
	require.NotContains(t, copyPath, prj.ID)

	// The copy deleted: the dialog asks for its name.
	settingsClick(t, ctx, `a`, "Project settings")
	settingsClick(t, ctx, `button`, "Delete this project")
	waitFor(t, ctx, "the typed-name dialog", `document.querySelector("dialog[open] input") !== null`)
	accessible(t, ctx, "delete the project")
	require.True(t, eval[bool](t, ctx, `document.querySelector("dialog[open] button[type=submit]").disabled`))
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`dialog[open] input`), "Launch copy"))
	settingsClick(t, ctx, `dialog[open] button`, "Delete the project for good")
	waitFor(t, ctx, "back on the projects", `document.querySelector("h1")?.textContent === "Projects" &&
		document.querySelector("main").textContent.includes("Launch 2025") &&
		!document.querySelector("main").textContent.includes("Launch copy")`)
}

// TestBrowserCardComplete: on a board 1,366 px wide with five columns, the scroll cue says which are
// shown and scrolls; the comment count's icon is an SVG, with no emoji on the board; in a card's detail,
// a custom field's value is saved, a relation is added, followed to the other card, and removed from
// there; a due date is picked in New York's time zone and kept as that day (midnight UTC); the
// card's history shows the change; the card is deleted after confirming.
func TestBrowserCardComplete(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("cat@example.com")
	var prj struct{ ID string }
	s.call("POST", a.ws()+"/projects", a.Token, map[string]string{"name": "Site"}, &prj)
	base := a.ws() + "/projects/" + prj.ID
	s.call("POST", base+"/columns", a.Token, map[string]string{"name": "Review"}, nil)
	s.call("POST", base+"/columns", a.Token, map[string]string{"name": "Shipped"}, nil)
	var cols []struct{ ID string }
	s.call("GET", base+"/columns", a.Token, nil, &cols)
	require.Len(t, cols, 5)
	var plan, venue struct{ ID string }
	s.call("POST", base+"/columns/"+cols[0].ID+"/cards", a.Token, map[string]any{"title": "Plan the launch"}, &plan)
	s.call("POST", base+"/columns/"+cols[0].ID+"/cards", a.Token, map[string]any{"title": "Book the venue"}, &venue)
	s.call("POST", base+"/cards/"+plan.ID+"/comments", a.Token, map[string]any{"content": "On it"}, nil)
	var budget struct{ ID string }
	s.call("POST", base+"/custom-fields", a.Token, map[string]any{"name": "Budget", "type": "number"}, &budget)

	ctx := page(t)
	do(t, ctx, chromedp.EmulateViewport(1366, 768), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{
			TimezoneID: "America/New_York"})
		return err
	}))
	settingsSignIn(t, ctx, s, a)
	board := s.url + "/w/" + a.Org + "/" + a.WS + "/p/" + prj.ID
	do(t, ctx, chromedp.Navigate(board), chromedp.WaitVisible(chromedp.CSS(`.column`)))
	waitFor(t, ctx, "the scroll cue",
		`document.querySelector("[data-testid=columns-shown]")?.textContent === "Columns 1 to 4 of 5 shown" &&
		document.querySelector(".board-wrap.more-right") !== null`)
	shot(t, ctx, "board-scroll-cue", 1366, 768)
	do(t, ctx, chromedp.EmulateViewport(1366, 768)) // shot leaves the page at 1,440 px
	accessible(t, ctx, "board with the scroll cue")
	settingsClick(t, ctx, `.board-scroll button`, "Show the columns to the right")
	waitFor(t, ctx, "the last column in sight",
		`document.querySelector("[data-testid=columns-shown]")?.textContent === "Columns 2 to 5 of 5 shown" &&
		document.querySelector(".board-wrap.more-right") === null`)
	waitFor(t, ctx, "the comment count with its SVG icon", `document.querySelector(".card .comments svg") !== null &&
		document.querySelector(".card .comments").textContent.trim() === "1 comment"`)
	require.False(t, eval[bool](t, ctx, `/\p{Extended_Pictographic}/u.test(document.querySelector(".board").textContent)`),
		"no emoji on the board")

	// The card's detail: a custom field's value.
	do(t, ctx, chromedp.Navigate(board+"?card="+plan.ID), chromedp.WaitVisible(chromedp.CSS(`#field-value-`+budget.ID)))
	waitFor(t, ctx, "the card's parts", `document.querySelector(".relation-new select[name=target]") !== null &&
		document.querySelector(".history li") !== null`)
	shot(t, ctx, "card-complete", 1366, 768)
	accessible(t, ctx, "card detail, complete")
	settingsSetValue(t, ctx, `#field-value-`+budget.ID, "1200")
	settingsClick(t, ctx, `button`, "Save the fields")
	waitFor(t, ctx, "the value saved", `(async () => (await `+settingsFetch(base+"/cards/"+plan.ID)+`).customFields[`+
		jsString(budget.ID)+`] === 1200)()`)

	// A relation: Plan the launch blocks Book the venue; followed; removed from the other side.
	settingsSetValue(t, ctx, `.relation-new select[name=type]`, "blocks")
	settingsSetValue(t, ctx, `.relation-new select[name=target]`, venue.ID)
	settingsClick(t, ctx, `.relation-new button`, "Relate")
	waitFor(t, ctx, "the relation",
		`document.querySelector(".relations li")?.textContent.includes("Blocks Book the venue")`)
	settingsClick(t, ctx, `.relations a`, "Book the venue")
	waitFor(t, ctx, "the related card open", `location.search === "?card=`+venue.ID+`" &&
		document.querySelector("#card-dialog-title")?.textContent === "Book the venue" &&
		document.querySelector(".relations li")?.textContent.includes("Blocked by Plan the launch")`)
	settingsClick(t, ctx, `.relations button`, "Remove the link to Plan the launch")
	waitFor(t, ctx, "the relation's dialog",
		`document.querySelector("dialog[open]")?.textContent.includes("Remove this relation?")`)
	accessible(t, ctx, "remove a relation")
	settingsClick(t, ctx, `dialog[open] button`, "Remove")
	waitFor(t, ctx, "no relation",
		`(async () => (await `+settingsFetch(base+"/cards/"+plan.ID+"/relations")+`).length === 0 &&
		document.querySelector(".card-detail").textContent.includes("Not related to any card yet."))()`)

	// A due date: the day picked, as its midnight UTC (a day, the same everywhere); shown as that day again.
	settingsSetValue(t, ctx, `input[name=dueDate]`, "2025-03-10")
	settingsClick(t, ctx, `.card-form button`, "Save")
	waitFor(t, ctx, "the due date saved",
		`(async () => (await `+settingsFetch(base+"/cards/"+venue.ID)+`).dueDate === "2025-03-10T00:00:00Z")()`)
	waitFor(t, ctx, "the date shown as picked", `document.querySelector("input[name=dueDate]").value === "2025-03-10" &&
		document.querySelector("[data-card-id='`+venue.ID+`'] .due")?.textContent === "Due " +
		new Date(2025, 2, 10).toLocaleDateString(undefined, {year: "numeric", month: "short", day: "numeric"})`)
	// Its history says who changed what.
	waitFor(t, ctx, "the change in the history", `[...document.querySelectorAll(".history li")].some(l =>
		l.dataset.activityType === "card_updated" && l.textContent.includes("cat") &&
		l.textContent.includes("changed the due date"))`)

	// Deleted, after confirming.
	settingsClick(t, ctx, `.card-detail button`, "Delete the card")
	waitFor(t, ctx, "the card's dialog",
		`document.querySelector("dialog[open]")?.textContent.includes("deleted for good")`)
	accessible(t, ctx, "delete a card")
	settingsClick(t, ctx, `dialog[open] button`, "Delete the card for good")
	waitFor(t, ctx, "the card gone", `(async () => !document.querySelector(".card-detail") &&
		![...document.querySelectorAll(".card")].some(c => c.textContent.includes("Book the venue")) &&
		(await fetch(`+jsString(base+"/cards/"+venue.ID)+`)).status === 404)()`)
}

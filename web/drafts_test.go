package web_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
)

// draftJSON is a draft as the API answers it, the fields the tests read.
type draftJSON struct {
	ID        string
	Status    string
	Round     int
	Questions []string
	Answers   []struct{ Question, Answer string }
	Roadmap   *draft.DraftRoadmap
	ProjectID *string
}

// clickText clicks the first button whose text is label.
func clickText(t *testing.T, ctx context.Context, label string) {
	t.Helper()
	waitFor(t, ctx, "the button "+label, `[...document.querySelectorAll("button")].some(b => b.textContent.trim() === `+
		jsString(label)+` && !b.disabled)`)
	eval[bool](t, ctx, `(() => { [...document.querySelectorAll("button")].find(b => b.textContent.trim() === `+
		jsString(label)+`).click(); return true; })()`)
}

// TestBrowserDraftToProject: "New project with AI" from the projects page: the framing written (a team, a
// pasted text), the first questions answered, a second round, the roadmap generated and shown as the API
// has it, the project created (a team member without an e-mail reported as not added) and its board
// opened, with a column per phase and a card per deliverable.
func TestBrowserDraftToProject(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("dora@example.com")
	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href$="/drafts/new"]`)), chromedp.WaitVisible(chromedp.CSS(`#draft-name`)))
	clickText(t, ctx, "Add a team member")
	clickText(t, ctx, "Add a team member")
	clickText(t, ctx, "Add a text")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#note-0-content`)))
	accessible(t, ctx, "new draft")
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#draft-name`), "Inspections app"),
		chromedp.SendKeys(chromedp.CSS(`#draft-description`),
			"A mobile app for field inspectors.\n- Photo capture\n- Offline sync"),
		chromedp.SendKeys(chromedp.CSS(`#team-0-name`), "Bo"),
		chromedp.SendKeys(chromedp.CSS(`#team-0-role`), "mobile developer"),
		chromedp.SendKeys(chromedp.CSS(`#team-1-name`), "Dora"), chromedp.SendKeys(chromedp.CSS(`#team-1-role`), "product"),
		chromedp.SendKeys(chromedp.CSS(`#team-1-email`), a.Email),
		chromedp.SendKeys(chromedp.CSS(`#note-0-title`), "Brief"),
		chromedp.SendKeys(chromedp.CSS(`#note-0-content`), "Inspectors visit twenty sites a week."),
	)
	clickText(t, ctx, "Start the draft")
	waitFor(t, ctx, "the first questions", `/\/drafts\/[0-9a-f-]{36}$/.test(location.pathname) &&
		!!document.querySelector("#answer-0") && document.querySelector("[data-status]")?.dataset.status === "refined"`)
	id := eval[string](t, ctx, `location.pathname.split("/").pop()`)
	accessible(t, ctx, "draft questions")
	var d draftJSON
	s.call("GET", a.ws()+"/project-drafts/"+id, a.Token, nil, &d)
	require.Equal(t, "refined", d.Status)
	require.NotEmpty(t, d.Questions)
	require.Equal(t, d.Questions[0], text(t, ctx, `label[for="answer-0"]`))

	const answer = "Both; Android first, the inspectors use it"
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#answer-0`), answer))
	clickText(t, ctx, "Send answers and ask more")
	waitFor(t, ctx, "the second round", `document.querySelector("main").textContent.includes("Round 2 of") &&
		!!document.querySelector("#answer-0")`)
	s.call("GET", a.ws()+"/project-drafts/"+id, a.Token, nil, &d)
	require.Equal(t, 2, d.Round)
	require.Len(t, d.Answers, 1)
	require.Equal(t, answer, d.Answers[0].Answer)
	require.Contains(t, eval[string](t, ctx, `document.querySelector(".answers").textContent`), answer)

	clickText(t, ctx, "Generate the roadmap")
	waitFor(t, ctx, "the roadmap", `document.querySelector("[data-status]")?.dataset.status === "roadmap_ready" &&
		document.querySelectorAll(".roadmap .phase").length > 0`)
	accessible(t, ctx, "draft roadmap")
	s.call("GET", a.ws()+"/project-drafts/"+id, a.Token, nil, &d)
	require.NotNil(t, d.Roadmap)
	var phases, deliverables []string
	for _, p := range d.Roadmap.Phases {
		phases = append(phases, p.Name)
		for _, x := range p.Deliverables {
			deliverables = append(deliverables, x.Title)
		}
	}
	require.Equal(t, phases, eval[[]string](t, ctx,
		`[...document.querySelectorAll(".roadmap .phase h3")].map(h => h.textContent)`))
	require.Equal(t, deliverables, eval[[]string](t, ctx,
		`[...document.querySelectorAll(".roadmap .deliverables strong")].map(h => h.textContent)`))

	clickText(t, ctx, "Create the project")
	// Bo has no e-mail: the page says so before the board.
	waitFor(t, ctx, "the project created",
		`document.querySelector("main").textContent.includes("Not added to the project") &&
		document.querySelector("main").textContent.includes("Bo")`)
	accessible(t, ctx, "draft executed")
	do(t, ctx, chromedp.Click(chromedp.CSS(`main a[href*="/p/"]`)))
	waitFor(t, ctx, "the board", `location.pathname.includes("/p/") && document.querySelectorAll(".column").length === `+
		itoa(len(phases)))

	s.call("GET", a.ws()+"/project-drafts/"+id, a.Token, nil, &d)
	require.Equal(t, "executed", d.Status)
	require.NotNil(t, d.ProjectID)
	require.True(t, eval[bool](t, ctx, `location.pathname.endsWith("/p/`+*d.ProjectID+`")`))
	var cols []struct {
		ID, Name string
		Order    int
	}
	s.call("GET", a.ws()+"/projects/"+*d.ProjectID+"/columns", a.Token, nil, &cols)
	sort.Slice(cols, func(i, j int) bool { return cols[i].Order < cols[j].Order })
	var colNames []string
	for _, c := range cols {
		colNames = append(colNames, c.Name)
	}
	require.Equal(t, phases, colNames)
	var cards []struct{ Title, ColumnID string }
	s.call("GET", a.ws()+"/projects/"+*d.ProjectID+"/cards?limit=200", a.Token, nil, &cards)
	var titles []string
	for _, c := range cards {
		titles = append(titles, c.Title)
	}
	require.ElementsMatch(t, deliverables, titles)
	// The first phase's deliverables are the first column's cards.
	var first []string
	for _, c := range cards {
		if c.ColumnID == cols[0].ID {
			first = append(first, c.Title)
		}
	}
	var want []string
	for _, x := range d.Roadmap.Phases[0].Deliverables {
		want = append(want, x.Title)
	}
	require.ElementsMatch(t, want, first)
}

// TestBrowserDraftsList: the drafts list says each draft's stage in words and reopens it where it
// stands; a draft is deleted after a confirmation; an unknown draft's page says so; no draft left shows
// what to do.
func TestBrowserDraftsList(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("lin@example.com")
	var refined, framing draftJSON
	s.call("POST", a.ws()+"/project-drafts", a.Token, map[string]any{"name": "Website revamp",
		"description": "A new public website with a blog."}, &refined)
	s.call("POST", a.ws()+"/project-drafts/"+refined.ID+"/refine", a.Token, map[string]any{}, &refined)
	require.Equal(t, "refined", refined.Status)
	require.NotEmpty(t, refined.Questions)
	s.call("POST", a.ws()+"/project-drafts", a.Token, map[string]any{"name": "Data move"}, &framing)

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Click(chromedp.CSS(`main a[href$="/drafts"]`)))
	waitFor(t, ctx, "the drafts", `document.querySelectorAll(".draft-item").length === 2`)
	require.Equal(t, "Refined", text(t, ctx, `[data-draft-id="`+refined.ID+`"] [data-status]`))
	require.Equal(t, "Framing", text(t, ctx, `[data-draft-id="`+framing.ID+`"] [data-status]`))
	accessible(t, ctx, "drafts list")

	// Reopened: the page shows the questions waiting for answers.
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-draft-id="`+refined.ID+`"] a`)))
	waitFor(t, ctx, "the draft's questions", `!!document.querySelector("#answer-0")`)
	require.Equal(t, refined.Questions[0], text(t, ctx, `label[for="answer-0"]`))
	require.Equal(t, "Questions", text(t, ctx, `.stages [aria-current="step"]`))
	do(t, ctx, chromedp.Click(chromedp.CSS(`main a[href$="/drafts"]`)))
	waitFor(t, ctx, "the drafts again", `document.querySelectorAll(".draft-item").length === 2`)

	// Deleted after the confirmation.
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-draft-id="`+framing.ID+`"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
	accessible(t, ctx, "delete a draft")
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "one draft left",
		`document.querySelectorAll(".draft-item").length === 1 && !document.querySelector("dialog[open]")`)
	var list []draftJSON
	s.call("GET", a.ws()+"/project-drafts", a.Token, nil, &list)
	require.Len(t, list, 1)
	require.Equal(t, refined.ID, list[0].ID)

	// The last one, from its own page: the list then says what to do.
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-draft-id="`+refined.ID+`"] a`)))
	waitFor(t, ctx, "the draft's page", `!!document.querySelector("#answer-0")`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`.danger-zone button`)), chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)),
		chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "no draft", `!!document.querySelector("[data-empty=drafts]")`)
	accessible(t, ctx, "no draft")

	// A draft that is not there is said in words.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/drafts/"+refined.ID))
	waitFor(t, ctx, "the error", `document.querySelector("[role=alert]")?.textContent.includes("not found")`)
}

// TestBrowserDraftReload: a roadmap being written is shown as it comes; a reload in the middle shows what
// was written so far, once, and the rest then arrives until the roadmap is ready. The job is played by
// the test (the offline planner writes a roadmap in milliseconds): the draft is put in generating, and
// its stream gets the model's text in two halves, then the roadmap.
func TestBrowserDraftReload(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("rae@example.com")
	var d draftJSON
	s.call("POST", a.ws()+"/project-drafts", a.Token, map[string]any{"name": "Conference"}, &d)
	rm := draft.DraftRoadmap{Phases: []draft.DraftPhase{
		{Name: "Programme", Goal: "Choose the talks.", Deliverables: []draft.DraftDeliverable{
			{Title: "Call for papers", Description: "Open it for six weeks."}}},
		{Name: "Venue", Goal: "Book the place.", Deliverables: []draft.DraftDeliverable{
			{Title: "Venue contract", Description: "Signed by March."}}},
	}}
	b, err := json.Marshal(rm)
	require.NoError(t, err)
	full := string(b)
	half := strings.Index(full, `{"name":"Venue"`)
	require.Positive(t, half)
	bg := context.Background()
	var run int32
	require.NoError(t, s.b.Pool.QueryRow(bg, `UPDATE project_drafts SET status = 'generating', run = run + 1 WHERE id = $1
		RETURNING run`, d.ID).Scan(&run))
	appendEv := func(typ, msg string) {
		require.NoError(t, s.b.Drafts.AppendEvent(bg, d.ID, db.NewStreamEvent{Type: typ, Status: draft.DraftGenerating,
			Message: msg}))
	}
	appendEv(draft.DraftEventStatus, "roadmap generation started")
	for i := 0; i < half; i += 10 {
		appendEv(draft.DraftEventToken, full[i:min(i+10, half)])
	}

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/drafts/"+d.ID))
	written := `document.querySelector("[data-status]")?.dataset.status === "generating" &&
		[...document.querySelectorAll(".roadmap .phase h3")].map(h => h.textContent).join() === "Programme" &&
		document.querySelector(".stream")?.textContent === ` + jsString(full[:half])
	waitFor(t, ctx, "the roadmap so far", written)
	require.Equal(t, "Call for papers", text(t, ctx, ".roadmap .deliverables strong"))
	accessible(t, ctx, "draft generating")
	do(t, ctx, chromedp.Reload())
	waitFor(t, ctx, "the roadmap so far after a reload", written)
	waitFor(t, ctx, "the stream followed", `document.querySelector("[data-conn]")?.dataset.conn === "open"`)

	for i := half; i < len(full); i += 10 {
		appendEv(draft.DraftEventToken, full[i:min(i+10, len(full))])
	}
	waitFor(t, ctx, "the whole roadmap written",
		`[...document.querySelectorAll(".roadmap .phase h3")].map(h => h.textContent).join() === "Programme,Venue" &&
		document.querySelector(".stream")?.textContent === `+jsString(full))
	_, err = s.b.Drafts.FinishRoadmap(bg, d.ID, run, rm)
	require.NoError(t, err)
	waitFor(t, ctx, "the roadmap ready", `document.querySelector("[data-status]")?.dataset.status === "roadmap_ready" &&
		[...document.querySelectorAll(".roadmap .deliverables strong")].map(h => h.textContent).join() ===
		"Call for papers,Venue contract"`)
}

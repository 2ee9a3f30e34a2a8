package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// plMission, plTodo, plAction are pilotage records as the API answers them, the fields the tests read.
type plMission struct {
	ID, Objective, Module, Status string
	BlockedReason                 *string
}

type plTodo struct {
	ID, Label, Status string
	MissionID         *string
	DueDate           *time.Time
}

type plAction struct {
	ID, ActionType, Status string
	ReviewReason           *string
	Result                 *struct {
		Effect               bool
		RecordType, RecordID string
	}
}

// noRawEnum fails the test when the page's main text shows a value of an API enum as it is (to_launch).
func noRawEnum(t *testing.T, ctx context.Context, screen string) {
	t.Helper()
	raw := eval[string](t, ctx, `(document.querySelector("main").innerText.match(/\b[a-z]+_[a-z_]+\b/) || [""])[0]`)
	if raw != "" {
		t.Errorf("%s shows the raw value %q", screen, raw)
	}
}

// textOf is the textContent of the first element matching sel ("" when none).
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return eval[string](t, ctx, `document.querySelector(`+jsString(sel)+`)?.textContent ?? ""`)
}

// statusIs is the JavaScript test that the element sel shows the state status.
func statusIs(sel, status string) string {
	return `document.querySelector(` + jsString(sel+" [data-status]") + `)?.dataset.status === ` + jsString(status)
}

// cockpitTab opens a tab of the cockpit from its navigation and waits for its heading.
func cockpitTab(t *testing.T, ctx context.Context, section, title string) {
	t.Helper()
	do(t, ctx, chromedp.Click(chromedp.CSS(`nav[aria-label=Pilotage] a[href$="/pilotage/`+section+`"]`)))
	waitFor(t, ctx, title, `document.querySelector("main h1")?.textContent === `+jsString(title)+
		` && !document.querySelector("main [role=status]")`)
}

// cockpitClick clicks the element sel, failing the test when there is none.
func cockpitClick(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	q := `document.querySelector(` + jsString(sel) + `)`
	waitFor(t, ctx, sel, `!!`+q+` && !`+q+`.disabled`)
	eval[bool](t, ctx, `(() => { document.querySelector(`+jsString(sel)+`).click(); return true; })()`)
}

// TestBrowserCockpitRecords: an owner's cockpit: the dashboard's counts in words; a mission created, moved
// to in progress, blocked with a reason, done, renamed and deleted; a decision created, its impact edited,
// deleted; a priority created, deactivated, deleted; a to-do for a mission with a due date created, done,
// deleted; an active document created and edited; the history lists those changes with their times. Each
// step is checked through the API, and no screen shows an enum's raw value.
func TestBrowserCockpitRecords(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("olga@example.com")
	pl := a.ws() + "/pilotage"
	ctx := page(t)
	signInTo(t, ctx, s, a, "/w/"+a.Org+"/"+a.WS+"/pilotage")
	waitFor(t, ctx, "the dashboard", `document.body.textContent.includes("Cycle") &&
		!!document.querySelector('[data-count="to_launch"]')`)
	require.Equal(t, "To launch", textOf(t, ctx, `[data-count="to_launch"] dt`))
	noRawEnum(t, ctx, "dashboard")
	accessible(t, ctx, "pilotage dashboard")

	// A mission through its states.
	cockpitTab(t, ctx, "missions", "Missions")
	waitFor(t, ctx, "no mission yet", `!!document.querySelector('[data-empty="mission"]')`)
	accessible(t, ctx, "pilotage missions, empty")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#new-mission-objective`), "Launch the beta"),
		chromedp.SendKeys(chromedp.CSS(`#new-mission-module`), "Growth"))
	cockpitClick(t, ctx, `.record-form.new button[type=submit]`)
	waitFor(t, ctx, "the mission listed", `document.querySelector(".pl-record h3")?.textContent === "Launch the beta"`)
	var missions []plMission
	s.call("GET", pl+"/missions", a.Token, nil, &missions)
	require.Len(t, missions, 1)
	m := missions[0]
	require.Equal(t, "to_launch", m.Status)
	require.Equal(t, "Growth", m.Module)
	item := "#mission-" + m.ID
	require.Equal(t, "To launch", textOf(t, ctx, item+" [data-status]"))
	accessible(t, ctx, "pilotage missions")
	mission := func() plMission {
		var got plMission
		s.call("GET", pl+"/missions", a.Token, nil, &missions)
		require.Len(t, missions, 1)
		got = missions[0]
		return got
	}
	state := func(sel, status string) {
		t.Helper()
		waitFor(t, ctx, "the state "+status, statusIs(sel, status)+` && !document.querySelector(`+jsString(sel+" select")+
			`).disabled`)
	}

	choose(t, ctx, item+" select", "in_progress")
	state(item, "in_progress")
	require.Equal(t, "in_progress", mission().Status)

	choose(t, ctx, item+" select", "blocked")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#block-`+m.ID)))
	accessible(t, ctx, "pilotage mission, blocking")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#block-`+m.ID), "Waiting for the legal review"))
	clickText(t, ctx, "Mark as blocked")
	state(item, "blocked")
	got := mission()
	require.Equal(t, "blocked", got.Status)
	require.NotNil(t, got.BlockedReason)
	require.Equal(t, "Waiting for the legal review", *got.BlockedReason)
	require.Contains(t, text(t, ctx, item+" .blocked-reason"), "Waiting for the legal review")

	choose(t, ctx, item+" select", "done")
	state(item, "done")
	got = mission()
	require.Equal(t, "done", got.Status)
	require.Nil(t, got.BlockedReason, "leaving blocked clears the reason")
	noRawEnum(t, ctx, "missions")

	cockpitClick(t, ctx, `button[aria-label="Edit the mission Launch the beta"]`)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#edit-`+m.ID+`-objective`)))
	accessible(t, ctx, "pilotage mission, editing")
	settingsSetValue(t, ctx, `#edit-`+m.ID+`-objective`, "Launch the public beta")
	cockpitClick(t, ctx, item+` button[type=submit]`)
	waitFor(t, ctx, "the mission renamed", `document.querySelector(`+jsString(item+" h3")+
		`)?.textContent === "Launch the public beta"`)
	require.Equal(t, "Launch the public beta", mission().Objective)

	cockpitClick(t, ctx, item+` button.danger`)
	confirm(t, ctx, "pilotage mission, deleting")
	waitFor(t, ctx, "no mission left", `!!document.querySelector('[data-empty="mission"]')`)
	s.call("GET", pl+"/missions", a.Token, nil, &missions)
	require.Empty(t, missions)

	// A decision: decisions have no state; created, its impact edited, deleted.
	cockpitTab(t, ctx, "decisions", "Decisions")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#new-decision-title`)),
		chromedp.SendKeys(chromedp.CSS(`#new-decision-title`), "Ship every week"),
		chromedp.SendKeys(chromedp.CSS(`#new-decision-impact`), "Faster feedback"))
	accessible(t, ctx, "pilotage decisions, empty")
	cockpitClick(t, ctx, `.record-form.new button[type=submit]`)
	waitFor(t, ctx, "the decision listed", `document.querySelector(".pl-record h3")?.textContent === "Ship every week"`)
	var decisions []struct{ ID, Title, Impact string }
	s.call("GET", pl+"/decisions", a.Token, nil, &decisions)
	require.Len(t, decisions, 1)
	require.Equal(t, "Faster feedback", decisions[0].Impact)
	require.True(t, eval[bool](t, ctx, `!!document.querySelector(".pl-record time")`), "the decision says when")
	accessible(t, ctx, "pilotage decisions")
	d := decisions[0]
	cockpitClick(t, ctx, `button[aria-label="Edit the decision Ship every week"]`)
	settingsSetValue(t, ctx, `#edit-`+d.ID+`-impact`, "Faster feedback, smaller releases")
	cockpitClick(t, ctx, `#decision-`+d.ID+` button[type=submit]`)
	waitFor(t, ctx, "the new impact",
		`document.querySelector(".pl-record .impact")?.textContent === "Faster feedback, smaller releases"`)
	s.call("GET", pl+"/decisions", a.Token, nil, &decisions)
	require.Equal(t, "Faster feedback, smaller releases", decisions[0].Impact)
	cockpitClick(t, ctx, `#decision-`+d.ID+` button.danger`)
	confirm(t, ctx, "pilotage decision, deleting")
	waitFor(t, ctx, "no decision left", `!!document.querySelector('[data-empty="decision"]')`)
	s.call("GET", pl+"/decisions", a.Token, nil, &decisions)
	require.Empty(t, decisions)

	// A priority: created, deactivated, deleted.
	cockpitTab(t, ctx, "priorities", "Priorities")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#new-priority-label`)),
		chromedp.SendKeys(chromedp.CSS(`#new-priority-label`), "Reliability"))
	cockpitClick(t, ctx, `.record-form.new button[type=submit]`)
	waitFor(t, ctx, "the priority listed", `document.querySelector(".pl-record h3")?.textContent === "Reliability"`)
	accessible(t, ctx, "pilotage priorities")
	var priorities []struct {
		ID, Label string
		Active    bool
	}
	s.call("GET", pl+"/priorities", a.Token, nil, &priorities)
	require.Len(t, priorities, 1)
	require.True(t, priorities[0].Active)
	cockpitClick(t, ctx, `button[aria-label="Deactivate the priority Reliability"]`)
	waitFor(t, ctx, "inactive", `document.querySelector(".pl-record .tag")?.textContent === "Inactive"`)
	s.call("GET", pl+"/priorities", a.Token, nil, &priorities)
	require.False(t, priorities[0].Active)
	cockpitClick(t, ctx, `#priority-`+priorities[0].ID+` button.danger`)
	confirm(t, ctx, "pilotage priority, deleting")
	waitFor(t, ctx, "no priority left", `!!document.querySelector('[data-empty="priority"]')`)
	s.call("GET", pl+"/priorities", a.Token, nil, &priorities)
	require.Empty(t, priorities)

	// A to-do for a mission, with a due date: created, done, deleted.
	var hire plMission
	s.call("POST", pl+"/missions", a.Token, map[string]string{"objective": "Hire a designer"}, &hire)
	cockpitTab(t, ctx, "todos", "To-dos")
	waitFor(t, ctx, "the mission to choose", `!!document.querySelector('#new-todo-missionId option[value="`+hire.ID+`"]')`)
	accessible(t, ctx, "pilotage to-dos, empty")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#new-todo-label`), "Write the job post"))
	choose(t, ctx, `#new-todo-missionId`, hire.ID)
	settingsSetValue(t, ctx, `#new-todo-dueDate`, "2030-05-17")
	cockpitClick(t, ctx, `.record-form.new button[type=submit]`)
	waitFor(t, ctx, "the to-do listed", `document.querySelector(".pl-record h3")?.textContent === "Write the job post"`)
	var todos []plTodo
	s.call("GET", pl+"/todos", a.Token, nil, &todos)
	require.Len(t, todos, 1)
	td := todos[0]
	require.Equal(t, "todo", td.Status)
	require.NotNil(t, td.MissionID)
	require.Equal(t, hire.ID, *td.MissionID)
	require.NotNil(t, td.DueDate)
	require.Contains(t, text(t, ctx, `#todo-`+td.ID), "for Hire a designer")
	require.Contains(t, text(t, ctx, `#todo-`+td.ID), "2030")
	accessible(t, ctx, "pilotage to-dos")
	choose(t, ctx, `#todo-`+td.ID+` select`, "done")
	state(`#todo-`+td.ID, "done")
	s.call("GET", pl+"/todos", a.Token, nil, &todos)
	require.Equal(t, "done", todos[0].Status)
	noRawEnum(t, ctx, "to-dos")
	cockpitClick(t, ctx, `#todo-`+td.ID+` button.danger`)
	confirm(t, ctx, "pilotage to-do, deleting")
	waitFor(t, ctx, "no to-do left", `!!document.querySelector('[data-empty="todo"]')`)
	s.call("GET", pl+"/todos", a.Token, nil, &todos)
	require.Empty(t, todos)

	// An active document: created, its owner changed.
	cockpitTab(t, ctx, "docs", "Active documents")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#new-doc-title`)),
		chromedp.SendKeys(chromedp.CSS(`#new-doc-title`), "Architecture notes"),
		chromedp.SendKeys(chromedp.CSS(`#new-doc-owner`), "Bo"))
	choose(t, ctx, `#new-doc-sourceType`, "tech")
	cockpitClick(t, ctx, `.record-form.new button[type=submit]`)
	waitFor(t, ctx, "the document listed", `document.querySelector(".pl-record h3")?.textContent === "Architecture notes"`)
	require.Contains(t, text(t, ctx, `.pl-record`), "Tech · kept by Bo")
	accessible(t, ctx, "pilotage active documents")
	var docs []struct{ ID, Title, Owner, SourceType string }
	s.call("GET", pl+"/docs", a.Token, nil, &docs)
	require.Len(t, docs, 1)
	require.Equal(t, "tech", docs[0].SourceType)
	cockpitClick(t, ctx, `button[aria-label="Edit the active document Architecture notes"]`)
	settingsSetValue(t, ctx, `#edit-`+docs[0].ID+`-owner`, "Dora")
	cockpitClick(t, ctx, `#doc-`+docs[0].ID+` button[type=submit]`)
	waitFor(t, ctx, "the new owner", `document.querySelector(".pl-record")?.textContent.includes("kept by Dora")`)
	s.call("GET", pl+"/docs", a.Token, nil, &docs)
	require.Equal(t, "Dora", docs[0].Owner)

	// The history, newest first, with when each change happened.
	cockpitTab(t, ctx, "history", "History")
	waitFor(t, ctx, "the history", `document.querySelectorAll(".pl-history li").length > 10`)
	accessible(t, ctx, "pilotage history")
	noRawEnum(t, ctx, "history")
	h := text(t, ctx, `.pl-history`)
	require.Contains(t, h, `You added the mission "Launch the beta"`)
	require.Contains(t, h, "status from to launch to in progress")
	require.Contains(t, h, `You deleted the to-do "Write the job post"`)
	require.Equal(t, eval[int](t, ctx, `document.querySelectorAll(".pl-history li").length`),
		eval[int](t, ctx, `document.querySelectorAll(".pl-history li time[datetime]").length`), "every change says when")
	require.Contains(t, text(t, ctx, `.pl-history li`), "Dora", "newest first: the owner's change")

	// The dashboard with the records made above (README's screenshot of the cockpit).
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/pilotage"))
	waitFor(t, ctx, "the dashboard with records", `!!document.querySelector('[data-count="to_launch"]') &&
		document.body.textContent.includes("Cycle")`)
	shot(t, ctx, "cockpit", 1440, 1000)
}

// TestBrowserCockpitActions: actions proposed through the API are reviewed on the page: one approved with a
// reason, then applied, and what applying did (the to-do created) is shown and linked; another rejected; a
// third proposed through the page's form. The API has each in its state, and the applied one's result.
func TestBrowserCockpitActions(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("olga@example.com")
	pl := a.ws() + "/pilotage"
	var lyon plMission
	s.call("POST", pl+"/missions", a.Token, map[string]string{"objective": "Open the Lyon office"}, &lyon)
	var todo, move plAction
	s.call("POST", pl+"/actions/propose", a.Token, map[string]any{"actionType": "create_todo",
		"explanation": "The supplier **asked** twice.", "payload": map[string]any{"label": "Call the supplier"}}, &todo)
	s.call("POST", pl+"/actions/propose", a.Token, map[string]any{"actionType": "update_mission_status",
		"explanation": "The lease is signed.", "payload": map[string]any{"missionId": lyon.ID, "status": "in_progress"}},
		&move)

	ctx := page(t)
	signInTo(t, ctx, s, a, "/w/"+a.Org+"/"+a.WS+"/pilotage/actions")
	waitFor(t, ctx, "the actions", `document.querySelectorAll(".pl-action").length === 2`)
	accessible(t, ctx, "pilotage actions")
	noRawEnum(t, ctx, "actions")
	one, other := "#action-"+todo.ID, "#action-"+move.ID
	require.Equal(t, `Create the to-do "Call the supplier"`, text(t, ctx, one+" .what"))
	require.Equal(t, `Move the mission "Open the Lyon office" to in progress`, text(t, ctx, other+" .what"))
	require.Equal(t, "asked", text(t, ctx, one+" .markdown strong"))

	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#reason-`+todo.ID), "Agreed at the stand-up"))
	cockpitClick(t, ctx, one+` .review-form button:not(.secondary)`)
	waitFor(t, ctx, "approved", statusIs(one, "approved"))
	var got plAction
	s.call("GET", pl+"/actions/"+todo.ID, a.Token, nil, &got)
	require.Equal(t, "approved", got.Status)
	require.NotNil(t, got.ReviewReason)
	require.Equal(t, "Agreed at the stand-up", *got.ReviewReason)
	accessible(t, ctx, "pilotage action, approved")

	cockpitClick(t, ctx, one+` .actions button`)
	waitFor(t, ctx, "what applying did", `document.querySelector(`+jsString(one+" .result")+`)?.textContent.includes(
		'The to-do "Call the supplier" was created.')`)
	s.call("GET", pl+"/actions/"+todo.ID, a.Token, nil, &got)
	require.Equal(t, "applied", got.Status)
	require.NotNil(t, got.Result)
	require.True(t, got.Result.Effect)
	require.Equal(t, "todo", got.Result.RecordType)
	var todos []plTodo
	s.call("GET", pl+"/todos", a.Token, nil, &todos)
	require.Len(t, todos, 1)
	require.Equal(t, "Call the supplier", todos[0].Label)
	require.Equal(t, got.Result.RecordID, todos[0].ID)
	accessible(t, ctx, "pilotage action, applied")

	cockpitClick(t, ctx, other+` .review-form button.secondary`)
	waitFor(t, ctx, "rejected", statusIs(other, "rejected"))
	s.call("GET", pl+"/actions/"+move.ID, a.Token, nil, &got)
	require.Equal(t, "rejected", got.Status)
	var missions []plMission
	s.call("GET", pl+"/missions", a.Token, nil, &missions)
	require.Equal(t, "to_launch", missions[0].Status, "a rejected action does nothing")

	// A decision proposed through the page.
	choose(t, ctx, `#propose-type`, "create_decision")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#propose-title`)))
	accessible(t, ctx, "pilotage action, proposing")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#propose-title`), "Move support to Lyon"),
		chromedp.SendKeys(chromedp.CSS(`#propose-explanation`), "The office opens in May."))
	clickText(t, ctx, "Propose")
	waitFor(t, ctx, "the new action", `document.querySelectorAll(".pl-action").length === 3`)
	var actions []plAction
	s.call("GET", pl+"/actions?status=suggested", a.Token, nil, &actions)
	require.Len(t, actions, 1)
	require.Equal(t, "create_decision", actions[0].ActionType)

	// The applied action on its own page (the history's link), its result kept; the to-do it created.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/pilotage/actions?action="+todo.ID))
	waitFor(t, ctx, "the action alone",
		`document.querySelector("#one-h ~ ul .result")?.textContent.includes("was created")`)
	cockpitClick(t, ctx, `#one-h ~ ul .result a`)
	waitFor(t, ctx, "the to-do", `location.pathname.endsWith("/pilotage/todos") &&
		document.querySelector(".pl-record h3")?.textContent === "Call the supplier"`)
}

// TestBrowserCockpitViewer: a member whose pilotage role is viewer reads every record of the cockpit and
// sees no control to create, edit, delete, review, apply or propose.
func TestBrowserCockpitViewer(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	owner := s.register("olga@example.com")
	s.call("POST", "/orgs/"+owner.Org+"/workspaces", owner.Token, map[string]string{"name": "Studio", "slug": "studio"},
		nil)
	studio := "/orgs/" + owner.Org + "/workspaces/studio"
	var inv struct{ Token string }
	s.call("POST", studio+"/members/invite", owner.Token, map[string]string{"email": "ivan@example.com"}, &inv)
	viewer := s.register("ivan@example.com")
	s.call("POST", "/invitations/"+inv.Token+"/accept", viewer.Token, nil, nil)
	var ws struct{ MyPilotageRole string }
	s.call("GET", studio, viewer.Token, nil, &ws)
	require.Equal(t, "viewer", ws.MyPilotageRole)

	pl := studio + "/pilotage"
	var m plMission
	s.call("POST", pl+"/missions", owner.Token, map[string]string{"objective": "Open the Lyon office"}, &m)
	s.call("POST", pl+"/priorities", owner.Token, map[string]string{"label": "Reliability"}, nil)
	s.call("POST", pl+"/todos", owner.Token, map[string]string{"label": "Sign the lease", "missionId": m.ID}, nil)
	s.call("POST", pl+"/decisions", owner.Token, map[string]string{"title": "Ship every week"}, nil)
	s.call("POST", pl+"/docs", owner.Token, map[string]string{"title": "Architecture notes"}, nil)
	var suggested, approved plAction
	s.call("POST", pl+"/actions/propose", owner.Token, map[string]any{"actionType": "create_decision",
		"explanation": "Agreed.", "payload": map[string]any{"title": "Hire in Lyon"}}, &suggested)
	s.call("POST", pl+"/actions/propose", owner.Token, map[string]any{"actionType": "create_todo",
		"explanation": "Needed.", "payload": map[string]any{"label": "Buy desks"}}, &approved)
	s.call("POST", pl+"/actions/"+approved.ID+"/review", owner.Token, map[string]any{"approved": true}, nil)

	ctx := page(t)
	base := "/w/" + owner.Org + "/studio/pilotage"
	signInTo(t, ctx, s, viewer, base)
	waitFor(t, ctx, "the dashboard",
		`document.body.textContent.includes("Cycle") && !!document.querySelector(".pl-action")`)
	require.Contains(t, text(t, ctx, `.role-note`), "viewer")
	accessible(t, ctx, "pilotage dashboard, viewer")
	// Controls: none, but the actions' filter (reading). The cockpit's own tabs are links.
	controls := `[...document.querySelectorAll("main button, main input, main textarea, main form, main select")]
		.filter(e => e.id !== "action-status").map(e => e.outerHTML.slice(0, 80))`
	require.Empty(t, eval[[]string](t, ctx, controls), "dashboard")
	for _, tab := range []struct{ section, title, item string }{
		{"missions", "Missions", "Open the Lyon office"}, {"priorities", "Priorities", "Reliability"},
		{"todos", "To-dos", "Sign the lease"}, {"decisions", "Decisions", "Ship every week"},
		{"docs", "Active documents", "Architecture notes"},
	} {
		cockpitTab(t, ctx, tab.section, tab.title)
		waitFor(t, ctx, tab.item, `document.querySelector(".pl-record h3")?.textContent === `+jsString(tab.item))
		require.Empty(t, eval[[]string](t, ctx, controls), tab.section)
	}
	cockpitTab(t, ctx, "actions", "Proposed actions")
	waitFor(t, ctx, "the actions", `document.querySelectorAll(".pl-action").length === 2`)
	require.Empty(t, eval[[]string](t, ctx, controls), "actions")
	require.Contains(t, text(t, ctx, "#action-"+approved.ID), "a pilotage owner applies it")
	accessible(t, ctx, "pilotage actions, viewer")
}

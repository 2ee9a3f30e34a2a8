package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/tenancy"
)

// clickIn clicks the first element matching sel whose text is label.
func clickIn(t *testing.T, ctx context.Context, sel, label string) {
	t.Helper()
	waitFor(t, ctx, "a "+sel+" saying "+label, `[...document.querySelectorAll(`+jsString(sel)+`)]
		.some(e => e.textContent.trim() === `+jsString(label)+`)`)
	eval[bool](t, ctx, `[...document.querySelectorAll(`+jsString(sel)+`)]
		.find(e => e.textContent.trim() === `+jsString(label)+`).click() === undefined`)
}

// TestBrowserAgents: an agent created in the app (approval mode, one tool left out), edited; a mission
// started from its page on a card, watched to awaiting approval, its proposals approved, completed; the
// missions list filtered by status, agent and card (in the address); a second mission cancelled from the
// list; another agent deleted; a member reads the agents without the admin's controls.
func TestBrowserAgents(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("alma@example.com")
	_, card := s.projectWithCard(a, "Site", map[string]any{"title": "Plan the launch",
		"description": "- Decide the date\n- Write the checklist"})
	base := s.url + "/w/" + a.Org + "/" + a.WS

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(base+"/agents"))
	waitFor(t, ctx, "the empty list", `document.querySelector("main")?.textContent.includes("no agent yet")`)
	accessible(t, ctx, "agents, empty")

	// Create: the short name follows the name, approval is the mode offered first, one tool left out.
	clickIn(t, ctx, "main button", "New agent")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#agent-new-name`)))
	waitFor(t, ctx, "the tool catalog", `document.querySelectorAll("input[name=tool]").length === 7`)
	shot(t, ctx, "agent-new", 1440, 1400)
	accessible(t, ctx, "new agent")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#agent-new-name`), "Launch Planner"),
		chromedp.SendKeys(chromedp.CSS(`#agent-new-description`), "Plans launches"),
		chromedp.Click(chromedp.CSS(`input[name=tool][value=propose_pilotage_action]`)))
	require.Equal(t, "launch-planner", eval[string](t, ctx, `document.querySelector("#agent-new-slug").value`))
	require.True(t, eval[bool](t, ctx, `document.querySelector("input[name=autonomyMode][value=approval]").checked`))
	clickIn(t, ctx, "button", "Create the agent")
	waitFor(t, ctx, "the agent's page", `location.pathname.includes("/agents/") &&
		document.querySelector("h1")?.textContent === "Launch Planner"`)
	var agents []struct {
		ID, Slug, AutonomyMode, Description string
		Tools                               []string
	}
	s.call("GET", a.ws()+"/agents", a.Token, nil, &agents)
	require.Len(t, agents, 1)
	agent := agents[0]
	require.Equal(t, "launch-planner", agent.Slug)
	require.Equal(t, "approval", agent.AutonomyMode)
	require.Equal(t, []string{"update_card", "add_checklist_items", "add_comment", "move_card", "create_card",
		"ask_user"}, agent.Tools)
	require.Contains(t, text(t, ctx, `.agent-facts`), "Asks first")
	shot(t, ctx, "agent", 1440, 900)
	accessible(t, ctx, "agent")

	// Edit.
	clickIn(t, ctx, "main button", "Edit")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#agent-edit-description`)))
	accessible(t, ctx, "edit agent")
	eval[bool](t, ctx, `(document.querySelector("#agent-edit-description").value = "") === ""`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#agent-edit-description`), "Plans every launch"))
	clickIn(t, ctx, "button", "Save the agent")
	waitFor(t, ctx, "the saved agent",
		`document.querySelector(".agent-facts")?.textContent.includes("Plans every launch")`)
	s.call("GET", a.ws()+"/agents/"+agent.ID, a.Token, nil, &agent)
	require.Equal(t, "Plans every launch", agent.Description)

	// A mission started from the agent's page on the card, followed to awaiting approval, approved.
	waitFor(t, ctx, "the card to choose", `document.querySelector("#start-card")?.value === `+jsString(card))
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#start-prompt`), "Plan this card"))
	clickIn(t, ctx, "button", "Start the mission")
	waitFor(t, ctx, "the mission page", `location.pathname.includes("/missions/")`)
	first := eval[string](t, ctx, `location.pathname.split("/").pop()`)
	waitFor(t, ctx, "the mission to wait for approval",
		`document.querySelector("[data-status]")?.dataset.status === "awaiting_approval" &&
		document.querySelectorAll(".proposal .actions button").length > 0`)
	// Approve each pending proposal as the page lists it (the last may arrive after the status).
	for i := 0; i < 10; i++ {
		waitFor(t, ctx, "a pending proposal or the mission completed", `document.querySelector("[data-status]")?.dataset
			.status === "completed" || !!document.querySelector(".proposal:has(.actions)")`)
		id := eval[string](t, ctx, `document.querySelector("[data-status]")?.dataset.status === "completed" ? "" :
			document.querySelector(".proposal:has(.actions)")?.dataset.proposalId || ""`)
		if id == "" {
			break
		}
		sel := `.proposal[data-proposal-id="` + id + `"]`
		do(t, ctx, chromedp.Click(chromedp.CSS(sel+` .actions button:first-child`)))
		waitFor(t, ctx, "the proposal approved", `!document.querySelector(`+jsString(sel+` .actions`)+`)`)
	}
	waitFor(t, ctx, "the mission completed", `document.querySelector("[data-status]")?.dataset.status === "completed"`)

	// A second mission, started through the API, still unfinished.
	var second struct{ ID, Status string }
	s.call("POST", a.ws()+"/agents/"+agent.ID+"/missions", a.Token, map[string]string{"cardId": card,
		"prompt": "Plan it again"}, &second)

	// The list filtered by status (from the address): the completed one only.
	do(t, ctx, chromedp.Navigate(base+"/missions?status=completed"))
	waitFor(t, ctx, "the completed mission", `document.querySelectorAll("tr[data-mission-id]").length === 1 &&
		!!document.querySelector(`+jsString(`tr[data-mission-id="`+first+`"]`)+`)`)
	require.Equal(t, "completed", eval[string](t, ctx, `document.querySelector("#filter-status").value`))
	require.Contains(t, text(t, ctx, `tr[data-mission-id]`), "Completed")
	waitFor(t, ctx, "the card's title in the row",
		`document.querySelector("tr[data-mission-id]")?.textContent.includes("Plan the launch")`)
	accessible(t, ctx, "missions, by status")
	// Any status: both; by the agent (chosen in the filter, kept in the address): both; by the card.
	choose(t, ctx, "#filter-status", "")
	waitFor(t, ctx, "both missions", `document.querySelectorAll("tr[data-mission-id]").length === 2 &&
		!location.search.includes("status")`)
	choose(t, ctx, "#filter-agent", agent.ID)
	waitFor(t, ctx, "the agent in the address", `location.search.includes("agent=`+agent.ID+`") &&
		document.querySelectorAll("tr[data-mission-id]").length === 2`)
	clickIn(t, ctx, "tr[data-mission-id] button.link", "Only this card")
	waitFor(t, ctx, "the card in the address", `location.search.includes("card=`+card+`") &&
		document.querySelectorAll("tr[data-mission-id]").length === 2`)

	// Stop the second from the list, confirmed in a dialog.
	row := `tr[data-mission-id=` + jsString(second.ID) + `]`
	waitFor(t, ctx, "its stop button", `!!document.querySelector(`+jsString(row+` button.secondary`)+`)`)
	do(t, ctx, chromedp.Click(chromedp.CSS(row+` button.secondary`)), chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
	accessible(t, ctx, "stop a mission")
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "the mission stopped", `document.querySelector(`+jsString(row)+`)?.dataset.status === "stopped" &&
		!document.querySelector("dialog[open]")`)
	var got struct {
		Status      string
		CancelledAt *string
	}
	s.call("GET", a.ws()+"/missions/"+second.ID, a.Token, nil, &got)
	require.Equal(t, "stopped", got.Status)
	require.NotNil(t, got.CancelledAt)
	choose(t, ctx, "#filter-status", "stopped")
	waitFor(t, ctx, "the stopped one only", `document.querySelectorAll("tr[data-mission-id]").length === 1 &&
		!!document.querySelector(`+jsString(row)+`) && location.search.includes("status=stopped")`)
	shot(t, ctx, "missions", 1440, 900)

	// Delete another agent, confirmed by typing its short name.
	var spare struct{ ID string }
	s.call("POST", a.ws()+"/agents", a.Token, map[string]any{"name": "Spare", "slug": "spare"}, &spare)
	do(t, ctx, chromedp.Navigate(base+"/agents/"+spare.ID))
	clickIn(t, ctx, "main button", "Delete the agent")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`dialog[open] input`)))
	accessible(t, ctx, "delete an agent")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`dialog[open] input`), "spare"),
		chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "the agents again", `location.pathname.endsWith("/agents") &&
		document.querySelectorAll(".agent-item").length === 1`)
	s.call("GET", a.ws()+"/agents", a.Token, nil, &agents)
	require.Len(t, agents, 1)

	// A member reads the agents, without the controls that need the admin role.
	m := s.register("milo@example.com")
	s.call("POST", a.ws()+"/members/invite", a.Token, map[string]string{"email": m.Email}, nil)
	s.call("POST", s.mailed(tenancy.EmailTopicInvitation, m.Email), m.Token, nil, nil)
	mctx := page(t)
	signIn(t, mctx, s, m)
	do(t, mctx, chromedp.Navigate(base+"/agents"))
	waitFor(t, mctx, "the agent listed", `document.querySelectorAll(".agent-item").length === 1`)
	require.False(t, eval[bool](t, mctx,
		`[...document.querySelectorAll("main button")].some(b => b.textContent === "New agent")`))
	accessible(t, mctx, "agents, member")
	do(t, mctx, chromedp.Navigate(base+"/agents/"+agent.ID))
	waitFor(t, mctx, "the agent's page", `document.querySelector("h1")?.textContent === "Launch Planner" &&
		document.querySelectorAll("tr[data-mission-id]").length === 2`)
	require.False(t, eval[bool](t, mctx, `[...document.querySelectorAll("main button")].some(b =>
		["Edit", "Delete the agent"].includes(b.textContent))`))
	require.True(t, eval[bool](t, mctx, `!!document.querySelector("#start-prompt")`), "a member may start missions")
}

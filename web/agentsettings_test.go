package web_test

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/tenancy"
)

// agentJSON is what the agent tests read of an agent.
type agentJSON struct {
	ID, Name, Model string
	Enabled         bool
}

// TestBrowserAgentOnOffAndModel: on an agent's page an admin names its model (the form says that no
// OpenAI-compatible server is configured, as the test server has none), turns it off (the list shows it
// off, the mission form is replaced by the reason, the API refuses its missions), and on again.
func TestBrowserAgentOnOffAndModel(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("omar@example.com")
	_, card := s.projectWithCard(a, "Site", map[string]any{"title": "Plan the launch"})
	var ag agentJSON
	s.call("POST", a.ws()+"/agents", a.Token, map[string]any{"name": "Planner", "slug": "planner"}, &ag)
	require.True(t, ag.Enabled)
	base := s.url + "/w/" + a.Org + "/" + a.WS

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(base+"/agents/"+ag.ID))
	waitFor(t, ctx, "the agent's page", `document.querySelector("h1")?.textContent === "Planner" &&
		!!document.querySelector("[role=switch]") && !!document.querySelector("#start-prompt")`)
	waitFor(t, ctx, "the model in words",
		`document.querySelector("[data-model]")?.textContent.includes("offline planner")`)
	require.Equal(t, "true", eval[string](t, ctx, `document.querySelector("[role=switch]").getAttribute("aria-checked")`))
	accessible(t, ctx, "agent, on")

	// The model: the form says no server is configured, and the name is saved.
	clickIn(t, ctx, "main button", "Edit")
	waitFor(t, ctx, "the model field and its hint", `document.querySelector("[data-llm]")?.dataset.llm === "offline"`)
	require.Contains(t, text(t, ctx, `#agent-edit-model-hint`), "No OpenAI-compatible server is configured")
	accessible(t, ctx, "edit agent, model")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#agent-edit-model`), "llama3.1:8b"))
	clickIn(t, ctx, "button", "Save the agent")
	waitFor(t, ctx, "the saved model", `document.querySelector("[data-model]")?.textContent.includes("llama3.1:8b")`)
	s.call("GET", a.ws()+"/agents/"+ag.ID, a.Token, nil, &ag)
	require.Equal(t, "llama3.1:8b", ag.Model)

	// Off.
	do(t, ctx, chromedp.Click(chromedp.CSS(`[role=switch]`)))
	waitFor(t, ctx, "the agent off", `document.querySelector("[role=switch]")?.getAttribute("aria-checked") === "false" &&
		!!document.querySelector("[data-empty=agent-off]") && !document.querySelector("#start-prompt")`)
	s.call("GET", a.ws()+"/agents/"+ag.ID, a.Token, nil, &ag)
	require.False(t, ag.Enabled)
	require.Equal(t, http.StatusConflict, s.status("POST", a.ws()+"/agents/"+ag.ID+"/missions", a.Token,
		`{"cardId":"`+card+`","prompt":"Plan"}`))
	accessible(t, ctx, "agent, off")
	do(t, ctx, chromedp.Navigate(base+"/agents"))
	waitFor(t, ctx, "the list showing it off", `document.querySelector(".agent-item .agent-off")?.textContent === "Off"`)

	// On again.
	do(t, ctx, chromedp.Navigate(base+"/agents/"+ag.ID))
	waitFor(t, ctx, "the switch", `document.querySelector("[role=switch]")?.textContent === "Turn on"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[role=switch]`)))
	waitFor(t, ctx, "the mission form back", `!!document.querySelector("#start-prompt")`)
	s.call("GET", a.ws()+"/agents/"+ag.ID, a.Token, nil, &ag)
	require.True(t, ag.Enabled)
}

// TestBrowserAgentSkills: on an agent's page an admin creates a skill (given to the agent at once), gives it
// another of the workspace's, takes one away; a member sees the skills without the controls.
func TestBrowserAgentSkills(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("sana@example.com")
	var ag agentJSON
	s.call("POST", a.ws()+"/agents", a.Token, map[string]any{"name": "Planner", "slug": "planner"}, &ag)
	var other struct{ ID string }
	s.call("POST", a.ws()+"/skills", a.Token, map[string]any{"name": "Estimate", "instructions": "Size each card"},
		&other)
	skills := func() []string {
		var out []struct{ Name string }
		s.call("GET", a.ws()+"/agents/"+ag.ID+"/skills", a.Token, nil, &out)
		names := []string{}
		for _, x := range out {
			names = append(names, x.Name)
		}
		return names
	}
	base := s.url + "/w/" + a.Org + "/" + a.WS

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(base+"/agents/"+ag.ID))
	waitFor(t, ctx, "no skill yet", `!!document.querySelector("[data-empty=agent-skills]") &&
		!!document.querySelector(".agent-skills select[name=skill]")`)
	accessible(t, ctx, "agent skills, empty")

	clickIn(t, ctx, ".agent-skills button", "New skill")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#skill-new-name`)))
	accessible(t, ctx, "new skill")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#skill-new-name`), "Triage"),
		chromedp.SendKeys(chromedp.CSS(`#skill-new-instructions`), "Sort the cards by urgency"))
	clickIn(t, ctx, "button", "Create and give it")
	waitFor(t, ctx, "the new skill given", `[...document.querySelectorAll(".agent-skills li")].some(l =>
		l.textContent.includes("Triage"))`)
	require.Equal(t, []string{"Triage"}, skills())

	// Give it the workspace's other skill.
	do(t, ctx, chromedp.SetValue(chromedp.CSS(`.agent-skills select[name=skill]`), other.ID))
	clickIn(t, ctx, ".agent-skills button", "Give it")
	waitFor(t, ctx, "two skills", `document.querySelectorAll(".agent-skills li").length === 2`)
	require.Equal(t, []string{"Estimate", "Triage"}, skills())
	accessible(t, ctx, "agent skills")

	// Take one away.
	do(t, ctx, chromedp.Click(chromedp.CSS(`.agent-skills li[data-skill-id="`+other.ID+`"] button`)))
	waitFor(t, ctx, "one skill", `document.querySelectorAll(".agent-skills li").length === 1`)
	require.Equal(t, []string{"Triage"}, skills())

	// A member reads them without the controls.
	m := s.register("mo@example.com")
	s.call("POST", a.ws()+"/members/invite", a.Token, map[string]string{"email": m.Email}, nil)
	s.call("POST", s.mailed(tenancy.EmailTopicInvitation, m.Email), m.Token, nil, nil)
	mctx := page(t)
	signIn(t, mctx, s, m)
	do(t, mctx, chromedp.Navigate(base+"/agents/"+ag.ID))
	waitFor(t, mctx, "the member's view", `document.querySelectorAll(".agent-skills li").length === 1`)
	require.False(t, eval[bool](t, mctx, `!!document.querySelector(".agent-skills button, .agent-skills select")`))
}

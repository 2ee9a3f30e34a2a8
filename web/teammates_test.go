package web_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserAgentActsForAPerson: what an agent did is shown as "Planner (agent) for mia" in the card's
// history, its comments and the inbox; the mission page says what it cost, the agents page sums it.
func TestBrowserAgentActsForAPerson(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("mia@example.com")
	prj, card := s.projectWithCard(a, "Site", map[string]any{"title": "Fix the outage",
		"description": "- Find the failing node\n- Restart the service"})
	var agent struct{ ID string }
	s.call("POST", a.ws()+"/agents", a.Token, map[string]any{"name": "Planner", "slug": "planner",
		"autonomyMode": "autonomous"}, &agent)
	var m struct{ ID, Status string }
	s.call("POST", a.ws()+"/agents/"+agent.ID+"/missions", a.Token, map[string]any{"cardId": card,
		"prompt": "Plan this card"}, &m)
	require.Eventually(t, func() bool {
		s.call("GET", a.ws()+"/missions/"+m.ID, a.Token, nil, &m)
		return m.Status == "completed"
	}, 30*time.Second, 100*time.Millisecond, "the mission completed")

	const label = "Planner (agent) for mia"
	ctx := page(t)
	roughSignIn(t, ctx, s, a)
	base := s.url + "/w/" + a.Org + "/" + a.WS
	do(t, ctx, chromedp.Navigate(base+"/p/"+prj+"?card="+card))
	waitFor(t, ctx, "the agent's comment", `document.querySelector(".comments li[data-author-type=agent]")?.
		textContent.includes("`+label+`")`)
	waitFor(t, ctx, "the agent in the history", `[...document.querySelectorAll(".history .actor")].some((e) =>
		e.dataset.actorType === "agent" && e.textContent === "`+label+`")`)
	require.Contains(t, text(t, ctx, `.history`), "mia created the card", "a person's change names the person")
	accessible(t, ctx, "card, an agent's changes")

	do(t, ctx, chromedp.Navigate(base+"/inbox"))
	waitFor(t, ctx, "the agent in the inbox", `[...document.querySelectorAll(".notifications .actor")].some((e) =>
		e.dataset.actorType === "agent" && e.textContent === "`+label+`")`)
	accessible(t, ctx, "notifications, an agent's changes")

	do(t, ctx, chromedp.Navigate(base+"/missions/"+m.ID))
	waitFor(t, ctx, "the mission's cost",
		`document.querySelector(".mission-usage")?.textContent.includes("2 model turns")`)
	require.Positive(t, eval[int](t, ctx, `Number(document.querySelector(".mission-usage").dataset.totalTokens)`))

	do(t, ctx, chromedp.Navigate(base+"/agents"))
	waitFor(t, ctx, "the usage of the agents", `document.querySelector('.usage-table tr[data-agent-id="`+agent.ID+
		`"]')?.textContent.includes("Planner")`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`.budget-form input[name=budget]`), "5"),
		chromedp.Click(chromedp.CSS(`.budget-form button`)))
	waitFor(t, ctx, "the budget saved", `document.querySelector(".agent-usage")?.textContent.includes("of the 5 a day")`)
	accessible(t, ctx, "agents, usage and budget")
}

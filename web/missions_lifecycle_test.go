package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserMissionAskReplyStop: a mission on an unclear card (the offline planner asks when a card's
// title has a question mark) shows the agent's question with its options as buttons; choosing one
// resumes the mission, which completes with the answer in its plan. A second mission waiting for an
// answer is stopped from its page (confirmed): it reads stopped, by a person.
func TestBrowserMissionAskReplyStop(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("asa@example.com")
	prj, card := s.projectWithCard(a, "Data", map[string]any{"title": "Pick a database?",
		"description": "- Compare options\n- Benchmark"})
	_, other := s.projectWithCard(a, "Docs", map[string]any{"title": "Unclear scope"})
	var agent struct{ ID string }
	s.call("POST", a.ws()+"/agents", a.Token, map[string]any{"name": "Asker", "slug": "asker",
		"autonomyMode": "autonomous"}, &agent)
	var m struct{ ID string }
	s.call("POST", a.ws()+"/agents/"+agent.ID+"/missions", a.Token, map[string]string{"cardId": card,
		"prompt": "Plan this card"}, &m)
	base := s.url + "/w/" + a.Org + "/" + a.WS

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(base+"/missions/"+m.ID))
	waitFor(t, ctx, "the question", `document.querySelector("[data-status]")?.dataset.status === "awaiting_input" &&
		document.querySelectorAll(".question-options button").length === 2`)
	require.Equal(t, "Awaiting input", eval[string](t, ctx, `document.querySelector("[data-status]").textContent`))
	require.Contains(t, text(t, ctx, ".mission-question"), `What should I focus on first for "Pick a database?"?`)
	accessible(t, ctx, "mission, a question")
	shot(t, ctx, "mission-question", 1440, 900)
	clickIn(t, ctx, ".question-options button", "Benchmark")
	waitFor(t, ctx, "the mission completed", `document.querySelector("[data-status]")?.dataset.status === "completed" &&
		!document.querySelector(".mission-question")`)
	var got struct {
		Status   string
		Question any
	}
	s.call("GET", a.ws()+"/missions/"+m.ID, a.Token, nil, &got)
	require.Equal(t, "completed", got.Status)
	var comments []struct{ Content string }
	s.call("GET", a.ws()+"/projects/"+prj+"/cards/"+card+"/comments", a.Token, nil, &comments)
	require.Len(t, comments, 1)
	require.Contains(t, comments[0].Content, `You answered "Benchmark".`)

	// Another mission asks; it is stopped from its page instead.
	var m2 struct{ ID string }
	s.call("POST", a.ws()+"/agents/"+agent.ID+"/missions", a.Token, map[string]string{"cardId": other,
		"prompt": "Plan this card"}, &m2)
	do(t, ctx, chromedp.Navigate(base+"/missions/"+m2.ID))
	waitFor(t, ctx, "the second question", `document.querySelector("[data-status]")?.dataset.status === "awaiting_input"`)
	clickIn(t, ctx, ".mission-stop button", "Stop the mission")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
	accessible(t, ctx, "stop a mission")
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "the mission stopped", `document.querySelector("[data-status]")?.dataset.status === "stopped" &&
		!document.querySelector(".mission-stop button") && !document.querySelector(".mission-question")`)
	waitFor(t, ctx, "why it stopped", `document.querySelector(".status-line")?.textContent.includes("by a person")`)
	var stopped struct {
		Status     string
		StopReason string
	}
	s.call("GET", a.ws()+"/missions/"+m2.ID, a.Token, nil, &stopped)
	require.Equal(t, "stopped", stopped.Status)
	require.Equal(t, "person", stopped.StopReason)
}

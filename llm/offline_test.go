package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/agenttool"
)

// offlineRun is what one offline turn produced.
type offlineRun struct {
	resp   Response
	tokens []string
}

func runOffline(t *testing.T, req Request) offlineRun {
	t.Helper()
	var run offlineRun
	req.OnToken = func(tok string) { run.tokens = append(run.tokens, tok) }
	resp, err := NewOffline().Chat(context.Background(), req)
	require.NoError(t, err)
	run.resp = resp
	return run
}

func missionRequest(card *CardContext, tools []Tool) Request {
	return Request{
		Messages: []Message{{Role: RoleSystem, Content: "You are Pilot's agent."}, {Role: RoleUser,
			Content: "Plan this card."}}, Tools: tools,
		Mission: &MissionContext{Objective: "Plan this card", Card: card},
	}
}

// callArgs returns the decoded arguments of the call to name, failing when there is none.
func callArgs[T any](t *testing.T, resp Response, name string) T {
	t.Helper()
	for _, tc := range resp.ToolCalls {
		if tc.Name == name {
			var v T
			require.NoError(t, json.Unmarshal(tc.Arguments, &v))
			return v
		}
	}
	require.Failf(t, "no tool call", "no call to %s in %+v", name, resp.ToolCalls)
	var zero T
	return zero
}

func callNames(resp Response) []string {
	var names []string
	for _, tc := range resp.ToolCalls {
		names = append(names, tc.Name)
	}
	return names
}

type itemsArgs struct {
	Items []string `json:"items"`
}

type commentArgs struct {
	Content string `json:"content"`
}

func TestOfflineDeterministic(t *testing.T) {
	t.Parallel()

	due := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	card := &CardContext{
		ID:    "card-7",
		Title: "Fix checkout outage",
		Description: "Checkout fails for EU cards.\n\n1. Reproduce with a test card\n2) Roll back the payment SDK\n* Add " +
			"an alert on error rate",
		Priority:  "medium",
		Column:    "Doing",
		DueDate:   &due,
		Checklist: []ChecklistItem{{Title: "Open an incident", Done: true}},
		Comments:  []string{"Started looking", "  Support has   40 tickets  "},
		Labels:    []string{"payments"},
	}
	req := missionRequest(card, ToolCatalog())

	first := runOffline(t, req)
	second := runOffline(t, req)
	require.Equal(t, first, second)
	require.Equal(t, []string{agenttool.AddChecklistItems, agenttool.UpdateCard, agenttool.AddComment},
		callNames(first.resp))
	require.Equal(t, FinishToolCalls, first.resp.FinishReason)
	for _, tc := range first.resp.ToolCalls {
		require.NotEmpty(t, tc.ID)
		_, err := validateToolCall(req.Tools, tc.ID, tc.Name, string(tc.Arguments))
		require.NoError(t, err, "offline calls pass the same validation as remote ones")
	}

	comment := callArgs[commentArgs](t, first.resp, agenttool.AddComment).Content
	require.Equal(t,
		`Plan for "Fix checkout outage": 3 open checklist items (3 new). Next: "Reproduce with a test card". `+
			`Priority raised to high: the card mentions "outage". Due 2026-03-01. Latest comment: "Support has 40 tickets".`,
		comment)
}

func TestOfflineChecklistFromDescription(t *testing.T) {
	t.Parallel()

	t.Run("Bullets", func(t *testing.T) {
		t.Parallel()

		card := &CardContext{
			Title: "Billing page",
			Description: "We need a billing page.\n\n- Design the layout\n- [ ] Wire the checkout.\n- [x] write docs\n\nSee " +
				"the mockups.",
			Checklist: []ChecklistItem{{Title: "design the LAYOUT", Done: false}},
		}
		run := runOffline(t, missionRequest(card, ToolCatalog()))
		items := callArgs[itemsArgs](t, run.resp, agenttool.AddChecklistItems).Items
		require.Equal(t, []string{"Wire the checkout", "write docs"}, items, "prose is ignored when there are bullets; "+
			"existing items are skipped")
		require.NotContains(t, callNames(run.resp), agenttool.UpdateCard, "nothing urgent")
		comment := callArgs[commentArgs](t, run.resp, agenttool.AddComment).Content
		require.Contains(t, comment, `3 open checklist items (2 new). Next: "design the LAYOUT".`)
		require.Contains(t, comment, "No comments yet.")
	})

	t.Run("Sentences", func(t *testing.T) {
		t.Parallel()

		card := &CardContext{Title: "Onboarding email", Description: "Draft the welcome copy. Get legal approval! Schedule " +
			"the send?"}
		run := runOffline(t, missionRequest(card, ToolCatalog()))
		require.Equal(t, []string{"Draft the welcome copy", "Get legal approval", "Schedule the send?"},
			callArgs[itemsArgs](t, run.resp, agenttool.AddChecklistItems).Items)
	})

	t.Run("NothingToDerive", func(t *testing.T) {
		t.Parallel()

		card := &CardContext{Title: "Dark mode", Description: "  "}
		run := runOffline(t, missionRequest(card, ToolCatalog()))
		require.Equal(t, []string{"Clarify scope of Dark mode", "Implement Dark mode", "Review Dark mode"},
			callArgs[itemsArgs](t, run.resp, agenttool.AddChecklistItems).Items)
	})

	t.Run("AtMostEight", func(t *testing.T) {
		t.Parallel()

		var b strings.Builder
		for i := range 12 {
			b.WriteString("- Step number " + string(rune('A'+i)) + "\n")
		}
		run := runOffline(t, missionRequest(&CardContext{Title: "Big", Description: b.String()}, ToolCatalog()))
		items := callArgs[itemsArgs](t, run.resp, agenttool.AddChecklistItems).Items
		require.Len(t, items, 8)
		require.Equal(t, "Step number A", items[0])
		require.Equal(t, "Step number H", items[7])
	})

	t.Run("AllItemsExist", func(t *testing.T) {
		t.Parallel()

		card := &CardContext{
			Title:       "Release",
			Description: "- Tag the build\n- Publish notes",
			Checklist:   []ChecklistItem{{Title: "Tag the build", Done: true}, {Title: "Publish notes.", Done: true}},
		}
		run := runOffline(t, missionRequest(card, ToolCatalog()))
		require.Equal(t, []string{agenttool.AddComment}, callNames(run.resp))
		require.Contains(t, callArgs[commentArgs](t, run.resp, agenttool.AddComment).Content, "all 2 checklist items done.")
	})
}

func TestOfflineUrgentPriority(t *testing.T) {
	t.Parallel()

	for _, card := range []*CardContext{
		{Title: "URGENT: login broken", Priority: "low"},
		{Title: "Login", Description: "Please fix ASAP."},
		{Title: "Login", Comments: []string{"This is a blocker for the launch"}},
		{Title: "Login", Labels: []string{"critical"}},
	} {
		run := runOffline(t, missionRequest(card, ToolCatalog()))
		require.JSONEq(t, `{"priority":"high"}`, string(run.resp.ToolCalls[1].Arguments), card.Title)
		require.Equal(t, agenttool.UpdateCard, run.resp.ToolCalls[1].Name)
	}

	// Already high, or nothing urgent ("unblocked" is not "blocker"): no update_card.
	for _, card := range []*CardContext{
		{Title: "Outage follow-up", Priority: "high"},
		{Title: "Tidy the unblocked queue", Description: "Not critically important"},
	} {
		run := runOffline(t, missionRequest(card, ToolCatalog()))
		require.NotContains(t, callNames(run.resp), agenttool.UpdateCard, card.Title)
	}
}

func TestOfflineOnlyOfferedTools(t *testing.T) {
	t.Parallel()

	card := &CardContext{Title: "Outage in EU", Description: "- Fail over\n- Post-mortem"}

	run := runOffline(t, missionRequest(card, SelectTools([]string{agenttool.AddComment, agenttool.MoveCard})))
	require.Equal(t, []string{agenttool.AddComment}, callNames(run.resp))
	comment := callArgs[commentArgs](t, run.resp, agenttool.AddComment).Content
	require.Equal(t, `Plan for "Outage in EU": no open checklist items. Suggested steps: "Fail over", "Post-mortem". `+
		`Priority should be high: the card mentions "outage". No comments yet.`, comment,
		"what the missing tools would have done is suggested")

	run = runOffline(t, missionRequest(card, SelectTools([]string{agenttool.UpdateCard})))
	require.Equal(t, []string{agenttool.UpdateCard}, callNames(run.resp))
	require.Empty(t, run.tokens, "no comment, no text to stream")

	// No tools at all: the plan is the final answer, streamed.
	run = runOffline(t, missionRequest(card, nil))
	require.Empty(t, run.resp.ToolCalls)
	require.Equal(t, FinishStop, run.resp.FinishReason)
	require.True(t, strings.HasPrefix(run.resp.Content,
		`Plan for "Outage in EU": no open checklist items. Suggested steps: "Fail over"`), run.resp.Content)
	require.Equal(t, run.resp.Content, strings.Join(run.tokens, ""))
}

func TestOfflineStreamsCommentWords(t *testing.T) {
	t.Parallel()

	card := &CardContext{Title: "Write the changelog", Description: "- Collect merged PRs\n- Group by area",
		Comments: []string{"Use the new template"}}
	run := runOffline(t, missionRequest(card, ToolCatalog()))
	comment := callArgs[commentArgs](t, run.resp, agenttool.AddComment).Content
	require.Equal(t, comment, strings.Join(run.tokens, ""))
	require.Len(t, run.tokens, len(strings.Fields(comment)))
	require.Equal(t, "Plan ", run.tokens[0])
	require.Equal(t, "for ", run.tokens[1])
	require.Empty(t, run.resp.Content, "the comment is streamed, the turn's content stays empty")
}

func TestOfflineFinalSummary(t *testing.T) {
	t.Parallel()

	card := &CardContext{Title: "Fix checkout outage", Description: "- Roll back\n- Add an alert"}
	req := missionRequest(card, ToolCatalog())
	first := runOffline(t, req)
	require.Len(t, first.resp.ToolCalls, 3)

	req.Messages = append(req.Messages, Message{Role: RoleAssistant, ToolCalls: first.resp.ToolCalls})
	for _, tc := range first.resp.ToolCalls {
		result := "ok"
		if tc.Name == agenttool.UpdateCard {
			result = "error: priority is locked"
		}
		req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: tc.ID, Content: result})
	}

	final := runOffline(t, req)
	require.Empty(t, final.resp.ToolCalls)
	require.Equal(t, FinishStop, final.resp.FinishReason)
	require.Equal(t,
		`Mission on "Fix checkout outage" finished. Applied: added 2 checklist items ("Roll back", "Add an alert"); `+
			`posted a comment. Not applied: updated the card (priority high) (error: priority is locked).`,
		final.resp.Content)
	require.Equal(t, final.resp.Content, strings.Join(final.tokens, ""))
	require.Equal(t, final, runOffline(t, req), "deterministic")
}

// A call only proposed (the agent needs approval) is not said to be done: the summary says it waits for
// a person's approval, and the mission is not called finished.
func TestOfflineFinalSummaryOfProposals(t *testing.T) {
	t.Parallel()

	card := &CardContext{Title: "Fix checkout outage", Description: "- Roll back\n- Add an alert"}
	req := missionRequest(card, ToolCatalog())
	first := runOffline(t, req)
	req.Messages = append(req.Messages, Message{Role: RoleAssistant, ToolCalls: first.resp.ToolCalls})
	for _, tc := range first.resp.ToolCalls {
		result := "ok: comment posted"
		if tc.Name != agenttool.AddComment {
			result = "proposed for human approval (proposal p1); it applies once a person approves it"
		}
		req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: tc.ID, Content: result})
	}
	final := runOffline(t, req)
	require.Equal(t,
		`Mission on "Fix checkout outage": 2 actions wait for approval. Applied: posted a comment. Waiting for `+
			`approval: added 2 checklist items ("Roll back", "Add an alert"); updated the card (priority high).`,
		final.resp.Content)
	require.NotContains(t, final.resp.Content, "finished")
}

func TestOfflineWithoutCard(t *testing.T) {
	t.Parallel()

	run := runOffline(t, Request{Messages: []Message{
		{Role: RoleUser, Content: "Old message."},
		{Role: RoleAssistant, Content: "Old answer."},
		{Role: RoleUser, Content: "Set up CI. Then add linting and publish the docs!"},
	}})
	require.Equal(t, "Offline plan in 2 steps: 1. Set up CI. 2. Then add linting and publish the docs.", run.resp.Content)
	require.Equal(t, FinishStop, run.resp.FinishReason)
	require.Equal(t, run.resp.Content, strings.Join(run.tokens, ""))

	run = runOffline(t, Request{Mission: &MissionContext{Objective: "- Triage the inbox"}})
	require.Equal(t, "Offline plan in 1 step: 1. Triage the inbox.", run.resp.Content)

	run = runOffline(t, Request{})
	require.Equal(t, "Offline planner: there is no card and no message to plan from.", run.resp.Content)
}

func TestOfflineContextCancelled(t *testing.T) {
	t.Parallel()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewOffline().Chat(ctx, missionRequest(&CardContext{Title: "x"}, ToolCatalog()))
	require.ErrorIs(t, err, context.Canceled)
}

func TestOfflineRunnerLoop(t *testing.T) {
	t.Parallel()

	// Drive the offline planner the way the mission runner will: until no tool calls remain.
	card := &CardContext{Title: "Quarterly report", Description: "Gather the numbers. Write the summary."}
	var p Provider = NewOffline()
	req := missionRequest(card, SelectTools([]string{agenttool.AddChecklistItems, agenttool.AddComment}))
	var steps int
	for ; steps < 5; steps++ {
		resp, err := p.Chat(context.Background(), req)
		require.NoError(t, err)
		if len(resp.ToolCalls) == 0 {
			require.Contains(t, resp.Content, `added 2 checklist items ("Gather the numbers", "Write the summary")`)
			break
		}
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
		for _, tc := range resp.ToolCalls {
			req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: tc.ID, Content: "done"})
		}
	}
	require.Equal(t, 1, steps, "one tool turn, then the final answer")
}

func TestMissionRender(t *testing.T) {
	t.Parallel()

	due := time.Date(2026, 3, 1, 17, 30, 0, 0, time.UTC)
	comments := make([]string, 25)
	for i := range comments {
		comments[i] = "comment " + string(rune('a'+i))
	}
	text := (&MissionContext{Objective: "Plan", Card: &CardContext{
		ID: "c1", Title: "T", Priority: "low", Column: "Todo", DueDate: &due, Labels: []string{"x", "y"},
		Checklist: []ChecklistItem{{Title: "one"}, {Title: "two", Done: true}}, Comments: comments,
	}}).Render()
	for _, want := range []string{"Mission objective: Plan", `Card c1: "T"`, "Column: Todo", "Priority: low",
		"Due: 2026-03-01T17:30:00Z", "Labels: x, y", "Description: (none)", "Checklist (1 of 2 done):",
		"- [ ] one", "- [x] two", "(5 earlier comments omitted)", "- comment f", "- comment y"} {
		require.Contains(t, text, want)
	}
	require.NotContains(t, text, "- comment e")
	require.Empty(t, (*MissionContext)(nil).Render())
}

// An unclear request (a question mark in the objective or title, or the word "unclear") makes the
// offline planner ask first when ask_user is offered, the steps it would add as options; once answered,
// it plans with the answer; a clear one, or one without the tool, is planned at once.
func TestOfflineAsksWhenUnclear(t *testing.T) {
	t.Parallel()
	card := &CardContext{Title: "Pick a database?", Description: "- Compare options\n- Benchmark\n- Decide\n- Migrate"}
	run := runOffline(t, missionRequest(card, ToolCatalog()))
	require.Len(t, run.resp.ToolCalls, 1)
	ask := callArgs[struct {
		Question string   `json:"question"`
		Options  []string `json:"options"`
	}](t, run.resp, agenttool.AskUser)
	require.Equal(t, `What should I focus on first for "Pick a database?"?`, ask.Question)
	require.Equal(t, []string{"Compare options", "Benchmark", "Decide"}, ask.Options)
	_, err := agenttool.Decode(agenttool.AskUser, run.resp.ToolCalls[0].Arguments, agenttool.Limits{})
	require.NoError(t, err, "the question is a valid ask_user call")

	for _, c := range []struct {
		objective string
		card      CardContext
		ask       bool
	}{
		{"Plan this card", CardContext{Title: "Fix login", Description: "Scope is unclear."}, true},
		{"Is this worth doing?", CardContext{Title: "Fix login"}, true},
		{"Plan this card", CardContext{Title: "Fix login", Description: "Why? Because."}, false},
		{"Plan this card", CardContext{Title: "Nuclear plant"}, false},
	} {
		req := missionRequest(&c.card, ToolCatalog())
		req.Mission.Objective = c.objective
		resp := runOffline(t, req).resp
		require.Equal(t, c.ask, len(resp.ToolCalls) == 1 && resp.ToolCalls[0].Name == agenttool.AskUser, "%+v", c)
	}
	withoutAskTool := runOffline(t, missionRequest(card, SelectTools([]string{agenttool.AddComment}))).resp
	require.Equal(t, agenttool.AddComment, withoutAskTool.ToolCalls[0].Name, "no ask_user offered: plans at once")

	// Answered: the plan, its comment starting with the answer; then the summary leaves the question out.
	req := missionRequest(card, ToolCatalog())
	req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: run.resp.Content,
		ToolCalls: run.resp.ToolCalls}, Message{Role: RoleTool, ToolCallID: run.resp.ToolCalls[0].ID,
		Content: "The person answered: Benchmark"})
	planned := runOffline(t, req).resp
	names := []string{}
	for _, tc := range planned.ToolCalls {
		names = append(names, tc.Name)
	}
	require.Equal(t, []string{agenttool.AddChecklistItems, agenttool.AddComment}, names, "no second question")
	comment := callArgs[struct{ Content string }](t, planned, agenttool.AddComment)
	require.True(t, strings.HasPrefix(comment.Content, `You answered "Benchmark". Plan for`), comment.Content)
	req.Messages = append(req.Messages, Message{Role: RoleAssistant, ToolCalls: planned.ToolCalls})
	for _, tc := range planned.ToolCalls {
		req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: tc.ID, Content: "ok"})
	}
	final := runOffline(t, req).resp
	require.Empty(t, final.ToolCalls)
	require.NotContains(t, final.Content, "asked")
	require.Contains(t, final.Content, "finished")
}

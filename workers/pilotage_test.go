package workers

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/agenttool"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/llm"
)

// scriptedLLM answers the first turn with its tool calls and the next with a final answer; it records
// the tools each request offered.
type scriptedLLM struct {
	calls []llm.ToolCall
	mu    sync.Mutex
	turns int
	seen  [][]string
}

func (*scriptedLLM) Name() string { return "scripted" }

func (s *scriptedLLM) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var offered []string
	for _, t := range req.Tools {
		offered = append(offered, t.Name)
	}
	s.seen = append(s.seen, offered)
	s.turns++
	if s.turns == 1 {
		return llm.Response{Content: "The outage needs a follow-up", ToolCalls: s.calls, FinishReason: "tool_calls"}, nil
	}
	return llm.Response{Content: "Suggested a follow-up todo", FinishReason: "stop"}, nil
}

func proposeCall(t *testing.T, id string, args map[string]any) llm.ToolCall {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	return llm.ToolCall{ID: id, Name: agenttool.ProposePilotageAction, Arguments: raw}
}

// An agent's mission proposes a cockpit action: it is stored suggested, names the mission, is proposed
// by the agent's service user, and waits for a person, whatever the agent's autonomy (an approval
// agent does not turn the suggestion into a mission proposal of its own).
func TestMissionProposesPilotageAction(t *testing.T) {
	t.Parallel()
	for _, autonomy := range []string{mission.AutonomyApproval, mission.AutonomyAutonomous} {
		t.Run(autonomy, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			model := &scriptedLLM{calls: []llm.ToolCall{
				proposeCall(t, "c1", map[string]any{"actionType": "create_todo", "explanation": "Track the post-mortem",
					"payload": map[string]any{"label": "Write the post-mortem"}}),
				proposeCall(t, "c2", map[string]any{"actionType": "create_todo", "explanation": "Bad payload",
					"payload": map[string]any{"title": "wrong field"}}),
			}}
			b.deps.LLM = model
			tm := testfactory.NewTeam(t, b.Engines)
			agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("pilot"),
				Name: testfactory.Ptr("pilot"), AutonomyMode: testfactory.Ptr(autonomy)})
			m, _, job := b.mission(t, tm, agent)
			b.work(t, job)

			require.Contains(t, model.seen[0], agenttool.ProposePilotageAction, "an agent with every tool is offered it")
			got := b.getMission(t, tm, m.ID)
			require.EqualValues(t, db.MissionCompleted, got.Status,
				"a suggestion is no mission proposal: nothing awaits approval")
			page, err := b.Pilotage.Actions(context.Background(), tm.Owner.Workspace.ID, nil, db.Page{Limit: 100})
			require.NoError(t, err)
			acts := page.Items
			require.Len(t, acts, 1, "the call with a bad payload is refused")
			a := acts[0]
			require.EqualValues(t, "suggested", a.Status)
			require.Equal(t, "create_todo", a.ActionType)
			require.JSONEq(t, `{"label":"Write the post-mortem"}`, string(a.Payload))
			require.Equal(t, agent.UserID, a.ProposedBy)
			require.NotNil(t, a.AgentMissionID)
			require.Equal(t, m.ID, *a.AgentMissionID)
			require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1 AND outcome = 'applied'`,
				m.ID))
			require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1 AND outcome = 'refused'
				AND result->>'text' LIKE '%unknown field%'`, m.ID))
			require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM agent_proposals WHERE mission_id = $1`, m.ID))
			require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM pilotage_todos`), "nothing applies before a person does")
		})
	}
}

// An agent whose tools leave propose_pilotage_action out is not offered it, and a call to it anyway
// (a model that ignores its tool list) is refused.
func TestMissionWithoutPilotageToolCannotPropose(t *testing.T) {
	t.Parallel()
	b := setup(t)
	model := &scriptedLLM{calls: []llm.ToolCall{proposeCall(t, "c1", map[string]any{"actionType": "create_decision",
		"explanation": "Decide", "payload": map[string]any{"title": "Go"}})}}
	b.deps.LLM = model
	tm := testfactory.NewTeam(t, b.Engines)
	tools := slices.DeleteFunc(slices.Clone(agenttool.Names),
		func(n string) bool { return n == agenttool.ProposePilotageAction })
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Name: testfactory.Ptr("cards-only"),
		Slug: testfactory.Ptr("cards-only"), AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous), Tools: tools})
	m, _, job := b.mission(t, tm, agent)
	b.work(t, job)
	require.NotContains(t, model.seen[0], agenttool.ProposePilotageAction)
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM pilotage_actions`))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1 AND outcome = 'refused'
		AND result->>'text' LIKE '%may not use the tool%'`, m.ID))
}

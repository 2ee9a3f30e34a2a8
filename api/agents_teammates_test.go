package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/jobs"
)

// An agent's mission is answered with what it cost, its changes say the agent made them for the member
// who started it (card history, comments, notifications), the usage report sums it per agent and day,
// and the workspace's budget, once spent, refuses the next mission with 429.
func TestAgentAsTeammateAnswers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	ws := wsOf(owner)
	a := e.agent(owner, "planner", map[string]any{"name": "Planner", "autonomyMode": "autonomous"})
	card := e.missionCard(owner, prj, cols[0])
	m := e.startMission(owner, a.ID, card.ID)
	require.Equal(t, MissionUsageOut{}, m.Usage, "nothing spent yet")
	e.startWorker()
	done := e.waitMission(owner, m.ID, "completed")
	require.Equal(t, int32(2), done.Usage.ModelTurns)
	require.Positive(t, done.Usage.PromptTokens)
	require.Positive(t, done.Usage.CompletionTokens)
	require.Equal(t, done.Usage.PromptTokens+done.Usage.CompletionTokens, done.Usage.TotalTokens)
	require.Positive(t, done.Usage.WallSeconds)
	require.Zero(t, done.Usage.WaitingSeconds)
	e.waitJobsDone(jobs.NotifyActivityArgs{}.Kind())

	forOwner := &db.PersonRef{ID: owner.ID, Name: "owner"}
	planner := &db.AgentRef{ID: &a.ID, Name: "Planner"}
	r := e.do("GET", prj+"/cards/"+card.ID+"/comments", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	comments := decode[[]CommentOut](t, r)
	require.Len(t, comments, 1)
	require.Equal(t, db.ActorAgent, comments[0].AuthorType)
	require.Equal(t, forOwner, comments[0].OnBehalfOf)
	r = e.do("POST", prj+"/cards/"+card.ID+"/comments", member.Token, map[string]any{"content": "Thanks"})
	requireStatus(t, r, http.StatusCreated)
	mine := decode[CommentOut](t, r)
	require.Equal(t, db.ActorPerson, mine.AuthorType)
	require.Nil(t, mine.OnBehalfOf)

	r = e.do("GET", prj+"/cards/"+card.ID+"/activity", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	byType := map[db.ActorType]CardActivityOut{}
	for _, act := range decode[[]CardActivityOut](t, r) {
		byType[act.ActorType] = act
	}
	require.Equal(t, ActorFields{ActorType: db.ActorAgent, Agent: planner, OnBehalfOf: forOwner},
		byType[db.ActorAgent].ActorFields)
	require.Equal(t, ActorFields{ActorType: db.ActorPerson}, byType[db.ActorPerson].ActorFields)

	r = e.do("GET", "/notifications", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	var fromAgent int
	for _, n := range decode[[]NotificationOut](t, r) {
		if n.Activity.ActorID != nil && *n.Activity.ActorID == a.UserID {
			fromAgent++
			require.Equal(t, ActorFields{ActorType: db.ActorAgent, Agent: planner, OnBehalfOf: forOwner},
				n.Activity.ActorFields)
		} else {
			require.Equal(t, db.ActorPerson, n.Activity.ActorType)
		}
	}
	require.Positive(t, fromAgent, "the member hears of the agent's changes")

	// The usage report: today, this agent, what the mission spent.
	r = e.do("GET", ws+"/agent-usage", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	usage := decode[AgentUsageOut](t, r)
	today := time.Now().UTC().Format(time.DateOnly)
	require.Equal(t, today, usage.To)
	require.Equal(t, time.Now().UTC().AddDate(0, 0, -29).Format(time.DateOnly), usage.From)
	require.Len(t, usage.Days, 1)
	require.Equal(t, today, usage.Days[0].Day)
	require.Equal(t, "Planner", usage.Days[0].AgentName)
	require.Equal(t, done.Usage.TotalTokens, usage.Days[0].TotalTokens)
	require.Equal(t, int32(1), usage.Days[0].Missions)
	require.Len(t, usage.Agents, 1)
	require.Equal(t, usage.Days[0].TotalTokens, usage.Agents[0].TotalTokens)
	require.Empty(t, usage.Agents[0].Day)
	require.Nil(t, usage.MaxTokensPerDay)
	r = e.do("GET", ws+"/agent-usage?from=2020-01-01&to=2020-01-31", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[AgentUsageOut](t, r).Days)
	for _, q := range []string{"from=2024-02-02&to=2024-02-01", "from=2020-01-01&to=2024-01-01", "from=yesterday",
		"to=2024-13-01"} {
		requireStatus(t, e.do("GET", ws+"/agent-usage?"+q, member.Token, nil), http.StatusBadRequest)
	}
	outsider := e.register("outsider@example.com")
	requireStatus(t, e.do("GET", ws+"/agent-usage", outsider.Token, nil), http.StatusNotFound)

	// The budget: admins set it; once spent, the next mission is refused.
	r = e.do("GET", ws, member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, &AgentSettingsOut{}, decode[WorkspaceOut](t, r).AgentSettings, "no budget by default")
	spent := done.Usage.TotalTokens
	requireStatus(t, e.do("PATCH", ws, member.Token, map[string]any{"agentSettings": map[string]any{
		"maxTokensPerDay": spent}}), http.StatusForbidden)
	for _, bad := range []map[string]any{{}, {"maxTokensPerDay": 0}, {"maxTokensPerDay": -5},
		{"maxTokensPerDay": 1_000_000_000_001}} {
		requireStatus(t, e.do("PATCH", ws, owner.Token, map[string]any{"agentSettings": bad}), http.StatusBadRequest)
	}
	r = e.do("PATCH", ws, owner.Token, map[string]any{"agentSettings": map[string]any{"maxTokensPerDay": spent}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, &AgentSettingsOut{MaxTokensPerDay: &spent}, decode[WorkspaceOut](t, r).AgentSettings)
	r = e.do("POST", ws+"/agents/"+a.ID+"/missions", owner.Token, map[string]any{"cardId": card.ID, "prompt": "Again"})
	requireStatus(t, r, http.StatusTooManyRequests)
	require.Contains(t, decode[ErrorBody](t, r).Message, "token budget")
	r = e.do("PATCH", ws, owner.Token, map[string]any{"agentSettings": map[string]any{"maxTokensPerDay": nil}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, &AgentSettingsOut{}, decode[WorkspaceOut](t, r).AgentSettings)
	e.startMission(owner, a.ID, card.ID)
}

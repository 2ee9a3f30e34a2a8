package workers

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// A mission counts its model calls and the tokens the offline planner estimates, on itself and on its
// agent's day; once the workspace's budget is spent, a new mission is refused and a queued one fails at
// its first model call without calling the model.
func TestMissionWorkerAccountsAndKeepsTheBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	ws := tm.Owner.Workspace.ID
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("counted"),
		Name: testfactory.Ptr("Counted"), AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	m, _, job := b.mission(t, tm, agent)
	queued, _, queuedJob := b.mission(t, tm, agent)
	b.work(t, job)

	got := b.getMission(t, tm, m.ID)
	require.EqualValues(t, db.MissionCompleted, got.Status)
	require.Equal(t, int32(2), got.ModelTurns, "a tool turn, then the summary")
	require.Positive(t, got.PromptTokens)
	require.Positive(t, got.CompletionTokens)
	u := got.Usage(time.Now())
	require.Positive(t, u.WallSeconds)
	require.Zero(t, u.WaitingSeconds)

	today := time.Now().UTC()
	report, err := b.Missions.AgentUsage(ctx, ws, today, today)
	require.NoError(t, err)
	require.Len(t, report, 1)
	require.Equal(t, mission.AgentUsageDay{Day: today.Format(time.DateOnly), AgentID: agent.ID, AgentName: "Counted",
		Missions: 2, ModelTurns: 2, PromptTokens: got.PromptTokens, CompletionTokens: got.CompletionTokens,
		WallSeconds: report[0].WallSeconds}, report[0])

	spent := got.PromptTokens + got.CompletionTokens
	over, err := b.Missions.BudgetExceeded(ctx, ws)
	require.NoError(t, err)
	require.False(t, over, "no budget")
	_, err = b.Missions.SetWorkspaceAgentSettings(ctx, ws, mission.AgentSettings{MaxTokensPerDay: &spent})
	require.NoError(t, err)
	over, err = b.Missions.BudgetExceeded(ctx, ws)
	require.NoError(t, err)
	require.True(t, over)

	_, err = b.Missions.CreateMission(ctx, mission.NewMission{WorkspaceID: ws, AgentID: agent.ID,
		ActorID: tm.Owner.User.ID, ProjectID: &tm.Project.ID, Source: mission.MissionSourceAgent, Objective: "More"})
	require.ErrorIs(t, err, mission.ErrTooManyRequests)
	require.ErrorContains(t, err, "token budget")

	b.work(t, queuedJob)
	stopped := b.getMission(t, tm, queued.ID)
	require.EqualValues(t, db.MissionStopped, stopped.Status)
	require.Equal(t, testfactory.Ptr(string(db.StopBudget)), stopped.StopReason)
	require.Nil(t, stopped.Error)
	evs := b.EventsButTokens(t, queued.ID)
	require.Equal(t, "done:stopped", evs[len(evs)-1])
	require.Zero(t, stopped.ModelTurns, "the model was not called")

	more := spent + 1
	_, err = b.Missions.SetWorkspaceAgentSettings(ctx, ws, mission.AgentSettings{MaxTokensPerDay: &more})
	require.NoError(t, err)
	over, err = b.Missions.BudgetExceeded(ctx, ws)
	require.NoError(t, err)
	require.False(t, over, "a token is left")
}

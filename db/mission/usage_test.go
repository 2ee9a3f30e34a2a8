package mission_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// The time a mission waits for people is counted while it waits and kept once it moves on.
func TestMissionCountsItsWaitForPeople(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m, ids := approvalMission(t, e)
	// The mission has been waiting for a minute.
	_, err := e.Pool.Exec(ctx, `UPDATE agent_missions SET status_changed_at = now() - interval '60 seconds' WHERE id = $1`,
		m.ID)
	require.NoError(t, err)
	m, err = e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.InDelta(t, 60, m.Usage(time.Now()).WaitingSeconds, 5, "the wait in progress")
	require.Zero(t, m.WaitingMs)

	owner := mission.Decider{UserID: e.team.Owner.User.ID, Reviewer: true}
	for _, id := range ids {
		_, err := e.engine.DecideProposal(ctx, e.ws(), id, owner, false, "")
		require.NoError(t, err)
	}
	m, err = e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionCompleted, m.Status)
	require.InDelta(t, 60_000, m.WaitingMs, 5_000, "the wait is kept")
	later := m.Usage(time.Now().Add(time.Hour))
	require.InDelta(t, 60, later.WaitingSeconds, 5, "a finished mission waits no more")
	require.InDelta(t, m.FinishedAt.Sub(*m.StartedAt).Seconds(), later.WallSeconds, 0.001)
}

// Model calls add up per agent and day; the report refuses reversed or too long ranges; settings take a
// positive budget or none.
func TestAgentUsageReportAndSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{Name: testfactory.Ptr("Planner")})
	m := e.running(t, a)
	require.NoError(t, e.engine.RecordModelTurn(ctx, m.ID, mission.TurnUsage{PromptTokens: 100, CompletionTokens: 10}))
	require.NoError(t, e.engine.RecordModelTurn(ctx, m.ID, mission.TurnUsage{PromptTokens: 50, CompletionTokens: 5}))
	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.Equal(t, []any{int32(2), int64(150), int64(15)}, []any{got.ModelTurns, got.PromptTokens, got.CompletionTokens})

	now := time.Now().UTC()
	rows, err := e.engine.AgentUsage(ctx, e.ws(), now.AddDate(0, 0, -30), now)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.Equal(t, "Planner", rows[0].AgentName)
	require.Equal(t, int32(2), rows[0].ModelTurns)
	require.Equal(t, int64(150), rows[0].PromptTokens)
	require.Equal(t, int32(1), rows[0].Missions)
	rows, err = e.engine.AgentUsage(ctx, e.ws(), now.AddDate(0, 0, -3), now.AddDate(0, 0, -1))
	require.NoError(t, err)
	require.Empty(t, rows, "nothing before today")

	_, err = e.engine.AgentUsage(ctx, e.ws(), now, now.AddDate(0, 0, -1))
	require.ErrorIs(t, err, db.ErrInvalid)
	_, err = e.engine.AgentUsage(ctx, e.ws(), now.AddDate(-2, 0, 0), now)
	require.ErrorIs(t, err, db.ErrInvalid)

	s, err := e.engine.WorkspaceAgentSettings(ctx, e.ws())
	require.NoError(t, err)
	require.Nil(t, s.MaxTokensPerDay, "no budget by default")
	_, err = e.engine.SetWorkspaceAgentSettings(ctx, e.ws(),
		mission.AgentSettings{MaxTokensPerDay: testfactory.Ptr(int64(0))})
	require.ErrorIs(t, err, db.ErrInvalid)
	_, err = e.engine.SetWorkspaceAgentSettings(ctx, e.ws(),
		mission.AgentSettings{MaxTokensPerDay: testfactory.Ptr(int64(160))})
	require.NoError(t, err)
	over, err := e.engine.BudgetExceeded(ctx, e.ws())
	require.NoError(t, err)
	require.True(t, over, "165 tokens spent of 160")
	_, err = e.engine.SetWorkspaceAgentSettings(ctx, e.ws(), mission.AgentSettings{})
	require.NoError(t, err)
	s, err = e.engine.WorkspaceAgentSettings(ctx, e.ws())
	require.NoError(t, err)
	require.Nil(t, s.MaxTokensPerDay, "null: no budget again")
	over, err = e.engine.BudgetExceeded(ctx, e.ws())
	require.NoError(t, err)
	require.False(t, over)
}

package mission_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// mcpEnv is a team with an mcpOnly agent and one of its missions, queued for an MCP client.
func mcpEnv(t *testing.T, opts *testfactory.AgentOpts) (*env, db.Agent, db.AgentMission) {
	t.Helper()
	e := setup(t)
	if opts == nil {
		opts = &testfactory.AgentOpts{}
	}
	opts.Slug, opts.McpOnly = testfactory.Ptr("mcp"), testfactory.Ptr(true)
	a := e.agent(t, opts)
	return e, a, e.cardMission(t, a)
}

// The queue an MCP client sees holds only mcpOnly agents' queued missions, of its workspace.
func TestQueuedMcpMissions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, a, m := mcpEnv(t, nil)
	e.cardMission(t, e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("worker")}))
	second := e.cardMission(t, a)

	list, err := e.engine.QueuedMcpMissions(ctx, e.ws(), nil, 10)
	require.NoError(t, err)
	require.Equal(t, []string{m.ID, second.ID}, []string{list[0].ID, list[1].ID}, "oldest first, a worker's mission not "+
		"among them")
	require.Len(t, list, 2)
	other := db.NewID()
	list, err = e.engine.QueuedMcpMissions(ctx, e.ws(), &other, 10)
	require.NoError(t, err)
	require.Empty(t, list)
	list, err = e.engine.QueuedMcpMissions(ctx, e.team.Member.Workspace.ID, nil, 10)
	require.NoError(t, err)
	require.Empty(t, list)

	_, err = e.engine.ClaimMission(ctx, e.ws(), m.ID, mission.MissionClaim{UserID: e.team.Owner.User.ID, TTL: time.Minute})
	require.NoError(t, err)
	list, err = e.engine.QueuedMcpMissions(ctx, e.ws(), &a.ID, 10)
	require.NoError(t, err)
	require.Equal(t, []string{second.ID}, []string{list[0].ID}, "a claimed mission leaves the queue")
}

// A claim is the guarded queued -> running move with a status event and an expiry job at its
// deadline; a second claim conflicts, a worker's mission cannot be claimed, another workspace's is not
// found, and refused claims write nothing.
func TestClaimMission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, _, m := mcpEnv(t, nil)
	claim := mission.MissionClaim{UserID: e.team.Member.User.ID, TTL: time.Minute}

	_, err := e.engine.ClaimMission(ctx, e.team.Member.Workspace.ID, m.ID, claim)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.ClaimMission(ctx, e.ws(), db.NewID(), claim)
	require.ErrorIs(t, err, db.ErrNotFound)

	before := time.Now()
	c, err := e.engine.ClaimMission(ctx, e.ws(), m.ID, claim)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionRunning, c.Status)
	require.Equal(t, &claim.UserID, c.ClaimedBy)
	require.Equal(t, int32(1), c.ClaimSeq)
	require.NotNil(t, c.StartedAt)
	require.WithinRange(t, *c.ClaimExpiresAt, before.Add(time.Minute), time.Now().Add(time.Minute))
	js := e.Jobs(t, jobs.MissionClaimExpiryArgs{}.Kind())
	require.Len(t, js, 1)
	require.Equal(t, jobs.QueueDefault, js[0].Queue)
	require.Equal(t, "scheduled", js[0].State)
	require.Equal(t, map[string]any{"missionId": m.ID, "claimSeq": float64(1)}, js[0].Args)
	require.WithinDuration(t, *c.ClaimExpiresAt, js[0].ScheduledAt, time.Millisecond)
	require.Equal(t, []string{"status:queued", "status:running"}, e.Events(t, m.ID))

	_, err = e.engine.ClaimMission(ctx, e.ws(), m.ID, mission.MissionClaim{UserID: e.team.Owner.User.ID, TTL: time.Minute})
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "running, not queued")

	worker := e.cardMission(t, e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("worker")}))
	_, err = e.engine.ClaimMission(ctx, e.ws(), worker.ID, claim)
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "not mcpOnly")

	require.Len(t, e.Jobs(t, jobs.MissionClaimExpiryArgs{}.Kind()), 1, "refused claims schedule nothing")
	require.Len(t, e.Events(t, m.ID), 2)
	got, err := e.engine.Mission(ctx, e.ws(), worker.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionQueued, got.Status)
}

// Only the claim's holder reports progress or submits steps; each call pushes the claim's expiry back.
// Steps go through the executor, so autonomy applies, and tools outside the agent's are refused.
func TestClaimHolderWorksTheMission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, a, m := mcpEnv(t, &testfactory.AgentOpts{Tools: []string{"add_comment", "update_card"}})
	holder := mission.MissionClaim{UserID: e.team.Member.User.ID, TTL: time.Minute}
	other := mission.MissionClaim{UserID: e.team.Owner.User.ID, TTL: time.Minute}

	_, err := e.engine.ReportMissionProgress(ctx, e.ws(), m.ID, holder, "reading", nil)
	require.ErrorIs(t, err, db.ErrConflict, "not claimed yet")
	require.ErrorContains(t, err, "claim it first")
	c, err := e.engine.ClaimMission(ctx, e.ws(), m.ID, holder)
	require.NoError(t, err)

	longer := mission.MissionClaim{UserID: holder.UserID, TTL: time.Hour}
	ev, err := e.engine.ReportMissionProgress(ctx, e.ws(), m.ID, longer, "reading the card", map[string]any{"pct": 10})
	require.NoError(t, err)
	require.Equal(t, db.MissionEventStep, ev.Type)
	_, data := e.LastEvent(t, m.ID)
	require.Equal(t, map[string]any{"pct": float64(10), "source": "mcp"}, data)
	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.True(t, got.ClaimExpiresAt.After(c.ClaimExpiresAt.Add(50*time.Minute)), "the call pushed the expiry back")

	evs := len(e.Events(t, m.ID))
	_, err = e.engine.ReportMissionProgress(ctx, e.ws(), m.ID, other, "me too", nil)
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "claimed by someone else")
	_, err = e.engine.ReportMissionProgress(ctx, e.team.Member.Workspace.ID, m.ID, holder, "x", nil)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.SubmitMissionStep(ctx, e.ws(), other, mission.StepInput{MissionID: m.ID, StepKey: "k0",
		Tool: "add_comment", Args: raw(t, map[string]any{"content": "x"})})
	require.ErrorIs(t, err, db.ErrConflict)
	require.Len(t, e.Events(t, m.ID), evs, "refused calls append nothing")

	// Supervised (the default): the comment applies as the agent, the update is proposed, move_card is
	// not among its tools.
	out, err := e.engine.SubmitMissionStep(ctx, e.ws(), holder, mission.StepInput{MissionID: m.ID, StepKey: "k1",
		Tool: "add_comment", Args: raw(t, map[string]any{"content": "Picked up"})})
	require.NoError(t, err)
	require.Equal(t, mission.StepApplied, out.Outcome)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM comments WHERE author_id = $1`, a.UserID))
	out, err = e.engine.SubmitMissionStep(ctx, e.ws(), holder, mission.StepInput{MissionID: m.ID, StepKey: "k2",
		Tool: "update_card", Args: raw(t, map[string]any{"priority": "high"})})
	require.NoError(t, err)
	require.Equal(t, mission.StepProposed, out.Outcome)
	out, err = e.engine.SubmitMissionStep(ctx, e.ws(), holder, mission.StepInput{MissionID: m.ID, StepKey: "k3",
		Tool: "move_card", Args: raw(t, map[string]any{"columnId": e.team.Project.Columns[1]})})
	require.NoError(t, err)
	require.Equal(t, mission.StepRefused, out.Outcome)
	require.Contains(t, out.Text, `may not use "move_card"`)
	require.Equal(t, e.team.Project.Columns[0], e.readCard(t).ColumnID)

	// Its end: awaiting approval while the update is pending; then nobody holds it.
	_, err = e.engine.EndClaimedMission(ctx, e.ws(), m.ID, other, "done", "")
	require.ErrorIs(t, err, db.ErrConflict)
	end, err := e.engine.EndClaimedMission(ctx, e.ws(), m.ID, holder, "done", "")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionAwaitingApproval, end.Status)
	_, err = e.engine.ReportMissionProgress(ctx, e.ws(), m.ID, holder, "still here", nil)
	require.ErrorIs(t, err, db.ErrConflict)
}

// An MCP client ends its mission completed with a summary, or failed with its error text.
func TestEndClaimedMission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, a, m := mcpEnv(t, nil)
	holder := mission.MissionClaim{UserID: e.team.Member.User.ID, TTL: time.Minute}
	_, err := e.engine.ClaimMission(ctx, e.ws(), m.ID, holder)
	require.NoError(t, err)
	done, err := e.engine.EndClaimedMission(ctx, e.ws(), m.ID, holder, "Planned", "")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionCompleted, done.Status)
	msg, _ := e.LastEvent(t, m.ID)
	require.Equal(t, "Planned", msg)

	m2 := e.cardMission(t, a)
	_, err = e.engine.ClaimMission(ctx, e.ws(), m2.ID, holder)
	require.NoError(t, err)
	failed, err := e.engine.EndClaimedMission(ctx, e.ws(), m2.ID, holder, "", "the client crashed")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionFailed, failed.Status)
	require.Equal(t, testfactory.Ptr("the client crashed"), failed.Error)
}

// The expiry job puts back in the queue a mission whose holder went silent past the deadline; while
// the deadline is ahead it answers the deadline; for an older claim or a finished mission it does
// nothing. A mission put back can be claimed again, under the next claim number.
func TestReleaseExpiredClaim(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, _, m := mcpEnv(t, nil)
	holder := mission.MissionClaim{UserID: e.team.Member.User.ID, TTL: time.Hour}
	c, err := e.engine.ClaimMission(ctx, e.ws(), m.ID, holder)
	require.NoError(t, err)

	released, retryAt, err := e.engine.ReleaseExpiredClaim(ctx, m.ID, c.ClaimSeq)
	require.NoError(t, err)
	require.False(t, released)
	require.NotNil(t, retryAt)
	require.WithinDuration(t, *c.ClaimExpiresAt, *retryAt, time.Millisecond)

	// The holder's next call sets a deadline already past (a zero-length claim): silence from now on.
	_, err = e.engine.ReportMissionProgress(ctx, e.ws(), m.ID, mission.MissionClaim{UserID: holder.UserID,
		TTL: -time.Second}, "last words", nil)
	require.NoError(t, err)
	released, retryAt, err = e.engine.ReleaseExpiredClaim(ctx, m.ID, c.ClaimSeq+1)
	require.NoError(t, err)
	require.False(t, released, "another claim's job does nothing")
	require.Nil(t, retryAt)
	released, retryAt, err = e.engine.ReleaseExpiredClaim(ctx, m.ID, c.ClaimSeq)
	require.NoError(t, err)
	require.True(t, released)
	require.Nil(t, retryAt)
	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionQueued, got.Status)
	require.Nil(t, got.ClaimedBy)
	require.Nil(t, got.ClaimExpiresAt)
	evs := e.Events(t, m.ID)
	require.Equal(t, "status:queued", evs[len(evs)-1])

	// Twice is nothing; the old holder's calls are refused; a new claim takes the next number.
	released, _, err = e.engine.ReleaseExpiredClaim(ctx, m.ID, c.ClaimSeq)
	require.NoError(t, err)
	require.False(t, released)
	_, err = e.engine.ReportMissionProgress(ctx, e.ws(), m.ID, holder, "back", nil)
	require.ErrorIs(t, err, db.ErrConflict)
	again, err := e.engine.ClaimMission(ctx, e.ws(), m.ID, mission.MissionClaim{UserID: e.team.Owner.User.ID,
		TTL: time.Minute})
	require.NoError(t, err)
	require.Equal(t, c.ClaimSeq+1, again.ClaimSeq)
	require.Equal(t, c.StartedAt, again.StartedAt, "its first start is kept")
	require.Len(t, e.Jobs(t, jobs.MissionClaimExpiryArgs{}.Kind()), 2)

	released, _, err = e.engine.ReleaseExpiredClaim(ctx, db.NewID(), 1)
	require.NoError(t, err, "a deleted mission's job has nothing to do")
	require.False(t, released)
}

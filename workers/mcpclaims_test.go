package workers

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// TestMissionClaimExpiry: the expiry job waits while the holder keeps speaking, returns a silent
// holder's mission to the queue with a status event, and leaves a newer claim alone.
func TestMissionClaimExpiry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	tm := testfactory.NewTeam(t, b.Engines)
	a := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Name: testfactory.Ptr("ext"),
		Slug: testfactory.Ptr("ext"), AutonomyMode: testfactory.Ptr(mission.AutonomyApproval), Tools: []string{"add_comment"},
		McpOnly: testfactory.Ptr(true)})
	card := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("c")})
	m, err := b.Missions.CreateMission(ctx, mission.NewMission{WorkspaceID: tm.Owner.Workspace.ID, AgentID: a.ID,
		ActorID: tm.Owner.User.ID, ProjectID: &tm.Project.ID, CardID: &card.ID, Source: mission.MissionSourceCardMission,
		Objective: "work it"})
	require.NoError(t, err)
	claim := mission.MissionClaim{UserID: tm.Member.User.ID, TTL: time.Hour}
	claimed, err := b.Missions.ClaimMission(ctx, tm.Owner.Workspace.ID, m.ID, claim)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionRunning, claimed.Status)
	require.Equal(t, int32(1), claimed.ClaimSeq)

	// The job was inserted with the claim, scheduled at its expiry.
	res, err := b.River.JobList(ctx, river.NewJobListParams().Kinds(jobs.MissionClaimExpiryArgs{}.Kind()).
		States(rivertype.JobStateScheduled))
	require.NoError(t, err)
	require.Len(t, res.Jobs, 1)
	require.WithinDuration(t, *claimed.ClaimExpiresAt, res.Jobs[0].ScheduledAt, time.Second)

	w := &MissionClaimExpiryWorker{deps: b.deps}
	work := func(seq int32) river.EventKind {
		var kind river.EventKind
		b.inTx(t, func(tx pgx.Tx) {
			r, err := testWorker(t, b, w).Work(ctx, t, tx, jobs.MissionClaimExpiryArgs{MissionID: m.ID, ClaimSeq: seq}, nil)
			require.NoError(t, err)
			kind = r.EventKind
		})
		return kind
	}
	// Before the deadline: the job waits (a snooze), the mission stays the holder's.
	require.Equal(t, river.EventKindJobSnoozed, work(1))
	require.EqualValues(t, db.MissionRunning, b.getMission(t, tm, m.ID).Status)

	// Past it (the holder went silent): queued again, and the stream says so.
	_, err = b.Pool.Exec(ctx, `UPDATE agent_missions SET claim_expires_at = now() - interval '1 second' WHERE id = $1`,
		m.ID)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, work(1))
	back := b.getMission(t, tm, m.ID)
	require.EqualValues(t, db.MissionQueued, back.Status)
	require.Nil(t, back.ClaimedBy)
	evs, err := b.Store.StreamEventsAfter(ctx, m.ID, 0, 100)
	require.NoError(t, err)
	last := evs[len(evs)-1]
	require.Equal(t, db.MissionEventStatus, last.Type)
	require.EqualValues(t, db.MissionQueued, last.Status)
	require.Contains(t, last.Message, "went silent")
	// The holder's calls are refused now.
	_, err = b.Missions.ReportMissionProgress(ctx, tm.Owner.Workspace.ID, m.ID, claim, "late", nil)
	require.ErrorIs(t, err, db.ErrConflict)

	// Claimed again (claim 2): the first claim's job, run again, leaves it alone even past its deadline.
	_, err = b.Missions.ClaimMission(ctx, tm.Owner.Workspace.ID, m.ID, mission.MissionClaim{UserID: tm.Owner.User.ID,
		TTL: time.Hour})
	require.NoError(t, err)
	_, err = b.Pool.Exec(ctx, `UPDATE agent_missions SET claim_expires_at = now() - interval '1 second' WHERE id = $1`,
		m.ID)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, work(1))
	require.EqualValues(t, db.MissionRunning, b.getMission(t, tm, m.ID).Status)
	// A finished mission is left alone by its own claim's job.
	_, err = b.Missions.EndClaimedMission(ctx, tm.Owner.Workspace.ID, m.ID, mission.MissionClaim{UserID: tm.Owner.User.ID,
		TTL: time.Hour}, "done", "")
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, work(2))
	require.EqualValues(t, db.MissionCompleted, b.getMission(t, tm, m.ID).Status)
}

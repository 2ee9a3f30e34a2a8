package workers

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/recurrence"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// The scan job creates a due occurrence once: a second scan (another worker, a retry) creates nothing.
func TestRecurrenceScanCreatesOccurrenceOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	tm := testfactory.NewTeam(t, b.Engines)
	due := time.Now().Add(-25 * time.Hour)
	c := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{In: board.NewCard{DueDate: &due}})
	_, err := b.Recurrence.Set(ctx, db.CardEdit{ProjectID: tm.Project.ID, CardID: c.ID, ActorID: tm.Owner.User.ID},
		recurrence.Spec{Rule: "FREQ=DAILY", TimeZone: "Europe/Paris", Mode: recurrence.ModeOnSchedule})
	require.NoError(t, err)

	workNew(t, b, &RecurrenceScanWorker{deps: b.deps}, jobs.RecurrenceScanArgs{}, nil)
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, tm.Project.ID))
	workNew(t, b, &RecurrenceScanWorker{deps: b.deps}, jobs.RecurrenceScanArgs{}, nil)
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, tm.Project.ID))
}

// Completing an after-completion occurrence enqueues the next's job with the move; worked (twice, as a
// retry would), it creates one card.
func TestRecurrenceNextAfterCompletion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	tm := testfactory.NewTeam(t, b.Engines)
	c := testfactory.Card(t, b.Engines, tm.Project, nil)
	_, err := b.Recurrence.Set(ctx, db.CardEdit{ProjectID: tm.Project.ID, CardID: c.ID, ActorID: tm.Owner.User.ID},
		recurrence.Spec{Rule: "FREQ=WEEKLY", TimeZone: "America/New_York", Mode: recurrence.ModeAfterCompletion})
	require.NoError(t, err)
	done := tm.Project.Columns[len(tm.Project.Columns)-1]
	_, err = b.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: tm.Project.WorkspaceID, ProjectID: tm.Project.ID,
		CardID: c.ID, ActorID: tm.Owner.User.ID, Patch: board.CardPatch{ColumnID: &done}})
	require.NoError(t, err)
	job := rivertest.RequireInserted(ctx, t, riverpgxv5.New(b.Pool), jobs.RecurrenceNextArgs{}, nil)
	require.Equal(t, c.ID, job.Args.CardID)

	require.Equal(t, 1, b.drain(t, jobs.RecurrenceNextArgs{}.Kind()))
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, tm.Project.ID))
	workNew(t, b, &RecurrenceNextWorker{deps: b.deps}, job.Args, nil)
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, tm.Project.ID))
}

// The leader enqueues the scan when the worker starts (then every minute).
func TestRecurrenceScanIsPeriodic(t *testing.T) {
	t.Parallel()
	b := setup(t)
	events := b.startWorker(t, Config{})
	waitJob(t, events, jobs.RecurrenceScanArgs{}.Kind())
}

package workers

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// TestColumnCountsFoldJobFoldsWhatCardWritesAdded: each card write adds a count row to its column; the
// periodic fold job leaves one row per column, and the portfolio's figures are the same before and after.
func TestColumnCountsFoldJobFoldsWhatCardWritesAdded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	for range 3 {
		testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("A"),
			In: board.NewCard{Priority: "high"}})
		testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("B"),
			Column: testfactory.Ptr(1)})
	}
	require.Equal(t, 6, b.Count(t, `SELECT count(*) FROM column_card_counts WHERE NOT folded`))
	before, err := b.Pilotage.Portfolio(ctx, tm.Owner.Workspace.ID)
	require.NoError(t, err)

	b.inTx(t, func(tx pgx.Tx) {
		res, err := testWorker(t, b, &ColumnCountsFoldWorker{deps: b.deps}).Work(ctx, t, tx, jobs.ColumnCountsFoldArgs{}, nil)
		require.NoError(t, err)
		require.Equal(t, rivertype.JobStateCompleted, res.Job.State)
	})
	require.Zero(t, b.Count(t, `SELECT count(*) FROM column_card_counts WHERE NOT folded`))
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM column_card_counts c JOIN columns col ON col.id = c.column_id
		WHERE col.project_id = $1`, tm.Project.ID))
	after, err := b.Pilotage.Portfolio(ctx, tm.Owner.Workspace.ID)
	require.NoError(t, err)
	require.Equal(t, before, after)
	require.Equal(t, 3, after[0].CardsByPriority["high"])
}

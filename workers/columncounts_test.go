package workers

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/pilotage"
	"github.com/pilot-dev/pilot/jobs"
)

// TestColumnCountsFoldJobFoldsWhatCardWritesAdded: each card write adds a count row to its column; the
// periodic fold job leaves one row per column, and the portfolio's figures are the same before and after.
func TestColumnCountsFoldJobFoldsWhatCardWritesAdded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := b.team(t)
	for range 3 {
		b.card(t, tm, tm.owner, db.NewCard{Title: "A", Priority: "high"})
		b.card(t, tm, tm.owner, db.NewCard{Title: "B", ColumnID: tm.cols[1]})
	}
	require.Equal(t, 6, b.count(t, `SELECT count(*) FROM column_card_counts WHERE NOT folded`))
	before, err := pilotage.New(b.store).Portfolio(ctx, tm.owner.Workspace.ID)
	require.NoError(t, err)

	b.inTx(t, func(tx pgx.Tx) {
		res, err := testWorker(t, b, &ColumnCountsFoldWorker{deps: b.deps}).Work(ctx, t, tx, jobs.ColumnCountsFoldArgs{}, nil)
		require.NoError(t, err)
		require.Equal(t, rivertype.JobStateCompleted, res.Job.State)
	})
	require.Zero(t, b.count(t, `SELECT count(*) FROM column_card_counts WHERE NOT folded`))
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM column_card_counts c JOIN columns col ON col.id = c.column_id
		WHERE col.project_id = $1`, tm.project.ID))
	after, err := pilotage.New(b.store).Portfolio(ctx, tm.owner.Workspace.ID)
	require.NoError(t, err)
	require.Equal(t, before, after)
	require.Equal(t, 3, after[0].CardsByPriority["high"])
}

package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/pilotage"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// testBundle is one test's database and a store on it with an insert-only River client, as the api
// process has, and a registered user with a project.
type testBundle struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	store *db.Store
	// pilotage is the cockpit engine on store, one per bundle as one per process (its reads are shared).
	pilotage *pilotage.Engine
	owner    identity.Registration
	project  db.Project
	cols     []string
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	ctx := context.Background()
	dbPool := pgtest.Pool(t)
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{})
	require.NoError(t, err)
	b := &testBundle{pool: dbPool, river: riverClient, store: db.NewStore(dbPool, riverClient)}
	b.pilotage = pilotage.New(b.store)
	b.owner, err = identity.New(b.store).Register(ctx, "owner@example.com", "Owner", "not-a-real-hash")
	require.NoError(t, err)
	b.project, err = b.store.CreateProject(ctx, db.NewProject{WorkspaceID: b.owner.Workspace.ID, Name: "Launch", CreatedBy: b.owner.User.ID})
	require.NoError(t, err)
	cols, err := b.store.Columns(ctx, b.project.ID)
	require.NoError(t, err)
	for _, c := range cols {
		b.cols = append(b.cols, c.ID)
	}
	return b
}

// newCard is a card of the bundle's project, created by its owner in its first column.
func (b *testBundle) newCard(title string) db.NewCard {
	return db.NewCard{WorkspaceID: b.owner.Workspace.ID, ProjectID: b.project.ID, ColumnID: b.cols[0], ActorID: b.owner.User.ID, Title: title}
}

// count runs a COUNT query on the test database.
func (b *testBundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// requireNoJobs asserts through River that no job of any kind, in any state, exists.
func (b *testBundle) requireNoJobs(t *testing.T) {
	t.Helper()
	res, err := b.river.JobList(context.Background(), river.NewJobListParams())
	require.NoError(t, err)
	require.Empty(t, res.Jobs)
}

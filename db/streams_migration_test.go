package db_test

import (
	"context"
	"io/fs"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// Migration 00013 moves every mission's events into the generic stream log unchanged, marks the ones
// whose status ends the stream final, and keeps each mission's sequence; down moves them back.
func TestStreamsMigrationMovesMissionEvents(t *testing.T) {
	ctx := context.Background()
	dbPool := pgtest.Pool(t)
	sub, err := fs.Sub(db.MigrationFS(), "migrations")
	require.NoError(t, err)
	sqlDB := stdlib.OpenDBFromPool(dbPool)
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, sub)
	require.NoError(t, err)
	_, err = provider.DownTo(ctx, 12)
	require.NoError(t, err)

	user, svc, org, ws, agent, running, waiting := db.NewID(), db.NewID(), db.NewID(), db.NewID(), db.NewID(), db.NewID(),
		db.NewID()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, []any{user, user + "@example.test"}},
		{`INSERT INTO users (id, email, password_hash, is_service) VALUES ($1, $2, 'x', true)`, []any{svc,
			svc + "@agents.test"}},
		{`INSERT INTO organizations (id, name, slug, owner_id) VALUES ($1, 'o', 'o-migrate', $2)`, []any{org, user}},
		{`INSERT INTO workspaces (id, organization_id, name, slug, owner_id) VALUES ($1, $2, 'w', 'w', $3)`, []any{ws, org,
			user}},
		{`INSERT INTO agents (id, workspace_id, user_id, name, slug, created_by) VALUES ($1, $2, $3, 'bot', 'bot', $4)`,
			[]any{agent, ws, svc, user}},
		{`INSERT INTO agent_missions (id, workspace_id, agent_id, source, objective, status, max_steps, created_by, event_seq)
		  VALUES ($1, $3, $4, 'agent', 'a', 'running', 10, $5, 2),
		         ($2, $3, $4, 'agent', 'b', 'awaiting_approval', 10, $5, 1)`,
			[]any{running, waiting, ws, agent, user}},
		{`INSERT INTO mission_events (mission_id, seq, type, status, message, data) VALUES
		  ($1, 1, 'status', 'queued', 'q', '{"a":1}'), ($1, 2, 'step', 'running', 's', '{}'),
		  ($2, 1, 'proposal', 'awaiting_approval', 'p', '{}')`, []any{running, waiting}},
	} {
		_, err := dbPool.Exec(ctx, q.sql, q.args...)
		require.NoError(t, err, q.sql)
	}

	_, err = provider.Up(ctx)
	require.NoError(t, err)
	store := engines.New(dbPool, nil, engines.Options{}).Store
	evs, err := store.StreamEventsAfter(ctx, running, 0, 10)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	require.Equal(t, "status", evs[0].Type)
	require.Equal(t, "queued", evs[0].Status)
	require.JSONEq(t, `{"a":1}`, string(evs[0].Data))
	require.False(t, evs[1].Final)
	st, err := store.StreamState(ctx, running)
	require.NoError(t, err)
	require.Equal(t, db.StreamState{LastSeq: 2, LastStatus: "running"}, st)
	st, err = store.StreamState(ctx, waiting)
	require.NoError(t, err)
	require.Equal(t, db.StreamState{LastSeq: 1, LastStatus: "awaiting_approval"}, st)

	// The sequence goes on where the mission's left off.
	ev, err := store.AppendMissionEvent(ctx, running, db.NewMissionEvent{Type: db.MissionEventDone,
		Status: string(db.MissionCompleted)})
	require.NoError(t, err)
	require.Equal(t, int64(3), ev.Seq)
	require.True(t, ev.Final)

	// Deleting a mission deletes its stream.
	_, err = dbPool.Exec(ctx, `DELETE FROM agent_missions WHERE id = $1`, waiting)
	require.NoError(t, err)
	var n int
	require.NoError(t, dbPool.QueryRow(ctx, `SELECT count(*) FROM stream_events WHERE stream_id = $1`, waiting).Scan(&n))
	require.Zero(t, n)

	_, err = provider.DownTo(ctx, 12)
	require.NoError(t, err)
	require.NoError(t, dbPool.QueryRow(ctx, `SELECT count(*) FROM mission_events WHERE mission_id = $1`, running).Scan(&n))
	require.Equal(t, 3, n)
	_, err = provider.Up(ctx)
	require.NoError(t, err)
}

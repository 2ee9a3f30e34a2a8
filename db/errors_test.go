package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
)

// requireKind asserts that err is a translated *db.Error of kind about constraint (none when "").
func requireKind(t *testing.T, err, kind error, constraint string) *db.Error {
	t.Helper()
	require.ErrorIs(t, err, kind)
	var e *db.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, constraint, e.Constraint)
	return e
}

// Every statement the store runs has its database errors translated into the store's kinds, on each
// path a result comes back by (Exec, QueryRow, Query).
func TestErrorsAreTranslatedAsQueriesRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	conn := db.Translating(b.pool)

	// A missing row is not found.
	var id string
	err := conn.QueryRow(ctx, `SELECT id FROM users WHERE id = $1`, db.NewID()).Scan(&id)
	requireKind(t, err, db.ErrNotFound, "")
	// So is an id that is no UUID: it names nothing.
	err = conn.QueryRow(ctx, `SELECT id FROM users WHERE id = $1`, "not-a-uuid").Scan(&id)
	requireKind(t, err, db.ErrNotFound, "")
	_, err = conn.Exec(ctx, `DELETE FROM users WHERE id = $1`, "not-a-uuid")
	requireKind(t, err, db.ErrNotFound, "")

	// A unique violation is a conflict naming its constraint, and keeps the driver's error.
	_, err = conn.Exec(ctx, `INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, db.NewID(), "OWNER@example.com")
	requireKind(t, err, db.ErrConflict, "users_email_key")
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "23505", pgErr.Code)

	// A reference to a row that does not exist is not found, naming the foreign key.
	_, err = conn.Exec(ctx, `INSERT INTO organizations (id, name, slug, owner_id) VALUES ($1, 'x', 'x', $2)`, db.NewID(), db.NewID())
	requireKind(t, err, db.ErrNotFound, "organizations_owner_id_fkey")

	// PostgreSQL text cannot hold U+0000: invalid, whichever way the rows come back.
	rows, err := conn.Query(ctx, `SELECT $1::text`, "nul \x00 inside")
	if err == nil {
		rows.Close()
		err = rows.Err()
	}
	e := requireKind(t, err, db.ErrInvalid, "")
	require.Contains(t, e.Msg, "NUL")

	// What is not the database's refusal passes through untouched.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = conn.Exec(cancelled, `SELECT 1`)
	require.ErrorIs(t, err, context.Canceled)
	var storeErr *db.Error
	require.False(t, errors.As(err, &storeErr), "err: %v", err)
}

// The store's operations answer the translated kinds with messages for the caller.
func TestStoreErrorKinds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)

	_, err := b.store.Card(ctx, b.project.ID, db.NewID())
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = b.store.Card(ctx, b.project.ID, "not-a-uuid")
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = b.store.Project(ctx, b.owner.Workspace.ID, "not-a-uuid")
	require.ErrorIs(t, err, db.ErrNotFound)

	_, err = b.store.Register(ctx, "Owner@Example.com", "Again", "not-a-real-hash")
	require.ErrorIs(t, err, db.ErrConflict)
	require.EqualError(t, err, "an account with this e-mail already exists")

	in := b.newCard("a\x00b")
	_, err = b.store.CreateCard(ctx, in)
	require.ErrorIs(t, err, db.ErrInvalid)
	require.ErrorContains(t, err, "NUL")

	in = b.newCard("nowhere")
	in.ColumnID = db.NewID()
	_, err = b.store.CreateCard(ctx, in)
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "column not found")
}

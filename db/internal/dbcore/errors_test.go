package dbcore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// requireKind asserts that err is a translated *dbcore.Error of kind about constraint (none when "").
func requireKind(t *testing.T, err, kind error, constraint string) {
	t.Helper()
	require.ErrorIs(t, err, kind)
	var e *dbcore.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, constraint, e.Constraint)
}

// Every statement the store runs has its database errors translated into the store's kinds, on each
// path a result comes back by (Exec, QueryRow, Query).
func TestErrorsAreTranslatedAsQueriesRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := dbcore.Translating(pgtest.Pool(t))

	// A missing row is not found.
	var id string
	err := conn.QueryRow(ctx, `SELECT id FROM users WHERE id = $1`, dbcore.NewID()).Scan(&id)
	requireKind(t, err, dbcore.ErrNotFound, "")
	// So is an id that is no UUID: it names nothing.
	err = conn.QueryRow(ctx, `SELECT id FROM users WHERE id = $1`, "not-a-uuid").Scan(&id)
	requireKind(t, err, dbcore.ErrNotFound, "")
	_, err = conn.Exec(ctx, `DELETE FROM users WHERE id = $1`, "not-a-uuid")
	requireKind(t, err, dbcore.ErrNotFound, "")

	// A unique violation is a conflict naming its constraint, and keeps the driver's error.
	_, err = conn.Exec(ctx, `INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, dbcore.NewID(), "owner@example.com")
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, dbcore.NewID(), "OWNER@example.com")
	requireKind(t, err, dbcore.ErrConflict, "users_email_key")
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "23505", pgErr.Code)

	// A reference to a row that does not exist is not found, naming the foreign key.
	_, err = conn.Exec(ctx, `INSERT INTO organizations (id, name, slug, owner_id) VALUES ($1, 'x', 'x', $2)`, dbcore.NewID(), dbcore.NewID())
	requireKind(t, err, dbcore.ErrNotFound, "organizations_owner_id_fkey")

	// PostgreSQL text cannot hold U+0000: invalid, whichever way the rows come back.
	rows, err := conn.Query(ctx, `SELECT $1::text`, "nul \x00 inside")
	if err == nil {
		rows.Close()
		err = rows.Err()
	}
	requireKind(t, err, dbcore.ErrInvalid, "")
	var e *dbcore.Error
	require.ErrorAs(t, err, &e)
	require.Contains(t, e.Msg, "NUL")

	// What is not the database's refusal passes through untouched.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = conn.Exec(cancelled, `SELECT 1`)
	require.ErrorIs(t, err, context.Canceled)
	var storeErr *dbcore.Error
	require.False(t, errors.As(err, &storeErr), "err: %v", err)
}

package dbcore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/puddle/v2"
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
	_, err = conn.Exec(ctx, `INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, dbcore.NewID(),
		"owner@example.com")
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, dbcore.NewID(),
		"OWNER@example.com")
	requireKind(t, err, dbcore.ErrConflict, "users_email_key")
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "23505", pgErr.Code)

	// A reference to a row that does not exist is not found, naming the foreign key.
	_, err = conn.Exec(ctx, `INSERT INTO organizations (id, name, slug, owner_id) VALUES ($1, 'x', 'x', $2)`,
		dbcore.NewID(), dbcore.NewID())
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

// A lost or refused connection is ErrUnavailable (the api answers 503 with Retry-After), whichever way
// the driver reports it; the database's refusals of a statement, and a caller going away, are not.
func TestLostConnectionsAreUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	unavailable := func(t *testing.T, err error) {
		t.Helper()
		require.True(t, dbcore.IsUnavailable(err), "err: %v", err)
		translated := dbcore.Interpret(err)
		requireKind(t, translated, dbcore.ErrUnavailable, "")
		require.ErrorIs(t, translated, err, "the driver's error is kept")
		require.ErrorIs(t, dbcore.Unavailable(err), dbcore.ErrUnavailable)
		var e *dbcore.Error
		require.ErrorAs(t, translated, &e)
		require.Equal(t, dbcore.UnavailableMsg, e.Msg, "the caller reads no driver text")
	}
	available := func(t *testing.T, err error) {
		t.Helper()
		require.False(t, dbcore.IsUnavailable(err), "err: %v", err)
		require.NotErrorIs(t, dbcore.Interpret(err), dbcore.ErrUnavailable)
		require.NotErrorIs(t, dbcore.Unavailable(err), dbcore.ErrUnavailable)
	}

	t.Run("server codes", func(t *testing.T) {
		for _, code := range []string{
			"57P01", // admin_shutdown: pg_ctl stop or restart -m fast
			"57P02", // crash_shutdown
			"57P03", // cannot_connect_now: starting up or shutting down
			"08000", // connection_exception
			"08003", // connection_does_not_exist
			"08006", // connection_failure
			"08001", // sqlclient_unable_to_establish_sqlconnection
			"08004", // sqlserver_rejected_establishment_of_sqlconnection
			"53300", // too_many_connections
		} {
			unavailable(t, &pgconn.PgError{Severity: "FATAL", Code: code, Message: "x"})
			unavailable(t, fmt.Errorf("create card: %w", &pgconn.PgError{Severity: "FATAL", Code: code}))
		}
		for _, code := range []string{"23505", "23503", "22P02", "42601", "40001", "57014"} {
			available(t, &pgconn.PgError{Severity: "ERROR", Code: code})
		}
	})

	t.Run("refused dial", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close()) // nothing listens there any more: the dial is refused
		_, err = pgconn.Connect(ctx, "postgres://pilot@"+addr+"/pilot?sslmode=disable&connect_timeout=5")
		var connectErr *pgconn.ConnectError
		require.ErrorAs(t, err, &connectErr)
		unavailable(t, err)

		// The same through a pool: acquiring answers the dial's error, or the deadline passing while it waits.
		pool, err := pgxpool.New(ctx, "postgres://pilot@"+addr+"/pilot?sslmode=disable&connect_timeout=5")
		require.NoError(t, err)
		acquireCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err = pool.Exec(acquireCtx, `SELECT 1`)
		unavailable(t, err)
		pool.Close()
		_, err = pool.Acquire(ctx)
		require.ErrorIs(t, err, puddle.ErrClosedPool)
		unavailable(t, err)
	})

	t.Run("deadline waiting for a connection", func(t *testing.T) {
		pool := pgtest.Pool(t)
		// Hold every connection, so the next acquire waits until its deadline.
		var held []*pgxpool.Conn
		for range pool.Config().MaxConns {
			c, err := pool.Acquire(ctx)
			require.NoError(t, err)
			held = append(held, c)
		}
		defer func() {
			for _, c := range held {
				c.Release()
			}
		}()
		acquireCtx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err := dbcore.Translating(pool).Exec(acquireCtx, `SELECT 1`)
		requireKind(t, err, dbcore.ErrUnavailable, "")
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})

	t.Run("terminated session", func(t *testing.T) {
		// The server ends the session under a live connection (what a fast shutdown does to every one):
		// the next statement on it reports it, translated.
		pool := pgtest.Pool(t)
		conn, err := pool.Acquire(ctx)
		require.NoError(t, err)
		defer conn.Release()
		var pid int32
		require.NoError(t, conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid))
		_, err = pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid)
		require.NoError(t, err)
		_, err = dbcore.Translating(conn).Exec(ctx, `SELECT 1`)
		requireKind(t, err, dbcore.ErrUnavailable, "")
		// And the connection is closed after it: using it again is unavailable too.
		_, err = dbcore.Translating(conn).Exec(ctx, `SELECT 1`)
		requireKind(t, err, dbcore.ErrUnavailable, "")
	})

	t.Run("not the connection", func(t *testing.T) {
		available(t, nil)
		available(t, context.Canceled)
		available(t, fmt.Errorf("dial: %w", context.Canceled))
		available(t, errors.New("some bug"))
		available(t, dbcore.Conflict("taken"))
		// Translating twice changes nothing.
		once := dbcore.Interpret(&pgconn.PgError{Code: "57P01"})
		require.Same(t, once, dbcore.Interpret(once))
	})
}

package dbcore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// The store's sentinel errors (package db re-exports them): every error the store returns that is about the request
// rather than the machine is one of these kinds (match with errors.Is). The api maps each to one HTTP status.
var (
	ErrNotFound  = errors.New("not found")
	ErrConflict  = errors.New("conflict")
	ErrInvalid   = errors.New("invalid")
	ErrForbidden = errors.New("forbidden")
	// ErrUnavailable is no refusal of the request but the database out of reach (restarting, down, or
	// its connections lost): the same request may succeed in a moment. The api answers it 503 with
	// Retry-After.
	ErrUnavailable = errors.New("database unavailable")
)

// UnavailableMsg is the message of an ErrUnavailable error, meant for the caller.
const UnavailableMsg = "the database is unavailable; try again shortly"

// Error is a refusal with a message meant for the caller; Kind is one of the sentinel errors above.
// Errors translated from PostgreSQL also keep the violated constraint and the driver's error.
type Error struct {
	Kind       error
	Msg        string
	Constraint string // the violated constraint, for unique and foreign-key violations
	cause      error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return e.Msg + ": " + e.cause.Error()
	}
	return e.Msg
}

// Unwrap lets errors.Is match the kind (and the driver's error, for translated ones).
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Kind, e.cause}
	}
	return []error{e.Kind}
}

// Invalid is a refusal of bad input, with a message for the caller.
func Invalid(msg string) error { return &Error{Kind: ErrInvalid, Msg: msg} }

// Forbidden is a refusal of a caller who may not do this.
func Forbidden(msg string) error { return &Error{Kind: ErrForbidden, Msg: msg} }

// Conflict is a refusal because of the state something is in.
func Conflict(msg string) error { return &Error{Kind: ErrConflict, Msg: msg} }

// NotFound is a refusal because something does not exist (or is not the caller's to see).
func NotFound(msg string) error { return &Error{Kind: ErrNotFound, Msg: msg} }

// Interpret is the one translation of database errors into the store's: every query the store runs
// passes its error through here (see Queries), so the rest of the store and everything above it
// reasons in sentinel kinds only.
func Interpret(err error) error {
	if err == nil {
		return nil
	}
	var translated *Error
	if errors.As(err, &translated) {
		return err // already the store's
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return &Error{Kind: ErrNotFound, Msg: "not found", cause: err}
	}
	if lostConnection(err) {
		return &Error{Kind: ErrUnavailable, Msg: UnavailableMsg, cause: err}
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	switch pgErr.Code {
	case "23505": // unique_violation
		return &Error{Kind: ErrConflict, Msg: "conflict", Constraint: pgErr.ConstraintName, cause: err}
	case "23503": // foreign_key_violation: the row referred to is gone (or never was)
		return &Error{Kind: ErrNotFound, Msg: "not found", Constraint: pgErr.ConstraintName, cause: err}
	case "22P02": // invalid_text_representation: an id that is not a UUID names nothing
		return &Error{Kind: ErrNotFound, Msg: "not found", cause: err}
	case "22021", "22P05": // PostgreSQL text and JSON cannot hold U+0000
		return &Error{Kind: ErrInvalid, Msg: "text may not contain the NUL character (\\u0000)", cause: err}
	}
	return err
}

// Unavailable is err translated to ErrUnavailable when it is a lost or refused database connection
// (see IsUnavailable), else err unchanged. For errors met outside the translating queries: beginning or
// committing a transaction, acquiring a connection.
func Unavailable(err error) error {
	var translated *Error
	if err == nil || errors.As(err, &translated) || !lostConnection(err) {
		return err
	}
	return &Error{Kind: ErrUnavailable, Msg: UnavailableMsg, cause: err}
}

// IsUnavailable reports an error of kind ErrUnavailable, or a driver's error that would be one: the
// database refused or lost the connection (restarting, shutting down, unreachable), the pool could
// not hand one out in time, or it is closed.
func IsUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) || lostConnection(err) }

// lostConnection reports a driver's error meaning the database is out of reach rather than refusing
// this statement. A cancelled context is the caller's going away, never the database's fault.
func lostConnection(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"): // connection_exception and its subclasses
			return true
		case pgErr.Code == "57P01", // admin_shutdown: the server is stopping (pg_ctl stop/restart -m fast)
			pgErr.Code == "57P02", // crash_shutdown: another backend crashed, every session is ended
			pgErr.Code == "57P03", // cannot_connect_now: the server is starting up or shutting down
			pgErr.Code == "53300": // too_many_connections: the server refuses new connections for now
			return true
		}
		return false // the database answered: a refusal of this statement, not of the connection
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr): // dialing or the startup failed (refused, unreachable, timed out)
		return true
	case errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, puddle.ErrClosedPool):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF): // the server closed the connection mid-talk
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	case errors.As(err, &netErr): // any other failure of the connection's socket
		return true
	case errors.Is(err, context.DeadlineExceeded): // waiting for a connection (or an answer) timed out
		return true
	}
	return false
}

// Violates reports whether err is a translated violation of the named constraint ("" for any) of kind.
func Violates(err, kind error, constraint string) bool {
	var e *Error
	return errors.As(err, &e) && errors.Is(e.Kind, kind) && e.cause != nil && (constraint == "" ||
		e.Constraint == constraint)
}

// IsUnique reports a unique violation (of constraint, or of any when it is "").
func IsUnique(err error, constraint string) bool { return Violates(err, ErrConflict, constraint) }

// IsMissingRef reports a foreign-key violation: the row referred to does not exist.
func IsMissingRef(err error) bool {
	var e *Error
	return errors.As(err, &e) && errors.Is(e.Kind, ErrNotFound) && e.Constraint != ""
}

// IsNotFound reports an error of kind ErrNotFound: no row, a missing reference, or a malformed id.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// translating runs the generated queries on conn and translates every error they meet with interpret.
type translating struct{ conn dbsqlc.DBTX }

func (t translating) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := t.conn.Exec(ctx, sql, args...)
	return tag, Interpret(err)
}

func (t translating) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := t.conn.Query(ctx, sql, args...)
	if err != nil {
		return rows, Interpret(err)
	}
	return translatedRows{rows}, nil
}

func (t translating) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return translatedRow{t.conn.QueryRow(ctx, sql, args...)}
}

type translatedRow struct{ pgx.Row }

func (r translatedRow) Scan(dest ...any) error { return Interpret(r.Row.Scan(dest...)) }

type translatedRows struct{ pgx.Rows }

func (r translatedRows) Err() error             { return Interpret(r.Rows.Err()) }
func (r translatedRows) Scan(dest ...any) error { return Interpret(r.Rows.Scan(dest...)) }

// Queries returns the generated queries on conn (the pool, a transaction or a batch), with every error
// translated.
func Queries(conn dbsqlc.DBTX) *dbsqlc.Queries { return dbsqlc.New(Translating(conn)) }

// Translating runs statements on conn as the generated queries run them: every error they meet comes
// back translated by Interpret.
func Translating(conn dbsqlc.DBTX) dbsqlc.DBTX { return translating{conn} }

// OrNotFound answers a single-row read: its row, or a refusal saying notFoundMsg when there is none;
// any other error is wrapped with what. Use it as
// `return OrNotFound(q.AgentGet(ctx, p))("agent not found", "get agent")`.
func OrNotFound[T any](row T, err error) func(notFoundMsg, what string) (T, error) {
	return func(notFoundMsg, what string) (T, error) {
		if IsNotFound(err) {
			return row, NotFound(notFoundMsg)
		}
		return row, Wrap(err, what)
	}
}

// Wrap says what failed: err (already translated by Interpret) with context, or nil.
func Wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

package db

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// The store's sentinel errors: every error the store returns that is about the request rather than
// the machine is one of these kinds (match with errors.Is). The api maps each to one HTTP status.
var (
	ErrNotFound  = errors.New("not found")
	ErrConflict  = errors.New("conflict")
	ErrInvalid   = errors.New("invalid")
	ErrForbidden = errors.New("forbidden")
)

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

func invalid(msg string) error   { return &Error{Kind: ErrInvalid, Msg: msg} }
func forbidden(msg string) error { return &Error{Kind: ErrForbidden, Msg: msg} }
func conflict(msg string) error  { return &Error{Kind: ErrConflict, Msg: msg} }
func notFound(msg string) error  { return &Error{Kind: ErrNotFound, Msg: msg} }

// interpret is the one translation of database errors into the store's: every query the store runs
// passes its error through here (see translating), so the rest of the store and everything above it
// reasons in sentinel kinds only.
func interpret(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return &Error{Kind: ErrNotFound, Msg: "not found", cause: err}
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

// violates reports whether err is a translated violation of the named constraint ("" for any) of kind.
func violates(err, kind error, constraint string) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind && e.cause != nil && (constraint == "" || e.Constraint == constraint)
}

// isUnique reports a unique violation (of constraint, or of any when it is "").
func isUnique(err error, constraint string) bool { return violates(err, ErrConflict, constraint) }

// isMissingRef reports a foreign-key violation: the row referred to does not exist.
func isMissingRef(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == ErrNotFound && e.Constraint != ""
}

// isNotFound reports an error of kind ErrNotFound: no row, a missing reference, or a malformed id.
func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// translating runs the generated queries on conn and translates every error they meet with interpret.
type translating struct{ conn dbsqlc.DBTX }

func (t translating) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := t.conn.Exec(ctx, sql, args...)
	return tag, interpret(err)
}

func (t translating) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := t.conn.Query(ctx, sql, args...)
	if err != nil {
		return rows, interpret(err)
	}
	return translatedRows{rows}, nil
}

func (t translating) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return translatedRow{t.conn.QueryRow(ctx, sql, args...)}
}

type translatedRow struct{ pgx.Row }

func (r translatedRow) Scan(dest ...any) error { return interpret(r.Row.Scan(dest...)) }

type translatedRows struct{ pgx.Rows }

func (r translatedRows) Err() error             { return interpret(r.Rows.Err()) }
func (r translatedRows) Scan(dest ...any) error { return interpret(r.Rows.Scan(dest...)) }

// queries returns the generated queries on conn (the pool, a transaction or a batch), with every error
// translated.
func queries(conn dbsqlc.DBTX) *dbsqlc.Queries { return dbsqlc.New(translating{conn}) }

// orNotFound answers a single-row read: its row, or a refusal saying notFoundMsg when there is none;
// any other error is wrapped with what. Use it as
// `return orNotFound(s.q.AgentGet(ctx, p))("agent not found", "get agent")`.
func orNotFound[T any](row T, err error) func(notFoundMsg, what string) (T, error) {
	return func(notFoundMsg, what string) (T, error) {
		if isNotFound(err) {
			return row, notFound(notFoundMsg)
		}
		return row, wrap(err, what)
	}
}

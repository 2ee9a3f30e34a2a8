package db

import (
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrInvalid and ErrForbidden classify refusals that are not about existence or uniqueness.
var (
	ErrInvalid   = errors.New("invalid")
	ErrForbidden = errors.New("forbidden")
)

// Error is a refusal with a message meant for the caller; Kind is one of the store's sentinel errors.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is match the kind.
func (e *Error) Unwrap() error { return e.Kind }

func invalid(msg string) error   { return &Error{Kind: ErrInvalid, Msg: msg} }
func forbidden(msg string) error { return &Error{Kind: ErrForbidden, Msg: msg} }
func conflict(msg string) error  { return &Error{Kind: ErrConflict, Msg: msg} }
func notFound(msg string) error  { return &Error{Kind: ErrNotFound, Msg: msg} }

// NewID returns a new time-ordered identifier (UUIDv7) as a string.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

func isNotFound(err error) bool { return errors.Is(err, pgx.ErrNoRows) || errors.Is(err, ErrNotFound) }

// isInvalidText reports a malformed value for a typed column, such as an id that is not a UUID: such an
// id names nothing.
func isInvalidText(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "22P02"
}

// IsForeignKeyViolation reports whether err is a foreign-key violation.
func IsForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

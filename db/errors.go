package db

import (
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// The store's sentinel errors: every error the store and its engines return that is about the request
// rather than the machine is one of these kinds (match with errors.Is). The api maps each to one HTTP
// status. Database errors are translated into them once, as queries run (dbcore.Interpret).
var (
	ErrNotFound  = dbcore.ErrNotFound
	ErrConflict  = dbcore.ErrConflict
	ErrInvalid   = dbcore.ErrInvalid
	ErrForbidden = dbcore.ErrForbidden
	// ErrUnavailable is the database out of reach (restarting, down, connections lost): not the
	// request's fault, and the same request may succeed in a moment.
	ErrUnavailable = dbcore.ErrUnavailable
)

// IsUnavailable reports an error of kind ErrUnavailable, or a driver's error that would be one (a lost
// or refused connection met outside the store's translating queries).
func IsUnavailable(err error) bool { return dbcore.IsUnavailable(err) }

// Error is a refusal with a message meant for the caller; Kind is one of the sentinel errors above.
// Errors translated from PostgreSQL also keep the violated constraint and the driver's error.
type Error = dbcore.Error

// The short names the store's files use for the shared plumbing.
var (
	invalid    = dbcore.Invalid
	conflict   = dbcore.Conflict
	notFound   = dbcore.NotFound
	isNotFound = dbcore.IsNotFound
	wrap       = dbcore.Wrap
)

// queries returns the generated queries on conn, with every error translated.
func queries(conn dbsqlc.DBTX) *dbsqlc.Queries { return dbcore.Queries(conn) }

// orNotFound answers a single-row read: its row, or a refusal saying notFoundMsg when there is none.
func orNotFound[T any](row T, err error) func(notFoundMsg, what string) (T, error) {
	return dbcore.OrNotFound(row, err)
}

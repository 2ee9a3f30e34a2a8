package board

import (
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// The short names the board's files use for the store's shared plumbing.
var (
	invalid      = dbcore.Invalid
	forbidden    = dbcore.Forbidden
	conflict     = dbcore.Conflict
	notFound     = dbcore.NotFound
	isUnique     = dbcore.IsUnique
	isMissingRef = dbcore.IsMissingRef
	isNotFound   = dbcore.IsNotFound
	wrap         = dbcore.Wrap
)

// queries returns the generated queries on conn, with every error translated.
func queries(conn dbsqlc.DBTX) *dbsqlc.Queries { return dbcore.Queries(conn) }

// orNotFound answers a single-row read: its row, or a refusal saying notFoundMsg when there is none.
func orNotFound[T any](row T, err error) func(notFoundMsg, what string) (T, error) {
	return dbcore.OrNotFound(row, err)
}

func mapRows[R, T any](rows []R, f func(R) T) []T { return dbcore.MapRows(rows, f) }

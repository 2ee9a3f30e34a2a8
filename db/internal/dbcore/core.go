package dbcore

import (
	"context"
	"math"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// NewID returns a new time-ordered identifier (UUIDv7) as a string.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// Core is what the store and every engine hold: the pool, the River client that enqueues in their
// transactions (insert-only in the api, working in the worker), and the generated queries on the pool.
type Core struct {
	Pool  *pgxpool.Pool
	River *river.Client[pgx.Tx]
	Q     *dbsqlc.Queries
}

// New builds the core on dbPool. riverClient may be insert-only or working (or nil for a store that
// never enqueues, such as `pilot keys rotate`).
func New(dbPool *pgxpool.Pool, riverClient *river.Client[pgx.Tx]) *Core {
	return &Core{Pool: dbPool, River: riverClient, Q: Queries(dbPool)}
}

// InTx runs fn in a transaction with the generated queries bound to it, committing when fn returns nil
// and rolling back otherwise. A lost connection while beginning or committing is ErrUnavailable.
func (c *Core) InTx(ctx context.Context, fn func(tx pgx.Tx, q *dbsqlc.Queries) error) error {
	return Unavailable(pgx.BeginFunc(ctx, c.Pool, func(tx pgx.Tx) error {
		return fn(tx, Queries(tx))
	}))
}

// InSnapshot runs fn in a read-only REPEATABLE READ transaction: every query fn makes sees the same
// snapshot, so a read made of several queries is consistent.
func (c *Core) InSnapshot(ctx context.Context, fn func(q *dbsqlc.Queries) error) error {
	return Unavailable(pgx.BeginTxFunc(ctx, c.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			return fn(Queries(tx))
		}))
}

// Enqueue inserts jobs through River in the caller's transaction: they become visible with the
// change, and River notifies the workers of their queues on commit.
func (c *Core) Enqueue(ctx context.Context, tx pgx.Tx, params []river.InsertManyParams) error {
	if len(params) == 0 {
		return nil
	}
	if _, err := c.River.InsertManyTx(ctx, tx, params); err != nil {
		return Wrap(err, "enqueue jobs")
	}
	return nil
}

// MapRows converts generated rows into the store's type.
func MapRows[R, T any](rows []R, f func(R) T) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}

// Optional is s as a nullable column's value: nil when empty.
func Optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Int32 is n as an int4 query parameter (a limit, a count, a depth), clamped to int32's range rather
// than wrapped: a limit past it still means "as many as there are", never a small or negative one.
func Int32(n int) int32 {
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	if n < math.MinInt32 {
		return math.MinInt32
	}
	return int32(n)
}

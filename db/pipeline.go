package db

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// pipeline sends the queries fn makes as one batch, in one round trip, in the transaction tx.
//
// fn runs twice with the generated queries: first they only queue (every result is empty), then they
// read the batch's results in the same order, so sqlc's generated code both queues and scans. fn must
// therefore make the same calls both times and may not base a query on an earlier query's result (ids
// are made in Go for that reason).
func pipeline(ctx context.Context, tx pgx.Tx, fn func(q *dbsqlc.Queries) error) error {
	b := &pgx.Batch{}
	if err := fn(dbsqlc.New(queuer{b})); err != nil {
		return err
	}
	br := tx.SendBatch(ctx, b)
	err := fn(queries(replayer{br}))
	closeErr := br.Close() // reads what fn left unread; reports a failure fn did not see
	if err != nil {
		return err
	}
	return interpret(closeErr)
}

// queuer queues queries into a batch and answers each with an empty result.
type queuer struct{ b *pgx.Batch }

func (q queuer) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	q.b.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

func (q queuer) Query(_ context.Context, sql string, args ...any) (pgx.Rows, error) {
	q.b.Queue(sql, args...)
	return emptyRows{}, nil
}

func (q queuer) QueryRow(_ context.Context, sql string, args ...any) pgx.Row {
	q.b.Queue(sql, args...)
	return emptyRow{}
}

type emptyRow struct{}

func (emptyRow) Scan(...any) error { return nil }

type emptyRows struct{}

func (emptyRows) Close()                                       {}
func (emptyRows) Err() error                                   { return nil }
func (emptyRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (emptyRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (emptyRows) Next() bool                                   { return false }
func (emptyRows) Scan(...any) error                            { return nil }
func (emptyRows) Values() ([]any, error)                       { return nil, nil }
func (emptyRows) RawValues() [][]byte                          { return nil }
func (emptyRows) Conn() *pgx.Conn                              { return nil }
func (emptyRows) TypeMap() *pgtype.Map                         { return nil }

// replayer answers each query with the next result of a sent batch.
type replayer struct{ br pgx.BatchResults }

func (r replayer) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return r.br.Exec()
}
func (r replayer) Query(context.Context, string, ...any) (pgx.Rows, error) { return r.br.Query() }
func (r replayer) QueryRow(context.Context, string, ...any) pgx.Row        { return r.br.QueryRow() }

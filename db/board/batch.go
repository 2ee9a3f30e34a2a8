package board

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// batchSender is where a batch is sent: a transaction, or the pool.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// sendBatch sends the queries fn makes as one batch, in one round trip, on conn: inside the transaction
// conn is, or, sent on the pool, in a transaction the batch begins with its first statement (pgx's
// Batch.BeginTx saves the round trip of a BEGIN of its own). That transaction is returned open for the
// caller to add to and commit; when sendBatch fails it has rolled it back.
//
// fn runs twice with the generated queries: first they only queue (every result is empty), then they
// read the batch's results in the same order, so sqlc's generated code both queues and scans. fn must
// therefore make the same calls both times and may not base a query on an earlier query's result (ids
// are made in Go for that reason).
func sendBatch(ctx context.Context, conn batchSender, fn func(q *dbsqlc.Queries) error) (began pgx.Tx, err error) {
	b := &pgx.Batch{}
	if _, pooled := conn.(*pgxpool.Pool); pooled {
		b.BeginTx(pgx.TxOptions{})
	}
	if err := fn(dbsqlc.New(queuer{b})); err != nil {
		return nil, err
	}
	br := conn.SendBatch(ctx, b)
	began = br.Tx()
	if began != nil {
		_, err = br.Exec() // the BEGIN's result comes first
	}
	if err == nil {
		err = fn(dbcore.Queries(replayer{br}))
	}
	closeErr := br.Close() // reads what fn left unread; reports a failure fn did not see
	if err == nil {
		err = dbcore.Interpret(closeErr)
	}
	if err != nil && began != nil {
		_ = began.Rollback(context.WithoutCancel(ctx))
		began = nil
	}
	return began, err
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

package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// JobQueueState counts one queue's jobs in one state, for the worker's metrics.
type JobQueueState struct {
	Queue string
	State string // available, running, retryable or scheduled
	Jobs  int64
	// OldestAvailable is the age of the queue's oldest available job (state available only; zero
	// otherwise): how long it has been ready without a worker taking it.
	OldestAvailable time.Duration
}

// jobQueueStatsSQL reads River's own table, read-only, for metrics only: River has no count API (its
// JobList pages through rows), and its table is not in the schema sqlc generates from (River migrates
// it itself), so the query is written here. It groups the unfinished jobs by queue and state, served
// by River's (state, queue, priority, scheduled_at, id) index; finished jobs are not read. Jobs are
// still only ever inserted and changed through River's API.
const jobQueueStatsSQL = `SELECT queue, state::text, count(*),
       CASE WHEN state = 'available' THEN greatest(extract(epoch FROM now() - min(scheduled_at)), 0) ELSE 0 END::float8
FROM river_job
WHERE state IN ('available', 'running', 'retryable', 'scheduled')
GROUP BY queue, state`

// JobQueueStats counts the unfinished jobs of each queue by state, with the age of each queue's oldest
// available job. It only reads. Queues without unfinished jobs are absent.
func (s *Store) JobQueueStats(ctx context.Context) ([]JobQueueState, error) {
	rows, err := s.core.Pool.Query(ctx, jobQueueStatsSQL)
	if err != nil {
		return nil, wrap(dbcore.Interpret(err), "count queued jobs")
	}
	stats, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (JobQueueState, error) {
		var st JobQueueState
		var age float64
		err := row.Scan(&st.Queue, &st.State, &st.Jobs, &age)
		st.OldestAvailable = time.Duration(age * float64(time.Second))
		return st, err
	})
	if err != nil {
		return nil, wrap(dbcore.Interpret(err), "read queued jobs")
	}
	return stats, nil
}

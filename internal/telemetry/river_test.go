package telemetry

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// outcomeArgs is a job that ends as its Outcome says.
type outcomeArgs struct {
	Outcome string `json:"outcome"`
}

func (outcomeArgs) Kind() string { return "telemetry_outcome" }

type outcomeWorker struct {
	river.WorkerDefaults[outcomeArgs]
	logger *slog.Logger
}

func (w *outcomeWorker) Work(ctx context.Context, job *river.Job[outcomeArgs]) error {
	w.logger.InfoContext(ctx, "working", "outcome", job.Args.Outcome)
	switch job.Args.Outcome {
	case "errored", "failed":
		return errors.New("boom")
	case "cancelled":
		return river.JobCancel(errors.New("no longer wanted"))
	case "snoozed":
		return river.JobSnooze(time.Hour)
	case "panicked":
		panic("worker bug")
	}
	return nil
}

// TestJobMetricsRequestIDAndSpans inserts jobs through an insert-only client inside a request's context,
// as the api does, works them with a worker client, as the worker process does, and checks what each
// attempt leaves: a sample per outcome, the request id in the job's metadata and its log lines, and a
// work span linked to the insert span.
func TestJobMetricsRequestIDAndSpans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbPool := pgtest.Pool(t)
	exporter := tracetest.NewInMemoryExporter()
	tr, err := NewTracing(ctx, TracingConfig{Service: "pilot-test", Exporter: exporter})
	require.NoError(t, err)
	m := NewMetrics(nil)

	inserter, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{Middleware: RiverMiddleware(nil, tr)})
	require.NoError(t, err)
	var logs logBuffer
	logger := slog.New(NewLogHandler(slog.NewJSONHandler(&logs, nil)))
	workers := river.NewWorkers()
	river.AddWorker(workers, &outcomeWorker{logger: logger})
	worker, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{
		Queues:     map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}},
		Workers:    workers,
		Logger:     slog.New(slog.DiscardHandler), // River's own line about the panic
		Middleware: RiverMiddleware(m, tr),
	})
	require.NoError(t, err)
	events, cancel := worker.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled,
		river.EventKindJobSnoozed)
	defer cancel()

	reqCtx := WithRequestID(ctx, "req-jobs-1")
	outcomes := []string{"completed", "errored", "failed", "cancelled", "snoozed", "panicked"}
	for _, o := range outcomes {
		maxAttempts := 5
		if o == "failed" {
			maxAttempts = 1
		}
		_, err := inserter.Insert(reqCtx, outcomeArgs{Outcome: o}, &river.InsertOpts{MaxAttempts: maxAttempts})
		require.NoError(t, err)
	}
	var inserted []string
	rows, err := dbPool.Query(ctx, `SELECT metadata->>'requestId' FROM river_job WHERE kind = 'telemetry_outcome'`)
	require.NoError(t, err)
	inserted, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"req-jobs-1", "req-jobs-1", "req-jobs-1", "req-jobs-1", "req-jobs-1", "req-jobs-1"},
		inserted, "the request id is in every job's metadata")

	require.NoError(t, worker.Start(ctx))
	defer func() {
		stopCtx, stop := context.WithTimeout(ctx, 10*time.Second)
		defer stop()
		require.NoError(t, worker.Stop(stopCtx))
	}()
	for range outcomes {
		select {
		case <-events:
		case <-time.After(20 * time.Second):
			t.Fatal("the jobs were not worked")
		}
	}

	for _, o := range outcomes {
		labels := map[string]string{"kind": "telemetry_outcome", "queue": "default", "outcome": o}
		requireSample(t, m.Registry, "pilot_river_jobs_total", labels, 1)
		requireSample(t, m.Registry, "pilot_river_job_duration_seconds", labels, 1)
	}

	lines := logs.lines(t)
	require.Len(t, lines, len(outcomes), "one line per job")
	for _, l := range lines {
		require.Equal(t, "req-jobs-1", l["requestId"], "a job's log lines carry the request id: %v", l)
		require.NotEmpty(t, l["traceId"], "and its trace id: %v", l)
	}

	var inserts, works []tracetest.SpanStub
	for _, s := range exporter.GetSpans() {
		switch s.Name {
		case "river.insert_many":
			inserts = append(inserts, s)
		case "river.work/telemetry_outcome":
			works = append(works, s)
		}
	}
	require.Len(t, inserts, len(outcomes))
	require.Len(t, works, len(outcomes))
	insertSpans := map[trace.SpanID]bool{}
	for _, s := range inserts {
		insertSpans[s.SpanContext.SpanID()] = true
	}
	for _, s := range works {
		require.Equal(t, trace.SpanKindConsumer, s.SpanKind)
		require.Len(t, s.Links, 1)
		require.True(t, insertSpans[s.Links[0].SpanContext.SpanID()], "a work span links to the span that inserted the job")
	}
}

// TestQueueAndPoolCollectors reads queue depth, the oldest available job's age and the pool's stats at
// scrape time.
func TestQueueAndPoolCollectors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbPool := pgtest.Pool(t)
	client, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{})
	require.NoError(t, err)
	store := engines.New(dbPool, client, engines.Options{}).Store
	m := NewMetrics(nil)
	m.WatchQueues(QueueSourceFunc(func(ctx context.Context) ([]QueueState, error) {
		stats, err := store.JobQueueStats(ctx)
		out := make([]QueueState, len(stats))
		for i, s := range stats {
			out[i] = QueueState(s)
		}
		return out, err
	}), []string{"default", "idle"})
	m.WatchPool(dbPool)

	for _, q := range []string{"default", "idle"} {
		requireSample(t, m.Registry, "pilot_river_queue_jobs", map[string]string{"queue": q, "state": "available"}, 0)
		requireSample(t, m.Registry, "pilot_river_queue_oldest_available_age_seconds", map[string]string{"queue": q}, 0)
	}

	for range 3 {
		_, err := client.Insert(ctx, outcomeArgs{}, &river.InsertOpts{Queue: "busy"})
		require.NoError(t, err)
	}
	// As if they had waited an hour (an insert with a past ScheduledAt is "scheduled" until River's
	// scheduler makes it available).
	_, err = dbPool.Exec(ctx, `UPDATE river_job SET scheduled_at = now() - interval '1 hour' WHERE queue = 'busy'`)
	require.NoError(t, err)
	_, err = client.Insert(ctx, outcomeArgs{}, &river.InsertOpts{Queue: "busy", ScheduledAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)

	requireSample(t, m.Registry, "pilot_river_queue_jobs", map[string]string{"queue": "busy", "state": "available"}, 3)
	requireSample(t, m.Registry, "pilot_river_queue_jobs", map[string]string{"queue": "busy", "state": "scheduled"}, 1)
	requireSample(t, m.Registry, "pilot_river_queue_jobs", map[string]string{"queue": "busy", "state": "running"}, 0)
	age, ok := sample(t, m.Registry, "pilot_river_queue_oldest_available_age_seconds", map[string]string{"queue": "busy"})
	require.True(t, ok)
	require.InDelta(t, time.Hour.Seconds(), age, 60, "the oldest available job has waited an hour")
	requireSample(t, m.Registry, "pilot_river_queue_jobs", map[string]string{"queue": "default", "state": "available"}, 0)

	acquires, ok := sample(t, m.Registry, "pilot_db_pool_acquires_total", nil)
	require.True(t, ok)
	require.Positive(t, acquires, "the scrape's own query acquired a connection")
	_, err = dbPool.Exec(ctx, "SELECT 1")
	require.NoError(t, err)
	after, _ := sample(t, m.Registry, "pilot_db_pool_acquires_total", nil)
	require.Greater(t, after, acquires)
	requireSample(t, m.Registry, "pilot_db_pool_max_connections", nil, float64(dbPool.Config().MaxConns))
	_, ok = sample(t, m.Registry, "pilot_db_pool_idle_connections", nil)
	require.True(t, ok)

	// A queue query that fails leaves the queue figures out of the scrape, not the rest.
	dbPool.Close()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "pilot_db_pool_acquires_total ")
	require.NotContains(t, string(body), "pilot_river_queue_jobs{")
}

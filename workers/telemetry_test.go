package workers

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/telemetry"
	"github.com/pilot-dev/pilot/jobs"
)

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestJobLogsCarryRequestID works a job enqueued by a request, as the worker process does (NewClient
// with telemetry's middleware, started): the worker's log line carries the request's id, and the job
// is counted by kind, queue and outcome.
func TestJobLogsCarryRequestID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbPool := pgtest.Pool(t)
	var logs syncBuffer
	metrics := telemetry.NewMetrics(nil)
	client, _, err := NewClient(dbPool, Config{Concurrency: 2, Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		PollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
		Middleware: telemetry.RiverMiddleware(metrics, nil)})
	require.NoError(t, err)
	done, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	require.NoError(t, client.Start(ctx))
	defer func() {
		stopCtx, stop := context.WithTimeout(ctx, 10*time.Second)
		defer stop()
		require.NoError(t, client.Stop(stopCtx))
	}()

	// The api's insert, in the request's context (the api's client has the same middleware).
	_, err = client.Insert(telemetry.WithRequestID(ctx, "req-mail-9"), jobs.SendEmailArgs{Topic: "test", RefID: db.NewID(),
		To: "bob@example.com", Subject: "Hello", Body: "Hi"}, &river.InsertOpts{Queue: jobs.QueueEmail})
	require.NoError(t, err)
	deadline := time.After(20 * time.Second)
	for worked := false; !worked; {
		select {
		case ev := <-done:
			if ev.Job.Kind != (jobs.SendEmailArgs{}).Kind() {
				continue
			}
			require.Equal(t, river.EventKindJobCompleted, ev.Kind, "errors: %v", ev.Job.Errors)
			worked = true
		case <-deadline:
			t.Fatal("the e-mail job was not worked")
		}
	}

	var line map[string]any
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "e-mail kept in outbox") {
			require.NoError(t, json.Unmarshal([]byte(l), &line))
		}
	}
	require.NotNil(t, line, "the worker logged the e-mail: %s", logs.String())
	require.Equal(t, "req-mail-9", line["requestId"], "the job's log line carries the request id")

	families, err := metrics.Registry.Gather()
	require.NoError(t, err)
	var completed float64
	for _, f := range families {
		if f.GetName() != "pilot_river_jobs_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["kind"] == "send_email" && labels["queue"] == jobs.QueueEmail && labels["outcome"] == "completed" {
				completed = m.GetCounter().GetValue()
			}
		}
	}
	require.Equal(t, 1.0, completed)
}

package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// BenchmarkPickupLatency measures how long a card change's notification job waits for a worker: from
// the moment the change has committed (CreateCard returned) to the moment a worker fetched its job
// (the job row's attempted_at, set by River's fetch). The api side is an insert-only client and the
// worker a working client, each configured as `pilot api` and `pilot worker` are by default, on one
// database. Changes are made one at a time, with a pause between them (PACE) so that both isolated
// changes and bursts within the notification cooldown are seen. Run with `make bench/jobs`.
func BenchmarkPickupLatency(b *testing.B) {
	for _, pace := range []time.Duration{50 * time.Millisecond, 5 * time.Millisecond} {
		b.Run(fmt.Sprintf("pace=%s", pace), func(b *testing.B) { benchPickup(b, pace, 400) })
	}
}

func benchPickup(b *testing.B, pace time.Duration, changes int) {
	ctx := context.Background()
	dbPool := pgtest.Pool(b)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	const cooldown = 10 * time.Millisecond // JOB_FETCH_COOLDOWN's default
	apiRiver, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{Logger: logger, FetchCooldown: cooldown})
	if err != nil {
		b.Fatal(err)
	}
	apiEng := engines.New(dbPool, apiRiver, engines.Options{})
	workerRiver, _, err := NewClient(dbPool, Config{Concurrency: 20, Logger: logger, FetchCooldown: cooldown,
		PollInterval: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	started := make(map[string]time.Time) // activity id → when a worker fetched its job
	var mu sync.Mutex
	events, cancel := workerRiver.Subscribe(river.EventKindJobCompleted)
	defer cancel()
	go func() {
		for ev := range events {
			if ev.Job.Kind != (jobs.NotifyActivityArgs{}).Kind() || ev.Job.AttemptedAt == nil {
				continue
			}
			var args jobs.NotifyActivityArgs
			if err := json.Unmarshal(ev.Job.EncodedArgs, &args); err != nil {
				continue
			}
			mu.Lock()
			started[args.ActivityID] = *ev.Job.AttemptedAt
			mu.Unlock()
		}
	}()
	if err := workerRiver.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = workerRiver.Stop(ctx) }()

	reg := testfactory.User(b, apiEng, &testfactory.UserOpts{Email: testfactory.Ptr("bench@example.com")})
	prj := testfactory.NewProject(b, apiEng, reg, &testfactory.ProjectOpts{Name: testfactory.Ptr("pickup")})
	committed := make(map[string]time.Time, changes) // card id → when its create returned
	for b.Loop() {
		clear(committed)
		for i := range changes {
			card, err := apiEng.Board.CreateCard(ctx, board.NewCard{WorkspaceID: reg.Workspace.ID, ProjectID: prj.ID,
				ActorID: reg.User.ID, Title: fmt.Sprintf("card %d", i)})
			if err != nil {
				b.Fatal(err)
			}
			committed[card.ID] = time.Now()
			time.Sleep(pace) // the pace of changes is what is measured against, not a wait for a result
		}
	}
	b.StopTimer()
	// Map each card to its activity, then wait (bounded) for every job to have run.
	activity := make(map[string]string, len(committed))
	rows, err := dbPool.Query(ctx,
		`SELECT id::text, card_id::text FROM activities WHERE type = 'card_created' AND card_id = ANY($1::uuid[])`,
		mapKeys(committed))
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id, card string
		if err := rows.Scan(&id, &card); err != nil {
			b.Fatal(err)
		}
		activity[card] = id
	}
	if rows.Err() != nil {
		b.Fatal(rows.Err())
	}
	deadline := time.Now().Add(30 * time.Second)
	var lat []time.Duration
	for {
		mu.Lock()
		lat = lat[:0]
		for card, at := range committed {
			if s, ok := started[activity[card]]; ok {
				lat = append(lat, max(s.Sub(at), 0))
			}
		}
		mu.Unlock()
		if len(lat) == len(committed) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(lat) != len(committed) {
		b.Fatalf("%d of %d notification jobs ran", len(lat), len(committed))
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50_ms")
	b.ReportMetric(q(0.99), "p99_ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max_ms")
	b.ReportMetric(0, "ns/op")
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

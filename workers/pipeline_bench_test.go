package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// BenchmarkPipelineDiamond runs a 20-step diamond of notify steps (one step, 18 in parallel after it, one
// that needs them all) end to end: from the call that starts the run (the pipeline engine's StartRun) to the
// moment its done event's notification arrives, as the api's stream relay hears it. The api side is an insert-only
// client and the worker a working client, each with its own pool, configured as `make run` runs them
// (WORKER_CONCURRENCY=20, DATABASE_MAX_CONNS=20, WORKER_POLL_INTERVAL=1s, JOB_FETCH_COOLDOWN=10ms). Sub-benchmarks: one
// run at a time (latency per run), and 100 runs started at once (time until every one finished). The
// workspace has two members, so every notify step's notification fans out. Run with
// `make bench/pipelines`.
func BenchmarkPipelineDiamond(b *testing.B) {
	b.Run("one-run", func(b *testing.B) { benchDiamond(b, 1, 20) })
	b.Run("100-runs-at-once", func(b *testing.B) { benchDiamond(b, 100, 1) })
}

func benchDiamond(b *testing.B, concurrent, rounds int) {
	ctx := context.Background()
	url := pgtest.URL(b)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	const cooldown = 10 * time.Millisecond
	apiPool, err := db.OpenPool(ctx, url, 20)
	if err != nil {
		b.Fatal(err)
	}
	defer apiPool.Close()
	workerPool, err := db.OpenPool(ctx, url, 20)
	if err != nil {
		b.Fatal(err)
	}
	defer workerPool.Close()
	apiRiver, err := river.NewClient(riverpgxv5.New(apiPool), &river.Config{Logger: logger, FetchCooldown: cooldown})
	if err != nil {
		b.Fatal(err)
	}
	apiEng := engines.New(apiPool, apiRiver, engines.Options{})
	workerRiver, _, err := NewClient(workerPool, Config{Concurrency: 20, Logger: logger, FetchCooldown: cooldown,
		PollInterval: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	// A run is over for its watchers when its done event commits: its stream's notification (on the
	// relay's channel) then names the run and the done event's number, 22 for this graph (the start,
	// 20 steps, the end).
	listener, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer listener.Close(context.Background())
	if _, err := listener.Exec(ctx, "LISTEN "+db.StreamEventsChannel); err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	endSeen := map[string]time.Time{}
	wake := make(chan struct{}, 1)
	listenCtx, stopListening := context.WithCancel(ctx)
	defer stopListening()
	go func() {
		for {
			n, err := listener.WaitForNotification(listenCtx)
			if err != nil {
				return
			}
			runID, ok := strings.CutSuffix(n.Payload, ":22")
			if !ok {
				continue
			}
			mu.Lock()
			endSeen[runID] = time.Now()
			mu.Unlock()
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}()
	if err := workerRiver.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = workerRiver.Stop(ctx) }()

	owner := testfactory.User(b, apiEng, nil)
	pipelines := apiEng.Pipelines
	prj := testfactory.NewProject(b, apiEng, owner, &testfactory.ProjectOpts{Name: testfactory.Ptr("bench")})
	testfactory.Join(b, apiEng, owner, testfactory.User(b, apiEng,
		&testfactory.UserOpts{Email: testfactory.Ptr("member@example.com")}))
	notify := func(id string, needs ...string) map[string]any {
		return map[string]any{"id": id, "type": "notify", "params": map[string]any{"projectId": prj.ID,
			"message": "step " + id}, "needs": needs}
	}
	steps := []map[string]any{notify("start")}
	var middle []string
	for i := range 18 {
		id := fmt.Sprintf("m%02d", i)
		steps = append(steps, notify(id, "start"))
		middle = append(middle, id)
	}
	steps = append(steps, notify("end", middle...))
	raw, _ := json.Marshal(steps)
	p, err := pipelines.CreatePipeline(ctx, owner.Workspace.ID, owner.User.ID, pipeline.NewPipeline{Name: "diamond",
		Steps: raw, Enabled: true})
	if err != nil {
		b.Fatal(err)
	}

	var lat []time.Duration
	var batch []time.Duration
	for b.Loop() {
		for range rounds {
			started := make(map[string]time.Time, concurrent)
			var smu sync.Mutex
			var wg sync.WaitGroup
			t0 := time.Now()
			for range concurrent {
				wg.Go(func() {
					r, err := pipelines.StartRun(ctx, db.RecordEdit{WorkspaceID: owner.Workspace.ID, ID: p.ID, ActorID: owner.User.ID})
					if err != nil {
						b.Error(err)
						return
					}
					smu.Lock()
					started[r.Run.ID] = time.Now()
					smu.Unlock()
				})
			}
			wg.Wait()
			deadline := time.After(2 * time.Minute)
			for {
				mu.Lock()
				n := 0
				for id := range started {
					if _, ok := endSeen[id]; ok {
						n++
					}
				}
				mu.Unlock()
				if n == len(started) {
					break
				}
				select {
				case <-wake:
				case <-time.After(time.Second):
				case <-deadline:
					b.Fatalf("%d of %d runs finished within 2 minutes", n, len(started))
				}
			}
			mu.Lock()
			last := t0
			for id := range started {
				lat = append(lat, endSeen[id].Sub(t0))
				if endSeen[id].After(last) {
					last = endSeen[id]
				}
			}
			mu.Unlock()
			batch = append(batch, last.Sub(t0))
		}
	}
	b.StopTimer()
	var notDone, stepsDone int
	if err := workerPool.QueryRow(ctx,
		`SELECT count(*) FILTER (WHERE status <> 'completed') FROM pipeline_runs`).Scan(&notDone); err != nil {
		b.Fatal(err)
	}
	if err := workerPool.QueryRow(ctx,
		`SELECT count(*) FROM pipeline_run_steps WHERE status = 'completed'`).Scan(&stepsDone); err != nil {
		b.Fatal(err)
	}
	if notDone > 0 {
		b.Fatalf("%d runs did not complete", notDone)
	}
	slices.Sort(lat)
	slices.Sort(batch)
	q := func(d []time.Duration, p float64) float64 {
		return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(q(lat, 0.50), "run_p50_ms")
	b.ReportMetric(q(lat, 0.99), "run_p99_ms")
	b.ReportMetric(q(batch, 1), "all_done_max_ms")
	b.ReportMetric(float64(stepsDone), "steps_completed")
	b.ReportMetric(0, "ns/op")
}

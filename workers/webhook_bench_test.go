package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// BenchmarkWebhookDelivery measures webhook deliveries end to end, from the commit of a card create (the
// store's CreateCard returning) to the request's arrival at a local receiver (an httptest server), with
// the api side an insert-only client and the worker a working client on pools of their own, as `make run`
// runs them (WORKER_CONCURRENCY=20, so 20 webhook slots; JOB_FETCH_COOLDOWN=10ms). Sub-benchmarks:
// latency (200 creates one after another: p50, p99), burst (10,000 creates from 16 clients: every
// delivery arrives, none twice), and receiver-down (the receiver drops every connection for 60 s while
// 1,000 creates are made, then answers again: every delivery arrives, none twice). Run with
// `make bench/webhooks`; figures in docs/webhooks.md.
func BenchmarkWebhookDelivery(b *testing.B) {
	b.Run("latency", func(b *testing.B) { benchWebhooks(b, 200, 1, 0) })
	b.Run("burst-10000", func(b *testing.B) { benchWebhooks(b, 10000, 16, 0) })
	b.Run("receiver-down-60s", func(b *testing.B) { benchWebhooks(b, 1000, 4, 60*time.Second) })
}

// webhookReceiver records the first successful arrival of each webhook-id and counts repeats.
type webhookReceiver struct {
	mu      sync.Mutex
	arrived map[string]time.Time // card id → first arrival
	seen    map[string]int       // webhook-id → successful arrivals
	down    atomic.Bool
	wake    chan struct{}
}

func (r *webhookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if r.down.Load() {
		// Down: the connection drops without an answer, as a receiver that crashed.
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	body, _ := io.ReadAll(req.Body)
	var p struct {
		Data struct {
			CardID string `json:"cardId"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &p)
	now := time.Now()
	r.mu.Lock()
	r.seen[req.Header.Get(webhook.HeaderID)]++
	if _, ok := r.arrived[p.Data.CardID]; !ok {
		r.arrived[p.Data.CardID] = now
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

func benchWebhooks(b *testing.B, n, clients int, downFor time.Duration) {
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
	if err := workerRiver.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = workerRiver.Stop(ctx) }()

	rcv := &webhookReceiver{arrived: map[string]time.Time{}, seen: map[string]int{}, wake: make(chan struct{}, 1)}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	owner := testfactory.User(b, apiEng, nil)
	prj := testfactory.NewProject(b, apiEng, owner, &testfactory.ProjectOpts{Name: testfactory.Ptr("bench")})
	if _, err := apiEng.Webhooks.Create(ctx, owner.Workspace.ID, owner.User.ID,
		webhook.Fields{URL: srv.URL, Events: []webhook.EventType{"card_created"}, Enabled: true}); err != nil {
		b.Fatal(err)
	}

	for b.Loop() {
		clear(rcv.arrived)
		clear(rcv.seen)
		rcv.down.Store(downFor > 0)
		committed := make(map[string]time.Time, n)
		var cmu sync.Mutex
		var next atomic.Int64
		var wg sync.WaitGroup
		t0 := time.Now()
		for range clients {
			wg.Go(func() {
				for next.Add(1) <= int64(n) {
					c, err := apiEng.Board.CreateCard(ctx, board.NewCard{WorkspaceID: prj.WorkspaceID, ProjectID: prj.ID,
						ColumnID: prj.Columns[0], ActorID: owner.User.ID, Title: "Card"})
					if err != nil {
						b.Error(err)
						return
					}
					at := time.Now()
					cmu.Lock()
					committed[c.ID] = at
					cmu.Unlock()
				}
			})
		}
		wg.Wait()
		created := time.Since(t0)
		if downFor > 0 {
			time.Sleep(time.Until(t0.Add(downFor)))
			rcv.down.Store(false)
		}
		back := time.Now()
		deadline := time.After(10 * time.Minute)
		for {
			rcv.mu.Lock()
			got := len(rcv.arrived)
			rcv.mu.Unlock()
			if got >= n {
				break
			}
			select {
			case <-rcv.wake:
			case <-time.After(time.Second):
			case <-deadline:
				b.Fatalf("%d of %d deliveries arrived in 10 minutes", got, n)
			}
		}
		all := time.Since(t0)
		// The last attempts are recorded just after their request arrived.
		for range 100 {
			var pending int
			_ = apiPool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`).Scan(&pending)
			if pending == 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		rcv.mu.Lock()
		var lat []time.Duration
		lost := 0
		for id, at := range committed {
			arr, ok := rcv.arrived[id]
			if !ok {
				lost++
				continue
			}
			lat = append(lat, arr.Sub(at))
		}
		dups := 0
		for _, k := range rcv.seen {
			dups += k - 1
		}
		rcv.mu.Unlock()
		slices.Sort(lat)
		pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(float64(len(lat))*p))] }
		b.ReportMetric(float64(pct(0.50).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(lost), "lost")
		b.ReportMetric(float64(dups), "duplicate-ids")
		b.ReportMetric(all.Seconds(), "all-delivered-s")
		var attempts, maxAttempts int
		_ = apiPool.QueryRow(ctx,
			`SELECT coalesce(sum(attempts), 0), coalesce(max(attempts), 0) FROM webhook_deliveries`).Scan(&attempts,
			&maxAttempts)
		fmt.Printf("%s: %d creates in %s (%.0f/s); all %d delivered %s after the first create", b.Name(), n,
			created.Round(time.Millisecond), float64(n)/created.Seconds(), n, all.Round(time.Millisecond))
		if downFor > 0 {
			fmt.Printf(", %s after the receiver came back", time.Since(back).Round(time.Millisecond))
		}
		fmt.Printf("; commit→arrival p50 %s p99 %s; lost %d, duplicate webhook-ids %d; %d attempts (at most %d for one "+
			"delivery)\n",
			pct(0.50).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond), lost, dups, attempts, maxAttempts)
		if _, err := apiPool.Exec(ctx, `DELETE FROM webhook_deliveries`); err != nil {
			b.Fatal(err)
		}
	}
}

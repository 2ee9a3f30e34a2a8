package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/pilotage"
	"github.com/pilot-dev/pilot/db/transfer"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// Benchmark sizes: a workspace of 200 projects and 50,000 cards, read by 8 clients at once (the target:
// the dashboard and the portfolio answer with p99 under 50 ms; docs/pilotage.md).
const (
	benchProjects    = 200
	benchCards       = 50_000
	benchClients     = 8
	benchRequests    = 800 // per endpoint, spread over the clients
	benchSerial      = 100 // per endpoint, one client: the cost of one request without queueing
	benchWarmRequest = 100
)

// BenchmarkPilotageReads measures GET WS/pilotage/dashboard and WS/pilotage/portfolio (and the state)
// on workspaces of 200 projects and 50,000 cards, driving the real handler in process (no network), and
// reports p50 and p99 latency. Figures, never pass/fail:
//
//	make bench/pilotage
//
// Two shapes at 8 clients: all 8 read one workspace (the target's shape: concurrent reads of it are
// shared, see internal/coalesce), and each of the 8 reads its own workspace (nothing can be shared: the
// cost of the queries themselves under load).
func BenchmarkPilotageReads(b *testing.B) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.URL(b))
	require.NoError(b, err)
	cfg.MaxConns = 2 * benchClients
	dbPool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(b, err)
	b.Cleanup(dbPool.Close)
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{})
	require.NoError(b, err)
	eng := engines.New(dbPool, riverClient, engines.Options{})
	h := New(eng, testSigner(testJWTSecret, 7*24*time.Hour), billing.Local{PublicURL: "http://pilot.test"},
		slog.New(slog.NewTextHandler(io.Discard, nil)), Options{PublicURL: "http://pilot.test", LoginRateLimit: 1000,
			RegisterRateLimit: 1000})

	// One workspace per client, each of 200 projects and 50,000 cards.
	type tenant struct{ base, token string }
	tenants := make([]tenant, benchClients)
	seedStart := time.Now()
	for i := range tenants {
		reg := testfactory.User(b, eng, &testfactory.UserOpts{Email: testfactory.Ptr(fmt.Sprintf("bench%d@example.com", i)),
			Name: testfactory.Ptr("Bench")})
		seedPilotageBench(b, eng, reg.Workspace.ID, reg.User.ID)
		tenants[i] = tenant{base: "/orgs/" + reg.Organization.Slug + "/workspaces/" + reg.Workspace.Slug + "/pilotage",
			token: sessionToken(b, eng.Identity, testJWTSecret, reg.User.ID, reg.User.SessionVersion, 7*24*time.Hour)}
	}
	var cards int
	require.NoError(b, dbPool.QueryRow(ctx, `SELECT count(*) FROM cards`).Scan(&cards))
	b.Logf("seeded %d workspaces of %d projects, %d cards in all, in %s", len(tenants), benchProjects, cards,
		time.Since(seedStart).Round(time.Second))
	// As the worker's periodic fold leaves the per-column counts: one row per column.
	_, err = eng.Board.FoldColumnCounts(ctx)
	require.NoError(b, err)
	// As autovacuum leaves a table at rest: statistics and the visibility map (index-only scans).
	for _, table := range []string{"cards", "checklist_items", "columns", "column_card_counts", "projects", "activities"} {
		_, err := dbPool.Exec(ctx, "VACUUM ANALYZE "+table)
		require.NoError(b, err)
	}

	b.ResetTimer()
	for range b.N {
		for _, ep := range []string{"/dashboard", "/portfolio", "/state"} {
			for _, shape := range []struct {
				name    string
				clients int
				own     bool // each client reads its own workspace
			}{{"1 client", 1, false}, {"8 clients, one workspace", benchClients, false}, {"8 clients, 8 workspaces",
				benchClients, true}} {
				n := benchSerial
				if shape.clients > 1 {
					n = benchRequests
				}
				lat := benchLoad(b, h, func(client int) (string, string) {
					t := tenants[0]
					if shape.own {
						t = tenants[client]
					}
					return t.base + ep, t.token
				}, shape.clients, n)
				slices.Sort(lat)
				p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
				b.Logf("GET …/pilotage%s: %d requests, %s: p50 %s, p99 %s", ep, len(lat), shape.name,
					p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond))
				if shape.clients > 1 {
					unit := ep[1:]
					if shape.own {
						unit += "-apart"
					}
					b.ReportMetric(float64(p99.Microseconds())/1000, unit+"-p99-ms")
					b.ReportMetric(float64(p50.Microseconds())/1000, unit+"-p50-ms")
				}
			}
		}
	}
}

// benchLoad warms up, then sends n GETs from clients goroutines, client i sending the path and token
// that target gives it, and answers each request's latency.
func benchLoad(b *testing.B, h http.Handler,
	target func(client int) (path, token string), clients, n int) []time.Duration {
	one := func(client int) time.Duration {
		path, token := target(client)
		r := httptest.NewRequestWithContext(context.Background(), http.MethodGet, path, http.NoBody)
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, r)
		d := time.Since(start)
		if w.Code != http.StatusOK {
			panic(fmt.Sprintf("GET %s: %d %s", path, w.Code, w.Body.String()))
		}
		return d
	}
	for i := range benchWarmRequest {
		one(i % clients)
	}
	var (
		mu  sync.Mutex
		lat []time.Duration
		wg  sync.WaitGroup
	)
	for client := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, n/clients)
			for range n / clients {
				mine = append(mine, one(client))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return lat
}

// seedPilotageBench fills the workspace through the store: 200 projects of 250 cards (imported, with
// due dates, priorities, archived cards and checklists; one card per project created with its
// activity), and a cockpit of 50 missions, 20 priorities, 300 todos, 60 decisions and 150 actions.
func seedPilotageBench(b testing.TB, eng *engines.Engines, ws, actor string) {
	ctx := context.Background()
	perProject := benchCards / benchProjects
	past, future := time.Now().Add(-72*time.Hour), time.Now().Add(72*time.Hour)
	for p := range benchProjects {
		doc := transfer.TransferDoc{Version: 1, Project: transfer.TransferProject{Name: fmt.Sprintf("Project %03d", p)},
			Columns: []transfer.TransferColumn{{Name: "To do"}, {Name: "Doing"}, {Name: "Review"}, {Name: "Done"}}}
		for c := range perProject - 1 {
			card := transfer.TransferCard{Title: fmt.Sprintf("Card %d", c), ColumnIndex: c % 4,
				Priority: string(board.Priorities[c%3]), Archived: c%25 == 0}
			switch c % 5 {
			case 0:
				card.DueDate = &past
			case 1:
				card.DueDate = &future
			}
			if c%10 == 0 {
				card.Checklist = []transfer.TransferChecklistItem{{Title: "a", Done: true}, {Title: "b"}}
			}
			doc.Cards = append(doc.Cards, card)
		}
		prj, err := eng.Transfer.Import(ctx, ws, actor, doc)
		require.NoError(b, err)
		_, err = eng.Board.CreateCard(ctx, board.NewCard{WorkspaceID: ws, ProjectID: prj.ID, ActorID: actor,
			Title: "Live card"})
		require.NoError(b, err)
	}
	var missions, priorities []string
	for i := range 50 {
		in := pilotage.NewPilotageMission{WorkspaceID: ws, ActorID: actor, Objective: fmt.Sprintf("Mission %d", i),
			Status: pilotage.PilotageMissionStatuses[i%4]}
		if in.Status == "blocked" {
			r := "waiting"
			in.BlockedReason = &r
		}
		m, err := eng.Pilotage.CreateMission(ctx, in)
		require.NoError(b, err)
		missions = append(missions, m.ID)
	}
	for i := range 20 {
		p, err := eng.Pilotage.CreatePriority(ctx, pilotage.NewPilotagePriority{WorkspaceID: ws, ActorID: actor,
			Label: fmt.Sprintf("Priority %d", i)})
		require.NoError(b, err)
		priorities = append(priorities, p.ID)
	}
	for i := range 300 {
		due := past
		if i%2 == 0 {
			due = future
		}
		_, err := eng.Pilotage.CreateTodo(ctx, pilotage.NewPilotageTodo{WorkspaceID: ws, ActorID: actor,
			Label: fmt.Sprintf("Todo %d", i), Status: pilotage.PilotageTodoStatuses[i%4], MissionID: &missions[i%len(missions)],
			PriorityID: &priorities[i%len(priorities)], DueDate: &due})
		require.NoError(b, err)
	}
	for i := range 60 {
		_, err := eng.Pilotage.CreateDecision(ctx, pilotage.NewPilotageDecision{WorkspaceID: ws, ActorID: actor,
			Title: fmt.Sprintf("Decision %d", i)})
		require.NoError(b, err)
	}
	for i := range 150 {
		a, err := eng.Pilotage.ProposeAction(ctx, pilotage.NewPilotageAction{WorkspaceID: ws, ActorID: actor,
			ActionType: "note", Explanation: fmt.Sprintf("Action %d", i)})
		require.NoError(b, err)
		if i%3 == 0 {
			_, err = eng.Pilotage.ReviewAction(ctx, db.RecordEdit{WorkspaceID: ws, ID: a.ID, ActorID: actor}, true, nil)
			require.NoError(b, err)
		}
	}
}

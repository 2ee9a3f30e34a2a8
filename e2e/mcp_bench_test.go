package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/pgtest"
)

// BenchmarkMCP measures a real `pilot api` process (figures, never pass/fail; `make bench/mcp`):
//   - get_card over warm sessions: 8 sessions calling at once, latency p50/p99 of 2,000 calls;
//   - 200 concurrent sessions held by the one process (each with its standalone SSE stream open), all
//     answering a call, and the process's resident memory per session.
func BenchmarkMCP(b *testing.B) {
	dbURL := pgtest.URL(b)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(b, err)
	b.Cleanup(pool.Close)
	api := start(b, "api", []string{"DATABASE_URL=" + dbURL, "APP_ENV=development",
		"JWT_SECRET=e2e-secret-e2e-secret-e2e-secret-e2e",
		"DATABASE_MAX_CONNS=16", "MCP_MAX_SESSIONS_PER_USER=250"}) // one PAT holds the 200 sessions below
	w := newMCPWorkspace(b, pool, api, "approval")
	args := map[string]any{"org": w.orgSlug, "workspace": "personal", "projectId": w.project, "cardId": w.card}
	ctx := context.Background()

	// 8 warm sessions.
	const conc, perSession = 8, 250
	sessions := make([]*mcp.ClientSession, conc)
	for i := range sessions {
		sessions[i] = connect(b, api, w.pat)
		for range 5 {
			call(b, sessions[i], "get_card", args, nil)
		}
	}
	lat := make([][]time.Duration, conc)
	var wg sync.WaitGroup
	b.ResetTimer()
	begin := time.Now()
	for i := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perSession {
				t0 := time.Now()
				res, err := sessions[i].CallTool(ctx, &mcp.CallToolParams{Name: "get_card", Arguments: args})
				if err != nil || res.IsError {
					panic(fmt.Sprint("get_card failed: ", err))
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	pct := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "get_card_p50_ms")
	b.ReportMetric(pct(0.99), "get_card_p99_ms")
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "get_card_calls/s")
	for _, s := range sessions {
		_ = s.Close()
	}

	// The same read over REST, same concurrency, for comparison on the same (shared) machine.
	restLat := make([][]time.Duration, conc)
	cardURL := api.URL + w.ws + "/projects/" + w.project + "/cards/" + w.card
	for i := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perSession {
				t0 := time.Now()
				req, _ := http.NewRequest("GET", cardURL, nil)
				req.Header.Set("Authorization", "Bearer "+w.pat)
				resp, err := http.DefaultClient.Do(req)
				if err != nil || resp.StatusCode != http.StatusOK {
					panic(fmt.Sprint("REST get card failed: ", err))
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				restLat[i] = append(restLat[i], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	all = slices.Concat(restLat...)
	slices.Sort(all)
	b.ReportMetric(pct(0.50), "rest_get_card_p50_ms")
	b.ReportMetric(pct(0.99), "rest_get_card_p99_ms")

	// 200 sessions held at once.
	const held = 200
	before := rssKB(b, api)
	many := make([]*mcp.ClientSession, held)
	for i := range many {
		c := mcp.NewClient(&mcp.Implementation{Name: "held", Version: "1"}, nil)
		many[i], err = c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: api.URL + "/mcp",
			HTTPClient: &http.Client{Transport: bearerTransport{w.pat}}}, nil)
		require.NoError(b, err)
	}
	errs := make(chan error, held)
	for _, s := range many {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "list_organizations", Arguments: map[string]any{}})
			if err == nil && res.IsError {
				err = fmt.Errorf("tool error")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
		}
	}
	after := rssKB(b, api)
	b.ReportMetric(float64(held-failed), "sessions_held")
	b.ReportMetric(float64(after-before)/held, "rss_KB/session")
	b.ReportMetric(float64(after)/1024, "api_rss_MB")
	for _, s := range many {
		_ = s.Close()
	}
	require.Zero(b, failed, "sessions that did not answer")
}

// rssKB reads a process's resident set size.
func rssKB(tb testing.TB, p *proc) int {
	tb.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	require.NoError(tb, err)
	for line := range strings.SplitSeq(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			require.NoError(tb, err)
			return n
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// BenchmarkSearch measures GET WS/search through the real handler (guard, JWT, access query, search
// query, JSON) over a workspace holding 100,000 documents and 100,000 cards, plus 20,000 of each in
// another workspace that must never show. Text is drawn from a 50,000-word vocabulary with a skewed
// (Zipf-like) frequency, so the query classes match from about a hundred rows (rare) to about a quarter
// of the corpus (common). It reports p50 and p99 latency per class, sequential requests. Run with
// `make bench/search` (it sets PILOT_BENCH_SEARCH=1); figures, not pass/fail.
func BenchmarkSearch(b *testing.B) {
	if os.Getenv("PILOT_BENCH_SEARCH") == "" {
		b.Skip("seeds 240,000 rows for minutes: run with make bench/search (PILOT_BENCH_SEARCH=1)")
	}
	ctx := context.Background()
	dbPool := pgtest.Pool(b)
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{})
	if err != nil {
		b.Fatal(err)
	}
	eng := engines.New(dbPool, riverClient, engines.Options{})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := New(eng, testSigner(testJWTSecret, time.Hour), billing.Local{PublicURL: "http://pilot.test"}, logger,
		Options{PublicURL: "http://pilot.test", LoginRateLimit: 1000, RegisterRateLimit: 1000})
	call := func(method, path, token string, body any) (int, []byte) {
		var rd io.Reader = http.NoBody
		if body != nil {
			buf, _ := json.Marshal(body)
			rd = bytes.NewReader(buf)
		}
		r := httptest.NewRequestWithContext(ctx, method, path, rd)
		r.Header.Set("Content-Type", "application/json")
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.Bytes()
	}
	var tokens []string
	var wsPaths []string
	for _, email := range []string{"bench@example.com", "noise@example.com"} {
		code, body := call("POST", "/auth/register", "", map[string]any{"email": email, "password": "correct-horse",
			"name": email[:5]})
		if code != http.StatusCreated {
			b.Fatalf("register: %d %s", code, body)
		}
		var s SessionBody
		_ = json.Unmarshal(body, &s)
		_, body = call("GET", "/organizations", s.AccessToken, nil)
		var orgs []OrganizationOut
		_ = json.Unmarshal(body, &orgs)
		ws := "/orgs/" + orgs[0].Slug + "/workspaces/personal"
		if code, body = call("POST", ws+"/projects", s.AccessToken,
			map[string]any{"name": "Bench"}); code != http.StatusCreated {
			b.Fatalf("project: %d %s", code, body)
		}
		tokens, wsPaths = append(tokens, s.AccessToken), append(wsPaths, ws)
	}

	start := time.Now()
	// Each text is words w<n> with n = floor(50000 * random()^2): w0 is the most frequent word.
	const words = `(SELECT string_agg('w' || floor(50000 * random() ^ 2)::int, ' ')
		FROM generate_series(1, %d) WHERE g > 0)`
	for i, n := range []int{100_000, 20_000} {
		seed := fmt.Sprintf(`
WITH ws AS (SELECT w.id AS ws_id, w.owner_id FROM workspaces w JOIN users u ON u.id = w.owner_id WHERE u.email = $1)
INSERT INTO documents (id, workspace_id, title, content, context_type, context_id, author_id, created_at, updated_at)
SELECT gen_random_uuid(), ws.ws_id, %s, %s, 'workspace', ws.ws_id, ws.owner_id, now() - g * interval '1 second',
       now() - g * interval '1 second'
FROM ws, generate_series(1, %d) g`, fmt.Sprintf(words, 6), fmt.Sprintf(words, 80), n)
		email := []string{"bench@example.com", "noise@example.com"}[i]
		if _, err := dbPool.Exec(ctx, seed, email); err != nil {
			b.Fatal(err)
		}
		seed = fmt.Sprintf(`
WITH col AS (SELECT c.id AS column_id, p.id AS project_id, p.created_by
             FROM columns c JOIN projects p ON p.id = c.project_id
             JOIN users u ON u.id = p.created_by WHERE u.email = $1 ORDER BY c.position LIMIT 1)
INSERT INTO cards (id, project_id, column_id, title, description, created_by, position, created_at, updated_at)
SELECT gen_random_uuid(), col.project_id, col.column_id, %s, %s, col.created_by, g, now() - g * interval '1 second',
       now() - g * interval '1 second'
FROM col, generate_series(1, %d) g`, fmt.Sprintf(words, 8), fmt.Sprintf(words, 40), n)
		if _, err := dbPool.Exec(ctx, seed, email); err != nil {
			b.Fatal(err)
		}
	}
	for _, table := range []string{"documents", "cards"} {
		if _, err := dbPool.Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded 120,000 documents and 120,000 cards in %s", time.Since(start).Round(time.Second))

	classes := []struct {
		name    string
		queries []string
	}{
		{"rare", []string{"w40000", "w41234", "w45000", "w38000", "w49000"}},            // ~100 rows each
		{"medium", []string{"w1000", "w1500", "w2000", "w2500", "w3000"}},               // ~1,000 rows
		{"frequent", []string{"w10", "w20", "w30", "w40", "w50"}},                       // ~10,000 rows
		{"common", []string{"w0", "w1", "w2"}},                                          // ~25-50,000 rows
		{"two-words", []string{"w10 w1000", "w0 w40000", "w5 w6", "w100 w200"}},         // AND of two
		{"phrase-or-not", []string{`"w0 w1"`, "w1000 or w2000", "w10 -w0", "w3 w4 w5"}}, // websearch syntax
	}
	for _, c := range classes {
		b.Run(c.name, func(b *testing.B) {
			const perClass = 200
			var lat []time.Duration
			var hits int
			for i := range perClass {
				q := c.queries[i%len(c.queries)]
				t0 := time.Now()
				code, body := call("GET", wsPaths[0]+"/search?q="+strings.ReplaceAll(q, " ", "+"), tokens[0], nil)
				lat = append(lat, time.Since(t0))
				if code != http.StatusOK {
					b.Fatalf("search %q: %d %s", q, code, body)
				}
				var res []SearchResultOut
				_ = json.Unmarshal(body, &res)
				hits += len(res)
			}
			slices.Sort(lat)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
			b.ReportMetric(float64(hits)/perClass, "results/op")
		})
	}
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
	"github.com/pilot-dev/pilot/workers"
)

// BenchmarkDraftRoadmap measures, with the offline planner, a real worker and a client of the draft's
// events over HTTP: from the moment generate-roadmap is sent to the client reading the first event of
// the job (its queued status), and to the client reading the job's done event (the roadmap ready).
// Each iteration runs 20 drafts one after the other. Figures, never pass/fail: `make bench/drafts`.
func BenchmarkDraftRoadmap(b *testing.B) {
	ctx := context.Background()
	dbPool := pgtest.Pool(b)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	apiRiver, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{FetchCooldown: 10 * time.Millisecond})
	require.NoError(b, err)
	eng := engines.New(dbPool, apiRiver, engines.Options{})
	relay := stream.Start(ctx, eng.Store, stream.Config{Logger: logger})
	b.Cleanup(relay.Close)
	h := New(eng, testSigner(testJWTSecret, time.Hour), billing.Local{PublicURL: "http://pilot.test"}, logger,
		Options{PublicURL: "http://pilot.test", LoginRateLimit: 1000, RegisterRateLimit: 1000, Relay: relay})
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	// The worker as `pilot worker` runs by default (JOB_FETCH_COOLDOWN 10ms, poll 1s).
	worker, _, err := workers.NewClient(dbPool, workers.Config{Concurrency: 10, Logger: logger,
		FetchCooldown: 10 * time.Millisecond})
	require.NoError(b, err)
	require.NoError(b, worker.Start(ctx))
	b.Cleanup(func() { _ = worker.Stop(context.Background()) })

	post := func(path, token string, body any) *http.Response {
		buf, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(buf))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(b, err)
		return resp
	}
	resp := post("/auth/register", "", map[string]any{"email": "bench@example.com", "password": "correct-horse"})
	var session SessionBody
	require.NoError(b, json.NewDecoder(resp.Body).Decode(&session))
	resp.Body.Close()
	orgs, _ := http.NewRequest(http.MethodGet, srv.URL+"/organizations", nil)
	orgs.Header.Set("Authorization", "Bearer "+session.AccessToken)
	resp, err = http.DefaultClient.Do(orgs)
	require.NoError(b, err)
	var list []OrganizationOut
	require.NoError(b, json.NewDecoder(resp.Body).Decode(&list))
	resp.Body.Close()
	path := "/orgs/" + list[0].Slug + "/workspaces/personal/project-drafts"
	auth := map[string]string{"Authorization": "Bearer " + session.AccessToken}

	const perIter = 20
	var first, ready, answered []time.Duration
	b.ResetTimer()
	for range b.N {
		for i := range perIter {
			resp := post(path, session.AccessToken, map[string]any{"name": "Bench app " + string(rune('A'+i)),
				"description": "A mobile app for iOS and Android with offline photos."})
			var d DraftOut
			require.NoError(b, json.NewDecoder(resp.Body).Decode(&d))
			resp.Body.Close()
			st := ssetest.Open(b, srv.URL+path+"/"+d.ID+"/events", auth)
			require.Equal(b, "ok", st.Next(b, 10*time.Second).Comment)

			t0 := time.Now()
			done := make(chan time.Duration, 1)
			go func() {
				resp := post(path+"/"+d.ID+"/generate-roadmap", session.AccessToken, nil)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				done <- time.Since(t0)
			}()
			f := st.NextEvent(b, 10*time.Second)
			first = append(first, f.At.Sub(t0))
			for f.Event != draft.DraftEventDone {
				f = st.NextEvent(b, 10*time.Second)
			}
			ready = append(ready, f.At.Sub(t0))
			answered = append(answered, <-done)
			st.Close()
		}
	}
	b.StopTimer()
	report := func(name string, d []time.Duration) {
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, name+"-p90-ms")
		b.ReportMetric(float64(d[len(d)-1].Microseconds())/1000, name+"-max-ms")
	}
	report("first-event", first)
	report("roadmap-ready", ready)
	report("post-answered", answered)
}

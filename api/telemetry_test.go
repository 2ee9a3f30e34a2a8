package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/telemetry"
	"github.com/pilot-dev/pilot/internal/telemetry/sources"
)

// lockedBuffer collects JSON log lines from concurrent writers.
type lockedBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, strings.Split(strings.TrimSpace(string(p)), "\n")...)
	return len(p), nil
}

// take returns the lines logged since the last take, decoded.
func (b *lockedBuffer) take(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range b.lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		out = append(out, m)
	}
	b.lines = nil
	return out
}

// observedServer is an api process as cmd/pilot wires it with METRICS_ADDR set: metrics watching the
// pool, the relay and the access cache; the River client's middleware; logs at debug level into logs.
type observedServer struct {
	*streamServer
	metrics *telemetry.Metrics
	logs    *lockedBuffer
}

func newObservedServer(t *testing.T) *observedServer {
	t.Helper()
	dbPool := pgtest.Pool(t)
	logs := &lockedBuffer{}
	logger := slog.New(telemetry.NewLogHandler(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{Middleware: telemetry.RiverMiddleware(nil,
		nil)})
	require.NoError(t, err)
	eng := engines.New(dbPool, riverClient, engines.Options{})
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	relay := stream.Start(ctx, eng.Store, stream.Config{Heartbeat: time.Minute})
	cache := accesscache.Start(ctx, eng.Store, logger)
	m := telemetry.NewMetrics(logger)
	m.WatchPool(dbPool)
	m.WatchRelay(sources.Relay(relay))
	m.WatchAccessCache(sources.Cache(cache))
	signer := testSigner(testJWTSecret, 7*24*time.Hour)
	h := newTestHandler(t, eng, signer, logger, Options{
		PublicURL: "http://pilot.test", LoginRateLimit: 1000, RegisterRateLimit: 1000, Relay: relay, AccessCache: cache,
		Metrics: m,
	})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		relay.Close()
		srv.Close()
	})
	<-relay.Listening()
	<-cache.Ready()
	s := &streamServer{testEnv: &testEnv{t: t, handler: h, eng: eng, pool: dbPool, signer: signer, access: cache},
		url: srv.URL, relay: relay}
	return &observedServer{streamServer: s, metrics: m, logs: logs}
}

// metric is the value of the sample of family name with exactly labels (a histogram's sample count);
// ok is false when there is none.
func metric(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue next
				}
			}
			switch {
			case m.Counter != nil:
				return m.GetCounter().GetValue(), true
			case m.Gauge != nil:
				return m.GetGauge().GetValue(), true
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount()), true
			}
		}
	}
	return 0, false
}

func requireMetric(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string, want float64) {
	t.Helper()
	got, ok := metric(t, reg, name, labels)
	require.True(t, ok, "no sample %s%v", name, labels)
	require.Equal(t, want, got, "%s%v", name, labels)
}

// waitForMetric waits until the unlabelled counter name reaches want, and fails if it passes it.
func waitForMetric(t *testing.T, reg prometheus.Gatherer, name string, want float64) {
	t.Helper()
	waitFor(t, name, func() bool {
		got, _ := metric(t, reg, name, nil)
		require.LessOrEqual(t, got, want, name)
		return got == want
	})
}

// TestMetricsAfterWork checks that each api metric appears after the work that causes it: requests by
// route pattern, access cache hits and misses, pool acquires, mission stream subscribers and relayed
// events, and the relay's LISTEN state.
func TestMetricsAfterWork(t *testing.T) {
	s := newObservedServer(t)
	reg := s.metrics.Registry
	u := s.register("ada@example.com")
	requireMetric(t, reg, "pilot_http_requests_total", map[string]string{"route": "/auth/register", "method": "POST",
		"status": "201"}, 1)
	requireMetric(t, reg, "pilot_http_request_duration_seconds", map[string]string{"route": "/auth/register",
		"method": "POST", "status": "201"}, 1)
	acquires, ok := metric(t, reg, "pilot_db_pool_acquires_total", nil)
	require.True(t, ok)
	require.Positive(t, acquires)

	// The access cache: the first tenant request of a session misses, a later one hits (once the
	// notifications of the registration's writes, which empty the cache, have arrived).
	before := s.access.Stats()
	projects := "/orgs/" + u.OrgSlug + "/workspaces/personal/projects"
	requests := 0
	waitFor(t, "an access cache hit", func() bool {
		requireStatus(t, s.do("GET", projects, u.Token, nil), http.StatusOK)
		requests++
		return s.access.Stats().Hits > before.Hits
	})
	after := s.access.Stats()
	require.Greater(t, after.Misses, before.Misses)
	requireMetric(t, reg, "pilot_access_cache_lookups_total", map[string]string{"result": "hit"}, float64(after.Hits))
	requireMetric(t, reg, "pilot_access_cache_lookups_total", map[string]string{"result": "miss"}, float64(after.Misses))
	requireMetric(t, reg, "pilot_access_cache_listen_connected", nil, 1)
	requireMetric(t, reg, "pilot_http_requests_total",
		map[string]string{"route": "/orgs/{orgSlug}/workspaces/{wsSlug}/projects", "method": "GET", "status": "200"},
		float64(requests))

	// A mission stream: one subscriber while it is open, each event relayed counted.
	requireMetric(t, reg, "pilot_sse_listen_connected", nil, 1)
	requireMetric(t, reg, "pilot_sse_listen_reconnects_total", nil, 0)
	requireMetric(t, reg, "pilot_sse_subscribers", nil, 0)
	m := s.newTestMission(u, "running")
	st := s.open(u, m, nil)
	requireMetric(t, reg, "pilot_sse_subscribers", nil, 1)
	requireMetric(t, reg, "pilot_sse_events_relayed_total", nil, 0)
	s.emit(m, "step", "running", "moved a card")
	requireEvent(t, st, m, 1, "step", "running", "moved a card")
	// The stream may have replayed the event from the table before the relay read it after its
	// notification; the relay counts it once it has.
	waitForMetric(t, reg, "pilot_sse_events_relayed_total", 1)
	s.emit(m, "status", "completed", "done")
	requireEvent(t, st, m, 2, "status", "completed", "done")
	st.RequireEnd(t, streamWait)
	waitForMetric(t, reg, "pilot_sse_events_relayed_total", 2)

	// The ended stream is a request of its route, timed apart from the latency histogram.
	route := "/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/events"
	waitFor(t, "the stream's request to be counted", func() bool {
		_, ok := metric(t, reg, "pilot_http_requests_total", map[string]string{"route": route, "method": "GET",
			"status": "200"})
		return ok
	})
	requireMetric(t, reg, "pilot_http_stream_duration_seconds", map[string]string{"route": route}, 1)
	_, ok = metric(t, reg, "pilot_http_request_duration_seconds", map[string]string{"route": route, "method": "GET",
		"status": "200"})
	require.False(t, ok, "a stream's duration stays out of the latency histogram")
	waitFor(t, "the subscription to end", func() bool {
		v, _ := metric(t, reg, "pilot_sse_subscribers", nil)
		return v == 0
	})

	// The relay's LISTEN connection killed by the server: it reconnects, and says so.
	require.Equal(t, 1, s.count(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query = format('LISTEN "%s"', $1::text)`, db.StreamEventsChannel))
	waitFor(t, "the relay to reconnect", func() bool {
		v, _ := metric(t, reg, "pilot_sse_listen_reconnects_total", nil)
		return v == 1
	})
	waitFor(t, "the relay to listen again", func() bool {
		v, _ := metric(t, reg, "pilot_sse_listen_connected", nil)
		return v == 1
	})
}

// TestRequestIDInLogsAndJobs: a request's id, the client's or a new one, is answered, is in every log
// line of the request and in the metadata of the jobs it enqueued (where the worker takes it back:
// workers' TestJobLogsCarryRequestID).
func TestRequestIDInLogsAndJobs(t *testing.T) {
	s := newObservedServer(t)
	alice := s.register("alice@example.com")
	s.logs.take(t)

	// Inviting enqueues the invitation e-mail's job in the request's transaction.
	r := s.send(req{Method: "POST", Path: "/orgs/" + alice.OrgSlug + "/workspaces/personal/members/invite",
		Token: alice.Token, Body: map[string]any{"email": "bob@example.com"},
		Header: map[string]string{"X-Request-ID": "req-invite-1"}})
	requireStatus(t, r, http.StatusCreated)
	require.Equal(t, "req-invite-1", r.Header.Get("X-Request-ID"))
	lines := s.logs.take(t)
	require.NotEmpty(t, lines, "the request is logged at debug level")
	for _, l := range lines {
		require.Equal(t, "req-invite-1", l["requestId"], "every line of the request carries its id: %v", l)
	}
	require.Equal(t, 1,
		s.count(`SELECT count(*) FROM river_job WHERE kind = 'send_email' AND metadata->>'requestId' = 'req-invite-1'`),
		"the job the request enqueued carries its id")

	// An invalid id is replaced by a new one, answered and logged the same way.
	r = s.send(req{Method: "GET", Path: "/organizations", Token: alice.Token,
		Header: map[string]string{"X-Request-ID": "not valid\x01"}})
	requireStatus(t, r, http.StatusOK)
	id := r.Header.Get("X-Request-ID")
	require.True(t, telemetry.ValidRequestID(id))
	require.NotEqual(t, "not valid\x01", id)
	lines = s.logs.take(t)
	require.NotEmpty(t, lines)
	for _, l := range lines {
		require.Equal(t, id, l["requestId"])
	}

	// A request no route answers is given its id too.
	r = s.send(req{Method: "GET", Path: "/no/such/route", Header: map[string]string{"X-Request-ID": "req-404"},
		MayLeaveDocument: true})
	requireStatus(t, r, http.StatusNotFound)
	require.Equal(t, "req-404", r.Header.Get("X-Request-ID"))
}

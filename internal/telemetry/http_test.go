package telemetry

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// testRouter is a chi router with the telemetry middleware as the api installs them: a JSON route, a
// route that fails, and a server-sent event stream that sends one event, then waits for release.
func testRouter(m *Metrics, tr *Tracing, release <-chan struct{}) http.Handler {
	r := chi.NewRouter()
	r.Use(RequestID, tr.HTTP, m.HTTP)
	r.Get("/orgs/{orgSlug}/cards/{cardId}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	r.Post("/orgs/{orgSlug}/cards", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
	})
	r.Get("/missions/{missionId}/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "id: 1\ndata: {}\n\n")
		// The stream must reach the client now, through every wrapper.
		if err := http.NewResponseController(w).Flush(); err != nil {
			panic(err)
		}
		if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			panic(err)
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	return r
}

func TestHTTPMetricsByRoutePattern(t *testing.T) {
	t.Parallel()
	m := NewMetrics(nil)
	srv := httptest.NewServer(testRouter(m, nil, nil))
	defer srv.Close()
	get := func(method, path string) int {
		req, err := http.NewRequestWithContext(context.Background(), method, srv.URL+path, nil)
		require.NoError(t, err)
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, 200, get("GET", "/orgs/acme/cards/1"))
	require.Equal(t, 200, get("GET", "/orgs/other/cards/2"))
	require.Equal(t, 400, get("POST", "/orgs/acme/cards"))
	require.Equal(t, 404, get("GET", "/no/such/path"))
	require.Equal(t, 405, get("PURGE", "/orgs/acme/cards/1"))

	route := "/orgs/{orgSlug}/cards/{cardId}"
	requireSample(t, m.Registry, "pilot_http_requests_total", map[string]string{"route": route, "method": "GET",
		"status": "200"}, 2)
	requireSample(t, m.Registry, "pilot_http_request_duration_seconds", map[string]string{"route": route, "method": "GET",
		"status": "200"}, 2)
	requireSample(t, m.Registry, "pilot_http_requests_total", map[string]string{"route": "/orgs/{orgSlug}/cards",
		"method": "POST", "status": "400"}, 1)
	requireSample(t, m.Registry, "pilot_http_requests_total", map[string]string{"route": "unmatched", "method": "GET",
		"status": "404"}, 1)
	requireSample(t, m.Registry, "pilot_http_requests_total", map[string]string{"method": "OTHER", "status": "405"}, 1)

	// Never a raw path in a label: the label set stays bounded whatever clients send.
	families, err := m.Registry.Gather()
	require.NoError(t, err)
	for _, f := range families {
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				require.NotContains(t, l.GetValue(), "acme", "%s has a raw path label", f.GetName())
			}
		}
	}
}

func TestHTTPMetricsLeaveStreamsAlone(t *testing.T) {
	t.Parallel()
	t.Run("metrics", func(t *testing.T) { testStream(t, nil) })
	t.Run("metrics and tracing", func(t *testing.T) {
		exporter := tracetest.NewInMemoryExporter()
		tr, err := NewTracing(context.Background(), TracingConfig{Service: "pilot-test", Exporter: exporter})
		require.NoError(t, err)
		testStream(t, tr)
		require.Len(t, exporter.GetSpans(), 1)
		require.Equal(t, "GET /missions/{missionId}/events", exporter.GetSpans()[0].Name)
	})
}

// testStream reads a stream through the middleware: its first event arrives while it is open (neither
// buffered nor cut), Flush and write deadlines work through every wrapper, and it is counted once over.
func testStream(t *testing.T, tr *Tracing) {
	m := NewMetrics(nil)
	release := make(chan struct{})
	srv := httptest.NewServer(testRouter(m, tr, release))
	defer srv.Close()

	resp, err := srv.Client().Get(srv.URL + "/missions/m1/events")
	require.NoError(t, err)
	defer resp.Body.Close()
	// The first event arrives while the stream is still open: the middleware neither buffers it nor
	// ends the stream.
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "id: 1\n", line)
	_, ok := sample(t, m.Registry, "pilot_http_requests_total", map[string]string{"route": "/missions/{missionId}/events"})
	require.False(t, ok, "an open stream is not counted yet")

	close(release)
	_, _ = io.Copy(io.Discard, resp.Body)
	route := map[string]string{"route": "/missions/{missionId}/events"}
	require.Eventually(t, func() bool { _, ok := sample(t, m.Registry, "pilot_http_requests_total", route); return ok },
		5*time.Second, 5*time.Millisecond)
	requireSample(t, m.Registry, "pilot_http_requests_total", map[string]string{"route": "/missions/{missionId}/events",
		"method": "GET", "status": "200"}, 1)
	requireSample(t, m.Registry, "pilot_http_stream_duration_seconds", route, 1)
	_, ok = sample(t, m.Registry, "pilot_http_request_duration_seconds", route)
	require.False(t, ok, "a stream's duration stays out of the latency histogram")
}

func TestHTTPSpansNamedByRoutePattern(t *testing.T) {
	t.Parallel()
	exporter := tracetest.NewInMemoryExporter()
	tr, err := NewTracing(context.Background(), TracingConfig{Service: "pilot-test", Exporter: exporter})
	require.NoError(t, err)
	defer func() { require.NoError(t, tr.Shutdown(context.Background())) }()
	h := testRouter(nil, tr, nil)

	// A caller's traceparent makes the request's span its child.
	parent := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	r := httptest.NewRequest(http.MethodGet, "/orgs/acme/cards/9", nil)
	r.Header.Set("traceparent", parent)
	r.Header.Set(RequestIDHeader, "req-span")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)

	spans := exporter.GetSpans()
	require.Len(t, spans, 1)
	s := spans[0]
	require.Equal(t, "GET /orgs/{orgSlug}/cards/{cardId}", s.Name)
	require.Equal(t, trace.SpanKindServer, s.SpanKind)
	require.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", s.SpanContext.TraceID().String())
	require.Equal(t, "00f067aa0ba902b7", s.Parent.SpanID().String())
	require.Contains(t, s.Attributes, attribute.String("http.route", "/orgs/{orgSlug}/cards/{cardId}"))
	require.Contains(t, s.Resource.Attributes(), attribute.String("service.name", "pilot-test"))
	for _, a := range s.Attributes {
		if a.Key == "url.path" {
			continue // the raw path is an attribute of the span, never its name
		}
		require.NotContains(t, a.Value.String(), "acme", "attribute %s", a.Key)
	}

	r = httptest.NewRequest(http.MethodGet, "/nowhere", nil)
	h.ServeHTTP(httptest.NewRecorder(), r)
	require.Equal(t, "GET unmatched", exporter.GetSpans()[1].Name)
	require.True(t, strings.HasPrefix(exporter.GetSpans()[1].Name, "GET"))
}

func TestTracingOffIsNil(t *testing.T) {
	t.Parallel()
	tr, err := NewTracing(context.Background(), TracingConfig{Service: "pilot-api"})
	require.NoError(t, err)
	require.Nil(t, tr, "no endpoint: tracing is off")
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	require.NotNil(t, tr.HTTP(next))
	require.Empty(t, tr.RiverMiddleware())
	require.NoError(t, tr.Shutdown(context.Background()))
	require.False(t, trace.SpanFromContext(context.Background()).SpanContext().IsValid())
}

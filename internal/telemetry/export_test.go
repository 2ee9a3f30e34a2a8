package telemetry

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an in-process OTLP/HTTP trace receiver: it accepts what a collector accepts on
// POST /v1/traces (a protobuf ExportTraceServiceRequest, gzipped or not) and answers as one does.
type otlpReceiver struct {
	mu       sync.Mutex
	requests []*coltracepb.ExportTraceServiceRequest
	received chan struct{}
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" ||
		r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not an OTLP/HTTP trace export", http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	o.requests = append(o.requests, &req)
	o.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
	select {
	case o.received <- struct{}{}:
	default:
	}
}

// spanNames lists the names of the spans received, with their resource's service.name.
func (o *otlpReceiver) spanNames() (names []string, services []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, req := range o.requests {
		for _, rs := range req.GetResourceSpans() {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.GetKey() == "service.name" {
					services = append(services, a.GetValue().GetStringValue())
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					names = append(names, s.GetName())
				}
			}
		}
	}
	return names, services
}

func TestOTLPExporterPostsToEndpoint(t *testing.T) {
	t.Parallel()
	receiver := &otlpReceiver{received: make(chan struct{}, 1)}
	collector := httptest.NewServer(receiver)
	defer collector.Close()

	tr, err := NewTracing(context.Background(), TracingConfig{Endpoint: collector.URL + "/", Service: "pilot-api"})
	require.NoError(t, err)
	require.NotNil(t, tr)
	h := testRouter(nil, tr, nil)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/orgs/acme/cards/1", nil))
	// Shutdown flushes the batch: the span is posted before it returns.
	require.NoError(t, tr.Shutdown(context.Background()))

	names, services := receiver.spanNames()
	require.Equal(t, []string{"GET /orgs/{orgSlug}/cards/{cardId}"}, names)
	require.Equal(t, []string{"pilot-api"}, services)
}

func TestMetricsServe(t *testing.T) {
	t.Parallel()
	m := NewMetrics(nil)
	ctx, cancel := context.WithCancel(context.Background())
	addr, err := m.Serve(ctx, "127.0.0.1:0", nil)
	require.NoError(t, err)

	_, err = m.Serve(ctx, addr.String(), nil)
	require.ErrorContains(t, err, "metrics listen", "an address in use fails at start")

	resp, err := http.Get("http://" + addr.String() + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "go_goroutines ")
	require.Contains(t, string(body), "process_cpu_seconds_total ")

	resp, err = http.Get("http://" + addr.String() + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "only /metrics is served")
	resp, err = http.Get("http://" + addr.String() + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "no probes unless given")

	cancel()
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr.String())
		if err == nil {
			c.Close()
		}
		return err != nil
	}, 5e9, 1e7, "the server stops with its context")
	require.False(t, strings.Contains(string(body), "pilot_http_requests_total"), "no HTTP samples before any request")
}

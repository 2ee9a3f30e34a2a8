package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// discardExporter drops spans: the benchmark measures the middleware, not an exporter.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// BenchmarkHTTPMiddleware is the cost per request of the telemetry middleware on a chi route that does
// nothing: run with `make test ARGS='-run ^$ -bench HTTPMiddleware -benchmem ./internal/telemetry/'`.
func BenchmarkHTTPMiddleware(b *testing.B) {
	tr, err := NewTracing(context.Background(), TracingConfig{Service: "bench", Exporter: discardExporter{}})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tr.Shutdown(context.Background()) }()
	for _, c := range []struct {
		name string
		mw   []func(http.Handler) http.Handler
	}{
		{"bare", nil},
		{"chi-requestid", []func(http.Handler) http.Handler{middleware.RequestID}}, // what the api had before
		{"requestid", []func(http.Handler) http.Handler{RequestID}},
		{"requestid+metrics", []func(http.Handler) http.Handler{RequestID, NewMetrics(nil).HTTP}},
		{"requestid+metrics+tracing", []func(http.Handler) http.Handler{RequestID, tr.HTTP, NewMetrics(nil).HTTP}},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := chi.NewRouter()
			r.Use(c.mw...)
			r.Get("/orgs/{orgSlug}/cards/{cardId}", func(w http.ResponseWriter,
				r *http.Request) {
				w.WriteHeader(http.StatusOK)
			})
			req := httptest.NewRequest(http.MethodGet, "/orgs/acme/cards/1", nil)
			b.ReportAllocs()
			for b.Loop() {
				r.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}

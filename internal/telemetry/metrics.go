package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// namespace prefixes every metric of Pilot's own.
const namespace = "pilot"

// Metrics is a process's Prometheus registry and the instruments its middleware record into. A nil
// *Metrics records nothing: its middleware pass through and its Watch methods do nothing.
type Metrics struct {
	// Registry holds every metric of the process (never the global default registry).
	Registry *prometheus.Registry
	logger   *slog.Logger

	httpRequests   *prometheus.CounterVec
	httpDuration   *prometheus.HistogramVec
	streamDuration *prometheus.HistogramVec
	jobs           *prometheus.CounterVec
	jobDuration    *prometheus.HistogramVec
}

// NewMetrics builds a registry with the Go runtime's and the process's collectors and Pilot's HTTP and
// job instruments. Families without samples (HTTP ones in the worker, say) are not exported.
func NewMetrics(logger *slog.Logger) *Metrics {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		logger:   logger,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by chi route pattern (\"unmatched\" when no route matched), method and status.",
		}, []string{"route", "method", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "http", Name: "request_duration_seconds",
			Help: "Time to answer an HTTP request, by route pattern, method and status. Server-sent event streams are not " +
				"in it (see pilot_http_stream_duration_seconds).",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method", "status"}),
		streamDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "http", Name: "stream_duration_seconds",
			Help:    "How long server-sent event streams stayed open, by route pattern.",
			Buckets: []float64{1, 10, 60, 300, 900, 3600},
		}, []string{"route"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "river", Name: "jobs_total",
			Help: "River job attempts worked by this process, by kind, queue and outcome: completed, errored (retried later), " +
				"failed (errored on its last attempt, discarded), cancelled, snoozed or panicked.",
		}, []string{"kind", "queue", "outcome"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "river", Name: "job_duration_seconds",
			Help:    "Run time of a River job attempt, by kind, queue and outcome.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900},
		}, []string{"kind", "queue", "outcome"}),
	}
	m.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.httpRequests, m.httpDuration, m.streamDuration, m.jobs, m.jobDuration)
	return m
}

// Handler serves the registry in Prometheus' exposition format. A collector that fails (the queue
// query timing out, say) is logged and left out of that scrape; the others are still served, and
// promhttp_metric_handler_errors_total counts the failure.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{
		Registry:      m.Registry,
		ErrorHandling: promhttp.ContinueOnError,
		ErrorLog:      promLogger{m.logger},
		Timeout:       10 * time.Second,
	})
}

type promLogger struct{ l *slog.Logger }

func (p promLogger) Println(v ...any) {
	p.l.Warn("metrics", "error", strings.TrimSpace(fmt.Sprintln(v...)))
}

// Serve listens on addr and serves /metrics until ctx ends, and /healthz and /readyz from probes when
// it is not nil (Probes). It returns once listening (an address in use is an error at start, not a log
// line later); the server stops by itself.
func (m *Metrics) Serve(ctx context.Context, addr string, probes http.Handler) (net.Addr, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	if probes != nil {
		mux.Handle("GET /healthz", probes)
		mux.Handle("GET /readyz", probes)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 120 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.logger.Error("metrics server", "error", err)
		}
	}()
	go func() {
		<-ctx.Done()
		// ctx has ended: shut down on a fresh deadline that keeps ctx's values.
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	return ln.Addr(), nil
}

// knownMethods bounds the method label: any other method is counted as OTHER.
var knownMethods = map[string]string{
	http.MethodGet: http.MethodGet, http.MethodHead: http.MethodHead, http.MethodPost: http.MethodPost,
	http.MethodPut: http.MethodPut, http.MethodPatch: http.MethodPatch, http.MethodDelete: http.MethodDelete,
	http.MethodOptions: http.MethodOptions,
}

// HTTP is the chi middleware that counts and times requests by route pattern (never the raw path, so
// the label set stays bounded), method and status. It must run inside a chi router (router.Use): the
// route pattern is read from chi's routing context once the request is answered. A response of type
// text/event-stream is counted but timed in pilot_http_stream_duration_seconds instead of the latency
// histogram. The response writer is wrapped with chi's WrapResponseWriter, which keeps Flush and
// http.ResponseController working for streams.
func (m *Metrics) HTTP(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		elapsed := time.Since(start).Seconds()
		route := RoutePattern(r)
		method, ok := knownMethods[r.Method]
		if !ok {
			method = "OTHER"
		}
		code := ww.Status()
		if code == 0 {
			code = http.StatusOK // nothing written: net/http answers 200
		}
		status := strconv.Itoa(code)
		m.httpRequests.WithLabelValues(route, method, status).Inc()
		if strings.HasPrefix(ww.Header().Get("Content-Type"), "text/event-stream") {
			m.streamDuration.WithLabelValues(route).Observe(elapsed)
			return
		}
		m.httpDuration.WithLabelValues(route, method, status).Observe(elapsed)
	})
}

// RoutePattern is the chi route pattern that answered r ("unmatched" when none did), once routed.
func RoutePattern(r *http.Request) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		if p := rctx.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}

// JobMiddleware is the River worker middleware that counts and times job attempts by kind, queue and
// outcome. Install it on the working client (river.Config.Middleware). A nil *Metrics gives a
// middleware that records nothing.
func (m *Metrics) JobMiddleware() rivertype.WorkerMiddleware { return &jobMetrics{m: m} }

type jobMetrics struct {
	river.MiddlewareDefaults
	m *Metrics
}

// Work implements rivertype.WorkerMiddleware.
func (j *jobMetrics) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) (err error) {
	if j.m == nil {
		return doInner(ctx)
	}
	start := time.Now()
	panicked := true
	defer func() { // runs while a panic unwinds too, without recovering it: River's executor does
		outcome := JobOutcome(job, err)
		if panicked {
			outcome = "panicked"
		}
		j.m.jobs.WithLabelValues(job.Kind, job.Queue, outcome).Inc()
		j.m.jobDuration.WithLabelValues(job.Kind, job.Queue, outcome).Observe(time.Since(start).Seconds())
	}()
	err = doInner(ctx)
	panicked = false
	return err
}

// JobOutcome names what an attempt's error means for the job: completed, cancelled, snoozed, errored
// (River retries it) or failed (it was the last attempt: River discards the job).
func JobOutcome(job *rivertype.JobRow, err error) string {
	var cancel *river.JobCancelError
	var snooze *river.JobSnoozeError
	switch {
	case err == nil:
		return "completed"
	case errors.As(err, &cancel):
		return "cancelled"
	case errors.As(err, &snooze):
		return "snoozed"
	case job.Attempt >= job.MaxAttempts:
		return "failed"
	default:
		return "errored"
	}
}

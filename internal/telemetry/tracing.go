package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// TracingConfig configures a process's traces.
type TracingConfig struct {
	// Endpoint is the OTLP/HTTP collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT, e.g.
	// http://otel-collector:4318): spans are posted to Endpoint + "/v1/traces", as the OpenTelemetry
	// specification says for that variable. Empty: tracing is off.
	Endpoint string
	// Service is the service.name resource attribute ("pilot-api", "pilot-worker"); OTEL_SERVICE_NAME
	// and OTEL_RESOURCE_ATTRIBUTES override it.
	Service string
	// Exporter replaces the OTLP exporter (tests: the SDK's in-memory exporter). Endpoint is then ignored.
	Exporter sdktrace.SpanExporter
}

// Tracing is a process's OpenTelemetry tracer provider and the middleware built on it. A nil *Tracing
// is tracing switched off: its middleware pass through and cost nothing.
type Tracing struct {
	provider   *sdktrace.TracerProvider
	propagator propagation.TextMapPropagator
}

// NewTracing builds the tracer provider: spans are batched and exported over OTLP/HTTP (protobuf) to
// cfg.Endpoint. It returns nil, tracing off, when cfg has neither an endpoint nor an exporter. The
// exporter also honours the other OTEL_EXPORTER_OTLP_* variables (headers, timeout, compression,
// certificates), and the SDK OTEL_TRACES_SAMPLER (default: parent-based, always on).
func NewTracing(ctx context.Context, cfg TracingConfig) (*Tracing, error) {
	exporter := cfg.Exporter
	if exporter == nil {
		if cfg.Endpoint == "" {
			return nil, nil
		}
		var err error
		exporter, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(strings.TrimRight(cfg.Endpoint,
			"/")+"/v1/traces"))
		if err != nil {
			return nil, fmt.Errorf("otlp exporter: %w", err)
		}
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", cfg.Service)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	spanProcessor := sdktrace.WithBatcher(exporter)
	if cfg.Exporter != nil {
		spanProcessor = sdktrace.WithSyncer(exporter) // tests read spans as soon as they end
	}
	return &Tracing{
		provider:   sdktrace.NewTracerProvider(spanProcessor, sdktrace.WithResource(res)),
		propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}, nil
}

// Provider is the tracer provider (a no-op one when tracing is off).
func (t *Tracing) Provider() trace.TracerProvider {
	if t == nil {
		return tracenoop.NewTracerProvider()
	}
	return t.provider
}

// Shutdown flushes the spans not yet exported and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// HTTP is the chi middleware that opens a server span per request (otelhttp; a caller's traceparent
// header makes it a child of the caller's span) and, once the request is routed and answered, names
// it "METHOD /route/{pattern}" and sets http.route: never the raw path.
func (t *Tracing) HTTP(next http.Handler) http.Handler {
	if t == nil {
		return next
	}
	named := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		route := RoutePattern(r)
		span := trace.SpanFromContext(r.Context())
		span.SetName(r.Method + " " + route)
		span.SetAttributes(attribute.String("http.route", route))
	})
	return otelhttp.NewHandler(named, "http.server",
		otelhttp.WithTracerProvider(t.provider),
		otelhttp.WithPropagators(t.propagator),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()), // metrics are Prometheus'
		// Called when the span starts (no route yet: "GET") and again once chi has routed the request.
		otelhttp.WithSpanNameFormatter(spanName),
	)
}

func spanName(_ string, r *http.Request) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		if p := rctx.RoutePattern(); p != "" {
			return r.Method + " " + p
		}
	}
	return r.Method
}

// RiverMiddleware is rivercontrib's otelriver: a producer span around each insert (whose trace context
// goes into the job's metadata) and a consumer span "river.work/<kind>" around each attempt, linked
// to the inserting span. Install it on every River client (river.Config.Middleware). None when
// tracing is off.
func (t *Tracing) RiverMiddleware() []rivertype.Middleware {
	if t == nil {
		return nil
	}
	return []rivertype.Middleware{otelriver.NewMiddleware(&otelriver.MiddlewareConfig{
		TracerProvider:              t.provider,
		MeterProvider:               metricnoop.NewMeterProvider(), // metrics are Prometheus'
		EnableTracePropagation:      true,
		EnableWorkSpanJobKindSuffix: true,
	})}
}

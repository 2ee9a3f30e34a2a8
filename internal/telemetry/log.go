package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// NewLogHandler wraps h so that every record logged with a context carries the context's request id
// (requestId) and, when a span is recording, its trace and span ids (traceId, spanId). Log with the
// *Context methods (InfoContext, ErrorContext, LogAttrs) for them to appear.
// A handler that NewLogHandler already wrapped is returned as is.
func NewLogHandler(h slog.Handler) slog.Handler {
	if _, ok := h.(*logHandler); ok {
		return h
	}
	return &logHandler{h: h}
}

type logHandler struct{ h slog.Handler }

func (l *logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

func (l *logHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if id := RequestIDFrom(ctx); id != "" {
			r.AddAttrs(slog.String("requestId", id))
		}
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r.AddAttrs(slog.String("traceId", sc.TraceID().String()), slog.String("spanId", sc.SpanID().String()))
		}
	}
	return l.h.Handle(ctx, r)
}

func (l *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logHandler{h: l.h.WithAttrs(attrs)}
}

func (l *logHandler) WithGroup(name string) slog.Handler { return &logHandler{h: l.h.WithGroup(name)} }

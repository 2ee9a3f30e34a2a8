package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/pilot-dev/pilot/internal/telemetry"
)

// The access log: one line per request ("request"), written when the response is finished (for an
// event stream, when the stream ends), at a level that follows the status:
//
//   - 5xx: error, the server failed;
//   - 4xx: info, like 2xx and 3xx: a refusal (401, 403, 404, a validation 400, a 429) is the server
//     doing its job, and clients make such mistakes all day; warn is kept for what an operator should
//     look at, and a client's mistakes would drown it;
//   - the probes (/healthz, /readyz): debug while they succeed, so that a load balancer's or
//     Kubernetes' polling does not flood the log; a failing one (503) is a warn, once per probe.
//
// Each line has method, route (chi's route pattern, never the raw path with its ids; "unmatched" when
// no route matched), status, bytes (of the body written), durationMs, requestId (added by the
// process's log handler), userId when a caller was authenticated (also on 403s: the guard knew who
// asked), and stream=true for a server-sent event stream (durationMs is then how long it stayed open).

// callerNote is where authentication writes the caller's user id for the access log, which runs
// outside the guard and reads it once the handler has returned. The access log puts one in every
// request's context before the guard runs; it is written and read by the request's goroutine only.
type callerNote struct{ userID string }

type callerNoteKey struct{}

// noteCaller records p as the request's authenticated caller, for the access log.
func noteCaller(ctx context.Context, p *Principal) {
	if n, ok := ctx.Value(callerNoteKey{}).(*callerNote); ok && p != nil {
		n.userID = p.User.ID
	}
}

// probeRoutes are logged at debug level while they succeed.
var probeRoutes = map[string]bool{"/healthz": true, "/readyz": true}

// accessLog is the chi middleware that writes the access log. It runs outside the recoverer, so a
// panic is logged as the 500 it is answered with.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		note := &callerNote{}
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		r = r.WithContext(context.WithValue(r.Context(), callerNoteKey{}, note))
		finished := false
		// Deferred so that a handler aborted with http.ErrAbortHandler (which the recoverer lets
		// through for net/http) is logged too, as aborted.
		defer func() { s.logRequest(r, ww, note, time.Since(start), !finished) }()
		next.ServeHTTP(ww, r)
		finished = true
	})
}

func (s *Server) logRequest(r *http.Request, ww middleware.WrapResponseWriter, note *callerNote, elapsed time.Duration,
	aborted bool) {
	status := ww.Status()
	if status == 0 {
		status = http.StatusOK // nothing written: net/http answers 200
	}
	route := telemetry.RoutePattern(r)
	level := accessLevel(route, status)
	ctx := r.Context()
	if !s.logger.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 9)
	attrs = append(attrs, slog.String("method", r.Method), slog.String("route", route), slog.Int("status", status),
		slog.Int("bytes", ww.BytesWritten()), slog.Float64("durationMs", float64(elapsed.Microseconds())/1000))
	if note.userID != "" {
		attrs = append(attrs, slog.String("userId", note.userID))
	}
	if strings.HasPrefix(ww.Header().Get("Content-Type"), "text/event-stream") {
		attrs = append(attrs, slog.Bool("stream", true))
	}
	if aborted {
		attrs = append(attrs, slog.Bool("aborted", true))
	}
	s.logger.LogAttrs(ctx, level, "request", attrs...) // the log handler adds requestId
}

// accessLevel is the level of a request's access log line (see the top of this file).
func accessLevel(route string, status int) slog.Level {
	switch {
	case probeRoutes[route] && status < 500:
		return slog.LevelDebug
	case probeRoutes[route]:
		return slog.LevelWarn
	case status >= 500:
		return slog.LevelError
	default:
		return slog.LevelInfo
	}
}

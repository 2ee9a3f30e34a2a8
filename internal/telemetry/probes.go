package telemetry

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"
)

// ReadyTimeout bounds a readiness probe: checks still running then fail it.
const ReadyTimeout = 3 * time.Second

// Check is one condition of a process's readiness. Run answers nil when it holds; otherwise the probe
// answers 503 with Failing as its message (a fixed text: the prober may be anyone who reaches the
// listener), and the error Run returned is logged.
type Check struct {
	Failing string
	Run     func(context.Context) error
}

// Probes serves a process's health and readiness, for a load balancer or Kubernetes:
//
//   - GET /healthz: 200 {"status":"ok"} while the process serves HTTP (liveness: nothing is checked);
//   - GET /readyz: 200 {"status":"ready"} when every check passes, in order, within ReadyTimeout;
//     otherwise 503 in the api's error shape, {"statusCode":503,"message":<the first failing check's
//     Failing>,"error":"Service Unavailable"}, and a warn line with the cause.
//
// Any other path is a 404.
func Probes(logger *slog.Logger, checks ...Check) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeProbe(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), ReadyTimeout)
		defer cancel()
		for _, c := range checks {
			if err := c.Run(ctx); err != nil {
				logger.WarnContext(ctx, "not ready", "reason", c.Failing, "error", err)
				writeProbe(w, http.StatusServiceUnavailable, map[string]any{"statusCode": http.StatusServiceUnavailable,
					"message": c.Failing, "error": http.StatusText(http.StatusServiceUnavailable)})
				return
			}
		}
		writeProbe(w, http.StatusOK, map[string]any{"status": "ready"})
	})
	return mux
}

func writeProbe(w http.ResponseWriter, code int, body map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

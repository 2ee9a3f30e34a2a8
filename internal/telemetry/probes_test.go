package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// get answers the status and decoded JSON body of GET url.
func get(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(b, &body), "%s", b)
	return resp.StatusCode, body
}

// TestProbesOnTheMetricsListener: /healthz always answers 200; /readyz answers 200 while every check
// passes and 503 naming the first failing one (its fixed text, never the cause) otherwise.
func TestProbesOnTheMetricsListener(t *testing.T) {
	t.Parallel()
	var dbDown, jobsDown atomic.Bool
	logs := &logBuffer{}
	probes := Probes(slog.New(slog.NewJSONHandler(logs, nil)),
		Check{Failing: "database unreachable", Run: func(context.Context) error {
			if dbDown.Load() {
				return errors.New("dial tcp 10.0.0.1:5432: secret detail")
			}
			return nil
		}},
		Check{Failing: "job client not running", Run: func(context.Context) error {
			if jobsDown.Load() {
				return errors.New("stopped")
			}
			return nil
		}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := NewMetrics(nil).Serve(ctx, "127.0.0.1:0", probes)
	require.NoError(t, err)
	base := "http://" + addr.String()

	code, body := get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, map[string]any{"status": "ok"}, body)
	code, body = get(t, base+"/readyz")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, map[string]any{"status": "ready"}, body)

	jobsDown.Store(true)
	code, body = get(t, base+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, map[string]any{"statusCode": 503.0, "message": "job client not running",
		"error": "Service Unavailable"}, body)

	dbDown.Store(true)
	code, body = get(t, base+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "database unreachable", body["message"], "the first failing check is named")
	require.NotContains(t, body, "secret detail")
	lines := logs.lines(t)
	require.NotEmpty(t, lines)
	last := lines[len(lines)-1]
	require.Equal(t, "WARN", last["level"])
	require.Equal(t, "database unreachable", last["reason"])
	require.Contains(t, last["error"], "secret detail", "the cause is logged")
	code, _ = get(t, base+"/healthz")
	require.Equal(t, http.StatusOK, code, "alive while not ready")

	dbDown.Store(false)
	jobsDown.Store(false)
	code, _ = get(t, base+"/readyz")
	require.Equal(t, http.StatusOK, code, "ready again")

	resp, err := http.Get(base + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "metrics are still served beside the probes")
}

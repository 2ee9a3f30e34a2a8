package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/telemetry"
)

// accessLines are the access log's lines ("request") among lines, by request id.
func accessLines(lines []map[string]any) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, l := range lines {
		if l["msg"] == "request" {
			id, _ := l["requestId"].(string)
			out[id] = append(out[id], l)
		}
	}
	return out
}

// requireAccessLine asserts that request id was logged once by the access log, with these fields
// (durationMs and bytes are checked for presence and sign), and answers the line.
func requireAccessLine(t *testing.T, lines map[string][]map[string]any, id string, want map[string]any) map[string]any {
	t.Helper()
	require.Len(t, lines[id], 1, "one access log line for request %s: %v", id, lines[id])
	l := lines[id][0]
	for k, v := range want {
		require.Equal(t, v, l[k], "%s of request %s: %v", k, id, l)
	}
	require.IsType(t, float64(0), l["durationMs"], "%v", l)
	require.GreaterOrEqual(t, l["durationMs"].(float64), 0.0)
	require.IsType(t, float64(0), l["bytes"], "%v", l)
	return l
}

// TestAccessLog: every request is logged once, when it is finished, with its method, route pattern,
// status, bytes, duration, request id and, when the caller was authenticated, user id; the level follows
// the status, and the probes are at debug level.
func TestAccessLog(t *testing.T) {
	s := newObservedServer(t)
	u := s.register("ann@example.com")
	send := func(method, path, token, id string) *resp {
		return s.send(req{Method: method, Path: path, Token: token, Header: map[string]string{"X-Request-ID": id}})
	}
	projects := "/orgs/" + u.OrgSlug + "/workspaces/personal/projects"
	pat := s.pat(u, []string{"notifications:read"})

	s.logs.take(t)
	r := send("GET", projects, u.Token, "log-200")
	requireStatus(t, r, http.StatusOK)
	requireStatus(t, s.send(req{Method: "GET", Path: "/no/such/" + u.ID,
		Header: map[string]string{"X-Request-ID": "log-404"}, MayLeaveDocument: true}), http.StatusNotFound)
	requireStatus(t, send("GET", projects, "", "log-401"), http.StatusUnauthorized)
	requireStatus(t, send("GET", "/orgs/"+u.OrgSlug+"/workspaces/personal/projects/"+u.ID, u.Token, "log-404-op"),
		http.StatusNotFound)
	require.Equal(t, http.StatusOK, send("GET", "/healthz", "", "log-probe").Code)
	// A personal access token without the scope: refused, but the caller is known.
	requireStatus(t, send("GET", projects, pat, "log-403"), http.StatusForbidden)
	// /mcp authenticates on its own (not through the guard): its caller is named too.
	requireStatus(t, send("GET", "/mcp", "", "log-mcp-401"), http.StatusUnauthorized)
	mcp := send("POST", "/mcp", pat, "log-mcp")

	lines := accessLines(s.logs.take(t))
	requireAccessLine(t, lines, "log-200", map[string]any{"level": "INFO", "method": "GET",
		"route": "/orgs/{orgSlug}/workspaces/{wsSlug}/projects", "status": 200.0, "userId": u.ID,
		"bytes": float64(len(r.Body))})
	l := requireAccessLine(t, lines, "log-404", map[string]any{"level": "INFO", "method": "GET", "route": "unmatched",
		"status": 404.0})
	require.NotContains(t, l, "userId")
	l = requireAccessLine(t, lines, "log-401", map[string]any{"level": "INFO",
		"route": "/orgs/{orgSlug}/workspaces/{wsSlug}/projects", "status": 401.0})
	require.NotContains(t, l, "userId")
	requireAccessLine(t, lines, "log-404-op", map[string]any{"level": "INFO",
		"route": "/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}", "status": 404.0, "userId": u.ID})
	requireAccessLine(t, lines, "log-probe", map[string]any{"level": "DEBUG", "route": "/healthz", "status": 200.0})
	requireAccessLine(t, lines, "log-403", map[string]any{"level": "INFO", "status": 403.0, "userId": u.ID})
	l = requireAccessLine(t, lines, "log-mcp-401", map[string]any{"route": "/mcp", "status": 401.0})
	require.NotContains(t, l, "userId")
	requireAccessLine(t, lines, "log-mcp", map[string]any{"method": "POST", "route": "/mcp", "status": float64(mcp.Code),
		"userId": u.ID})
	for id, ls := range lines {
		for _, l := range ls {
			require.NotContains(t, l["route"], u.ID, "request %s: a route is a pattern, never the raw path", id)
		}
	}

	// An event stream is logged when it ends, with how long it stayed open.
	m := s.newTestMission(u, "running")
	st := s.open(u, m, map[string]string{"X-Request-ID": "log-stream"})
	s.emit(m, "status", "completed", "done")
	requireEvent(t, st, m, 1, "status", "completed", "done")
	st.RequireEnd(t, streamWait)
	var got map[string][]map[string]any
	waitFor(t, "the stream's access log line", func() bool {
		got = accessLines(s.logs.take(t))
		return len(got["log-stream"]) > 0
	})
	l = requireAccessLine(t, got, "log-stream", map[string]any{"level": "INFO", "method": "GET",
		"route": "/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/events", "status": 200.0, "userId": u.ID,
		"stream": true})
	require.Positive(t, l["bytes"])
}

// TestAccessLogOfAPanic: a panic is logged as the 500 it is answered with, at error level.
func TestAccessLogOfAPanic(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := &Server{logger: slog.New(telemetry.NewLogHandler(slog.NewJSONHandler(&buf, nil)))}
	h := telemetry.RequestID(s.accessLog(s.recoverer(http.HandlerFunc(func(http.ResponseWriter,
		*http.Request) {
		panic("boom")
	}))))
	rec := httptest.NewRecorder()
	hr := httptest.NewRequest("GET", "/x", nil)
	hr.Header.Set("X-Request-ID", "log-500")
	h.ServeHTTP(rec, hr)
	require.Equal(t, http.StatusInternalServerError, rec.Code)
	var lines []map[string]any
	for _, s := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var l map[string]any
		require.NoError(t, json.Unmarshal([]byte(s), &l))
		lines = append(lines, l)
	}
	requireAccessLine(t, accessLines(lines), "log-500", map[string]any{"level": "ERROR", "status": 500.0,
		"route": "unmatched"})
}

func TestAccessLevel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		route  string
		status int
		want   slog.Level
	}{
		{"/organizations", 200, slog.LevelInfo},
		{"/organizations", 304, slog.LevelInfo},
		{"/organizations", 404, slog.LevelInfo},
		{"/organizations", 429, slog.LevelInfo},
		{"/organizations", 500, slog.LevelError},
		{"/organizations", 503, slog.LevelError},
		{"/healthz", 200, slog.LevelDebug},
		{"/readyz", 200, slog.LevelDebug},
		{"/readyz", 503, slog.LevelWarn},
	} {
		require.Equal(t, tc.want, accessLevel(tc.route, tc.status), "%s %d", tc.route, tc.status)
	}
}

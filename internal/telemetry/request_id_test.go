package telemetry

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestValidRequestID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"abc-123":                               true,
		"0f8fad5b-d9cb-469f-a165-70867728950e":  true,
		"req:1/2+3=4_~!":                        true,
		strings.Repeat("a", MaxRequestIDLength): true,
		"":                                      false,
		strings.Repeat("a", MaxRequestIDLength+1): false,
		"has space": false,
		"new\nline": false,
		"tab\t":     false,
		"nul\x00":   false,
		"del\x7f":   false,
		"unicodé":   false,
	} {
		require.Equal(t, want, ValidRequestID(id), "%q", id)
	}
}

func TestRequestIDMiddleware(t *testing.T) {
	t.Parallel()
	var seen string
	h := RequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = RequestIDFrom(r.Context()) }))
	serve := func(header string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if header != "" {
			r.Header.Set(RequestIDHeader, header)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	w := serve("client-id-42")
	require.Equal(t, "client-id-42", w.Header().Get(RequestIDHeader), "a valid client id is kept and answered")
	require.Equal(t, "client-id-42", seen, "and carried by the request's context")

	for _, bad := range []string{"", "two words", strings.Repeat("x", 500), "bell\a"} {
		w := serve(bad)
		got := w.Header().Get(RequestIDHeader)
		require.NotEqual(t, bad, got)
		_, err := uuid.Parse(got)
		require.NoError(t, err, "an absent or invalid id is replaced by a new one: %q", got)
		require.Equal(t, got, seen)
	}
	first := serve("").Header().Get(RequestIDHeader)
	require.NotEqual(t, first, serve("").Header().Get(RequestIDHeader), "each request gets its own id")
}

func TestLogHandler(t *testing.T) {
	t.Parallel()
	var buf logBuffer
	logger := slog.New(NewLogHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.Same(t, logger.Handler(), NewLogHandler(logger.Handler()), "wrapping twice adds nothing")

	ctx := WithRequestID(context.Background(), "req-7")
	logger.InfoContext(ctx, "with id", "n", 1)
	logger.With("component", "x").WarnContext(ctx, "with attrs")
	logger.Info("without context")
	logger.InfoContext(context.Background(), "context without id")

	lines := buf.lines(t)
	require.Len(t, lines, 4)
	require.Equal(t, "req-7", lines[0]["requestId"])
	require.Equal(t, "req-7", lines[1]["requestId"])
	require.Equal(t, "x", lines[1]["component"])
	require.NotContains(t, lines[2], "requestId")
	require.NotContains(t, lines[3], "requestId")
	require.NotContains(t, lines[0], "traceId", "no span, no trace id")
}

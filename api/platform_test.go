package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do("GET", "/healthz", "", nil)
	require.Equal(t, http.StatusOK, r.Code)
	r = e.do("GET", "/readyz", "", nil)
	require.Equal(t, http.StatusOK, r.Code, "body: %s", r.Body)
	require.Equal(t, "ready", decode[map[string]string](t, r)["status"]) // what ready writes
}

func TestErrorShapeOnRouterFallbacks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	requireStatus(t, e.do("GET", "/no/such/route", "", nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", "/auth/me", "", nil), http.StatusMethodNotAllowed)
	requireStatus(t, e.do("PUT", "/organizations", "", nil), http.StatusMethodNotAllowed)
}

func TestErrorShapeOnBadBodies(t *testing.T) {
	t.Parallel()
	e := setup(t)
	requireStatus(t, e.do("POST", "/auth/register", "", "{not json"), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/auth/register", "", `{"email":"a@b.co","password":"12345678","unknown":1}`), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/auth/register", "", `{"email":"a@b.co","password":12345678}`), http.StatusBadRequest)
	big := `{"email":"a@b.co","password":"12345678","name":"` + strings.Repeat("x", 2<<20) + `"}`
	requireStatus(t, e.do("POST", "/auth/register", "", big), http.StatusRequestEntityTooLarge)
}

func TestValidationIs400WithFieldErrors(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do("POST", "/auth/register", "", map[string]any{"email": "nope", "password": "short"})
	requireStatus(t, r, http.StatusBadRequest)
	errs := decode[ErrorBody](t, r).Errors
	fields := map[string]bool{}
	for _, fe := range errs {
		fields[fe.Field] = true
	}
	require.True(t, fields["email"], "errors: %v", errs)
	require.True(t, fields["password"], "errors: %v", errs)
}

func TestPanicIsA500InErrorShapeWithoutLeak(t *testing.T) {
	t.Parallel()
	s := &Server{logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	h := s.recoverer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("db password is hunter2") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	r := &resp{Code: rec.Code, Body: rec.Body.Bytes(), Header: rec.Header()}
	requireStatus(t, r, http.StatusInternalServerError)
	require.NotContains(t, string(r.Body), "hunter2")
}

func TestUnexpectedErrorsDoNotLeak(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	err := buildError(context.Background(), logger, http.StatusInternalServerError, "unexpected error occurred", errors.New("pq: relation secret_table"))
	body := err.(*ErrorBody)
	require.Equal(t, "internal server error", body.Message)
	require.Equal(t, "Internal Error", body.ErrorName)
	require.Empty(t, body.Errors)
}

// A request its client abandoned ends its handler with the context's error: that is answered 499 and
// logged at debug level, not as an internal error; a real failure still is.
func TestAbandonedRequestIsNoInternalError(t *testing.T) {
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := buildError(ctx, logger, http.StatusInternalServerError, "unexpected error occurred", fmt.Errorf("list cards: %w", context.Canceled))
	require.Equal(t, statusClientClosed, got.GetStatus())
	require.Empty(t, logs.String())
	got = buildError(ctx, logger, http.StatusInternalServerError, "unexpected error occurred", errors.New("disk on fire"))
	require.Equal(t, http.StatusInternalServerError, got.GetStatus())
	require.Contains(t, logs.String(), "disk on fire")
}

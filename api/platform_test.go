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

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
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
	requireStatus(t, e.undocumented("GET", "/no/such/route", ""), http.StatusNotFound)
	requireStatus(t, e.undocumented("DELETE", "/auth/me", ""), http.StatusMethodNotAllowed)
	requireStatus(t, e.undocumented("PUT", "/organizations", ""), http.StatusMethodNotAllowed)
}

func TestErrorShapeOnBadBodies(t *testing.T) {
	t.Parallel()
	e := setup(t)
	requireStatus(t, e.do("POST", "/auth/register", "", "{not json"), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/auth/register", "", `{"email":"a@b.co","password":"12345678","unknown":1}`),
		http.StatusBadRequest)
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
	err := buildError(context.Background(), logger, http.StatusInternalServerError, "unexpected error occurred",
		errors.New("pq: relation secret_table"))
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
	got := buildError(ctx, logger, http.StatusInternalServerError, "unexpected error occurred",
		fmt.Errorf("list cards: %w", context.Canceled))
	require.Equal(t, statusClientClosed, got.GetStatus())
	require.Empty(t, logs.String())
	got = buildError(ctx, logger, http.StatusInternalServerError, "unexpected error occurred", errors.New("disk on fire"))
	require.Equal(t, http.StatusInternalServerError, got.GetStatus())
	require.Contains(t, logs.String(), "disk on fire")
}

// requireUnavailable asserts a 503 in the error shape that says when to try again.
func requireUnavailable(t *testing.T, r *resp) {
	t.Helper()
	requireStatus(t, r, http.StatusServiceUnavailable)
	require.Equal(t, retryAfter, r.Header.Get("Retry-After"), "body: %s", r.Body)
	require.NotContains(t, string(r.Body), "closed pool", "no driver text for the caller")
}

// The database out of reach is no server bug: every path a request can meet it on (an operation, the
// guard's authentication and token bookkeeping, /mcp's authentication) answers 503 with Retry-After in
// the error shape, never 500.
func TestDatabaseOutageIs503WithRetryAfter(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Outage")
	e.card(u, prj, cols[0], "before")
	pat := e.pat(u, nil)

	e.pool.Close() // every acquire now fails: the pool is closed

	requireUnavailable(t, e.do("POST", prj+"/columns/"+cols[0]+"/cards", u.Token, map[string]any{"title": "during"}))
	requireUnavailable(t, e.do("GET", prj+"/cards", u.Token, nil))
	// the guard loads the session's user
	requireUnavailable(t, e.do("GET", "/auth/me", u.Token, nil))
	// the guard records the token's use
	requireUnavailable(t, e.do("GET", "/orgs/"+u.OrgSlug+"/workspaces/"+u.WsSlug, pat, nil))
	requireUnavailable(t, e.do("POST", "/auth/login", "", map[string]any{"email": "ann@example.com",
		"password": "correct-horse"}))
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize",` +
		`"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	requireUnavailable(t, e.send(req{Method: "POST", Path: "/mcp", Body: init,
		Header: map[string]string{"Authorization": "Bearer " + pat, "Accept": "application/json, text/event-stream"}}))
	// The operator learns why: each 503 an operation answered is logged at warn with its cause.
	require.Contains(t, e.logs.String(), `level=WARN msg=unavailable operation=cards-create-in-column cause=`)
	require.Contains(t, e.logs.String(), "closed pool")
}

// fail and buildError classify the database's unavailability, whether the store translated it or it
// came raw from the driver: no internal error, and the cause kept for logUnavailable (never shown).
func TestUnavailableIsNoInternalError(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	raw := &pgconn.PgError{Severity: "FATAL", Code: "57P01",
		Message: "terminating connection due to administrator command"}
	for _, err := range []error{raw, fmt.Errorf("create card: %w", &db.Error{Kind: db.ErrUnavailable,
		Msg: "the database is unavailable"})} {
		var eb *ErrorBody
		require.ErrorAs(t, fail(err), &eb)
		require.Equal(t, http.StatusServiceUnavailable, eb.StatusCode)
		require.Equal(t, "Service Unavailable", eb.ErrorName)
		require.NotContains(t, eb.Message, "administrator")
		require.Equal(t, http.Header{"Retry-After": {retryAfter}}, eb.GetHeaders())
		require.ErrorIs(t, eb.cause, err)

		got := buildError(context.Background(), logger, http.StatusInternalServerError, "unexpected error occurred", err)
		require.Equal(t, http.StatusServiceUnavailable, got.GetStatus())
		require.NotContains(t, got.Error(), "administrator")
		require.ErrorIs(t, got.(*ErrorBody).cause, err)
	}
	require.NotContains(t, logs.String(), "internal error")
	// Other errors have no Retry-After.
	require.Nil(t, newErrorBody(http.StatusInternalServerError, "x").GetHeaders())
}

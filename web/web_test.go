package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/api"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/web"
)

// TestServing: the app's page on its routes and for a browser's navigation to an unknown path, with its
// Content-Security-Policy; the API's paths and JSON 404 as before; the files compressed and revalidated.
func TestServing(t *testing.T) {
	t.Parallel()
	b := testfactory.Store(t)
	signer, err := auth.NewSigner(auth.StaticKeys([]byte("web-test-secret-web-test-secret!")), time.Hour)
	require.NoError(t, err)
	srv := httptest.NewServer(api.New(b.Engines, signer, billing.Local{}, slog.New(slog.NewTextHandler(io.Discard, nil)),
		api.Options{}))
	t.Cleanup(srv.Close)
	get := func(method, path, accept string, header ...string) (*answer, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, nil)
		require.NoError(t, err)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return &answer{StatusCode: res.StatusCode, Header: res.Header}, string(body)
	}
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	page := func(res *answer, body string) {
		t.Helper()
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
		require.Equal(t, web.CSP, res.Header.Get("Content-Security-Policy"))
		require.Contains(t, body, `<script type="module" src="/static/app.js">`)
		require.NotContains(t, body, "<script>", "no inline script")
	}
	// The app's routes, whatever the Accept header; the e-mails' links among them.
	for _, p := range []string{"/", "/sign-in", "/reset-password?token=abc", "/verify-email?token=abc",
		"/invitations/tok/accept", "/organization-invitations/tok/accept", "/w/org/ws/p/123"} {
		page(get("GET", p, browser))
		page(get("GET", p, ""))
	}
	res, _ := get("HEAD", "/", browser)
	require.Equal(t, http.StatusOK, res.StatusCode)
	// An unknown path: the page for a browser's navigation, the JSON 404 for anything else.
	page(get("GET", "/somewhere/else", browser))
	res, body := get("GET", "/somewhere/else", "application/json")
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	require.JSONEq(t, `{"statusCode":404,"message":"no route GET /somewhere/else","error":"Not Found"}`, body)
	res, _ = get("POST", "/somewhere/else", browser)
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	// The API's paths stay the API's, a browser's navigation included.
	res, body = get("GET", "/auth/me", browser)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.Contains(t, body, `"statusCode":401`)
	res, _ = get("POST", "/invitations/tok/accept", "application/json")
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	res, _ = get("GET", "/healthz", browser)
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	// Files: typed, gzip-encoded when accepted, revalidated with their ETag.
	res, body = get("GET", "/static/app.js", "*/*")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/javascript; charset=utf-8", res.Header.Get("Content-Type"))
	require.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
	want, err := os.ReadFile("static/app.js")
	require.NoError(t, err)
	require.Equal(t, string(want), body)
	res, _ = get("GET", "/static/app.js", "*/*", "Accept-Encoding", "gzip")
	require.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
	res, _ = get("GET", "/static/app.js", "*/*", "If-None-Match", res.Header.Get("ETag"))
	require.Equal(t, http.StatusNotModified, res.StatusCode)
	res, _ = get("GET", "/static/nope.js", "*/*")
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	res, _ = get("GET", "/static/index.html", "*/*")
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	for _, f := range []string{"vendor/preact.js", "vendor/preact-hooks.js", "vendor/htm.js", "app.css"} {
		res, body = get("GET", "/static/"+f, "*/*")
		require.Equal(t, http.StatusOK, res.StatusCode, f)
		require.False(t, strings.Contains(body, "http://") && strings.Contains(f, "vendor/preact-hooks"), "no remote import")
	}
}

// answer is what a request got back, its body read and closed.
type answer struct {
	StatusCode int
	Header     http.Header
}

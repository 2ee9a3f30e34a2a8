package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireSecurityHeaders asserts the headers every answer carries, and its Cache-Control.
func requireSecurityHeaders(t *testing.T, r *resp, cacheControl, what string) {
	t.Helper()
	require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"), what)
	require.Equal(t, "no-referrer", r.Header.Get("Referrer-Policy"), what)
	require.Equal(t, "frame-ancestors 'none'", r.Header.Get("Content-Security-Policy"), what)
	require.Equal(t, cacheControl, r.Header.Get("Cache-Control"), what)
}

// sessionCookies logs u in and answers the cookies the login set.
func (e *testEnv) sessionCookies(u user) []*http.Cookie {
	e.t.Helper()
	r := e.do("POST", "/auth/login", "", map[string]any{"email": u.Email, "password": "correct-horse"})
	requireStatus(e.t, r, http.StatusOK)
	cookies := (&http.Response{Header: r.Header}).Cookies()
	require.NotEmpty(e.t, cookies)
	return cookies
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("headers@example.com")

	// Public answers: the headers, and caches may keep them.
	r := e.do("GET", "/healthz", "", nil)
	requireStatus(t, r, http.StatusOK)
	requireSecurityHeaders(t, r, "", "healthz")
	r = e.do("GET", "/api/openapi.json", "", nil)
	requireStatus(t, r, http.StatusOK)
	requireSecurityHeaders(t, r, "", "openapi.json")
	r = e.undocumented("GET", "/no/such/route", "")
	requireStatus(t, r, http.StatusNotFound)
	requireSecurityHeaders(t, r, "", "router 404")
	r = e.do("GET", "/organizations", "", nil)
	requireStatus(t, r, http.StatusUnauthorized)
	requireSecurityHeaders(t, r, "", "401 without credentials")

	// Authenticated answers, successes and errors alike, are never stored.
	r = e.do("GET", "/organizations", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	requireSecurityHeaders(t, r, "no-store", "bearer")
	r = e.do("GET", "/orgs/nope/workspaces", u.Token, nil)
	requireStatus(t, r, http.StatusNotFound)
	requireSecurityHeaders(t, r, "no-store", "bearer 404")
	r = e.undocumented("GET", "/no/such/route", u.Token)
	requireStatus(t, r, http.StatusNotFound)
	requireSecurityHeaders(t, r, "no-store", "bearer router 404")
	r = e.do("GET", "/organizations", "not-a-token", nil)
	requireStatus(t, r, http.StatusUnauthorized)
	requireSecurityHeaders(t, r, "no-store", "bad bearer")
	r = e.send(req{Method: "GET", Path: "/organizations", Cookies: e.sessionCookies(u)})
	requireStatus(t, r, http.StatusOK)
	requireSecurityHeaders(t, r, "no-store", "session cookie")

	// Every /auth answer, with credentials or not, success or refusal.
	r = e.do("POST", "/auth/login", "", map[string]any{"email": u.Email, "password": "correct-horse"})
	requireStatus(t, r, http.StatusOK)
	requireSecurityHeaders(t, r, "no-store", "login")
	r = e.do("POST", "/auth/login", "", map[string]any{"email": u.Email, "password": "wrong-horse"})
	requireStatus(t, r, http.StatusUnauthorized)
	requireSecurityHeaders(t, r, "no-store", "failed login")
	r = e.do("GET", "/auth/me", "", nil)
	requireStatus(t, r, http.StatusUnauthorized)
	requireSecurityHeaders(t, r, "no-store", "auth/me without credentials")
}

// corsHeaders are the CORS headers of an answer.
func corsHeaders(r *resp) http.Header {
	h := http.Header{}
	for k, v := range r.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			h[k] = v
		}
	}
	return h
}

func TestCORSOffByDefault(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("nocors@example.com")
	r := e.send(req{Method: "GET", Path: "/organizations", Token: u.Token,
		Header: map[string]string{"Origin": "https://app.example.com"}})
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, corsHeaders(r))
	// A preflight reaches the router, which has no OPTIONS routes.
	r = e.send(req{Method: "OPTIONS", Path: "/organizations",
		Header: map[string]string{"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"}})
	require.Empty(t, corsHeaders(r))
	require.NotEqual(t, http.StatusNoContent, r.Code)
}

func TestCORSListedOrigins(t *testing.T) {
	t.Parallel()
	const app = "https://app.example.com"
	e := setupWith(t, setupOpts{options: func(o *Options) { o.CORSOrigins = []string{app, "http://localhost:5173"} }})
	u := e.register("cors@example.com")

	// A listed origin: its own origin (never *), with credentials; the headers clients read are exposed.
	r := e.send(req{Method: "GET", Path: "/organizations", Token: u.Token, Header: map[string]string{"Origin": app}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, app, r.Header.Get("Access-Control-Allow-Origin"))
	require.Equal(t, "true", r.Header.Get("Access-Control-Allow-Credentials"))
	require.Contains(t, r.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id")
	require.Contains(t, r.Header.Values("Vary"), "Origin")
	requireSecurityHeaders(t, r, "no-store", "cors answer")
	// Errors too, so that the browser lets the client read them.
	r = e.send(req{Method: "GET", Path: "/organizations", Header: map[string]string{"Origin": app}})
	requireStatus(t, r, http.StatusUnauthorized)
	require.Equal(t, app, r.Header.Get("Access-Control-Allow-Origin"))

	// An unlisted origin, or a look-alike, gets no CORS header; the request itself is served (browsers
	// keep the answer from the page).
	for _, origin := range []string{"https://evil.example.com", "https://app.example.com.evil.com",
		"http://app.example.com", "null"} {
		r = e.send(req{Method: "GET", Path: "/organizations", Token: u.Token, Header: map[string]string{"Origin": origin}})
		requireStatus(t, r, http.StatusOK)
		require.Empty(t, corsHeaders(r), origin)
	}
	// No Origin (not a browser's cross-origin request): no CORS header.
	r = e.do("GET", "/organizations", u.Token, nil)
	require.Empty(t, corsHeaders(r))

	// A preflight is answered 204 before authentication, with what may be sent.
	for _, tc := range []struct{ path, method, headers string }{
		{"/organizations", "POST", "authorization,content-type"},
		{"/orgs/x/workspaces/y/projects/" + "00000000-0000-0000-0000-000000000000", "PATCH", "content-type,x-csrf-token"},
		{"/orgs/x/workspaces/y/missions/00000000-0000-0000-0000-000000000000/events", "GET", "authorization,last-event-id"},
		{"/mcp", "POST", "authorization,content-type,mcp-protocol-version,mcp-session-id"}, // sorted, as browsers send them,
		{"/mcp", "DELETE", "authorization,mcp-session-id"},
	} {
		r = e.send(req{Method: "OPTIONS", Path: tc.path, Header: map[string]string{"Origin": app,
			"Access-Control-Request-Method": tc.method, "Access-Control-Request-Headers": tc.headers}})
		require.Equal(t, http.StatusNoContent, r.Code, "%s %s: %s", tc.method, tc.path, r.Body)
		require.Empty(t, r.Body)
		require.Equal(t, app, r.Header.Get("Access-Control-Allow-Origin"), tc.path)
		require.Equal(t, "true", r.Header.Get("Access-Control-Allow-Credentials"), tc.path)
		require.Equal(t, tc.method, r.Header.Get("Access-Control-Allow-Methods"), tc.path)
		require.Equal(t, tc.headers, r.Header.Get("Access-Control-Allow-Headers"), tc.path)
		require.Equal(t, "600", r.Header.Get("Access-Control-Max-Age"), tc.path)
	}
	// A preflight for a header the API does not take, or from an unlisted origin, allows nothing.
	r = e.send(req{Method: "OPTIONS", Path: "/organizations", Header: map[string]string{"Origin": app,
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-unknown"}})
	require.Empty(t, corsHeaders(r))
	r = e.send(req{Method: "OPTIONS", Path: "/organizations",
		Header: map[string]string{"Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST"}})
	require.Equal(t, http.StatusNoContent, r.Code)
	require.Empty(t, corsHeaders(r))
}

package api

import (
	"net/http"
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
	r = e.do("GET", "/no/such/route", "", nil)
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
	r = e.do("GET", "/no/such/route", u.Token, nil)
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

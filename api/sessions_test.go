package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/sessionwatch"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
)

const firefoxUA = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"

// loginAs logs in with a User-Agent and answers the session.
func loginAs(e *testEnv, email, userAgent string) SessionBody {
	e.t.Helper()
	r := e.send(req{Method: "POST", Path: "/auth/login", Header: map[string]string{"User-Agent": userAgent},
		Body: map[string]any{"email": email, "password": identPassword}})
	requireStatus(e.t, r, http.StatusOK)
	return decode[SessionBody](e.t, r)
}

func listSessions(e *testEnv, token string) []SessionOut {
	e.t.Helper()
	r := e.do("GET", "/auth/sessions", token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return decode[[]SessionOut](e.t, r)
}

func currentSession(t *testing.T, list []SessionOut) SessionOut {
	t.Helper()
	for _, s := range list {
		if s.Current {
			return s
		}
	}
	t.Fatalf("no current session in %+v", list)
	return SessionOut{}
}

func TestLogoutEndsTheSessionOnEveryRoute(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ada@example.com")
	projects := "/orgs/" + u.OrgSlug + "/workspaces/personal/projects"
	// Warm the access cache for the tenant route, so the refusal below cannot come from a cold cache.
	requireStatus(t, e.do("GET", projects, u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", projects, u.Token, nil), http.StatusOK)

	requireStatus(t, e.do("POST", "/auth/logout", u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", "/auth/me", u.Token, nil), http.StatusUnauthorized)
	requireStatus(t, e.do("GET", projects, u.Token, nil), http.StatusUnauthorized)
	mcp := e.send(req{Method: "POST", Path: "/mcp", Token: u.Token,
		Header: map[string]string{"Accept": "application/json, text/event-stream"}, Body: map[string]any{"jsonrpc": "2.0",
			"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18",
				"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}})
	requireStatus(t, mcp, http.StatusUnauthorized)
	// Logging out again, or without any session, only clears the cookie.
	requireStatus(t, e.do("POST", "/auth/logout", u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("POST", "/auth/logout", "", nil), http.StatusOK)

	// A cookie session ends the same way.
	login := identLogin(e, "ada@example.com", identPassword)
	requireStatus(t, login, http.StatusOK)
	jar := []*http.Cookie{identSessionCookie(login)}
	requireStatus(t, e.send(req{Method: "GET", Path: "/auth/me", Cookies: jar}), http.StatusOK)
	out := e.send(req{Method: "POST", Path: "/auth/logout", Cookies: jar})
	requireStatus(t, out, http.StatusOK)
	require.Contains(t, out.Header.Get("Set-Cookie"), "Max-Age=0")
	requireStatus(t, e.send(req{Method: "GET", Path: "/auth/me", Cookies: jar}), http.StatusUnauthorized)
	requireStatus(t, e.do("GET", "/auth/me", decode[SessionBody](t, login).AccessToken, nil), http.StatusUnauthorized)
}

func TestSessionsListRevokeAndRevokeOthers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	reg := identRegister(e, "bea@example.com", "Bea")
	firefox := loginAs(e, "bea@example.com", firefoxUA)
	curl := loginAs(e, "bea@example.com", "curl/8.5.0")
	other := identRegister(e, "cy@example.com", "Cy")

	list := listSessions(e, firefox.AccessToken)
	require.Len(t, list, 3, "registration and two logins")
	cur := currentSession(t, list)
	require.Equal(t, "Firefox on Linux", cur.Device)
	require.Equal(t, firefoxUA, cur.UserAgent)
	require.NotEmpty(t, cur.ClientIP)
	curlSession := currentSession(t, listSessions(e, curl.AccessToken))
	require.Equal(t, "curl", curlSession.Device)
	require.Len(t, listSessions(e, other.AccessToken), 1, "another user's sessions are not listed")

	// Revoking one session refuses its token at once, and only its token.
	requireStatus(t, e.do("DELETE", "/auth/sessions/"+curlSession.ID, firefox.AccessToken, nil), http.StatusOK)
	requireStatus(t, e.do("GET", "/auth/me", curl.AccessToken, nil), http.StatusUnauthorized)
	requireStatus(t, e.do("GET", "/auth/me", firefox.AccessToken, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", "/auth/sessions/"+curlSession.ID, firefox.AccessToken, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", "/auth/sessions/not-a-uuid", firefox.AccessToken, nil), http.StatusNotFound)
	othersSession := currentSession(t, listSessions(e, other.AccessToken))
	requireStatus(t, e.do("DELETE", "/auth/sessions/"+othersSession.ID, firefox.AccessToken, nil), http.StatusNotFound)
	// another user's session was not revoked
	requireStatus(t, e.do("GET", "/auth/me", other.AccessToken, nil), http.StatusOK)

	// Revoking the others keeps this one.
	r := e.do("POST", "/auth/sessions/revoke-others", firefox.AccessToken, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, int64(1), decode[RevokedSessionsOut](t, r).Revoked)
	requireStatus(t, e.do("GET", "/auth/me", reg.AccessToken, nil), http.StatusUnauthorized)
	require.Len(t, listSessions(e, firefox.AccessToken), 1)

	// A password change ends every session and answers a new one.
	pw := e.do("POST", "/auth/change-password", firefox.AccessToken, map[string]any{"currentPassword": identPassword,
		"newPassword": "another-horse"})
	requireStatus(t, pw, http.StatusOK)
	fresh := decode[SessionBody](t, pw).AccessToken
	requireStatus(t, e.do("GET", "/auth/me", firefox.AccessToken, nil), http.StatusUnauthorized)
	list = listSessions(e, fresh)
	require.Len(t, list, 1)
	require.True(t, list[0].Current)

	// Personal access tokens do not manage sessions.
	pat := e.do("POST", "/api-tokens", fresh, map[string]any{"name": "ci"})
	requireStatus(t, pat, http.StatusCreated)
	requireStatus(t, e.do("GET", "/auth/sessions", decode[CreatedTokenOut](t, pat).Token, nil), http.StatusForbidden)
}

// An open event stream ends when its session is revoked, and cannot be reopened with its token.
func TestRevokedSessionEndsItsOpenStream(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	watcher := sessionwatch.Start(ctx, engines.New(pool, nil, engines.Options{}).Store,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	<-watcher.Ready()
	s := newStreamServerWith(t, pool, stream.Config{}, Options{Sessions: watcher})
	u := s.register("dee@example.com")
	m := s.newTestMission(u, "running")
	st := s.open(u, m, nil)
	require.Equal(t, 1, watcher.Watching())

	// Another session of the same user stays open.
	second := loginAs(s.testEnv, "dee@example.com", "curl/8.5.0")
	st2 := s.open(user{ID: u.ID, Email: u.Email, Token: second.AccessToken, OrgSlug: u.OrgSlug, WsSlug: u.WsSlug}, m, nil)
	require.Equal(t, 2, watcher.Watching())

	requireStatus(t, s.do("POST", "/auth/logout", u.Token, nil), http.StatusOK)
	st.RequireEnd(t, streamWait)
	r, err := http.NewRequestWithContext(context.Background(), http.MethodGet, s.eventsURL(u, m), nil)
	require.NoError(t, err)
	r.Header.Set("Authorization", "Bearer "+u.Token)
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	s.emit(m, "step", "running", "still here")
	requireEvent(t, st2, m, 1, "step", "running", "still here")
	st2.Close()
}

// TestEndedSessionRefusedByEveryProcess runs two api processes on one database, each with its own cache
// of checked sessions: both answer /auth/me from memory once warm, and a session ended through one is
// refused by the other on its next request once the database's notification reached it.
func TestEndedSessionRefusedByEveryProcess(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	cache := accesscache.Start(ctx, e.eng.Store, logger)
	<-cache.Ready()
	replica := *e
	replica.access = cache
	replica.handler = newTestHandler(t, e.eng, e.signer, logger,
		Options{PublicURL: "http://pilot.test", LoginRateLimit: 1000, RegisterRateLimit: 1000, AccessCache: cache})
	u := e.register("ada@example.com")
	other := e.register("bob@example.com")

	for _, env := range []*testEnv{e, &replica} {
		requireStatus(t, env.do("GET", "/auth/me", u.Token, nil), http.StatusOK)
		hits := env.access.Hits()
		requireStatus(t, env.do("GET", "/auth/me", u.Token, nil), http.StatusOK)
		require.Equal(t, hits+1, env.access.Hits(), "the second /auth/me is answered from memory")
	}
	requireStatus(t, replica.do("GET", "/auth/me", other.Token, nil), http.StatusOK)

	requireStatus(t, e.do("POST", "/auth/logout", u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", "/auth/me", u.Token, nil), http.StatusUnauthorized)
	// Notifications arrive in commit order: once the replica heard a marker sent after the logout
	// committed, it heard the logout's.
	marker := "test-marker-" + u.ID
	_, err := e.pool.Exec(ctx, "SELECT pg_notify('pilot_access', $1)", marker)
	require.NoError(t, err)
	waitFor(t, "the replica to hear the marker", func() bool { return cache.Heard() == marker })
	requireStatus(t, replica.do("GET", "/auth/me", u.Token, nil), http.StatusUnauthorized)
	requireStatus(t, replica.do("GET", "/auth/me", other.Token, nil), http.StatusOK)
}

// A revoked personal access token ends at once, in every api process, the event feeds and the MCP
// sessions opened with it (the database announces 't:<token id>' on pilot_sessions); the user's other
// token keeps its own.
func TestRevokedTokenEndsItsStreamsInEveryProcess(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Two api processes on one database, each hearing endings on a connection of its own.
	process := func() *feedEnv {
		watcher := sessionwatch.Start(ctx, e.eng.Store, logger)
		<-watcher.Ready()
		p := *e
		p.handler = newTestHandler(t, e.eng, e.signer, logger, Options{
			PublicURL: "http://pilot.test", LoginRateLimit: 1000, RegisterRateLimit: 1000, AccessCache: e.access,
			Sessions: watcher})
		srv := httptest.NewServer(p.handler)
		t.Cleanup(srv.Close)
		p.httpURL = srv.URL
		return &feedEnv{testEnv: &p, url: srv.URL}
	}
	a, b := process(), process()
	u := a.register("ann@example.com")
	prj, cols := a.project(u, "Board")
	newToken := func(name string) CreatedTokenOut {
		r := a.do("POST", "/api-tokens", u.Token, map[string]any{"name": name,
			"scopes": []string{"projects:read", "projects:write"}})
		requireStatus(t, r, http.StatusCreated)
		return decode[CreatedTokenOut](t, r)
	}
	ci, other := newToken("ci"), newToken("other")

	feedA, feedB := a.feed(ci.Token, u.ws(), "", nil), b.feed(ci.Token, u.ws(), "", nil)
	otherFeed := b.feed(other.Token, u.ws(), "", nil)
	session, otherSession := b.mcpOpen(ci.Token), b.mcpOpen(other.Token)
	mcpStream := ssetest.Open(t, b.url+"/mcp", map[string]string{"Authorization": "Bearer " + ci.Token,
		"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"})
	require.Equal(t, http.StatusOK, mcpStream.Resp.StatusCode)

	requireStatus(t, a.do("DELETE", "/api-tokens/"+ci.ID, u.Token, nil), http.StatusOK)
	feedA.RequireEnd(t, streamWait)
	feedB.RequireEnd(t, streamWait)
	mcpStream.RequireEnd(t, streamWait)
	require.False(t, b.mcpAlive(other.Token, session), "the token's MCP session is closed, not left to time out")
	requireStatus(t, b.mcpRaw("POST", ci.Token, session, mcpPing, nil), http.StatusUnauthorized)

	card := a.card(u, prj, cols[0], "After")
	requireFeedEvent(t, otherFeed, "card_created", card.ID)
	require.True(t, b.mcpAlive(other.Token, otherSession))
	otherFeed.Close()
}

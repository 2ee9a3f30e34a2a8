package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mcpInitialize is the body of an initialize request.
const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// mcpPing is the body of a ping request.
const mcpPing = `{"jsonrpc":"2.0","id":2,"method":"ping"}`

// mcpRaw sends one request to /mcp as a streamable HTTP client would (JSON body, Accept both types),
// with the session id when given; header adds or replaces headers ("" removes one, except a body's
// Content-Type, which send always sets).
func (e *testEnv) mcpRaw(method, token, session, body string, header map[string]string) *resp {
	e.t.Helper()
	h := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
	if session != "" {
		h["Mcp-Session-Id"] = session
	}
	for k, v := range header {
		h[k] = v
	}
	// The methods /mcp does not have (405) are not in the OpenAPI document.
	documented := method == "GET" || method == "POST" || method == "DELETE"
	r := req{Method: method, Path: "/mcp", Token: token, Header: map[string]string{}, MayLeaveDocument: !documented}
	if body != "" {
		r.Body = body
	}
	for k, v := range h {
		if v != "" {
			r.Header[k] = v
		}
	}
	return e.send(r)
}

// mcpOpen opens an MCP session with token and answers its id.
func (e *testEnv) mcpOpen(token string) string {
	e.t.Helper()
	r := e.mcpRaw("POST", token, "", mcpInitialize, nil)
	require.Equal(e.t, http.StatusOK, r.Code, "body: %s", r.Body)
	id := r.Header.Get("Mcp-Session-Id")
	require.NotEmpty(e.t, id)
	return id
}

// mcpAlive reports whether a session answers a ping; a session that does not is answered 404 in the
// error shape.
func (e *testEnv) mcpAlive(token, session string) bool {
	e.t.Helper()
	r := e.mcpRaw("POST", token, session, mcpPing, nil)
	if r.Code == http.StatusNotFound {
		requireErrorShape(e.t, r, http.StatusNotFound)
		require.Contains(e.t, decode[ErrorBody](e.t, r).Message, "session not found")
		return false
	}
	require.Equal(e.t, http.StatusOK, r.Code, "body: %s", r.Body)
	return true
}

// TestMCPTransportErrors: what the transport refuses outside JSON-RPC is answered in the API's error
// shape (application/json) with the transport's status, never as plain text.
func TestMCPTransportErrors(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	session := e.mcpOpen(ann.Token)

	// A good answer is JSON-RPC, untouched but never stored.
	r := e.mcpRaw("POST", ann.Token, session, mcpPing, nil)
	require.Equal(t, http.StatusOK, r.Code, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	require.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, string(r.Body))
	requireSecurityHeaders(t, r, "no-store", "mcp answer")

	for _, tc := range []struct {
		name        string
		method      string
		session     string
		body        string
		header      map[string]string
		token       string
		code        int
		wantMessage string
	}{
		{name: "malformed payload", method: "POST", body: `{"jsonrpc":"2.0",`, code: http.StatusBadRequest,
			wantMessage: "malformed payload"},
		{name: "malformed payload in a session", method: "POST", session: session, body: `not json`,
			code: http.StatusBadRequest, wantMessage: "malformed payload"}, {name: "empty body", method: "POST",
			session: session, header: map[string]string{"Content-Type": "application/json"}, code: http.StatusBadRequest},
		{name: "unknown session", method: "POST", session: "no-such-session", body: mcpPing, code: http.StatusNotFound,
			wantMessage: "session not found"}, {name: "unknown session on GET", method: "GET", session: "no-such-session",
			header: map[string]string{"Accept": "text/event-stream", "Content-Type": ""}, code: http.StatusNotFound,
			wantMessage: "session not found"}, {name: "unknown session on DELETE", method: "DELETE", session: "no-such-session",
			code: http.StatusNotFound, wantMessage: "session not found"}, {name: "another user's session", method: "POST",
			session: session, body: mcpPing, token: bob.Token, code: http.StatusForbidden},
		{name: "body too large", method: "POST", session: session,
			body: `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` +
				strings.Repeat("a", 4<<20) + `"}}`, code: http.StatusRequestEntityTooLarge, wantMessage: "exceeds"},
		{name: "wrong method", method: "PUT", session: session, body: mcpPing, code: http.StatusMethodNotAllowed},
		{name: "PATCH", method: "PATCH", body: mcpPing, code: http.StatusMethodNotAllowed},
		{name: "unknown JSON-RPC method", method: "POST", session: session,
			body: `{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`, code: http.StatusBadRequest,
			wantMessage: "no/such/method"}, {name: "missing Accept", method: "POST", session: session, body: mcpPing,
			header: map[string]string{"Accept": ""}, code: http.StatusBadRequest, wantMessage: "Accept"},
		{name: "Accept without event streams", method: "POST", body: mcpInitialize,
			header: map[string]string{"Accept": "application/json"}, code: http.StatusBadRequest, wantMessage: "Accept"},
		{name: "Accept of a GET without event streams", method: "GET", session: session,
			header: map[string]string{"Accept": "application/json"}, code: http.StatusBadRequest, wantMessage: "Accept"},
		{name: "GET without a session", method: "GET", header: map[string]string{"Accept": "text/event-stream"},
			code: http.StatusBadRequest}, {name: "DELETE without a session", method: "DELETE", code: http.StatusBadRequest},
		{name: "wrong Content-Type", method: "POST", session: session, body: mcpPing,
			header: map[string]string{"Content-Type": "text/plain"}, code: http.StatusUnsupportedMediaType,
			wantMessage: "Content-Type"}, {name: "unsupported protocol version", method: "POST", session: session, body: mcpPing,
			header: map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, code: http.StatusBadRequest,
			wantMessage: "protocol version"},
	} {
		token := tc.token
		if token == "" {
			token = ann.Token
		}
		r := e.mcpRaw(tc.method, token, tc.session, tc.body, tc.header)
		require.Equal(t, tc.code, r.Code, "%s: %s", tc.name, r.Body)
		requireErrorShape(t, r, tc.code)
		b := decode[ErrorBody](t, r)
		if tc.wantMessage != "" {
			require.Contains(t, b.Message, tc.wantMessage, tc.name)
		}
		require.NotContains(t, b.Message, "\n", tc.name)
		requireSecurityHeaders(t, r, "no-store", tc.name)
		if tc.code == http.StatusMethodNotAllowed {
			require.Equal(t, "GET, POST, DELETE", r.Header.Get("Allow"), tc.name)
		}
	}

	// The session still works, and a JSON-RPC error stays JSON-RPC.
	require.True(t, e.mcpAlive(ann.Token, session))
	r = e.mcpRaw("POST", ann.Token, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	require.Equal(t, http.StatusAccepted, r.Code, "body: %s", r.Body)
	r = e.mcpRaw("POST", ann.Token, session,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool"}}`, nil)
	require.Equal(t, http.StatusOK, r.Code, "body: %s", r.Body)
	var rpc struct {
		Error struct{ Code int } `json:"error"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &rpc))
	require.NotZero(t, rpc.Error.Code, "body: %s", r.Body)

	// Ending the session, then using it.
	r = e.mcpRaw("DELETE", ann.Token, session, "", nil)
	require.Equal(t, http.StatusNoContent, r.Code, "body: %s", r.Body)
	require.False(t, e.mcpAlive(ann.Token, session))
}

// TestMCPSessionsPerUserCap: a user opening one session past their cap has the session idle the
// longest closed (its id is then an unknown session); another user's sessions are untouched.
func TestMCPSessionsPerUserCap(t *testing.T) {
	t.Parallel()
	e := setupWith(t, setupOpts{options: func(o *Options) { o.McpMaxSessionsPerUser = 3 }})
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	annPAT := e.pat(ann, []string{"projects:read"})
	bob1 := e.mcpOpen(bob.Token)
	bob2 := e.mcpOpen(bob.Token)

	// The cap is the user's, whatever credential opened the session.
	s1 := e.mcpOpen(ann.Token)
	s2 := e.mcpOpen(annPAT)
	s3 := e.mcpOpen(ann.Token)
	for _, s := range []string{s1, s2, s3} {
		require.True(t, e.mcpAlive(ann.Token, s))
	}
	// Each ping used them in order: s1 is idle the longest.
	s4 := e.mcpOpen(ann.Token)
	require.False(t, e.mcpAlive(ann.Token, s1), "the session idle the longest is closed")
	require.True(t, e.mcpAlive(ann.Token, s2))
	require.True(t, e.mcpAlive(ann.Token, s3))
	require.True(t, e.mcpAlive(ann.Token, s4))

	// Idle the longest, not opened first: those pings used s2, s3, then s4; using s2 again leaves s3
	// idle the longest.
	require.True(t, e.mcpAlive(ann.Token, s2))
	s5 := e.mcpOpen(annPAT)
	require.False(t, e.mcpAlive(ann.Token, s3), "s3 was idle the longest")
	for _, s := range []string{s2, s4, s5} {
		require.True(t, e.mcpAlive(ann.Token, s))
	}

	// Bob's sessions were never touched, and his own cap is his.
	require.True(t, e.mcpAlive(bob.Token, bob1))
	require.True(t, e.mcpAlive(bob.Token, bob2))
	bob3 := e.mcpOpen(bob.Token)
	for _, s := range []string{bob1, bob2, bob3} {
		require.True(t, e.mcpAlive(bob.Token, s))
	}
	for _, s := range []string{s2, s4, s5} {
		require.True(t, e.mcpAlive(ann.Token, s))
	}
}

// TestMCPSessionsGlobalCap: past the process's cap a new session is refused with 503 in the error shape;
// a user at their own cap still replaces one of theirs, and an ended session frees its place.
func TestMCPSessionsGlobalCap(t *testing.T) {
	t.Parallel()
	e := setupWith(t, setupOpts{options: func(o *Options) { o.McpMaxSessionsPerUser = 2; o.McpMaxSessions = 3 }})
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	a1 := e.mcpOpen(ann.Token)
	a2 := e.mcpOpen(ann.Token)
	b1 := e.mcpOpen(bob.Token)

	refused := func(u user) {
		t.Helper()
		r := e.mcpRaw("POST", u.Token, "", mcpInitialize, nil)
		requireStatus(t, r, http.StatusServiceUnavailable)
		require.Contains(t, decode[ErrorBody](t, r).Message, "MCP sessions")
		require.Equal(t, "60", r.Header.Get("Retry-After"))
		require.Empty(t, r.Header.Get("Mcp-Session-Id"))
	}
	refused(carol)
	refused(bob) // below his own cap, so his session would be one more

	// Ann is at her cap: her new session replaces her session idle the longest.
	a3 := e.mcpOpen(ann.Token)
	require.False(t, e.mcpAlive(ann.Token, a1))
	require.True(t, e.mcpAlive(ann.Token, a2))
	require.True(t, e.mcpAlive(ann.Token, a3))
	require.True(t, e.mcpAlive(bob.Token, b1))
	refused(carol)

	// A session ended by its client frees its place.
	r := e.mcpRaw("DELETE", bob.Token, b1, "", nil)
	require.Equal(t, http.StatusNoContent, r.Code, "body: %s", r.Body)
	c1 := e.mcpOpen(carol.Token)
	require.True(t, e.mcpAlive(carol.Token, c1))
	refused(bob)
}

// TestMCPSessionEvictions: the sessions closed for a user's cap are the idle ones first, the longest
// idle first; busy ones only when none is idle.
func TestMCPSessionEvictions(t *testing.T) {
	t.Parallel()
	ids := func(us []*mcpSessionUse) []string {
		var out []string
		for _, u := range us {
			out = append(out, u.id)
		}
		return out
	}
	sessions := func() []*mcpSessionUse {
		return []*mcpSessionUse{
			{id: "busy-old", busy: 1, lastUsed: 1},
			{id: "idle-new", lastUsed: 9},
			{id: "idle-old", lastUsed: 2},
			{id: "busy-new", busy: 2, lastUsed: 8},
		}
	}
	require.Empty(t, evictions(sessions(), 0))
	require.Empty(t, evictions(sessions(), -1))
	require.Equal(t, []string{"idle-old"}, ids(evictions(sessions(), 1)))
	require.Equal(t, []string{"idle-old", "idle-new"}, ids(evictions(sessions(), 2)))
	require.Equal(t, []string{"idle-old", "idle-new", "busy-old"}, ids(evictions(sessions(), 3)))
	require.Len(t, evictions(sessions(), 9), 4)
}

// TestMCPSessionsAllBusy: a user at their cap whose sessions are all serving a request is refused with
// 429 rather than having a request cut; an idle session of theirs, or a free one under the cap, lets
// them open another.
func TestMCPSessionsAllBusy(t *testing.T) {
	t.Parallel()
	m := newMcpSessions(nil, 2, 10, nil)
	live := map[string]bool{}
	m.live = func() map[string]bool { return live }
	open := func(user, id string) (int, string) {
		code, msg := m.reserve(user)
		if code == 0 {
			live[id] = true
			m.opened(user, id)
		}
		return code, msg
	}
	code, _ := open("ann", "a1")
	require.Zero(t, code)
	code, _ = open("ann", "a2")
	require.Zero(t, code)
	m.use("a1", "ann")
	m.use("a2", "ann")
	m.use("a2", "bob") // another user's request on ann's session counts for nothing
	code, msg := m.reserve("ann")
	require.Equal(t, http.StatusTooManyRequests, code)
	require.Contains(t, msg, "busy")
	code, _ = open("bob", "b1") // bob is not ann
	require.Zero(t, code)

	m.used("a1", "ann")
	code, _ = m.reserve("ann")
	require.Zero(t, code, "a1 is idle again")
	m.opened("ann", "") // that request opened no session
	require.Zero(t, m.opening)

	// A closed session is forgotten at the next opening, freeing its place under the caps.
	delete(live, "a2")
	m.used("a2", "ann")
	require.Equal(t, 2, m.count("ann"))
	code, _ = m.reserve("ann")
	require.Zero(t, code)
	require.Equal(t, 1, m.count("ann"))
}

// count is how many sessions userID holds, as tracked.
func (m *mcpSessions) count(userID string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, u := range m.byID {
		if u.userID == userID {
			n++
		}
	}
	return n
}

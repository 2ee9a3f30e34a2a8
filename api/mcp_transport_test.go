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
	r := req{Method: method, Path: "/mcp", Token: token, Header: map[string]string{}}
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
		{name: "malformed payload", method: "POST", body: `{"jsonrpc":"2.0",`, code: http.StatusBadRequest, wantMessage: "malformed payload"},
		{name: "malformed payload in a session", method: "POST", session: session, body: `not json`, code: http.StatusBadRequest, wantMessage: "malformed payload"},
		{name: "empty body", method: "POST", session: session, header: map[string]string{"Content-Type": "application/json"}, code: http.StatusBadRequest},
		{name: "unknown session", method: "POST", session: "no-such-session", body: mcpPing, code: http.StatusNotFound, wantMessage: "session not found"},
		{name: "unknown session on GET", method: "GET", session: "no-such-session", header: map[string]string{"Accept": "text/event-stream", "Content-Type": ""},
			code: http.StatusNotFound, wantMessage: "session not found"},
		{name: "unknown session on DELETE", method: "DELETE", session: "no-such-session", code: http.StatusNotFound, wantMessage: "session not found"},
		{name: "another user's session", method: "POST", session: session, body: mcpPing, token: bob.Token, code: http.StatusForbidden},
		{name: "body too large", method: "POST", session: session, body: `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` +
			strings.Repeat("a", 4<<20) + `"}}`, code: http.StatusRequestEntityTooLarge, wantMessage: "exceeds"},
		{name: "wrong method", method: "PUT", session: session, body: mcpPing, code: http.StatusMethodNotAllowed},
		{name: "PATCH", method: "PATCH", body: mcpPing, code: http.StatusMethodNotAllowed},
		{name: "unknown JSON-RPC method", method: "POST", session: session, body: `{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`,
			code: http.StatusBadRequest, wantMessage: "no/such/method"},
		{name: "missing Accept", method: "POST", session: session, body: mcpPing, header: map[string]string{"Accept": ""},
			code: http.StatusBadRequest, wantMessage: "Accept"},
		{name: "Accept without event streams", method: "POST", body: mcpInitialize, header: map[string]string{"Accept": "application/json"},
			code: http.StatusBadRequest, wantMessage: "Accept"},
		{name: "Accept of a GET without event streams", method: "GET", session: session, header: map[string]string{"Accept": "application/json"},
			code: http.StatusBadRequest, wantMessage: "Accept"},
		{name: "GET without a session", method: "GET", header: map[string]string{"Accept": "text/event-stream"}, code: http.StatusBadRequest},
		{name: "DELETE without a session", method: "DELETE", code: http.StatusBadRequest},
		{name: "wrong Content-Type", method: "POST", session: session, body: mcpPing, header: map[string]string{"Content-Type": "text/plain"},
			code: http.StatusUnsupportedMediaType, wantMessage: "Content-Type"},
		{name: "unsupported protocol version", method: "POST", session: session, body: mcpPing, header: map[string]string{"Mcp-Protocol-Version": "1999-01-01"},
			code: http.StatusBadRequest, wantMessage: "protocol version"},
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
	r = e.mcpRaw("POST", ann.Token, session, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool"}}`, nil)
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

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// headersOf sets a bearer token and the current user agent and forwarded address on every request.
type headersOf struct {
	token     string
	agent, ip atomic.Value
	base      http.RoundTripper
}

func (h *headersOf) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.token)
	r.Header.Set("User-Agent", h.agent.Load().(string))
	r.Header.Set("X-Forwarded-For", h.ip.Load().(string))
	return h.base.RoundTrip(r)
}

// TestMCPToolsRecordTheRequestInTheAuditLog: a change made through an MCP tool reaches the store with
// the audit request the guard builds for REST (caller, client address, user agent), and those of the
// HTTP request carrying the call, not of the one that opened the MCP session.
func TestMCPToolsRecordTheRequestInTheAuditLog(t *testing.T) {
	t.Parallel()
	b := testfactory.Store(t)
	s, router := build(b.Engines, testSigner(testJWTSecret, time.Hour), billing.Local{PublicURL: "http://pilot.test"},
		slog.New(slog.NewTextHandler(io.Discard, nil)),
		Options{PublicURL: "http://pilot.test", TrustProxyHeaders: true, LoginRateLimit: 1000, RegisterRateLimit: 1000})
	// A tool that changes something audited, through the audit engine as the store's operations do.
	type probeIn struct {
		Name string `json:"name"`
	}
	type probeOut struct {
		OK bool `json:"ok"`
	}
	addTool(s, "audit_probe", "Records an audit entry (test only)", Requires{Scope: auth.ScopeAccountWrite},
		func(ctx context.Context, in *probeIn) (*probeOut, error) {
			return &probeOut{OK: true}, s.audit.Record(ctx, db.AuditEntry{Kind: db.AuditTokenCreated,
				Target: db.AuditTarget{Type: "api_token", ID: in.Name, Name: in.Name}})
		})
	srv := httptest.NewServer(router)
	t.Cleanup(srv.Close)

	body, _ := json.Marshal(map[string]any{"email": "ann@example.com", "password": "correct-horse", "name": "Ann"})
	r, err := http.Post(srv.URL+"/auth/register", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	var sess SessionBody
	require.NoError(t, json.NewDecoder(r.Body).Decode(&sess))
	_ = r.Body.Close()
	require.Equal(t, http.StatusCreated, r.StatusCode)

	hdr := &headersOf{token: sess.AccessToken, base: http.DefaultTransport}
	hdr.agent.Store("opener/1")
	hdr.ip.Store("198.51.100.1")
	client := mcp.NewClient(&mcp.Implementation{Name: "pilot-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: hdr}, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })

	for _, c := range []struct{ name, agent, ip string }{
		{"first", "agent-one/1", "203.0.113.5"},
		{"second", "agent-two/2", "203.0.113.6"},
	} {
		hdr.agent.Store(c.agent)
		hdr.ip.Store(c.ip)
		res := callTool(t, cs, "audit_probe", map[string]any{"name": c.name})
		require.False(t, res.IsError, toolText(res))
		page, err := b.Audit.ListAccount(context.Background(), sess.User.ID, audit.Filter{}, db.Page{Limit: 10})
		require.NoError(t, err)
		var got *db.AuditLog
		for i := range page.Items {
			if page.Items[i].TargetID == c.name {
				got = &page.Items[i]
			}
		}
		require.NotNil(t, got, "the tool's entry, as the caller's account entry")
		require.Equal(t, sess.User.ID, *got.ActorID)
		require.Equal(t, c.ip, got.ClientIP, "the address of the call's request")
		require.Equal(t, c.agent, got.UserAgent, "the user agent of the call's request")
	}
}

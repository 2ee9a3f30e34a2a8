package api

// This file bounds the MCP sessions an api process holds. The SDK keeps every session in memory (about
// 35 KB, more with its event stream) until it is closed or idle for McpSessionTimeout, and opens one for
// every initialize: without a bound, one token could hold any number. The SDK has no hook on session
// creation, so a middleware around its handler sees the initialize POSTs (no Mcp-Session-Id), the
// session id the SDK answers them with, and the POSTs of each session, and keeps per user what it needs
// to pick the session to close. It also closes a session at once when the credential that opened it
// ends (its personal access token revoked, its login session ended), in whichever api process holds it.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilot-dev/pilot/internal/sessionwatch"
)

// Defaults of the MCP session caps.
const (
	defaultMcpMaxSessionsPerUser = 20
	defaultMcpMaxSessions        = 2000
)

// mcpSessionHeader names a request's MCP session.
const mcpSessionHeader = "Mcp-Session-Id"

// mcpSessions tracks the sessions opened through /mcp and enforces the caps: a user opening more than
// perUser has their session idle the longest closed; past total sessions on the process, a new session
// is refused with 503.
type mcpSessions struct {
	srv *mcp.Server
	// perUser and total are the caps: sessions of one user, sessions of the process.
	perUser, total int
	// live answers the ids of the server's open sessions (liveIDs; tests replace it).
	live func() map[string]bool
	// watch hands out a context that ends when a principal's credential ends (Server.watch; nil: none).
	watch func(context.Context, *Principal) (context.Context, func())

	mu sync.Mutex
	// opening counts the initialize requests being served: each holds a place under total.
	opening int
	byID    map[string]*mcpSessionUse
	// tick orders the uses of sessions (a counter rather than a clock, so two uses never tie).
	tick uint64
}

// mcpSessionUse is what the caps need of one session.
type mcpSessionUse struct {
	id, userID string
	// busy counts the session's POSTs being served: a session is idle while it has none (its
	// standalone event stream, a GET, does not count, as for the SDK's idle timeout).
	busy int
	// lastUsed is the tick of the session's opening or of its last POST's end.
	lastUsed uint64
	// stop releases the watch of the credential that opened the session (nil: none).
	stop func()
}

// release releases the watch of the session's credential: it is no longer tracked.
func (u *mcpSessionUse) release() {
	if u.stop != nil {
		u.stop()
	}
}

func newMcpSessions(srv *mcp.Server, perUser, total int,
	watch func(context.Context, *Principal) (context.Context, func())) *mcpSessions {
	if perUser <= 0 {
		perUser = defaultMcpMaxSessionsPerUser
	}
	if total <= 0 {
		total = defaultMcpMaxSessions
	}
	m := &mcpSessions{srv: srv, perUser: perUser, total: total, watch: watch, byID: map[string]*mcpSessionUse{}}
	m.live = m.liveIDs
	return m
}

// middleware enforces the caps around the SDK's handler; the request's principal is mcpAuth's.
func (m *mcpSessions) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := principalFrom(r.Context())
		if r.Method != http.MethodPost || p == nil {
			next.ServeHTTP(w, r)
			return
		}
		userID := p.User.ID
		if id := r.Header.Get(mcpSessionHeader); id != "" {
			m.use(id, userID)
			defer m.used(id, userID)
			next.ServeHTTP(w, r)
			return
		}
		// A POST without a session opens one (when it is an initialize).
		if code, msg := m.reserve(userID); code != 0 {
			if code == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", "60")
			}
			writeError(w, code, msg)
			return
		}
		defer func() {
			id := w.Header().Get(mcpSessionHeader)
			m.opened(userID, id)
			m.endWith(p, id)
		}()
		next.ServeHTTP(w, r)
	})
}

// reserve holds a place for a session userID is opening, or answers why not: 503 when the process
// holds its maximum (unless the user is at their own cap, so that the new session replaces one of
// theirs), 429 when the user is at their cap with every session busy.
func (m *mcpSessions) reserve(userID string) (int, string) {
	live := m.live()
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, u := range m.byID {
		if !live[id] {
			u.release()
			delete(m.byID, id) // closed by its client, idle too long, or refused at initialize
		}
	}
	mine, idle := 0, 0
	for _, u := range m.byID {
		if u.userID == userID {
			mine++
			if u.busy == 0 {
				idle++
			}
		}
	}
	switch {
	case mine >= m.perUser && idle == 0:
		return http.StatusTooManyRequests, fmt.Sprintf("all %d of your MCP sessions are busy; end one (DELETE /mcp) before "+
			"opening another", mine)
	case mine < m.perUser && len(m.byID)+m.opening >= m.total:
		return http.StatusServiceUnavailable, "this server holds as many MCP sessions as it may (" + strconv.Itoa(m.total) +
			"); try again later"
	}
	m.opening++
	return 0, ""
}

// opened ends a reservation. id is the session the SDK answered (empty when the request opened none):
// it is tracked, and when it takes its user past the cap, the user's sessions idle the longest are
// closed (busy ones only when no idle one is left).
func (m *mcpSessions) opened(userID, id string) {
	var victims []string
	m.mu.Lock()
	m.opening--
	if id != "" && m.byID[id] == nil {
		m.tick++
		m.byID[id] = &mcpSessionUse{id: id, userID: userID, lastUsed: m.tick}
		var others []*mcpSessionUse
		for _, u := range m.byID {
			if u.userID == userID && u.id != id {
				others = append(others, u)
			}
		}
		for _, u := range evictions(others, len(others)+1-m.perUser) {
			u.release()
			delete(m.byID, u.id)
			victims = append(victims, u.id)
		}
	}
	m.mu.Unlock()
	if len(victims) > 0 {
		m.close(victims)
	}
}

// endWith closes session id, which p opened, as soon as p's credential ends (a revoked token or
// session): the watch of that credential is kept with the session while it is tracked.
func (m *mcpSessions) endWith(p *Principal, id string) {
	if m.watch == nil || p == nil || id == "" {
		return
	}
	ctx, stop := m.watch(context.Background(), p)
	m.mu.Lock()
	u := m.byID[id]
	if u == nil || u.stop != nil { // evicted at once, or watched already
		m.mu.Unlock()
		stop()
		return
	}
	u.stop = stop
	m.mu.Unlock()
	context.AfterFunc(ctx, func() {
		if !errors.Is(context.Cause(ctx), sessionwatch.ErrSessionEnded) {
			return // released, or the watcher reconnected: the guard checks each request anyway
		}
		m.mu.Lock()
		if u := m.byID[id]; u != nil {
			delete(m.byID, id)
			defer u.release()
		}
		m.mu.Unlock()
		m.close([]string{id})
	})
}

// evictions picks the n sessions to close: idle ones first, the longest idle first.
func evictions(sessions []*mcpSessionUse, n int) []*mcpSessionUse {
	if n <= 0 {
		return nil
	}
	slices.SortFunc(sessions, func(a, b *mcpSessionUse) int {
		if c := cmp.Compare(min(a.busy, 1), min(b.busy, 1)); c != 0 {
			return c
		}
		return cmp.Compare(a.lastUsed, b.lastUsed)
	})
	return sessions[:min(n, len(sessions))]
}

// use marks a POST of session id starting; used marks it done. Only the session's own user counts
// (another user's request is refused by the SDK).
func (m *mcpSessions) use(id, userID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u := m.byID[id]; u != nil && u.userID == userID {
		u.busy++
	}
}

func (m *mcpSessions) used(id, userID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u := m.byID[id]; u != nil && u.userID == userID && u.busy > 0 {
		u.busy--
		m.tick++
		u.lastUsed = m.tick
	}
}

// liveIDs are the ids of the server's open sessions.
func (m *mcpSessions) liveIDs() map[string]bool {
	live := map[string]bool{}
	for ss := range m.srv.Sessions() {
		live[ss.ID()] = true
	}
	return live
}

// close closes the server's sessions named ids; the SDK forgets them, so their ids answer 404 from then
// on.
func (m *mcpSessions) close(ids []string) {
	for ss := range m.srv.Sessions() {
		if slices.Contains(ids, ss.ID()) {
			_ = ss.Close()
		}
	}
}

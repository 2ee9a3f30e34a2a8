// Package sessionwatch ends, in one api process, the long requests (event streams, MCP streams and
// sessions) of a credential that has ended: a session revoked (logout, a revoked device) or outlived by
// a password change, or a personal access token revoked. The database announces each on channel
// Channel (migration 00021's triggers: 's:<session id>' and 'u:<user id>'; migration 00033's:
// 't:<token id>'); a Watcher listens on a connection of its own and cancels the contexts it handed out
// for that credential.
//
// While the LISTEN connection is down an ending could be missed, so each (re)connection ends every
// watched request: its client reconnects and the guard checks its session again.
package sessionwatch

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
)

// Channel is the PostgreSQL channel that announces ended sessions.
const Channel = "pilot_sessions"

// Watcher hands out contexts that end with a credential.
type Watcher struct {
	mu sync.Mutex
	// byKey holds the watches by their credential's announcement: 's:<session id>' or 't:<token id>'.
	byKey map[string]map[*watch]struct{}
	// byUser holds the watches of sessions by user ('u:<user id>' ends every session of the user).
	byUser map[string]map[*watch]struct{}
	ready  chan struct{}
	logger *slog.Logger
}

type watch struct {
	key, userID string // userID is empty for a token's watch
	cancel      context.CancelCauseFunc
}

// Credential is what a request authenticated with: a session (its JWT's) or a personal access token,
// of UserID. A watch of a credential with neither ends only with its parent.
type Credential struct {
	UserID string
	// SessionID names a session: its watch ends when the session is revoked or when the user's
	// sessions all end (a password change).
	SessionID string
	// TokenID names a personal access token: its watch ends when the token is revoked (deleted).
	TokenID string
}

// key is the announcement that ends c ("" for none).
func (c Credential) key() string {
	switch {
	case c.TokenID != "":
		return "t:" + c.TokenID
	case c.SessionID != "":
		return "s:" + c.SessionID
	}
	return ""
}

// ErrSessionEnded is the cause of a watched context that ended with its credential: the session or
// token was revoked.
var ErrSessionEnded = sessionEnded{}

type sessionEnded struct{}

func (sessionEnded) Error() string { return "the session has ended" }

// ErrMaybeEnded is the cause of the watched contexts ended because the watcher's connection was down
// and an ending may have been missed: the clients reconnect and the guard checks their credential again.
var ErrMaybeEnded = maybeEnded{}

type maybeEnded struct{}

func (maybeEnded) Error() string { return "the session may have ended while nobody listened" }

// Start starts the watcher's LISTEN connection on the store's database; it works until ctx ends.
func Start(ctx context.Context, store *db.Store, logger *slog.Logger) *Watcher {
	w := New(logger)
	go w.listen(ctx, store)
	return w
}

// New is a watcher that hears nothing until its Notify is called (Start listens for it).
func New(logger *slog.Logger) *Watcher {
	return &Watcher{byKey: map[string]map[*watch]struct{}{}, byUser: map[string]map[*watch]struct{}{},
		ready: make(chan struct{}), logger: logger}
}

// Ready is closed once endings are being listened to.
func (w *Watcher) Ready() <-chan struct{} { return w.ready }

// Watch returns a context derived from parent that ends, with cause ErrSessionEnded, when credential c
// ends (a session's also when every session of its user ends); stop releases it (call it when the
// request is done). A nil Watcher watches nothing.
func (w *Watcher) Watch(parent context.Context, c Credential) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	key := c.key()
	if w == nil || key == "" {
		return ctx, func() { cancel(nil) }
	}
	x := &watch{key: key, cancel: cancel}
	if c.TokenID == "" {
		x.userID = c.UserID
	}
	w.mu.Lock()
	add(w.byKey, x.key, x)
	if x.userID != "" {
		add(w.byUser, x.userID, x)
	}
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		remove(w.byKey, x.key, x)
		if x.userID != "" {
			remove(w.byUser, x.userID, x)
		}
		w.mu.Unlock()
		cancel(nil)
	}
}

// Watching is the number of requests watched (tests).
func (w *Watcher) Watching() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, xs := range w.byKey {
		n += len(xs)
	}
	return n
}

// Notify handles one announcement: 's:<session id>' ends that session's requests, 't:<token id>' that
// token's, 'u:<user id>' every request of the user's sessions.
func (w *Watcher) Notify(payload string) {
	kind, id, ok := strings.Cut(payload, ":")
	if !ok {
		return
	}
	w.mu.Lock()
	var ended []*watch
	switch kind {
	case "s", "t":
		for x := range w.byKey[payload] {
			ended = append(ended, x)
		}
	case "u":
		for x := range w.byUser[id] {
			ended = append(ended, x)
		}
	}
	w.mu.Unlock()
	for _, x := range ended {
		x.cancel(ErrSessionEnded)
	}
}

// endAll ends every watched request (after the LISTEN connection was down), with cause ErrMaybeEnded.
func (w *Watcher) endAll() {
	w.mu.Lock()
	var ended []*watch
	for _, xs := range w.byKey {
		for x := range xs {
			ended = append(ended, x)
		}
	}
	w.mu.Unlock()
	for _, x := range ended {
		x.cancel(ErrMaybeEnded)
	}
}

func (w *Watcher) listen(ctx context.Context, store *db.Store) {
	first := true
	store.Listen(ctx, db.Listener{Channel: Channel, ReconnectMin: 100 * time.Millisecond, ReconnectMax: 5 * time.Second,
		Logger: w.logger,
		Connected: func(*pgx.Conn) {
			w.endAll() // an ending may have been missed while nobody listened
			if first {
				first = false
				close(w.ready)
			}
		},
		Notified: w.Notify,
	})
}

func add(m map[string]map[*watch]struct{}, k string, x *watch) {
	xs := m[k]
	if xs == nil {
		xs = map[*watch]struct{}{}
		m[k] = xs
	}
	xs[x] = struct{}{}
}

func remove(m map[string]map[*watch]struct{}, k string, x *watch) {
	delete(m[k], x)
	if len(m[k]) == 0 {
		delete(m, k)
	}
}

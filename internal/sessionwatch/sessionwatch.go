// Package sessionwatch ends, in one api process, the long requests (event streams, MCP streams) of a
// session that has ended: revoked (logout, a revoked device) or outlived by a password change. The
// database announces both on channel Channel (migration 00021's triggers: 's:<session id>' and
// 'u:<user id>'); a Watcher listens on a connection of its own and cancels the contexts it handed out
// for that session or user.
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

// Watcher hands out contexts that end with a session.
type Watcher struct {
	mu        sync.Mutex
	bySession map[string]map[*watch]struct{}
	byUser    map[string]map[*watch]struct{}
	ready     chan struct{}
	logger    *slog.Logger
}

type watch struct {
	userID, sessionID string
	cancel            context.CancelCauseFunc
}

// ErrSessionEnded is the cause of a watched context that ended with its session.
var ErrSessionEnded = sessionEnded{}

type sessionEnded struct{}

func (sessionEnded) Error() string { return "the session has ended" }

// Start starts the watcher's LISTEN connection on the store's database; it works until ctx ends.
func Start(ctx context.Context, store *db.Store, logger *slog.Logger) *Watcher {
	w := New(logger)
	go w.listen(ctx, store)
	return w
}

// New is a watcher that hears nothing until its Notify is called (Start listens for it).
func New(logger *slog.Logger) *Watcher {
	return &Watcher{bySession: map[string]map[*watch]struct{}{}, byUser: map[string]map[*watch]struct{}{},
		ready: make(chan struct{}), logger: logger}
}

// Ready is closed once endings are being listened to.
func (w *Watcher) Ready() <-chan struct{} { return w.ready }

// Watch returns a context derived from parent that ends, with cause ErrSessionEnded, when the session
// ends; stop releases it (call it when the request is done). A nil Watcher watches nothing.
func (w *Watcher) Watch(parent context.Context, userID, sessionID string) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	if w == nil {
		return ctx, func() { cancel(nil) }
	}
	x := &watch{userID: userID, sessionID: sessionID, cancel: cancel}
	w.mu.Lock()
	add(w.bySession, sessionID, x)
	add(w.byUser, userID, x)
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		remove(w.bySession, sessionID, x)
		remove(w.byUser, userID, x)
		w.mu.Unlock()
		cancel(nil)
	}
}

// Watching is the number of requests watched (tests).
func (w *Watcher) Watching() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, xs := range w.bySession {
		n += len(xs)
	}
	return n
}

// Notify handles one announcement: 's:<session id>' ends that session's requests, 'u:<user id>' every
// request of the user.
func (w *Watcher) Notify(payload string) {
	kind, id, ok := strings.Cut(payload, ":")
	if !ok {
		return
	}
	w.mu.Lock()
	var ended []*watch
	switch kind {
	case "s":
		for x := range w.bySession[id] {
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

// endAll ends every watched request (after the LISTEN connection was down).
func (w *Watcher) endAll() {
	w.mu.Lock()
	var ended []*watch
	for _, xs := range w.bySession {
		for x := range xs {
			ended = append(ended, x)
		}
	}
	w.mu.Unlock()
	for _, x := range ended {
		x.cancel(ErrSessionEnded)
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

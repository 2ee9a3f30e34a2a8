package api

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/danielgtaylor/huma/v2"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
)

// AccessChannel is the PostgreSQL channel that announces changes to users, organizations, workspaces,
// projects or memberships (migration 00009's triggers).
const AccessChannel = "pilot_access"

// AccessCache remembers, in one api process, what the guard resolved for a session caller on a tenant
// route: the user's row and their access to the organization, workspace and project. Resolving it was
// a seven-table query and a round trip on every request, as much as the rest of a card list.
//
// It is emptied (a new generation) whenever any process commits a change to what it holds, through a
// LISTEN connection, and before this process answers any request that may have made one, so a caller
// never sees its own change undone. While the LISTEN connection is down nothing is cached. An entry
// also expires after AccessCacheTTL, whatever happens.
type AccessCache struct {
	entries *lru.Cache[accessKey, accessEntry]
	gen     atomic.Uint64
	live    atomic.Bool
	ready   chan struct{}
	logger  *slog.Logger
	hits    atomic.Uint64
	// heard is the payload of the last notification handled (tests wait for a marker of their own).
	heard atomic.Value
}

// AccessCacheTTL bounds how long an entry is trusted even without any change announced.
const AccessCacheTTL = 30 * time.Second

type accessKey struct {
	userID                     string
	sessionVersion             int32
	orgSlug, wsSlug, projectID string
}

type accessEntry struct {
	user   db.User
	access db.Access
	gen    uint64
	at     time.Time
}

// StartAccessCache starts the cache's LISTEN connection on the store's database; the cache works until
// ctx ends.
func StartAccessCache(ctx context.Context, store *db.Store, logger *slog.Logger) *AccessCache {
	entries, err := lru.New[accessKey, accessEntry](16384)
	if err != nil {
		panic(err) // only for a size below 1
	}
	c := &AccessCache{entries: entries, ready: make(chan struct{}), logger: logger}
	go c.listen(ctx, store)
	return c
}

// Ready is closed once changes are being listened to (and entries cached).
func (c *AccessCache) Ready() <-chan struct{} { return c.ready }

func (c *AccessCache) get(k accessKey) (accessEntry, bool) {
	if c == nil || !c.live.Load() {
		return accessEntry{}, false
	}
	e, ok := c.entries.Get(k)
	if !ok || e.gen != c.gen.Load() || time.Since(e.at) > AccessCacheTTL {
		return accessEntry{}, false
	}
	c.hits.Add(1)
	return e, true
}

// generation is taken before reading the database: an entry read under an older generation may predate
// a change and is not kept.
func (c *AccessCache) generation() uint64 {
	if c == nil {
		return 0
	}
	return c.gen.Load()
}

func (c *AccessCache) put(k accessKey, e accessEntry, gen uint64) {
	if c == nil || !c.live.Load() || gen != c.gen.Load() {
		return
	}
	e.gen, e.at = gen, time.Now()
	c.entries.Add(k, e)
}

// flush makes every entry stale.
func (c *AccessCache) flush() {
	if c != nil {
		c.gen.Add(1)
	}
}

func (c *AccessCache) listen(ctx context.Context, store *db.Store) {
	first := true
	store.Listen(ctx, db.Listener{Channel: AccessChannel, ReconnectMin: 100 * time.Millisecond, ReconnectMax: 5 * time.Second,
		Logger: c.logger,
		Connected: func(*pgx.Conn) {
			c.flush() // whatever changed while nobody listened
			c.live.Store(true)
			if first {
				first = false
				close(c.ready)
			}
		},
		Notified: func(payload string) {
			c.flush()
			c.heard.Store(payload)
		},
		Lost: func(error) { // nothing is cached until the listener is back
			c.live.Store(false)
			c.flush()
		},
	})
}

// flushBeforeAnswer empties the access cache when the operation answers, before any byte reaches the
// client: the operation's change has committed by then, so the caller's next request reads it.
type flushBeforeAnswer struct {
	operationContext
	cache *AccessCache
}

// operationContext names huma.Context for embedding (its field would otherwise clash with its Context
// method).
type operationContext = huma.Context

// Unwrap lets humachi.Unwrap reach the request and writer of streaming operations.
func (c *flushBeforeAnswer) Unwrap() huma.Context { return c.operationContext }

func (c *flushBeforeAnswer) SetStatus(code int) {
	c.cache.flush()
	c.operationContext.SetStatus(code)
}

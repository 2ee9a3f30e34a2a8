// Package accesscache remembers, in one api process, what the guard resolved for a session caller on
// a tenant route: the user's row and their access to the organization, workspace and project.
// Resolving it is a seven-table query and a round trip on every request, as much as the rest of a card
// list.
//
// Like the mission event relay (internal/stream), a Cache is per process and kept honest by a LISTEN
// connection of its own: it is emptied (a new generation) whenever any process commits a change to
// users, organizations, workspaces, projects or memberships (Channel, announced by migration 00009's
// triggers), and the api empties it before answering any request that may have made one, so a caller
// never sees its own change undone. While the LISTEN connection is down nothing is cached. An entry
// also expires after TTL, whatever happens.
package accesscache

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/tenancy"
)

// Channel is the PostgreSQL channel that announces changes to users, organizations, workspaces,
// projects or memberships (migration 00009's triggers).
const Channel = "pilot_access"

// TTL bounds how long an entry is trusted even without any change announced.
const TTL = 30 * time.Second

// size is the number of entries kept; the least recently used go first.
const size = 16384

// Key names what was resolved: a user's session (its id and version) on an organization, workspace and
// project. Revoking a session announces a change, so no entry outlives its session.
type Key struct {
	UserID                     string
	SessionID                  string
	SessionVersion             int32
	OrgSlug, WsSlug, ProjectID string
}

type entry struct {
	user   db.User
	access tenancy.Access
	gen    uint64
	at     time.Time
}

// Cache is the per-process cache of resolved access. A nil *Cache caches nothing.
type Cache struct {
	entries *lru.Cache[Key, entry]
	gen     atomic.Uint64
	live    atomic.Bool
	ready   chan struct{}
	logger  *slog.Logger
	hits    atomic.Uint64
	misses  atomic.Uint64 // lookups the cache could not answer (stats.go)
	// heard is the payload of the last notification handled (tests wait for a marker of their own).
	heard atomic.Value
}

// Start starts the cache's LISTEN connection on the store's database; the cache works until ctx ends.
func Start(ctx context.Context, store *db.Store, logger *slog.Logger) *Cache {
	entries, err := lru.New[Key, entry](size)
	if err != nil {
		panic(err) // only for a size below 1
	}
	c := &Cache{entries: entries, ready: make(chan struct{}), logger: logger}
	go c.listen(ctx, store)
	return c
}

// Ready is closed once changes are being listened to (and entries cached).
func (c *Cache) Ready() <-chan struct{} { return c.ready }

// Get returns what was resolved for k, when it is still trusted.
func (c *Cache) Get(k Key) (db.User, tenancy.Access, bool) {
	if c == nil {
		return db.User{}, tenancy.Access{}, false
	}
	if !c.live.Load() {
		c.misses.Add(1)
		return db.User{}, tenancy.Access{}, false
	}
	e, ok := c.entries.Get(k)
	if !ok || e.gen != c.gen.Load() || time.Since(e.at) > TTL {
		c.misses.Add(1)
		return db.User{}, tenancy.Access{}, false
	}
	c.hits.Add(1)
	return e.user, e.access, true
}

// Generation is taken before reading the database, and given to Put: an entry read under an older
// generation may predate a change and is not kept.
func (c *Cache) Generation() uint64 {
	if c == nil {
		return 0
	}
	return c.gen.Load()
}

// Current reports whether what was resolved under generation gen at time at is still trusted: the cache
// listens, nothing changed since (no notification, no flush) and TTL has not passed. Long-lived readers
// (the event feed's) keep their own resolution and ask this before each use. A nil cache trusts
// nothing.
func (c *Cache) Current(gen uint64, at time.Time) bool {
	return c != nil && c.live.Load() && gen == c.gen.Load() && time.Since(at) <= TTL
}

// Put keeps what was resolved for k, read from the database under generation gen.
func (c *Cache) Put(k Key, user db.User, access tenancy.Access, gen uint64) {
	if c == nil || !c.live.Load() || gen != c.gen.Load() {
		return
	}
	c.entries.Add(k, entry{user: user, access: access, gen: gen, at: time.Now()})
}

// Flush makes every entry stale.
func (c *Cache) Flush() {
	if c != nil {
		c.gen.Add(1)
	}
}

// Hits is the number of lookups answered from the cache.
func (c *Cache) Hits() uint64 { return c.hits.Load() }

// Heard is the payload of the last notification handled ("" before any): tests send a marker of their
// own and wait for it, to know every earlier notification was handled.
func (c *Cache) Heard() string {
	s, _ := c.heard.Load().(string)
	return s
}

func (c *Cache) listen(ctx context.Context, store *db.Store) {
	first := true
	store.Listen(ctx, db.Listener{Channel: Channel, ReconnectMin: 100 * time.Millisecond, ReconnectMax: 5 * time.Second,
		Logger: c.logger,
		Connected: func(*pgx.Conn) {
			c.Flush() // whatever changed while nobody listened
			c.live.Store(true)
			if first {
				first = false
				close(c.ready)
			}
		},
		Notified: func(payload string) {
			c.Flush()
			c.heard.Store(payload)
		},
		Lost: func(error) { // nothing is cached until the listener is back
			c.live.Store(false)
			c.Flush()
		},
	})
}

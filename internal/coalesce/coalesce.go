// Package coalesce serves concurrent identical reads with one read, without ever answering a caller
// with data read before it arrived.
//
// golang.org/x/sync/singleflight lets a caller join a call already running; that call may have taken
// its snapshot before the caller's own write committed, so the caller could miss its own write. Here a
// caller that finds a read of its key running waits for the next one instead, which starts when the
// running one ends and serves every caller that arrived in the meantime. Each caller's answer therefore
// comes from a read started after it arrived, and under load a key costs at most one read at a time.
package coalesce

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Group coalesces reads by key. The zero value is ready to use.
type Group[K comparable, V any] struct {
	// Timeout bounds each read (zero: unbounded). A read no longer ends with the caller that started it,
	// so without a bound a hung read would hold every later caller of its key.
	Timeout time.Duration

	mu      sync.Mutex
	running map[K]*call[V] // the read running now, per key
	next    map[K]*call[V] // the read that starts when the running one ends
}

type call[V any] struct {
	ctx  context.Context
	fn   func(context.Context) (V, error)
	done chan struct{}
	val  V
	err  error
	// shared counts the callers beyond the first.
	shared int
}

// Do answers fn's result for key from a read that starts after Do was called, shared with the other
// callers of the same key that wait for the same read. The read runs with the context of the caller
// that started it, without its cancellation but within Timeout; a caller whose ctx ends stops waiting
// and gets ctx.Err().
// Callers share the value and must not modify it.
func (g *Group[K, V]) Do(ctx context.Context, key K, fn func(context.Context) (V,
	error)) (v V, shared bool, err error) {
	g.mu.Lock()
	if g.running == nil {
		g.running, g.next = map[K]*call[V]{}, map[K]*call[V]{}
	}
	var c *call[V]
	switch run, nx := g.running[key], g.next[key]; {
	case run == nil:
		c = &call[V]{ctx: context.WithoutCancel(ctx), fn: fn, done: make(chan struct{})}
		g.running[key] = c
		go g.fly(key, c)
	case nx == nil:
		c = &call[V]{ctx: context.WithoutCancel(ctx), fn: fn, done: make(chan struct{})}
		g.next[key] = c
	default:
		c = nx
		c.shared++
		shared = true
	}
	g.mu.Unlock()
	select {
	case <-c.done:
		return c.val, shared, c.err
	case <-ctx.Done():
		return v, shared, ctx.Err()
	}
}

// fly runs c, then the read queued behind it, until none is queued.
func (g *Group[K, V]) fly(key K, c *call[V]) {
	for c != nil {
		c.val, c.err = g.run(c)
		g.mu.Lock()
		nx := g.next[key]
		if nx != nil {
			delete(g.next, key)
			g.running[key] = nx
		} else {
			delete(g.running, key)
		}
		g.mu.Unlock()
		close(c.done)
		c = nx
	}
}

// run calls c's read within the group's Timeout, turning a panic into an error: the callers sharing it
// are many.
func (g *Group[K, V]) run(c *call[V]) (v V, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("coalesce: read panicked: %v", r)
		}
	}()
	ctx := c.ctx
	if g.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.Timeout)
		defer cancel()
	}
	return c.fn(ctx)
}

// queued is the number of callers waiting for the read queued behind key's running one (tests).
func (g *Group[K, V]) queued(key K) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if nx := g.next[key]; nx != nil {
		return 1 + nx.shared
	}
	return 0
}

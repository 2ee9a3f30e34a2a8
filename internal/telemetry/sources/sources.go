// Package sources adapts the parts of a process that its metrics report on (the store's job queues,
// the stream relay, the access cache) to telemetry's one-method interfaces, so that telemetry imports
// none of them.
package sources

import (
	"context"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/telemetry"
)

// Queues reads the job queues through store.
func Queues(store *db.Store) telemetry.QueueSource { return queueSource{store} }

// Relay reads relay's counters.
func Relay(relay *stream.Relay) telemetry.RelaySource { return relaySource{relay} }

// Cache reads cache's counters.
func Cache(cache *accesscache.Cache) telemetry.CacheSource { return cacheSource{cache} }

type queueSource struct{ store *db.Store }

func (q queueSource) QueueStates(ctx context.Context) ([]telemetry.QueueState, error) {
	stats, err := q.store.JobQueueStats(ctx)
	out := make([]telemetry.QueueState, len(stats))
	for i, s := range stats {
		out[i] = telemetry.QueueState(s)
	}
	return out, err
}

type relaySource struct{ relay *stream.Relay }

func (r relaySource) RelayStats() telemetry.RelayStats {
	s := r.relay.Stats()
	return telemetry.RelayStats{Subscribers: s.Subscribers, Relayed: s.Relayed, Connects: s.Connects,
		Listening: s.Listening}
}

type cacheSource struct{ cache *accesscache.Cache }

func (c cacheSource) CacheStats() telemetry.CacheStats {
	s := c.cache.Stats()
	return telemetry.CacheStats{Hits: s.Hits, Misses: s.Misses, Listening: s.Listening}
}

package accesscache

// Stats is a snapshot of a cache's counters, read by the api's metrics.
type Stats struct {
	// Hits counts the lookups answered from the cache, Misses those that went to the database
	// (nothing cached, stale, expired, or the LISTEN connection down).
	Hits, Misses uint64
	// Listening says the LISTEN connection is up (entries are cached only then).
	Listening bool
}

// Stats returns the cache's counters; a nil cache has none.
func (c *Cache) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Listening: c.live.Load()}
}

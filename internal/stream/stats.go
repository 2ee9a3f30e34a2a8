package stream

// Stats is a snapshot of a relay's counters, read by the api's metrics.
type Stats struct {
	// Subscribers is the number of live subscriptions (open mission streams) in this process.
	Subscribers int
	// Relayed counts the mission events the relay read after a notification and handed to its
	// subscribers (once per event, whatever the number of subscribers).
	Relayed int64
	// Listening says the LISTEN connection is up.
	Listening bool
	// Connects counts the LISTEN connections made: the first one and each reconnect.
	Connects int64
	// FeedSubscribers is the number of open workspace event feeds in this process; FeedRelayed counts
	// the feed events the poller handed to them (once per event).
	FeedSubscribers int
	FeedRelayed     int64
}

// Stats returns the relay's counters.
func (r *Relay) Stats() Stats {
	return Stats{Subscribers: r.subscribers(), Relayed: r.delivered.Load(), Listening: r.live.Load(),
		Connects: r.connects.Load(), FeedSubscribers: r.feedSubscribers(), FeedRelayed: r.feedDelivered.Load()}
}

package telemetry

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// QueueState is one queue's jobs in one state.
type QueueState struct {
	Queue, State string
	Jobs         int64
	// OldestAvailable is the age of the queue's oldest available job (state available only).
	OldestAvailable time.Duration
}

// QueueSource reads the job queues' figures (the store, through its process's wiring).
type QueueSource interface {
	QueueStates(ctx context.Context) ([]QueueState, error)
}

// QueueSourceFunc is a function as a QueueSource.
type QueueSourceFunc func(ctx context.Context) ([]QueueState, error)

// QueueStates calls f.
func (f QueueSourceFunc) QueueStates(ctx context.Context) ([]QueueState, error) { return f(ctx) }

// RelayStats is a snapshot of a stream relay's counters.
type RelayStats struct {
	Subscribers       int
	Relayed, Connects int64
	Listening         bool
}

// RelaySource reads a stream relay's counters.
type RelaySource interface{ RelayStats() RelayStats }

// CacheStats is a snapshot of the access cache's counters.
type CacheStats struct {
	Hits, Misses uint64
	Listening    bool
}

// CacheSource reads the access cache's counters.
type CacheSource interface{ CacheStats() CacheStats }

// QueueStatsTimeout bounds the queue query of one scrape.
const QueueStatsTimeout = 2 * time.Second

// WatchPool exports the pgx pool's statistics (pool.Stat()), read at scrape time.
func (m *Metrics) WatchPool(pool *pgxpool.Pool) {
	if m == nil {
		return
	}
	m.Registry.MustRegister(&poolCollector{pool: pool})
}

// WatchQueues exports, per queue, the number of unfinished jobs by state and the age of the oldest
// available job, read from source at scrape time (bounded by QueueStatsTimeout). queues are the queues
// to report even when empty. Every worker process reports the same figures: aggregate them with max,
// not sum.
func (m *Metrics) WatchQueues(source QueueSource, queues []string) {
	if m == nil {
		return
	}
	m.Registry.MustRegister(&queueCollector{source: source, queues: queues})
}

// WatchRelay exports the mission event relay's subscribers, events relayed and LISTEN connection state.
func (m *Metrics) WatchRelay(relay RelaySource) {
	if m == nil || relay == nil {
		return
	}
	m.Registry.MustRegister(&relayCollector{relay: relay})
}

// WatchAccessCache exports the access cache's hits and misses.
func (m *Metrics) WatchAccessCache(cache CacheSource) {
	if m == nil || cache == nil {
		return
	}
	m.Registry.MustRegister(&cacheCollector{cache: cache})
}

func desc(subsystem, name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(namespace, subsystem, name), help, labels, nil)
}

// poolCollector reads pgxpool.Stat.
type poolCollector struct{ pool *pgxpool.Pool }

var (
	poolAcquires       = desc("db_pool", "acquires_total", "Successful acquires of a connection from the pool.")
	poolAcquireSeconds = desc("db_pool", "acquire_duration_seconds_total", "Total time spent in successful acquires.")
	poolEmptyAcquires  = desc("db_pool", "empty_acquires_total", "Successful acquires that had to wait for a "+
		"connection (the pool was empty).")
	poolEmptyWaitSeconds = desc("db_pool", "empty_acquire_wait_seconds_total", "Total time acquires waited because the "+
		"pool was empty.")
	poolCanceledAcquires = desc("db_pool", "canceled_acquires_total", "Acquires cancelled by their context.")
	poolNewConns         = desc("db_pool", "new_connections_total", "Connections opened.")
	poolLifetimeDestroys = desc("db_pool", "max_lifetime_destroys_total", "Connections closed for exceeding their "+
		"maximum lifetime.")
	poolIdleDestroys = desc("db_pool", "max_idle_destroys_total", "Connections closed for exceeding their maximum idle "+
		"time.")
	poolAcquired     = desc("db_pool", "acquired_connections", "Connections in use.")
	poolIdle         = desc("db_pool", "idle_connections", "Idle connections.")
	poolConstructing = desc("db_pool", "constructing_connections", "Connections being opened.")
	poolTotal        = desc("db_pool", "connections", "Open connections (acquired, idle and being opened).")
	poolMax          = desc("db_pool", "max_connections", "The pool's maximum size (DATABASE_MAX_CONNS).")
)

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolAcquires, poolAcquireSeconds, poolEmptyAcquires, poolEmptyWaitSeconds,
		poolCanceledAcquires, poolNewConns, poolLifetimeDestroys, poolIdleDestroys, poolAcquired, poolIdle,
		poolConstructing, poolTotal, poolMax} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	counter(poolAcquires, float64(s.AcquireCount()))
	counter(poolAcquireSeconds, s.AcquireDuration().Seconds())
	counter(poolEmptyAcquires, float64(s.EmptyAcquireCount()))
	counter(poolEmptyWaitSeconds, s.EmptyAcquireWaitTime().Seconds())
	counter(poolCanceledAcquires, float64(s.CanceledAcquireCount()))
	counter(poolNewConns, float64(s.NewConnsCount()))
	counter(poolLifetimeDestroys, float64(s.MaxLifetimeDestroyCount()))
	counter(poolIdleDestroys, float64(s.MaxIdleDestroyCount()))
	gauge(poolAcquired, float64(s.AcquiredConns()))
	gauge(poolIdle, float64(s.IdleConns()))
	gauge(poolConstructing, float64(s.ConstructingConns()))
	gauge(poolTotal, float64(s.TotalConns()))
	gauge(poolMax, float64(s.MaxConns()))
}

// queueCollector reads the store's queue statistics at scrape time.
type queueCollector struct {
	source QueueSource
	queues []string
}

// queueStates are the unfinished states reported for every queue, zero when the queue has none.
var queueStates = []string{"available", "running", "retryable", "scheduled"}

var (
	queueJobs = desc("river", "queue_jobs", "Unfinished River jobs by queue and state (available, running, "+
		"retryable, scheduled), read at scrape time.", "queue", "state")
	queueOldestAvailable = desc("river", "queue_oldest_available_age_seconds", "Age of the queue's oldest available "+
		"job: how long it has waited for a worker (0 when none waits).", "queue")
)

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueJobs
	ch <- queueOldestAvailable
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), QueueStatsTimeout)
	defer cancel()
	stats, err := c.source.QueueStates(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueJobs, err)
		return
	}
	type key struct{ queue, state string }
	jobs := map[key]int64{}
	oldest := map[string]time.Duration{}
	queues := append([]string(nil), c.queues...)
	seen := map[string]bool{}
	for _, q := range queues {
		seen[q] = true
	}
	for _, s := range stats {
		jobs[key{s.Queue, s.State}] = s.Jobs
		if s.State == "available" {
			oldest[s.Queue] = s.OldestAvailable
		}
		if !seen[s.Queue] {
			seen[s.Queue] = true
			queues = append(queues, s.Queue)
		}
	}
	for _, q := range queues {
		for _, st := range queueStates {
			ch <- prometheus.MustNewConstMetric(queueJobs, prometheus.GaugeValue, float64(jobs[key{q, st}]), q, st)
		}
		ch <- prometheus.MustNewConstMetric(queueOldestAvailable, prometheus.GaugeValue, oldest[q].Seconds(), q)
	}
}

// relayCollector reads a relay's counters.
type relayCollector struct{ relay RelaySource }

var (
	sseSubscribers = desc("sse", "subscribers", "Open mission event streams (relay subscriptions) in this process.")
	sseRelayed     = desc("sse", "events_relayed_total", "Mission events the relay read after a notification and "+
		"handed to its subscribers (once per event).")
	sseListenConnected  = desc("sse", "listen_connected", "1 while the relay's LISTEN connection is up, else 0.")
	sseListenReconnects = desc("sse", "listen_reconnects_total", "Times the relay's LISTEN connection was made again "+
		"after being lost.")
)

func (c *relayCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- sseSubscribers
	ch <- sseRelayed
	ch <- sseListenConnected
	ch <- sseListenReconnects
}

func (c *relayCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.relay.RelayStats()
	connected := 0.0
	if s.Listening {
		connected = 1
	}
	ch <- prometheus.MustNewConstMetric(sseSubscribers, prometheus.GaugeValue, float64(s.Subscribers))
	ch <- prometheus.MustNewConstMetric(sseRelayed, prometheus.CounterValue, float64(s.Relayed))
	ch <- prometheus.MustNewConstMetric(sseListenConnected, prometheus.GaugeValue, connected)
	ch <- prometheus.MustNewConstMetric(sseListenReconnects, prometheus.CounterValue, float64(max(s.Connects-1, 0)))
}

// cacheCollector reads the access cache's counters.
type cacheCollector struct{ cache CacheSource }

var (
	cacheLookups = desc("access_cache", "lookups_total", "Access cache lookups by result: hit (answered from the "+
		"cache) or miss (resolved from the database).", "result")
	cacheListening = desc("access_cache", "listen_connected", "1 while the access cache's LISTEN connection is up "+
		"(entries are cached only then), else 0.")
)

func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- cacheLookups
	ch <- cacheListening
}

func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.cache.CacheStats()
	live := 0.0
	if s.Listening {
		live = 1
	}
	ch <- prometheus.MustNewConstMetric(cacheLookups, prometheus.CounterValue, float64(s.Hits), "hit")
	ch <- prometheus.MustNewConstMetric(cacheLookups, prometheus.CounterValue, float64(s.Misses), "miss")
	ch <- prometheus.MustNewConstMetric(cacheListening, prometheus.GaugeValue, live)
}

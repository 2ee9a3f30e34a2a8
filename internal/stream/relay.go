// Package stream relays live progress (agent missions, project drafts, any kind of stream) to
// server-sent event subscribers.
//
// Writers append events to stream_events with db.Store.AppendStreamEventTx, which pg_notifies
// db.StreamEventsChannel with "<streamId>:<seq>" in the same transaction. Every api process runs one
// Relay: a dedicated LISTEN connection (not a pool connection) hears the notifications of every kind,
// and a dispatcher reads the new rows of the streams this process has subscribers for (one batch query
// for all of them, never one per subscriber or per kind) and hands them to each subscriber's bounded
// buffer without ever blocking: a subscriber whose buffer is full is dropped (its channel closed,
// Err() == ErrSlow), so one slow client never stalls the others; it reconnects with Last-Event-ID and
// replays from the table.
//
// A stream ends for its readers after the event that reports its entity's final status, by one rule for
// every kind (db.StreamKind: its name, which names the id field of each event's JSON "<kind>Id", and
// its final statuses): a reader replays up to such an event and stops, or follows the stream live until
// one comes, whatever the statuses in between.
//
// After the LISTEN connection is lost, the relay reconnects with backoff and re-reads, for every
// subscribed stream, the rows after the last one it dispatched: notifications missed while
// disconnected lose nothing.
//
// r3labs/sse/v2 is not used for the fan-out: its per-stream goroutine sends to each subscriber's
// 64-slot channel with a blocking send (TryPublish only keeps the publisher from blocking, the stream
// still stalls on its slowest subscriber), and its replay is an in-memory log, not the table. The wire
// format (id/event/data lines, comment heartbeats) is written here; the tests read the stream with
// r3labs' client.
package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
)

// Errors a subscription ends with.
var (
	// ErrSlow: the subscriber's buffer was full; it was dropped so that others are not stalled.
	ErrSlow = errors.New("stream: subscriber too slow, dropped")
	// ErrClosed: the relay is closed (process shutting down).
	ErrClosed = errors.New("stream: relay closed")
)

// Defaults of Config.
const (
	DefaultHeartbeat    = 15 * time.Second
	DefaultBuffer       = 64
	DefaultBatch        = 1000
	DefaultWriteTimeout = 15 * time.Second
)

// Config configures a Relay. Zero values take the defaults.
type Config struct {
	// Heartbeat is the interval of the comment lines that keep idle streams open through proxies.
	Heartbeat time.Duration
	// Buffer is the number of events a subscriber may have pending before it is dropped.
	Buffer int
	// Batch is the row limit of one read of stream_events.
	Batch int32
	// WriteTimeout bounds one write to a client; a client that accepts nothing for that long is cut.
	WriteTimeout time.Duration
	// QueryTimeout bounds a stream's reads of the table (subscribe, replay, status).
	QueryTimeout time.Duration
	// ReconnectMin and ReconnectMax bound the LISTEN connection's reconnect backoff.
	ReconnectMin, ReconnectMax time.Duration
	// FeedPoll is the interval of the feed poller's reads of new activities (feed.go).
	FeedPoll time.Duration
	// FeedGapWait is how long the poller waits at most for a feed position still in flight.
	FeedGapWait time.Duration
	// FeedRetention is how far back a feed reader may resume: an older cursor is told to reload.
	FeedRetention time.Duration
	Logger        *slog.Logger
}

// Event is one stream event as streamed: the SSE data is its JSON, {"<kind>Id": StreamID, seq, type,
// status, message, data, at}.
type Event struct {
	// StreamID is the id of the entity the stream reports on.
	StreamID string
	// IDField is the name of StreamID in the JSON ("missionId", "draftId"); "streamId" when empty.
	IDField string
	Seq     int64
	Type    string
	Status  string
	Message string
	Data    json.RawMessage
	At      time.Time
}

type eventFields struct {
	Seq     int64           `json:"seq"`
	Type    string          `json:"type"`
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
	At      time.Time       `json:"at"`
}

// MarshalJSON writes the event's wire form, its id first under IDField.
func (e Event) MarshalJSON() ([]byte, error) {
	field := e.IDField
	if field == "" {
		field = "streamId"
	}
	key, err := json.Marshal(field)
	if err != nil {
		return nil, err
	}
	id, err := json.Marshal(e.StreamID)
	if err != nil {
		return nil, err
	}
	rest, err := json.Marshal(eventFields{Seq: e.Seq, Type: e.Type, Status: e.Status, Message: e.Message, Data: e.Data,
		At: e.At})
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(key)+len(id)+len(rest)+2)
	b = append(append(append(append(b, '{'), key...), ':'), id...)
	return append(append(b, ','), rest[1:]...), nil
}

// UnmarshalJSON reads the wire form back (clients, tests): the one key ending in "Id" is the stream's
// id; any other unknown key is an error.
func (e *Event) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	var f eventFields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*e = Event{Seq: f.Seq, Type: f.Type, Status: f.Status, Message: f.Message, Data: f.Data, At: f.At}
	for k, v := range m {
		switch k {
		case "seq", "type", "status", "message", "data", "at":
			continue
		}
		if !strings.HasSuffix(k, "Id") || e.IDField != "" {
			return fmt.Errorf("stream event: unexpected field %q", k)
		}
		e.IDField = k
		if err := json.Unmarshal(v, &e.StreamID); err != nil {
			return fmt.Errorf("stream event: %s: %w", k, err)
		}
	}
	return nil
}

// IDField is the JSON name of the id of a stream of the given kind (db.StreamMission → "missionId").
func IDField(kind db.StreamKind) string { return kind.Name + "Id" }

// FromRow converts a stream_events row.
func FromRow(r db.StreamEvent) Event {
	data := r.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	return Event{StreamID: r.StreamID, Seq: r.Seq, Type: r.Type, Status: r.Status, Message: r.Message, Data: data,
		At: r.CreatedAt}
}

// Relay fans stream events of every kind out to this process's subscribers.
type Relay struct {
	store *db.Store
	cfg   Config
	log   *slog.Logger

	startOnce sync.Once
	closeOnce sync.Once
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	wake      chan struct{}
	listening chan struct{} // closed once the first LISTEN is active
	pid       atomic.Uint32 // backend pid of the LISTEN connection (tests)
	connects  atomic.Int64
	live      atomic.Bool  // the LISTEN connection is up (metrics, stats.go)
	reads     atomic.Int64 // batch reads of stream_events (tests)
	delivered atomic.Int64

	mu      sync.Mutex
	closed  bool
	streams map[string]*subscribed
	pending map[string]struct{}
	feeds   map[string]map[*FeedSubscription]struct{} // by workspace

	feedMu        sync.Mutex // the poller's state; taken before mu
	feed          feedState
	feedReads     atomic.Int64 // the poller's reads (tests)
	feedDelivered atomic.Int64
}

// subscribed is a stream this process has subscribers for.
type subscribed struct {
	last int64 // highest seq dispatched
	subs map[*Subscription]struct{}
}

// New builds a relay on the store's database. It does nothing until Start (or a first Subscribe, which
// starts it with a background context; Close stops it either way).
func New(store *db.Store, cfg Config) *Relay {
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = DefaultBuffer
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = 30 * time.Second
	}
	if cfg.ReconnectMin <= 0 {
		cfg.ReconnectMin = 100 * time.Millisecond
	}
	if cfg.ReconnectMax <= 0 {
		cfg.ReconnectMax = 10 * time.Second
	}
	if cfg.FeedPoll <= 0 {
		cfg.FeedPoll = DefaultFeedPoll
	}
	if cfg.FeedGapWait <= 0 {
		cfg.FeedGapWait = DefaultFeedGapWait
	}
	if cfg.FeedRetention <= 0 {
		cfg.FeedRetention = DefaultFeedRetention
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Relay{store: store, cfg: cfg, log: cfg.Logger, wake: make(chan struct{}, 1), listening: make(chan struct{}),
		streams: map[string]*subscribed{}, pending: map[string]struct{}{}, feeds: map[string]map[*FeedSubscription]struct{}{}}
}

// Start starts the relay (idempotent); it stops when ctx ends or on Close.
func Start(ctx context.Context, store *db.Store, cfg Config) *Relay {
	r := New(store, cfg)
	r.Start(ctx)
	return r
}

// Start runs the LISTEN connection and the dispatcher until ctx ends or Close. Later calls do nothing.
func (r *Relay) Start(ctx context.Context) {
	r.startOnce.Do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closed {
			return
		}
		r.ctx, r.cancel = context.WithCancel(ctx)
		r.wg.Add(4)
		go r.listen()
		go r.dispatch()
		go r.pollFeed()
		go func() { // a cancelled parent closes the relay, ending every stream
			defer r.wg.Done()
			<-r.ctx.Done()
			r.shutdown()
		}()
	})
}

// Listening is closed once the LISTEN connection is first active.
func (r *Relay) Listening() <-chan struct{} { return r.listening }

// Close stops the relay and ends every subscription with ErrClosed. It waits for the relay's goroutines.
func (r *Relay) Close() {
	r.shutdown()
	r.wg.Wait()
}

func (r *Relay) shutdown() {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closed = true
		cancel := r.cancel
		for id, m := range r.streams {
			for sub := range m.subs {
				sub.end(ErrClosed)
			}
			delete(r.streams, id)
		}
		for ws, subs := range r.feeds {
			for sub := range subs {
				sub.end(ErrClosed)
			}
			delete(r.feeds, ws)
		}
		r.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	})
}

// subscriber is what every kind of subscription shares: the channel the relay sends on, whether it
// ended, and why.
type subscriber[M any] struct {
	ch   chan M
	done bool // guarded by relay.mu
	err  atomic.Pointer[error]
}

// Err is nil while the subscription runs or after Close; ErrSlow or ErrClosed when the relay ended it.
func (s *subscriber[M]) Err() error {
	if p := s.err.Load(); p != nil {
		return *p
	}
	return nil
}

// end closes the channel; relay.mu is held.
func (s *subscriber[M]) end(err error) {
	if s.done {
		return
	}
	s.done = true
	if err != nil {
		s.err.Store(&err)
	}
	close(s.ch)
}

// Subscription receives the live events of one stream, in seq order, from the first one dispatched
// after it was made. C is closed when the subscription ends; Err says why.
type Subscription struct {
	C <-chan *Event
	subscriber[*Event]
	relay    *Relay
	streamID string
}

// Close unsubscribes. It is idempotent and safe after the relay ended the subscription.
func (s *Subscription) Close() {
	r := s.relay
	r.mu.Lock()
	defer r.mu.Unlock()
	s.end(nil)
	if m := r.streams[s.streamID]; m != nil {
		delete(m.subs, s)
		if len(m.subs) == 0 {
			delete(r.streams, s.streamID)
		}
	}
}

// Subscribe starts receiving a stream's live events. Events committed before Subscribe returns may or
// may not be delivered: the caller replays from the table after subscribing and drops seqs it has
// already written.
func (r *Relay) Subscribe(ctx context.Context, streamID string) (*Subscription, error) {
	r.Start(context.Background())
	r.mu.Lock()
	m, closed := r.streams[streamID], r.closed
	r.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	var base int64
	if m == nil {
		// The first local subscriber of the stream: live delivery starts after the last committed
		// event. An event committed between this read and the registration below is in the table
		// before the caller replays, so nothing falls between replay and live.
		st, err := r.store.StreamState(ctx, streamID)
		if err != nil {
			return nil, err
		}
		base = st.LastSeq
	}
	ch := make(chan *Event, r.cfg.Buffer)
	sub := &Subscription{C: ch, subscriber: subscriber[*Event]{ch: ch}, relay: r, streamID: streamID}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if m = r.streams[streamID]; m == nil {
		m = &subscribed{last: base, subs: map[*Subscription]struct{}{}}
		r.streams[streamID] = m
	}
	m.subs[sub] = struct{}{}
	return sub, nil
}

// subscribers counts this process's subscriptions (tests, metrics).
func (r *Relay) subscribers() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.streams {
		n += len(m.subs)
	}
	return n
}

func (r *Relay) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// notified records a notification payload "<streamId>:<seq>" for a stream with local subscribers.
func (r *Relay) notified(payload string) {
	id, seqText, ok := strings.Cut(payload, ":")
	if !ok {
		return
	}
	seq, err := strconv.ParseInt(seqText, 10, 64)
	if err != nil {
		return
	}
	r.mu.Lock()
	m := r.streams[id]
	if m == nil || seq <= m.last {
		r.mu.Unlock()
		return
	}
	r.pending[id] = struct{}{}
	r.mu.Unlock()
	r.signal()
}

// markAll makes the dispatcher re-read every subscribed stream (after a (re)connect).
func (r *Relay) markAll() {
	r.mu.Lock()
	for id := range r.streams {
		r.pending[id] = struct{}{}
	}
	r.mu.Unlock()
	r.signal()
}

// listen keeps one LISTEN connection open, reconnecting with backoff.
func (r *Relay) listen() {
	defer r.wg.Done()
	first := true
	r.store.Listen(r.ctx, db.Listener{Channel: db.StreamEventsChannel, ReconnectMin: r.cfg.ReconnectMin,
		ReconnectMax: r.cfg.ReconnectMax, Logger: r.log,
		Connected: func(conn *pgx.Conn) {
			r.pid.Store(conn.PgConn().PID())
			r.connects.Add(1)
			r.live.Store(true)
			if first {
				first = false
				close(r.listening)
			}
			// Whatever was committed while we were not listening is read from the table.
			r.markAll()
		},
		Notified: r.notified,
		Lost:     func(error) { r.live.Store(false) },
	})
}

// dispatch reads the new rows of pending streams in batches and fans them out.
func (r *Relay) dispatch() {
	defer r.wg.Done()
	drain(r, r.wake, "read stream events", r.dispatchOnce)
}

// drain calls once each time wake fires, again while it answers more (a full batch), until the relay
// stops; a failed call is logged as what and retried after a pause that doubles up to ReconnectMax.
// The stream dispatcher and the feed poller both run on it.
func drain[T any](r *Relay, wake <-chan T, what string, once func(context.Context) (more bool, err error)) {
	ctx := r.ctx
	retry := r.cfg.ReconnectMin
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
		for {
			more, err := once(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				r.log.Warn(what, "error", err)
				select {
				case <-ctx.Done():
					return
				case <-time.After(retry):
				}
				retry = min(retry*2, r.cfg.ReconnectMax)
				continue
			}
			retry = r.cfg.ReconnectMin
			if !more {
				break
			}
		}
	}
}

// dispatchOnce reads one batch for the pending streams; more says a full batch was read (or a read
// failed) and the pending set is not yet drained.
func (r *Relay) dispatchOnce(ctx context.Context) (more bool, err error) {
	r.mu.Lock()
	ids := make([]string, 0, len(r.pending))
	afters := make([]int64, 0, len(r.pending))
	for id := range r.pending {
		if m := r.streams[id]; m != nil {
			ids = append(ids, id)
			afters = append(afters, m.last)
		}
	}
	clear(r.pending)
	r.mu.Unlock()
	if len(ids) == 0 {
		return false, nil
	}
	r.reads.Add(1)
	rows, err := r.store.StreamEventsBatchAfter(ctx, ids, afters, r.cfg.Batch)
	if err != nil {
		r.mu.Lock()
		for _, id := range ids {
			r.pending[id] = struct{}{}
		}
		r.mu.Unlock()
		return true, err
	}
	full := len(rows) == int(r.cfg.Batch)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, row := range rows {
		m := r.streams[row.StreamID]
		if m == nil || row.Seq <= m.last {
			continue
		}
		m.last = row.Seq
		ev := FromRow(row)
		r.delivered.Add(1)
		for sub := range m.subs {
			select {
			case sub.ch <- &ev:
			default:
				sub.end(ErrSlow)
				delete(m.subs, sub)
			}
		}
		if len(m.subs) == 0 {
			delete(r.streams, row.StreamID)
		}
	}
	if full {
		// Streams cut by the limit keep going from their new last seq.
		for _, id := range ids {
			if r.streams[id] != nil {
				r.pending[id] = struct{}{}
			}
		}
	}
	return full, nil
}

package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/pilot-dev/pilot/db"
)

// The workspace event feed is the relay's second source. Its events are activities, which every write
// records in its own transaction; nothing announces them (a pg_notify per activity would take a
// database-wide lock at commit and serialise the busiest committers). Instead one poller per relay
// reads the activities past the highest feed position it has seen, every Config.FeedPoll, for every
// workspace at once, and hands each event to the subscribers of its workspace.
//
// Positions (activities.seq) are taken from a sequence when a row is inserted, so they are not
// committed in order: a transaction may insert position 11 and commit before the one holding 10. The
// poller keeps the feed in position order all the same, so that a cursor (the last position a reader
// got) says exactly what the reader has: it sends positions in order and holds back those above a
// missing one (a gap) until the gap is settled. A gap settles when its row appears (it is sent, late
// but in order), or when every transaction that was running when the gap was found has ended and the
// row is still not there: it was rolled back (or deleted since, with its project). That is read from
// PostgreSQL's snapshot bounds (db.Store.EventsHorizon): a gap found by one read gets the next
// transaction id of a snapshot taken after that read as its horizon; once a later snapshot's oldest
// running transaction (xmin) is past the horizon, a read in that snapshot's wake decides. A rolled-back
// write thus holds the feed back for about two polls. A transaction still running Config.FeedGapWait
// after its gap was found is given up on (it would hold every workspace's feed back); if it commits
// later, its activity is in the table (history, notifications) but not in the live feed.

// Defaults of the feed's Config fields.
const (
	DefaultFeedPoll      = 20 * time.Millisecond
	DefaultFeedGapWait   = 5 * time.Second
	DefaultFeedRetention = 7 * 24 * time.Hour
)

// feedStartWindow is how many of the newest positions the poller looks at when it starts, for gaps
// below the highest one.
const feedStartWindow = 1000

// feedMaxGaps bounds the gaps the poller waits for: positions further below the highest one seen are
// given up at once (a rolled-back import of thousands of cards).
const feedMaxGaps = 10000

// FeedEventReload is the event that tells a reader its cursor is older than the feed keeps: it must
// reload what it shows, then follow the feed from its end. The stream ends after it.
const FeedEventReload = "reload"

// FeedMessage is one feed event as the poller hands it to every subscriber of its workspace, its SSE
// data (the event's JSON) encoded once.
type FeedMessage struct {
	Event db.FeedEvent
	Data  []byte
}

// FeedSubscription receives the live events of one workspace's feed, in position order, from position
// From on: every earlier event is in the table when Subscribe returns (a reader replays those). C is
// closed when the subscription ends; Err says why.
type FeedSubscription struct {
	C    <-chan *FeedMessage
	From int64
	subscriber[*FeedMessage]
	relay       *Relay
	workspaceID string
}

// Close unsubscribes. It is idempotent and safe after the relay ended the subscription.
func (s *FeedSubscription) Close() {
	r := s.relay
	r.mu.Lock()
	defer r.mu.Unlock()
	s.end(nil)
	if subs := r.feeds[s.workspaceID]; subs != nil {
		delete(subs, s)
		if len(subs) == 0 {
			delete(r.feeds, s.workspaceID)
		}
	}
}

// gap is a position the poller has not seen, below the highest one it has.
type gap struct {
	found   time.Time
	horizon int64 // the next transaction id of a snapshot taken after the read that found it; 0 until then
	decide  bool  // every transaction running when it was found has ended: the next read settles it
}

// feedState is the poller's; Relay.feedMu guards it.
type feedState struct {
	on   bool                   // started (there were subscribers); reset when the last one leaves
	next int64                  // the lowest position not yet settled: every one below was sent or given up
	read int64                  // the highest position read
	held map[int64]*FeedMessage // read, waiting for a gap below to settle
	gaps map[int64]*gap
}

// SubscribeFeed starts receiving a workspace's live feed events. The caller replays the events before
// the subscription's From from the table (db.Store.EventsAfter), then reads C.
func (r *Relay) SubscribeFeed(ctx context.Context, workspaceID string) (*FeedSubscription, error) {
	r.Start(context.Background())
	r.feedMu.Lock()
	defer r.feedMu.Unlock()
	if !r.feed.on {
		if err := r.feedStart(ctx); err != nil {
			return nil, err
		}
	}
	ch := make(chan *FeedMessage, r.cfg.Buffer)
	sub := &FeedSubscription{C: ch, subscriber: subscriber[*FeedMessage]{ch: ch}, relay: r, workspaceID: workspaceID,
		From: r.feed.next}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	subs := r.feeds[workspaceID]
	if subs == nil {
		subs = map[*FeedSubscription]struct{}{}
		r.feeds[workspaceID] = subs
	}
	subs[sub] = struct{}{}
	return sub, nil
}

// feedStart sets the poller up from the newest positions: it starts at the lowest one missing among
// them (a write still in flight) and reads on from there. feedMu is held.
func (r *Relay) feedStart(ctx context.Context) error {
	seqs, err := r.store.EventsRecent(ctx, feedStartWindow)
	if err != nil {
		return fmt.Errorf("start feed: %w", err)
	}
	next := int64(1)
	if len(seqs) > 0 {
		next = seqs[0] + 1
		for i := 1; i < len(seqs); i++ { // highest first: the last hole found is the lowest
			if seqs[i] < seqs[i-1]-1 {
				next = seqs[i] + 1
			}
		}
	}
	r.feed = feedState{on: true, next: next, read: next - 1, held: map[int64]*FeedMessage{}, gaps: map[int64]*gap{}}
	return nil
}

// feedSubscribers counts this process's feed subscriptions (tests, metrics).
func (r *Relay) feedSubscribers() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, subs := range r.feeds {
		n += len(subs)
	}
	return n
}

// pollFeed runs the poller until the relay stops: a poll every FeedPoll, and at once again after a
// full batch.
func (r *Relay) pollFeed() {
	defer r.wg.Done()
	tick := time.NewTicker(r.cfg.FeedPoll)
	defer tick.Stop()
	drain(r, tick.C, "poll feed events", r.feedPollOnce)
}

// feedPollOnce reads one batch and sends what it settles; more says the batch was full.
func (r *Relay) feedPollOnce(ctx context.Context) (more bool, err error) {
	r.feedMu.Lock()
	defer r.feedMu.Unlock()
	if r.feedSubscribers() == 0 {
		r.feed = feedState{} // nobody reads: stop, and start afresh with the next subscriber
		return false, nil
	}
	if !r.feed.on {
		return false, nil
	}
	f := &r.feed
	gaps := make([]int64, 0, len(f.gaps))
	if len(f.gaps) > 0 {
		// Read before the rows: a transaction that had ended by this snapshot has its row in the read
		// below, or never will.
		h, err := r.store.EventsHorizon(ctx)
		if err != nil {
			return false, err
		}
		for seq, g := range f.gaps {
			switch {
			case g.horizon == 0:
				g.horizon = h.Xmax
			case h.Xmin >= g.horizon:
				g.decide = true
			}
			gaps = append(gaps, seq)
		}
	}
	r.feedReads.Add(1)
	events, err := r.store.EventsPoll(ctx, f.read, gaps, r.cfg.Batch)
	if err != nil {
		return false, err
	}
	now := time.Now()
	for i := range events {
		ev := events[i]
		data, err := json.Marshal(ev)
		if err != nil {
			return false, fmt.Errorf("encode feed event: %w", err)
		}
		m := &FeedMessage{Event: ev, Data: data}
		if _, ok := f.gaps[ev.Seq]; ok {
			delete(f.gaps, ev.Seq) // a late commit: sent in its place
		} else if ev.Seq <= f.read {
			continue
		} else {
			for s := max(f.read+1, ev.Seq-feedMaxGaps); s < ev.Seq; s++ {
				f.gaps[s] = &gap{found: now}
			}
			f.read = ev.Seq
		}
		if ev.Seq >= f.next {
			f.held[ev.Seq] = m
		}
	}
	for seq, g := range f.gaps {
		if g.decide || now.Sub(g.found) > r.cfg.FeedGapWait || seq < f.next {
			delete(f.gaps, seq) // rolled back, deleted since, or running for too long
		}
	}
	if f.read-feedMaxGaps > f.next {
		f.next = f.read - feedMaxGaps
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for f.next <= f.read {
		if m := f.held[f.next]; m != nil {
			delete(f.held, f.next)
			r.feedSend(m)
		} else if _, pending := f.gaps[f.next]; pending {
			break
		}
		f.next++
	}
	return len(events) == int(r.cfg.Batch), nil
}

// feedSend hands m to the subscribers of its workspace without blocking; a subscriber whose buffer is
// full is dropped (it catches up from the table). relay.mu is held.
func (r *Relay) feedSend(m *FeedMessage) {
	r.feedDelivered.Add(1)
	subs := r.feeds[m.Event.WorkspaceID]
	for sub := range subs {
		select {
		case sub.ch <- m:
		default:
			sub.end(ErrSlow)
			delete(subs, sub)
		}
	}
	if subs != nil && len(subs) == 0 {
		delete(r.feeds, m.Event.WorkspaceID)
	}
}

// Feed is a reader of a workspace's event feed.
type Feed struct {
	WorkspaceID string
	// Allow decides, as each event is about to be sent, whether this reader may have it now (its access
	// to the workspace and the event's project, the projects it asked for). false skips the event; an
	// error ends the stream (access lost). nil allows every event.
	Allow func(ctx context.Context, ev *db.FeedEvent) (bool, error)
}

// ServeFeed writes a workspace's event feed to w as server-sent events: ":ok" at once, then the events
// after the position after (a reader's Last-Event-ID) replayed from the table, then live ones (without
// a cursor, after <= 0, only the live ones), each once and in position order, every one passed through f.Allow as it is
// sent. It stays open, with heartbeats, until the client goes away, the relay closes (ErrClosed) or f.Allow fails. A
// cursor older than Config.FeedRetention (or than every activity) is answered with one FeedEventReload event,
// and the stream ends.
func (r *Relay) ServeFeed(w http.ResponseWriter, req *http.Request, f Feed, after int64) error {
	return serve[*FeedMessage](r, w, req, &feedSource{r: r, feed: f, checkCursor: after > 0, fromEnd: after <= 0}, after)
}

// feedSource serves one reader of a feed.
type feedSource struct {
	r           *Relay
	feed        Feed
	sub         *FeedSubscription
	checkCursor bool // the reader's cursor is to be checked against the retention
	fromEnd     bool // the reader has no cursor: it follows the feed from its end
}

func (s *feedSource) subscribe(ctx context.Context) (liveSub[*FeedMessage], error) {
	sub, err := s.r.SubscribeFeed(ctx, s.feed.WorkspaceID)
	if err != nil {
		return nil, err
	}
	s.sub = sub
	return feedLive{sub}, nil
}

type feedLive struct{ *FeedSubscription }

func (l feedLive) channel() <-chan *FeedMessage { return l.C }

func (s *feedSource) replay(ctx context.Context, sw *sseWriter, last *int64) (done bool, err error) {
	if s.fromEnd {
		s.fromEnd = false
		*last = s.sub.From - 1
	}
	if s.checkCursor {
		s.checkCursor = false
		at, ok, err := s.r.store.EventsCursorTime(ctx, *last)
		if err != nil {
			return true, fmt.Errorf("read feed cursor: %w", err)
		}
		if !ok || time.Since(at) > s.r.cfg.FeedRetention {
			_ = sw.message(FeedEventReload,
				[]byte(`{"reason":"the cursor is older than the feed keeps: reload, then follow the feed from its end"}`))
			return true, nil
		}
	}
	for *last < s.sub.From-1 {
		events, err := s.r.store.EventsAfter(ctx, s.feed.WorkspaceID, *last, s.sub.From, s.r.cfg.Batch)
		if err != nil {
			return true, fmt.Errorf("replay feed events: %w", err)
		}
		for i := range events {
			ev := &events[i]
			ok, err := s.allow(ctx, ev)
			if err != nil {
				return true, err
			}
			if ok {
				data, err := json.Marshal(ev)
				if err != nil {
					return true, fmt.Errorf("encode feed event: %w", err)
				}
				if err := sw.event(ev.Seq, ev.Type, data); err != nil {
					return true, nil
				}
			}
			*last = ev.Seq
		}
		if len(events) < int(s.r.cfg.Batch) {
			break
		}
	}
	return false, nil
}

func (s *feedSource) live(ctx context.Context, sw *sseWriter, m *FeedMessage, last *int64) (done bool, err error) {
	if m.Event.Seq <= *last {
		return false, nil
	}
	ok, err := s.allow(ctx, &m.Event)
	if err != nil {
		return true, err
	}
	if ok {
		if err := sw.event(m.Event.Seq, m.Event.Type, m.Data); err != nil {
			return true, nil
		}
	}
	*last = m.Event.Seq
	return false, nil
}

func (s *feedSource) allow(ctx context.Context, ev *db.FeedEvent) (bool, error) {
	if s.feed.Allow == nil {
		return true, nil
	}
	return s.feed.Allow(ctx, ev)
}

// ErrAccessLost ends a feed whose reader may no longer read its workspace.
var ErrAccessLost = errors.New("stream: access lost")

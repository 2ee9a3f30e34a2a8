package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/pilot-dev/pilot/db"
)

// ErrNotStarted wraps errors that happened before any byte of the stream was written: the caller may
// still answer with an error status.
var ErrNotStarted = errors.New("stream not started")

// Serve writes the server-sent event stream streamID of the given kind (db.StreamMission, ...) to w:
// ":ok" at once, then the events after `after` replayed from stream_events, then live ones, each once
// and in seq order, with the stream's id under "<kind>Id" in each event's data. The end is the same for
// every kind: Serve returns after the event whose status is one of the kind's final statuses
// (kind.Ends), right after the replay when the stream's last event already is one (the entity finished:
// the client gets everything up to its final event), when the client goes away or the relay closes
// (ErrClosed). Until then it stays open, with heartbeat comments every Config.Heartbeat, whatever the
// statuses on the way (a mission awaiting approval). A client that falls behind a burst catches up from
// the table on the same connection. The caller has checked access to the stream's entity.
func (r *Relay) Serve(w http.ResponseWriter, req *http.Request, kind db.StreamKind, streamID string,
	after int64) error {
	return serve[*Event](r, w, req, &kindSource{r: r, kind: kind, streamID: streamID}, after)
}

// source is one stream as serve writes it, whatever feeds it: stream_events of one entity (kindSource)
// or a workspace's activities (feedSource).
type source[M any] interface {
	// subscribe starts receiving live messages; the replay that follows reads the table.
	subscribe(ctx context.Context) (liveSub[M], error)
	// replay writes the table's messages after *last that the live subscription will not bring,
	// advancing *last; done ends the stream (or the client is gone).
	replay(ctx context.Context, sw *sseWriter, last *int64) (done bool, err error)
	// live writes one live message unless the client has it, advancing *last; done ends the stream.
	live(ctx context.Context, sw *sseWriter, m M, last *int64) (done bool, err error)
}

// liveSub is a subscription of a source: Subscription or FeedSubscription.
type liveSub[M any] interface {
	channel() <-chan M
	Err() error
	Close()
}

// serve is the one SSE loop of every stream: headers and ":ok", then replay, then live messages and
// heartbeats; a subscriber dropped for being slow catches up from the table on the same connection.
func serve[M any](r *Relay, w http.ResponseWriter, req *http.Request, src source[M], after int64) error {
	ctx := req.Context()
	// Subscribe before replaying: a message committed meanwhile is then in the replay, in the live
	// channel, or both (deduplicated by position), never in neither.
	sub, err := subscribeDetached(ctx, r, src)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotStarted, err)
	}
	defer func() { sub.Close() }()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: r.cfg.WriteTimeout}
	defer sw.rc.SetWriteDeadline(time.Time{}) //nolint:errcheck // keep-alive connections must not keep our deadline
	if err := sw.comment("ok"); err != nil {
		return nil // the client is gone
	}
	heartbeat := time.NewTicker(r.cfg.Heartbeat)
	defer heartbeat.Stop()

	last := after
	for {
		done, err := replayDetached(ctx, r, src, sw, &last)
		if done || err != nil || ctx.Err() != nil {
			return err
		}
	live:
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-heartbeat.C:
				if err := sw.comment("heartbeat"); err != nil {
					return nil
				}
			case m, ok := <-sub.channel():
				if !ok {
					break live
				}
				if done, err := src.live(ctx, sw, m, &last); done || err != nil {
					return err
				}
			}
		}
		if !errors.Is(sub.Err(), ErrSlow) {
			return sub.Err()
		}
		// The client fell behind a burst and the relay dropped its subscription: it catches up from
		// the table on the same connection, then follows live again. (A client that takes nothing at
		// all is cut by the write timeout instead.)
		sub.Close()
		if sub, err = subscribeDetached(ctx, r, src); err != nil {
			return err
		}
	}
}

// kindSource serves one stream of stream_events.
type kindSource struct {
	r        *Relay
	kind     db.StreamKind
	streamID string
}

type kindLive struct{ *Subscription }

func (l kindLive) channel() <-chan *Event { return l.C }

func (s *kindSource) subscribe(ctx context.Context) (liveSub[*Event], error) {
	sub, err := s.r.Subscribe(ctx, s.streamID)
	if err != nil {
		return nil, err
	}
	return kindLive{sub}, nil
}

func (s *kindSource) replay(ctx context.Context, sw *sseWriter, last *int64) (bool, error) {
	return s.r.replay(ctx, sw, s.kind, s.streamID, last)
}

func (s *kindSource) live(_ context.Context, sw *sseWriter, ev *Event, last *int64) (bool, error) {
	if ev.Seq <= *last {
		return false, nil
	}
	if err := sw.streamEvent(*ev, IDField(s.kind)); err != nil {
		return true, nil
	}
	*last = ev.Seq
	return s.kind.Ends(ev.Status), nil
}

// Reads are not cut by the client leaving: cancelling a query mid-way costs the pool its connection,
// and a started stream answers its replay in full (writes to a gone client fail harmlessly).
func (r *Relay) detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), r.cfg.QueryTimeout)
}

func subscribeDetached[M any](ctx context.Context, r *Relay, src source[M]) (liveSub[M], error) {
	ctx, cancel := r.detached(ctx)
	defer cancel()
	return src.subscribe(ctx)
}

func replayDetached[M any](ctx context.Context, r *Relay, src source[M], sw *sseWriter, last *int64) (bool, error) {
	ctx, cancel := r.detached(ctx)
	defer cancel()
	return src.replay(ctx, sw, last)
}

// replay writes the events after *last from the table, to its end; done says the stream is over: the
// last event the client now has reports a final status (kind.Ends), or the client is gone. An event
// committed after the table was read comes live (the subscription predates the read).
func (r *Relay) replay(ctx context.Context, sw *sseWriter, kind db.StreamKind, streamID string,
	last *int64) (done bool, err error) {
	status, wrote, gone, err := r.replayTable(ctx, sw, IDField(kind), streamID, last)
	if gone || err != nil {
		return true, err
	}
	if wrote {
		return kind.Ends(status), nil
	}
	// Nothing to replay: the client has the stream's last event already, unless one committed since.
	st, err := r.store.StreamState(ctx, streamID)
	if err != nil {
		return true, fmt.Errorf("read stream state: %w", err)
	}
	return st.LastSeq <= *last && kind.Ends(st.LastStatus), nil
}

// replayTable writes the stream's events after *last, in batches, up to the last one in the table;
// status is the last written event's (wrote says there was one), gone that the client went away.
func (r *Relay) replayTable(ctx context.Context, sw *sseWriter, idField, streamID string,
	last *int64) (status string, wrote, gone bool, err error) {
	for {
		rows, err := r.store.StreamEventsAfter(ctx, streamID, *last, r.cfg.Batch)
		if err != nil {
			return status, wrote, true, fmt.Errorf("replay stream events: %w", err)
		}
		for _, row := range rows {
			if err := sw.streamEvent(FromRow(row), idField); err != nil {
				return status, wrote, true, nil
			}
			*last, status, wrote = row.Seq, row.Status, true
		}
		if len(rows) < int(r.cfg.Batch) {
			return status, wrote, false, nil
		}
	}
}

// ParseLastEventID reads a Last-Event-ID value; 0 when it is absent or not a non-negative number.
func ParseLastEventID(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// sseWriter writes the event-stream wire format and flushes each message, bounding each write.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     []byte
}

// AppendEvent appends ev in the wire format: "id: <seq>\nevent: <type>\ndata: <json>\n\n". The JSON
// is one line (encoding/json escapes newlines in strings), so no data splitting is needed.
func AppendEvent(b []byte, ev Event) ([]byte, error) {
	data, err := json.Marshal(ev)
	if err != nil {
		return b, err
	}
	return appendMessage(b, ev.Seq, ev.Type, data), nil
}

// appendMessage appends one event: its id (none when id < 0), its name and its one-line JSON data.
func appendMessage(b []byte, id int64, event string, data []byte) []byte {
	if id >= 0 {
		b = append(b, "id: "...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, '\n')
	}
	b = append(b, "event: "...)
	b = append(b, event...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// streamEvent writes a stream event, its stream's id under idField.
func (s *sseWriter) streamEvent(ev Event, idField string) error {
	ev.IDField = idField
	b, err := AppendEvent(s.buf[:0], ev)
	if err != nil {
		return err
	}
	s.buf = b
	return s.write(b)
}

// event writes an event with the given id, name and JSON data.
func (s *sseWriter) event(id int64, event string, data []byte) error {
	s.buf = appendMessage(s.buf[:0], id, event, data)
	return s.write(s.buf)
}

// message writes an event without an id (a reader's cursor stays where it was).
func (s *sseWriter) message(event string, data []byte) error {
	return s.event(-1, event, data)
}

func (s *sseWriter) comment(text string) error {
	s.buf = append(append(append(s.buf[:0], ':'), text...), "\n\n"...)
	return s.write(s.buf)
}

func (s *sseWriter) write(b []byte) error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout)) // ErrNotSupported on writers without deadlines
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}

package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ErrNotStarted wraps errors that happened before any byte of the stream was written: the caller may
// still answer with an error status.
var ErrNotStarted = errors.New("stream not started")

// Serve writes the server-sent event stream streamID of the given kind (db.StreamMission, ...) to w:
// ":ok" at once, then the events after `after` replayed from stream_events, then live ones, each once
// and in seq order, with the stream's id under "<kind>Id" in each event's data. It returns after a
// final event (or right after the replay when the stream's last event is final), when the client goes
// away or the relay closes (ErrClosed). A client that falls behind a burst catches up from the table on
// the same connection. Heartbeat comments are written every Config.Heartbeat. The caller has checked
// access to the stream's entity.
func (r *Relay) Serve(w http.ResponseWriter, req *http.Request, kind, streamID string, after int64) error {
	ctx := req.Context()
	idField := IDField(kind)
	// Subscribe before replaying: an event committed meanwhile is then in the replay, in the live
	// channel, or both (deduplicated by seq), never in neither.
	sub, err := r.subscribeDetached(ctx, streamID)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotStarted, err)
	}
	defer func() { sub.Close() }()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: r.cfg.WriteTimeout, idField: idField}
	defer sw.rc.SetWriteDeadline(time.Time{}) //nolint:errcheck // keep-alive connections must not keep our deadline
	if err := sw.comment("ok"); err != nil {
		return nil // the client is gone
	}
	heartbeat := time.NewTicker(r.cfg.Heartbeat)
	defer heartbeat.Stop()

	last := after
	for {
		done, err := r.replay(ctx, sw, streamID, &last)
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
			case ev, ok := <-sub.C:
				if !ok {
					break live
				}
				if ev.Seq <= last {
					continue
				}
				if err := sw.event(*ev); err != nil {
					return nil
				}
				last = ev.Seq
				if ev.Final {
					return nil
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
		if sub, err = r.subscribeDetached(ctx, streamID); err != nil {
			return err
		}
	}
}

// Reads are not cut by the client leaving: cancelling a query mid-way costs the pool its connection,
// and a started stream answers its replay in full (writes to a gone client fail harmlessly).
func (r *Relay) detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), r.cfg.QueryTimeout)
}

func (r *Relay) subscribeDetached(ctx context.Context, streamID string) (*Subscription, error) {
	ctx, cancel := r.detached(ctx)
	defer cancel()
	return r.Subscribe(ctx, streamID)
}

// replay writes the events after *last from the table; done says the stream is over (its last event is
// final, or the client is gone).
func (r *Relay) replay(ctx context.Context, sw *sseWriter, streamID string, last *int64) (done bool, err error) {
	ctx, cancel := r.detached(ctx)
	defer cancel()
	if done, err := r.replayTable(ctx, sw, streamID, last); done || err != nil {
		return true, err
	}
	st, err := r.store.StreamState(ctx, streamID)
	if err != nil {
		return true, fmt.Errorf("read stream state: %w", err)
	}
	if !st.Final {
		return false, nil
	}
	// The stream ended, perhaps after the table was read: its final event commits with the state, so
	// one more read of the table has all of it.
	_, err = r.replayTable(ctx, sw, streamID, last)
	return true, err
}

// replayTable writes the stream's events after *last, in batches; done says the stream is over (a final
// event was written, or the client is gone).
func (r *Relay) replayTable(ctx context.Context, sw *sseWriter, streamID string, last *int64) (done bool, err error) {
	for {
		rows, err := r.store.StreamEventsAfter(ctx, streamID, *last, r.cfg.Batch)
		if err != nil {
			return true, fmt.Errorf("replay stream events: %w", err)
		}
		for _, row := range rows {
			ev := FromRow(row)
			if err := sw.event(ev); err != nil {
				return true, nil
			}
			*last = row.Seq
			if ev.Final { // as live: the stream ends after a final event
				return true, nil
			}
		}
		if len(rows) < int(r.cfg.Batch) {
			return false, nil
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
	idField string
	buf     []byte
}

// AppendEvent appends ev in the wire format: "id: <seq>\nevent: <type>\ndata: <json>\n\n". The JSON
// is one line (encoding/json escapes newlines in strings), so no data splitting is needed.
func AppendEvent(b []byte, ev Event) ([]byte, error) {
	data, err := json.Marshal(ev)
	if err != nil {
		return b, err
	}
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, ev.Seq, 10)
	b = append(b, "\nevent: "...)
	b = append(b, ev.Type...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...), nil
}

func (s *sseWriter) event(ev Event) error {
	ev.IDField = s.idField
	b, err := AppendEvent(s.buf[:0], ev)
	if err != nil {
		return err
	}
	s.buf = b
	return s.write(b)
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

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
func (r *Relay) Serve(w http.ResponseWriter, req *http.Request, kind db.StreamKind, streamID string, after int64) error {
	ctx := req.Context()
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
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: r.cfg.WriteTimeout, idField: IDField(kind)}
	defer sw.rc.SetWriteDeadline(time.Time{}) //nolint:errcheck // keep-alive connections must not keep our deadline
	if err := sw.comment("ok"); err != nil {
		return nil // the client is gone
	}
	heartbeat := time.NewTicker(r.cfg.Heartbeat)
	defer heartbeat.Stop()

	last := after
	for {
		done, err := r.replay(ctx, sw, kind, streamID, &last)
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
				if kind.Ends(ev.Status) {
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

// replay writes the events after *last from the table, to its end; done says the stream is over: the
// last event the client now has reports a final status (kind.Ends), or the client is gone. An event
// committed after the table was read comes live (the subscription predates the read).
func (r *Relay) replay(ctx context.Context, sw *sseWriter, kind db.StreamKind, streamID string, last *int64) (done bool, err error) {
	ctx, cancel := r.detached(ctx)
	defer cancel()
	status, wrote, gone, err := r.replayTable(ctx, sw, streamID, last)
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
func (r *Relay) replayTable(ctx context.Context, sw *sseWriter, streamID string, last *int64) (status string, wrote, gone bool, err error) {
	for {
		rows, err := r.store.StreamEventsAfter(ctx, streamID, *last, r.cfg.Batch)
		if err != nil {
			return status, wrote, true, fmt.Errorf("replay stream events: %w", err)
		}
		for _, row := range rows {
			if err := sw.event(FromRow(row)); err != nil {
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
	if _, err := s.w.Write(b); err != nil {              //nolint:gosec // G705: a text/event-stream of JSON-encoded events, never HTML
		return err
	}
	return s.rc.Flush()
}

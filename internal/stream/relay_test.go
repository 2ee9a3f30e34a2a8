package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
)

const wait = 5 * time.Second

// testPools holds each test store's pool, for statements the store does not make.
var testPools sync.Map // *db.Store → *pgxpool.Pool

func newStore(t testing.TB) *db.Store {
	t.Helper()
	dbPool := pgtest.Pool(t)
	store := engines.New(dbPool, nil, engines.Options{}).Store
	testPools.Store(store, dbPool)
	return store
}

// poolOf is the pool of a store newStore made.
func poolOf(store *db.Store) *pgxpool.Pool {
	p, _ := testPools.Load(store)
	return p.(*pgxpool.Pool)
}

// newMission inserts a user, organization, workspace, agent (with its service user) and a mission in
// the given status, as the missions code will; it returns the mission id.
func newMission(t testing.TB, store *db.Store, status string) string {
	t.Helper()
	ctx := context.Background()
	user, svc, org, ws, agent, mission := db.NewID(), db.NewID(), db.NewID(), db.NewID(), db.NewID(), db.NewID()
	batch := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, []any{user, user + "@example.test"}},
		{`INSERT INTO users (id, email, password_hash, is_service) VALUES ($1, $2, 'x', true)`, []any{svc,
			svc + "@agents.test"}},
		{`INSERT INTO organizations (id, name, slug, owner_id) VALUES ($1, 'o', $2, $3)`, []any{org, "o" + org[:8] + org[24:],
			user}},
		{`INSERT INTO workspaces (id, organization_id, name, slug, owner_id) VALUES ($1, $2, 'w', 'w', $3)`, []any{ws, org,
			user}},
		{`INSERT INTO agents (id, workspace_id, user_id, name, slug, created_by) VALUES ($1, $2, $3, 'bot', 'bot', $4)`,
			[]any{agent, ws, svc, user}},
		{`INSERT INTO agent_missions (id, workspace_id, agent_id, source, objective, status, max_steps, created_by)
		  VALUES ($1, $2, $3, 'agent', 'test', $4, 10, $5)`, []any{mission, ws, agent, status, user}},
	}
	for _, q := range batch {
		_, err := poolOf(store).Exec(ctx, q.sql, q.args...)
		require.NoError(t, err, q.sql)
	}
	return mission
}

func appendEvent(t testing.TB, store *db.Store, mission, typ, status, msg string) int64 {
	t.Helper()
	row, err := store.AppendMissionEvent(context.Background(), mission, db.NewMissionEvent{Type: typ, Status: status,
		Message: msg, Data: map[string]any{"n": msg}})
	require.NoError(t, err)
	return row.Seq
}

func startRelay(t testing.TB, store *db.Store, cfg Config) *Relay {
	t.Helper()
	r := Start(context.Background(), store, cfg)
	t.Cleanup(r.Close)
	select {
	case <-r.Listening():
	case <-time.After(wait):
		t.Fatal("relay not listening")
	}
	return r
}

func recv(t *testing.T, sub *Subscription) *Event {
	t.Helper()
	select {
	case ev, ok := <-sub.C:
		require.True(t, ok, "subscription ended: %v", sub.Err())
		return ev
	case <-time.After(wait):
		t.Fatal("no event")
	}
	return nil
}

func TestRelayDeliversInOrder(t *testing.T) {
	store := newStore(t)
	r := startRelay(t, store, Config{})
	m1, m2 := newMission(t, store, "running"), newMission(t, store, "running")
	appendEvent(t, store, m1, "status", "", "before") // committed before subscribing: not live
	sub, err := r.Subscribe(context.Background(), m1)
	require.NoError(t, err)
	defer sub.Close()
	for i := range 20 {
		appendEvent(t, store, m2, "token", "", "other") // another mission: not delivered here
		appendEvent(t, store, m1, "token", "", strconv.Itoa(i))
	}
	for i := range 20 {
		ev := recv(t, sub)
		require.Equal(t, int64(i+2), ev.Seq)
		require.Equal(t, m1, ev.StreamID)
		require.Equal(t, "token", ev.Type)
		require.Equal(t, "running", ev.Status)
		require.Equal(t, strconv.Itoa(i), ev.Message)
		require.JSONEq(t, fmt.Sprintf(`{"n":%q}`, strconv.Itoa(i)), string(ev.Data))
	}
	select {
	case ev := <-sub.C:
		t.Fatalf("unexpected event %+v", ev)
	case <-time.After(100 * time.Millisecond):
	}
}

// Notifications that arrive together are read with one query for all missions, not one per mission
// or per subscriber.
func TestRelayBatchesReads(t *testing.T) {
	store := newStore(t)
	r := startRelay(t, store, Config{})
	const n = 30
	missions := make([]string, n)
	var subs []*Subscription
	for i := range missions {
		missions[i] = newMission(t, store, "running")
		for range 3 {
			sub, err := r.Subscribe(context.Background(), missions[i])
			require.NoError(t, err)
			subs = append(subs, sub)
		}
	}
	before := r.reads.Load()
	require.NoError(t, store.InTx(context.Background(), func(tx pgx.Tx) error {
		for _, m := range missions {
			if _, err := store.AppendMissionEventTx(context.Background(), tx, m, db.NewMissionEvent{Type: "step"}); err != nil {
				return err
			}
		}
		return nil
	}))
	for i, sub := range subs {
		ev := recv(t, sub)
		require.Equal(t, missions[i/3], ev.StreamID)
		sub.Close()
	}
	reads := r.reads.Load() - before
	t.Logf("%d events to %d subscribers in %d reads", n, len(subs), reads)
	require.Less(t, reads, int64(n/2))
}

func TestRelaySlowSubscriberIsDropped(t *testing.T) {
	store := newStore(t)
	r := startRelay(t, store, Config{Buffer: 4})
	m := newMission(t, store, "running")
	slow, err := r.Subscribe(context.Background(), m)
	require.NoError(t, err)
	defer slow.Close()
	fast, err := r.Subscribe(context.Background(), m)
	require.NoError(t, err)
	defer fast.Close()
	got := make(chan int64, 100)
	go func() {
		for ev := range fast.C {
			got <- ev.Seq
		}
		close(got)
	}()
	// In lockstep, so that the fast one never has more than one event pending.
	for i := range 20 {
		appendEvent(t, store, m, "token", "", strconv.Itoa(i))
		select {
		case seq := <-got:
			require.Equal(t, int64(i+1), seq)
		case <-time.After(wait):
			t.Fatalf("fast subscriber stalled at %d", i)
		}
	}
	// The slow one got its buffer's worth, then was dropped.
	n := 0
	for range slow.C {
		n++
	}
	require.Equal(t, 4, n)
	require.ErrorIs(t, slow.Err(), ErrSlow)
	require.NoError(t, fast.Err())
}

// After the LISTEN connection is killed, the relay reconnects and reads what was committed meanwhile.
func TestRelayReconnectCatchesUp(t *testing.T) {
	store := newStore(t)
	r := startRelay(t, store, Config{ReconnectMin: 200 * time.Millisecond})
	m := newMission(t, store, "running")
	sub, err := r.Subscribe(context.Background(), m)
	require.NoError(t, err)
	defer sub.Close()
	appendEvent(t, store, m, "step", "", "1")
	require.Equal(t, int64(1), recv(t, sub).Seq)

	var killed bool
	require.NoError(t, poolOf(store).QueryRow(context.Background(), "SELECT pg_terminate_backend($1)",
		int32(r.pid.Load())).Scan(&killed))
	require.True(t, killed)
	// Until the killed backend is gone it may still deliver notifications; wait, so that these arrive
	// only through the reconnected relay.
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, poolOf(store).QueryRow(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE pid = $1", int32(r.pid.Load())).Scan(&n))
		return n == 0 || r.connects.Load() >= 2
	}, 10*time.Second, 5*time.Millisecond)
	// Committed while the relay is (most likely) reconnecting: their notifications are lost.
	appendEvent(t, store, m, "step", "", "2")
	appendEvent(t, store, m, "step", "", "3")
	require.Equal(t, int64(2), recv(t, sub).Seq)
	require.Equal(t, int64(3), recv(t, sub).Seq)
	require.GreaterOrEqual(t, r.connects.Load(), int64(2))
	appendEvent(t, store, m, "step", "", "4")
	require.Equal(t, int64(4), recv(t, sub).Seq)
}

func TestRelayCloseEndsSubscriptions(t *testing.T) {
	store := newStore(t)
	r := startRelay(t, store, Config{})
	m := newMission(t, store, "running")
	sub, err := r.Subscribe(context.Background(), m)
	require.NoError(t, err)
	r.Close()
	_, ok := <-sub.C
	require.False(t, ok)
	require.ErrorIs(t, sub.Err(), ErrClosed)
	sub.Close()
	_, err = r.Subscribe(context.Background(), m)
	require.ErrorIs(t, err, ErrClosed)
}

// serveTest serves Relay.Serve for /{mission} with Last-Event-ID.
func serveTest(t testing.TB, r *Relay) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_ = r.Serve(w, req, db.StreamMission, strings.TrimPrefix(req.URL.Path, "/"),
			ParseLastEventID(req.Header.Get("Last-Event-ID")))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestServeReplayLiveHeartbeatEnd(t *testing.T) {
	store := newStore(t)
	r := startRelay(t, store, Config{Heartbeat: 50 * time.Millisecond})
	srv := serveTest(t, r)
	m := newMission(t, store, "running")
	appendEvent(t, store, m, "status", "running", "started")
	appendEvent(t, store, m, "step", "", "one")

	s := ssetest.Open(t, srv.URL+"/"+m, map[string]string{"Last-Event-ID": "1"})
	require.Equal(t, http.StatusOK, s.Resp.StatusCode)
	require.Equal(t, "text/event-stream", s.Resp.Header.Get("Content-Type"))
	require.Equal(t, "no-cache", s.Resp.Header.Get("Cache-Control"))
	require.Equal(t, "no", s.Resp.Header.Get("X-Accel-Buffering"))
	require.Equal(t, "ok", s.Next(t, wait).Comment)
	f := s.NextEvent(t, wait)
	require.Equal(t, "2", f.ID)
	require.Equal(t, "step", f.Event)
	var data map[string]any
	require.NoError(t, json.Unmarshal([]byte(f.Data), &data))
	require.Equal(t, m, data["missionId"])
	require.Equal(t, float64(2), data["seq"])
	require.Equal(t, "one", data["message"])
	require.Equal(t, "running", data["status"])
	require.Equal(t, map[string]any{"n": "one"}, data["data"])
	_, err := time.Parse(time.RFC3339Nano, data["at"].(string))
	require.NoError(t, err)

	// Heartbeats while idle.
	require.Equal(t, "heartbeat", s.Next(t, wait).Comment)
	require.Equal(t, "heartbeat", s.Next(t, wait).Comment)

	appendEvent(t, store, m, "token", "", "tok")
	f = s.NextEvent(t, wait)
	require.Equal(t, "3", f.ID)
	require.Equal(t, "token", f.Event)
	_, err = poolOf(store).Exec(context.Background(), "UPDATE agent_missions SET status = 'completed' WHERE id = $1", m)
	require.NoError(t, err)
	appendEvent(t, store, m, "done", "completed", "finished")
	f = s.NextEvent(t, wait)
	require.Equal(t, "4", f.ID)
	require.Equal(t, "done", f.Event)
	s.RequireEnd(t, wait)
}

func TestNoGoroutineLeak(t *testing.T) {
	store := newStore(t)
	m := newMission(t, store, "running")
	opts := []goleak.Option{goleak.IgnoreCurrent()}
	func() {
		r := Start(context.Background(), store, Config{Heartbeat: 20 * time.Millisecond})
		defer r.Close()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			_ = r.Serve(w, req, db.StreamMission, m, 0)
		}))
		defer srv.Close()
		var streams []*ssetest.Stream
		for range 20 {
			s := ssetest.Open(t, srv.URL, nil)
			require.Equal(t, "ok", s.Next(t, wait).Comment)
			streams = append(streams, s)
		}
		appendEvent(t, store, m, "step", "", "x")
		for _, s := range streams {
			require.Equal(t, "1", s.NextEvent(t, wait).ID)
			s.Close()
		}
		require.Eventually(t, func() bool { return r.subscribers() == 0 }, wait, 10*time.Millisecond)
		// Subscriptions without HTTP too.
		for range 50 {
			sub, err := r.Subscribe(context.Background(), m)
			require.NoError(t, err)
			sub.Close()
			sub.Close()
		}
		require.Equal(t, 0, r.subscribers())
		http.DefaultClient.CloseIdleConnections()
	}()
	goleak.VerifyNone(t, opts...)
}

// A client that falls behind a burst (more events at once than its buffer holds) is dropped by the
// relay but catches up from the table on the same connection: no gap, no duplicate, no reconnect.
func TestServeCatchesUpAfterBurst(t *testing.T) {
	store := newStore(t)
	r := startRelay(t, store, Config{Buffer: 1})
	srv := serveTest(t, r)
	m := newMission(t, store, "running")
	s := ssetest.Open(t, srv.URL+"/"+m, nil)
	require.Equal(t, "ok", s.Next(t, wait).Comment)
	for round := range 3 {
		require.NoError(t, store.InTx(context.Background(), func(tx pgx.Tx) error {
			for range 20 {
				if _, err := store.AppendMissionEventTx(context.Background(), tx, m,
					db.NewMissionEvent{Type: "token"}); err != nil {
					return err
				}
			}
			return nil
		}))
		for i := 1; i <= 20; i++ {
			require.Equal(t, strconv.Itoa(round*20+i), s.NextEvent(t, wait).ID)
		}
	}
	appendEvent(t, store, m, "done", "failed", "end")
	require.Equal(t, "61", s.NextEvent(t, wait).ID)
	s.RequireEnd(t, wait)
}

// A stream of another kind goes through the same relay: its events carry "<kind>Id", and it ends by
// the one rule of every kind: after the event whose status is one of the kind's final statuses. Any
// other status keeps it open, whatever the event's type; a client of a finished stream gets everything
// up to the final event, then the end.
func TestServeOtherKindEndsOnAFinalStatus(t *testing.T) {
	store := newStore(t)
	r := startRelay(t, store, Config{Heartbeat: 50 * time.Millisecond})
	widget := db.StreamKind{Name: "widget", Final: []string{"closed", "scrapped"}}
	id := db.NewID() // a stream needs no row of its own kind to exist
	add := func(typ, status string) {
		_, err := store.AppendStreamEvent(context.Background(), widget, id, db.NewStreamEvent{Type: typ, Status: status,
			Message: typ})
		require.NoError(t, err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_ = r.Serve(w, req, widget, id, ParseLastEventID(req.Header.Get("Last-Event-ID")))
	}))
	t.Cleanup(srv.Close)
	add("status", "open")
	add("done", "waiting") // a done event with a status that is not final: the stream goes on

	s := ssetest.Open(t, srv.URL, nil)
	require.Equal(t, "ok", s.Next(t, wait).Comment)
	require.Equal(t, "1", s.NextEvent(t, wait).ID)
	require.Equal(t, "2", s.NextEvent(t, wait).ID)
	require.Equal(t, "heartbeat", s.Next(t, wait).Comment, "still open")
	add("status", "open")
	require.Equal(t, "3", s.NextEvent(t, wait).ID)
	add("status", "closed")
	f := s.NextEvent(t, wait)
	require.Equal(t, "4", f.ID)
	var data Event
	require.NoError(t, json.Unmarshal([]byte(f.Data), &data))
	require.Equal(t, Event{StreamID: id, IDField: "widgetId", Seq: 4, Type: "status", Status: "closed", Message: "status",
		Data: json.RawMessage("{}"), At: data.At}, data)
	s.RequireEnd(t, wait)

	// Finished: from the start, every event up to the final one, then the end; from before the end,
	// the rest; from the final event, the end at once.
	s = ssetest.Open(t, srv.URL, nil)
	require.Equal(t, "ok", s.Next(t, wait).Comment)
	for i := 1; i <= 4; i++ {
		require.Equal(t, strconv.Itoa(i), s.NextEvent(t, wait).ID)
	}
	s.RequireEnd(t, wait)
	s = ssetest.Open(t, srv.URL, map[string]string{"Last-Event-ID": "2"})
	require.Equal(t, "ok", s.Next(t, wait).Comment)
	require.Equal(t, "3", s.NextEvent(t, wait).ID)
	require.Equal(t, "4", s.NextEvent(t, wait).ID)
	s.RequireEnd(t, wait)
	s = ssetest.Open(t, srv.URL, map[string]string{"Last-Event-ID": "4"})
	require.Equal(t, "ok", s.Next(t, wait).Comment)
	s.RequireEnd(t, wait)

	// Another kind under the same id is refused.
	_, err := store.AppendStreamEvent(context.Background(), db.StreamMission, id, db.NewStreamEvent{Type: "status"})
	require.ErrorIs(t, err, db.ErrConflict)
}

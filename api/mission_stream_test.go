package api

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/r3labs/sse/v2"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
)

// streamWait bounds waits for stream events; generous, since CI runs the package's tests in parallel
// on two cores (a passing test never waits it out).
const streamWait = 20 * time.Second

// streamServer is one api process: its own pool, relay and HTTP server.
type streamServer struct {
	*testEnv
	url   string
	relay *stream.Relay
	// conns counts the HTTP server's open connections: zero once every client's connection, and the
	// stream it carried, is over on the server's side.
	conns atomic.Int64
}

// newStreamServer starts an api server on the database behind dbPool (a fresh one when nil), with its
// own pool and relay, served over real HTTP.
func newStreamServer(t *testing.T, dbPool *pgxpool.Pool, cfg stream.Config) *streamServer {
	t.Helper()
	return newStreamServerWith(t, dbPool, cfg, Options{})
}

// newStreamServerWith is newStreamServer with more options for the api (its relay, public URL and
// login limit are set here).
func newStreamServerWith(t *testing.T, dbPool *pgxpool.Pool, cfg stream.Config, opts Options) *streamServer {
	t.Helper()
	if dbPool == nil {
		dbPool = pgtest.Pool(t)
	} else {
		p, err := db.OpenPool(context.Background(), dbPool.Config().ConnString(), 10)
		require.NoError(t, err)
		t.Cleanup(p.Close)
		dbPool = p
	}
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{})
	require.NoError(t, err)
	eng := engines.New(dbPool, riverClient, engines.Options{})
	signer := testSigner(testJWTSecret, 7*24*time.Hour)
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = 50 * time.Millisecond
	}
	relay := stream.Start(context.Background(), eng.Store, cfg)
	opts.PublicURL, opts.LoginRateLimit, opts.RegisterRateLimit, opts.Relay = "http://pilot.test", 1000, 1000, relay
	h := newTestHandler(t, eng, signer, slog.New(slog.NewTextHandler(io.Discard, nil)), opts)
	s := &streamServer{testEnv: &testEnv{t: t, handler: h, eng: eng, pool: dbPool, signer: signer}, relay: relay}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		switch state {
		case http.StateNew:
			s.conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.conns.Add(-1)
		}
	}
	srv.Start()
	s.url = srv.URL
	t.Cleanup(func() {
		relay.Close() // ends the streams, so that Close does not wait for them
		srv.Close()
	})
	<-relay.Listening()
	return s
}

// newTestMission inserts an agent (with its service user) and a mission in u's personal workspace, as
// the missions code does; it returns the mission id. The rows are inserted, not made by testfactory's
// Agent and the missions engine: the engine's create appends a queued event and its start a running
// one, and these tests need a mission in a given status whose stream holds only the events they emit
// (and u is registered over HTTP, so there is no identity.Registration to give testfactory).
func (e *testEnv) newTestMission(u user, status string) string {
	e.t.Helper()
	ctx := context.Background()
	var ws string
	require.NoError(e.t, e.pool.QueryRow(ctx, `SELECT w.id
		FROM workspaces w JOIN organizations o ON o.id = w.organization_id
		WHERE o.slug = $1 AND w.slug = $2`, u.OrgSlug, u.WsSlug).Scan(&ws))
	svc, agent, mission := db.NewID(), db.NewID(), db.NewID()
	_, err := e.pool.Exec(ctx, `INSERT INTO users (id, email, password_hash, is_service) VALUES ($1, $2, '!', true)`, svc,
		svc+"@agents.pilot.test")
	require.NoError(e.t, err)
	_, err = e.pool.Exec(ctx,
		`INSERT INTO agents (id, workspace_id, user_id, name, slug, created_by) VALUES ($1, $2, $3, 'Bot', $4, $5)`, agent,
		ws, svc, "bot-"+agent[len(agent)-12:], u.ID)
	require.NoError(e.t, err)
	_, err = e.pool.Exec(ctx, `INSERT INTO agent_missions
		(id, workspace_id, agent_id, source, objective, status, max_steps, created_by)
		VALUES ($1, $2, $3, 'agent', 'Tidy the backlog', $4, 10, $5)`, mission, ws, agent, status, u.ID)
	require.NoError(e.t, err)
	return mission
}

// emit appends an event as a worker does and returns its seq.
func (e *testEnv) emit(mission, typ, status, msg string) int64 {
	e.t.Helper()
	row, err := e.eng.Store.AppendMissionEvent(context.Background(), mission, db.NewMissionEvent{Type: typ, Status: status,
		Message: msg, Data: map[string]any{"msg": msg}})
	require.NoError(e.t, err)
	return row.Seq
}

func (s *streamServer) eventsURL(u user, mission string) string {
	return s.url + "/orgs/" + u.OrgSlug + "/workspaces/" + u.WsSlug + "/missions/" + mission + "/events"
}

func (s *streamServer) open(u user, mission string, header map[string]string) *ssetest.Stream {
	s.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + u.Token}
	for k, v := range header {
		h[k] = v
	}
	st := ssetest.Open(s.t, s.eventsURL(u, mission), h)
	require.Equal(s.t, http.StatusOK, st.Resp.StatusCode)
	require.Equal(s.t, "ok", st.Next(s.t, streamWait).Comment, "the stream starts with a comment at once")
	return st
}

// requireEvent asserts the next event's id, name and data.
func requireEvent(t *testing.T, st *ssetest.Stream, mission string, seq int64, typ, status, msg string) {
	t.Helper()
	f := st.NextEvent(t, streamWait)
	require.Equal(t, strconv.FormatInt(seq, 10), f.ID, "frame %+v", f)
	require.Equal(t, typ, f.Event)
	data := decodeJSON[stream.Event](t, []byte(f.Data))
	require.Equal(t, mission, data.StreamID)
	require.Equal(t, "missionId", data.IDField)
	require.Equal(t, seq, data.Seq)
	require.Equal(t, typ, data.Type)
	require.Equal(t, status, data.Status)
	require.Equal(t, msg, data.Message)
	// An event's data is free-form, as the worker (here emit) wrote it.
	require.Equal(t, map[string]any{"msg": msg}, decodeJSON[map[string]any](t, data.Data))
	require.WithinDuration(t, time.Now(), data.At, time.Minute)
}

func TestMissionStreamLive(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{})
	u := s.register("ada@example.com")
	m := s.newTestMission(u, "running")
	st := s.open(u, m, nil)
	require.Equal(t, "text/event-stream", st.Resp.Header.Get("Content-Type"))
	require.Equal(t, "no-cache", st.Resp.Header.Get("Cache-Control"), "the stream's own, not the default no-eng.Store")
	require.Equal(t, "no", st.Resp.Header.Get("X-Accel-Buffering"))
	require.Equal(t, "nosniff", st.Resp.Header.Get("X-Content-Type-Options"))

	s.emit(m, "status", "running", "started")
	s.emit(m, "step", "", "moved a card")
	s.emit(m, "token", "", "multi\nline")
	s.emit(m, "proposal", "awaiting_approval", "needs approval")
	requireEvent(t, st, m, 1, "status", "running", "started")
	requireEvent(t, st, m, 2, "step", "running", "moved a card")
	requireEvent(t, st, m, 3, "token", "running", "multi\nline")
	requireEvent(t, st, m, 4, "proposal", "awaiting_approval", "needs approval")
	// Awaiting approval is not final: the stream stays open (heartbeats) until the mission ends.
	require.Equal(t, "heartbeat", st.Next(t, streamWait).Comment)
	s.emit(m, "proposal", "awaiting_approval", "approved")
	requireEvent(t, st, m, 5, "proposal", "awaiting_approval", "approved")
	s.emit(m, "done", "completed", "mission completed")
	requireEvent(t, st, m, 6, "done", "completed", "mission completed")
	st.RequireEnd(t, streamWait)
}

func TestMissionStreamHeartbeat(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{Heartbeat: 50 * time.Millisecond})
	u := s.register("ada@example.com")
	m := s.newTestMission(u, "queued")
	st := s.open(u, m, nil)
	start := time.Now()
	for range 3 {
		require.Equal(t, "heartbeat", st.Next(t, streamWait).Comment)
	}
	require.Less(t, time.Since(start), 2*time.Second)
}

func TestMissionStreamLastEventIDReplay(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{})
	u := s.register("ada@example.com")
	m := s.newTestMission(u, "running")
	for i := 1; i <= 3; i++ {
		s.emit(m, "step", "", "s"+strconv.Itoa(i))
	}
	st := s.open(u, m, nil)
	requireEvent(t, st, m, 1, "step", "running", "s1")
	requireEvent(t, st, m, 2, "step", "running", "s2")
	requireEvent(t, st, m, 3, "step", "running", "s3")
	st.Close()
	// Missed while disconnected.
	s.emit(m, "step", "", "s4")
	s.emit(m, "token", "", "s5")

	st = s.open(u, m, map[string]string{"Last-Event-ID": "3"})
	requireEvent(t, st, m, 4, "step", "running", "s4")
	requireEvent(t, st, m, 5, "token", "running", "s5")
	s.emit(m, "step", "", "s6")
	requireEvent(t, st, m, 6, "step", "running", "s6")
	_, err := s.pool.Exec(context.Background(), "UPDATE agent_missions SET status = 'failed' WHERE id = $1", m)
	require.NoError(t, err)
	s.emit(m, "done", "failed", "gave up")
	requireEvent(t, st, m, 7, "done", "failed", "gave up")
	st.RequireEnd(t, streamWait)

	// A nonsense Last-Event-ID replays everything.
	st = s.open(u, m, map[string]string{"Last-Event-ID": "bogus"})
	for i := int64(1); i <= 7; i++ {
		require.Equal(t, strconv.FormatInt(i, 10), st.NextEvent(t, streamWait).ID)
	}
	st.RequireEnd(t, streamWait)
}

func TestMissionStreamCompletedReplaysThenEnds(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{})
	u := s.register("ada@example.com")
	m := s.newTestMission(u, "running")
	s.emit(m, "status", "running", "started")
	s.emit(m, "step", "", "work")
	s.emit(m, "done", "completed", "all done")
	_, err := s.pool.Exec(context.Background(), "UPDATE agent_missions SET status = 'completed' WHERE id = $1", m)
	require.NoError(t, err)

	st := s.open(u, m, nil)
	requireEvent(t, st, m, 1, "status", "running", "started")
	requireEvent(t, st, m, 2, "step", "running", "work")
	requireEvent(t, st, m, 3, "done", "completed", "all done")
	st.RequireEnd(t, streamWait)

	// Re-attaching after the last event: nothing to replay, the stream ends at once.
	st = s.open(u, m, map[string]string{"Last-Event-ID": "3"})
	st.RequireEnd(t, streamWait)
}

// A client on api server B sees the events "a worker" commits, while server A serves others: each api
// process relays from the database, nothing is shared in memory.
func TestMissionStreamAcrossServers(t *testing.T) {
	a := newStreamServer(t, nil, stream.Config{})
	b := newStreamServer(t, a.pool, stream.Config{})
	worker := engines.New(a.pool, nil, engines.Options{}).Store // a third process writing the events
	u := a.register("ada@example.com")
	m := a.newTestMission(u, "queued")

	onB := b.open(u, m, nil)
	onA := a.open(u, m, nil)
	for i, typ := range []string{"status", "step", "token"} {
		_, err := worker.AppendMissionEvent(context.Background(), m, db.NewMissionEvent{Type: typ, Status: "running",
			Message: typ, Data: map[string]any{"msg": typ}})
		require.NoError(t, err)
		requireEvent(t, onB, m, int64(i+1), typ, "running", typ)
		requireEvent(t, onA, m, int64(i+1), typ, "running", typ)
	}
}

// A client that never reads does not stall the others: its subscription is dropped when its buffer
// is full and its connection cut after the write timeout; the fast client gets every event.
func TestMissionStreamSlowClient(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{Buffer: 8, WriteTimeout: time.Second})
	u := s.register("ada@example.com")
	m := s.newTestMission(u, "running")

	// The slow client: a raw connection with a small receive buffer that never reads.
	host := strings.TrimPrefix(s.url, "http://")
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.(*net.TCPConn).SetReadBuffer(4096))
	path := strings.TrimPrefix(s.eventsURL(u, m), s.url)
	_, err = fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: "+
		"text/event-stream\r\n\r\n", path, host, u.Token)
	require.NoError(t, err)
	status, err := bufio.NewReaderSize(conn, 16).ReadString('\n') // only the status line
	require.NoError(t, err)
	require.Contains(t, status, "200")

	fast := s.open(u, m, nil)
	const n = 200
	big := strings.Repeat("x", 32*1024) // 6.4 MB in all: more than the socket buffers hold
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= n; i++ {
			if _, err := s.eng.Store.AppendMissionEvent(context.Background(), m, db.NewMissionEvent{Type: "token",
				Message: big}); err != nil {
				t.Errorf("append: %v", err)
				return
			}
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for i := 1; i <= n; i++ {
		f := fast.NextEvent(t, time.Until(deadline))
		require.Equal(t, strconv.Itoa(i), f.ID)
	}
	<-done
}

func TestMissionStreamAccess(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{})
	ada := s.register("ada@example.com")
	bob := s.register("bob@example.com")
	adaMission := s.newTestMission(ada, "running")
	bobMission := s.newTestMission(bob, "running")

	// get answers what url answered, with the body of an error (a stream's never ends).
	get := func(url string, header map[string]string) *resp {
		t.Helper()
		st := ssetest.Open(t, url, header)
		r := &resp{Code: st.Resp.StatusCode, Header: st.Resp.Header}
		if r.Code != http.StatusOK {
			var err error
			r.Body, err = io.ReadAll(st.Resp.Body)
			require.NoError(t, err)
		}
		return r
	}
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

	// requireStatus checks the error shape too: JSON {statusCode, message, error}.
	requireStatus(t, get(s.eventsURL(ada, db.NewID()), bearer(ada.Token)), http.StatusNotFound)
	requireStatus(t, get(s.eventsURL(ada, "not-a-uuid"), bearer(ada.Token)), http.StatusNotFound)
	// Bob's mission through Ada's workspace.
	requireStatus(t, get(s.eventsURL(ada, bobMission), bearer(ada.Token)), http.StatusNotFound)
	// Ada's mission through Bob's workspace, as Ada: not a member there.
	requireStatus(t, get(s.eventsURL(bob, adaMission), bearer(ada.Token)), http.StatusNotFound)
	requireStatus(t, get(s.eventsURL(ada, adaMission), nil), http.StatusUnauthorized)
	requireStatus(t, get(s.eventsURL(ada, adaMission), bearer("garbage")), http.StatusUnauthorized)
	// A personal access token needs projects:read.
	requireStatus(t, get(s.eventsURL(ada, adaMission), bearer(s.pat(ada, []string{auth.ScopePilotageRead}))),
		http.StatusForbidden)
	st := s.open(ada, adaMission, map[string]string{"Authorization": "Bearer " + s.pat(ada,
		[]string{auth.ScopeProjectsRead})})
	s.emit(adaMission, "step", "", "via token")
	requireEvent(t, st, adaMission, 1, "step", "running", "via token")
}

// serveMissionStream takes Last-Event-ID from the header when its caller passes 0 (the card-mission
// endpoint passes 0 on a fresh mission).
func TestServeMissionStreamHeaderFallback(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{})
	u := s.register("ada@example.com")
	m := s.newTestMission(u, "running")
	for i := 1; i <= 3; i++ {
		s.emit(m, "step", "", strconv.Itoa(i))
	}
	srv := &Server{store: s.eng.Store, logger: slog.New(slog.DiscardHandler), opts: Options{Relay: s.relay}}
	srv.initOps()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		last, _ := strconv.ParseInt(r.URL.Query().Get("last"), 10, 64)
		srv.ops.agents.serveMissionStream(w, r, m, last)
	}))
	defer hs.Close()

	st := ssetest.Open(t, hs.URL, map[string]string{"Last-Event-ID": "2"})
	requireEvent(t, st, m, 3, "step", "running", "3")
	st.Close()
	st = ssetest.Open(t, hs.URL+"?last=1", map[string]string{"Last-Event-ID": "2"})
	requireEvent(t, st, m, 2, "step", "running", "2")
	st.Close()
}

// r3labs/sse's client reads the stream: ids, event names and data survive its parser, and the stream's
// end (a terminal status) ends its subscription without a reconnect.
func TestMissionStreamR3labsClient(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{})
	u := s.register("ada@example.com")
	m := s.newTestMission(u, "running")
	s.emit(m, "status", "running", "started")

	c := sse.NewClient(s.eventsURL(u, m))
	c.Headers = map[string]string{"Authorization": "Bearer " + u.Token}
	var got []*sse.Event
	// live is closed at the first heartbeat after the replayed event: the server writes heartbeats only
	// once its replay is over and it streams live, so what is emitted from then on is sent live.
	live := make(chan struct{})
	var wentLive sync.Once
	errc := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		errc <- c.SubscribeRawWithContext(ctx, func(ev *sse.Event) {
			// r3labs hands comments (":ok", heartbeats) over as empty events carrying the last id.
			switch {
			case len(ev.Event) > 0:
				got = append(got, ev)
			case len(got) > 0:
				wentLive.Do(func() { close(live) })
			}
		})
	}()
	select {
	case <-live:
	case err := <-errc:
		t.Fatalf("the r3labs client stopped before the stream was live: %v", err)
	case <-ctx.Done():
		t.Fatal("the stream never went live for the r3labs client")
	}
	s.emit(m, "step", "", "worked")
	_, err := s.pool.Exec(context.Background(), "UPDATE agent_missions SET status = 'completed' WHERE id = $1", m)
	require.NoError(t, err)
	s.emit(m, "done", "completed", "done")
	select {
	case err := <-errc:
		require.NoError(t, err)
	case <-ctx.Done():
		t.Fatal("the r3labs client did not see the stream end")
	}
	require.Len(t, got, 3)
	for i, want := range []string{"status", "step", "done"} {
		require.Equal(t, strconv.Itoa(i+1), string(got[i].ID))
		require.Equal(t, want, string(got[i].Event))
		require.Equal(t, want, decodeJSON[stream.Event](t, got[i].Data).Type)
	}
}

// Every goroutine of a stream ends when its client goes away.
func TestMissionStreamNoGoroutineLeak(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{Heartbeat: 20 * time.Millisecond})
	u := s.register("ada@example.com")
	m := s.newTestMission(u, "running")
	// Warm up: the relay's goroutines and the pool's connections exist before the baseline.
	st := s.open(u, m, nil)
	st.Close()
	http.DefaultClient.CloseIdleConnections()
	// The warm-up stream is over on the server's side too before the baseline is taken.
	waitFor(t, "the warm-up connection to close", func() bool { return s.conns.Load() == 0 })
	base := runtime.NumGoroutine()

	var streams []*ssetest.Stream
	for range 50 {
		streams = append(streams, s.open(u, m, nil))
	}
	require.Greater(t, runtime.NumGoroutine(), base+50)
	s.emit(m, "step", "", "x")
	for _, st := range streams {
		require.Equal(t, "1", st.NextEvent(t, streamWait).ID)
		st.Close()
	}
	http.DefaultClient.CloseIdleConnections()
	// (not require.Eventually: it checks from goroutines of its own)
	for deadline := time.Now().Add(streamWait); runtime.NumGoroutine() > base; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines: %d, baseline %d\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
	}
}

// A mission streamed from its start, without Last-Event-ID, delivers every event through its final one
// on one connection: queued, running, its steps and proposals, awaiting_approval (not final: the stream
// stays open while people decide), each decision, and the completion, then the end. A stream opened
// after the completion replays every event up to the final one, then ends.
func TestMissionStreamFollowsApprovalToTheEnd(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{})
	owner, _, prj, cols := s.team()
	a := s.agent(owner, "careful", map[string]any{"autonomyMode": "approval"})
	card := s.missionCard(owner, prj, cols[0])
	m := s.startMission(owner, a.ID, card.ID)
	require.EqualValues(t, "queued", m.Status)

	st := s.open(owner, m.ID, nil)
	s.startWorker()
	var got []string // type:status of every event but tokens, as the stream delivered them
	var seq int64
	next := func() stream.Event {
		t.Helper()
		f := st.NextEvent(t, streamWait)
		ev := decodeJSON[stream.Event](t, []byte(f.Data))
		seq++
		require.Equal(t, seq, ev.Seq, "every event, in order, none twice")
		require.Equal(t, strconv.FormatInt(seq, 10), f.ID)
		if ev.Type != db.MissionEventToken {
			got = append(got, ev.Type+":"+ev.Status)
		}
		return ev
	}
	for ev := next(); ev.Status != string(db.MissionAwaitingApproval); ev = next() {
		require.False(t, db.StreamMission.Ends(ev.Status), "the mission ended before awaiting approval: %+v", ev)
	}
	require.Equal(t, []string{"status:queued", "status:running", "ack:running", "proposal:running", "step:running",
		"proposal:running",
		"step:running", "proposal:running", "step:running", "status:awaiting_approval"}, got)
	// Awaiting approval: the stream stays open, with heartbeats only.
	require.Equal(t, "heartbeat", st.Next(t, streamWait).Comment)

	ps := decode[[]ProposalOut](t, s.do("GET", wsOf(owner)+"/missions/"+m.ID+"/proposals", owner.Token, nil))
	require.Len(t, ps, 3)
	for i, p := range ps {
		verb := "approve"
		if i == 1 {
			verb = "reject"
		}
		requireStatus(t, s.do("POST", wsOf(owner)+"/proposals/"+p.ID+"/"+verb, owner.Token, nil), http.StatusOK)
		ev := next()
		require.Equal(t, db.MissionEventProposal, ev.Type)
		require.EqualValues(t, db.MissionAwaitingApproval, ev.Status,
			"a decision while others are pending leaves the mission awaiting approval")
	}
	ev := next()
	require.Equal(t, db.MissionEventDone, ev.Type)
	require.EqualValues(t, db.MissionCompleted, ev.Status)
	st.RequireEnd(t, streamWait)
	require.EqualValues(t, "completed", s.mission(owner, m.ID).Status)
	require.Equal(t, s.fixtures().EventsButTokens(t, m.ID), got, "the one connection delivered the whole stream")

	// Finished: a new client without Last-Event-ID gets every event up to the final one, then the end;
	// one that has the final event gets the end at once.
	st = s.open(owner, m.ID, nil)
	for i := int64(1); i <= seq; i++ {
		require.Equal(t, strconv.FormatInt(i, 10), st.NextEvent(t, streamWait).ID)
	}
	st.RequireEnd(t, streamWait)
	st = s.open(owner, m.ID, map[string]string{"Last-Event-ID": strconv.FormatInt(seq, 10)})
	st.RequireEnd(t, streamWait)
}

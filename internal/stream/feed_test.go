package stream

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
)

// newWorkspace inserts a user, an organization and a workspace; it returns the workspace's id.
func newWorkspace(t testing.TB, store *db.Store) string {
	t.Helper()
	ctx := context.Background()
	user, org, ws := db.NewID(), db.NewID(), db.NewID()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, []any{user, user + "@example.test"}},
		{`INSERT INTO organizations (id, name, slug, owner_id) VALUES ($1, 'o', $2, $3)`, []any{org, "o" + org[:8] + org[24:],
			user}},
		{`INSERT INTO workspaces (id, organization_id, name, slug, owner_id) VALUES ($1, $2, 'w', 'w', $3)`, []any{ws, org,
			user}},
	} {
		_, err := poolOf(store).Exec(ctx, q.sql, q.args...)
		require.NoError(t, err, q.sql)
	}
	return ws
}

// activityIn records a workspace-level activity through the conn or transaction given (a pool when
// nil) and returns its feed position.
func activityIn(t testing.TB, store *db.Store, conn interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, ws, typ string) int64 {
	t.Helper()
	if conn == nil {
		conn = poolOf(store)
	}
	var seq int64
	require.NoError(t, conn.QueryRow(context.Background(),
		`INSERT INTO activities (id, workspace_id, type) VALUES ($1, $2, $3) RETURNING seq`, db.NewID(), ws, typ).Scan(&seq))
	return seq
}

func begin(t *testing.T, store *db.Store) pgx.Tx {
	t.Helper()
	tx, err := poolOf(store).Begin(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return tx
}

func recvFeed(t *testing.T, sub *FeedSubscription) *FeedMessage {
	t.Helper()
	select {
	case m, ok := <-sub.C:
		require.True(t, ok, "subscription ended: %v", sub.Err())
		return m
	case <-time.After(wait):
		t.Fatal("no feed event")
	}
	return nil
}

// polled waits until the poller has read n more times: whatever it could send by then, it has.
func polled(t *testing.T, r *Relay, n int64) {
	t.Helper()
	from := r.feedReads.Load()
	require.Eventually(t, func() bool { return r.feedReads.Load() >= from+n }, wait, time.Millisecond)
}

func requireNoFeed(t *testing.T, r *Relay, sub *FeedSubscription) {
	t.Helper()
	polled(t, r, 3)
	select {
	case m := <-sub.C:
		t.Fatalf("unexpected feed event %v", m)
	default:
	}
}

// A write that took its position before another's but commits after it reaches the subscriber once,
// and in position order: the later position waits for it.
func TestFeedLateCommitArrivesOnceInOrder(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	r := startRelay(t, store, Config{FeedPoll: 2 * time.Millisecond, FeedGapWait: time.Hour})
	ws := newWorkspace(t, store)
	sub, err := r.SubscribeFeed(context.Background(), ws)
	require.NoError(t, err)
	defer sub.Close()

	early := begin(t, store)
	first := activityIn(t, store, early, ws, "card_created")
	second := activityIn(t, store, nil, ws, "card_moved") // committed at once
	require.Greater(t, second, first)
	requireNoFeed(t, r, sub) // held back behind the one still in flight

	require.NoError(t, early.Commit(context.Background()))
	require.Equal(t, first, recvFeed(t, sub).Event.Seq)
	m := recvFeed(t, sub)
	require.Equal(t, second, m.Event.Seq)
	require.Equal(t, "card_moved", m.Event.Type)
	require.Equal(t, ws, m.Event.WorkspaceID)
	var data map[string]any
	require.NoError(t, json.Unmarshal(m.Data, &data))
	require.Equal(t, strconv.FormatInt(second, 10), data["id"])
	requireNoFeed(t, r, sub) // exactly once
}

// The poller's first subscriber of a process starts below a write still in flight, so that write reaches
// it when it commits, then what committed after it.
func TestFeedStartsBelowAWriteInFlight(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	r := startRelay(t, store, Config{FeedPoll: 2 * time.Millisecond, FeedGapWait: time.Hour})
	ws := newWorkspace(t, store)
	activityIn(t, store, nil, ws, "card_created")
	early := begin(t, store)
	first := activityIn(t, store, early, ws, "card_created")
	second := activityIn(t, store, nil, ws, "card_moved")
	sub, err := r.SubscribeFeed(context.Background(), ws)
	require.NoError(t, err)
	defer sub.Close()
	require.Equal(t, first, sub.From, "live delivery starts at the write in flight")
	requireNoFeed(t, r, sub)
	require.NoError(t, early.Commit(context.Background()))
	require.Equal(t, first, recvFeed(t, sub).Event.Seq)
	require.Equal(t, second, recvFeed(t, sub).Event.Seq)
}

// A rolled-back write leaves a gap the poller gives up on as soon as its transaction has ended, long
// before FeedGapWait; nothing of it is sent.
func TestFeedRolledBackWriteSendsNothing(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	r := startRelay(t, store, Config{FeedPoll: 2 * time.Millisecond, FeedGapWait: time.Hour})
	ws := newWorkspace(t, store)
	sub, err := r.SubscribeFeed(context.Background(), ws)
	require.NoError(t, err)
	defer sub.Close()

	doomed := begin(t, store)
	activityIn(t, store, doomed, ws, "card_created")
	kept := activityIn(t, store, nil, ws, "card_updated")
	requireNoFeed(t, r, sub)
	require.NoError(t, doomed.Rollback(context.Background()))
	require.Equal(t, kept, recvFeed(t, sub).Event.Seq)
	requireNoFeed(t, r, sub)
}

// A transaction running longer than FeedGapWait after taking its position no longer holds the feed back.
func TestFeedGapWaitBoundsAHeldFeed(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	r := startRelay(t, store, Config{FeedPoll: 2 * time.Millisecond, FeedGapWait: 50 * time.Millisecond})
	ws := newWorkspace(t, store)
	sub, err := r.SubscribeFeed(context.Background(), ws)
	require.NoError(t, err)
	defer sub.Close()

	long := begin(t, store)
	activityIn(t, store, long, ws, "card_created")
	kept := activityIn(t, store, nil, ws, "card_updated")
	require.Equal(t, kept, recvFeed(t, sub).Event.Seq)
}

// Each workspace's subscribers get its events only.
func TestFeedIsPerWorkspace(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	r := startRelay(t, store, Config{FeedPoll: 2 * time.Millisecond})
	ws1, ws2 := newWorkspace(t, store), newWorkspace(t, store)
	sub1, err := r.SubscribeFeed(context.Background(), ws1)
	require.NoError(t, err)
	defer sub1.Close()
	sub2, err := r.SubscribeFeed(context.Background(), ws2)
	require.NoError(t, err)
	defer sub2.Close()

	a := activityIn(t, store, nil, ws1, "card_created")
	b := activityIn(t, store, nil, ws2, "card_created")
	require.Equal(t, a, recvFeed(t, sub1).Event.Seq)
	require.Equal(t, b, recvFeed(t, sub2).Event.Seq)
	requireNoFeed(t, r, sub1)
	requireNoFeed(t, r, sub2)
}

func serveFeedTest(t testing.TB, r *Relay, allow func(context.Context, *db.FeedEvent) (bool, error)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_ = r.ServeFeed(w, req, Feed{WorkspaceID: strings.TrimPrefix(req.URL.Path, "/"), Allow: allow},
			ParseLastEventID(req.Header.Get("Last-Event-ID")))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Without a cursor a reader follows the feed from its end; with one it first gets what it missed, and
// Allow decides for every event, replayed or live.
func TestServeFeedReplaysAfterTheCursorThenLive(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	r := startRelay(t, store, Config{FeedPoll: 2 * time.Millisecond, Heartbeat: time.Hour})
	srv := serveFeedTest(t, r, func(_ context.Context, ev *db.FeedEvent) (bool, error) { return ev.Type != "secret", nil })
	ws := newWorkspace(t, store)
	one := activityIn(t, store, nil, ws, "card_created")

	s := ssetest.Open(t, srv.URL+"/"+ws, nil)
	require.Equal(t, "ok", s.Next(t, wait).Comment)
	require.Eventually(t, func() bool { return r.feedSubscribers() == 1 }, wait, time.Millisecond)
	two := activityIn(t, store, nil, ws, "card_moved")
	f := s.NextEvent(t, wait)
	require.Equal(t, strconv.FormatInt(two, 10), f.ID, "no replay without a cursor")
	require.Equal(t, "card_moved", f.Event)

	activityIn(t, store, nil, ws, "secret")
	four := activityIn(t, store, nil, ws, "card_archived")
	resumed := ssetest.Open(t, srv.URL+"/"+ws, map[string]string{"Last-Event-ID": strconv.FormatInt(one, 10)})
	require.Equal(t, "ok", resumed.Next(t, wait).Comment)
	require.Equal(t, strconv.FormatInt(two, 10), resumed.NextEvent(t, wait).ID)
	require.Equal(t, strconv.FormatInt(four, 10), resumed.NextEvent(t, wait).ID, "Allow skips the secret one")
	five := activityIn(t, store, nil, ws, "card_deleted")
	require.Equal(t, strconv.FormatInt(five, 10), resumed.NextEvent(t, wait).ID)
}

// A cursor older than the retention, or older than every activity, is told to reload, and the stream ends.
func TestServeFeedExpiredCursorReloads(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	r := startRelay(t, store, Config{FeedPoll: 2 * time.Millisecond, FeedRetention: time.Hour})
	srv := serveFeedTest(t, r, nil)
	ws := newWorkspace(t, store)
	gone := activityIn(t, store, nil, ws, "card_created") // deleted with its project, say: nothing at or before it remains
	_, err := poolOf(store).Exec(context.Background(), `DELETE FROM activities WHERE seq <= $1`, gone)
	require.NoError(t, err)
	old := activityIn(t, store, nil, ws, "card_created")
	_, err = poolOf(store).Exec(context.Background(),
		`UPDATE activities SET created_at = now() - interval '2 hours' WHERE seq = $1`, old)
	require.NoError(t, err)
	activityIn(t, store, nil, ws, "card_moved")

	for _, cursor := range []int64{old, gone} {
		s := ssetest.Open(t, srv.URL+"/"+ws, map[string]string{"Last-Event-ID": strconv.FormatInt(cursor, 10)})
		require.Equal(t, "ok", s.Next(t, wait).Comment)
		f := s.NextEvent(t, wait)
		require.Equal(t, FeedEventReload, f.Event)
		require.Empty(t, f.ID)
		s.RequireEnd(t, wait)
	}
}

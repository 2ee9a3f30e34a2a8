package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
)

// feedEnv is setup's api (with the access cache) served over real HTTP, for event feeds.
type feedEnv struct {
	*testEnv
	url string
}

func setupFeed(t *testing.T) *feedEnv {
	e := setup(t)
	srv := httptest.NewServer(e.handler)
	t.Cleanup(srv.Close)
	return &feedEnv{testEnv: e, url: srv.URL}
}

// feed opens u's (or token's) event feed of ws ("/orgs/…/workspaces/…") with the given query and
// headers, and requires it to start.
func (e *feedEnv) feed(token, ws, query string, header map[string]string) *ssetest.Stream {
	e.t.Helper()
	st := e.openFeed(token, ws, query, header)
	require.Equal(e.t, http.StatusOK, st.Resp.StatusCode)
	require.Equal(e.t, "ok", st.Next(e.t, streamWait).Comment)
	return st
}

func (e *feedEnv) openFeed(token, ws, query string, header map[string]string) *ssetest.Stream {
	e.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	for k, v := range header {
		h[k] = v
	}
	return ssetest.Open(e.t, e.url+ws+"/events"+query, h)
}

// feedEvent reads the next event and its data.
func feedEvent(t *testing.T, st *ssetest.Stream) (ssetest.Frame, db.FeedEvent) {
	t.Helper()
	f := st.NextEvent(t, streamWait)
	ev := decodeJSON[db.FeedEvent](t, []byte(f.Data))
	require.Equal(t, f.ID, ev.ID, "the event's id is its data's")
	require.Equal(t, f.Event, ev.Type)
	return f, ev
}

// position is an event's feed position.
func position(t *testing.T, ev db.FeedEvent) int64 {
	t.Helper()
	n, err := strconv.ParseInt(ev.ID, 10, 64)
	require.NoError(t, err)
	return n
}

// requireFeedEvent reads the next event and checks its type and card.
func requireFeedEvent(t *testing.T, st *ssetest.Stream, typ, cardID string) db.FeedEvent {
	t.Helper()
	_, ev := feedEvent(t, st)
	require.Equal(t, typ, ev.Type, "event %+v", ev)
	require.NotNil(t, ev.CardID)
	require.Equal(t, cardID, *ev.CardID)
	return ev
}

// Every member of a workspace, a pilotage viewer and a read-only token included, follows what happens
// in it; a user of another workspace gets none of it and cannot open it.
func TestEventsFeedReadersOfTheWorkspace(t *testing.T) {
	t.Parallel()
	e := setupFeed(t)
	owner, member := e.register("owner@example.com"), e.register("member@example.com")
	viewer, outsider := e.register("viewer@example.com"), e.register("outsider@example.com")
	e.join(owner, member, owner.OrgSlug, owner.WsSlug, "member")
	e.join(owner, viewer, owner.OrgSlug, owner.WsSlug, "member")
	e.setPilotage(owner, viewer, "viewer")
	readOnly := e.pat(viewer, []string{auth.ScopeProjectsRead})
	prj, cols := e.project(owner, "Board")
	prjID := path.Base(prj)

	ownerFeed := e.feed(owner.Token, owner.ws(), "", nil)
	memberFeed := e.feed(member.Token, owner.ws(), "", nil)
	viewerFeed := e.feed(readOnly, owner.ws(), "", nil)
	outsiderFeed := e.feed(outsider.Token, outsider.ws(), "", nil)
	refused := e.openFeed(outsider.Token, owner.ws(), "", nil)
	require.Equal(t, http.StatusNotFound, refused.Resp.StatusCode)

	c := e.card(owner, prj, cols[0], "Ship it")
	requireStatus(t, e.do("PATCH", prj+"/cards/"+c.ID, member.Token, map[string]any{"columnId": cols[1]}), http.StatusOK)
	for _, st := range []*ssetest.Stream{ownerFeed, memberFeed, viewerFeed} {
		created := requireFeedEvent(t, st, "card_created", c.ID)
		require.Equal(t, e.wsID(owner), created.WorkspaceID)
		require.Equal(t, prjID, *created.ProjectID)
		require.Equal(t, owner.ID, *created.ActorID)
		require.Nil(t, created.DocumentID)
		require.WithinDuration(t, time.Now(), created.CreatedAt, time.Minute)
		moved := requireFeedEvent(t, st, "card_moved", c.ID)
		require.Greater(t, position(t, moved), position(t, created))
		require.Equal(t, member.ID, *moved.ActorID)
		meta := decodeJSON[map[string]any](t, moved.Meta)
		require.Equal(t, cols[0], meta["fromColumn"])
		require.Equal(t, cols[1], meta["toColumn"])
	}
	// The read-only token reads the feed but cannot write.
	requireStatus(t, e.do("POST", prj+"/columns/"+cols[0]+"/cards", readOnly, map[string]any{"title": "no"}),
		http.StatusForbidden)

	// The outsider's first events are of their own workspace.
	oprj, ocols := e.project(outsider, "Mine")
	mine := e.card(outsider, oprj, ocols[0], "Mine")
	_, ev := feedEvent(t, outsiderFeed)
	require.Equal(t, db.ActivityProjectCreated, ev.Type)
	require.Equal(t, path.Base(oprj), *ev.ProjectID)
	requireFeedEvent(t, outsiderFeed, "card_created", mine.ID)
}

// A member removed from the workspace gets nothing committed after the removal: their feed ends.
func TestEventsFeedRemovedMemberStopsAtOnce(t *testing.T) {
	t.Parallel()
	e := setupFeed(t)
	owner, member := e.register("owner@example.com"), e.register("member@example.com")
	e.join(owner, member, owner.OrgSlug, owner.WsSlug, "member")
	prj, cols := e.project(owner, "Board")
	ownerFeed := e.feed(owner.Token, owner.ws(), "", nil)
	memberFeed := e.feed(member.Token, owner.ws(), "", nil)
	before := e.card(owner, prj, cols[0], "Before")
	requireFeedEvent(t, memberFeed, "card_created", before.ID)
	requireFeedEvent(t, ownerFeed, "card_created", before.ID)

	requireStatus(t, e.do("DELETE", owner.ws()+"/members/"+member.ID, owner.Token, nil), http.StatusOK)
	after := e.card(owner, prj, cols[0], "After")
	for {
		_, ev := feedEvent(t, ownerFeed) // the removal's own activities, then the card
		if ev.CardID != nil && *ev.CardID == after.ID {
			break
		}
	}
	memberFeed.RequireEnd(t, streamWait)
	require.Equal(t, http.StatusNotFound, e.openFeed(member.Token, owner.ws(), "", nil).Resp.StatusCode)
}

// projectId narrows the feed to those projects; an unknown one, or another workspace's, is 404.
func TestEventsFeedProjectFilter(t *testing.T) {
	t.Parallel()
	e := setupFeed(t)
	owner, other := e.register("owner@example.com"), e.register("other@example.com")
	p1, cols1 := e.project(owner, "One")
	p2, cols2 := e.project(owner, "Two")
	p3, _ := e.project(owner, "Three")
	foreign, _ := e.project(other, "Theirs")

	st := e.feed(owner.Token, owner.ws(), "?projectId="+path.Base(p1)+"&projectId="+path.Base(p3), nil)
	e.card(owner, p2, cols2[0], "Elsewhere")
	e.doc(owner, "Workspace-level", nil)
	c := e.card(owner, p1, cols1[0], "Here")
	requireFeedEvent(t, st, "card_created", c.ID)

	for _, q := range []string{"?projectId=" + db.NewID(), "?projectId=" + path.Base(foreign), "?projectId=nope"} {
		r := e.openFeed(owner.Token, owner.ws(), q, nil)
		require.Equal(t, http.StatusNotFound, r.Resp.StatusCode, q)
	}
}

// Last-Event-ID replays what the reader missed, in order, then follows live; a cursor older than the
// retention gets one reload event, and the stream ends.
func TestEventsFeedReplayAndReload(t *testing.T) {
	t.Parallel()
	e := setupFeed(t)
	owner := e.register("owner@example.com")
	prj, cols := e.project(owner, "Board")
	st := e.feed(owner.Token, owner.ws(), "", nil)
	e.card(owner, prj, cols[0], "First")
	f, _ := feedEvent(t, st)
	st.Close()

	second := e.card(owner, prj, cols[0], "Second")
	requireStatus(t, e.do("PATCH", prj+"/cards/"+second.ID, owner.Token, map[string]any{"columnId": cols[1]}),
		http.StatusOK)
	resumed := e.feed(owner.Token, owner.ws(), "", map[string]string{"Last-Event-ID": f.ID})
	requireFeedEvent(t, resumed, "card_created", second.ID)
	requireFeedEvent(t, resumed, "card_moved", second.ID)
	third := e.card(owner, prj, cols[0], "Third")
	requireFeedEvent(t, resumed, "card_created", third.ID)

	// Eight days later, the first event's cursor is past the default retention of seven.
	seq, err := strconv.ParseInt(f.ID, 10, 64)
	require.NoError(t, err)
	_, err = e.pool.Exec(context.Background(),
		`UPDATE activities SET created_at = now() - interval '8 days' WHERE seq = $1`, seq)
	require.NoError(t, err)
	old := e.feed(owner.Token, owner.ws(), "", map[string]string{"Last-Event-ID": f.ID})
	reload := old.NextEvent(t, streamWait)
	require.Equal(t, stream.FeedEventReload, reload.Event)
	old.RequireEnd(t, streamWait)
}

// A write that rolls back sends nothing: the next event is the next committed write's.
func TestEventsFeedRolledBackWriteSendsNothing(t *testing.T) {
	t.Parallel()
	e := setupFeed(t)
	owner := e.register("owner@example.com")
	prj, cols := e.project(owner, "Board")
	st := e.feed(owner.Token, owner.ws(), "", nil)
	ctx := context.Background()
	tx, err := e.pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `INSERT INTO activities (id, project_id, type) VALUES ($1, $2, 'card_created')`, db.NewID(),
		path.Base(prj))
	require.NoError(t, err)
	c := e.card(owner, prj, cols[0], "Kept") // commits while the other is in flight, with a later position
	require.NoError(t, tx.Rollback(ctx))
	requireFeedEvent(t, st, "card_created", c.ID)
	e2 := e.card(owner, prj, cols[0], "Next")
	requireFeedEvent(t, st, "card_created", e2.ID)
}

// The feed carries the changes that record an activity for it alone (nobody is notified of them):
// projects created and updated, documents created and updated, comments deleted, pilotage records;
// and the card parts' changes as card_updated.
func TestEventsFeedCarriesEveryKindOfChange(t *testing.T) {
	t.Parallel()
	e := setupFeed(t)
	owner := e.register("owner@example.com")
	st := e.feed(owner.Token, owner.ws(), "", nil)
	next := func(typ string) db.FeedEvent {
		t.Helper()
		_, ev := feedEvent(t, st)
		require.Equal(t, typ, ev.Type, "event %+v", ev)
		return ev
	}

	prj, cols := e.project(owner, "Board")
	created := next(db.ActivityProjectCreated)
	require.Equal(t, path.Base(prj), *created.ProjectID)
	requireStatus(t, e.do("PATCH", prj, owner.Token, map[string]any{"name": "Renamed"}), http.StatusOK)
	require.Equal(t, []any{"name"}, decodeJSON[map[string]any](t, next(db.ActivityProjectUpdated).Meta)["fields"])

	c := e.card(owner, prj, cols[0], "Card")
	next(db.ActivityCardCreated)
	r := e.do("POST", prj+"/cards/"+c.ID+"/comments", owner.Token, map[string]any{"content": "hello"})
	requireStatus(t, r, http.StatusCreated)
	next(db.ActivityCommentAdded)
	requireStatus(t, e.do("DELETE", prj+"/cards/"+c.ID+"/comments/"+decode[CommentOut](t, r).ID, owner.Token, nil),
		http.StatusOK)
	require.Equal(t, c.ID, *next(db.ActivityCommentDeleted).CardID)
	requireStatus(t, e.do("POST", prj+"/cards/"+c.ID+"/checklist", owner.Token, map[string]any{"title": "step"}),
		http.StatusCreated)
	require.Equal(t, []any{"checklist"}, decodeJSON[map[string]any](t, next(db.ActivityCardUpdated).Meta)["fields"])

	d := e.doc(owner, "Spec", nil)
	doc := next(db.ActivityDocumentCreated)
	require.Equal(t, d.ID, *doc.DocumentID)
	require.Nil(t, doc.ProjectID)
	requireStatus(t, e.do("PATCH", owner.ws()+"/documents/"+d.ID, owner.Token, map[string]any{"title": "Spec v2"}),
		http.StatusOK)
	require.Equal(t, d.ID, *next(db.ActivityDocumentUpdated).DocumentID)

	requireStatus(t, e.do("POST", owner.ws()+"/pilotage/todos", owner.Token, map[string]any{"label": "Call"}),
		http.StatusCreated)
	require.Equal(t, "todo", decodeJSON[map[string]any](t, next(db.ActivityPilotageRecordCreated).Meta)["recordType"])
}

// The feed's own activities (notifying nobody) still go to a webhook that listens to every type.
func TestEventsFeedOnlyActivitiesReachWebhooks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.register("owner@example.com")
	requireStatus(t, e.do("POST", owner.ws()+"/webhooks", owner.Token, map[string]any{"url": "http://receiver.test/",
		"events": []string{"*"}}), http.StatusCreated)
	prj, _ := e.project(owner, "Board")
	require.Equal(t, 1, e.count(`SELECT count(*) FROM webhook_deliveries d JOIN activities a ON a.id = d.activity_id
		WHERE d.event_type = 'project_created' AND a.project_id = $1`, path.Base(prj)))
}

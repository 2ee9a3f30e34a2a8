package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/transfer"
)

// ws is the path of u's personal workspace.
func (u user) ws() string { return "/orgs/" + u.OrgSlug + "/workspaces/" + u.WsSlug }

// doc creates a document in u's personal workspace context with the given extra fields.
func (e *testEnv) doc(u user, title string, extra map[string]any) DocumentOut {
	e.t.Helper()
	body := map[string]any{"title": title, "content": "Body of " + title, "contextType": "workspace",
		"contextId": e.wsID(u)}
	for k, v := range extra {
		body[k] = v
	}
	r := e.do("POST", u.ws()+"/documents", u.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	return decode[DocumentOut](e.t, r)
}

// wsID is the id of u's personal workspace.
func (e *testEnv) wsID(u user) string {
	e.t.Helper()
	r := e.do("GET", u.ws(), u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return decode[WorkspaceOut](e.t, r).ID
}

// setPilotage gives member the pilotage role in owner's personal workspace.
func (e *testEnv) setPilotage(owner, member user, role string) {
	e.t.Helper()
	requireStatus(e.t, e.do("PATCH", owner.ws()+"/members/"+member.ID, owner.Token, map[string]any{"pilotageRole": role}),
		http.StatusOK)
}

// fanOut works every recorded activity's notification job as the worker would.
func (e *testEnv) fanOut() {
	e.t.Helper()
	for _, id := range e.notifyJobs() {
		_, err := e.eng.Notifications.FanOutNotifications(context.Background(), id)
		require.NoError(e.t, err)
	}
}

func (e *testEnv) notifications(u user) []NotificationOut {
	e.t.Helper()
	r := e.do("GET", "/notifications", u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return decode[[]NotificationOut](e.t, r)
}

func notificationTypes(ns []NotificationOut) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Activity.Type)
	}
	return out
}

func TestDocumentReviewWorkflow(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.register("owner@example.com")
	author := e.register("author@example.com")
	reviewer := e.register("reviewer@example.com")
	viewer := e.register("viewer@example.com")
	for _, u := range []user{author, reviewer, viewer} {
		e.join(owner, u, owner.OrgSlug, owner.WsSlug, "member")
	}
	e.setPilotage(owner, reviewer, "reviewer")
	author.OrgSlug, author.WsSlug = owner.OrgSlug, owner.WsSlug
	base := owner.ws() + "/documents/"

	d := e.doc(author, "Runbook", map[string]any{"contextId": e.wsID(owner)})
	require.EqualValues(t, "draft", d.Status)
	require.Equal(t, author.ID, d.AuthorID)
	path := base + d.ID

	// Nothing to review yet: a draft cannot be reviewed.
	requireStatus(t, e.do("POST", path+"/review", reviewer.Token, map[string]any{"status": "approved"}),
		http.StatusConflict)

	// draft -> pending_review, once.
	r := e.do("POST", path+"/submit-review", author.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "pending_review", decode[DocumentOut](t, r).Status)
	requireStatus(t, e.do("POST", path+"/submit-review", author.Token, nil), http.StatusConflict)

	// No edit while pending review.
	requireStatus(t, e.do("PATCH", path, author.Token, map[string]any{"title": "Runbook v2"}), http.StatusConflict)

	// Only pilotage reviewers and owners review; a viewer is refused.
	requireStatus(t, e.do("POST", path+"/review", viewer.Token, map[string]any{"status": "approved"}),
		http.StatusForbidden)
	requireStatus(t, e.do("POST", path+"/review", author.Token, map[string]any{"status": "approved"}),
		http.StatusForbidden)
	requireStatus(t, e.do("POST", path+"/review", reviewer.Token, map[string]any{"status": "maybe"}),
		http.StatusBadRequest)

	// pending_review -> changes_requested, with the notes kept.
	r = e.do("POST", path+"/review", reviewer.Token, map[string]any{"status": "changes_requested",
		"notes": "Add the rollback steps"})
	requireStatus(t, r, http.StatusOK)
	got := decode[DocumentOut](t, r)
	require.EqualValues(t, "changes_requested", got.Status)
	require.Len(t, got.Reviews, 1)
	require.Equal(t, reviewer.ID, got.Reviews[0].ReviewerID)
	require.Equal(t, "reviewer", got.Reviews[0].ReviewerName)
	require.Equal(t, "Add the rollback steps", got.Reviews[0].Notes)
	require.EqualValues(t, "changes_requested", got.Reviews[0].Status)

	// A second review, and a submit straight from changes_requested, are wrong-state moves.
	requireStatus(t, e.do("POST", path+"/review", owner.Token, map[string]any{"status": "approved"}), http.StatusConflict)
	requireStatus(t, e.do("POST", path+"/submit-review", author.Token, nil), http.StatusConflict)

	// An edit returns it to draft; then submit and an approval by the pilotage owner.
	r = e.do("PATCH", path, author.Token, map[string]any{"content": "Now with rollback steps"})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "draft", decode[DocumentOut](t, r).Status)
	requireStatus(t, e.do("POST", path+"/submit-review", author.Token, nil), http.StatusOK)
	r = e.do("POST", path+"/review", owner.Token, map[string]any{"status": "approved", "notes": "LGTM"})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "approved", decode[DocumentOut](t, r).Status)

	// The reviews are read with the document, oldest first.
	r = e.do("GET", path, viewer.Token, nil)
	requireStatus(t, r, http.StatusOK)
	got = decode[DocumentOut](t, r)
	require.Equal(t, "Now with rollback steps", got.Content)
	require.Len(t, got.Reviews, 2)
	require.Equal(t, []string{"changes_requested", "approved"}, []string{got.Reviews[0].Status, got.Reviews[1].Status})
	require.Equal(t, owner.ID, got.Reviews[1].ReviewerID)

	// An approved document cannot be submitted or reviewed again.
	requireStatus(t, e.do("POST", path+"/submit-review", author.Token, nil), http.StatusConflict)
	requireStatus(t, e.do("POST", path+"/review", reviewer.Token, map[string]any{"status": "changes_requested"}),
		http.StatusConflict)

	// An empty PATCH changes nothing, the status included; an edit of an approved document returns it
	// to draft as well.
	r = e.do("PATCH", path, author.Token, map[string]any{})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "approved", decode[DocumentOut](t, r).Status)
	r = e.do("PATCH", path, author.Token, map[string]any{"tags": []string{"ops"}})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "draft", decode[DocumentOut](t, r).Status)

	// Notifications went through the activity fan-out: two submissions to the reviewer and the owner
	// (never to the viewer or the author who submitted), two reviews to the author.
	e.fanOut()
	require.Equal(t, []string{"document_submitted", "document_submitted"}, notificationTypes(e.notifications(reviewer)))
	require.Empty(t, e.notifications(viewer))
	ownerNs := e.notifications(owner)
	require.Equal(t, []string{"document_submitted", "document_submitted"}, notificationTypes(ownerNs))
	authorNs := e.notifications(author)
	require.Equal(t, []string{"document_reviewed", "document_reviewed"}, notificationTypes(authorNs))
	latest := authorNs[0].Activity
	require.Nil(t, latest.ProjectID)
	require.Equal(t, d.ID, *latest.DocumentID)
	require.Equal(t, e.wsID(owner), *latest.WorkspaceID)
	require.Equal(t, owner.ID, *latest.ActorID)
	var meta map[string]any
	require.NoError(t, json.Unmarshal(latest.Meta, &meta))
	require.Equal(t, map[string]any{"title": "Runbook", "status": "approved", "notes": "LGTM"}, meta)
}

func TestDocumentActivityCommitsWithTheChange(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("solo@example.com")
	d := e.doc(u, "Alone", nil)
	// A refused move records nothing and enqueues nothing.
	requireStatus(t, e.do("POST", u.ws()+"/documents/"+d.ID+"/review", u.Token, map[string]any{"status": "approved"}),
		http.StatusConflict)
	require.Empty(t, e.notifyJobs())
	// A submission records one activity; the lone user (the actor) is its only reviewer and hears of
	// nothing, so no job is enqueued.
	requireStatus(t, e.do("POST", u.ws()+"/documents/"+d.ID+"/submit-review", u.Token, nil), http.StatusOK)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM activities WHERE type = 'document_submitted'`))
	require.Empty(t, e.notifyJobs())
	e.fanOut()
	require.Empty(t, e.notifications(u))
}

// The author of a document may not approve it while the workspace has another reviewer (403 in the
// error shape, saying why), and says so ahead in authorMayApprove; the only owner of a workspace
// approves their own.
func TestDocumentAuthorMayNotApproveOwn(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.register("owner@example.com")
	mate := e.register("mate@example.com")
	// Alone in the workspace, the owner approves their own document.
	first := e.doc(owner, "Checklist", nil)
	require.True(t, first.AuthorMayApprove)
	firstPath := owner.ws() + "/documents/" + first.ID
	requireStatus(t, e.do("POST", firstPath+"/submit-review", owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("POST", firstPath+"/review", owner.Token, map[string]any{"status": "approved"}), http.StatusOK)

	d := e.doc(owner, "Runbook", nil)
	path := owner.ws() + "/documents/" + d.ID
	requireStatus(t, e.do("POST", path+"/submit-review", owner.Token, nil), http.StatusOK)

	// A second person who may review: the owner no longer approves their own.
	e.join(owner, mate, owner.OrgSlug, owner.WsSlug, "member")
	e.setPilotage(owner, mate, "reviewer")
	r := e.do("GET", path, owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.False(t, decode[DocumentOut](t, r).AuthorMayApprove)
	r = e.do("POST", path+"/review", owner.Token, map[string]any{"status": "approved"})
	requireStatus(t, r, http.StatusForbidden)
	require.Contains(t, decode[ErrorBody](t, r).Message, "another reviewer")
	mate.OrgSlug, mate.WsSlug = owner.OrgSlug, owner.WsSlug
	r = e.do("POST", path+"/review", mate.Token, map[string]any{"status": "approved"})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "approved", decode[DocumentOut](t, r).Status)
}

func TestDocumentConcurrentReviewsOneWins(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.register("owner@example.com")
	second := e.register("second@example.com")
	e.join(owner, second, owner.OrgSlug, owner.WsSlug, "member")
	e.setPilotage(owner, second, "owner")

	for round := range 5 {
		d := e.doc(owner, fmt.Sprintf("Doc %d", round), nil)
		path := owner.ws() + "/documents/" + d.ID
		requireStatus(t, e.do("POST", path+"/submit-review", owner.Token, nil), http.StatusOK)
		codes := make([]int, 2)
		var wg sync.WaitGroup
		for i, u := range []user{owner, second} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// The author asks for changes (approving their own is refused while the second may review).
				codes[i] = e.do("POST", path+"/review", u.Token, map[string]any{"status": []string{"changes_requested",
					"approved"}[i]}).Code
			}()
		}
		wg.Wait()
		require.ElementsMatch(t, []int{http.StatusOK, http.StatusConflict}, codes, "round %d", round)
		require.Equal(t, 1, e.count("SELECT count(*) FROM document_reviews WHERE document_id = $1", d.ID))
	}
}

func TestDocumentValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("val@example.com")
	other := e.register("other@example.com")
	wsID := e.wsID(u)
	foreign := e.doc(other, "Foreign", nil)
	foreignPrj, _ := e.project(other, "Theirs")
	foreignPrjID := foreignPrj[strings.LastIndex(foreignPrj, "/")+1:]
	valid := func() map[string]any {
		return map[string]any{"title": "T", "contextType": "workspace", "contextId": wsID}
	}
	with := func(k string, v any) map[string]any { b := valid(); b[k] = v; return b }
	without := func(k string) map[string]any { b := valid(); delete(b, k); return b }

	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"unknown docType", with("docType", "memo"), "docType"},
		{"missing contextId", without("contextId"), "contextId"},
		{"missing contextType", without("contextType"), "contextType"},
		{"missing title", without("title"), "title"},
		{"blank title", with("title", "   "), "title"},
		{"oversized title", with("title", strings.Repeat("t", 501)), "title"},
		{"oversized content", with("content", strings.Repeat("c", 100_001)), "content"},
		{"tiptap array", func() map[string]any {
			b := with("contentFormat",
				"tiptap_json")
			b["content"] = "[1,2]"
			return b
		}(), "content"}, {"tiptap not json", func() map[string]any {
			b := with("contentFormat",
				"tiptap_json")
			b["content"] = "# hello"
			return b
		}(), "content"}, {"unknown contentFormat", with("contentFormat", "html"), "contentFormat"},
		{"parent from another workspace", with("parentId", foreign.ID), "parentId"},
		{"parent not an id", with("parentId", "nope"), "parentId"},
		{"too many tags", with("tags", strings.Split(strings.Repeat("x,", 21)[:41], ",")), "tags"},
		{"tag too long", with("tags", []string{strings.Repeat("x", 51)}), "tags"},
		{"empty tag", with("tags", []string{""}), "tags"},
		{"metadata not an object", with("metadata", []int{1}), "metadata"},
		{"NUL in content", with("content", "a\x00b"), "NUL"},
	} {
		r := e.do("POST", u.ws()+"/documents", u.Token, tc.body)
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, decode[ErrorBody](t, r).Message, tc.field, tc.name)
	}

	// A context outside the workspace is not found.
	for _, body := range []map[string]any{
		{"title": "T", "contextType": "project", "contextId": foreignPrjID},
		{"title": "T", "contextType": "workspace", "contextId": e.wsID(other)},
		{"title": "T", "contextType": "organization", "contextId": foreign.WorkspaceID},
		{"title": "T", "contextType": "scope", "contextId": foreignPrjID},
		{"title": "T", "contextType": "project", "contextId": "not-a-uuid"},
	} {
		requireStatus(t, e.do("POST", u.ws()+"/documents", u.Token, body), http.StatusNotFound)
	}

	// Every context kind inside the workspace is accepted.
	prj, _ := e.project(u, "Mine")
	prjID := prj[strings.LastIndex(prj, "/")+1:]
	r := e.do("POST", prj+"/scopes", u.Token, map[string]any{"name": "Phase 1"})
	requireStatus(t, r, http.StatusCreated)
	scopeID := decode[ScopeOut](t, r).ID
	orgs := decode[[]OrganizationOut](t, e.do("GET", "/organizations", u.Token, nil))
	for typ, id := range map[string]string{"organization": orgs[0].ID, "workspace": wsID, "project": prjID,
		"scope": scopeID} {
		d := e.doc(u, "In "+typ, map[string]any{"contextType": typ, "contextId": id})
		require.Equal(t, typ, d.ContextType)
		require.Equal(t, id, d.ContextID)
	}

	// A tiptap document is stored as given and its text is searchable.
	tiptap := `{"type":"doc","content":[{"type":"paragraph",` +
		`"content":[{"type":"text","text":"Quarterly zeppelin plan"}]}]}`
	d := e.doc(u, "Tiptap", map[string]any{"contentFormat": "tiptap_json", "content": tiptap})
	require.Equal(t, tiptap, d.Content)
	res := decode[[]SearchResultOut](t, e.do("GET", u.ws()+"/search?q=zeppelin", u.Token, nil))
	require.Len(t, res, 1)
	require.Equal(t, "Quarterly <mark>zeppelin</mark> plan", strings.TrimSpace(res[0].Snippet))

	// PATCH limits and refusals.
	path := u.ws() + "/documents/" + d.ID
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"title": strings.Repeat("t", 501)}, "title"},
		{map[string]any{"title": " "}, "title"},
		{map[string]any{"content": "not json"}, "content"}, // still tiptap_json
		{map[string]any{"docType": "memo"}, "docType"},
		{map[string]any{"parentId": foreign.ID}, "parentId"},
		{map[string]any{"tags": []string{strings.Repeat("x", 51)}}, "tags"},
	} {
		r := e.do("PATCH", path, u.Token, tc.body)
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, decode[ErrorBody](t, r).Message, tc.field)
	}
	// Switching to markdown takes any text.
	r = e.do("PATCH", path, u.Token, map[string]any{"contentFormat": "markdown", "content": "# plain"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "# plain", decode[DocumentOut](t, r).Content)
}

func TestDocumentTreeCyclesAndDelete(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("tree@example.com")
	base := u.ws() + "/documents"
	a := e.doc(u, "A", nil)
	b := e.doc(u, "B", map[string]any{"parentId": a.ID, "docType": "spec"})
	c := e.doc(u, "C", map[string]any{"parentId": b.ID})
	require.Equal(t, b.ID, *c.ParentID)

	// Cycles answer 409: under itself, under a child, under a grandchild.
	for _, tc := range []struct{ doc, parent string }{{a.ID, a.ID}, {a.ID, b.ID}, {a.ID, c.ID}, {b.ID, c.ID}} {
		requireStatus(t, e.do("PATCH", base+"/"+tc.doc, u.Token, map[string]any{"parentId": tc.parent}), http.StatusConflict)
	}
	// A legal move, and back; null makes a root.
	r := e.do("PATCH", base+"/"+c.ID, u.Token, map[string]any{"parentId": a.ID})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, a.ID, *decode[DocumentOut](t, r).ParentID)
	r = e.do("PATCH", base+"/"+c.ID, u.Token, map[string]any{"parentId": nil})
	requireStatus(t, r, http.StatusOK)
	require.Nil(t, decode[DocumentOut](t, r).ParentID)
	requireStatus(t, e.do("PATCH", base+"/"+c.ID, u.Token, map[string]any{"parentId": b.ID}), http.StatusOK)

	// The whole tree in one read.
	r = e.do("GET", base+"/all", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	tree := decode[[]DocumentNodeOut](t, r)
	require.Len(t, tree, 1)
	require.Equal(t, "A", tree[0].Title)
	require.Len(t, tree[0].Children, 1)
	require.Equal(t, "B", tree[0].Children[0].Title)
	require.Equal(t, "C", tree[0].Children[0].Children[0].Title)
	require.Empty(t, tree[0].Children[0].Children[0].Children)

	// Filters and pagination.
	list := func(q string) []string {
		r := e.do("GET", base+q, u.Token, nil)
		requireStatus(t, r, http.StatusOK)
		var titles []string
		for _, d := range decode[[]DocumentSummaryOut](t, r) {
			titles = append(titles, d.Title)
		}
		return titles
	}
	require.Equal(t, []string{"C", "B", "A"}, list(""))
	require.Equal(t, []string{"B"}, list("?docType=spec"))
	require.Equal(t, []string{"C"}, list("?parentId="+b.ID))
	require.Equal(t, []string{"A"}, list("?parentId=root"))
	require.Equal(t, []string{"C", "B", "A"}, list("?contextType=workspace&contextId="+e.wsID(u)))
	require.Empty(t, list("?contextType=project&contextId="+e.wsID(u)))
	first, next := e.page(base+"?limit=1", u.Token, "title")
	require.Equal(t, []string{"C"}, first)
	second, _ := e.page(next, u.Token, "title")
	require.Equal(t, []string{"B"}, second, "the Link's page follows the first")
	requireStatus(t, e.do("GET", base+"?limit=1&offset=1", u.Token, nil), http.StatusBadRequest) // pages are by cursor
	requireStatus(t, e.do("GET", base+"?contextType=project", u.Token, nil), http.StatusBadRequest)
	requireStatus(t, e.do("GET", base+"?limit=201", u.Token, nil), http.StatusBadRequest)
	requireStatus(t, e.do("GET", base+"?parentId=nope", u.Token, nil), http.StatusBadRequest)

	// Deleting B moves C up to A; deleting A makes C a root.
	requireStatus(t, e.do("DELETE", base+"/"+b.ID, u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", base+"/"+b.ID, u.Token, nil), http.StatusNotFound)
	r = e.do("GET", base+"/"+c.ID, u.Token, nil)
	require.Equal(t, a.ID, *decode[DocumentOut](t, r).ParentID)
	requireStatus(t, e.do("DELETE", base+"/"+a.ID, u.Token, nil), http.StatusOK)
	require.Nil(t, decode[DocumentOut](t, e.do("GET", base+"/"+c.ID, u.Token, nil)).ParentID)
	requireStatus(t, e.do("DELETE", base+"/"+a.ID, u.Token, nil), http.StatusNotFound)
}

func TestDocumentConcurrentMovesMakeNoCycle(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("moves@example.com")
	base := u.ws() + "/documents/"
	for round := range 5 {
		a := e.doc(u, fmt.Sprintf("A%d", round), nil)
		b := e.doc(u, fmt.Sprintf("B%d", round), nil)
		codes := make([]int, 2)
		var wg sync.WaitGroup
		for i, pair := range [][2]string{{a.ID, b.ID}, {b.ID, a.ID}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = e.do("PATCH", base+pair[0], u.Token, map[string]any{"parentId": pair[1]}).Code
			}()
		}
		wg.Wait()
		require.ElementsMatch(t, []int{http.StatusOK, http.StatusConflict}, codes)
	}
}

func TestDocumentCrossTenantIsNotFound(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("mine@example.com")
	other := e.register("theirs@example.com")
	theirs := e.doc(other, "Secret", nil)
	prj, cols := e.project(u, "P")
	card := e.card(u, prj, cols[0], "Card")
	otherPrj, otherCols := e.project(other, "Q")
	otherCard := e.card(other, otherPrj, otherCols[0], "Their card")
	mine := e.doc(u, "Mine", nil)

	path := u.ws() + "/documents/" + theirs.ID
	requireStatus(t, e.do("GET", path, u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", path, u.Token, map[string]any{"title": "x"}), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", path, u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", path+"/submit-review", u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", path+"/review", u.Token, map[string]any{"status": "approved"}), http.StatusNotFound)
	// Their document, and another workspace's path, through my card.
	requireStatus(t, e.do("POST", prj+"/cards/"+card.ID+"/documents/"+theirs.ID+"/link", u.Token, nil),
		http.StatusNotFound)
	// My document on a card of their project under my project's path.
	requireStatus(t, e.do("POST", prj+"/cards/"+otherCard.ID+"/documents/"+mine.ID+"/link", u.Token, nil),
		http.StatusNotFound)
	requireStatus(t, e.do("GET", prj+"/cards/"+otherCard.ID+"/documents", u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", prj+"/cards/"+card.ID+"/documents/"+theirs.ID+"/link", u.Token, nil),
		http.StatusNotFound)
	requireStatus(t, e.do("DELETE", prj+"/cards/"+otherCard.ID+"/documents/"+mine.ID+"/link", u.Token, nil),
		http.StatusNotFound)
	// Their project's card under their workspace's path: the guard refuses the whole workspace.
	requireStatus(t, e.do("POST", otherPrj+"/cards/"+otherCard.ID+"/documents/"+mine.ID+"/link", u.Token, nil),
		http.StatusNotFound)
	// Their workspace altogether.
	requireStatus(t, e.do("GET", other.ws()+"/documents/"+theirs.ID, u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", other.ws()+"/documents", u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", other.ws()+"/search?q=secret", u.Token, nil), http.StatusNotFound)
	require.Equal(t, 0, e.count("SELECT count(*) FROM card_documents"))
	require.Equal(t, "draft", decode[DocumentOut](t, e.do("GET", other.ws()+"/documents/"+theirs.ID, other.Token,
		nil)).Status)
}

func TestCardDocumentLinks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("links@example.com")
	prj, cols := e.project(u, "P")
	card := e.card(u, prj, cols[0], "Ship it")
	spec := e.doc(u, "Spec", map[string]any{"docType": "spec"})
	adr := e.doc(u, "ADR 1", map[string]any{"docType": "adr"})
	link := func(d DocumentOut) string { return prj + "/cards/" + card.ID + "/documents/" + d.ID + "/link" }

	requireStatus(t, e.do("POST", link(spec), u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("POST", link(spec), u.Token, nil), http.StatusConflict)
	requireStatus(t, e.do("POST", link(adr), u.Token, nil), http.StatusOK)

	r := e.do("GET", prj+"/cards/"+card.ID+"/documents", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	docs := decode[[]DocumentSummaryOut](t, r)
	require.Equal(t, []string{"Spec", "ADR 1"}, []string{docs[0].Title, docs[1].Title})

	// The project's export carries the card's links.
	r = e.do("GET", prj+"/export", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	exp := decode[transfer.TransferDoc](t, r)
	require.Equal(t, []transfer.TransferDocumentLink{{ID: spec.ID, Title: "Spec"}, {ID: adr.ID, Title: "ADR 1"}},
		exp.Cards[0].Documents)

	// Unlink, twice; deleting a document removes its links.
	requireStatus(t, e.do("DELETE", link(adr), u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", link(adr), u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", u.ws()+"/documents/"+spec.ID, u.Token, nil), http.StatusOK)
	require.Equal(t, 0, e.count("SELECT count(*) FROM card_documents"))
	require.Empty(t, decode[[]DocumentSummaryOut](t, e.do("GET", prj+"/cards/"+card.ID+"/documents", u.Token, nil)))
	requireStatus(t, e.do("POST", link(spec), u.Token, nil), http.StatusNotFound)

	// Deleting the card removes its links too.
	requireStatus(t, e.do("POST", link(adr), u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", prj+"/cards/"+card.ID, u.Token, nil), http.StatusOK)
	require.Equal(t, 0, e.count("SELECT count(*) FROM card_documents"))
}

func TestSearchRanksAndFilters(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("search@example.com")
	stranger := e.register("stranger@example.com")
	// A second workspace of u's own organization, and another user's workspace: neither may leak.
	e.workspace(u, u.OrgSlug, "side")
	side := user{Token: u.Token, OrgSlug: u.OrgSlug, WsSlug: "side"}

	prj, cols := e.project(u, "Launch")
	e.doc(u, "Deployment notes", map[string]any{"content": "Mentions kubernetes once in the body."})
	titled := e.doc(u, "Kubernetes migration",
		map[string]any{"content": "The kubernetes cluster moves to kubernetes 1.31."})
	card := e.card(u, prj, cols[0], "Upgrade kubernetes")
	e.doc(u, "Unrelated", map[string]any{"content": "Nothing to see"})

	sidePrj, sideCols := e.project(side, "Side project")
	e.card(side, sidePrj, sideCols[0], "Side kubernetes card")
	e.doc(side, "Side kubernetes doc", map[string]any{"contextId": e.wsID(side)})
	strangerPrj, strangerCols := e.project(stranger, "Theirs")
	e.card(stranger, strangerPrj, strangerCols[0], "Their kubernetes card")
	e.doc(stranger, "Their kubernetes doc", nil)

	r := e.do("GET", u.ws()+"/search?q=kubernetes", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	res := decode[[]SearchResultOut](t, r)
	require.Len(t, res, 3, "only this workspace's documents and cards: %s", r.Body)
	// The title matches rank first; the document that says it three times ahead of the card's title.
	require.Equal(t, titled.ID, res[0].ID)
	require.Equal(t, "document", res[0].Kind)
	require.EqualValues(t, "draft", *res[0].Status)
	require.Equal(t, card.ID, res[1].ID)
	require.Equal(t, "card", res[1].Kind)
	require.Equal(t, card.ProjectID, *res[1].ProjectID)
	require.Equal(t, "Deployment notes", res[2].Title)
	require.Greater(t, res[0].Rank, res[1].Rank)
	require.Greater(t, res[1].Rank, res[2].Rank)
	require.Contains(t, res[0].Snippet, "<mark>kubernetes</mark>")
	require.Contains(t, res[2].Snippet, "Mentions <mark>kubernetes</mark> once")

	// Web-search syntax: a phrase, an exclusion; a limit.
	res = decode[[]SearchResultOut](t, e.do("GET", u.ws()+"/search?q=%22kubernetes+cluster%22", u.Token, nil))
	require.Len(t, res, 1)
	require.Equal(t, titled.ID, res[0].ID)
	res = decode[[]SearchResultOut](t, e.do("GET", u.ws()+"/search?q=kubernetes+-upgrade", u.Token, nil))
	require.Len(t, res, 2)
	require.Len(t, decode[[]SearchResultOut](t, e.do("GET", u.ws()+"/search?q=kubernetes&limit=1", u.Token, nil)), 1)
	// Punctuation only, or nothing matching: an empty list, never an error.
	for _, q := range []string{"%21%21%21", "zzzz", "%22", "or", "-"} {
		r := e.do("GET", u.ws()+"/search?q="+q, u.Token, nil)
		requireStatus(t, r, http.StatusOK)
		require.Empty(t, decode[[]SearchResultOut](t, r), q)
	}
	requireStatus(t, e.do("GET", u.ws()+"/search", u.Token, nil), http.StatusBadRequest)
	requireStatus(t, e.do("GET", u.ws()+"/search?q=+", u.Token, nil), http.StatusBadRequest)
	requireStatus(t, e.do("GET", u.ws()+"/search?q="+strings.Repeat("a", 201), u.Token, nil), http.StatusBadRequest)

	// The side workspace sees its own two only.
	res = decode[[]SearchResultOut](t, e.do("GET", side.ws()+"/search?q=kubernetes", u.Token, nil))
	require.Len(t, res, 2)

	// A workspace member who is not in the side workspace cannot search it.
	e.join(u, stranger, u.OrgSlug, u.WsSlug, "member")
	requireStatus(t, e.do("GET", side.ws()+"/search?q=kubernetes", stranger.Token, nil), http.StatusNotFound)
	require.Len(t, decode[[]SearchResultOut](t, e.do("GET", u.ws()+"/search?q=kubernetes", stranger.Token, nil)), 3)

	// A card found by a word only its comment has, the snippet the comment's as plain text (no markdown).
	requireStatus(t, e.do("POST", prj+"/cards/"+card.ID+"/comments", u.Token,
		map[string]any{"content": "The **helm** chart needs a `values` file."}), http.StatusCreated)
	res = decode[[]SearchResultOut](t, e.do("GET", u.ws()+"/search?q=helm", u.Token, nil))
	require.Len(t, res, 1)
	require.Equal(t, card.ID, res[0].ID)
	require.Equal(t, "comment", res[0].MatchedIn)
	require.Contains(t, res[0].Snippet, "<mark>helm</mark> chart needs a values file")
	require.NotContains(t, res[0].Snippet, "*")
	require.NotContains(t, res[0].Snippet, "`")
	require.Equal(t, "content", decode[[]SearchResultOut](t, e.do("GET", u.ws()+"/search?q=upgrade", u.Token,
		nil))[0].MatchedIn)

	// Tokens: projects:read searches; without it, 403.
	requireStatus(t, e.do("GET", u.ws()+"/search?q=kubernetes", e.pat(u, []string{"projects:read"}), nil), http.StatusOK)
	requireStatus(t, e.do("GET", u.ws()+"/search?q=kubernetes", e.pat(u, []string{"pilotage:read"}), nil),
		http.StatusForbidden)
}

func TestDocumentTokenScopes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("scopes@example.com")
	d := e.doc(u, "Scoped", nil)
	read := e.pat(u, []string{"projects:read"})
	write := e.pat(u, []string{"projects:write"})
	base := u.ws() + "/documents"
	requireStatus(t, e.do("GET", base+"/"+d.ID, read, nil), http.StatusOK)
	requireStatus(t, e.do("PATCH", base+"/"+d.ID, read, map[string]any{"title": "x"}), http.StatusForbidden)
	requireStatus(t, e.do("POST", base+"/"+d.ID+"/submit-review", read, nil), http.StatusForbidden)
	requireStatus(t, e.do("GET", base, write, nil), http.StatusForbidden)
	requireStatus(t, e.do("POST", base+"/"+d.ID+"/submit-review", write, nil), http.StatusOK)
	requireStatus(t, e.do("POST", base+"/"+d.ID+"/review", write, map[string]any{"status": "approved"}), http.StatusOK)
}

func TestRegistrationCreatesPersonalOrganization(t *testing.T) {
	t.Parallel()
	e := setup(t)

	// 32 people called "Sam Lee" register at once: every registration succeeds, each with its own
	// personal organization; the first free slug is the name's, the others carry a suffix.
	const n = 32
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = e.do("POST", "/auth/register", "", map[string]any{"email": fmt.Sprintf("sam%d@example.com", i),
				"password": "correct-horse", "name": "Sam Lee"}).Code
		}()
	}
	wg.Wait()
	for i, c := range codes {
		require.Equal(t, http.StatusCreated, c, "registration %d", i)
	}
	require.Equal(t, n, e.count("SELECT count(DISTINCT slug) FROM organizations WHERE is_personal"))
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'sam-lee'"))
	require.Equal(t, n-1, e.count(`SELECT count(*) FROM organizations WHERE slug ~ '^sam-lee-[0-9a-f]{6}$'`))
	require.Equal(t, n, e.count(`SELECT count(*) FROM workspaces w JOIN organizations o ON o.id = w.organization_id
		WHERE w.is_personal AND o.is_personal AND w.owner_id = o.owner_id`))
	require.Equal(t, n, e.count(`SELECT count(*) FROM workspace_members wm JOIN workspaces w ON w.id = wm.workspace_id
		WHERE w.is_personal AND wm.user_id = w.owner_id AND wm.role = 'admin' AND wm.pilotage_role = 'owner'`))

	// Without a name, the slug comes from the e-mail.
	u := e.register("Jo.Doe+x@example.com")
	u2 := identRegisterNoName(e, "kim.park@example.com")
	require.Equal(t, "kim-park", u2)

	// The organization says it is personal, and cannot be deleted while its user exists.
	r := e.do("GET", "/organizations", u.Token, nil)
	orgs := decode[[]OrganizationOut](t, r)
	require.Len(t, orgs, 1)
	require.True(t, orgs[0].IsPersonal)
	r = e.do("GET", "/organizations/"+u.OrgSlug, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.True(t, decode[OrganizationOut](t, r).IsPersonal)
	requireStatus(t, e.do("DELETE", "/organizations/"+u.OrgSlug, u.Token, nil), http.StatusConflict)
	// Another organization of the same user deletes as before.
	e.org(u, "team-org")
	r = e.do("GET", "/organizations/team-org", u.Token, nil)
	require.False(t, decode[OrganizationOut](t, r).IsPersonal)
	requireStatus(t, e.do("DELETE", "/organizations/team-org", u.Token, nil), http.StatusOK)
}

// identRegisterNoName registers without a name and answers the personal organization's slug.
func identRegisterNoName(e *testEnv, email string) string {
	e.t.Helper()
	r := e.do("POST", "/auth/register", "", map[string]any{"email": email, "password": "correct-horse"})
	requireStatus(e.t, r, http.StatusCreated)
	s := decode[SessionBody](e.t, r)
	orgs := decode[[]OrganizationOut](e.t, e.do("GET", "/organizations", s.AccessToken, nil))
	return orgs[0].Slug
}

func TestDocumentsInOpenAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do("GET", "/api/openapi.json", "", nil)
	requireStatus(t, r, http.StatusOK)
	var spec struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum      []string `json:"enum"`
					MaxLength *int     `json:"maxLength"`
					MaxItems  *int     `json:"maxItems"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &spec))
	// The new activity types are named.
	require.Subset(t, spec.Components.Schemas["ActivityOut"].Properties["type"].Enum, []string{"document_submitted",
		"document_reviewed"})
	// The limits are stated.
	create := spec.Components.Schemas["CreateDocumentInputBody"].Properties
	require.Equal(t, maxDocTitle, *create["title"].MaxLength)
	require.Equal(t, maxDocContent, *create["content"].MaxLength)
	require.Equal(t, maxDocTags, *create["tags"].MaxItems)
	require.Equal(t, maxDocNotes, *spec.Components.Schemas["ReviewDocumentInputBody"].Properties["notes"].MaxLength)
	ws := "/orgs/{orgSlug}/workspaces/{wsSlug}"
	for _, p := range []string{ws + "/documents", ws + "/documents/all", ws + "/documents/{documentId}",
		ws + "/documents/{documentId}/submit-review", ws + "/documents/{documentId}/review", ws + "/search",
		ws + "/projects/{projectId}/cards/{cardId}/documents", ws +
			"/projects/{projectId}/cards/{cardId}/documents/{documentId}/link"} {
		require.Contains(t, spec.Paths, p)
	}
}

package api

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var linkNext = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

// page is one page of a paged list: its items' keys (the field key of each) and the next page's path
// from the Link header ("" when absent).
func (e *testEnv) page(path, token, key string) (keys []string, next string) {
	e.t.Helper()
	r := e.do("GET", path, token, nil)
	requireStatus(e.t, r, http.StatusOK)
	var items []map[string]json.RawMessage
	require.NoError(e.t, json.Unmarshal(r.Body, &items), "a bare array: %s", r.Body)
	for _, it := range items {
		var k string
		require.NoError(e.t, json.Unmarshal(it[key], &k), "item %s has a string %q", it, key)
		keys = append(keys, k)
	}
	if l := r.Header.Get("Link"); l != "" {
		m := linkNext.FindStringSubmatch(l)
		require.NotNil(e.t, m, "Link: %s", l)
		next = m[1]
	}
	return keys, next
}

// walk reads every page of path with limit, following the Link headers, and answers every item's key
// in order, checking that every page but the last is full and the last has no Link.
func (e *testEnv) walk(path, token, key string, limit int) []string {
	e.t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return e.follow(path+sep+"limit="+strconv.Itoa(limit), token, key, limit)
}

// follow reads the pages from path on (a list's path with its limit, or a Link's target).
func (e *testEnv) follow(path, token, key string, limit int) []string {
	e.t.Helper()
	var all []string
	next := path
	for pages := 0; next != ""; pages++ {
		require.Less(e.t, pages, 1000, "the walk ends")
		var keys []string
		keys, next = e.page(next, token, key)
		if next != "" {
			require.Len(e.t, keys, limit, "a page with a next one is full")
			u, err := url.Parse(next)
			require.NoError(e.t, err)
			require.Equal(e.t, strings.SplitN(path, "?", 2)[0], u.Path, "the Link names the same list")
			require.Equal(e.t, strconv.Itoa(limit), u.Query().Get("limit"), "the Link keeps the query")
		}
		all = append(all, keys...)
	}
	return all
}

// requireWalk checks that walking path in pages of limit gives exactly the items of one answer with the
// default limit, in the same order, each once.
func (e *testEnv) requireWalk(path, token, key string, limit int, want int) {
	e.t.Helper()
	whole, next := e.page(path, token, key)
	require.Empty(e.t, next, "the default page holds the whole list")
	require.Len(e.t, whole, want)
	require.Equal(e.t, whole, e.walk(path, token, key, limit), "%s in pages of %d", path, limit)
}

func TestPagesCards(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	var ids []string
	for i, col := range []string{cols[1], cols[0], cols[0], cols[2], cols[1], cols[0], cols[2]} {
		ids = append(ids, e.card(u, prj, col, "card "+strconv.Itoa(i)).ID)
	}
	requireStatus(t, e.do("PATCH", prj+"/cards/"+ids[1], u.Token, map[string]any{"archived": true}), http.StatusOK)
	for _, limit := range []int{1, 2, 3, 7} {
		e.requireWalk(prj+"/cards", u.Token, "id", limit, 7)
	}
	e.requireWalk(prj+"/cards?archived=false", u.Token, "id", 2, 6)
	e.requireWalk(prj+"/cards?archived=true", u.Token, "id", 1, 1)

	// A card created in a column already read, or moved behind the cursor, does not disturb the rest.
	first, next := e.page(prj+"/cards?limit=4", u.Token, "id") // the first column and one card of the second
	e.card(u, prj, cols[0], "late in the first column")
	e.card(u, prj, cols[2], "late in the last column")
	rest := e.follow(next, u.Token, "id", 3)
	seen := map[string]int{}
	for _, id := range append(first, rest...) {
		seen[id]++
	}
	for _, id := range ids {
		require.Equal(t, 1, seen[id], "card %s once", id)
	}
	require.Len(t, seen, 8, "the card added to the last column after the cursor is read, the one behind it is not")
}

// TestPagesEveryList walks every paged list (but cards, above) in pages of 2 and of 3 and checks it gives
// the whole list once, in its order, the last page without a Link.
func TestPagesEveryList(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	ws := wsOf(owner)
	third, fourth := e.register("third@example.com"), e.register("fourth@example.com")
	for _, u := range []user{third, fourth} {
		e.join(owner, u, owner.OrgSlug, owner.WsSlug, "member")
		requireStatus(t, e.do("POST", prj+"/members", owner.Token, map[string]any{"email": u.Email}), http.StatusCreated)
	}
	card := prj + "/cards/" + e.card(owner, prj, cols[0], "Busy card").ID
	for i := range 5 {
		n := strconv.Itoa(i)
		requireStatus(t, e.do("POST", card+"/comments", member.Token, map[string]any{"content": "comment " + n}),
			http.StatusCreated)
		e.doc(owner, "doc "+n, nil)
		e.project(owner, "project "+n)
		requireStatus(t, e.do("POST", "/api-tokens", owner.Token, map[string]any{"name": "token " + n}), http.StatusCreated)
		plCreate(e, owner.Token, ws+"/pilotage/missions", map[string]any{"objective": "objective " + n})
		plCreate(e, owner.Token, ws+"/pilotage/priorities", map[string]any{"label": "priority " + n})
		plCreate(e, owner.Token, ws+"/pilotage/todos", map[string]any{"label": "todo " + n})
		plCreate(e, owner.Token, ws+"/pilotage/decisions", map[string]any{"title": "decision " + n})
		plCreate(e, owner.Token, ws+"/pilotage/docs", map[string]any{"title": "doc " + n})
		plCreate(e, owner.Token, ws+"/pilotage/actions/propose", map[string]any{"actionType": "noop",
			"explanation": "why " + n})
		requireStatus(t, e.do("POST", ws+"/project-drafts", owner.Token, map[string]any{"name": "draft " + n}),
			http.StatusCreated)
	}
	e.fanOut() // the comments notify the owner

	p := e.createPipeline(owner, map[string]any{"name": "Ping", "steps": []pstep{notifyStep("a", path.Base(prj))},
		"enabled": true})
	runs := ws + "/pipelines/" + p.ID + "/runs"
	for range 5 {
		requireStatus(t, e.do("POST", runs, owner.Token, nil), http.StatusCreated)
	}
	mission := e.newTestMission(owner, "completed")
	var agentID string
	require.NoError(t, e.pool.QueryRow(t.Context(), `SELECT agent_id FROM agent_missions WHERE id = $1`,
		mission).Scan(&agentID))
	_, err := e.pool.Exec(t.Context(), `INSERT INTO agent_missions
		(id, workspace_id, agent_id, source, objective, status, max_steps, created_by)
		SELECT gen_random_uuid(), workspace_id, agent_id, source, objective, status, max_steps, created_by
		FROM agent_missions, generate_series(1, 4) WHERE id = $1`, mission)
	require.NoError(t, err)
	r := e.do("POST", ws+"/webhooks", owner.Token, map[string]any{"url": "http://receiver.test/",
		"events": []string{"card_deleted"}})
	requireStatus(t, r, http.StatusCreated)
	hook := ws + "/webhooks/" + decode[WebhookWithSecretOut](t, r).ID
	for range 5 {
		requireStatus(t, e.do("POST", hook+"/test", owner.Token, nil), http.StatusAccepted)
	}

	for _, tc := range []struct {
		path, key string
		n         int
	}{
		{hook + "/deliveries", "id", 5},
		{card + "/comments", "id", 5},
		{"/notifications", "id", 5},
		{"/notifications?unreadOnly=true", "id", 5},
		{ws + "/documents", "id", 5},
		{ws + "/documents?parentId=root", "id", 5},
		{ws + "/agents/" + agentID + "/missions", "id", 5},
		{runs, "id", 5},
		{ws + "/projects", "id", 6},
		{ws + "/members", "userId", 4},
		{"/organizations/" + owner.OrgSlug + "/members", "userId", 4},
		{prj + "/members", "userId", 4},
		{"/api-tokens", "id", 5},
		{ws + "/pilotage/missions", "id", 5},
		{ws + "/pilotage/priorities", "id", 5},
		{ws + "/pilotage/todos", "id", 5},
		{ws + "/pilotage/decisions", "id", 5},
		{ws + "/pilotage/docs", "id", 5},
		{ws + "/pilotage/actions", "id", 5},
		{ws + "/pilotage/actions?status=suggested", "id", 5},
		{ws + "/project-drafts", "id", 5},
	} {
		e.requireWalk(tc.path, owner.Token, tc.key, 2, tc.n)
		e.requireWalk(tc.path, owner.Token, tc.key, 3, tc.n)
	}
}

// TestPagesRefuseBadCursorsAndLimits: a cursor that is not one the list made (garbage, another list's,
// a tampered one) and a limit out of range are refused with 400 in the error shape.
func TestPagesRefuseBadCursorsAndLimits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	for i := range 3 {
		e.card(u, prj, cols[0], "card "+strconv.Itoa(i))
		requireStatus(t, e.do("POST", "/api-tokens", u.Token, map[string]any{"name": "token " + strconv.Itoa(i)}),
			http.StatusCreated)
	}
	_, cardsNext := e.page(prj+"/cards?limit=1", u.Token, "id")
	_, tokensNext := e.page("/api-tokens?limit=1", u.Token, "id")
	cardCursor := mustQuery(t, cardsNext, "cursor")
	tokenCursor := mustQuery(t, tokensNext, "cursor")
	raw, err := base64.RawURLEncoding.DecodeString(tokenCursor)
	require.NoError(t, err)
	tampered := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), `"i":"`, `"i":"x`, 1)))

	for _, p := range []string{
		prj + "/cards?cursor=garbage!",
		prj + "/cards?cursor=" + tokenCursor,
		"/api-tokens?cursor=" + cardCursor,
		"/api-tokens?cursor=" + tampered,
		"/api-tokens?cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"l":"api-tokens","k":{"t":"soon","i":"x"}}`)),
		"/notifications?cursor=e30",
	} {
		r := e.do("GET", p, u.Token, nil)
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, string(r.Body), "cursor", p)
	}
	for _, p := range []string{prj + "/cards?limit=0", prj + "/cards?limit=1001", "/api-tokens?limit=0",
		"/api-tokens?limit=201", "/notifications?limit=201", "/api-tokens?limit=many"} {
		r := e.do("GET", p, u.Token, nil)
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, string(r.Body), "limit", p)
	}
	keys, _ := e.page(prj+"/cards?limit=1000", u.Token, "id")
	require.Len(t, keys, 3, "the maximum is accepted")
}

// TestPagesUnknownQueryParameter: every operation refuses a query parameter it does not declare, as an
// unknown body field is refused, and accepts the ones it declares, repeated or not.
func TestPagesUnknownQueryParameter(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	card := prj + "/cards/" + e.card(u, prj, cols[0], "A card").ID
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", prj + "/cards?limt=2", nil},
		{"GET", card + "?verbose=1", nil},
		{"POST", card + "/comments?notify=false", map[string]any{"content": "hi"}},
		{"PATCH", card + "?x=1", map[string]any{"title": "B"}},
		{"DELETE", card + "?force=true", nil},
		{"GET", "/plugins?all=1", nil},     // a public operation
		{"GET", "/auth/me?fields=id", nil}, // an operation without any query parameter
	} {
		r := e.do(c.method, c.path, u.Token, c.body)
		requireStatus(t, r, http.StatusBadRequest)
		u, err := url.Parse(c.path)
		require.NoError(t, err)
		for k := range u.Query() {
			require.Equal(t, "unknown query parameter: "+k, decode[ErrorBody](t, r).Message)
		}
	}
	requireStatus(t, e.do("GET", card, u.Token, nil), http.StatusOK) // nothing was changed or deleted
	requireStatus(t, e.do("GET", prj+"/cards?archived=false&archived=false&limit=5", u.Token, nil), http.StatusOK)
	r := e.do("GET", "/auth/me?fields=id", "", nil)
	requireStatus(t, r, http.StatusUnauthorized) // credentials are checked first, as for a body
}

func mustQuery(t *testing.T, link, key string) string {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	v := u.Query().Get(key)
	require.NotEmpty(t, v)
	return v
}

// TestPagesNewestFirstIgnoreNewItems: in a newest-first list, items created between two pages sort
// before the cursor, so the walk neither repeats nor skips the older ones; one deleted is just gone.
func TestPagesNewestFirstIgnoreNewItems(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	var ids []string
	for i := range 5 {
		ids = append(ids, e.doc(u, "doc "+strconv.Itoa(i), nil).ID)
	}
	first, next := e.page(u.ws()+"/documents?limit=2", u.Token, "id")
	require.Equal(t, []string{ids[4], ids[3]}, first)
	e.doc(u, "newer", nil)
	requireStatus(t, e.do("DELETE", u.ws()+"/documents/"+ids[1], u.Token, nil), http.StatusOK)
	require.Equal(t, []string{ids[2], ids[0]}, e.follow(next, u.Token, "id", 2))
}

// TestPagesMCPTools: list_projects and list_cards page as their REST twins do.
func TestPagesMCPTools(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	e := w.e
	e.project(w.ann, "Second")
	e.project(w.ann, "Third")
	cs := e.mcpSession(e.pat(w.ann, nil))
	first := toolOK[ProjectsOut](t, cs, "list_projects", wsArgs(w.ann, map[string]any{"limit": 2}))
	require.Len(t, first.Projects, 2)
	require.NotEmpty(t, first.NextCursor)
	last := toolOK[ProjectsOut](t, cs, "list_projects", wsArgs(w.ann, map[string]any{"limit": 2,
		"cursor": first.NextCursor}))
	require.Len(t, last.Projects, 1)
	require.Empty(t, last.NextCursor)
	require.Equal(t, "Third", last.Projects[0].Name)
	require.Contains(t, toolErr(t, cs, "list_projects", wsArgs(w.ann, map[string]any{"cursor": "nope"})),
		"cursor: invalid")

	e.card(w.ann, w.annPrj, w.annCols[1], "Second card")
	cards := toolOK[CardsOut](t, cs, "list_cards", wsArgs(w.ann, map[string]any{"projectId": path.Base(w.annPrj),
		"limit": 1}))
	require.Len(t, cards.Cards, 1)
	require.True(t, cards.Truncated)
	cards = toolOK[CardsOut](t, cs, "list_cards", wsArgs(w.ann, map[string]any{"projectId": path.Base(w.annPrj),
		"limit": 2}))
	require.Len(t, cards.Cards, 2)
	require.False(t, cards.Truncated)
}

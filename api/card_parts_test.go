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
)

// cpProjectIn creates a project in the workspace ws of u's personal organization and answers its path
// and first column.
func cpProjectIn(e *testEnv, u user, ws, name string) (string, string) {
	e.t.Helper()
	base := "/orgs/" + u.OrgSlug + "/workspaces/" + ws + "/projects"
	r := e.do("POST", base, u.Token, map[string]any{"name": name})
	requireStatus(e.t, r, http.StatusCreated)
	prj := base + "/" + decode[ProjectOut](e.t, r).ID
	cols := e.do("GET", prj+"/columns", u.Token, nil)
	requireStatus(e.t, cols, http.StatusOK)
	return prj, decode[[]ColumnOut](e.t, cols)[0].ID
}

// cpFollow makes a second user a member of u's workspace and of the project prj, so that the project's
// changes notify someone besides u.
func cpFollow(e *testEnv, u user, prj string) {
	e.t.Helper()
	follower := e.register("follower@example.com")
	e.join(u, follower, u.OrgSlug, u.WsSlug, "member")
	requireStatus(e.t, e.do("POST", prj+"/members", u.Token, map[string]any{"email": follower.Email}), http.StatusCreated)
}

// cpCard creates a card and answers its id and path.
func cpCard(e *testEnv, u user, prj, col, title string) (string, string) {
	e.t.Helper()
	id := e.card(u, prj, col, title).ID
	return id, prj + "/cards/" + id
}

// cpTitles answers the items' titles, or ends with "BAD ORDER" at an item whose order is not its place.
func cpTitles(items []checklistItem) []string {
	var ts []string
	for i, it := range items {
		if it.Order != i {
			return append(ts, "BAD ORDER")
		}
		ts = append(ts, it.Title)
	}
	return ts
}

// cpActivity is a card_updated activity as stored.
type cpActivity struct {
	ActorID    string
	Fields     []string
	Title      string
	Recipients []string
	Jobs       int
}

// cpUpdates lists a card's card_updated activities, oldest first, with their notification jobs.
func cpUpdates(e *testEnv, cardID string) []cpActivity {
	e.t.Helper()
	notified := e.notifyJobs()
	rows, err := e.pool.Query(context.Background(), `
		SELECT a.id::text, a.actor_id::text, a.meta, a.recipients::text[]
		FROM activities a WHERE a.card_id = $1 AND a.type = 'card_updated' ORDER BY a.id`, cardID)
	require.NoError(e.t, err)
	defer rows.Close()
	var out []cpActivity
	for rows.Next() {
		var a cpActivity
		var id string
		var meta []byte
		require.NoError(e.t, rows.Scan(&id, &a.ActorID, &meta, &a.Recipients))
		a.Jobs = occurrences(notified, id)
		var m struct {
			Fields []string `json:"fields"`
			Title  string   `json:"title"`
		}
		require.NoError(e.t, json.Unmarshal(meta, &m))
		a.Fields, a.Title = m.Fields, m.Title
		out = append(out, a)
	}
	require.NoError(e.t, rows.Err())
	return out
}

func TestCardPartsChecklist(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	cpFollow(e, u, prj) // someone besides u hears of the card's changes: each enqueues its notification job
	cardID, card := cpCard(e, u, prj, cols[0], "Ship it")
	before := decode[CardOut](t, e.do("GET", card, u.Token, nil)).UpdatedAt

	var items []checklistItem
	for _, title := range []string{"one", "two", "three"} {
		r := e.do("POST", card+"/checklist", u.Token, map[string]any{"title": title})
		requireStatus(t, r, http.StatusCreated)
		c := decode[CardOut](t, r)
		require.Equal(t, cardID, c.ID)
		items = cardChecklist(t, c)
	}
	require.Equal(t, []string{"one", "two", "three"}, cpTitles(items))
	id := func(i int) string { return items[i].UnderscoreID }
	one, two, three := id(0), id(1), id(2)

	// Check an item: progress follows.
	r := e.do("PATCH", card+"/checklist/"+two, u.Token, map[string]any{"done": true})
	requireStatus(t, r, http.StatusOK)
	c := decode[CardOut](t, r)
	require.Equal(t, int32(33), c.ChecklistProgress)
	require.True(t, c.UpdatedAt.After(before), "updatedAt is bumped")
	require.Equal(t, true, cardChecklist(t, c)[1].Done)

	// Rename and reorder in one patch.
	r = e.do("PATCH", card+"/checklist/"+three, u.Token, map[string]any{"title": "  first  ", "order": 0})
	requireStatus(t, r, http.StatusOK)
	items = cardChecklist(t, decode[CardOut](t, r))
	require.Equal(t, []string{"first", "one", "two"}, cpTitles(items))

	// An order past the end goes to the end.
	r = e.do("PATCH", card+"/checklist/"+three, u.Token, map[string]any{"order": 99})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, []string{"one", "two", "first"}, cpTitles(cardChecklist(t, decode[CardOut](t, r))))

	// Deleting closes the gap.
	r = e.do("DELETE", card+"/checklist/"+one, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	c = decode[CardOut](t, r)
	require.Equal(t, []string{"two", "first"}, cpTitles(cardChecklist(t, c)))
	require.Equal(t, int32(50), c.ChecklistProgress)
	require.Equal(t, 2, e.count(`SELECT count(*) FROM checklist_items WHERE card_id = $1`, cardID))
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM checklist_items WHERE card_id = $1 AND position = 1 AND title = 'first'`, cardID))

	// A patch that changes nothing records nothing.
	requireStatus(t, e.do("PATCH", card+"/checklist/"+two, u.Token, map[string]any{"done": true}), http.StatusOK)

	// The card read shows the same checklist.
	r = e.do("GET", card, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, []string{"two", "first"}, cpTitles(cardChecklist(t, decode[CardOut](t, r))))

	acts := cpUpdates(e, cardID)
	require.Len(t, acts, 7, "3 adds, check, rename+reorder, reorder, delete")
	for _, a := range acts {
		require.Equal(t, []string{"checklist"}, a.Fields)
		require.Equal(t, "Ship it", a.Title)
		require.Equal(t, u.ID, a.ActorID)
		require.Empty(t, a.Recipients)
		require.Equal(t, 1, a.Jobs, "each activity enqueues its notification job")
	}

	// Validation.
	for _, body := range []map[string]any{{}, {"title": ""}, {"title": "   "}, {"title": strings.Repeat("x", 501)},
		{"title": 5}} {
		r := e.do("POST", card+"/checklist", u.Token, body)
		requireStatus(t, r, http.StatusBadRequest)
	}
	for _, body := range []map[string]any{{"title": ""}, {"title": " "}, {"title": strings.Repeat("x", 501)},
		{"order": -1}, {"done": "yes"}} {
		r := e.do("PATCH", card+"/checklist/"+two, u.Token, body)
		requireStatus(t, r, http.StatusBadRequest)
	}
	require.Equal(t, 2, e.count(`SELECT count(*) FROM checklist_items WHERE card_id = $1`, cardID))
	require.Len(t, cpUpdates(e, cardID), 7, "refusals record nothing")

	// Ids are UUIDs in any case.
	r = e.do("PATCH", card+"/checklist/"+strings.ToUpper(three), u.Token, map[string]any{"order": 0})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, []string{"first", "two"}, cpTitles(cardChecklist(t, decode[CardOut](t, r))))

	// 500 characters is fine.
	requireStatus(t, e.do("POST", card+"/checklist", u.Token, map[string]any{"title": strings.Repeat("é", 500)}),
		http.StatusCreated)
}

func TestCardPartsChecklistLimit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	items := make([]map[string]any, 99)
	for i := range items {
		items[i] = map[string]any{"title": "item"}
	}
	r := e.do("POST", prj+"/columns/"+cols[0]+"/cards", u.Token, map[string]any{"title": "Big", "checklist": items})
	requireStatus(t, r, http.StatusCreated)
	cardID := decode[CardOut](t, r).ID
	card := prj + "/cards/" + cardID

	r = e.do("POST", card+"/checklist", u.Token, map[string]any{"title": "hundredth"})
	requireStatus(t, r, http.StatusCreated)
	last := cardChecklist(t, decode[CardOut](t, r))[99]
	require.Equal(t, "hundredth", last.Title)
	require.Equal(t, 99, last.Order)

	r = e.do("POST", card+"/checklist", u.Token, map[string]any{"title": "one too many"})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "100")
	require.Equal(t, 100, e.count(`SELECT count(*) FROM checklist_items WHERE card_id = $1`, cardID))
	require.Len(t, cpUpdates(e, cardID), 1)

	// Concurrent adds on an almost full card: the card's lock keeps the limit and a dense order.
	r = e.do("POST", prj+"/columns/"+cols[0]+"/cards", u.Token, map[string]any{"title": "Busy", "checklist": items[:95]})
	requireStatus(t, r, http.StatusCreated)
	busyID := decode[CardOut](t, r).ID
	const clients = 12
	codes := make([]int, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = e.do("POST", prj+"/cards/"+busyID+"/checklist", u.Token, map[string]any{"title": fmt.Sprintf("c%d",
				i)}).Code
		}()
	}
	wg.Wait()
	created := 0
	for _, c := range codes {
		require.Contains(t, []int{http.StatusCreated, http.StatusBadRequest}, c)
		if c == http.StatusCreated {
			created++
		}
	}
	require.Equal(t, 5, created)
	require.Equal(t, 100, e.count(`SELECT count(*) FROM checklist_items WHERE card_id = $1`, busyID))
	require.Equal(t, 100,
		e.count(`SELECT count(DISTINCT position) FROM checklist_items WHERE card_id = $1 AND position BETWEEN 0 AND 99`,
			busyID))
	require.Len(t, cpUpdates(e, busyID), 5)
}

func TestCardPartsChecklistNotFound(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	v := e.register("bob@example.com")
	prj, cols := e.project(u, "Launch")
	other, otherCol := cpProjectIn(e, u, u.WsSlug, "Other")
	_, card := cpCard(e, u, prj, cols[0], "A")
	bID, cardB := cpCard(e, u, prj, cols[0], "B")
	r := e.do("POST", cardB+"/checklist", u.Token, map[string]any{"title": "b's"})
	requireStatus(t, r, http.StatusCreated)
	itemB := cardChecklist(t, decode[CardOut](t, r))[0].UnderscoreID
	foreignID, _ := cpCard(e, u, other, otherCol, "elsewhere")
	vPrj, vCols := e.project(v, "Bob's")
	_, vCard := cpCard(e, v, vPrj, vCols[0], "Bob's card")

	cases := []struct{ name, method, path, token string }{
		{"item of another card", "PATCH", card + "/checklist/" + itemB, u.Token},
		{"delete item of another card", "DELETE", card + "/checklist/" + itemB, u.Token},
		{"unknown item", "PATCH", card + "/checklist/" + "00000000-0000-7000-8000-000000000000", u.Token},
		{"malformed item id", "DELETE", card + "/checklist/nope", u.Token},
		{"card of another project", "POST", prj + "/cards/" + foreignID + "/checklist", u.Token},
		{"item under a card of another project", "PATCH", other + "/cards/" + bID + "/checklist/" + itemB, u.Token},
		{"another workspace", "POST", vCard + "/checklist", u.Token},
		{"someone else's card in my project path", "POST", card + "/checklist", v.Token},
	}
	for _, c := range cases {
		var body any
		switch c.method {
		case "POST":
			body = map[string]any{"title": "x"}
		case "PATCH":
			body = map[string]any{"done": true}
		}
		r := e.do(c.method, c.path, c.token, body)
		require.Equal(t, http.StatusNotFound, r.Code, "%s: %s", c.name, r.Body)
		requireErrorShape(t, r, http.StatusNotFound)
	}
	require.Equal(t, 1, e.count(`SELECT count(*) FROM checklist_items`))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM checklist_items WHERE done = false`))
}

func TestCardPartsLabels(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	cpFollow(e, u, prj) // someone besides u hears of the card's changes: each enqueues its notification job
	cardID, card := cpCard(e, u, prj, cols[0], "A")
	otherCardID, otherCard := cpCard(e, u, prj, cols[0], "B")

	r := e.do("POST", prj+"/labels", u.Token, map[string]any{"name": " Bug ", "color": "#D73A4A"})
	requireStatus(t, r, http.StatusCreated)
	bug := decode[LabelOut](t, r)
	require.Equal(t, "Bug", bug.Name)
	require.Equal(t, "#d73a4a", bug.Color)
	require.Equal(t, prj[strings.LastIndex(prj, "/")+1:], bug.ProjectID)
	bugID := bug.ID
	r = e.do("POST", prj+"/labels", u.Token, map[string]any{"name": "Feature", "color": "#00ff00"})
	requireStatus(t, r, http.StatusCreated)
	featureID := decode[LabelOut](t, r).ID

	// Duplicate name.
	r = e.do("POST", prj+"/labels", u.Token, map[string]any{"name": "Bug", "color": "#000000"})
	requireStatus(t, r, http.StatusConflict)

	// Validation.
	for _, body := range []map[string]any{
		{"color": "#000000"}, {"name": "x"}, {"name": "", "color": "#000000"}, {"name": "  ", "color": "#000000"},
		{"name": strings.Repeat("x", 51), "color": "#000000"}, {"name": "x", "color": "red"}, {"name": "x",
			"color": "#12345"}, {"name": "x", "color": "#1234567"}, {"name": "x", "color": "#ggggggg"},
	} {
		r := e.do("POST", prj+"/labels", u.Token, body)
		requireStatus(t, r, http.StatusBadRequest)
	}
	requireStatus(t, e.do("POST", prj+"/labels", u.Token, map[string]any{"name": strings.Repeat("x", 50),
		"color": "#abcdef"}), http.StatusCreated)

	r = e.do("GET", prj+"/labels", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	var names []string
	for _, l := range decode[[]LabelOut](t, r) {
		names = append(names, l.Name)
	}
	require.Equal(t, []string{"Bug", "Feature", strings.Repeat("x", 50)}, names)

	// Update.
	r = e.do("PATCH", prj+"/labels/"+featureID, u.Token, map[string]any{"name": "Story"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Story", decode[LabelOut](t, r).Name)
	require.Equal(t, "#00ff00", decode[LabelOut](t, r).Color)
	r = e.do("PATCH", prj+"/labels/"+featureID, u.Token, map[string]any{"color": "#0000FF"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Story", decode[LabelOut](t, r).Name)
	require.Equal(t, "#0000ff", decode[LabelOut](t, r).Color)
	requireStatus(t, e.do("PATCH", prj+"/labels/"+featureID, u.Token, map[string]any{"name": "Bug"}), http.StatusConflict)
	requireStatus(t, e.do("PATCH", prj+"/labels/"+featureID, u.Token, map[string]any{"color": "blue"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", prj+"/labels/"+featureID, u.Token, map[string]any{"name": strings.Repeat("y", 51)}),
		http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", prj+"/labels/"+featureID, u.Token, map[string]any{"name": " "}), http.StatusBadRequest)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM labels WHERE id = $1 AND name = 'Story' AND color = '#0000ff'`,
		featureID))

	// On and off a card.
	r = e.do("POST", card+"/labels/"+bugID, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	labels := cardLabels(t, decode[CardOut](t, r))
	require.Len(t, labels, 1)
	require.Equal(t, cardLabel{ID: bugID, Name: "Bug", Color: "#d73a4a"}, labels[0])
	requireStatus(t, e.do("POST", card+"/labels/"+bugID, u.Token, nil), http.StatusOK)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM card_labels WHERE card_id = $1`, cardID), "adding twice is "+
		"idempotent")
	r = e.do("POST", card+"/labels/"+featureID, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, cardLabels(t, decode[CardOut](t, r)), 2)
	requireStatus(t, e.do("POST", otherCard+"/labels/"+bugID, u.Token, nil), http.StatusOK)

	r = e.do("DELETE", card+"/labels/"+featureID, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, cardLabels(t, decode[CardOut](t, r)), 1)
	requireStatus(t, e.do("DELETE", card+"/labels/"+featureID, u.Token, nil), http.StatusOK)

	acts := cpUpdates(e, cardID)
	require.Len(t, acts, 3, "add bug, add feature, remove feature; no-ops record nothing")
	for _, a := range acts {
		require.Equal(t, []string{"labels"}, a.Fields)
		require.Equal(t, "A", a.Title)
		require.Equal(t, 1, a.Jobs)
	}

	// Deleting a label takes it off every card.
	require.Equal(t, 2, e.count(`SELECT count(*) FROM card_labels WHERE label_id = $1`, bugID))
	r = e.do("DELETE", prj+"/labels/"+bugID, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[OKBody](t, r).OK)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_labels WHERE label_id = $1`, bugID))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM labels WHERE id = $1`, bugID))
	for _, c := range []string{card, otherCard} {
		r = e.do("GET", c, u.Token, nil)
		requireStatus(t, r, http.StatusOK)
		require.Empty(t, cardLabels(t, decode[CardOut](t, r)))
	}
	requireStatus(t, e.do("DELETE", prj+"/labels/"+bugID, u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", card+"/labels/"+bugID, u.Token, nil), http.StatusNotFound)
	require.Len(t, cpUpdates(e, otherCardID), 1)
}

func TestCardPartsLabelsNotFound(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	v := e.register("bob@example.com")
	prj, cols := e.project(u, "Launch")
	other, otherCol := cpProjectIn(e, u, u.WsSlug, "Other")
	cardID, card := cpCard(e, u, prj, cols[0], "A")
	foreignCardID, _ := cpCard(e, u, other, otherCol, "elsewhere")
	r := e.do("POST", other+"/labels", u.Token, map[string]any{"name": "Theirs", "color": "#111111"})
	requireStatus(t, r, http.StatusCreated)
	foreignLabel := decode[LabelOut](t, r).ID
	r = e.do("POST", prj+"/labels", u.Token, map[string]any{"name": "Mine", "color": "#222222"})
	requireStatus(t, r, http.StatusCreated)
	mine := decode[LabelOut](t, r).ID
	vPrj, _ := e.project(v, "Bob's")
	r = e.do("POST", vPrj+"/labels", v.Token, map[string]any{"name": "Bob", "color": "#333333"})
	requireStatus(t, r, http.StatusCreated)
	vLabel := decode[LabelOut](t, r).ID

	cases := []struct {
		name, method, path, token string
		body                      any
	}{
		{"label of another project on my card", "POST", card + "/labels/" + foreignLabel, u.Token, nil},
		{"remove label of another project", "DELETE", card + "/labels/" + foreignLabel, u.Token, nil},
		{"label of another workspace", "POST", card + "/labels/" + vLabel, u.Token, nil},
		{"card of another project", "POST", prj + "/cards/" + foreignCardID + "/labels/" + mine, u.Token, nil},
		{"unknown label", "POST", card + "/labels/00000000-0000-7000-8000-000000000000", u.Token, nil},
		{"malformed label id", "POST", card + "/labels/bad", u.Token, nil},
		{"update label of another project", "PATCH", prj + "/labels/" + foreignLabel, u.Token,
			map[string]any{"name": "Hijack"}}, {"delete label of another project", "DELETE", prj + "/labels/" + foreignLabel,
			u.Token, nil}, {"update label of another workspace", "PATCH", prj + "/labels/" + vLabel, u.Token,
			map[string]any{"name": "Hijack"}}, {"list labels of another workspace's project", "GET", vPrj + "/labels", u.Token,
			nil}, {"create label in another workspace", "POST", vPrj + "/labels", u.Token, map[string]any{"name": "X",
			"color": "#000000"}}, {"outsider on my project", "GET", prj + "/labels", v.Token, nil},
	}
	for _, c := range cases {
		r := e.do(c.method, c.path, c.token, c.body)
		require.Equal(t, http.StatusNotFound, r.Code, "%s: %s", c.name, r.Body)
		requireErrorShape(t, r, http.StatusNotFound)
	}
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_labels`))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM labels WHERE name = 'Hijack'`))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM labels WHERE id = $1`, foreignLabel))
	require.Empty(t, cpUpdates(e, cardID))
}

func TestCardPartsCustomFields(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	cpFollow(e, u, prj) // someone besides u hears of the card's changes: each enqueues its notification job
	cardID, card := cpCard(e, u, prj, cols[0], "A")
	card2ID, card2 := cpCard(e, u, prj, cols[0], "B")

	create := func(body map[string]any) CustomFieldOut {
		t.Helper()
		r := e.do("POST", prj+"/custom-fields", u.Token, body)
		requireStatus(t, r, http.StatusCreated)
		return decode[CustomFieldOut](t, r)
	}
	text := create(map[string]any{"name": "Notes", "type": "text"})
	require.Equal(t, []string{}, text.Options)
	number := create(map[string]any{"name": "Estimate", "type": "number", "options": []string{}})
	sel := create(map[string]any{"name": "Size", "type": "select", "options": []string{"S", "M", "L"}})
	require.Equal(t, []string{"S", "M", "L"}, sel.Options)
	multi := create(map[string]any{"name": "Teams", "type": "multi-select", "options": []string{"web", "ios", "android"}})
	date := create(map[string]any{"name": "Launch", "type": "date"})
	boolean := create(map[string]any{"name": "Blocked", "type": "boolean"})
	id := func(f CustomFieldOut) string { return f.ID }

	// Definition validation.
	for _, body := range []map[string]any{
		{"type": "text"}, {"name": "x"}, {"name": "", "type": "text"}, {"name": "  ", "type": "text"},
		{"name": strings.Repeat("x", 101), "type": "text"}, {"name": "x", "type": "color"},
		{"name": "x", "type": "select"}, {"name": "x", "type": "select", "options": []string{}},
		{"name": "x", "type": "multi-select", "options": []string{"a", ""}}, {"name": "x", "type": "select",
			"options": []string{"a", " "}}, {"name": "x", "type": "select", "options": []string{"a", "a"}}, {"name": "x",
			"type": "text", "options": []string{"a"}}, {"name": "x", "type": "boolean", "options": []string{"yes"}},
		{"name": "x", "type": "select", "options": []any{"a", 1}}, {"name": "x", "type": "select",
			"options": []string{strings.Repeat("o", 101)}},
	} {
		r := e.do("POST", prj+"/custom-fields", u.Token, body)
		requireStatus(t, r, http.StatusBadRequest)
	}
	requireStatus(t, e.do("POST", prj+"/custom-fields", u.Token, map[string]any{"name": "Notes", "type": "number"}),
		http.StatusConflict)
	require.Equal(t, 6, e.count(`SELECT count(*) FROM custom_fields`))

	r := e.do("GET", prj+"/custom-fields", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	var names []string
	for _, f := range decode[[]CustomFieldOut](t, r) {
		names = append(names, f.Name)
	}
	require.Equal(t, []string{"Notes", "Estimate", "Size", "Teams", "Launch", "Blocked"}, names)

	// Values of every type.
	before := decode[CardOut](t, e.do("GET", card, u.Token, nil)).UpdatedAt
	values := map[string]any{
		id(text): "hello", id(number): 3.5, id(sel): "M", id(multi): []string{"web", "ios"},
		id(date): "2026-03-01", id(boolean): true,
	}
	r = e.do("PATCH", card+"/custom-fields", u.Token, map[string]any{"values": values})
	requireStatus(t, r, http.StatusOK)
	c := decode[CardOut](t, r)
	require.True(t, c.UpdatedAt.After(before))
	require.Equal(t, map[string]any{
		id(text): "hello", id(number): 3.5, id(sel): "M", id(multi): []any{"web", "ios"},
		id(date): "2026-03-01", id(boolean): true,
	}, cardFields(t, c))
	require.Equal(t, 6, e.count(`SELECT count(*) FROM card_custom_values WHERE card_id = $1`, cardID))

	// Other accepted forms.
	for _, v := range []struct {
		field string
		value any
	}{
		{id(date), "2026-03-01T10:00:00Z"}, {id(date), "2026-03-01T10:00:00.123+02:00"}, {id(number), -7},
		{id(text), strings.Repeat("é", 5000)}, {id(text), ""}, {id(multi), []string{}}, {id(boolean), false},
	} {
		r := e.do("PATCH", card2+"/custom-fields", u.Token, map[string]any{"values": map[string]any{v.field: v.value}})
		requireStatus(t, r, http.StatusOK)
	}

	// Values that do not fit their field.
	bad := []struct {
		field string
		value any
	}{
		{id(text), 5}, {id(text), strings.Repeat("x", 5001)}, {id(number), "1"}, {id(number), true},
		{id(sel), "XL"}, {id(sel), []string{"S"}}, {id(multi), "web"}, {id(multi), []string{"web", "web"}},
		{id(multi), []string{"desktop"}}, {id(multi), []any{1}}, {id(date), "tomorrow"}, {id(date), "2026-13-01"},
		{id(date), 20260301}, {id(boolean), "yes"}, {id(boolean), 1},
	}
	for _, b := range bad {
		r := e.do("PATCH", card+"/custom-fields", u.Token, map[string]any{"values": map[string]any{b.field: b.value}})
		require.Equal(t, http.StatusBadRequest, r.Code, "%v: %s", b, r.Body)
		requireErrorShape(t, r, http.StatusBadRequest)
	}
	// A refused value refuses the whole request.
	r = e.do("PATCH", card+"/custom-fields", u.Token, map[string]any{"values": map[string]any{id(text): "changed",
		id(sel): "XL"}})
	requireStatus(t, r, http.StatusBadRequest)
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM card_custom_values WHERE card_id = $1 AND field_id = $2 AND value = '"hello"'`, cardID,
			id(text)))
	requireStatus(t, e.do("PATCH", card+"/custom-fields", u.Token, map[string]any{}), http.StatusBadRequest)

	// Unknown fields and fields of another project.
	other, _ := cpProjectIn(e, u, u.WsSlug, "Other")
	r = e.do("POST", other+"/custom-fields", u.Token, map[string]any{"name": "Notes", "type": "text"})
	requireStatus(t, r, http.StatusCreated)
	foreign := decode[CustomFieldOut](t, r).ID
	for _, key := range []string{foreign, "00000000-0000-7000-8000-000000000000", "not-a-uuid",
		strings.ReplaceAll(id(text), "-", "")} {
		r := e.do("PATCH", card+"/custom-fields", u.Token, map[string]any{"values": map[string]any{key: "x"}})
		require.Equal(t, http.StatusBadRequest, r.Code, "%s: %s", key, r.Body)
		requireErrorShape(t, r, http.StatusBadRequest)
	}
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1`, foreign))

	// null removes a value; setting the same value again changes nothing.
	r = e.do("PATCH", card+"/custom-fields", u.Token, map[string]any{"values": map[string]any{id(boolean): nil,
		id(text): "hello"}})
	requireStatus(t, r, http.StatusOK)
	cf := cardFields(t, decode[CardOut](t, r))
	require.NotContains(t, cf, id(boolean))
	require.Equal(t, "hello", cf[id(text)])
	require.Len(t, cf, 5)
	requireStatus(t, e.do("PATCH", card+"/custom-fields", u.Token,
		map[string]any{"values": map[string]any{id(text): "hello", id(boolean): nil}}), http.StatusOK)

	acts := cpUpdates(e, cardID)
	require.Len(t, acts, 2, "set all, remove one; refusals and no-ops record nothing")
	for _, a := range acts {
		require.Equal(t, []string{"customFields"}, a.Fields)
		require.Equal(t, "A", a.Title)
		require.Equal(t, 1, a.Jobs)
	}
	require.Len(t, cpUpdates(e, card2ID), 7)

	// Renaming keeps values.
	r = e.do("PATCH", prj+"/custom-fields/"+id(sel), u.Token, map[string]any{"name": "T-shirt size"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "T-shirt size", decode[CustomFieldOut](t, r).Name)
	require.Equal(t, []string{"S", "M", "L"}, decode[CustomFieldOut](t, r).Options)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1`, id(sel)))

	// Changing options drops values that are no longer an option.
	r = e.do("PATCH", prj+"/custom-fields/"+id(sel), u.Token, map[string]any{"options": []string{"S", "L", "XL"}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, []string{"S", "L", "XL"}, decode[CustomFieldOut](t, r).Options)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1`, id(sel)))
	r = e.do("PATCH", prj+"/custom-fields/"+id(multi), u.Token, map[string]any{"options": []string{"web", "android"}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1 AND card_id = $2`, id(multi),
		cardID), "[web, ios] has ios")
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1 AND card_id = $2 AND value = '[]'`, id(multi),
			card2ID))

	// Changing the type drops values that no longer fit and keeps those that do.
	requireStatus(t, e.do("PATCH", card2+"/custom-fields", u.Token,
		map[string]any{"values": map[string]any{id(text): "2026-05-01"}}), http.StatusOK)
	r = e.do("PATCH", prj+"/custom-fields/"+id(text), u.Token, map[string]any{"type": "date"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "date", decode[CustomFieldOut](t, r).Type)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1 AND card_id = $2`, id(text),
		cardID), "hello is no date")
	require.Equal(t, 1, e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1 AND card_id = $2`, id(text),
		card2ID))
	r = e.do("PATCH", prj+"/custom-fields/"+id(number), u.Token, map[string]any{"type": "text"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1`, id(number)))

	// Type and options must agree.
	for _, body := range []map[string]any{
		{"type": "select"}, {"options": []string{"a"}}, {"type": "text", "options": []string{"a"}},
		{"type": "colour"}, {"name": ""}, {"name": strings.Repeat("n", 101)},
	} {
		r := e.do("PATCH", prj+"/custom-fields/"+id(boolean), u.Token, body)
		requireStatus(t, r, http.StatusBadRequest)
	}
	requireStatus(t, e.do("PATCH", prj+"/custom-fields/"+id(sel), u.Token, map[string]any{"options": []string{}}),
		http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", prj+"/custom-fields/"+id(boolean), u.Token, map[string]any{"name": "Notes"}),
		http.StatusConflict)
	// Switching away from select drops the options; back to select needs new ones.
	r = e.do("PATCH", prj+"/custom-fields/"+id(sel), u.Token, map[string]any{"type": "text"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, []string{}, decode[CustomFieldOut](t, r).Options)
	r = e.do("PATCH", prj+"/custom-fields/"+id(boolean), u.Token, map[string]any{"type": "select",
		"options": []string{"yes", "no"}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "select", decode[CustomFieldOut](t, r).Type)
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM custom_fields WHERE id = $1 AND type = 'select' AND options = '{yes,no}'`, id(boolean)))

	// Deleting a field removes its values from every card.
	requireStatus(t, e.do("PATCH", card+"/custom-fields", u.Token,
		map[string]any{"values": map[string]any{id(boolean): "yes"}}), http.StatusOK)
	requireStatus(t, e.do("PATCH", card2+"/custom-fields", u.Token,
		map[string]any{"values": map[string]any{id(boolean): "no"}}), http.StatusOK)
	require.Equal(t, 2, e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1`, id(boolean)))
	r = e.do("DELETE", prj+"/custom-fields/"+id(boolean), u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[OKBody](t, r).OK)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_custom_values WHERE field_id = $1`, id(boolean)))
	r = e.do("GET", card2, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.NotContains(t, cardFields(t, decode[CardOut](t, r)), id(boolean))
	requireStatus(t, e.do("DELETE", prj+"/custom-fields/"+id(boolean), u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", card+"/custom-fields", u.Token,
		map[string]any{"values": map[string]any{id(boolean): "yes"}}), http.StatusBadRequest)
}

func TestCardPartsCustomFieldsNotFound(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	v := e.register("bob@example.com")
	prj, cols := e.project(u, "Launch")
	other, otherCol := cpProjectIn(e, u, u.WsSlug, "Other")
	_, card := cpCard(e, u, prj, cols[0], "A")
	foreignCardID, _ := cpCard(e, u, other, otherCol, "elsewhere")
	r := e.do("POST", other+"/custom-fields", u.Token, map[string]any{"name": "Theirs", "type": "text"})
	requireStatus(t, r, http.StatusCreated)
	foreign := decode[CustomFieldOut](t, r).ID
	r = e.do("POST", prj+"/custom-fields", u.Token, map[string]any{"name": "Mine", "type": "text"})
	requireStatus(t, r, http.StatusCreated)
	mine := decode[CustomFieldOut](t, r).ID
	vPrj, vCols := e.project(v, "Bob's")
	_, vCard := cpCard(e, v, vPrj, vCols[0], "Bob's card")

	cases := []struct {
		name, method, path, token string
		body                      any
	}{
		{"update field of another project", "PATCH", prj + "/custom-fields/" + foreign, u.Token,
			map[string]any{"name": "Hijack"}}, {"delete field of another project", "DELETE", prj + "/custom-fields/" + foreign,
			u.Token, nil}, {"unknown field", "PATCH", prj + "/custom-fields/00000000-0000-7000-8000-000000000000", u.Token,
			map[string]any{"name": "Hijack"}}, {"malformed field id", "DELETE", prj + "/custom-fields/x", u.Token, nil},
		{"values of a card of another project", "PATCH", prj + "/cards/" + foreignCardID + "/custom-fields", u.Token,
			map[string]any{"values": map[string]any{mine: "x"}}}, {"values of a card of another workspace", "PATCH",
			vCard + "/custom-fields", u.Token, map[string]any{"values": map[string]any{}}}, {"fields of another workspace",
			"GET", vPrj + "/custom-fields", u.Token, nil}, {"outsider sets my card's values", "PATCH", card + "/custom-fields",
			v.Token, map[string]any{"values": map[string]any{mine: "x"}}},
	}
	for _, c := range cases {
		r := e.do(c.method, c.path, c.token, c.body)
		require.Equal(t, http.StatusNotFound, r.Code, "%s: %s", c.name, r.Body)
		requireErrorShape(t, r, http.StatusNotFound)
	}
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_custom_values`))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM custom_fields WHERE name = 'Hijack'`))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM custom_fields WHERE id = $1`, foreign))
}

func TestCardPartsRelations(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	v := e.register("bob@example.com")
	prj, cols := e.project(u, "Launch")
	aID, a := cpCard(e, u, prj, cols[0], "A")
	bID, b := cpCard(e, u, prj, cols[0], "B")
	other, otherCol := cpProjectIn(e, u, u.WsSlug, "Other")
	xID, x := cpCard(e, u, other, otherCol, "X")
	e.workspace(u, u.OrgSlug, "second")
	second, secondCol := cpProjectIn(e, u, "second", "Far")
	farID, _ := cpCard(e, u, second, secondCol, "Far away")
	vPrj, vCols := e.project(v, "Bob's")
	vCardID, _ := cpCard(e, v, vPrj, vCols[0], "Bob's card")

	r := e.do("POST", a+"/relations", u.Token, map[string]any{"targetCardId": bID, "type": "blocks"})
	requireStatus(t, r, http.StatusCreated)
	rel := decode[RelationOut](t, r)
	require.Equal(t, aID, rel.CardID)
	require.Equal(t, bID, rel.TargetCardID)
	require.Equal(t, "blocks", rel.Type)
	require.NotEmpty(t, rel.ID)
	require.NotEmpty(t, rel.CreatedAt)
	relID := rel.ID

	// Another type between the same cards, and a card of another project of the workspace.
	requireStatus(t, e.do("POST", a+"/relations", u.Token, map[string]any{"targetCardId": bID, "type": "related_to"}),
		http.StatusCreated)
	r = e.do("POST", a+"/relations", u.Token, map[string]any{"targetCardId": xID, "type": "parent_of"})
	requireStatus(t, r, http.StatusCreated)
	crossID := decode[RelationOut](t, r).ID
	for _, typ := range []string{"blocked_by", "duplicates"} {
		requireStatus(t, e.do("POST", b+"/relations", u.Token, map[string]any{"targetCardId": aID, "type": typ}),
			http.StatusCreated)
	}

	// Refusals.
	r = e.do("POST", a+"/relations", u.Token, map[string]any{"targetCardId": bID, "type": "blocks"})
	requireStatus(t, r, http.StatusConflict)
	requireStatus(t, e.do("POST", a+"/relations", u.Token, map[string]any{"targetCardId": aID, "type": "blocks"}),
		http.StatusBadRequest)
	for _, target := range []string{farID, vCardID, "00000000-0000-7000-8000-000000000000"} {
		r := e.do("POST", a+"/relations", u.Token, map[string]any{"targetCardId": target, "type": "blocks"})
		requireStatus(t, r, http.StatusBadRequest)
		require.Equal(t, "target card not found in this workspace", decode[ErrorBody](t, r).Message)
	}
	for _, body := range []map[string]any{
		{"targetCardId": bID}, {"type": "blocks"}, {"targetCardId": bID, "type": "follows"},
		{"targetCardId": "nope", "type": "blocks"}, {"targetCardId": bID, "type": ""},
	} {
		requireStatus(t, e.do("POST", a+"/relations", u.Token, body), http.StatusBadRequest)
	}
	require.Equal(t, 5, e.count(`SELECT count(*) FROM card_relations`))

	// Lists show relations of the card as source and as target.
	list := func(path, token string) []RelationOut {
		t.Helper()
		r := e.do("GET", path+"/relations", token, nil)
		requireStatus(t, r, http.StatusOK)
		return decode[[]RelationOut](t, r)
	}
	require.Len(t, list(a, u.Token), 5)
	require.Len(t, list(b, u.Token), 4)
	xs := list(x, u.Token)
	require.Len(t, xs, 1)
	require.Equal(t, crossID, xs[0].ID)
	require.Equal(t, aID, xs[0].CardID)
	require.Equal(t, xID, xs[0].TargetCardID)
	require.Equal(t, "parent_of", xs[0].Type)

	// A relation belongs to its source card's project.
	requireStatus(t, e.do("DELETE", other+"/relations/"+crossID, u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", vPrj+"/relations/"+crossID, u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", vPrj+"/relations/"+crossID, v.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", prj+"/relations/00000000-0000-7000-8000-000000000000", u.Token, nil),
		http.StatusNotFound)
	requireStatus(t, e.do("DELETE", prj+"/relations/bad", u.Token, nil), http.StatusNotFound)
	require.Equal(t, 5, e.count(`SELECT count(*) FROM card_relations`))
	r = e.do("DELETE", prj+"/relations/"+crossID, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[OKBody](t, r).OK)
	requireStatus(t, e.do("DELETE", prj+"/relations/"+relID, u.Token, nil), http.StatusOK)
	require.Equal(t, 3, e.count(`SELECT count(*) FROM card_relations`))
	require.Empty(t, list(x, u.Token))
	requireStatus(t, e.do("DELETE", prj+"/relations/"+relID, u.Token, nil), http.StatusNotFound)

	// A card of another project in the path, another workspace, an outsider.
	for _, c := range []struct{ method, path, token string }{
		{"GET", prj + "/cards/" + xID + "/relations", u.Token},
		{"POST", prj + "/cards/" + xID + "/relations", u.Token},
		{"GET", prj + "/cards/00000000-0000-7000-8000-000000000000/relations", u.Token},
		{"GET", vPrj + "/cards/" + vCardID + "/relations", u.Token},
		{"POST", a + "/relations", v.Token},
	} {
		r := e.do(c.method, c.path, c.token, map[string]any{"targetCardId": bID, "type": "duplicates"})
		require.Equal(t, http.StatusNotFound, r.Code, "%s %s: %s", c.method, c.path, r.Body)
		requireErrorShape(t, r, http.StatusNotFound)
	}
	require.Equal(t, 3, e.count(`SELECT count(*) FROM card_relations`))

	// Deleting a card deletes its relations.
	requireStatus(t, e.do("DELETE", b, u.Token, nil), http.StatusOK)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_relations`))
}

func TestCardPartsActivityRecipients(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	m := e.register("max@example.com")
	e.join(u, m, u.OrgSlug, u.WsSlug, "member")
	prj, cols := e.project(u, "Launch")
	cardID, card := cpCard(e, u, prj, cols[0], "Assigned")
	requireStatus(t, e.do("PATCH", card, u.Token, map[string]any{"assigneeId": m.ID}), http.StatusOK)
	r := e.do("POST", prj+"/labels", u.Token, map[string]any{"name": "Bug", "color": "#ff0000"})
	requireStatus(t, r, http.StatusCreated)
	label := decode[LabelOut](t, r).ID
	r = e.do("POST", prj+"/custom-fields", u.Token, map[string]any{"name": "Points", "type": "number"})
	requireStatus(t, r, http.StatusCreated)
	field := decode[CustomFieldOut](t, r).ID
	before := e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_updated'`, cardID)

	requireStatus(t, e.do("POST", card+"/checklist", m.Token, map[string]any{"title": "step"}), http.StatusCreated)
	requireStatus(t, e.do("POST", card+"/labels/"+label, m.Token, nil), http.StatusOK)
	requireStatus(t, e.do("PATCH", card+"/custom-fields", m.Token, map[string]any{"values": map[string]any{field: 8}}),
		http.StatusOK)

	acts := cpUpdates(e, cardID)[before:]
	require.Len(t, acts, 3)
	for i, want := range []string{"checklist", "labels", "customFields"} {
		require.Equal(t, []string{want}, acts[i].Fields)
		require.Equal(t, "Assigned", acts[i].Title)
		require.Equal(t, m.ID, acts[i].ActorID)
		require.Equal(t, []string{m.ID}, acts[i].Recipients)
		require.Equal(t, 1, acts[i].Jobs)
	}
}

func TestCardPartsTokenScopes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	bID, _ := cpCard(e, u, prj, cols[0], "B")
	_, card := cpCard(e, u, prj, cols[0], "A")
	r := e.do("POST", prj+"/labels", u.Token, map[string]any{"name": "Bug", "color": "#ff0000"})
	requireStatus(t, r, http.StatusCreated)
	label := decode[LabelOut](t, r).ID
	r = e.do("POST", prj+"/custom-fields", u.Token, map[string]any{"name": "Points", "type": "number"})
	requireStatus(t, r, http.StatusCreated)
	field := decode[CustomFieldOut](t, r).ID
	r = e.do("POST", card+"/checklist", u.Token, map[string]any{"title": "step"})
	requireStatus(t, r, http.StatusCreated)
	item := cardChecklist(t, decode[CardOut](t, r))[0].UnderscoreID
	r = e.do("POST", card+"/relations", u.Token, map[string]any{"targetCardId": bID, "type": "blocks"})
	requireStatus(t, r, http.StatusCreated)
	rel := decode[RelationOut](t, r).ID

	read := e.pat(u, []string{"projects:read"})
	for _, path := range []string{prj + "/labels", prj + "/custom-fields", card + "/relations"} {
		requireStatus(t, e.do("GET", path, read, nil), http.StatusOK)
	}
	writes := []struct {
		method, path string
		body         any
	}{
		{"POST", card + "/checklist", map[string]any{"title": "x"}},
		{"PATCH", card + "/checklist/" + item, map[string]any{"done": true}},
		{"DELETE", card + "/checklist/" + item, nil},
		{"POST", prj + "/labels", map[string]any{"name": "X", "color": "#000000"}},
		{"PATCH", prj + "/labels/" + label, map[string]any{"name": "X"}},
		{"DELETE", prj + "/labels/" + label, nil},
		{"POST", card + "/labels/" + label, nil},
		{"DELETE", card + "/labels/" + label, nil},
		{"POST", prj + "/custom-fields", map[string]any{"name": "X", "type": "text"}},
		{"PATCH", prj + "/custom-fields/" + field, map[string]any{"name": "X"}},
		{"DELETE", prj + "/custom-fields/" + field, nil},
		{"PATCH", card + "/custom-fields", map[string]any{"values": map[string]any{field: 1}}},
		{"POST", card + "/relations", map[string]any{"targetCardId": bID, "type": "related_to"}},
		{"DELETE", prj + "/relations/" + rel, nil},
	}
	for _, w := range writes {
		r := e.do(w.method, w.path, read, w.body)
		require.Equal(t, http.StatusForbidden, r.Code, "%s %s: %s", w.method, w.path, r.Body)
		requireErrorShape(t, r, http.StatusForbidden)
	}
	require.Equal(t, 1, e.count(`SELECT count(*) FROM checklist_items WHERE done = false`))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM labels WHERE name = 'Bug'`))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_labels`))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM custom_fields`))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM card_relations`))

	// A projects:write token can write; no token at all is 401.
	write := e.pat(u, []string{"projects:write"})
	requireStatus(t, e.do("POST", card+"/labels/"+label, write, nil), http.StatusOK)
	requireStatus(t, e.do("GET", prj+"/labels", "", nil), http.StatusUnauthorized)
}

package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// project creates a project in u's personal workspace and returns its path and column ids.
func (e *testEnv) project(u user, name string) (string, []string) {
	e.t.Helper()
	base := "/orgs/" + u.OrgSlug + "/workspaces/" + u.WsSlug + "/projects"
	r := e.do("POST", base, u.Token, map[string]any{"name": name})
	requireStatus(e.t, r, http.StatusCreated)
	prj := base + "/" + decode[ProjectOut](e.t, r).ID
	cols := e.do("GET", prj+"/columns", u.Token, nil)
	requireStatus(e.t, cols, http.StatusOK)
	var ids []string
	for _, c := range decode[[]ColumnOut](e.t, cols) {
		ids = append(ids, c.ID)
	}
	return prj, ids
}

func (e *testEnv) card(u user, prj, col, title string) CardOut {
	e.t.Helper()
	r := e.do("POST", prj+"/columns/"+col+"/cards", u.Token, map[string]any{"title": title})
	requireStatus(e.t, r, http.StatusCreated)
	return decode[CardOut](e.t, r)
}

// columnTitles lists the titles of a column's cards in list order, checking that the list is sorted
// by order (strictly increasing: ties only come from concurrent creates).
func (e *testEnv) columnTitles(u user, prj, col string) []string {
	e.t.Helper()
	r := e.do("GET", prj+"/cards", u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	var titles []string
	prev := int64(-1)
	for i, c := range decode[[]CardOut](e.t, r) {
		if c.ColumnID == col {
			require.Greater(e.t, c.Order, prev, "card %d order", i)
			prev = c.Order
			titles = append(titles, c.Title)
		}
	}
	return titles
}

func TestCardCreateMoveReorder(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	require.Len(t, cols, 3)
	a := e.card(u, prj, cols[0], "A")
	e.card(u, prj, cols[0], "B")
	c := e.card(u, prj, cols[0], "C")
	require.Equal(t, int64(2), c.Order)
	require.Equal(t, []string{"A", "B", "C"}, e.columnTitles(u, prj, cols[0]))

	r := e.do("PATCH", prj+"/cards/"+c.ID, u.Token, map[string]any{"order": 0})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, []string{"C", "A", "B"}, e.columnTitles(u, prj, cols[0]))

	r = e.do("PATCH", prj+"/cards/"+a.ID, u.Token, map[string]any{"columnId": cols[1]})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, cols[1], decode[CardOut](t, r).ColumnID)
	require.Equal(t, []string{"C", "B"}, e.columnTitles(u, prj, cols[0]))
	require.Equal(t, []string{"A"}, e.columnTitles(u, prj, cols[1]))
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM activities
			WHERE type = 'card_moved' AND meta->>'fromColumn' = $1 AND meta->>'toColumn' = $2`, cols[0], cols[1]))
}

func TestConcurrentCreatesAndMovesInOneColumn(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Busy")
	const clients = 32
	var wg sync.WaitGroup
	codes := make([]int, clients*2)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.do("POST", prj+"/columns/"+cols[0]+"/cards", u.Token, map[string]any{"title": fmt.Sprintf("card %d", i)})
			codes[2*i] = r.Code
			if r.Code != http.StatusCreated {
				return
			}
			id := decode[CardOut](t, r).ID
			r = e.do("PATCH", prj+"/cards/"+id, u.Token, map[string]any{"columnId": cols[1], "order": i % 3})
			codes[2*i+1] = r.Code
		}()
	}
	wg.Wait()
	for i, c := range codes {
		require.Contains(t, []int{http.StatusCreated, http.StatusOK}, c, "request %d", i)
	}
	require.Len(t, e.columnTitles(u, prj, cols[1]), clients)
	require.Empty(t, e.columnTitles(u, prj, cols[0]))
	require.Equal(t, clients, e.count(`SELECT count(DISTINCT position) FROM cards WHERE column_id = $1`, cols[1]))
}

func TestCardListJSONMatchesCardOut(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Same")
	tricky := "quote \" backslash \\ tab \t newline \n <html> & \u2028 é 日本 \x01"
	r := e.do("POST", prj+"/columns/"+cols[1]+"/cards", u.Token, map[string]any{"title": tricky, "description": tricky,
		"dueDate": "2027-01-02T03:04:05.123456Z", "assigneeId": u.ID, "priority": "high",
		"checklist": []map[string]any{{"title": "x", "done": true}, {"title": tricky}}})
	requireStatus(t, r, http.StatusCreated)
	e.card(u, prj, cols[0], "plain")
	e.card(u, prj, cols[0], "second")
	list := e.do("GET", prj+"/cards", u.Token, nil)
	requireStatus(t, list, http.StatusOK)
	require.Equal(t, "application/json", list.Header.Get("Content-Type"))
	cards := e.requireListMatchesReads(u, prj, list)
	require.Len(t, cards, 3)
	require.Equal(t, tricky, cards[2].Title)
}

// requireListMatchesReads requires every card of list, a card list of prj, to be exactly a CardOut and
// the same JSON as the card's own read, and answers the cards.
func (e *testEnv) requireListMatchesReads(u user, prj string, list *resp, msgAndArgs ...any) []CardOut {
	e.t.Helper()
	var cards []CardOut
	for _, raw := range decode[[]json.RawMessage](e.t, list) {
		c := decodeJSON[CardOut](e.t, raw)
		one := e.do("GET", prj+"/cards/"+c.ID, u.Token, nil)
		requireStatus(e.t, one, http.StatusOK)
		// JSONEq, not CardOut equality: the same JSON, whatever the time zones and raw part spacing.
		require.JSONEq(e.t, string(one.Body), string(raw), msgAndArgs...)
		cards = append(cards, c)
	}
	return cards
}

// TestCardListStaysEqualToCardReadsThroughEveryPartChange changes every part a card list shows
// (checklist, labels, custom values, label renames, cascading deletes) and checks after each that the
// parts the triggers keep on each card row equal the parts computed from their tables (the
// card_details view), and that the list equals the single-card reads.
func TestCardListStaysEqualToCardReadsThroughEveryPartChange(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Parts")
	r := e.do("POST", prj+"/columns/"+cols[0]+"/cards", u.Token, map[string]any{"title": "with parts",
		"checklist": []map[string]any{{"title": "one"}, {"title": "two"}}})
	requireStatus(t, r, http.StatusCreated)
	created := decode[CardOut](t, r)
	card := prj + "/cards/" + created.ID
	items := cardChecklist(t, created)
	e.card(u, prj, cols[1], "bystander")

	same := func(step string) {
		t.Helper()
		// The parts the triggers keep on each row equal the parts computed from their tables (the view).
		require.Equal(t, 0, e.count(`SELECT count(*) FROM cards c JOIN card_details d ON d.id = c.id
			WHERE d.checklist <> c.parts_checklist::jsonb OR d.labels <> c.parts_labels::jsonb
			   OR d.custom_fields <> c.parts_fields::jsonb OR d.checklist_progress <> c.parts_progress`), "after %s", step)
		list := e.do("GET", prj+"/cards", u.Token, nil)
		requireStatus(t, list, http.StatusOK)
		e.requireListMatchesReads(u, prj, list, "after %s", step)
	}
	same("create")
	lr := e.do("POST", prj+"/labels", u.Token, map[string]any{"name": "bug", "color": "#ff0000"})
	requireStatus(t, lr, http.StatusCreated)
	label := decode[LabelOut](t, lr).ID
	requireStatus(t, e.do("POST", card+"/labels/"+label, u.Token, nil), http.StatusOK)
	same("label added")
	requireStatus(t, e.do("PATCH", prj+"/labels/"+label, u.Token, map[string]any{"name": "defect"}), http.StatusOK)
	same("label renamed")
	fr := e.do("POST", prj+"/custom-fields", u.Token, map[string]any{"name": "size", "type": "select",
		"options": []string{"S", "M"}})
	requireStatus(t, fr, http.StatusCreated)
	field := decode[CustomFieldOut](t, fr).ID
	requireStatus(t, e.do("PATCH", card+"/custom-fields", u.Token, map[string]any{"values": map[string]any{field: "M"}}),
		http.StatusOK)
	same("custom value set")
	requireStatus(t, e.do("PATCH", card+"/checklist/"+items[0].UnderscoreID, u.Token, map[string]any{"done": true}),
		http.StatusOK)
	same("checklist item checked")
	requireStatus(t, e.do("DELETE", card+"/checklist/"+items[1].UnderscoreID, u.Token, nil), http.StatusOK)
	same("checklist item deleted")
	requireStatus(t, e.do("DELETE", prj+"/custom-fields/"+field, u.Token, nil), http.StatusOK)
	same("custom field deleted")
	requireStatus(t, e.do("DELETE", prj+"/labels/"+label, u.Token, nil), http.StatusOK)
	same("label deleted")
	one := decode[CardOut](t, e.do("GET", card, u.Token, nil))
	require.Equal(t, int32(100), one.ChecklistProgress)
	require.Empty(t, cardLabels(t, one))
	require.Empty(t, cardFields(t, one))
}

// A card create is one batch and one transaction (db's TestCardCreateIsAllOrNothing): when its checklist
// cannot be stored (U+0000, which PostgreSQL text refuses), the caller gets a 400 and nothing is written.
func TestCardCreateIsAllOrNothing(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	cards, acts, jobs := e.count(`SELECT count(*) FROM cards`),
		e.count(`SELECT count(*) FROM activities WHERE card_id IS NOT NULL`), len(e.notifyJobs())
	r := e.do("POST", prj+"/columns/"+cols[0]+"/cards", u.Token, map[string]any{"title": "Doomed",
		"checklist": []map[string]any{{"title": "fine"}, {"title": "nul \u0000 inside"}}})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "NUL")
	require.Equal(t, cards, e.count(`SELECT count(*) FROM cards`))
	require.Equal(t, acts, e.count(`SELECT count(*) FROM activities WHERE card_id IS NOT NULL`))
	require.Len(t, e.notifyJobs(), jobs)
	// A NUL in the card's own title is refused the same way, and the next create works.
	requireStatus(t, e.do("POST", prj+"/cards", u.Token, map[string]any{"title": "a\u0000b"}), http.StatusBadRequest)
	c := e.card(u, prj, cols[0], "Fine")
	require.Equal(t, cards+1, e.count(`SELECT count(*) FROM cards`))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM activities WHERE card_id = $1`, c.ID))
}

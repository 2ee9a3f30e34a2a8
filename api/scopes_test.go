package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scNew creates a scope in prj as u and returns it.
func scNew(e *testEnv, u user, prj string, body map[string]any) ScopeOut {
	e.t.Helper()
	r := e.do("POST", prj+"/scopes", u.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	return decode[ScopeOut](e.t, r)
}

// scRow reads a scope's stored columns.
func scRow(e *testEnv, id string) (name, description, view string, start, end *time.Time, settings map[string]any) {
	e.t.Helper()
	var raw []byte
	require.NoError(e.t, e.pool.QueryRow(context.Background(),
		`SELECT name, description, active_view, start_date, end_date, settings FROM scopes WHERE id = $1`, id).
		Scan(&name, &description, &view, &start, &end, &raw))
	require.NoError(e.t, json.Unmarshal(raw, &settings))
	return
}

func TestScopesCreateListGetUpdateDelete(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, _ := e.project(u, "Apollo")
	prjID := prj[strings.LastIndex(prj, "/")+1:]

	// Empty list first: an array, never null.
	r := e.do("GET", prj+"/scopes", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "[]", strings.TrimSpace(string(r.Body)))

	a := scNew(e, u, prj, map[string]any{"name": "  Phase 1  ", "description": "The first phase",
		"startDate": "2030-01-01T00:00:00Z", "endDate": "2030-02-01T00:00:00Z", "settings": map[string]any{"color": "blue",
			"wip": 3}})
	require.Equal(t, "Phase 1", a.Name)
	require.Equal(t, "The first phase", a.Description)
	require.Equal(t, prjID, a.ProjectID)
	require.Equal(t, "kanban", a.ActiveView)
	// decode requires the body's dates to be these times' own encoding: "2030-01-01T00:00:00Z" and so on.
	require.Equal(t, new(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)), a.StartDate)
	require.Equal(t, new(time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)), a.EndDate)
	require.JSONEq(t, `{"color": "blue", "wip": 3}`, string(a.Settings))
	require.NotEmpty(t, a.CreatedAt)
	b := scNew(e, u, prj, map[string]any{"name": "Phase 2"})
	require.Nil(t, b.StartDate)
	require.Nil(t, b.EndDate)
	require.Equal(t, "", b.Description)
	require.JSONEq(t, `{}`, string(b.Settings))

	r = e.do("GET", prj+"/scopes", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	l := decode[[]ScopeOut](t, r)
	require.Len(t, l, 2)
	require.Equal(t, []string{a.ID, b.ID}, []string{l[0].ID, l[1].ID})
	for _, sc := range l {
		require.Equal(t, "kanban", sc.ActiveView)
	}

	r = e.do("GET", prj+"/scopes/"+a.ID, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, a, decode[ScopeOut](t, r))

	// PATCH: name, description, settings replace; a date set to null is cleared, the other is kept.
	r = e.do("PATCH", prj+"/scopes/"+a.ID, u.Token, map[string]any{"name": "Phase One", "description": "Changed",
		"startDate": nil, "settings": map[string]any{"color": "red"}})
	requireStatus(t, r, http.StatusOK)
	m := decode[ScopeOut](t, r)
	require.Equal(t, "Phase One", m.Name)
	require.Nil(t, m.StartDate)
	require.Equal(t, new(time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)), m.EndDate)
	name, desc, view, start, end, settings := scRow(e, a.ID)
	require.Equal(t, "Phase One", name)
	require.Equal(t, "Changed", desc)
	require.Equal(t, "kanban", view)
	require.Nil(t, start)
	require.True(t, end.Equal(time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)))
	require.Equal(t, map[string]any{"color": "red"}, settings)

	// An empty PATCH changes nothing; null description and settings empty them; endDate null clears it.
	r = e.do("PATCH", prj+"/scopes/"+a.ID, u.Token, map[string]any{})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Phase One", decode[ScopeOut](t, r).Name)
	r = e.do("PATCH", prj+"/scopes/"+a.ID, u.Token, map[string]any{"description": nil, "settings": nil, "endDate": nil,
		"startDate": "2031-05-01T10:00:00Z"})
	requireStatus(t, r, http.StatusOK)
	_, desc, _, start, end, settings = scRow(e, a.ID)
	require.Equal(t, "", desc)
	require.Equal(t, map[string]any{}, settings)
	require.Nil(t, end)
	require.True(t, start.Equal(time.Date(2031, 5, 1, 10, 0, 0, 0, time.UTC)))

	// DELETE answers {ok: true} and the scope is gone.
	r = e.do("DELETE", prj+"/scopes/"+b.ID, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[OKBody](t, r).OK)
	requireStatus(t, e.do("GET", prj+"/scopes/"+b.ID, u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", prj+"/scopes/"+b.ID, u.Token, nil), http.StatusNotFound)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM scopes WHERE project_id = $1`, prjID))
}

func TestScopesValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, _ := e.project(u, "Apollo")
	prjID := prj[strings.LastIndex(prj, "/")+1:]

	bigSettings := map[string]any{"blob": strings.Repeat("x", 16<<10)}
	for name, body := range map[string]any{
		"missing name":         map[string]any{"description": "x"},
		"empty name":           map[string]any{"name": ""},
		"blank name":           map[string]any{"name": "   "},
		"name too long":        map[string]any{"name": strings.Repeat("n", 201)},
		"description too long": map[string]any{"name": "ok", "description": strings.Repeat("d", 5001)},
		"end before start": map[string]any{"name": "ok", "startDate": "2030-02-01T00:00:00Z",
			"endDate": "2030-01-31T23:59:59Z"}, "bad date": map[string]any{"name": "ok", "startDate": "next tuesday"},
		"settings too big": map[string]any{"name": "ok", "settings": bigSettings},
		"settings array":   map[string]any{"name": "ok", "settings": []any{1, 2}},
		"settings string":  map[string]any{"name": "ok", "settings": "dark"},
		"unknown field":    map[string]any{"name": "ok", "colour": "red"},
		"not an object":    "[]",
	} {
		r := e.do("POST", prj+"/scopes", u.Token, body)
		require.Equal(t, http.StatusBadRequest, r.Code, "%s: %s", name, r.Body)
		requireErrorShape(t, r, http.StatusBadRequest)
	}
	require.Equal(t, 0, e.count(`SELECT count(*) FROM scopes WHERE project_id = $1`, prjID))

	// Boundaries are accepted: 200-character name, 5000-character description, equal dates.
	sc := scNew(e, u, prj, map[string]any{"name": strings.Repeat("n", 200), "description": strings.Repeat("d", 5000),
		"startDate": "2030-01-01T00:00:00Z", "endDate": "2030-01-01T00:00:00Z"})
	path := prj + "/scopes/" + sc.ID

	for name, body := range map[string]any{
		"empty name":            map[string]any{"name": ""},
		"blank name":            map[string]any{"name": "  "},
		"null name":             map[string]any{"name": nil},
		"name too long":         map[string]any{"name": strings.Repeat("n", 201)},
		"description too long":  map[string]any{"description": strings.Repeat("d", 5001)},
		"end before kept start": map[string]any{"endDate": "2029-12-31T00:00:00Z"},
		"start after kept end":  map[string]any{"startDate": "2030-01-02T00:00:00Z"},
		"settings too big":      map[string]any{"settings": bigSettings},
		"settings number":       map[string]any{"settings": 3},
	} {
		r := e.do("PATCH", path, u.Token, body)
		require.Equal(t, http.StatusBadRequest, r.Code, "%s: %s", name, r.Body)
		requireErrorShape(t, r, http.StatusBadRequest)
	}
	// Nothing changed.
	name, desc, _, start, end, settings := scRow(e, sc.ID)
	require.Equal(t, strings.Repeat("n", 200), name)
	require.Len(t, desc, 5000)
	require.True(t, start.Equal(*end))
	require.Equal(t, map[string]any{}, settings)

	// Moving both dates together is checked on the result, not field by field.
	r := e.do("PATCH", path, u.Token, map[string]any{"startDate": "2030-03-01T00:00:00Z",
		"endDate": "2030-04-01T00:00:00Z"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, new(time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC)), decode[ScopeOut](t, r).StartDate)
}

func TestScopeViews(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, _ := e.project(u, "Apollo")
	sc := scNew(e, u, prj, map[string]any{"name": "Phase 1"})
	path := prj + "/scopes/" + sc.ID + "/views"
	all := []string{"kanban", "list", "calendar", "roadmap", "stats"}

	r := e.do("GET", path, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, ScopeViewsOut{ActiveView: "kanban", Views: all}, decode[ScopeViewsOut](t, r))

	for _, v := range []string{"list", "calendar", "roadmap", "stats", "kanban", "roadmap"} {
		r = e.do("PATCH", path, u.Token, map[string]any{"activeView": v})
		requireStatus(t, r, http.StatusOK)
		require.Equal(t, ScopeViewsOut{ActiveView: v, Views: all}, decode[ScopeViewsOut](t, r))
		_, _, view, _, _, _ := scRow(e, sc.ID)
		require.Equal(t, v, view)
	}
	r = e.do("GET", path, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "roadmap", decode[ScopeViewsOut](t, r).ActiveView)
	r = e.do("GET", prj+"/scopes", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "roadmap", decode[[]ScopeOut](t, r)[0].ActiveView)

	for name, body := range map[string]any{
		"unknown view": map[string]any{"activeView": "gantt"},
		"upper case":   map[string]any{"activeView": "KANBAN"},
		"empty":        map[string]any{"activeView": ""},
		"null":         map[string]any{"activeView": nil},
		"missing":      map[string]any{},
		"number":       map[string]any{"activeView": 2},
	} {
		r := e.do("PATCH", path, u.Token, body)
		require.Equal(t, http.StatusBadRequest, r.Code, "%s: %s", name, r.Body)
		requireErrorShape(t, r, http.StatusBadRequest)
	}
	_, _, view, _, _, _ := scRow(e, sc.ID)
	require.Equal(t, "roadmap", view)
}

func TestScopeDeleteRemovesItsCards(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Apollo")
	doomed := scNew(e, u, prj, map[string]any{"name": "Doomed"})
	kept := scNew(e, u, prj, map[string]any{"name": "Kept"})

	newCard := func(title string, scopeID *string) string {
		r := e.do("POST", prj+"/columns/"+cols[0]+"/cards", u.Token, map[string]any{"title": title, "scopeId": scopeID,
			"checklist": []map[string]any{{"title": "step"}}})
		requireStatus(t, r, http.StatusCreated)
		c := decode[CardOut](t, r)
		require.Equal(t, scopeID, c.ScopeID)
		return c.ID
	}
	d1, d2 := newCard("in doomed 1", &doomed.ID), newCard("in doomed 2", &doomed.ID)
	k1 := newCard("in kept", &kept.ID)
	free := newCard("no scope", nil)
	// Content hanging off the doomed cards: a comment and a relation to a surviving card.
	_, err := e.pool.Exec(context.Background(),
		`INSERT INTO comments (id, card_id, author_id, content) VALUES (gen_random_uuid(), $1, $2, 'hi')`, d1, u.ID)
	require.NoError(t, err)
	_, err = e.pool.Exec(context.Background(), `INSERT INTO card_relations
		(id, project_id, card_id, target_card_id, type, created_by)
		SELECT gen_random_uuid(), project_id, $1, $2, 'blocks', $3 FROM cards WHERE id = $1`, free, d2, u.ID)
	require.NoError(t, err)

	r := e.do("DELETE", prj+"/scopes/"+doomed.ID, u.Token, nil)
	requireStatus(t, r, http.StatusOK)

	require.Equal(t, 0, e.count(`SELECT count(*) FROM cards WHERE id = ANY($1::uuid[])`, []string{d1, d2}))
	require.Equal(t, 2, e.count(`SELECT count(*) FROM cards WHERE id = ANY($1::uuid[])`, []string{k1, free}))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM checklist_items WHERE card_id = ANY($1::uuid[])`, []string{d1, d2}))
	require.Equal(t, 2, e.count(`SELECT count(*) FROM checklist_items WHERE card_id = ANY($1::uuid[])`, []string{k1,
		free}))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, d1))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_relations WHERE card_id = $1`, free))
	requireStatus(t, e.do("GET", prj+"/cards/"+d1, u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", prj+"/scopes/"+kept.ID, u.Token, nil), http.StatusOK)

	r = e.do("GET", prj+"/cards", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	var titles []string
	for _, c := range decode[[]CardOut](t, r) {
		titles = append(titles, c.Title)
	}
	require.ElementsMatch(t, []string{"in kept", "no scope"}, titles)
}

func TestScopesNotFoundOutsideTheirProject(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	prjA, _ := e.project(ann, "Apollo")
	prjB, _ := e.project(ann, "Borealis")
	bobPrj, _ := e.project(bob, "Bob's")
	scA := scNew(e, ann, prjA, map[string]any{"name": "A1"})
	scBob := scNew(e, bob, bobPrj, map[string]any{"name": "Bob 1"})
	bobPrjID := bobPrj[strings.LastIndex(bobPrj, "/")+1:]

	check := func(path string) {
		t.Helper()
		for _, c := range []struct {
			method string
			body   any
		}{
			{"GET", nil}, {"PATCH", map[string]any{"name": "x"}}, {"DELETE", nil},
		} {
			requireStatus(t, e.do(c.method, path, ann.Token, c.body), http.StatusNotFound)
		}
		requireStatus(t, e.do("GET", path+"/views", ann.Token, nil), http.StatusNotFound)
		requireStatus(t, e.do("PATCH", path+"/views", ann.Token, map[string]any{"activeView": "list"}), http.StatusNotFound)
	}
	// A scope of another project of the same workspace.
	check(prjB + "/scopes/" + scA.ID)
	// A scope that does not exist, and an id that is not one.
	check(prjA + "/scopes/01900000-0000-7000-8000-000000000000")
	check(prjA + "/scopes/not-a-uuid")
	// Bob's scope through Ann's project.
	check(prjA + "/scopes/" + scBob.ID)
	// Bob's project through Ann's workspace: the project is not found.
	annWS := "/orgs/" + ann.OrgSlug + "/workspaces/" + ann.WsSlug
	check(annWS + "/projects/" + bobPrjID + "/scopes/" + scBob.ID)
	for _, r := range []*resp{
		e.do("GET", annWS+"/projects/"+bobPrjID+"/scopes", ann.Token, nil),
		e.do("POST", annWS+"/projects/"+bobPrjID+"/scopes", ann.Token, map[string]any{"name": "intruder"}),
		// Bob's own workspace is not Ann's to open.
		e.do("GET", bobPrj+"/scopes", ann.Token, nil),
		e.do("POST", bobPrj+"/scopes", ann.Token, map[string]any{"name": "intruder"}),
	} {
		requireStatus(t, r, http.StatusNotFound)
	}

	// Nothing moved: names, views and existence unchanged.
	require.Equal(t, 1, e.count(`SELECT count(*) FROM scopes WHERE id = $1 AND name = 'A1' AND active_view = 'kanban'`,
		scA.ID))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM scopes WHERE id = $1 AND name = 'Bob 1' AND active_view = 'kanban'`,
		scBob.ID))
	require.Equal(t, 2, e.count(`SELECT count(*) FROM scopes`))
}

func TestScopesPersonalAccessTokenScopes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, _ := e.project(u, "Apollo")
	sc := scNew(e, u, prj, map[string]any{"name": "Phase 1"})
	path := prj + "/scopes/" + sc.ID
	read := e.pat(u, []string{"projects:read"})
	write := e.pat(u, []string{"projects:read", "projects:write"})

	requireStatus(t, e.do("GET", prj+"/scopes", read, nil), http.StatusOK)
	requireStatus(t, e.do("GET", path, read, nil), http.StatusOK)
	requireStatus(t, e.do("GET", path+"/views", read, nil), http.StatusOK)
	requireStatus(t, e.do("POST", prj+"/scopes", read, map[string]any{"name": "nope"}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", path, read, map[string]any{"name": "nope"}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", path+"/views", read, map[string]any{"activeView": "list"}), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", path, read, nil), http.StatusForbidden)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM scopes WHERE name = 'Phase 1' AND active_view = 'kanban'`))

	requireStatus(t, e.do("POST", prj+"/scopes", write, map[string]any{"name": "yes"}), http.StatusCreated)
	requireStatus(t, e.do("PATCH", path+"/views", write, map[string]any{"activeView": "list"}), http.StatusOK)
	requireStatus(t, e.do("GET", prj+"/scopes", "", nil), http.StatusUnauthorized)
}

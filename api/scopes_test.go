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
func scNew(e *testEnv, u user, prj string, body map[string]any) map[string]any {
	e.t.Helper()
	r := e.do("POST", prj+"/scopes", u.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	return r.M(e.t)
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
		"startDate": "2030-01-01T00:00:00Z", "endDate": "2030-02-01T00:00:00Z", "settings": map[string]any{"color": "blue", "wip": 3}})
	require.Equal(t, "Phase 1", a["name"])
	require.Equal(t, "The first phase", a["description"])
	require.Equal(t, prjID, a["projectId"])
	require.Equal(t, "kanban", a["activeView"])
	require.Equal(t, "2030-01-01T00:00:00Z", a["startDate"])
	require.Equal(t, "2030-02-01T00:00:00Z", a["endDate"])
	require.Equal(t, map[string]any{"color": "blue", "wip": float64(3)}, a["settings"])
	require.NotEmpty(t, a["createdAt"])
	b := scNew(e, u, prj, map[string]any{"name": "Phase 2"})
	require.Nil(t, b["startDate"])
	require.Nil(t, b["endDate"])
	require.Equal(t, "", b["description"])
	require.Equal(t, map[string]any{}, b["settings"])

	r = e.do("GET", prj+"/scopes", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	l := r.L(t)
	require.Len(t, l, 2)
	require.Equal(t, []any{a["id"], b["id"]}, []any{l[0]["id"], l[1]["id"]})
	for _, sc := range l {
		require.Equal(t, "kanban", sc["activeView"])
	}

	r = e.do("GET", prj+"/scopes/"+a["id"].(string), u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, a, r.M(t))

	// PATCH: name, description, settings replace; a date set to null is cleared, the other is kept.
	r = e.do("PATCH", prj+"/scopes/"+a["id"].(string), u.Token, map[string]any{"name": "Phase One", "description": "Changed",
		"startDate": nil, "settings": map[string]any{"color": "red"}})
	requireStatus(t, r, http.StatusOK)
	m := r.M(t)
	require.Equal(t, "Phase One", m["name"])
	require.Nil(t, m["startDate"])
	require.Equal(t, "2030-02-01T00:00:00Z", m["endDate"])
	name, desc, view, start, end, settings := scRow(e, a["id"].(string))
	require.Equal(t, "Phase One", name)
	require.Equal(t, "Changed", desc)
	require.Equal(t, "kanban", view)
	require.Nil(t, start)
	require.True(t, end.Equal(time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)))
	require.Equal(t, map[string]any{"color": "red"}, settings)

	// An empty PATCH changes nothing; null description and settings empty them; endDate null clears it.
	r = e.do("PATCH", prj+"/scopes/"+a["id"].(string), u.Token, map[string]any{})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Phase One", r.M(t)["name"])
	r = e.do("PATCH", prj+"/scopes/"+a["id"].(string), u.Token, map[string]any{"description": nil, "settings": nil, "endDate": nil,
		"startDate": "2031-05-01T10:00:00Z"})
	requireStatus(t, r, http.StatusOK)
	_, desc, _, start, end, settings = scRow(e, a["id"].(string))
	require.Equal(t, "", desc)
	require.Equal(t, map[string]any{}, settings)
	require.Nil(t, end)
	require.True(t, start.Equal(time.Date(2031, 5, 1, 10, 0, 0, 0, time.UTC)))

	// DELETE answers {ok: true} and the scope is gone.
	r = e.do("DELETE", prj+"/scopes/"+b["id"].(string), u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, r.M(t)["ok"])
	requireStatus(t, e.do("GET", prj+"/scopes/"+b["id"].(string), u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", prj+"/scopes/"+b["id"].(string), u.Token, nil), http.StatusNotFound)
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
		"end before start":     map[string]any{"name": "ok", "startDate": "2030-02-01T00:00:00Z", "endDate": "2030-01-31T23:59:59Z"},
		"bad date":             map[string]any{"name": "ok", "startDate": "next tuesday"},
		"settings too big":     map[string]any{"name": "ok", "settings": bigSettings},
		"settings array":       map[string]any{"name": "ok", "settings": []any{1, 2}},
		"settings string":      map[string]any{"name": "ok", "settings": "dark"},
		"unknown field":        map[string]any{"name": "ok", "colour": "red"},
		"not an object":        "[]",
	} {
		r := e.do("POST", prj+"/scopes", u.Token, body)
		require.Equal(t, http.StatusBadRequest, r.Code, "%s: %s", name, r.Body)
		requireErrorShape(t, r, http.StatusBadRequest)
	}
	require.Equal(t, 0, e.count(`SELECT count(*) FROM scopes WHERE project_id = $1`, prjID))

	// Boundaries are accepted: 200-character name, 5000-character description, equal dates.
	sc := scNew(e, u, prj, map[string]any{"name": strings.Repeat("n", 200), "description": strings.Repeat("d", 5000),
		"startDate": "2030-01-01T00:00:00Z", "endDate": "2030-01-01T00:00:00Z"})
	path := prj + "/scopes/" + sc["id"].(string)

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
	name, desc, _, start, end, settings := scRow(e, sc["id"].(string))
	require.Equal(t, strings.Repeat("n", 200), name)
	require.Len(t, desc, 5000)
	require.True(t, start.Equal(*end))
	require.Equal(t, map[string]any{}, settings)

	// Moving both dates together is checked on the result, not field by field.
	r := e.do("PATCH", path, u.Token, map[string]any{"startDate": "2030-03-01T00:00:00Z", "endDate": "2030-04-01T00:00:00Z"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "2030-03-01T00:00:00Z", r.M(t)["startDate"])
}

func TestScopeViews(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, _ := e.project(u, "Apollo")
	sc := scNew(e, u, prj, map[string]any{"name": "Phase 1"})
	path := prj + "/scopes/" + sc["id"].(string) + "/views"
	all := []any{"kanban", "list", "calendar", "roadmap", "stats"}

	r := e.do("GET", path, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, map[string]any{"activeView": "kanban", "views": all}, r.M(t))

	for _, v := range []string{"list", "calendar", "roadmap", "stats", "kanban", "roadmap"} {
		r = e.do("PATCH", path, u.Token, map[string]any{"activeView": v})
		requireStatus(t, r, http.StatusOK)
		require.Equal(t, map[string]any{"activeView": v, "views": all}, r.M(t))
		_, _, view, _, _, _ := scRow(e, sc["id"].(string))
		require.Equal(t, v, view)
	}
	r = e.do("GET", path, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "roadmap", r.M(t)["activeView"])
	r = e.do("GET", prj+"/scopes", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "roadmap", r.L(t)[0]["activeView"])

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
	_, _, view, _, _, _ := scRow(e, sc["id"].(string))
	require.Equal(t, "roadmap", view)
}

func TestScopeDeleteRemovesItsCards(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Apollo")
	doomed := scNew(e, u, prj, map[string]any{"name": "Doomed"})
	kept := scNew(e, u, prj, map[string]any{"name": "Kept"})

	newCard := func(title string, scopeID any) string {
		r := e.do("POST", prj+"/columns/"+cols[0]+"/cards", u.Token, map[string]any{"title": title, "scopeId": scopeID,
			"checklist": []map[string]any{{"title": "step"}}})
		requireStatus(t, r, http.StatusCreated)
		require.Equal(t, scopeID, r.M(t)["scopeId"])
		return r.M(t)["id"].(string)
	}
	d1, d2 := newCard("in doomed 1", doomed["id"]), newCard("in doomed 2", doomed["id"])
	k1 := newCard("in kept", kept["id"])
	free := newCard("no scope", nil)
	// Content hanging off the doomed cards: a comment and a relation to a surviving card.
	_, err := e.pool.Exec(context.Background(), `INSERT INTO comments (id, card_id, author_id, content) VALUES (gen_random_uuid(), $1, $2, 'hi')`, d1, u.ID)
	require.NoError(t, err)
	_, err = e.pool.Exec(context.Background(), `INSERT INTO card_relations (id, project_id, card_id, target_card_id, type, created_by)
		SELECT gen_random_uuid(), project_id, $1, $2, 'blocks', $3 FROM cards WHERE id = $1`, free, d2, u.ID)
	require.NoError(t, err)

	r := e.do("DELETE", prj+"/scopes/"+doomed["id"].(string), u.Token, nil)
	requireStatus(t, r, http.StatusOK)

	require.Equal(t, 0, e.count(`SELECT count(*) FROM cards WHERE id = ANY($1::uuid[])`, []string{d1, d2}))
	require.Equal(t, 2, e.count(`SELECT count(*) FROM cards WHERE id = ANY($1::uuid[])`, []string{k1, free}))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM checklist_items WHERE card_id = ANY($1::uuid[])`, []string{d1, d2}))
	require.Equal(t, 2, e.count(`SELECT count(*) FROM checklist_items WHERE card_id = ANY($1::uuid[])`, []string{k1, free}))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, d1))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM card_relations WHERE card_id = $1`, free))
	requireStatus(t, e.do("GET", prj+"/cards/"+d1, u.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", prj+"/scopes/"+kept["id"].(string), u.Token, nil), http.StatusOK)

	r = e.do("GET", prj+"/cards", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	var titles []string
	for _, c := range r.L(t) {
		titles = append(titles, c["title"].(string))
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
	check(prjB + "/scopes/" + scA["id"].(string))
	// A scope that does not exist, and an id that is not one.
	check(prjA + "/scopes/01900000-0000-7000-8000-000000000000")
	check(prjA + "/scopes/not-a-uuid")
	// Bob's scope through Ann's project.
	check(prjA + "/scopes/" + scBob["id"].(string))
	// Bob's project through Ann's workspace: the project is not found.
	annWS := "/orgs/" + ann.OrgSlug + "/workspaces/" + ann.WsSlug
	check(annWS + "/projects/" + bobPrjID + "/scopes/" + scBob["id"].(string))
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
	require.Equal(t, 1, e.count(`SELECT count(*) FROM scopes WHERE id = $1 AND name = 'A1' AND active_view = 'kanban'`, scA["id"]))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM scopes WHERE id = $1 AND name = 'Bob 1' AND active_view = 'kanban'`, scBob["id"]))
	require.Equal(t, 2, e.count(`SELECT count(*) FROM scopes`))
}

func TestScopesPersonalAccessTokenScopes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, _ := e.project(u, "Apollo")
	sc := scNew(e, u, prj, map[string]any{"name": "Phase 1"})
	path := prj + "/scopes/" + sc["id"].(string)
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

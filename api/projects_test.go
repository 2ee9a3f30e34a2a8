package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/stretchr/testify/require"
)

func TestProjectCRUDAndTemplates(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	ws := "/orgs/" + u.OrgSlug + "/workspaces/" + u.WsSlug

	r := e.do("GET", ws+"/projects/templates", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ids := map[string]bool{}
	for _, tm := range decode[[]board.Template](t, r) {
		ids[tm.ID] = true
	}
	require.True(t, ids["basic-kanban"] && ids["scrum"] && ids["product-launch"], "templates: %s", r.Body)

	r = e.do("POST", ws+"/projects", u.Token, map[string]any{"name": "Sprint", "templateId": "scrum",
		"deadline": "2027-01-31T00:00:00Z", "description": "Q1"})
	requireStatus(t, r, http.StatusCreated)
	p := decode[ProjectOut](t, r)
	prj := ws + "/projects/" + p.ID
	require.Equal(t, "Q1", p.Description)
	r = e.do("GET", prj+"/columns", u.Token, nil)
	columns := decode[[]ColumnOut](t, r)
	require.Len(t, columns, 5)
	require.Equal(t, "Backlog", columns[0].Name)
	require.Equal(t, 3, e.count(`SELECT count(*) FROM labels WHERE project_id = $1`, p.ID))

	requireStatus(t, e.do("POST", ws+"/projects", u.Token, map[string]any{"name": "X", "templateId": "nope"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", ws+"/projects", u.Token, map[string]any{"name": ""}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", ws+"/projects", u.Token, map[string]any{"name": "   "}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", ws+"/projects", u.Token, map[string]any{}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", ws+"/projects", u.Token, map[string]any{"name": "x", "deadline": "soon"}),
		http.StatusBadRequest)

	r = e.do("GET", ws+"/projects", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]ProjectOut](t, r), 1)

	r = e.do("PATCH", prj, u.Token, map[string]any{"name": "Sprint 1"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Sprint 1", decode[ProjectOut](t, r).Name)
	require.NotNil(t, decode[ProjectOut](t, r).Deadline)
	r = e.do("PATCH", prj, u.Token, map[string]any{"deadline": nil})
	requireStatus(t, r, http.StatusOK)
	require.Nil(t, decode[ProjectOut](t, r).Deadline)
	require.Equal(t, "Sprint 1", decode[ProjectOut](t, r).Name)
	requireStatus(t, e.do("PATCH", prj, u.Token, map[string]any{"name": ""}), http.StatusBadRequest)
	r = e.do("GET", prj, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Sprint 1", decode[ProjectOut](t, r).Name)
}

func TestProjectIsolationAcrossWorkspaces(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	prj, cols := e.project(ann, "Secret")
	card := e.card(ann, prj, cols[0], "Hidden")
	pid := prj[strings.LastIndex(prj, "/")+1:]

	// Bob, outside Ann's organization, sees nothing of it.
	for _, path := range []string{prj, prj + "/cards", prj + "/columns", prj + "/cards/" + card.ID} {
		r := e.do("GET", path, bob.Token, nil)
		requireStatus(t, r, http.StatusNotFound)
		require.NotContains(t, string(r.Body), "Hidden")
	}
	// Ann's project id under Bob's own workspace is not found either.
	bobPrj := "/orgs/" + bob.OrgSlug + "/workspaces/" + bob.WsSlug + "/projects/" + pid
	requireStatus(t, e.do("GET", bobPrj, bob.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", bobPrj+"/cards", bob.Token, nil), http.StatusNotFound)
	// A card of another project in the same workspace is 404 under this one.
	other, otherCols := e.project(ann, "Other")
	requireStatus(t, e.do("GET", other+"/cards/"+card.ID, ann.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", other+"/cards/"+card.ID, ann.Token, map[string]any{"title": "x"}), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", other+"/cards/"+card.ID, ann.Token, nil), http.StatusNotFound)
	// A column of another project: 404 in the path, 400 as a move target.
	requireStatus(t, e.do("POST", prj+"/columns/"+otherCols[0]+"/cards", ann.Token, map[string]any{"title": "x"}),
		http.StatusNotFound)
	requireStatus(t, e.do("PATCH", prj+"/columns/"+otherCols[0], ann.Token, map[string]any{"name": "x"}),
		http.StatusNotFound)
	requireStatus(t, e.do("PATCH", prj+"/cards/"+card.ID, ann.Token, map[string]any{"columnId": otherCols[0]}),
		http.StatusBadRequest)
	// Malformed ids are simply not found.
	requireStatus(t, e.do("GET", prj+"/cards/not-a-uuid", ann.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/orgs/"+ann.OrgSlug+"/workspaces/"+ann.WsSlug+"/projects/123", ann.Token, nil),
		http.StatusNotFound)
}

func TestColumnsCRUDAndOrder(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Board")
	r := e.do("POST", prj+"/columns", u.Token, map[string]any{"name": "Blocked"})
	requireStatus(t, r, http.StatusCreated)
	blocked := decode[ColumnOut](t, r)
	require.Equal(t, int32(3), blocked.Order)
	requireStatus(t, e.do("POST", prj+"/columns", u.Token, map[string]any{"name": ""}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", prj+"/columns", u.Token, map[string]any{"name": strings.Repeat("x", 101)}),
		http.StatusBadRequest)

	r = e.do("PATCH", prj+"/columns/"+blocked.ID, u.Token, map[string]any{"order": 1, "name": "Blocked!"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, int32(1), decode[ColumnOut](t, r).Order)
	requireStatus(t, e.do("PATCH", prj+"/columns/"+blocked.ID, u.Token, map[string]any{"order": -1}),
		http.StatusBadRequest)
	r = e.do("GET", prj+"/columns", u.Token, nil)
	var names []string
	for i, c := range decode[[]ColumnOut](t, r) {
		require.Equal(t, int32(i), c.Order)
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"To Do", "Blocked!", "In Progress", "Done"}, names)

	e.card(u, prj, cols[0], "goes with its column")
	r = e.do("DELETE", prj+"/columns/"+cols[0], u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[OKBody](t, r).OK)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM cards WHERE column_id = $1`, cols[0]))
	r = e.do("GET", prj+"/columns", u.Token, nil)
	left := decode[[]ColumnOut](t, r)
	require.Len(t, left, 3)
	require.Equal(t, int32(0), left[0].Order)
	requireStatus(t, e.do("DELETE", prj+"/columns/"+cols[0], u.Token, nil), http.StatusNotFound)
}

func TestCardValidationLimits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Limits")
	col := prj + "/columns/" + cols[0] + "/cards"
	items := func(n int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"title": "item", "done": i%2 == 0}
		}
		return out
	}
	cases := []struct {
		name string
		body map[string]any
		code int
	}{
		{"title missing", map[string]any{}, 400},
		{"title empty", map[string]any{"title": ""}, 400},
		{"title blank", map[string]any{"title": "  "}, 400},
		{"title 500", map[string]any{"title": strings.Repeat("t", 500)}, 201},
		{"title 501", map[string]any{"title": strings.Repeat("t", 501)}, 400},
		{"description 5000", map[string]any{"title": "d", "description": strings.Repeat("d", 5000)}, 201},
		{"description 5001", map[string]any{"title": "d", "description": strings.Repeat("d", 5001)}, 400},
		{"priority bad", map[string]any{"title": "p", "priority": "urgent"}, 400},
		{"dueDate bad", map[string]any{"title": "p", "dueDate": "tomorrow"}, 400},
		{"checklist 100", map[string]any{"title": "c", "checklist": items(100)}, 201},
		{"checklist 101", map[string]any{"title": "c", "checklist": items(101)}, 400},
		{"checklist item without title", map[string]any{"title": "c", "checklist": []map[string]any{{"done": true}}}, 400},
		{"assignee not a member", map[string]any{"title": "a", "assigneeId": "00000000-0000-0000-0000-000000000001"}, 400},
		{"assignee not a uuid", map[string]any{"title": "a", "assigneeId": "bob"}, 400},
		{"scope not of project", map[string]any{"title": "a", "scopeId": "00000000-0000-0000-0000-000000000001"}, 400},
	}
	for _, tc := range cases {
		r := e.do("POST", col, u.Token, tc.body)
		requireStatus(t, r, tc.code)
		if tc.name == "checklist 100" {
			c := decode[CardOut](t, r)
			require.Len(t, cardChecklist(t, c), 100)
			require.Equal(t, int32(50), c.ChecklistProgress)
		}
	}
	// The project-level endpoint takes the first column.
	r := e.do("POST", prj+"/cards", u.Token, map[string]any{"title": "top", "priority": "high",
		"dueDate": "2027-03-01T10:00:00Z"})
	requireStatus(t, r, http.StatusCreated)
	require.Equal(t, cols[0], decode[CardOut](t, r).ColumnID)
	require.EqualValues(t, "high", decode[CardOut](t, r).Priority)
}

func TestCardPatchAndNullClears(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Patch")
	r := e.do("POST", prj+"/columns/"+cols[0]+"/cards", u.Token, map[string]any{"title": "T", "description": "D",
		"dueDate": "2027-01-01T00:00:00Z", "startDate": "2026-12-01T00:00:00Z", "assigneeId": u.ID})
	requireStatus(t, r, http.StatusCreated)
	path := prj + "/cards/" + decode[CardOut](t, r).ID

	r = e.do("PATCH", path, u.Token, map[string]any{"dueDate": nil, "assigneeId": nil, "priority": "low"})
	requireStatus(t, r, http.StatusOK)
	c := decode[CardOut](t, r)
	require.Nil(t, c.DueDate)
	require.Nil(t, c.AssigneeID)
	require.NotNil(t, c.StartDate) // untouched
	require.EqualValues(t, "low", c.Priority)
	require.Equal(t, "D", c.Description)

	r = e.do("PATCH", path, u.Token, map[string]any{"archived": true})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[CardOut](t, r).Archived)
	require.Len(t, decode[[]CardOut](t, e.do("GET", prj+"/cards?archived=true", u.Token, nil)), 1)
	require.Len(t, decode[[]CardOut](t, e.do("GET", prj+"/cards?archived=false", u.Token, nil)), 0)
	require.Len(t, decode[[]CardOut](t, e.do("GET", prj+"/cards", u.Token, nil)), 1)
	requireStatus(t, e.do("GET", prj+"/cards?archived=maybe", u.Token, nil), http.StatusBadRequest)

	for _, bad := range []map[string]any{{"title": ""}, {"title": strings.Repeat("x", 501)}, {"priority": "x"},
		{"description": strings.Repeat("x", 5001)}, {"order": -1}, {"dueDate": 5}, {"assigneeId": "nobody"},
		{"columnId": "x"}} {
		requireStatus(t, e.do("PATCH", path, u.Token, bad), http.StatusBadRequest)
	}
	types := func() []string {
		rows, err := e.pool.Query(t.Context(),
			`SELECT type FROM activities WHERE card_id IS NOT NULL ORDER BY created_at, type`)
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		return out
	}
	require.Equal(t, []string{"card_created", "card_assigned", "card_updated", "card_archived"}, types())

	r = e.do("DELETE", path, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[OKBody](t, r).OK)
	requireStatus(t, e.do("GET", path, u.Token, nil), http.StatusNotFound)
	require.Equal(t, "card_deleted", types()[4])
}

func TestProjectMembers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.register("owner@example.com")
	member := e.register("member@example.com")
	stranger := e.register("stranger@example.com")
	e.join(owner, member, owner.OrgSlug, owner.WsSlug, "member")
	prj, _ := e.project(owner, "Team")

	r := e.do("GET", prj+"/members", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]ProjectMemberOut](t, r), 1)
	requireStatus(t, e.do("POST", prj+"/members", owner.Token, map[string]any{"email": stranger.Email}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", prj+"/members", owner.Token, map[string]any{"email": "not-an-email"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", prj+"/members", owner.Token, map[string]any{"email": member.Email}), http.StatusCreated)
	requireStatus(t, e.do("POST", prj+"/members", owner.Token, map[string]any{"email": member.Email}), http.StatusConflict)
	require.Len(t, decode[[]ProjectMemberOut](t, e.do("GET", prj+"/members", owner.Token, nil)), 2)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM activities WHERE type = 'member_added'`))
	// The stranger is outside the workspace entirely.
	requireStatus(t, e.do("GET", prj+"/members", stranger.Token, nil), http.StatusNotFound)

	requireStatus(t, e.do("DELETE", prj+"/members/"+member.ID, owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", prj+"/members/"+member.ID, owner.Token, nil), http.StatusNotFound)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM activities WHERE type = 'member_removed'`))
	require.Len(t, decode[[]ProjectMemberOut](t, e.do("GET", prj+"/members", owner.Token, nil)), 1)
}

func TestProjectScopesOfTokens(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Scoped")
	read := e.pat(u, []string{"projects:read"})
	requireStatus(t, e.do("GET", prj+"/cards", read, nil), http.StatusOK)
	requireStatus(t, e.do("POST", prj+"/columns/"+cols[0]+"/cards", read, map[string]any{"title": "x"}),
		http.StatusForbidden)
	write := e.pat(u, []string{"projects:write"})
	requireStatus(t, e.do("POST", prj+"/columns/"+cols[0]+"/cards", write, map[string]any{"title": "x"}),
		http.StatusCreated)
	requireStatus(t, e.do("GET", prj+"/cards", write, nil), http.StatusForbidden)
}

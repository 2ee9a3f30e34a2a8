package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/pilotage"
	"github.com/pilot-dev/pilot/db/transfer"
)

// pfWS is u's personal workspace path.
func pfWS(u user) string { return "/orgs/" + u.OrgSlug + "/workspaces/" + u.WsSlug }

// pfID is the last segment of a path.
func pfID(path string) string { return path[strings.LastIndex(path, "/")+1:] }

// pfCard creates a card in a column with the given extra fields and returns its id.
func pfCard(e *testEnv, u user, prj, col string, body map[string]any) string {
	e.t.Helper()
	r := e.do("POST", prj+"/columns/"+col+"/cards", u.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	return decode[CardOut](e.t, r).ID
}

// pfProject creates a project with a template and optional deadline and returns its path and columns.
func pfProject(e *testEnv, u user, name, template string, deadline *time.Time) (string, []string) {
	e.t.Helper()
	body := map[string]any{"name": name, "templateId": template}
	if deadline != nil {
		body["deadline"] = deadline.UTC().Format(time.RFC3339Nano)
	}
	r := e.do("POST", pfWS(u)+"/projects", u.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	prj := pfWS(u) + "/projects/" + decode[ProjectOut](e.t, r).ID
	cols := e.do("GET", prj+"/columns", u.Token, nil)
	requireStatus(e.t, cols, http.StatusOK)
	ids := []string{}
	for _, c := range decode[[]ColumnOut](e.t, cols) {
		ids = append(ids, c.ID)
	}
	return prj, ids
}

// pfProjectCount counts the projects of the database.
func pfProjectCount(e *testEnv) int { return e.count(`SELECT count(*) FROM projects`) }

func TestPortfolioNumbers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	now := time.Now()
	yesterday := now.Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	tomorrow := now.Add(24 * time.Hour).UTC().Format(time.RFC3339)

	alphaDeadline := now.Add(10*24*time.Hour + time.Hour)
	alpha, ac := pfProject(e, ann, "Alpha", "basic-kanban", &alphaDeadline)
	require.Len(t, ac, 3)
	pfCard(e, ann, alpha, ac[0], map[string]any{"title": "a1", "priority": "low", "dueDate": yesterday})
	pfCard(e, ann, alpha, ac[2], map[string]any{"title": "a2", "priority": "high", "dueDate": yesterday})
	pfCard(e, ann, alpha, ac[1], map[string]any{"title": "a3", "priority": "medium", "dueDate": tomorrow,
		"checklist": []map[string]any{{"title": "x", "done": true}, {"title": "y", "done": true}, {"title": "z"}}})
	a4 := pfCard(e, ann, alpha, ac[0], map[string]any{"title": "a4 archived", "priority": "high", "dueDate": yesterday,
		"checklist": []map[string]any{{"title": "x", "done": true}, {"title": "y"}}})
	requireStatus(t, e.do("PATCH", alpha+"/cards/"+a4, ann.Token, map[string]any{"archived": true}), http.StatusOK)
	pfCard(e, ann, alpha, ac[1], map[string]any{"title": "a5"})

	betaDeadline := now.Add(-time.Hour)
	beta, bc := pfProject(e, ann, "Beta", "basic-kanban", &betaDeadline)
	pfCard(e, ann, beta, bc[0], map[string]any{"title": "b1", "dueDate": yesterday})
	pfProject(e, ann, "Gamma", "empty", nil)
	// Bob's project is in another workspace: never in Ann's portfolio.
	bobPrj, bobCols := pfProject(e, bob, "Bob's", "basic-kanban", nil)
	pfCard(e, bob, bobPrj, bobCols[0], map[string]any{"title": "bob's card", "dueDate": yesterday})

	r := e.do("GET", pfWS(ann)+"/projects/portfolio", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	got := decode[[]PortfolioProjectOut](t, r)
	require.Len(t, got, 3)
	// Deadlines are checked here, then left out of the comparison below.
	for i := range got {
		p := &got[i]
		switch p.Name {
		case "Alpha":
			require.NotNil(t, p.Deadline)
			require.WithinDuration(t, alphaDeadline, *p.Deadline, time.Second)
		case "Beta":
			require.NotNil(t, p.Deadline)
		default:
			require.Nil(t, p.Deadline)
		}
		p.Deadline = nil
	}
	// kanban is the cardsByColumn of a basic-kanban project holding these counts.
	kanban := func(cols []string, todo, inProgress, done int) []PortfolioColumnOut {
		return []PortfolioColumnOut{
			{ColumnID: cols[0], Name: "To Do", Count: todo},
			{ColumnID: cols[1], Name: "In Progress", Count: inProgress},
			{ColumnID: cols[2], Name: "Done", Count: done},
		}
	}
	require.Equal(t, []PortfolioProjectOut{
		{ProjectID: pfID(alpha), Name: "Alpha", DaysLeft: new(10), CardCount: 4,
			CardsByColumn:   kanban(ac, 1, 2, 1),
			CardsByPriority: PortfolioPriorityOut{Low: 1, Medium: 2, High: 1},
			Overdue:         1,
			Checklist:       PortfolioChecklistSummary{Done: 2, Total: 3, Percent: 66}},
		{ProjectID: pfID(beta), Name: "Beta", DaysLeft: new(-1), CardCount: 1,
			CardsByColumn:   kanban(bc, 1, 0, 0),
			CardsByPriority: PortfolioPriorityOut{Low: 0, Medium: 1, High: 0},
			Overdue:         1,
			Checklist:       PortfolioChecklistSummary{Done: 0, Total: 0, Percent: 0}},
		{ProjectID: got[2].ProjectID, Name: "Gamma", DaysLeft: nil, CardCount: 0,
			CardsByColumn:   []PortfolioColumnOut{},
			CardsByPriority: PortfolioPriorityOut{Low: 0, Medium: 0, High: 0},
			Overdue:         0,
			Checklist:       PortfolioChecklistSummary{Done: 0, Total: 0, Percent: 0}},
	}, got)

	// Moving the overdue card into the last column takes it off the overdue count.
	cards := e.do("GET", beta+"/cards", ann.Token, nil)
	requireStatus(t, cards, http.StatusOK)
	requireStatus(t, e.do("PATCH", beta+"/cards/"+decode[[]CardOut](t, cards)[0].ID, ann.Token,
		map[string]any{"columnId": bc[2]}), http.StatusOK)
	r = e.do("GET", pfWS(ann)+"/projects/portfolio", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, 0, decode[[]PortfolioProjectOut](t, r)[1].Overdue)

	// Bob sees only his own.
	r = e.do("GET", pfWS(bob)+"/projects/portfolio", bob.Token, nil)
	requireStatus(t, r, http.StatusOK)
	bobs := decode[[]PortfolioProjectOut](t, r)
	require.Len(t, bobs, 1)
	require.Equal(t, 1, bobs[0].Overdue)
	// Ann cannot read Bob's workspace portfolio.
	requireStatus(t, e.do("GET", pfWS(bob)+"/projects/portfolio", ann.Token, nil), http.StatusNotFound)

	// An archived project leaves the portfolio (the work in progress) until it is restored.
	requireStatus(t, e.do("POST", beta+"/archive", ann.Token, nil), http.StatusOK)
	r = e.do("GET", pfWS(ann)+"/projects/portfolio", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	names := func(ps []PortfolioProjectOut) (out []string) {
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	require.Equal(t, []string{"Alpha", "Gamma"}, names(decode[[]PortfolioProjectOut](t, r)))
	requireStatus(t, e.do("POST", beta+"/unarchive", ann.Token, nil), http.StatusOK)
	r = e.do("GET", pfWS(ann)+"/projects/portfolio", ann.Token, nil)
	require.Equal(t, []string{"Alpha", "Beta", "Gamma"}, names(decode[[]PortfolioProjectOut](t, r)))
}

func TestDaysUntil(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 10, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at   time.Time
		want int
	}{
		{now.Add(10*24*time.Hour + time.Minute), 10},
		{now.Add(10 * 24 * time.Hour), 10},
		{now.Add(23 * time.Hour), 0},
		{now, 0},
		{now.Add(-time.Minute), -1},
		{now.Add(-24 * time.Hour), -1},
		{now.Add(-25 * time.Hour), -2},
	} {
		require.Equal(t, c.want, pilotage.DaysUntil(now, c.at), "deadline %s", c.at)
	}
}

func TestRoadmap(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Apollo")

	// An empty project has an empty roadmap.
	r := e.do("GET", prj+"/roadmap", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, RoadmapOut{ProjectID: pfID(prj), Start: nil, End: nil, Scopes: []RoadmapScopeOut{},
		Unscoped: []RoadmapCardOut{}}, decode[RoadmapOut](t, r))

	s1 := scNew(e, u, prj, map[string]any{"name": "S1", "startDate": "2030-03-01T00:00:00Z",
		"endDate": "2030-03-31T00:00:00Z"})
	s2 := scNew(e, u, prj, map[string]any{"name": "S2 undated"})
	s0 := scNew(e, u, prj, map[string]any{"name": "S0", "startDate": "2030-01-01T00:00:00Z"})

	card := func(title, col string, scope *string, fields map[string]any) string {
		body := map[string]any{"title": title, "scopeId": scope}
		for k, v := range fields {
			body[k] = v
		}
		return pfCard(e, u, prj, col, body)
	}
	c1 := card("c1", cols[0], &s1.ID, map[string]any{"startDate": "2030-03-10T00:00:00Z",
		"dueDate": "2030-03-20T00:00:00Z", "priority": "high"})
	c2 := card("c2", cols[1], &s1.ID, map[string]any{"dueDate": "2030-03-05T00:00:00Z", "priority": "low"})
	card("c3 undated", cols[0], &s1.ID, nil)
	c4 := card("c4 archived", cols[0], &s1.ID, map[string]any{"startDate": "2020-03-01T00:00:00Z"})
	requireStatus(t, e.do("PATCH", prj+"/cards/"+c4, u.Token, map[string]any{"archived": true}), http.StatusOK)
	c5 := card("c5", cols[2], &s2.ID, map[string]any{"dueDate": "2030-04-01T00:00:00Z"})
	u1 := card("u1", cols[0], nil, map[string]any{"dueDate": "2029-12-15T00:00:00Z"})
	u2 := card("u2", cols[0], nil, map[string]any{"startDate": "2030-06-01T00:00:00Z"})
	u3 := card("u3", cols[1], nil, map[string]any{"dueDate": "2030-05-01T00:00:00Z"})
	card("u4 undated", cols[1], nil, nil)

	// at is the time an RFC 3339 string names; decode requires the body's dates to be these times' own
	// encoding, so comparing times compares the strings the answer holds.
	at := func(s string) *time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return &v
	}
	item := func(id, title, col, start, due, prio string) RoadmapCardOut {
		c := RoadmapCardOut{ID: id, Title: title, ColumnID: col, Priority: board.Priority(prio), Archived: false}
		if start != "" {
			c.StartDate = at(start)
		}
		if due != "" {
			c.DueDate = at(due)
		}
		return c
	}
	r = e.do("GET", prj+"/roadmap", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	want := RoadmapOut{
		ProjectID: pfID(prj),
		Start:     at("2029-12-15T00:00:00Z"),
		End:       at("2030-06-01T00:00:00Z"),
		Scopes: []RoadmapScopeOut{
			{ID: s0.ID, Name: "S0", StartDate: at("2030-01-01T00:00:00Z"), EndDate: nil, Cards: []RoadmapCardOut{}},
			{ID: s1.ID, Name: "S1", StartDate: at("2030-03-01T00:00:00Z"), EndDate: at("2030-03-31T00:00:00Z"),
				Cards: []RoadmapCardOut{
					item(c2, "c2", cols[1], "", "2030-03-05T00:00:00Z", "low"),
					item(c1, "c1", cols[0], "2030-03-10T00:00:00Z", "2030-03-20T00:00:00Z", "high"),
				}},
			{ID: s2.ID, Name: "S2 undated", StartDate: nil, EndDate: nil, Cards: []RoadmapCardOut{
				item(c5, "c5", cols[2], "", "2030-04-01T00:00:00Z", "medium"),
			}},
		},
		Unscoped: []RoadmapCardOut{
			item(u1, "u1", cols[0], "", "2029-12-15T00:00:00Z", "medium"),
			item(u3, "u3", cols[1], "", "2030-05-01T00:00:00Z", "medium"),
			item(u2, "u2", cols[0], "2030-06-01T00:00:00Z", "", "medium"),
		},
	}
	require.Equal(t, want, decode[RoadmapOut](t, r))

	// Another project's roadmap path with this project's scope is still scoped to the path's project.
	other, _ := e.project(u, "Other")
	r = e.do("GET", other+"/roadmap", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, []RoadmapScopeOut{}, decode[RoadmapOut](t, r).Scopes)
}

func TestPortfolioRoadmapExportImportUseConstantQueries(t *testing.T) {
	t.Parallel()
	e, l := setupLogged(t)
	u := e.register("ann@example.com")
	prj, cols := pfProject(e, u, "Small", "basic-kanban", nil)
	pfCard(e, u, prj, cols[0], map[string]any{"title": "one", "dueDate": "2030-01-01T00:00:00Z"})

	portfolio := func() int {
		return len(l.during(e, "GET", pfWS(u)+"/projects/portfolio", u.Token, nil, http.StatusOK))
	}
	roadmap := func() int { return len(l.during(e, "GET", prj+"/roadmap", u.Token, nil, http.StatusOK)) }
	export := func() int { return len(l.during(e, "GET", prj+"/export", u.Token, nil, http.StatusOK)) }
	small := [3]int{portfolio(), roadmap(), export()}

	// Grow: more projects, and the measured project gets scopes, many dated cards with checklists,
	// labels, values, comments and relations.
	for i := range 6 {
		p, c := pfProject(e, u, fmt.Sprintf("P%d", i), "scrum", nil)
		for j := range 4 {
			pfCard(e, u, p, c[j%len(c)], map[string]any{"title": fmt.Sprintf("c%d", j), "dueDate": "2020-01-01T00:00:00Z",
				"checklist": []map[string]any{{"title": "a", "done": true}, {"title": "b"}}})
		}
	}
	sc := scNew(e, u, prj, map[string]any{"name": "S", "startDate": "2030-01-01T00:00:00Z"})
	for j := range 25 {
		pfCard(e, u, prj, cols[j%3], map[string]any{"title": fmt.Sprintf("card %d", j), "scopeId": sc.ID,
			"startDate": "2030-02-01T00:00:00Z", "checklist": []map[string]any{{"title": "a"}}})
	}
	pfDecorate(t, e, u, pfID(prj))
	large := [3]int{portfolio(), roadmap(), export()}
	require.Equal(t, small, large, "portfolio, roadmap and export must not issue more statements for larger data")
	require.Greater(t, e.count(`SELECT count(*) FROM cards`), 40)

	// Import: a two-card document and a 300-card one cost the same number of statements.
	doc := func(n int) map[string]any {
		cards := make([]map[string]any, n)
		for i := range cards {
			cards[i] = map[string]any{"title": fmt.Sprintf("c%d", i), "columnIndex": i % 2, "labels": []string{"L"},
				"checklist": []map[string]any{{"title": "x"}, {"title": "y", "done": true}},
				"comments":  []map[string]any{{"content": "hello"}}, "customFields": map[string]any{"Points": i}}
		}
		rels := []map[string]any{}
		for i := 1; i < n; i++ {
			rels = append(rels, map[string]any{"cardIndex": 0, "targetCardIndex": i, "type": "blocks"})
		}
		return map[string]any{"project": map[string]any{"name": "Imported"},
			"columns": []map[string]any{{"name": "A"}, {"name": "B"}}, "labels": []map[string]any{{"name": "L",
				"color": "#112233"}}, "customFields": []map[string]any{{"name": "Points", "type": "number"}},
			"scopes": []map[string]any{{"name": "S"}}, "cards": cards, "relations": rels}
	}
	one := len(l.during(e, "POST", pfWS(u)+"/projects/import", u.Token, doc(2), http.StatusCreated))
	many := len(l.during(e, "POST", pfWS(u)+"/projects/import", u.Token, doc(300), http.StatusCreated))
	require.Equal(t, one, many, "import must not issue more statements for more cards")
	require.Equal(t, 302,
		e.count(`SELECT count(*) FROM cards c JOIN projects p ON p.id = c.project_id WHERE p.name = 'Imported'`))
}

// pfDecorate gives a project's cards labels, custom values, comments and relations, straight in the
// database: labels, custom fields, relations and comments have their own endpoints, tested elsewhere.
func pfDecorate(t *testing.T, e *testEnv, u user, projectID string) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO labels (id, project_id, name, color) VALUES
			(gen_random_uuid(), $1, 'Bug', '#d73a4a'), (gen_random_uuid(), $1, 'Feature', '#0e8a16')`,
		`INSERT INTO custom_fields (id, project_id, name, type, options, created_at) VALUES
			(gen_random_uuid(), $1, 'Estimate', 'number', '{}', now()),
			(gen_random_uuid(), $1, 'Stage', 'select', '{alpha,beta}', now() + interval '1 second'),
			(gen_random_uuid(), $1, 'Tags', 'multi-select', '{x,y,z}', now() + interval '2 seconds'),
			(gen_random_uuid(), $1, 'Due', 'date', '{}', now() + interval '3 seconds'),
			(gen_random_uuid(), $1, 'Flag', 'boolean', '{}', now() + interval '4 seconds'),
			(gen_random_uuid(), $1, 'Note', 'text', '{}', now() + interval '5 seconds')`,
		// Every card gets the Bug label; cards with a checklist also get Feature.
		`INSERT INTO card_labels (card_id, label_id)
			SELECT c.id, l.id FROM cards c JOIN labels l ON l.project_id = c.project_id
			WHERE c.project_id = $1 AND (l.name = 'Bug' OR EXISTS (SELECT 1 FROM checklist_items i WHERE i.card_id = c.id))`,
		`INSERT INTO card_custom_values (card_id, field_id, value)
			SELECT c.id, f.id, CASE f.name WHEN 'Estimate' THEN '3.5'::jsonb WHEN 'Stage' THEN '"beta"'
				WHEN 'Tags' THEN '["z","x"]' WHEN 'Due' THEN '"2030-05-06"' WHEN 'Flag' THEN 'true'
				ELSE to_jsonb('note on ' || c.title) END
			FROM cards c JOIN custom_fields f ON f.project_id = c.project_id WHERE c.project_id = $1`,
		`INSERT INTO comments (id, card_id, author_id, content, created_at)
			SELECT gen_random_uuid(), c.id, $2::uuid, 'first on ' || c.title, now() - interval '2 hours'
				FROM cards c WHERE c.project_id = $1
			UNION ALL
			SELECT gen_random_uuid(), c.id, $2::uuid, 'second on ' || c.title, now() - interval '1 hour'
				FROM cards c WHERE c.project_id = $1`,
		`UPDATE cards SET comment_count = 2 WHERE project_id = $1`,
		// Each card blocks the one created after it.
		`INSERT INTO card_relations (id, project_id, card_id, target_card_id, type, created_by)
			SELECT gen_random_uuid(), $1, id, nxt, 'blocks', $2::uuid FROM (
				SELECT id, lead(id) OVER (ORDER BY created_at, id) AS nxt FROM cards WHERE project_id = $1) s
			WHERE nxt IS NOT NULL`,
	} {
		args := []any{projectID}
		if strings.Contains(q, "$2") {
			args = append(args, u.ID)
		}
		_, err := e.pool.Exec(ctx, q, args...)
		require.NoError(t, err, q)
	}
}

// pfStrip decodes an export, clears what legitimately differs between two exports of equal projects
// (when each was taken, when each comment was written) and answers the rest as JSON, for JSONEq.
func pfStrip(t *testing.T, body []byte) string {
	t.Helper()
	doc := decodeJSON[transfer.TransferDoc](t, body)
	doc.ExportedAt = nil
	for i := range doc.Cards {
		for j := range doc.Cards[i].Comments {
			doc.Cards[i].Comments[j].CreatedAt = nil
		}
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	return string(b)
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	deadline := time.Date(2030, 12, 24, 18, 30, 0, 0, time.UTC)
	prj, cols := pfProject(e, u, "Apollo", "basic-kanban", &deadline)
	requireStatus(t, e.do("PATCH", prj, u.Token, map[string]any{"description": "To the moon"}), http.StatusOK)
	r := e.do("POST", prj+"/columns", u.Token, map[string]any{"name": "Shipped"})
	requireStatus(t, r, http.StatusCreated)
	cols = append(cols, decode[ColumnOut](t, r).ID)
	// Reorder: Shipped goes second.
	requireStatus(t, e.do("PATCH", prj+"/columns/"+cols[3], u.Token, map[string]any{"order": 1}), http.StatusOK)

	s1 := scNew(e, u, prj, map[string]any{"name": "Phase 1", "description": "first", "startDate": "2030-01-01T00:00:00Z",
		"endDate": "2030-03-01T00:00:00Z", "settings": map[string]any{"color": "teal", "limits": map[string]any{"wip": 3}}})
	requireStatus(t, e.do("PATCH", prj+"/scopes/"+s1.ID+"/views", u.Token, map[string]any{"activeView": "calendar"}),
		http.StatusOK)
	scNew(e, u, prj, map[string]any{"name": "Phase 2"})

	c1 := pfCard(e, u, prj, cols[0], map[string]any{"title": "Design", "description": "Draw it", "priority": "high",
		"startDate": "2030-01-02T09:00:00Z", "dueDate": "2030-01-10T17:00:00Z", "scopeId": s1.ID,
		"checklist": []map[string]any{{"title": "sketch", "done": true}, {"title": "review"}, {"title": "sign-off",
			"done": true}}})
	pfCard(e, u, prj, cols[0], map[string]any{"title": "Build", "priority": "low"})
	c3 := pfCard(e, u, prj, cols[0], map[string]any{"title": "Test"})
	requireStatus(t, e.do("PATCH", prj+"/cards/"+c3, u.Token, map[string]any{"order": 0}), http.StatusOK)
	pfCard(e, u, prj, cols[1], map[string]any{"title": "Old", "checklist": []map[string]any{{"title": "only"}}})
	c5 := pfCard(e, u, prj, cols[2], map[string]any{"title": "Gone", "dueDate": "2029-01-01T00:00:00Z"})
	requireStatus(t, e.do("PATCH", prj+"/cards/"+c5, u.Token, map[string]any{"archived": true}), http.StatusOK)
	pfCard(e, u, prj, cols[3], map[string]any{"title": "Released", "scopeId": s1.ID})
	pfDecorate(t, e, u, pfID(prj))
	_ = c1

	r = e.do("GET", prj+"/export", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	first := r.Body
	doc := decode[transfer.TransferDoc](t, r)

	// Spot checks of the snapshot itself. decode requires the body's dates to be these times' own
	// encoding, so comparing times compares the strings the snapshot holds.
	require.Equal(t, 1, doc.Version)
	require.NotEmpty(t, doc.ExportedAt)
	require.Equal(t, transfer.TransferProject{Name: "Apollo", Description: "To the moon", Deadline: new(time.Date(2030, 12,
		24, 18, 30, 0, 0, time.UTC))}, doc.Project)
	require.Equal(t, []transfer.TransferColumn{
		{Name: "To Do", Order: new(0)}, {Name: "Shipped", Order: new(1)},
		{Name: "In Progress", Order: new(2)}, {Name: "Done", Order: new(3)},
	}, doc.Columns)
	require.Equal(t, []transfer.TransferLabel{{Name: "Bug", Color: "#d73a4a"}, {Name: "Feature", Color: "#0e8a16"}},
		doc.Labels)
	require.Len(t, doc.CustomFields, 6)
	require.Equal(t, transfer.TransferCustomField{Name: "Stage", Type: "select", Options: []string{"alpha", "beta"}},
		doc.CustomFields[1])
	phase1 := doc.Scopes[0]
	require.JSONEq(t, `{"color": "teal", "limits": {"wip": 3}}`, string(phase1.Settings))
	phase1.Settings = nil // compared above as JSON, whatever its spacing
	require.Equal(t, transfer.TransferScope{Name: "Phase 1", Description: "first", StartDate: new(time.Date(2030, 1, 1, 0,
		0, 0, 0, time.UTC)), EndDate: new(time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC)), ActiveView: "calendar"}, phase1)
	cards := doc.Cards
	require.Len(t, cards, 6)
	var titles []string
	for _, c := range cards {
		titles = append(titles, c.Title)
	}
	require.Equal(t, []string{"Test", "Design", "Build", "Released", "Old", "Gone"}, titles)
	design := cards[1]
	require.Equal(t, 0, design.ColumnIndex)
	require.Equal(t, new(1), design.Order)
	require.Equal(t, new(0), design.ScopeIndex)
	require.EqualValues(t, "high", design.Priority)
	require.Equal(t, "Draw it", design.Description)
	require.Equal(t, new(time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)), design.StartDate)
	require.Equal(t, []transfer.TransferChecklistItem{
		{Title: "sketch", Done: true, Order: new(0)},
		{Title: "review", Done: false, Order: new(1)},
		{Title: "sign-off", Done: true, Order: new(2)},
	}, design.Checklist)
	require.Equal(t, []string{"Bug", "Feature"}, design.Labels)
	values, err := json.Marshal(design.CustomFields) // raw values by field name, compared as JSON
	require.NoError(t, err)
	require.JSONEq(t, `{"Estimate": 3.5, "Stage": "beta", "Tags": ["z", "x"], "Due": "2030-05-06", "Flag": true,
		"Note": "note on Design"}`, string(values))
	comments := design.Comments
	require.Len(t, comments, 2)
	require.Equal(t, "ann@example.com", comments[0].AuthorEmail)
	require.Equal(t, "first on Design", comments[0].Content)
	require.Equal(t, "second on Design", comments[1].Content)
	require.Nil(t, cards[0].ScopeIndex)
	require.Equal(t, 2, cards[4].ColumnIndex) // Old, in In Progress, now third
	gone := cards[5]
	require.Equal(t, true, gone.Archived)
	require.Equal(t, 3, gone.ColumnIndex)
	require.Len(t, doc.Relations, 5)
	for _, rel := range doc.Relations {
		require.Equal(t, "blocks", rel.Type)
		require.NotEqual(t, rel.CardIndex, rel.TargetCardIndex)
	}

	// Import it back: a new project, and its export equals the first but for ids and times.
	before := pfProjectCount(e)
	r = e.send(req{Method: "POST", Path: pfWS(u) + "/projects/import", Token: u.Token, Body: first})
	requireStatus(t, r, http.StatusCreated)
	imported := decode[ProjectOut](t, r)
	require.NotEqual(t, pfID(prj), imported.ID)
	require.Equal(t, "Apollo", imported.Name)
	require.Equal(t, "To the moon", imported.Description)
	require.Equal(t, new(time.Date(2030, 12, 24, 18, 30, 0, 0, time.UTC)), imported.Deadline)
	require.Equal(t, before+1, pfProjectCount(e))
	newPrj := pfWS(u) + "/projects/" + imported.ID

	r = e.do("GET", newPrj+"/export", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.JSONEq(t, pfStrip(t, first), pfStrip(t, r.Body))

	// The imported project is a real one: no template columns, counts kept, the importer is a member,
	// and a new card lands at the end of its column.
	newID := imported.ID
	require.Equal(t, 4, e.count(`SELECT count(*) FROM columns WHERE project_id = $1`, newID))
	require.Equal(t, 2, e.count(`SELECT count(*) FROM labels WHERE project_id = $1`, newID))
	require.Equal(t, 6, e.count(`SELECT count(*) FROM cards WHERE project_id = $1 AND comment_count = 2`, newID))
	require.Equal(t, 12,
		e.count(`SELECT count(*) FROM comments cm JOIN cards c ON c.id = cm.card_id
			WHERE c.project_id = $1 AND cm.author_id = $2`, newID, u.ID))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`, newID,
		u.ID))
	r = e.do("GET", newPrj+"/columns", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	firstCol := decode[[]ColumnOut](t, r)[0].ID
	pfCard(e, u, newPrj, firstCol, map[string]any{"title": "Afterwards"})
	require.Equal(t, []string{"Test", "Design", "Build", "Afterwards"}, e.columnTitles(u, newPrj, firstCol))
	r = e.do("GET", newPrj+"/cards/"+pfCardID(t, e, u, newPrj, "Design"), u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, int32(66), decode[CardOut](t, r).ChecklistProgress)
	require.Equal(t, int32(2), decode[CardOut](t, r).CommentCount)
}

// pfCardID finds a card of a project by title.
func pfCardID(t *testing.T, e *testEnv, u user, prj, title string) string {
	t.Helper()
	r := e.do("GET", prj+"/cards", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	for _, c := range decode[[]CardOut](t, r) {
		if c.Title == title {
			return c.ID
		}
	}
	t.Fatalf("no card %q", title)
	return ""
}

func TestImportMinimalDocument(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	r := e.do("POST", pfWS(u)+"/projects/import", u.Token, map[string]any{
		"project": map[string]any{"name": "Mini"},
		"columns": []map[string]any{{"name": "Later", "order": 1}, {"name": "Now", "order": 0}},
		"cards": []map[string]any{
			{"title": "b", "columnIndex": 0, "priority": "high", "order": 1},
			{"title": "a", "columnIndex": 1, "priority": "low"},
			{"title": "c", "columnIndex": 0, "priority": "medium", "order": 0},
			{"title": "d", "columnIndex": 1},
		},
	})
	requireStatus(t, r, http.StatusCreated)
	p := decode[ProjectOut](t, r)
	require.Equal(t, "Mini", p.Name)
	require.Equal(t, "", p.Description)
	require.Nil(t, p.Deadline)
	prj := pfWS(u) + "/projects/" + p.ID

	r = e.do("GET", prj+"/columns", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	cols := decode[[]ColumnOut](t, r)
	require.Len(t, cols, 2, "no template columns")
	require.Equal(t, "Now", cols[0].Name)
	require.Equal(t, "Later", cols[1].Name)
	require.Equal(t, []string{"a", "d"}, e.columnTitles(u, prj, cols[0].ID))
	require.Equal(t, []string{"c", "b"}, e.columnTitles(u, prj, cols[1].ID))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM labels WHERE project_id = $1`, p.ID))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM cards WHERE project_id = $1 AND title = 'b' AND priority = 'high'`,
		p.ID))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM cards WHERE project_id = $1 AND title = 'd' AND priority = 'medium'`,
		p.ID))
	// It is listed with the workspace's projects.
	r = e.do("GET", pfWS(u)+"/projects", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	var names []string
	for _, q := range decode[[]ProjectOut](t, r) {
		names = append(names, q.Name)
	}
	require.Contains(t, names, "Mini")
}

// TestImportRecordsActivities: an import records what creating its cards and comments one by one would:
// card_created per card, card_archived per archived card, comment_added per comment, by the importer.
func TestImportRecordsActivities(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Source")
	a := e.card(u, prj, cols[0], "Alpha")
	b := e.card(u, prj, cols[1], "Beta")
	requireStatus(t, e.do("PATCH", prj+"/cards/"+b.ID, u.Token, map[string]any{"archived": true}), http.StatusOK)
	requireStatus(t, e.do("POST", prj+"/cards/"+a.ID+"/comments", u.Token, map[string]any{"content": "First thoughts"}),
		http.StatusCreated)
	r := e.do("GET", prj+"/export", u.Token, nil)
	requireStatus(t, r, http.StatusOK)

	r = e.do("POST", pfWS(u)+"/projects/import", u.Token, json.RawMessage(r.Body))
	requireStatus(t, r, http.StatusCreated)
	imported := decode[ProjectOut](t, r).ID
	rows, err := e.pool.Query(t.Context(), `SELECT a.type, c.title, a.actor_id, a.meta->>'excerpt' FROM activities a
		JOIN cards c ON c.id = a.card_id WHERE a.project_id = $1 ORDER BY a.type, c.title`, imported)
	require.NoError(t, err)
	var got []string
	for rows.Next() {
		var typ, title, actor string
		var excerpt *string
		require.NoError(t, rows.Scan(&typ, &title, &actor, &excerpt))
		require.Equal(t, u.ID, actor)
		line := typ + ":" + title
		if excerpt != nil {
			line += ":" + *excerpt
		}
		got = append(got, line)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"card_archived:Beta", "card_created:Alpha", "card_created:Beta",
		"comment_added:Alpha:First thoughts"}, got)
}

func TestImportLimitsAndValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	path := pfWS(u) + "/projects/import"

	base := func() map[string]any {
		return map[string]any{
			"project": map[string]any{"name": "P"},
			"columns": []any{map[string]any{"name": "A"}, map[string]any{"name": "B"}},
			"labels":  []any{map[string]any{"name": "Bug", "color": "#ff0000"}},
			"customFields": []any{map[string]any{"name": "Size", "type": "select", "options": []any{"S", "M"}},
				map[string]any{"name": "N", "type": "number"}}, "scopes": []any{map[string]any{"name": "S"}},
			"cards": []any{
				map[string]any{"title": "one", "columnIndex": 0, "priority": "low"},
				map[string]any{"title": "two", "columnIndex": 1, "priority": "high"},
			},
		}
	}
	card := func(d map[string]any, i int) map[string]any { return d["cards"].([]any)[i].(map[string]any) }
	many := func(n int, f func(i int) any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}

	cases := map[string]func(d map[string]any){
		"51 columns": func(d map[string]any) {
			d["columns"] = many(51, func(i int) any { return map[string]any{"name": fmt.Sprint("c", i)} })
		},
		"501 cards": func(d map[string]any) {
			d["cards"] = many(501, func(i int) any { return map[string]any{"title": "t", "columnIndex": 0, "priority": "low"} })
		},
		"no project":         func(d map[string]any) { delete(d, "project") },
		"no project name":    func(d map[string]any) { d["project"] = map[string]any{"description": "x"} },
		"blank project name": func(d map[string]any) { d["project"] = map[string]any{"name": "  "} },
		"no columns":         func(d map[string]any) { delete(d, "columns") },
		"no cards":           func(d map[string]any) { delete(d, "cards") },
		"blank column name":  func(d map[string]any) { d["columns"].([]any)[1] = map[string]any{"name": " "} },
		"empty title":        func(d map[string]any) { card(d, 0)["title"] = "" },
		"blank title":        func(d map[string]any) { card(d, 0)["title"] = "   " },
		"title 501":          func(d map[string]any) { card(d, 0)["title"] = strings.Repeat("t", 501) },
		"description 5001":   func(d map[string]any) { card(d, 0)["description"] = strings.Repeat("d", 5001) },
		"checklist 101": func(d map[string]any) {
			card(d, 0)["checklist"] = many(101, func(int) any { return map[string]any{"title": "x"} })
		},
		"blank checklist title": func(d map[string]any) { card(d, 0)["checklist"] = []any{map[string]any{"title": " "}} },
		"columnIndex too big":   func(d map[string]any) { card(d, 1)["columnIndex"] = 2 },
		"columnIndex negative":  func(d map[string]any) { card(d, 1)["columnIndex"] = -1 },
		"no columnIndex":        func(d map[string]any) { delete(card(d, 1), "columnIndex") },
		"bad priority":          func(d map[string]any) { card(d, 0)["priority"] = "urgent" },
		"scopeIndex too big":    func(d map[string]any) { card(d, 0)["scopeIndex"] = 1 },
		"unknown label":         func(d map[string]any) { card(d, 0)["labels"] = []any{"Bug", "Feature"} },
		"unknown custom field":  func(d map[string]any) { card(d, 0)["customFields"] = map[string]any{"Colour": "red"} },
		"select not an option":  func(d map[string]any) { card(d, 0)["customFields"] = map[string]any{"Size": "XL"} },
		"number as string":      func(d map[string]any) { card(d, 0)["customFields"] = map[string]any{"N": "3"} },
		"select without options": func(d map[string]any) {
			d["customFields"] = []any{map[string]any{"name": "Size", "type": "select"}}
		},
		"options on a number field": func(d map[string]any) {
			d["customFields"] = []any{map[string]any{"name": "N", "type": "number", "options": []any{"1"}}}
		},
		"unknown field type": func(d map[string]any) {
			d["customFields"] = []any{map[string]any{"name": "X",
				"type": "money"}}
		}, "duplicate label": func(d map[string]any) {
			d["labels"] = append(d["labels"].([]any), map[string]any{"name": "Bug", "color": "#00ff00"})
		},
		"bad label colour": func(d map[string]any) { d["labels"] = []any{map[string]any{"name": "Bug", "color": "red"}} },
		"duplicate field": func(d map[string]any) {
			d["customFields"] = append(d["customFields"].([]any), map[string]any{"name": "N", "type": "text"})
		},
		"scope end < start": func(d map[string]any) {
			d["scopes"] = []any{map[string]any{"name": "S", "startDate": "2030-02-01T00:00:00Z",
				"endDate": "2030-01-01T00:00:00Z"}}
		},
		"scope bad view": func(d map[string]any) {
			d["scopes"] = []any{map[string]any{"name": "S",
				"activeView": "gantt"}}
		}, "scope settings list": func(d map[string]any) {
			d["scopes"] = []any{map[string]any{"name": "S",
				"settings": []any{1}}}
		}, "comment too long": func(d map[string]any) {
			card(d, 0)["comments"] = []any{map[string]any{"content": strings.Repeat("c", 2001)}}
		},
		"empty comment": func(d map[string]any) { card(d, 0)["comments"] = []any{map[string]any{"content": ""}} },
		"relation index out of range": func(d map[string]any) {
			d["relations"] = []any{map[string]any{"cardIndex": 0, "targetCardIndex": 1, "type": "blocks"},
				map[string]any{"cardIndex": 0, "targetCardIndex": 2, "type": "blocks"}}
		},
		"relation to itself": func(d map[string]any) {
			d["relations"] = []any{map[string]any{"cardIndex": 1, "targetCardIndex": 1, "type": "related_to"}}
		},
		"relation bad type": func(d map[string]any) {
			d["relations"] = []any{map[string]any{"cardIndex": 0, "targetCardIndex": 1, "type": "loves"}}
		},
		"duplicate relation": func(d map[string]any) {
			rel := map[string]any{"cardIndex": 0, "targetCardIndex": 1, "type": "blocks"}
			d["relations"] = []any{rel, rel}
		},
		"unsupported version": func(d map[string]any) { d["version"] = 2 },
		"unknown top field":   func(d map[string]any) { d["extra"] = true },
	}
	before := pfProjectCount(e)
	cardsBefore := e.count(`SELECT count(*) FROM cards`)
	for name, mutate := range cases {
		d := base()
		mutate(d)
		r := e.do("POST", path, u.Token, d)
		require.Equal(t, http.StatusBadRequest, r.Code, "%s: %s", name, r.Body)
		requireErrorShape(t, r, http.StatusBadRequest)
	}
	require.Equal(t, before, pfProjectCount(e), "a refused import creates nothing")
	require.Equal(t, cardsBefore, e.count(`SELECT count(*) FROM cards`))

	// The message names the offending place.
	d := base()
	card(d, 1)["columnIndex"] = 7
	r := e.do("POST", path, u.Token, d)
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "cards[1].columnIndex")

	// The base document itself is fine, with values of every kind.
	d = base()
	card(d, 0)["customFields"] = map[string]any{"Size": "M", "N": 2.5}
	card(d, 0)["labels"] = []any{"Bug"}
	card(d, 0)["scopeIndex"] = 0
	r = e.do("POST", path, u.Token, d)
	requireStatus(t, r, http.StatusCreated)
	require.Equal(t, before+1, pfProjectCount(e))

	// At the limits: 50 columns and 500 cards with long descriptions (a body well over 1 MB).
	d = base()
	d["columns"] = many(50, func(i int) any { return map[string]any{"name": fmt.Sprint("c", i)} })
	d["cards"] = many(500, func(i int) any {
		return map[string]any{"title": strings.Repeat("t", 500), "description": strings.Repeat("d", 5000),
			"columnIndex": i % 50, "priority": "medium", "checklist": many(4,
				func(int) any { return map[string]any{"title": "x"} })}
	})
	card(d, 0)["checklist"] = many(100, func(int) any { return map[string]any{"title": "x"} })
	body, err := json.Marshal(d)
	require.NoError(t, err)
	require.Greater(t, len(body), 2<<20)
	r = e.send(req{Method: "POST", Path: path, Token: u.Token, Body: body})
	requireStatus(t, r, http.StatusCreated)
	id := decode[ProjectOut](t, r).ID
	require.Equal(t, 50, e.count(`SELECT count(*) FROM columns WHERE project_id = $1`, id))
	require.Equal(t, 500, e.count(`SELECT count(*) FROM cards WHERE project_id = $1`, id))
	require.Equal(t, 100+499*4,
		e.count(`SELECT count(*) FROM checklist_items i JOIN cards c ON c.id = i.card_id WHERE c.project_id = $1`, id))
}

func TestImportIsAllOrNothing(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	path := pfWS(u) + "/projects/import"
	doc := map[string]any{
		"project": map[string]any{"name": "Atomic"},
		"columns": []any{map[string]any{"name": "A"}},
		"labels":  []any{map[string]any{"name": "L", "color": "#123456"}},
		"cards": []any{
			map[string]any{"title": "one", "columnIndex": 0, "priority": "low", "labels": []any{"L"},
				"checklist": []any{map[string]any{"title": "x"}}, "comments": []any{map[string]any{"content": "hi"}}},
			map[string]any{"title": "two", "columnIndex": 0, "priority": "low"},
		},
		"relations": []any{map[string]any{"cardIndex": 0, "targetCardIndex": 1, "type": "blocks"}},
	}
	counts := func() []int {
		var out []int
		for _, tbl := range []string{"projects", "project_members", "columns", "labels", "cards", "checklist_items",
			"card_labels", "comments", "card_relations"} {
			out = append(out, e.count(`SELECT count(*) FROM `+tbl))
		}
		return out
	}
	before := counts()

	// An invalid relation index: refused, nothing created.
	bad := map[string]any{}
	for k, v := range doc {
		bad[k] = v
	}
	bad["relations"] = []any{map[string]any{"cardIndex": 0, "targetCardIndex": 5, "type": "blocks"}}
	r := e.do("POST", path, u.Token, bad)
	requireStatus(t, r, http.StatusBadRequest)
	require.Equal(t, before, counts())

	// A failure in the last statement, after the project, columns, cards and the rest were written:
	// everything rolls back.
	ctx := context.Background()
	_, err := e.pool.Exec(ctx, `CREATE FUNCTION pf_fail() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'injected failure'; END $$;
		CREATE TRIGGER pf_fail BEFORE INSERT ON card_relations FOR EACH ROW EXECUTE FUNCTION pf_fail();`)
	require.NoError(t, err)
	r = e.do("POST", path, u.Token, doc)
	requireStatus(t, r, http.StatusInternalServerError)
	require.Equal(t, "internal server error", decode[ErrorBody](t, r).Message)
	require.Equal(t, before, counts())
	require.Equal(t, 0, e.count(`SELECT count(*) FROM projects WHERE name = 'Atomic'`))

	_, err = e.pool.Exec(ctx, `DROP TRIGGER pf_fail ON card_relations`)
	require.NoError(t, err)
	r = e.do("POST", path, u.Token, doc)
	requireStatus(t, r, http.StatusCreated)
	after := counts()
	for i, d := range []int{1, 1, 1, 1, 2, 1, 1, 1, 1} {
		require.Equal(t, before[i]+d, after[i], "table %d", i)
	}
}

func TestPortfolioExportImportAccess(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	prj, cols := e.project(ann, "Apollo")
	pfCard(e, ann, prj, cols[0], map[string]any{"title": "x"})
	bobPrj, _ := e.project(bob, "Bob's")
	read := e.pat(ann, []string{"projects:read"})
	write := e.pat(ann, []string{"projects:write"})
	minimal := map[string]any{"project": map[string]any{"name": "Via PAT"}, "columns": []any{map[string]any{"name": "A"}},
		"cards": []any{map[string]any{"title": "c", "columnIndex": 0, "priority": "low"}}}

	// projects:read can read all three, not import.
	requireStatus(t, e.do("GET", pfWS(ann)+"/projects/portfolio", read, nil), http.StatusOK)
	requireStatus(t, e.do("GET", prj+"/roadmap", read, nil), http.StatusOK)
	r := e.do("GET", prj+"/export", read, nil)
	requireStatus(t, r, http.StatusOK)
	before := pfProjectCount(e)
	requireStatus(t, e.do("POST", pfWS(ann)+"/projects/import", read, minimal), http.StatusForbidden)
	requireStatus(t, e.send(req{Method: "POST", Path: pfWS(ann) + "/projects/import", Token: read, Body: r.Body}),
		http.StatusForbidden)
	require.Equal(t, before, pfProjectCount(e))
	// projects:write may import; projects:write alone may not read.
	requireStatus(t, e.do("POST", pfWS(ann)+"/projects/import", write, minimal), http.StatusCreated)
	requireStatus(t, e.do("GET", prj+"/export", write, nil), http.StatusForbidden)
	// No credentials: 401.
	requireStatus(t, e.do("GET", pfWS(ann)+"/projects/portfolio", "", nil), http.StatusUnauthorized)
	requireStatus(t, e.do("POST", pfWS(ann)+"/projects/import", "", minimal), http.StatusUnauthorized)

	// Bob's project through Ann's workspace, and Bob's workspace itself: 404.
	annPathToBob := pfWS(ann) + "/projects/" + pfID(bobPrj)
	for _, p := range []string{annPathToBob, bobPrj} {
		requireStatus(t, e.do("GET", p+"/roadmap", ann.Token, nil), http.StatusNotFound)
		requireStatus(t, e.do("GET", p+"/export", ann.Token, nil), http.StatusNotFound)
	}
	requireStatus(t, e.do("POST", pfWS(bob)+"/projects/import", ann.Token, minimal), http.StatusNotFound)
	requireStatus(t, e.do("GET", pfWS(ann)+"/projects/not-a-uuid/export", ann.Token, nil), http.StatusNotFound)
	require.Equal(t, before+1, pfProjectCount(e))

	// The static routes beside {projectId} still work.
	requireStatus(t, e.do("GET", pfWS(ann)+"/projects/templates", ann.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", prj, ann.Token, nil), http.StatusOK)
}

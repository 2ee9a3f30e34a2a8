package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/draft"
)

// readyDraft creates a draft through the API and gives it a roadmap as the roadmap job does.
func (e *testEnv) readyDraft(u user) DraftOut {
	e.t.Helper()
	r := e.do("POST", draftsPath(u), u.Token, map[string]any{"name": "Ledger move"})
	requireStatus(e.t, r, http.StatusCreated)
	d := decode[DraftOut](e.t, r)
	ctx := context.Background()
	st, err := e.eng.Drafts.GenerateRoadmap(ctx, d.WorkspaceID, d.ID)
	require.NoError(e.t, err)
	_, err = e.eng.Drafts.FinishRoadmap(ctx, d.ID, st.Draft.Run, draft.DraftRoadmap{Phases: []draft.DraftPhase{
		{Name: "Discovery", Deliverables: []draft.DraftDeliverable{{Title: "Inventory tables"}}},
		{Name: "Migration", Deliverables: []draft.DraftDeliverable{{Title: "Copy data"}, {Title: "Switch reads"}}}}})
	require.NoError(e.t, err)
	return d
}

// A ready draft's roadmap is adjusted (a phase renamed, one added without deliverables, a deliverable
// removed) and executing makes the adjusted project; bad roadmaps are 400 naming the field, a draft without a
// roadmap and an executed one 409, another workspace's 404, all in the error shape.
func TestDraftEditRoadmap(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, _, _ := e.team()
	d := e.readyDraft(owner)
	path := draftsPath(owner) + "/" + d.ID + "/roadmap"
	body := map[string]any{"phases": []map[string]any{
		{"name": "Discovery and audit", "goal": "Know it", "deliverables": []map[string]any{}},
		{"name": "Migration", "deliverables": []map[string]any{{"title": "Copy data", "description": "Nightly"}}},
		{"name": " Launch ", "deliverables": []map[string]any{{"title": "Switch reads"}}},
	}}
	r := e.do("PATCH", path, member.Token, body)
	requireStatus(t, r, http.StatusOK)
	got := decode[DraftOut](t, r)
	require.Equal(t, draft.DraftRoadmapReady, got.Status)
	require.Len(t, got.Roadmap.Phases, 3)
	require.Equal(t, "Launch", got.Roadmap.Phases[2].Name)
	require.Empty(t, got.Roadmap.Phases[0].Deliverables)

	for _, bad := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"phases": []map[string]any{}}, "phases"},
		{map[string]any{"phases": []map[string]any{{"name": "", "deliverables": []map[string]any{}}}}, "name"},
		{map[string]any{"phases": []map[string]any{{"name": "   ", "deliverables": []map[string]any{}}}},
			"phases[0].name: must not be blank"},
		{map[string]any{"phases": []map[string]any{{"name": "A", "deliverables": []map[string]any{
			{"title": strings.Repeat("t", 201)}}}}}, "title"},
	} {
		r := e.do("PATCH", path, owner.Token, bad.body)
		requireErrorShape(t, r, http.StatusBadRequest)
		require.Contains(t, string(r.Body), bad.want)
	}
	other := e.register("stranger@example.com")
	requireErrorShape(t, e.do("PATCH", draftsPath(other)+"/"+d.ID+"/roadmap", other.Token, body), http.StatusNotFound)

	r = e.do("POST", draftsPath(owner)+"/"+d.ID+"/execute", owner.Token, nil)
	requireStatus(t, r, http.StatusCreated)
	ex := decode[DraftExecutionOut](t, r)
	require.Equal(t, 2, e.count(`SELECT count(*) FROM cards WHERE project_id = $1`, ex.Project.ID))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM columns WHERE project_id = $1 AND name = 'Discovery and audit'`,
		ex.Project.ID))
	r = e.do("PATCH", path, owner.Token, body)
	requireErrorShape(t, r, http.StatusConflict)
	require.Contains(t, string(r.Body), "already executed")

	r = e.do("POST", draftsPath(owner), owner.Token, map[string]any{"name": "Not yet"})
	requireStatus(t, r, http.StatusCreated)
	early := decode[DraftOut](t, r)
	requireErrorShape(t, e.do("PATCH", draftsPath(owner)+"/"+early.ID+"/roadmap", owner.Token, body),
		http.StatusConflict)
}

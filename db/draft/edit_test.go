package draft_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
)

// A ready roadmap is edited (a phase renamed and emptied, one added, a deliverable removed, texts trimmed);
// the stream says so with the new roadmap; executing makes the project of the edited roadmap. Invalid
// roadmaps are refused naming where and change nothing; a draft without a roadmap, one generating and an
// executed one are conflicts; another workspace's draft is not found.
func TestEditRoadmap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	edit := func(id string, r draft.DraftRoadmap) (draft.Draft, error) {
		return e.engine.EditRoadmap(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: id, ActorID: e.team.Owner.User.ID}, r)
	}
	framing := e.newDraft(t, draft.NewDraft{Name: "Early"})
	_, err := edit(framing.ID, roadmap)
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "no roadmap to edit")

	d := e.ready(t, draft.NewDraft{})
	edited := draft.DraftRoadmap{Phases: []draft.DraftPhase{
		{Name: "  Discovery and audit ", Goal: "Know the ledger"},
		{Name: "Migration", Goal: "Move it", Deliverables: []draft.DraftDeliverable{{Title: " Copy data "}}},
		{Name: "Launch", Deliverables: []draft.DraftDeliverable{{Title: "Switch reads", Description: "Then writes"}}},
	}}
	got, err := edit(d.ID, edited)
	require.NoError(t, err)
	require.Equal(t, draft.DraftRoadmapReady, got.Status)
	require.Equal(t, "Discovery and audit", got.Roadmap.Phases[0].Name)
	require.Empty(t, got.Roadmap.Phases[0].Deliverables)
	require.Equal(t, "Copy data", got.Roadmap.Phases[1].Deliverables[0].Title)
	require.Len(t, got.Roadmap.Phases, 3)
	msg, _ := e.LastEvent(t, d.ID)
	require.Equal(t, "roadmap edited: 3 phases, 2 deliverables", msg)
	again, err := e.engine.Get(ctx, e.ws(), d.ID)
	require.NoError(t, err)
	require.Equal(t, got.Roadmap, again.Roadmap)

	for _, bad := range []struct {
		r    draft.DraftRoadmap
		want string
	}{
		{draft.DraftRoadmap{}, "at least one phase"},
		{draft.DraftRoadmap{Phases: []draft.DraftPhase{{Name: " "}}}, "phases[0].name: must not be blank"},
		{draft.DraftRoadmap{Phases: []draft.DraftPhase{{Name: "A"}, {Name: "B",
			Deliverables: []draft.DraftDeliverable{{Title: "ok"}, {Title: ""}}}}}, "phases[1].deliverables[1].title"},
		{draft.DraftRoadmap{Phases: []draft.DraftPhase{{Name: strings.Repeat("n", 101)}}}, "at most 100 characters"},
		{draft.DraftRoadmap{Phases: make([]draft.DraftPhase, 21)}, "phases: at most 20"},
	} {
		_, err := edit(d.ID, bad.r)
		require.ErrorIs(t, err, db.ErrInvalid, bad.want)
		require.ErrorContains(t, err, bad.want)
	}
	_, err = e.engine.EditRoadmap(ctx, db.RecordEdit{WorkspaceID: e.team.Member.Workspace.ID, ID: d.ID,
		ActorID: e.team.Member.User.ID}, edited)
	require.ErrorIs(t, err, db.ErrNotFound)
	again, err = e.engine.Get(ctx, e.ws(), d.ID)
	require.NoError(t, err)
	require.Equal(t, got.Roadmap, again.Roadmap, "refused edits change nothing")

	ex, err := e.engine.Execute(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: d.ID, ActorID: e.team.Owner.User.ID})
	require.NoError(t, err)
	cols, err := e.Board.Columns(ctx, ex.Project.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"Discovery and audit", "Migration", "Launch"}, []string{cols[0].Name, cols[1].Name,
		cols[2].Name})
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, ex.Project.ID))
	_, err = edit(d.ID, edited)
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "already executed")

	gen := e.newDraft(t, draft.NewDraft{Name: "Generating"})
	_, err = e.engine.GenerateRoadmap(ctx, e.ws(), gen.ID)
	require.NoError(t, err)
	_, err = edit(gen.ID, edited)
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "roadmap job is already running")
}

package draft_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/document"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// env is a team on a fresh database with the drafts engine.
type env struct {
	testfactory.Bundle
	engine *draft.Engine
	team   testfactory.Team
}

func setup(t *testing.T) *env {
	t.Helper()
	b := testfactory.Store(t)
	return &env{Bundle: *b, engine: b.Drafts, team: testfactory.NewTeam(t, b.Engines)}
}

func (e *env) ws() string { return e.team.Owner.Workspace.ID }

// newDraft creates a draft of the team's workspace as its owner.
func (e *env) newDraft(t *testing.T, in draft.NewDraft) draft.Draft {
	t.Helper()
	in.WorkspaceID, in.ActorID = e.ws(), e.team.Owner.User.ID
	if in.Name == "" {
		in.Name = "Ledger migration"
	}
	d, err := e.engine.Create(context.Background(), in)
	require.NoError(t, err)
	return d
}

var roadmap = draft.DraftRoadmap{Phases: []draft.DraftPhase{
	{Name: "Discovery", Goal: "Know the ledger", Deliverables: []draft.DraftDeliverable{{Title: "Inventory tables",
		Description: "All of them"}}}, {Name: "Migration", Goal: "Move it",
		Deliverables: []draft.DraftDeliverable{{Title: "Copy data"}, {Title: "Switch reads"}}},
}}

// ready makes a draft with a roadmap, through the roadmap job's calls.
func (e *env) ready(t *testing.T, in draft.NewDraft) draft.Draft {
	t.Helper()
	ctx := context.Background()
	d := e.newDraft(t, in)
	st, err := e.engine.GenerateRoadmap(ctx, e.ws(), d.ID)
	require.NoError(t, err)
	d, err = e.engine.FinishRoadmap(ctx, d.ID, st.Draft.Run, roadmap)
	require.NoError(t, err)
	require.Equal(t, draft.DraftRoadmapReady, d.Status)
	return d
}

// A draft starts in framing; a context document naming a document is a snapshot of its title and text
// taken at creation; one of another workspace is not found and nothing is created.
func TestCreateDraft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	doc := testfactory.Document(t, e.Engines, e.team.Owner,
		&testfactory.DocumentOpts{Title: testfactory.Ptr("Ledger notes"),
			Content: testfactory.Ptr(
				`{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"Three phases"}]}]}`),
			In: document.NewDocument{ContentFormat: "tiptap_json"}})
	theirs := testfactory.Document(t, e.Engines, e.team.Member, nil)

	d := e.newDraft(t, draft.NewDraft{Description: "Move the ledger", ContextDocuments: []draft.DraftDocument{
		{Title: "Inline", Content: "typed in"}, {DocumentID: doc.ID}}, TeamMembers: []draft.DraftMember{{Name: "Ann",
		Role: "lead"}}})
	require.Equal(t, draft.DraftFraming, d.Status)
	require.Equal(t, int32(0), d.Run)
	require.Equal(t, e.team.Owner.User.ID, d.CreatedBy)
	require.Equal(t, []draft.DraftDocument{{Title: "Inline", Content: "typed in"}, {DocumentID: doc.ID,
		Title: "Ledger notes", Content: "Three phases"}}, d.ContextDocuments)
	require.Empty(t, d.Questions)
	require.Nil(t, d.Roadmap)

	// A later edit of the document leaves the snapshot as it was.
	_, err := e.Documents.UpdateDocument(ctx, e.ws(), doc.ID, document.DocumentPatch{Title: testfactory.Ptr("Renamed")})
	require.NoError(t, err)
	got, err := e.engine.Get(ctx, e.ws(), d.ID)
	require.NoError(t, err)
	require.Equal(t, "Ledger notes", got.ContextDocuments[1].Title)

	_, err = e.engine.Create(ctx, draft.NewDraft{WorkspaceID: e.ws(), ActorID: e.team.Owner.User.ID, Name: "x",
		ContextDocuments: []draft.DraftDocument{{Title: "ok", Content: "ok"}, {DocumentID: theirs.ID}}})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "contextDocuments[1].documentId")
	list, err := e.engine.List(ctx, e.ws(), db.Page{Limit: 50})
	require.NoError(t, err)
	require.Len(t, list.Items, 1, "the refused draft was not created")
}

// Drafts are read, listed and deleted within their workspace.
func TestDraftTenancy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	d := e.newDraft(t, draft.NewDraft{})
	other := e.team.Member.Workspace.ID
	_, err := e.engine.Get(ctx, other, d.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	list, err := e.engine.List(ctx, other, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Empty(t, list.Items)
	_, err = e.engine.Refine(ctx, other, d.ID, nil)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.GenerateRoadmap(ctx, other, d.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.Execute(ctx, db.RecordEdit{WorkspaceID: other, ID: d.ID, ActorID: e.team.Member.User.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorIs(t, e.engine.Delete(ctx, other, d.ID), db.ErrNotFound)
	got, err := e.engine.Get(ctx, e.ws(), d.ID)
	require.NoError(t, err)
	require.Equal(t, draft.DraftFraming, got.Status, "refused calls change nothing")
	require.Empty(t, e.Jobs(t, jobs.DraftRefineArgs{}.Kind()))
	require.Empty(t, e.Jobs(t, jobs.DraftRoadmapArgs{}.Kind()))
}

// A refinement round queues its job with the draft's next run and a status event; while it runs
// another is a conflict; its result is written once, by its own run; answers must answer the draft's
// pending questions, each once, or nothing is written.
func TestRefine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	d := e.newDraft(t, draft.NewDraft{})

	st, err := e.engine.Refine(ctx, e.ws(), d.ID, nil)
	require.NoError(t, err)
	require.True(t, st.Enqueued)
	require.Equal(t, draft.DraftRefining, st.Draft.Status)
	require.Equal(t, int32(1), st.Draft.Run)
	js := e.Jobs(t, jobs.DraftRefineArgs{}.Kind())
	require.Len(t, js, 1)
	require.Equal(t, jobs.QueueDrafts, js[0].Queue)
	require.Equal(t, draft.DraftMaxAttempts, js[0].MaxAttempts)
	require.Equal(t, map[string]any{"draftId": d.ID, "run": float64(1)}, js[0].Args)
	require.Equal(t, []string{"status:refining"}, e.Events(t, d.ID))

	_, err = e.engine.Refine(ctx, e.ws(), d.ID, nil)
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "refinement job is already running")
	_, err = e.engine.GenerateRoadmap(ctx, e.ws(), d.ID)
	require.ErrorIs(t, err, db.ErrConflict)

	// The job: it reads the draft for its run only, then writes its questions once.
	_, proceed, err := e.engine.ForJob(ctx, d.ID, 1, draft.DraftRefining)
	require.NoError(t, err)
	require.True(t, proceed)
	_, proceed, err = e.engine.ForJob(ctx, d.ID, 2, draft.DraftRefining)
	require.NoError(t, err)
	require.False(t, proceed, "another run's job has nothing to do")
	require.NoError(t, e.engine.AppendEvent(ctx, d.ID, db.NewStreamEvent{Type: draft.DraftEventToken,
		Status: draft.DraftRefining, Message: "thinking"}))
	_, err = e.engine.FinishRefine(ctx, d.ID, 2, []string{"stale?"})
	require.ErrorIs(t, err, draft.ErrDraftStale)
	qs := []string{"Who owns the ledger?", "When must it be done?"}
	got, err := e.engine.FinishRefine(ctx, d.ID, 1, qs)
	require.NoError(t, err)
	require.Equal(t, draft.DraftRefined, got.Status)
	require.Equal(t, qs, got.Questions)
	require.Equal(t, int32(1), got.Rounds)
	_, err = e.engine.FinishRefine(ctx, d.ID, 1, []string{"again?"})
	require.ErrorIs(t, err, draft.ErrDraftStale, "a duplicated job writes nothing")
	require.Equal(t, []string{"status:refining", "token:refining", "done:refined"}, e.Events(t, d.ID))

	for name, answers := range map[string][]draft.DraftAnswer{
		"not asked": {{Question: "What colour?", Answer: "blue"}},
		"answered twice": {{Question: "Who owns the ledger?", Answer: "Ann"}, {Question: "who owns the ledger",
			Answer: "Bob"}},
	} {
		_, err := e.engine.Refine(ctx, e.ws(), d.ID, answers)
		require.ErrorIs(t, err, db.ErrInvalid, name)
	}
	got, err = e.engine.Get(ctx, e.ws(), d.ID)
	require.NoError(t, err)
	require.Equal(t, draft.DraftRefined, got.Status)
	require.Empty(t, got.Answers)
	require.Len(t, e.Jobs(t, jobs.DraftRefineArgs{}.Kind()), 1)

	// Questions match ignoring case and punctuation.
	st, err = e.engine.Refine(ctx, e.ws(), d.ID, []draft.DraftAnswer{{Question: "who owns the ledger", Answer: "Ann"}})
	require.NoError(t, err)
	require.Equal(t, int32(2), st.Draft.Run)
	require.Equal(t, []draft.DraftAnswer{{Question: "who owns the ledger", Answer: "Ann"}}, st.Draft.Answers)
	require.Len(t, e.Jobs(t, jobs.DraftRefineArgs{}.Kind()), 2)
}

// After the last round the answers are recorded and no more questions are asked (no job).
func TestRefineStopsAfterTheLastRound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	d := e.newDraft(t, draft.NewDraft{})
	var answers []draft.DraftAnswer
	for round := 1; round <= draft.DraftMaxRounds; round++ {
		st, err := e.engine.Refine(ctx, e.ws(), d.ID, answers)
		require.NoError(t, err)
		require.True(t, st.Enqueued)
		q := "Question " + string(rune('A'+round))
		_, err = e.engine.FinishRefine(ctx, d.ID, st.Draft.Run, []string{q})
		require.NoError(t, err)
		answers = []draft.DraftAnswer{{Question: q, Answer: "yes"}}
	}
	st, err := e.engine.Refine(ctx, e.ws(), d.ID, answers)
	require.NoError(t, err)
	require.False(t, st.Enqueued)
	require.Equal(t, draft.DraftRefined, st.Draft.Status)
	require.Equal(t, int32(draft.DraftMaxRounds), st.Draft.Rounds)
	require.Len(t, st.Draft.Answers, draft.DraftMaxRounds)
	require.Len(t, e.Jobs(t, jobs.DraftRefineArgs{}.Kind()), draft.DraftMaxRounds)
}

// A roadmap is generated by its own run: a new generation supersedes the old run, whose late result is
// not written; a failure is recorded by its run and the draft can be generated again.
func TestGenerateRoadmap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	d := e.newDraft(t, draft.NewDraft{})

	st, err := e.engine.GenerateRoadmap(ctx, e.ws(), d.ID)
	require.NoError(t, err)
	require.Equal(t, draft.DraftGenerating, st.Draft.Status)
	js := e.Jobs(t, jobs.DraftRoadmapArgs{}.Kind())
	require.Len(t, js, 1)
	require.Equal(t, jobs.QueueDrafts, js[0].Queue)
	_, err = e.engine.GenerateRoadmap(ctx, e.ws(), d.ID)
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "roadmap job is already running")

	failed, err := e.engine.Fail(ctx, d.ID, st.Draft.Run, "the model answered nonsense")
	require.NoError(t, err)
	require.Equal(t, draft.DraftFailed, failed.Status)
	require.Equal(t, testfactory.Ptr("the model answered nonsense"), failed.Error)
	_, err = e.engine.Fail(ctx, d.ID, st.Draft.Run, "twice")
	require.ErrorIs(t, err, draft.ErrDraftStale)

	again, err := e.engine.GenerateRoadmap(ctx, e.ws(), d.ID)
	require.NoError(t, err, "a failed draft generates again")
	require.Greater(t, again.Draft.Run, st.Draft.Run)
	_, err = e.engine.FinishRoadmap(ctx, d.ID, st.Draft.Run, roadmap)
	require.ErrorIs(t, err, draft.ErrDraftStale, "the superseded run writes nothing")
	done, err := e.engine.FinishRoadmap(ctx, d.ID, again.Draft.Run, roadmap)
	require.NoError(t, err)
	require.Equal(t, draft.DraftRoadmapReady, done.Status)
	require.Equal(t, &roadmap, done.Roadmap)
	msg, _ := e.LastEvent(t, d.ID)
	require.Equal(t, "roadmap ready: 2 phases, 3 deliverables", msg)

	// A ready roadmap may be generated again; refining it may not.
	_, err = e.engine.Refine(ctx, e.ws(), d.ID, nil)
	require.ErrorIs(t, err, db.ErrConflict)
	_, err = e.engine.GenerateRoadmap(ctx, e.ws(), d.ID)
	require.NoError(t, err)
}

// Executing a ready roadmap makes a project once: a column per phase, a card per deliverable, the team
// members who are workspace members added to it; a second execution is a conflict naming the project,
// and a draft without a roadmap is refused with nothing written.
func TestExecute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	projects := e.Count(t, `SELECT count(*) FROM projects`)
	framing := e.newDraft(t, draft.NewDraft{Name: "Too early"})
	_, err := e.engine.Execute(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: framing.ID, ActorID: e.team.Owner.User.ID})
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "no roadmap")
	require.Equal(t, projects, e.Count(t, `SELECT count(*) FROM projects`))

	d := e.ready(t, draft.NewDraft{Description: "Move it", TeamMembers: []draft.DraftMember{
		{Name: "Member", Email: e.team.Member.User.Email}, {Name: "No mail"}, {Name: "Stranger",
			Email: "stranger@example.com"}}})
	ex, err := e.engine.Execute(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: d.ID, ActorID: e.team.Owner.User.ID})
	require.NoError(t, err)
	require.Equal(t, draft.DraftExecuted, ex.Draft.Status)
	require.Equal(t, &ex.Project.ID, ex.Draft.ProjectID)
	require.NotNil(t, ex.Draft.ExecutedAt)
	require.Equal(t, "Ledger migration", ex.Project.Name)
	require.Equal(t, []string{e.team.Member.User.Email}, ex.MembersAdded)
	require.Equal(t, []string{"No mail", "Stranger"}, ex.MembersSkipped)

	cols, err := e.Board.Columns(ctx, ex.Project.ID)
	require.NoError(t, err)
	require.Len(t, cols, 2)
	require.Equal(t, []string{"Discovery", "Migration"}, []string{cols[0].Name, cols[1].Name})
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM cards WHERE column_id = $1 AND title = 'Inventory tables' AND description = 'All of them'`,
		cols[0].ID))
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM cards WHERE column_id = $1`, cols[1].ID))
	require.Equal(t, 3, e.Count(t,
		`SELECT count(*) FROM activities WHERE project_id = $1 AND type = 'card_created' AND actor_id = $2`, ex.Project.ID,
		e.team.Owner.User.ID), "cards are created as any card is")
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`,
		ex.Project.ID, e.team.Member.User.ID))

	_, err = e.engine.Execute(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: d.ID, ActorID: e.team.Owner.User.ID})
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, ex.Project.ID)
	require.Equal(t, projects+1, e.Count(t, `SELECT count(*) FROM projects`))
	_, err = e.engine.GenerateRoadmap(ctx, e.ws(), d.ID)
	require.ErrorIs(t, err, db.ErrConflict, "an executed draft is done")
}

// Deleting a draft takes its stream; its running job then finds nothing to write; the project an
// executed draft made stays.
func TestDeleteDraft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	d := e.newDraft(t, draft.NewDraft{})
	st, err := e.engine.Refine(ctx, e.ws(), d.ID, nil)
	require.NoError(t, err)
	require.NoError(t, e.engine.Delete(ctx, e.ws(), d.ID))
	_, err = e.engine.Get(ctx, e.ws(), d.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	require.Empty(t, e.Events(t, d.ID))
	_, proceed, err := e.engine.ForJob(ctx, d.ID, st.Draft.Run, draft.DraftRefining)
	require.NoError(t, err)
	require.False(t, proceed)
	require.ErrorIs(t, e.engine.AppendEvent(ctx, d.ID, db.NewStreamEvent{Type: draft.DraftEventToken, Message: "late"}),
		draft.ErrDraftStale)
	_, err = e.engine.FinishRefine(ctx, d.ID, st.Draft.Run, []string{"late?"})
	require.ErrorIs(t, err, draft.ErrDraftStale)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM streams WHERE id = $1`, d.ID), "no stream is made again")
	require.ErrorIs(t, e.engine.Delete(ctx, e.ws(), d.ID), db.ErrNotFound)

	done := e.ready(t, draft.NewDraft{Name: "Kept"})
	ex, err := e.engine.Execute(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: done.ID, ActorID: e.team.Owner.User.ID})
	require.NoError(t, err)
	require.NoError(t, e.engine.Delete(ctx, e.ws(), done.ID))
	_, err = e.Board.Project(ctx, e.ws(), ex.Project.ID)
	require.NoError(t, err)
}

package document_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/document"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// env is a team on a fresh database with the documents engine.
type env struct {
	testfactory.Bundle
	engine *document.Engine
	team   testfactory.Team
}

func setup(t *testing.T) *env {
	t.Helper()
	b := testfactory.Store(t)
	return &env{Bundle: *b, engine: b.Documents, team: testfactory.NewTeam(t, b.Engines)}
}

func (e *env) ws() string { return e.team.Owner.Workspace.ID }

func (e *env) doc(t *testing.T, title string, parent *string) db.Document {
	t.Helper()
	return testfactory.Document(t, e.Engines, e.team.Owner, &testfactory.DocumentOpts{Title: &title,
		In: document.NewDocument{ParentID: parent}})
}

func (e *env) status(t *testing.T, id string) string {
	t.Helper()
	d, err := e.engine.Document(context.Background(), e.ws(), id)
	require.NoError(t, err)
	return d.Status
}

// A document's context and parent must lie in its workspace, its content and metadata must fit their
// format; a refused document is not stored.
func TestCreateDocumentValidates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	theirs := testfactory.Document(t, e.Engines, e.team.Member, nil)
	theirPrj := testfactory.NewProject(t, e.Engines, e.team.Member, nil)
	before := e.Count(t, `SELECT count(*) FROM documents`)
	base := func() document.NewDocument {
		return document.NewDocument{WorkspaceID: e.ws(), AuthorID: e.team.Owner.User.ID, Title: "t", Content: "c",
			ContextType: "workspace", ContextID: e.ws()}
	}
	for name, tc := range map[string]struct {
		mod  func(*document.NewDocument)
		kind error
	}{
		"unknown context type": {func(d *document.NewDocument) { d.ContextType = "galaxy" }, db.ErrInvalid},
		"another workspace": {func(d *document.NewDocument) { d.ContextID = e.team.Member.Workspace.ID },
			db.ErrNotFound}, "another workspace's project": {func(d *document.NewDocument) {
			d.ContextType,
				d.ContextID = "project", theirPrj.ID
		}, db.ErrNotFound}, "another organization": {func(d *document.NewDocument) {
			d.ContextType, d.ContextID = "organization", e.team.Member.Organization.ID
		}, db.ErrNotFound},
		"foreign parent": {func(d *document.NewDocument) { d.ParentID = &theirs.ID }, db.ErrInvalid},
		"tiptap that is no object": {func(d *document.NewDocument) { d.ContentFormat, d.Content = "tiptap_json", "[1,2]" },
			db.ErrInvalid}, "unknown format": {func(d *document.NewDocument) { d.ContentFormat = "rtf" }, db.ErrInvalid},
		"metadata that is no object": {func(d *document.NewDocument) { d.Metadata = json.RawMessage(`[1]`) }, db.ErrInvalid},
	} {
		in := base()
		tc.mod(&in)
		_, err := e.engine.CreateDocument(ctx, in)
		require.ErrorIs(t, err, tc.kind, name)
	}
	require.Equal(t, before, e.Count(t, `SELECT count(*) FROM documents`))

	in := base()
	in.ContextType, in.ContextID = "project", e.team.Project.ID
	d, err := e.engine.CreateDocument(ctx, in)
	require.NoError(t, err)
	require.Equal(t, document.DocDraft, d.Status)
	require.Equal(t, "markdown", d.ContentFormat)
	require.Equal(t, "document", d.DocType)
	require.JSONEq(t, `{}`, string(d.Metadata))
}

// Documents are read, listed, changed and deleted within their workspace only.
func TestDocumentTenancy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	d := e.doc(t, "Mine", nil)
	other := e.team.Member.Workspace.ID
	_, err := e.engine.Document(ctx, other, d.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.UpdateDocument(ctx, other, d.ID, document.DocumentPatch{Title: testfactory.Ptr("stolen")})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorIs(t, e.engine.DeleteDocument(ctx, other, d.ID), db.ErrNotFound)
	_, err = e.engine.SubmitDocument(ctx, db.RecordEdit{WorkspaceID: other, ID: d.ID, ActorID: e.team.Member.User.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	list, err := e.engine.Documents(ctx, document.DocumentFilter{WorkspaceID: other, Page: db.Page{Limit: 10}})
	require.NoError(t, err)
	require.Empty(t, list.Items)
	res, err := e.engine.Search(ctx, other, "Mine", 10)
	require.NoError(t, err)
	require.Empty(t, res)
	got, err := e.engine.Document(ctx, e.ws(), d.ID)
	require.NoError(t, err)
	require.Equal(t, "Mine", got.Title)
	require.Equal(t, document.DocDraft, got.Status)
}

// The tree nests children under parents; a move under the document itself or a descendant is a
// conflict that changes nothing; a delete moves the children up to the deleted document's parent.
func TestDocumentTree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	root := e.doc(t, "Root", nil)
	child := e.doc(t, "Child", &root.ID)
	grand := e.doc(t, "Grandchild", &child.ID)

	tree, err := e.engine.DocumentTree(ctx, e.ws())
	require.NoError(t, err)
	require.Len(t, tree, 1)
	require.Equal(t, root.ID, tree[0].ID)
	require.Equal(t, child.ID, tree[0].Children[0].ID)
	require.Equal(t, grand.ID, tree[0].Children[0].Children[0].ID)

	for _, parent := range []string{root.ID, grand.ID} {
		_, err := e.engine.UpdateDocument(ctx, e.ws(), root.ID, document.DocumentPatch{Parent: db.Opt[string]{Set: true,
			Value: &parent}})
		require.ErrorIs(t, err, db.ErrConflict)
	}
	got, err := e.engine.Document(ctx, e.ws(), root.ID)
	require.NoError(t, err)
	require.Nil(t, got.ParentID)

	roots, err := e.engine.Documents(ctx, document.DocumentFilter{WorkspaceID: e.ws(), RootsOnly: true,
		Page: db.Page{Limit: 10}})
	require.NoError(t, err)
	require.Len(t, roots.Items, 1)
	kids, err := e.engine.Documents(ctx, document.DocumentFilter{WorkspaceID: e.ws(), ParentID: root.ID,
		Page: db.Page{Limit: 10}})
	require.NoError(t, err)
	require.Equal(t, child.ID, kids.Items[0].ID)

	require.NoError(t, e.engine.DeleteDocument(ctx, e.ws(), child.ID))
	got, err = e.engine.Document(ctx, e.ws(), grand.ID)
	require.NoError(t, err)
	require.Equal(t, &root.ID, got.ParentID, "a deleted page's children move up")

	moved, err := e.engine.UpdateDocument(ctx, e.ws(), grand.ID, document.DocumentPatch{Parent: db.Opt[string]{Set: true}})
	require.NoError(t, err)
	require.Nil(t, moved.ParentID, "a nil parent makes a root")
}

// Review: a draft is submitted (its reviewers notified), reviewed once by a verdict (its author
// notified); a pending document cannot be edited; an edit after a verdict returns it to draft.
func TestDocumentReview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	reviewer, _ := testfactory.Member(t, e.Engines, e.team.Owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("reviewer@example.com"), PilotageRole: testfactory.Ptr("reviewer")})
	d := testfactory.Document(t, e.Engines, e.team.Owner, &testfactory.DocumentOpts{Author: &e.team.Member})
	ref := db.RecordEdit{WorkspaceID: e.ws(), ID: d.ID, ActorID: e.team.Member.User.ID}

	_, err := e.engine.ReviewDocument(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: d.ID, ActorID: reviewer.User.ID},
		"approved", "")
	require.ErrorIs(t, err, db.ErrConflict, "a draft is not pending review")

	sub, err := e.engine.SubmitDocument(ctx, ref)
	require.NoError(t, err)
	require.Equal(t, document.DocPendingReview, sub.Status)
	var recipients []string
	require.NoError(t, e.Pool.QueryRow(ctx, `SELECT recipients FROM activities WHERE document_id = $1 AND type = $2`, d.ID,
		db.ActivityDocumentSubmitted).Scan(&recipients))
	slices.Sort(recipients)
	want := []string{e.team.Owner.User.ID, reviewer.User.ID}
	slices.Sort(want)
	require.Equal(t, want, recipients, "the workspace's reviewers and owners, not its viewers")
	_, err = e.engine.SubmitDocument(ctx, ref)
	require.ErrorIs(t, err, db.ErrConflict)
	_, err = e.engine.UpdateDocument(ctx, e.ws(), d.ID, document.DocumentPatch{Title: testfactory.Ptr("sneaky")})
	require.ErrorIs(t, err, db.ErrConflict)

	rev := db.RecordEdit{WorkspaceID: e.ws(), ID: d.ID, ActorID: reviewer.User.ID}
	_, err = e.engine.ReviewDocument(ctx, rev, "meh", "")
	require.ErrorIs(t, err, db.ErrInvalid)
	out, err := e.engine.ReviewDocument(ctx, rev, "changes_requested", "Add numbers")
	require.NoError(t, err)
	require.Equal(t, document.DocChangesRequested, out.Status)
	require.Len(t, out.Reviews, 1)
	require.Equal(t, "Add numbers", out.Reviews[0].Notes)
	require.Equal(t, reviewer.User.ID, out.Reviews[0].ReviewerID)
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM activities WHERE document_id = $1 AND type = $2 AND recipients = ARRAY[$3::uuid]`, d.ID,
		db.ActivityDocumentReviewed, e.team.Member.User.ID))
	_, err = e.engine.ReviewDocument(ctx, rev, "approved", "")
	require.ErrorIs(t, err, db.ErrConflict, "reviewed once")

	_, err = e.engine.UpdateDocument(ctx, e.ws(), d.ID, document.DocumentPatch{})
	require.NoError(t, err)
	require.Equal(t, document.DocChangesRequested, e.status(t, d.ID), "an empty patch is no edit")
	_, err = e.engine.UpdateDocument(ctx, e.ws(), d.ID,
		document.DocumentPatch{Content: testfactory.Ptr("With numbers: 3")})
	require.NoError(t, err)
	require.Equal(t, document.DocDraft, e.status(t, d.ID))
}

// Card links: a document of the workspace is linked to a card once; another workspace's document or
// a card of another project is not found; an unlink of nothing is not found.
func TestCardLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	d := e.doc(t, "Spec", nil)
	theirs := testfactory.Document(t, e.Engines, e.team.Member, nil)
	card := testfactory.Card(t, e.Engines, e.team.Project, nil)
	elsewhere := testfactory.NewProject(t, e.Engines, e.team.Owner,
		&testfactory.ProjectOpts{Name: testfactory.Ptr("Elsewhere")})
	link := document.CardLink{WorkspaceID: e.ws(), ProjectID: e.team.Project.ID, CardID: card.ID, DocumentID: d.ID,
		ActorID: e.team.Owner.User.ID}

	require.NoError(t, e.engine.LinkDocument(ctx, link))
	require.ErrorIs(t, e.engine.LinkDocument(ctx, link), db.ErrConflict)
	foreign := link
	foreign.DocumentID = theirs.ID
	require.ErrorIs(t, e.engine.LinkDocument(ctx, foreign), db.ErrNotFound)
	wrongProject := link
	wrongProject.ProjectID = elsewhere.ID
	require.ErrorIs(t, e.engine.LinkDocument(ctx, wrongProject), db.ErrNotFound)

	docs, err := e.engine.CardDocuments(ctx, e.team.Project.ID, card.ID)
	require.NoError(t, err)
	require.Len(t, docs, 1)
	require.Equal(t, d.ID, docs[0].ID)
	_, err = e.engine.CardDocuments(ctx, elsewhere.ID, card.ID)
	require.ErrorIs(t, err, db.ErrNotFound)

	require.NoError(t, e.engine.UnlinkDocument(ctx, link))
	require.ErrorIs(t, e.engine.UnlinkDocument(ctx, link), db.ErrNotFound)
	docs, err = e.engine.CardDocuments(ctx, e.team.Project.ID, card.ID)
	require.NoError(t, err)
	require.Empty(t, docs)

	// Deleting a linked document takes its links.
	require.NoError(t, e.engine.LinkDocument(ctx, link))
	require.NoError(t, e.engine.DeleteDocument(ctx, e.ws(), d.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM card_documents`))
}

// Search ranks the workspace's documents and cards (a document with its matches marked in a snippet)
// and honours exclusions.
func TestSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	testfactory.Document(t, e.Engines, e.team.Owner, &testfactory.DocumentOpts{Title: testfactory.Ptr("Ledger plan"),
		Content: testfactory.Ptr("The ledger moves in spring")})
	testfactory.Card(t, e.Engines, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Migrate the ledger")})
	testfactory.Document(t, e.Engines, e.team.Member, &testfactory.DocumentOpts{Title: testfactory.Ptr("Their ledger")})

	res, err := e.engine.Search(ctx, e.ws(), "ledger", 10)
	require.NoError(t, err)
	kinds := map[string]string{}
	for _, r := range res {
		kinds[r.Title] = r.Kind
		if r.Kind == "document" {
			require.Contains(t, r.Snippet, "<mark>", r.Title)
		}
	}
	require.Equal(t, map[string]string{"Ledger plan": "document", "Migrate the ledger": "card"}, kinds)
	res, err = e.engine.Search(ctx, e.ws(), "ledger -spring", 10)
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.Equal(t, "Migrate the ledger", res[0].Title)
}

// An author may not approve their own document while someone else may review the workspace's
// documents (ErrForbidden, nothing changed); then another reviewer approves it. The only one who may
// review (the owner of a one-person workspace, or of one whose other members only view) approves their
// own. Asking for changes to one's own document stays allowed.
func TestAuthorApprovesOwnDocumentOnlyWhenAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	owner, member := e.team.Owner, e.team.Member
	d := testfactory.Document(t, e.Engines, owner, nil)
	mine := db.RecordEdit{WorkspaceID: e.ws(), ID: d.ID, ActorID: owner.User.ID}
	_, err := e.engine.SubmitDocument(ctx, mine)
	require.NoError(t, err)

	// The member only views: nobody else may review, so the owner may approve.
	may, err := e.engine.AuthorMayApprove(ctx, e.ws(), owner.User.ID)
	require.NoError(t, err)
	require.True(t, may)

	// The member becomes a reviewer: a second pair of eyes is required.
	_, err = e.Tenancy.UpdateWorkspaceMember(ctx, e.ws(), member.User.ID, nil, testfactory.Ptr("reviewer"))
	require.NoError(t, err)
	may, err = e.engine.AuthorMayApprove(ctx, e.ws(), owner.User.ID)
	require.NoError(t, err)
	require.False(t, may)
	_, err = e.engine.ReviewDocument(ctx, mine, "approved", "")
	require.ErrorIs(t, err, db.ErrForbidden)
	require.Contains(t, err.Error(), "another reviewer")
	require.Equal(t, document.DocPendingReview, e.status(t, d.ID), "a refused approval changes nothing")
	require.Zero(t, e.Count(t, `SELECT count(*) FROM document_reviews WHERE document_id = $1`, d.ID))
	out, err := e.engine.ReviewDocument(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: d.ID, ActorID: member.User.ID},
		"approved", "")
	require.NoError(t, err)
	require.Equal(t, document.DocApproved, out.Status)

	// The author may still ask for changes to their own document.
	d2 := testfactory.Document(t, e.Engines, owner, &testfactory.DocumentOpts{Title: testfactory.Ptr("Second")})
	_, err = e.engine.SubmitDocument(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: d2.ID, ActorID: owner.User.ID})
	require.NoError(t, err)
	_, err = e.engine.ReviewDocument(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: d2.ID, ActorID: owner.User.ID},
		"changes_requested", "")
	require.NoError(t, err)

	// Alone in their personal workspace, the member approves their own document.
	solo := testfactory.Document(t, e.Engines, member, nil)
	ref := db.RecordEdit{WorkspaceID: member.Workspace.ID, ID: solo.ID, ActorID: member.User.ID}
	_, err = e.engine.SubmitDocument(ctx, ref)
	require.NoError(t, err)
	out, err = e.engine.ReviewDocument(ctx, ref, "approved", "")
	require.NoError(t, err)
	require.Equal(t, document.DocApproved, out.Status)
}

// A card is found by its comments too: by a word only a comment has (matched in a comment, the
// comment's snippet), once even when several comments match, and as a content match when its own text
// matches as well; another workspace's comments stay out. Snippets read as text: no markdown syntax.
func TestSearchFindsCardsByComments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	card := testfactory.Card(t, e.Engines, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Ship it"),
		In: board.NewCard{Description: "Plan the **ledger** rollout"}})
	edit := db.CardEdit{ProjectID: e.team.Project.ID, CardID: card.ID, ActorID: e.team.Owner.User.ID}
	for _, c := range []string{"Ask the **auditors** about the ledger", "The auditors said _yes_"} {
		_, err := e.Board.CreateComment(ctx, edit, c)
		require.NoError(t, err)
	}
	theirPrj := testfactory.NewProject(t, e.Engines, e.team.Member, nil)
	theirs := testfactory.Card(t, e.Engines, theirPrj, nil)
	_, err := e.Board.CreateComment(ctx, db.CardEdit{ProjectID: theirPrj.ID, CardID: theirs.ID,
		ActorID: e.team.Member.User.ID}, "auditors everywhere")
	require.NoError(t, err)

	res, err := e.engine.Search(ctx, e.ws(), "auditors", 10)
	require.NoError(t, err)
	require.Len(t, res, 1, "the card once, and nothing of another workspace")
	require.Equal(t, card.ID, res[0].ID)
	require.Equal(t, "card", res[0].Kind)
	require.Equal(t, "comment", res[0].MatchedIn)
	require.Contains(t, res[0].Snippet, "<mark>auditors</mark>")
	require.NotContains(t, res[0].Snippet, "*")
	require.NotContains(t, res[0].Snippet, "_")

	res, err = e.engine.Search(ctx, e.ws(), "ledger", 10)
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.Equal(t, "content", res[0].MatchedIn, "its own text matches too")
	require.Contains(t, res[0].Snippet, "<mark>ledger</mark> rollout")
	require.NotContains(t, res[0].Snippet, "*")
}

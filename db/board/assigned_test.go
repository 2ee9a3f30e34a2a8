package board_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// TestAssignedCards: a person's cards across the workspace's projects, active ones only, in pages, and
// nobody else's nor another workspace's.
func TestAssignedCards(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	member, _ := testfactory.Member(t, b.Engines, b.owner, nil)
	other := testfactory.NewProject(t, b.Engines, b.owner, &testfactory.ProjectOpts{Name: testfactory.Ptr("Tour")})
	mine := func(title string, p testfactory.Project, who string) board.Card {
		return testfactory.Card(t, b.Engines, p, &testfactory.CardOpts{Title: testfactory.Ptr(title),
			In: board.NewCard{AssigneeID: testfactory.Ptr(who)}})
	}
	first := mine("Book the hall", b.project, member.User.ID)
	second := mine("Print posters", other, member.User.ID)
	mine("Owner's own", b.project, b.owner.User.ID)
	testfactory.Card(t, b.Engines, b.project, &testfactory.CardOpts{Title: testfactory.Ptr("Nobody's")})
	archived := mine("Archived", other, member.User.ID)
	_, err := b.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: b.owner.Workspace.ID, ProjectID: other.ID,
		CardID: archived.ID, ActorID: b.owner.User.ID, Patch: board.CardPatch{Archived: testfactory.Ptr(true)}})
	require.NoError(t, err)
	// The member's own workspace: a card assigned to them there is not in the owner's workspace's list.
	elsewhere := testfactory.NewProject(t, b.Engines, member, nil)
	mine("Elsewhere", elsewhere, member.User.ID)

	titles := func(p db.Paged[board.Card]) []string {
		var out []string
		for _, c := range p.Items {
			out = append(out, c.Title)
		}
		return out
	}
	all, err := b.Board.AssignedCards(ctx, b.owner.Workspace.ID, member.User.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Equal(t, []string{"Book the hall", "Print posters"}, titles(all))
	require.Empty(t, all.Next)
	require.Equal(t, []string{first.ProjectID, second.ProjectID}, []string{all.Items[0].ProjectID,
		all.Items[1].ProjectID})

	// One card a page: the cursor leads to the second, the last page has none.
	p1, err := b.Board.AssignedCards(ctx, b.owner.Workspace.ID, member.User.ID, db.Page{Limit: 1})
	require.NoError(t, err)
	require.Equal(t, []string{"Book the hall"}, titles(p1))
	require.NotEmpty(t, p1.Next)
	p2, err := b.Board.AssignedCards(ctx, b.owner.Workspace.ID, member.User.ID, db.Page{Limit: 1, Cursor: p1.Next})
	require.NoError(t, err)
	require.Equal(t, []string{"Print posters"}, titles(p2))
	require.Empty(t, p2.Next)

	// Somebody with nothing assigned has an empty list; a cursor of another list is refused.
	none, err := b.Board.AssignedCards(ctx, elsewhere.WorkspaceID, b.owner.User.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Empty(t, none.Items)
	projects, err := b.Board.ProjectPage(ctx, b.owner.Workspace.ID, nil, db.Page{Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, projects.Next)
	_, err = b.Board.AssignedCards(ctx, b.owner.Workspace.ID, member.User.ID, db.Page{Limit: 1, Cursor: projects.Next})
	require.Error(t, err)
}

package board_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// An archived project keeps its data, leaves the default list for the archived one, shows as archived
// to the guard's access, and comes back when restored; archiving twice or restoring an active project is
// a conflict. Its cards leave their assignees' lists meanwhile.
func TestProjectArchive(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	other := testfactory.NewProject(t, b.Engines, b.owner, nil)
	ws, actor := b.owner.Workspace.ID, b.owner.User.ID
	ids := func(archived *bool) []string {
		t.Helper()
		page, err := b.Board.ProjectPage(ctx, ws, archived, db.Page{Limit: 50})
		require.NoError(t, err)
		var out []string
		for _, p := range page.Items {
			out = append(out, p.ID)
		}
		return out
	}
	yes, no := true, false
	in := b.newCard("Mine")
	in.AssigneeID = &actor
	_, err := b.Board.CreateCard(ctx, in)
	require.NoError(t, err)
	assigned := func() int {
		t.Helper()
		page, err := b.Board.AssignedCards(ctx, ws, actor, db.Page{Limit: 50})
		require.NoError(t, err)
		return len(page.Items)
	}
	require.Equal(t, 1, assigned())

	p, err := b.Board.SetProjectArchived(ctx, board.ProjectArchiving{WorkspaceID: ws, ProjectID: b.project.ID,
		ActorID: actor, Archived: true})
	require.NoError(t, err)
	require.NotNil(t, p.ArchivedAt)
	require.Zero(t, assigned(), "an archived project's cards leave My work")
	require.Equal(t, []string{other.ID}, ids(&no))
	require.Equal(t, []string{b.project.ID}, ids(&yes))
	require.ElementsMatch(t, []string{b.project.ID, other.ID}, ids(nil))
	got, err := b.Board.Project(ctx, ws, b.project.ID)
	require.NoError(t, err)
	require.NotNil(t, got.ArchivedAt)
	acc, err := b.Tenancy.ResolveAccess(ctx, actor, tenancy.Target{OrgSlug: b.owner.Organization.Slug,
		WsSlug: b.owner.Workspace.Slug, ProjectID: b.project.ID})
	require.NoError(t, err)
	require.True(t, acc.ProjectArchived)

	_, err = b.Board.SetProjectArchived(ctx, board.ProjectArchiving{WorkspaceID: ws, ProjectID: b.project.ID,
		ActorID: actor, Archived: true})
	require.ErrorIs(t, err, db.ErrConflict)
	_, err = b.Board.SetProjectArchived(ctx, board.ProjectArchiving{WorkspaceID: ws, ProjectID: other.ID,
		ActorID: actor, Archived: false})
	require.ErrorIs(t, err, db.ErrConflict)
	_, err = b.Board.SetProjectArchived(ctx, board.ProjectArchiving{WorkspaceID: ws, ProjectID: db.NewID(),
		ActorID: actor, Archived: true})
	require.ErrorIs(t, err, db.ErrNotFound)

	p, err = b.Board.SetProjectArchived(ctx, board.ProjectArchiving{WorkspaceID: ws, ProjectID: b.project.ID,
		ActorID: actor, Archived: false})
	require.NoError(t, err)
	require.Nil(t, p.ArchivedAt)
	require.ElementsMatch(t, []string{b.project.ID, other.ID}, ids(&no))
	require.Empty(t, ids(&yes))
	require.Equal(t, 1, assigned())
	acc, err = b.Tenancy.ResolveAccess(ctx, actor, tenancy.Target{OrgSlug: b.owner.Organization.Slug,
		WsSlug: b.owner.Workspace.Slug, ProjectID: b.project.ID})
	require.NoError(t, err)
	require.False(t, acc.ProjectArchived)
}

package tenancy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/tenancy"
)

// A workspace's name and slug change; a slug taken in the organization is a conflict, and a personal
// workspace keeps its slug while it may be renamed.
func TestUpdateWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	org := e.owner.Organization.ID
	ws, err := e.engine.CreateWorkspace(ctx, org, e.owner.User.ID, "Ops", "ops")
	require.NoError(t, err)
	_, err = e.engine.CreateWorkspace(ctx, org, e.owner.User.ID, "Taken", "taken")
	require.NoError(t, err)

	name, slug, taken := "Operations", "operations", "taken"
	_, err = e.engine.UpdateWorkspace(ctx, ws.ID, tenancy.WorkspacePatch{Slug: &taken})
	require.ErrorIs(t, err, db.ErrConflict)
	got, err := e.engine.UpdateWorkspace(ctx, ws.ID, tenancy.WorkspacePatch{Name: &name, Slug: &slug})
	require.NoError(t, err)
	require.Equal(t, "Operations", got.Name)
	require.Equal(t, "operations", got.Slug)

	_, err = e.engine.UpdateWorkspace(ctx, e.owner.Workspace.ID, tenancy.WorkspacePatch{Slug: &slug})
	require.ErrorIs(t, err, db.ErrForbidden)
	got, err = e.engine.UpdateWorkspace(ctx, e.owner.Workspace.ID, tenancy.WorkspacePatch{Name: &name})
	require.NoError(t, err)
	require.Equal(t, "Operations", got.Name)
	require.Equal(t, e.owner.Workspace.Slug, got.Slug)
}

// A workspace goes with everything in it and its pending invitations' e-mails are cancelled; the
// personal workspace is refused and keeps its invitations' e-mails.
func TestDeleteWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	_, personalInv := e.invite(t, "guest@example.com", "member")
	require.ErrorIs(t, e.engine.DeleteWorkspace(ctx, e.owner.Workspace.ID), db.ErrConflict)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'available'`,
		*personalInv.EmailJobID))

	ws, err := e.engine.CreateWorkspace(ctx, e.owner.Organization.ID, e.owner.User.ID, "Ops", "ops")
	require.NoError(t, err)
	p, err := e.Board.CreateProject(ctx, board.NewProject{WorkspaceID: ws.ID, Name: "Doomed", CreatedBy: e.owner.User.ID})
	require.NoError(t, err)
	inv, err := e.engine.InviteToWorkspace(ctx, tenancy.NewInvitation{WorkspaceID: ws.ID, WorkspaceName: "Ops",
		Email: "late@example.com", Role: "member",
		InvitedBy: e.owner.User.ID, InviterName: "Owner", Token: "tok-ops", AcceptURL: "http://pilot.test/accept"})
	require.NoError(t, err)

	require.NoError(t, e.engine.DeleteWorkspace(ctx, ws.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM workspaces WHERE id = $1`, ws.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM projects WHERE id = $1`, p.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'cancelled'`,
		*inv.EmailJobID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'available'`,
		*personalInv.EmailJobID), "another workspace's invitation is left alone")
	require.ErrorIs(t, e.engine.DeleteWorkspace(ctx, ws.ID), db.ErrNotFound)
}

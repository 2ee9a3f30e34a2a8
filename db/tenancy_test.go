package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/jobs"
)

// An invitation and its e-mail job commit together or not at all.
func TestWorkspaceInviteRollbackLeavesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	newInv := func(email string) db.NewInvitation {
		return db.NewInvitation{WorkspaceID: b.owner.Workspace.ID, WorkspaceName: b.owner.Workspace.Name, Email: email, Role: "member",
			InvitedBy: b.owner.User.ID, InviterName: "Owner", Token: "tok-" + email, AcceptURL: "http://pilot.test/invitations/tok/accept"}
	}

	boom := errors.New("boom")
	err := b.store.InTx(ctx, func(tx pgx.Tx) error {
		inv, err := b.store.InviteToWorkspaceTx(ctx, tx, newInv("rolled@example.com"))
		require.NoError(t, err)
		require.NotEmpty(t, inv.ID)
		// Inside the transaction both rows exist.
		rivertest.RequireInsertedTx[*riverpgxv5.Driver](ctx, t, tx, &jobs.SendEmailArgs{}, nil)
		return boom
	})
	require.ErrorIs(t, err, boom)
	b.requireNoJobs(t)
	rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(b.pool), &jobs.SendEmailArgs{}, nil)
	require.Equal(t, 0, b.count(t, "SELECT count(*) FROM workspace_invitations"))

	// The same write committed leaves exactly one of each.
	err = b.store.InTx(ctx, func(tx pgx.Tx) error {
		_, err := b.store.InviteToWorkspaceTx(ctx, tx, newInv("kept@example.com"))
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM workspace_invitations WHERE email = 'kept@example.com'"))
	job := rivertest.RequireInserted(ctx, t, riverpgxv5.New(b.pool), &jobs.SendEmailArgs{}, &rivertest.RequireInsertedOpts{Queue: jobs.QueueEmail})
	require.Equal(t, "kept@example.com", job.Args.To)
}

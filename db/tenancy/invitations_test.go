package tenancy_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// A workspace's pending invitations: listed with their inviter, sent again with a new link (the old one
// stops working, its unsent e-mail is cancelled, the new e-mail is its own in the outbox), withdrawn
// (the link no longer accepts); what the link shows before accepting; another workspace's are not found.
func TestWorkspaceInvitationsPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	wsID := e.owner.Workspace.ID
	guest := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("guest@example.com")})
	stranger := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("stranger@example.com")})

	token, inv := e.invite(t, "guest@example.com", "admin")
	revokeToken, revoked := e.invite(t, "gone@example.com", "member")
	list, err := e.engine.WorkspaceInvitations(ctx, wsID, db.Page{Limit: 1})
	require.NoError(t, err)
	require.Len(t, list.Items, 1, "paged")
	require.NotEmpty(t, list.Next)
	require.Equal(t, inv.ID, list.Items[0].ID)
	require.Equal(t, "admin", list.Items[0].Role)
	require.Equal(t, e.owner.User.Name, list.Items[0].InviterName)
	next, err := e.engine.WorkspaceInvitations(ctx, wsID, db.Page{Limit: 1, Cursor: list.Next})
	require.NoError(t, err)
	require.Equal(t, revoked.ID, next.Items[0].ID)

	pv, err := e.engine.WorkspaceInvitationPreview(ctx, token)
	require.NoError(t, err)
	require.Equal(t, tenancy.InvitationPreview{OrganizationName: e.owner.Organization.Name,
		WorkspaceName: e.owner.Workspace.Name, InviterName: e.owner.User.Name, Role: "admin", ExpiresAt: pv.ExpiresAt}, pv)
	_, err = e.engine.WorkspaceInvitationPreview(ctx, "tok-wrong")
	require.ErrorIs(t, err, db.ErrNotFound)

	// Sent again, expired: a fresh expiry and link, the first e-mail (not gone out) cancelled.
	_, err = e.Pool.Exec(ctx, `UPDATE workspace_invitations SET expires_at = now() - interval '1 hour' WHERE id = $1`,
		inv.ID)
	require.NoError(t, err)
	renewed, err := e.engine.ResendWorkspaceInvitation(ctx, tenancy.InvitationRenewal{ScopeID: wsID,
		InvitationID: inv.ID, Token: "tok-new", AcceptURL: "http://pilot.test/accept/tok-new"})
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(tenancy.InvitationTTL), renewed.ExpiresAt, time.Minute)
	var mails []testfactory.Job
	for _, j := range e.Jobs(t, jobs.SendEmailArgs{}.Kind()) {
		if j.Args["to"] == "guest@example.com" {
			mails = append(mails, j)
		}
	}
	require.Len(t, mails, 2)
	require.Equal(t, "cancelled", mails[0].State)
	require.Equal(t, "available", mails[1].State)
	require.Equal(t, inv.ID, mails[1].Args["invitationId"])
	require.NotEqual(t, inv.ID, mails[1].Args["refId"], "a sending of its own in the outbox")
	require.Contains(t, mails[1].Args["body"], "http://pilot.test/accept/tok-new")
	require.Contains(t, mails[1].Args["body"], e.owner.User.Name)
	_, err = e.engine.WorkspaceInvitationPreview(ctx, token)
	require.ErrorIs(t, err, db.ErrNotFound, "the old link no longer works")
	_, err = e.engine.AcceptInvitation(ctx, token, guest.User)
	require.ErrorIs(t, err, db.ErrNotFound)

	// Withdrawn: its link no longer accepts, and it is gone from the list.
	require.NoError(t, e.engine.RevokeWorkspaceInvitation(ctx, wsID, revoked.ID))
	require.ErrorIs(t, e.engine.RevokeWorkspaceInvitation(ctx, wsID, revoked.ID), db.ErrNotFound)
	_, err = e.engine.WorkspaceInvitationPreview(ctx, revokeToken)
	require.ErrorIs(t, err, db.ErrNotFound)
	for _, j := range e.Jobs(t, jobs.SendEmailArgs{}.Kind()) {
		if j.Args["to"] == "gone@example.com" {
			require.Equal(t, "cancelled", j.State, "its e-mail does not go out")
		}
	}

	// Another workspace's invitation is not found there.
	require.ErrorIs(t, e.engine.RevokeWorkspaceInvitation(ctx, stranger.Workspace.ID, inv.ID), db.ErrNotFound)
	_, err = e.engine.ResendWorkspaceInvitation(ctx, tenancy.InvitationRenewal{ScopeID: stranger.Workspace.ID,
		InvitationID: inv.ID, Token: "tok-x"})
	require.ErrorIs(t, err, db.ErrNotFound)

	// Accepted with the new link: no longer pending, its link says so, it cannot be withdrawn.
	_, err = e.engine.AcceptInvitation(ctx, "tok-new", guest.User)
	require.NoError(t, err)
	pv, err = e.engine.WorkspaceInvitationPreview(ctx, "tok-new")
	require.NoError(t, err)
	require.True(t, pv.Accepted)
	list, err = e.engine.WorkspaceInvitations(ctx, wsID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Empty(t, list.Items)
	require.ErrorIs(t, e.engine.RevokeWorkspaceInvitation(ctx, wsID, inv.ID), db.ErrNotFound)
}

// An organization's pending invitations work as a workspace's.
func TestOrganizationInvitationsPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	org, err := e.engine.CreateOrganization(ctx, e.owner.User.ID, "Acme", "acme")
	require.NoError(t, err)
	guest := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("guest@example.com")})

	token, inv := e.inviteToOrg(t, org, "guest@example.com", "admin")
	gone, revoked := e.inviteToOrg(t, org, "gone@example.com", "member")
	list, err := e.engine.OrganizationInvitations(ctx, org.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Len(t, list.Items, 2)
	require.Equal(t, inv.ID, list.Items[0].ID)

	pv, err := e.engine.OrganizationInvitationPreview(ctx, token)
	require.NoError(t, err)
	require.Equal(t, "Acme", pv.OrganizationName)
	require.Empty(t, pv.WorkspaceName)
	require.Equal(t, e.owner.User.Name, pv.InviterName)
	require.Equal(t, "admin", pv.Role)
	_, err = e.engine.OrganizationInvitationPreview(ctx, "tok-wrong")
	require.ErrorIs(t, err, db.ErrNotFound)

	_, err = e.engine.ResendOrganizationInvitation(ctx, tenancy.InvitationRenewal{ScopeID: org.ID, InvitationID: inv.ID,
		Token: "tok-new", AcceptURL: "http://pilot.test/organization-invitations/tok-new/accept"})
	require.NoError(t, err)
	var sent []testfactory.Job
	for _, j := range e.Jobs(t, jobs.SendEmailArgs{}.Kind()) {
		if j.Args["to"] == "guest@example.com" {
			sent = append(sent, j)
		}
	}
	require.Len(t, sent, 2)
	require.Equal(t, tenancy.EmailTopicOrganizationInvitation, sent[1].Args["topic"])
	require.Equal(t, inv.ID, sent[1].Args["invitationId"])
	require.Contains(t, sent[1].Args["body"], "tok-new/accept")
	_, err = e.engine.AcceptOrganizationInvitation(ctx, token, guest.User)
	require.ErrorIs(t, err, db.ErrNotFound, "the old link no longer works")

	require.NoError(t, e.engine.RevokeOrganizationInvitation(ctx, org.ID, revoked.ID))
	_, err = e.engine.AcceptOrganizationInvitation(ctx, gone, testfactory.User(t, e.Engines,
		&testfactory.UserOpts{Email: testfactory.Ptr("gone@example.com")}).User)
	require.ErrorIs(t, err, db.ErrNotFound, "a withdrawn invitation no longer accepts")
	require.ErrorIs(t, e.engine.RevokeOrganizationInvitation(ctx, e.owner.Organization.ID, inv.ID), db.ErrNotFound)

	_, err = e.engine.AcceptOrganizationInvitation(ctx, "tok-new", guest.User)
	require.NoError(t, err)
	list, err = e.engine.OrganizationInvitations(ctx, org.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Empty(t, list.Items)
}

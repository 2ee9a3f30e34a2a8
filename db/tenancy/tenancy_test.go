package tenancy_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// env is a fresh database with the tenancy engine and a registered owner.
type env struct {
	testfactory.Bundle
	engine *tenancy.Engine
	owner  identity.Registration
}

func setup(t *testing.T) *env {
	t.Helper()
	b := testfactory.Store(t)
	return &env{Bundle: *b, engine: b.Tenancy, owner: testfactory.User(t, b.Engines, nil)}
}

// invite invites email to the owner's personal workspace with role; it answers the token.
func (e *env) invite(t *testing.T, email, role string) (string, db.WorkspaceInvitation) {
	t.Helper()
	token := "tok-" + db.NewID()
	inv, err := e.engine.InviteToWorkspace(context.Background(), tenancy.NewInvitation{WorkspaceID: e.owner.Workspace.ID,
		WorkspaceName: e.owner.Workspace.Name,
		Email:         email, Role: role, InvitedBy: e.owner.User.ID, InviterName: e.owner.User.Name, Token: token,
		AcceptURL: "http://pilot.test/accept/" + token})
	require.NoError(t, err)
	return token, inv
}

// inviteToOrg invites email into org with role; it answers the token.
func (e *env) inviteToOrg(t *testing.T, org db.Organization, email, role string) (string, db.OrganizationInvitation) {
	t.Helper()
	token := "tok-" + db.NewID()
	inv, err := e.engine.InviteToOrganization(context.Background(),
		tenancy.NewOrganizationInvitation{OrganizationID: org.ID, OrganizationName: org.Name, Email: email, Role: role,
			InvitedBy: e.owner.User.ID, InviterName: e.owner.User.Name, Token: token,
			AcceptURL: "http://pilot.test/organization-invitations/" + token + "/accept"})
	require.NoError(t, err)
	return token, inv
}

// Access: an organization's members see its workspaces they belong to, with their roles; its owners
// and admins act as admin and pilotage owner in every one; anyone else, and a project of another
// workspace, is not found.
func TestResolveAccess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	org, ws := e.owner.Organization.Slug, e.owner.Workspace.Slug
	member, _ := testfactory.Member(t, e.Engines, e.owner,
		&testfactory.MemberOpts{PilotageRole: testfactory.Ptr("reviewer")})
	stranger := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("stranger@example.com")})
	prj := testfactory.NewProject(t, e.Engines, e.owner, nil)
	theirPrj := testfactory.NewProject(t, e.Engines, stranger, nil)

	a, err := e.engine.ResolveAccess(ctx, e.owner.User.ID, tenancy.Target{OrgSlug: org, WsSlug: ws, ProjectID: prj.ID})
	require.NoError(t, err)
	require.Equal(t, tenancy.Access{OrgID: e.owner.Organization.ID, OrgName: e.owner.Organization.Name, OrgSlug: org,
		OrgOwnerID: e.owner.User.ID, OrgCreatedAt: a.OrgCreatedAt, OrgRole: "owner", OrgIsPersonal: true,
		WorkspaceID: e.owner.Workspace.ID, WorkspaceRole: "admin", WorkspacePilotageRole: "owner", ProjectID: prj.ID}, a)
	require.True(t, a.OrgAdmin())

	a, err = e.engine.ResolveAccess(ctx, member.User.ID, tenancy.Target{OrgSlug: org, WsSlug: ws, ProjectID: ""})
	require.NoError(t, err)
	require.Equal(t, "member", a.OrgRole)
	require.False(t, a.OrgAdmin())
	require.Equal(t, "member", a.WorkspaceRole)
	require.Equal(t, "reviewer", a.WorkspacePilotageRole)

	_, err = e.engine.ResolveAccess(ctx, stranger.User.ID, tenancy.Target{OrgSlug: org, WsSlug: ws, ProjectID: ""})
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.ResolveAccess(ctx, e.owner.User.ID, tenancy.Target{OrgSlug: org, WsSlug: ws, ProjectID: theirPrj.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "project not found")
	_, err = e.engine.ResolveAccess(ctx, e.owner.User.ID, tenancy.Target{OrgSlug: org, WsSlug: "nope", ProjectID: ""})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "workspace not found")

	// A second workspace the member was not invited to: not theirs, until they are an org admin.
	other, err := e.engine.CreateWorkspace(ctx, e.owner.Organization.ID, e.owner.User.ID, "Ops", "ops")
	require.NoError(t, err)
	_, err = e.engine.ResolveAccess(ctx, member.User.ID, tenancy.Target{OrgSlug: org, WsSlug: "ops", ProjectID: ""})
	require.ErrorIs(t, err, db.ErrNotFound)
	list, err := e.engine.ListWorkspaces(ctx, e.owner.Organization.ID, member.User.ID, false)
	require.NoError(t, err)
	require.Len(t, list, 1)
	_, err = e.engine.SetOrganizationMemberRole(ctx, e.owner.Organization.ID, member.User.ID, "admin")
	require.NoError(t, err)
	a, err = e.engine.ResolveAccess(ctx, member.User.ID, tenancy.Target{OrgSlug: org, WsSlug: "ops", ProjectID: ""})
	require.NoError(t, err)
	require.Equal(t, other.ID, a.WorkspaceID)
	require.Equal(t, "admin", a.WorkspaceRole)
	require.Equal(t, "owner", a.WorkspacePilotageRole)
	list, err = e.engine.ListWorkspaces(ctx, e.owner.Organization.ID, member.User.ID, true)
	require.NoError(t, err)
	require.Len(t, list, 2)

	sess, err := e.Identity.CreateSession(ctx, identity.NewSession{UserID: stranger.User.ID,
		ExpiresAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	u, a, accessErr, err := e.engine.UserWithAccess(ctx, tenancy.SessionRef{SessionID: sess.ID, UserID: stranger.User.ID},
		tenancy.Target{OrgSlug: org, WsSlug: ws})
	require.NoError(t, err)
	require.Equal(t, stranger.User.ID, u.ID, "the user is read even when the access is refused")
	require.ErrorIs(t, accessErr, db.ErrNotFound)
	require.Empty(t, a.OrgID)
	// Only an active session of the user's own is one.
	_, _, _, err = e.engine.UserWithAccess(ctx, tenancy.SessionRef{SessionID: sess.ID, UserID: e.owner.User.ID},
		tenancy.Target{OrgSlug: org, WsSlug: ws})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.NoError(t, e.Identity.RevokeSession(ctx, stranger.User.ID, sess.ID))
	_, _, _, err = e.engine.UserWithAccess(ctx, tenancy.SessionRef{SessionID: sess.ID, UserID: stranger.User.ID},
		tenancy.Target{OrgSlug: org, WsSlug: ws})
	require.ErrorIs(t, err, db.ErrNotFound)
}

// Slugs are unique (organizations everywhere, workspaces within their organization); creators own
// what they create; a refused creation writes nothing.
func TestCreateOrganizationAndWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	org, err := e.engine.CreateOrganization(ctx, e.owner.User.ID, "Acme", "acme")
	require.NoError(t, err)
	require.Equal(t, e.owner.User.ID, org.OwnerID)
	require.False(t, org.IsPersonal)
	orgs := e.Count(t, `SELECT count(*) FROM organizations`)
	_, err = e.engine.CreateOrganization(ctx, e.owner.User.ID, "Acme again", "acme")
	require.ErrorIs(t, err, db.ErrConflict)
	require.Equal(t, orgs, e.Count(t, `SELECT count(*) FROM organizations`))

	mine, err := e.engine.ListOrganizations(ctx, e.owner.User.ID)
	require.NoError(t, err)
	require.Len(t, mine, 2)
	for _, o := range mine {
		require.EqualValues(t, "owner", o.MyRole)
	}

	ws, err := e.engine.CreateWorkspace(ctx, org.ID, e.owner.User.ID, "Ops", "ops")
	require.NoError(t, err)
	page, err := e.engine.WorkspaceMembers(ctx, ws.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	members := page.Items
	require.Len(t, members, 1)
	require.EqualValues(t, "admin", members[0].Role)
	require.EqualValues(t, "owner", members[0].PilotageRole)
	_, err = e.engine.CreateWorkspace(ctx, org.ID, e.owner.User.ID, "Ops 2", "ops")
	require.ErrorIs(t, err, db.ErrConflict)
	_, err = e.engine.CreateWorkspace(ctx, e.owner.Organization.ID, e.owner.User.ID, "Ops", "ops")
	require.NoError(t, err, "the slug is free in another organization")

	renamed, err := e.engine.UpdateOrganization(ctx, org.ID, testfactory.Ptr("Acme Inc"))
	require.NoError(t, err)
	require.Equal(t, "Acme Inc", renamed.Name)
	require.Equal(t, "acme", renamed.Slug)
	_, err = e.engine.UpdateOrganization(ctx, db.NewID(), testfactory.Ptr("x"))
	require.ErrorIs(t, err, db.ErrNotFound)
}

// Organization members: they join by invitation; the owner's role and membership cannot be changed; a removed member
// leaves every workspace of the organization, and the workspaces they owned pass to the organization's owner.
func TestOrganizationMembers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	org, err := e.engine.CreateOrganization(ctx, e.owner.User.ID, "Acme", "acme")
	require.NoError(t, err)
	bob := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("bob@example.com")})

	token, _ := e.inviteToOrg(t, org, "bob@example.com", "admin")
	acc, err := e.engine.AcceptOrganizationInvitation(ctx, token, bob.User)
	require.NoError(t, err)
	require.EqualValues(t, "admin", acc.Role)

	_, err = e.engine.SetOrganizationMemberRole(ctx, org.ID, e.owner.User.ID, "member")
	require.ErrorIs(t, err, db.ErrForbidden)
	require.ErrorIs(t, e.engine.RemoveOrganizationMember(ctx, tenancy.OrgMemberRemoval{OrgID: org.ID,
		UserID: e.owner.User.ID, ActorID: e.owner.User.ID}), db.ErrForbidden)
	_, err = e.engine.SetOrganizationMemberRole(ctx, org.ID, db.NewID(), "member")
	require.ErrorIs(t, err, db.ErrNotFound)
	page, err := e.engine.OrganizationMembers(ctx, org.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	members := page.Items
	roles := map[string]string{}
	for _, m := range members {
		roles[m.UserID] = m.Role
	}
	require.Equal(t, map[string]string{e.owner.User.ID: "owner", bob.User.ID: "admin"}, roles)

	bobs, err := e.engine.CreateWorkspace(ctx, org.ID, bob.User.ID, "Bob's", "bobs")
	require.NoError(t, err)
	require.NoError(t, e.engine.RemoveOrganizationMember(ctx, tenancy.OrgMemberRemoval{OrgID: org.ID, UserID: bob.User.ID,
		ActorID: e.owner.User.ID}))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, bobs.ID,
		bob.User.ID))
	got, err := e.engine.Workspace(ctx, bobs.ID)
	require.NoError(t, err)
	require.Equal(t, e.owner.User.ID, got.OwnerID)
	_, err = e.engine.ResolveAccess(ctx, bob.User.ID, tenancy.Target{OrgSlug: "acme", WsSlug: "", ProjectID: ""})
	require.ErrorIs(t, err, db.ErrNotFound)
}

// A personal organization cannot be deleted while its user exists, and the refusal keeps its pending
// invitations' e-mails; another organization goes with everything under it, its invitation e-mails
// cancelled.
func TestDeleteOrganization(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	_, personalInv := e.invite(t, "guest@example.com", "member")

	err := e.engine.DeleteOrganization(ctx, e.owner.Organization.ID)
	require.ErrorIs(t, err, db.ErrConflict)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'available'`,
		*personalInv.EmailJobID))

	org, err := e.engine.CreateOrganization(ctx, e.owner.User.ID, "Acme", "acme")
	require.NoError(t, err)
	ws, err := e.engine.CreateWorkspace(ctx, org.ID, e.owner.User.ID, "Ops", "ops")
	require.NoError(t, err)
	p, err := e.Board.CreateProject(ctx, board.NewProject{WorkspaceID: ws.ID, Name: "Doomed", CreatedBy: e.owner.User.ID})
	require.NoError(t, err)
	inv, err := e.engine.InviteToWorkspace(ctx, tenancy.NewInvitation{WorkspaceID: ws.ID, WorkspaceName: "Ops",
		Email: "late@example.com", Role: "member",
		InvitedBy: e.owner.User.ID, InviterName: "Owner", Token: "tok-acme", AcceptURL: "http://pilot.test/accept"})
	require.NoError(t, err)
	_, orgInv := e.inviteToOrg(t, org, "later@example.com", "member")
	require.NotNil(t, orgInv.EmailJobID)

	require.NoError(t, e.engine.DeleteOrganization(ctx, org.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM workspaces WHERE id = $1`, ws.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM projects WHERE id = $1`, p.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'cancelled'`,
		*inv.EmailJobID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'cancelled'`,
		*orgInv.EmailJobID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM organization_invitations WHERE id = $1`, orgInv.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'available'`,
		*personalInv.EmailJobID), "another organization's invitation is left alone")
	require.ErrorIs(t, e.engine.DeleteOrganization(ctx, org.ID), db.ErrNotFound)
}

// An invitation is stored with its e-mail job; it is single-use, bound to its address and expires; a
// refused acceptance changes nothing; inviting a member again is a conflict.
func TestInvitations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	guest := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("guest@example.com")})
	other := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("other@example.com")})

	token, inv := e.invite(t, "Guest@Example.com", "admin")
	require.Equal(t, "guest@example.com", inv.Email)
	js := e.Jobs(t, jobs.SendEmailArgs{}.Kind())
	require.Len(t, js, 1)
	require.Equal(t, *inv.EmailJobID, js[0].ID)
	require.Equal(t, jobs.QueueEmail, js[0].Queue)
	require.Equal(t, tenancy.EmailTopicInvitation, js[0].Args["topic"])
	require.Equal(t, inv.ID, js[0].Args["refId"])
	require.Equal(t, "guest@example.com", js[0].Args["to"])
	require.Contains(t, js[0].Args["body"], "http://pilot.test/accept/"+token)
	pending, err := e.engine.InvitationPending(ctx, inv.ID)
	require.NoError(t, err)
	require.True(t, pending)

	_, err = e.engine.AcceptInvitation(ctx, token, other.User)
	require.ErrorIs(t, err, db.ErrForbidden)
	_, err = e.engine.AcceptInvitation(ctx, "tok-wrong", guest.User)
	require.ErrorIs(t, err, db.ErrNotFound)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`,
		e.owner.Workspace.ID, other.User.ID))

	acc, err := e.engine.AcceptInvitation(ctx, token, guest.User)
	require.NoError(t, err)
	require.EqualValues(t, "admin", acc.Member.Role)
	require.EqualValues(t, "viewer", acc.Member.PilotageRole)
	require.Equal(t, "member", acc.OrgRole)
	require.Equal(t, e.owner.Workspace.ID, acc.Workspace.ID)
	require.Equal(t, e.owner.Organization.Slug, acc.OrgSlug)
	pending, err = e.engine.InvitationPending(ctx, inv.ID)
	require.NoError(t, err)
	require.False(t, pending, "its e-mail is not sent any more")
	_, err = e.engine.AcceptInvitation(ctx, token, guest.User)
	require.ErrorIs(t, err, db.ErrConflict)

	_, err = e.engine.InviteToWorkspace(ctx, tenancy.NewInvitation{WorkspaceID: e.owner.Workspace.ID,
		Email: "GUEST@example.com", Role: "member", InvitedBy: e.owner.User.ID, Token: "tok-again"})
	require.ErrorIs(t, err, db.ErrConflict)
	require.Len(t, e.Jobs(t, jobs.SendEmailArgs{}.Kind()), 1, "a refused invitation sends nothing")

	late, _ := e.invite(t, "other@example.com", "member")
	_, err = e.Pool.Exec(ctx,
		`UPDATE workspace_invitations SET expires_at = now() - interval '1 second' WHERE email = 'other@example.com'`)
	require.NoError(t, err)
	_, err = e.engine.AcceptInvitation(ctx, late, other.User)
	require.ErrorIs(t, err, db.ErrInvalid)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM organization_members WHERE user_id = $1 AND organization_id = $2`,
		other.User.ID, e.owner.Organization.ID))
}

// Workspace roles change for members; the workspace owner's never do; a non-member is not found.
func TestUpdateWorkspaceMember(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	member, m := testfactory.Member(t, e.Engines, e.owner, nil)
	require.EqualValues(t, "viewer", m.PilotageRole)

	got, err := e.engine.UpdateWorkspaceMember(ctx, e.owner.Workspace.ID, member.User.ID, testfactory.Ptr("admin"), nil)
	require.NoError(t, err)
	require.EqualValues(t, "admin", got.Role)
	require.Equal(t, "viewer", got.PilotageRole, "an unnamed role is kept")
	got, err = e.engine.UpdateWorkspaceMember(ctx, e.owner.Workspace.ID, member.User.ID, nil, testfactory.Ptr("reviewer"))
	require.NoError(t, err)
	require.EqualValues(t, "admin", got.Role)
	require.EqualValues(t, "reviewer", got.PilotageRole)

	_, err = e.engine.UpdateWorkspaceMember(ctx, e.owner.Workspace.ID, e.owner.User.ID, testfactory.Ptr("member"), nil)
	require.ErrorIs(t, err, db.ErrForbidden)
	_, err = e.engine.UpdateWorkspaceMember(ctx, e.owner.Workspace.ID, member.User.ID, nil, testfactory.Ptr("emperor"))
	require.ErrorIs(t, err, db.ErrInvalid)
	_, err = e.engine.UpdateWorkspaceMember(ctx, e.owner.Workspace.ID, member.User.ID, testfactory.Ptr("owner"), nil)
	require.ErrorIs(t, err, db.ErrInvalid)
	page, err := e.engine.WorkspaceMembers(ctx, e.owner.Workspace.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	unchanged := page.Items
	i := slices.IndexFunc(unchanged, func(u db.WorkspaceMember) bool { return u.UserID == member.User.ID })
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, "reviewer", unchanged[i].PilotageRole, "a refused change writes nothing")
	stranger := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("stranger@example.com")})
	_, err = e.engine.UpdateWorkspaceMember(ctx, e.owner.Workspace.ID, stranger.User.ID, testfactory.Ptr("admin"), nil)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.UpdateWorkspaceMember(ctx, db.NewID(), member.User.ID, testfactory.Ptr("admin"), nil)
	require.ErrorIs(t, err, db.ErrNotFound)
	a, err := e.engine.ResolveAccess(ctx, e.owner.User.ID, tenancy.Target{OrgSlug: e.owner.Organization.Slug,
		WsSlug: e.owner.Workspace.Slug, ProjectID: ""})
	require.NoError(t, err)
	require.Equal(t, "admin", a.WorkspaceRole)
}

// An organization invitation is stored (the token as its hash) with its e-mail job, whether or not an
// account uses the address; nobody joins until the invited address accepts, once, before it expires,
// with the invitation's role (a member keeps theirs); inviting a member is a conflict, an unknown role
// invalid, and refusals write nothing.
func TestOrganizationInvitations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	org, err := e.engine.CreateOrganization(ctx, e.owner.User.ID, "Acme", "acme")
	require.NoError(t, err)
	guest := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("guest@example.com")})
	other := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("other@example.com")})
	mailed := func() []testfactory.Job {
		var out []testfactory.Job
		for _, j := range e.Jobs(t, jobs.SendEmailArgs{}.Kind()) {
			if j.Args["topic"] == tenancy.EmailTopicOrganizationInvitation {
				out = append(out, j)
			}
		}
		return out
	}

	token, inv := e.inviteToOrg(t, org, "Guest@Example.com", "admin")
	require.Equal(t, "guest@example.com", inv.Email)
	require.EqualValues(t, "admin", inv.Role)
	require.WithinDuration(t, time.Now().Add(tenancy.InvitationTTL), inv.ExpiresAt, time.Minute)
	_, stranger := e.inviteToOrg(t, org, "stranger@example.com", "member") // no account uses it
	js := mailed()
	require.Len(t, js, 2)
	require.Equal(t, jobs.QueueEmail, js[0].Queue)
	require.Equal(t, "guest@example.com", js[0].Args["to"])
	require.Equal(t, inv.ID, js[0].Args["refId"])
	require.Equal(t, *inv.EmailJobID, js[0].ID)
	require.Contains(t, js[0].Args["body"], "http://pilot.test/organization-invitations/"+token+"/accept")
	require.Equal(t, "stranger@example.com", js[1].Args["to"])
	require.Equal(t, *stranger.EmailJobID, js[1].ID)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM organization_members WHERE organization_id = $1 AND user_id = $2`,
		org.ID, guest.User.ID), "nobody joins by being invited")
	require.Zero(t, e.Count(t, `SELECT count(*) FROM organization_invitations WHERE token_hash = convert_to($1, 'UTF8')`,
		token))

	pending, err := e.engine.OrganizationInvitationPending(ctx, inv.ID)
	require.NoError(t, err)
	require.True(t, pending)
	_, err = e.engine.AcceptOrganizationInvitation(ctx, token, other.User)
	require.ErrorIs(t, err, db.ErrForbidden, "another address")
	_, err = e.engine.AcceptOrganizationInvitation(ctx, "tok-wrong", guest.User)
	require.ErrorIs(t, err, db.ErrNotFound)
	// A workspace invitation's token is no organization invitation's.
	wsToken, _ := e.invite(t, "guest@example.com", "member")
	_, err = e.engine.AcceptOrganizationInvitation(ctx, wsToken, guest.User)
	require.ErrorIs(t, err, db.ErrNotFound)

	acc, err := e.engine.AcceptOrganizationInvitation(ctx, token, guest.User)
	require.NoError(t, err)
	require.EqualValues(t, "admin", acc.Role)
	require.Equal(t, org.ID, acc.Organization.ID)
	a, err := e.engine.ResolveAccess(ctx, guest.User.ID, tenancy.Target{OrgSlug: "acme"})
	require.NoError(t, err)
	require.Equal(t, "admin", a.OrgRole)
	pending, err = e.engine.OrganizationInvitationPending(ctx, inv.ID)
	require.NoError(t, err)
	require.False(t, pending)
	_, err = e.engine.AcceptOrganizationInvitation(ctx, token, guest.User)
	require.ErrorIs(t, err, db.ErrConflict, "single use")

	// Refusals: a member, an unknown role; nothing written, nothing sent.
	before := e.Count(t, `SELECT count(*) FROM organization_invitations`)
	_, err = e.engine.InviteToOrganization(ctx, tenancy.NewOrganizationInvitation{OrganizationID: org.ID,
		Email: "GUEST@example.com", Role: "member", InvitedBy: e.owner.User.ID, Token: "tok-again"})
	require.ErrorIs(t, err, db.ErrConflict)
	_, err = e.engine.InviteToOrganization(ctx, tenancy.NewOrganizationInvitation{OrganizationID: org.ID,
		Email: "x@example.com", Role: "owner", InvitedBy: e.owner.User.ID, Token: "tok-owner"})
	require.ErrorIs(t, err, db.ErrInvalid)
	require.Equal(t, before, e.Count(t, `SELECT count(*) FROM organization_invitations`))
	require.Len(t, mailed(), 2)

	// A member invited again (before joining) keeps the role they have; an expired invitation is refused.
	first, _ := e.inviteToOrg(t, org, "other@example.com", "member")
	second, _ := e.inviteToOrg(t, org, "other@example.com", "admin")
	_, err = e.engine.AcceptOrganizationInvitation(ctx, first, other.User)
	require.NoError(t, err)
	acc, err = e.engine.AcceptOrganizationInvitation(ctx, second, other.User)
	require.NoError(t, err)
	require.EqualValues(t, "member", acc.Role)
	late, lateInv := e.inviteToOrg(t, org, "late@example.com", "member")
	lateUser := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("late@example.com")})
	_, err = e.Pool.Exec(ctx, `UPDATE organization_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`,
		lateInv.ID)
	require.NoError(t, err)
	_, err = e.engine.AcceptOrganizationInvitation(ctx, late, lateUser.User)
	require.ErrorIs(t, err, db.ErrInvalid)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM organization_members WHERE organization_id = $1 AND user_id = $2`,
		org.ID, lateUser.User.ID))
}

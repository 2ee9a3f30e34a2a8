package api

import (
	"context"
	"net/url"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/auth"
)

// memberScope is what the member handlers of organizations and of workspaces share: where the members
// belong, as the caller's access names it, and the tenancy engine's reads and removals of them. M is a
// member's row and O its answer.
type memberScope[M, O any] struct {
	// name names the scope in refusals: organization or workspace.
	name string
	// of answers the id of the caller's organization or workspace and whether the caller administers it.
	of     func(tenancy.Access) (id string, admin bool)
	out    func(M) O
	list   func(e *tenancy.Engine, ctx context.Context, id string, p db.Page) (db.Paged[M], error)
	remove func(e *tenancy.Engine, ctx context.Context, id, userID, actorID string) error
}

// The members of an organization and of a workspace.
var (
	orgMembers = memberScope[db.OrganizationMember, OrgMemberOut]{name: "organization",
		of:   func(a tenancy.Access) (string, bool) { return a.OrgID, a.OrgAdmin() },
		out:  orgMemberOut,
		list: (*tenancy.Engine).OrganizationMembers,
		remove: func(e *tenancy.Engine, ctx context.Context, orgID, userID, actorID string) error {
			return e.RemoveOrganizationMember(ctx, tenancy.OrgMemberRemoval{OrgID: orgID, UserID: userID, ActorID: actorID})
		}}
	workspaceMembers = memberScope[db.WorkspaceMember, WorkspaceMemberOut]{name: "workspace",
		of:   func(a tenancy.Access) (string, bool) { return a.WorkspaceID, a.WorkspaceRole == "admin" },
		out:  workspaceMemberOut,
		list: (*tenancy.Engine).WorkspaceMembers,
		remove: func(e *tenancy.Engine, ctx context.Context, wsID, userID, actorID string) error {
			return e.RemoveWorkspaceMember(ctx, tenancy.WorkspaceMemberRemoval{WorkspaceID: wsID, UserID: userID,
				ActorID: actorID})
		}}
)

// listed answers a page of the members.
func (m memberScope[M, O]) listed(ctx context.Context, e *tenancy.Engine, p db.Page) (*PageOutput[O], error) {
	id, _ := m.of(accessFrom(ctx))
	return pageOf(ctx, m.out)(m.list(e, ctx, id, p))
}

// removed removes the member userID as the caller: admins remove anyone, a member themselves; anyone else
// is refused (403) before the engine is asked.
func (m memberScope[M, O]) removed(ctx context.Context, e *tenancy.Engine, userID string) (*OKOutput, error) {
	id, admin := m.of(accessFrom(ctx))
	me := principalFrom(ctx).User.ID
	if !admin && userID != me {
		return nil, errForbidden("this needs the " + m.name + " admin role")
	}
	return done(m.remove(e, ctx, id, userID, me))
}

// invitationLink is what a new invitation, an organization's or a workspace's, is sent with: its secret
// token, the link that accepts it and the inviter's name (their e-mail address when they gave no name).
type invitationLink struct {
	token, acceptURL, inviter string
}

// newInvitationLink makes a token and its accept link: the public URL, route (the path before the token,
// as /invitations/), the token and /accept.
func (s tenancyOps) newInvitationLink(ctx context.Context, route string) invitationLink {
	p := principalFrom(ctx)
	token := auth.RandomString(24)
	inviter := p.User.Name
	if inviter == "" {
		inviter = p.User.Email
	}
	return invitationLink{token: token, acceptURL: s.opts.PublicURL + route + url.PathEscape(token) + "/accept",
		inviter: inviter}
}

// out answers the invitation l was made for, with its token and link, which are shown only now.
func (l invitationLink) out(id, email, role string, expiresAt time.Time) *Output[InvitationOut] {
	return &Output[InvitationOut]{Body: InvitationOut{ID: id, Email: email, Role: role, Token: l.token,
		AcceptURL: l.acceptURL, ExpiresAt: expiresAt}}
}

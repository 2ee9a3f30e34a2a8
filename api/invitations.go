package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/auth"
)

// PendingInvitationOut is an invitation not accepted yet, as its admins list it: never its token.
type PendingInvitationOut struct {
	ID          string    `json:"id"`
	Email       string    `json:"email"`
	Role        string    `json:"role" enum:"admin,member"`
	InviterName string    `json:"inviterName" doc:"Who sent it: their name, or their e-mail address when they gave none"`
	CreatedAt   time.Time `json:"createdAt"`
	ExpiresAt   time.Time `json:"expiresAt"`
	Expired     bool      `json:"expired" doc:"Past its expiry: it no longer accepts until it is sent again"`
}

func pendingInvitationOut(i tenancy.PendingInvitation) PendingInvitationOut {
	return PendingInvitationOut{ID: i.ID, Email: i.Email, Role: i.Role, InviterName: i.InviterName,
		CreatedAt: i.CreatedAt, ExpiresAt: i.ExpiresAt, Expired: time.Now().After(i.ExpiresAt)}
}

// InvitationPreviewOut is what an invitation's link shows before it is accepted: where it leads, who
// sent it and with which role. It says nothing of the invitee or of the members.
type InvitationPreviewOut struct {
	OrganizationName string `json:"organizationName"`
	WorkspaceName    string `json:"workspaceName,omitempty" doc:"The workspace it leads to; absent for an organization's invitation"`
	InviterName      string `json:"inviterName" doc:"Who sent it: their name, or their e-mail address when they gave none"`
	Role             string `json:"role" enum:"admin,member" doc:"The role it gives in the workspace, or in the organization"`
	Status           string `json:"status" enum:"pending,accepted,expired"`
}

func invitationPreviewOut(p tenancy.InvitationPreview) InvitationPreviewOut {
	status := "pending"
	switch {
	case p.Accepted:
		status = "accepted"
	case time.Now().After(p.ExpiresAt):
		status = "expired"
	}
	return InvitationPreviewOut{OrganizationName: p.OrganizationName, WorkspaceName: p.WorkspaceName,
		InviterName: p.InviterName, Role: p.Role, Status: status}
}

// invitationScope is what the invitation handlers of workspaces and of organizations share: where the
// invitations belong, as the caller's access names it, the route of their links, and the engine's calls.
type invitationScope struct {
	of     func(tenancy.Access) string
	route  string
	list   func(e *tenancy.Engine, ctx context.Context, id string, p db.Page) (db.Paged[tenancy.PendingInvitation], error)
	resend func(e *tenancy.Engine, ctx context.Context, r tenancy.InvitationRenewal) (tenancy.PendingInvitation, error)
	revoke func(e *tenancy.Engine, ctx context.Context, scopeID, id string) error
}

// The invitations of a workspace and of an organization.
var (
	workspaceInvitations = invitationScope{of: func(a tenancy.Access) string { return a.WorkspaceID },
		route: "/invitations/", list: (*tenancy.Engine).WorkspaceInvitations,
		resend: (*tenancy.Engine).ResendWorkspaceInvitation, revoke: (*tenancy.Engine).RevokeWorkspaceInvitation}
	orgInvitations = invitationScope{of: func(a tenancy.Access) string { return a.OrgID },
		route: "/organization-invitations/", list: (*tenancy.Engine).OrganizationInvitations,
		resend: (*tenancy.Engine).ResendOrganizationInvitation, revoke: (*tenancy.Engine).RevokeOrganizationInvitation}
)

// registerInvitations registers the pending invitations of workspaces and organizations (list, send
// again, withdraw) and the read of an invitation by its link's token.
func (s tenancyOps) registerInvitations() {
	wsTags, orgTags := []string{"Workspaces"}, []string{"Organizations"}
	wsAdmin := Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin", KeepsTenancy: true}
	orgAdmin := Requires{Scope: auth.ScopeProjectsWrite, OrgRole: "admin", KeepsTenancy: true}
	const resendDoc = "Sends the invitation again, expired or not: a new link (the old one stops working: its e-mail " +
		"is cancelled if it has not gone out yet), valid 7 days from now, e-mailed to the same address. The answer " +
		"carries the new token and accept URL, shown only now. An invitation accepted or withdrawn is 404."
	const revokeDoc = "Withdraws an invitation not accepted yet: its link no longer accepts (404), and its e-mail " +
		"is cancelled if it has not gone out yet. An invitation accepted or withdrawn already is 404."

	register(s.Server, huma.Operation{OperationID: "workspaces-invitations-list", Method: http.MethodGet,
		Path: pathWorkspace + "/invitations", Summary: "List the invitations not accepted yet", Tags: wsTags,
		Description: "Workspace admins. Expired ones too, marked, oldest first; never their tokens."},
		Requires{Scope: auth.ScopeProjectsRead, WSRole: "admin"}, s.listWorkspaceInvitations)
	register(s.Server, huma.Operation{OperationID: "workspaces-invitations-resend", Method: http.MethodPost,
		Path: pathWorkspace + "/invitations/{invitationId}/resend", Summary: "Send an invitation again", Tags: wsTags,
		Description: "Workspace admins. " + resendDoc}, wsAdmin, s.resendWorkspaceInvitation)
	register(s.Server, huma.Operation{OperationID: "workspaces-invitations-revoke", Method: http.MethodDelete,
		Path: pathWorkspace + "/invitations/{invitationId}", Summary: "Withdraw an invitation", Tags: wsTags,
		Description: "Workspace admins. " + revokeDoc}, wsAdmin, s.revokeWorkspaceInvitation)

	register(s.Server, huma.Operation{OperationID: "organizations-invitations-list", Method: http.MethodGet,
		Path: pathOrganization + "/invitations", Summary: "List the invitations not accepted yet", Tags: orgTags,
		Description: "Organization admins. Expired ones too, marked, oldest first; never their tokens."},
		Requires{Scope: auth.ScopeProjectsRead, OrgRole: "admin"}, s.listOrganizationInvitations)
	register(s.Server, huma.Operation{OperationID: "organizations-invitations-resend", Method: http.MethodPost,
		Path: pathOrganization + "/invitations/{invitationId}/resend", Summary: "Send an invitation again",
		Tags: orgTags, Description: "Organization admins. " + resendDoc}, orgAdmin, s.resendOrganizationInvitation)
	register(s.Server, huma.Operation{OperationID: "organizations-invitations-revoke", Method: http.MethodDelete,
		Path: pathOrganization + "/invitations/{invitationId}", Summary: "Withdraw an invitation", Tags: orgTags,
		Description: "Organization admins. " + revokeDoc}, orgAdmin, s.revokeOrganizationInvitation)

	const previewDoc = "Public: the token is the credential, as in the e-mail's link. Answers only where the " +
		"invitation leads, who sent it, the role it gives and whether it is still pending, accepted or expired; an " +
		"unknown token (a wrong link, a withdrawn invitation, or one sent again since) is 404."
	register(s.Server, huma.Operation{OperationID: "invitations-get", Method: http.MethodGet,
		Path: "/invitations/{token}", Summary: "Read an invitation by its link", Tags: wsTags,
		Errors: []int{http.StatusNotFound}, Description: previewDoc},
		Requires{Public: true}, s.previewWorkspaceInvitation)
	register(s.Server, huma.Operation{OperationID: "organization-invitations-get", Method: http.MethodGet,
		Path: "/organization-invitations/{token}", Summary: "Read an organization invitation by its link",
		Tags: orgTags, Errors: []int{http.StatusNotFound}, Description: previewDoc},
		Requires{Public: true}, s.previewOrganizationInvitation)
}

// ListWorkspaceInvitationsInput is the request of workspaces-invitations-list.
type ListWorkspaceInvitationsInput struct {
	WorkspacePath
	PageQuery
}

// WorkspaceInvitationPath names an invitation of a workspace.
type WorkspaceInvitationPath struct {
	WorkspacePath
	InvitationID string `path:"invitationId" format:"uuid"`
}

// ListOrgInvitationsInput is the request of organizations-invitations-list.
type ListOrgInvitationsInput struct {
	OrgPath
	PageQuery
}

// OrgInvitationPath names an invitation of an organization.
type OrgInvitationPath struct {
	OrgPath
	InvitationID string `path:"invitationId" format:"uuid"`
}

// InvitationTokenPath names an invitation by its link's token.
type InvitationTokenPath struct {
	Token string `path:"token" maxLength:"200"`
}

func (s tenancyOps) listWorkspaceInvitations(ctx context.Context,
	in *ListWorkspaceInvitationsInput) (*PageOutput[PendingInvitationOut], error) {
	return workspaceInvitations.listed(ctx, s.tenancy, in.page())
}

func (s tenancyOps) resendWorkspaceInvitation(ctx context.Context,
	in *WorkspaceInvitationPath) (*Output[InvitationOut], error) {
	return s.resent(ctx, workspaceInvitations, in.InvitationID)
}

func (s tenancyOps) revokeWorkspaceInvitation(ctx context.Context, in *WorkspaceInvitationPath) (*OKOutput, error) {
	return done(workspaceInvitations.revoke(s.tenancy, ctx, workspaceInvitations.of(accessFrom(ctx)), in.InvitationID))
}

func (s tenancyOps) listOrganizationInvitations(ctx context.Context,
	in *ListOrgInvitationsInput) (*PageOutput[PendingInvitationOut], error) {
	return orgInvitations.listed(ctx, s.tenancy, in.page())
}

func (s tenancyOps) resendOrganizationInvitation(ctx context.Context,
	in *OrgInvitationPath) (*Output[InvitationOut], error) {
	return s.resent(ctx, orgInvitations, in.InvitationID)
}

func (s tenancyOps) revokeOrganizationInvitation(ctx context.Context, in *OrgInvitationPath) (*OKOutput, error) {
	return done(orgInvitations.revoke(s.tenancy, ctx, orgInvitations.of(accessFrom(ctx)), in.InvitationID))
}

func (s tenancyOps) previewWorkspaceInvitation(ctx context.Context,
	in *InvitationTokenPath) (*Output[InvitationPreviewOut], error) {
	return oneOf(invitationPreviewOut)(s.tenancy.WorkspaceInvitationPreview(ctx, in.Token))
}

func (s tenancyOps) previewOrganizationInvitation(ctx context.Context,
	in *InvitationTokenPath) (*Output[InvitationPreviewOut], error) {
	return oneOf(invitationPreviewOut)(s.tenancy.OrganizationInvitationPreview(ctx, in.Token))
}

// listed answers a page of the scope's pending invitations.
func (sc invitationScope) listed(ctx context.Context, e *tenancy.Engine,
	p db.Page) (*PageOutput[PendingInvitationOut], error) {
	return pageOf(ctx, pendingInvitationOut)(sc.list(e, ctx, sc.of(accessFrom(ctx)), p))
}

// resent sends the scope's invitation id again with a new link, and answers it with that link.
func (s tenancyOps) resent(ctx context.Context, sc invitationScope, id string) (*Output[InvitationOut], error) {
	l := s.newInvitationLink(ctx, sc.route)
	inv, err := sc.resend(s.tenancy, ctx, tenancy.InvitationRenewal{ScopeID: sc.of(accessFrom(ctx)), InvitationID: id,
		Token: l.token, AcceptURL: l.acceptURL})
	if err != nil {
		return nil, fail(err)
	}
	return l.out(inv.ID, inv.Email, inv.Role, inv.ExpiresAt), nil
}

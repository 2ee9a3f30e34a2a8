package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/auth"
)

// Slug is an organization, workspace or agent slug: 2 to 60 lowercase letters and
// digits, with single hyphens inside. Its schema states the rule once, for every operation using it.
type Slug string

// Schema implements huma.SchemaProvider.
func (Slug) Schema(huma.Registry) *huma.Schema {
	minLen, maxLen := 2, 60
	s := &huma.Schema{Type: huma.TypeString, MinLength: &minLen, MaxLength: &maxLen,
		Pattern: "^[a-z0-9]+(-[a-z0-9]+)*$", PatternDescription: "lowercase letters, digits and hyphens"}
	s.PrecomputeMessages()
	return s
}

// OrganizationOut is an organization with the caller's role in it.
type OrganizationOut struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Slug       string    `json:"slug"`
	OwnerID    string    `json:"ownerId"`
	CreatedAt  time.Time `json:"createdAt"`
	MyRole     string    `json:"myRole" enum:"owner,admin,member"`
	IsPersonal bool      `json:"isPersonal" doc:"The user's personal organization, created at registration; it cannot be deleted while its user exists"`
}

// OrgMemberOut is a member of an organization.
type OrgMemberOut struct {
	UserID string          `json:"userId"`
	Role   tenancy.OrgRole `json:"role"`
	Email  string          `json:"email"`
	Name   string          `json:"name"`
}

// CheckoutOut is a billing checkout session.
type CheckoutOut struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Status string `json:"status"`
}

// OrgPath are the path parameters of organization-scoped routes.
type OrgPath struct {
	OrgSlug string `path:"orgSlug" format:"slug"`
}

// pathOrganization is the prefix of an organization's own routes.
const pathOrganization = "/organizations/{orgSlug}"

func organizationOut(o db.Organization, myRole string) OrganizationOut {
	return OrganizationOut{ID: o.ID, Name: o.Name, Slug: o.Slug, OwnerID: o.OwnerID, CreatedAt: o.CreatedAt,
		MyRole: myRole, IsPersonal: o.IsPersonal}
}

func myOrganizationOut(o db.MyOrganization) OrganizationOut {
	return OrganizationOut{ID: o.ID, Name: o.Name, Slug: o.Slug, OwnerID: o.OwnerID, CreatedAt: o.CreatedAt,
		MyRole: o.MyRole, IsPersonal: o.IsPersonal}
}

func orgMemberOut(m db.OrganizationMember) OrgMemberOut {
	return OrgMemberOut{UserID: m.UserID, Role: tenancy.OrgRole(m.Role), Email: m.Email, Name: m.Name}
}

// registerOrganizations registers organizations, their members and billing.
func (s tenancyOps) registerOrganizations() {
	tags := []string{"Organizations"}
	read := Requires{Scope: auth.ScopeProjectsRead, OrgRole: "member"}

	register(s.Server, huma.Operation{OperationID: "organizations-create", Method: http.MethodPost, Path: "/organizations",
		Summary: "Create an organization", Tags: tags, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict}},
		Requires{Scope: auth.ScopeProjectsWrite}, s.createOrganization)

	register(s.Server, huma.Operation{OperationID: "organizations-list", Method: http.MethodGet, Path: "/organizations",
		Summary: "List my organizations", Tags: tags},
		Requires{Scope: auth.ScopeProjectsRead}, s.listOrganizations)

	register(s.Server, huma.Operation{OperationID: "organizations-get", Method: http.MethodGet, Path: pathOrganization,
		Summary: "Get an organization", Tags: tags},
		read, s.getOrganization)

	register(s.Server, huma.Operation{OperationID: "organizations-update", Method: http.MethodPatch,
		Path: pathOrganization, Summary: "Rename an organization", Tags: tags},
		Requires{Scope: auth.ScopeProjectsWrite, OrgRole: "admin"}, s.updateOrganization)

	register(s.Server, huma.Operation{OperationID: "organizations-delete", Method: http.MethodDelete,
		Path: pathOrganization, Summary: "Delete an organization and everything in it", Tags: tags,
		Errors: []int{http.StatusConflict},
		Description: "Owner only. Removes every workspace, project, card and record of the organization, in one " +
			"transaction. A personal organization (created at registration) cannot be deleted while its user exists: 409."},
		Requires{Scope: auth.ScopeProjectsWrite, OrgRole: "owner"}, s.deleteOrganization)

	register(s.Server, huma.Operation{OperationID: "organizations-members-list", Method: http.MethodGet,
		Path: pathOrganization + "/members", Summary: "List organization members", Tags: tags},
		read, s.listOrganizationMembers)

	register(s.Server, huma.Operation{OperationID: "organizations-members-add", Method: http.MethodPost,
		Path: pathOrganization + "/members", Summary: "Invite someone to the organization by e-mail", Tags: tags,
		DefaultStatus: http.StatusAccepted, Errors: []int{http.StatusConflict}, Description: "Organization admins. Nobody " +
			"is added without their consent: the address is e-mailed an invitation to accept at " +
			"/organization-invitations/{token}/accept, bound to the e-mail, single-use and valid 7 days. The answer is 202 " +
			"and the same whether or not an account uses the address (an invitation to an address without one waits until it " +
			"signs up). Inviting a current member is 409."},
		Requires{Scope: auth.ScopeProjectsWrite, OrgRole: "admin"}, s.inviteToOrganization)

	register(s.Server, huma.Operation{OperationID: "organization-invitations-accept", Method: http.MethodPost,
		Path: "/organization-invitations/{token}/accept", Summary: "Accept an organization invitation", Tags: tags,
		Errors: []int{http.StatusNotFound, http.StatusConflict}, Description: "Needs authentication as the invited e-mail, " +
			"but no membership. Joins the organization with the invitation's role; a member already keeps their role. Wrong " +
			"e-mail 403, already accepted 409, expired 400, unknown 404."},
		Requires{Scope: auth.ScopeAccountWrite}, s.acceptOrganizationInvitation)

	register(s.Server, huma.Operation{OperationID: "organizations-members-update", Method: http.MethodPatch,
		Path: pathOrganization + "/members/{userId}", Summary: "Change a member's role", Tags: tags,
		Description: "The owner's role cannot be changed (403)."}, Requires{Scope: auth.ScopeProjectsWrite, OrgRole: "admin"},
		s.updateOrganizationMember)

	register(s.Server, huma.Operation{OperationID: "organizations-members-remove", Method: http.MethodDelete,
		Path: pathOrganization + "/members/{userId}", Summary: "Remove a member", Tags: tags,
		Description: "Admins remove anyone but the owner; a member may remove themselves. Leaving means leaving, in the " +
			"same transaction: they are removed from the organization's workspaces and from every project of them (a " +
			"member_removed activity each), the cards there assigned to them are unassigned (a card_assigned activity each, " +
			"assigneeId null), the pipeline runs they started there are cancelled (and the missions those runs wait for, just " +
			"after), and their open event and MCP streams end. From then on no notification reaches them, not even of a " +
			"change made before the removal whose notification was not sent yet."},
		Requires{Scope: auth.ScopeProjectsWrite, OrgRole: "member"}, s.removeOrganizationMember)

	register(s.Server, huma.Operation{OperationID: "organizations-billing-checkout", Method: http.MethodPost,
		Path: pathOrganization + "/billing/checkout", Summary: "Start a billing checkout", Tags: tags,
		DefaultStatus: http.StatusCreated, Description: "Owner only. Creates a checkout session with the configured " +
			"billing provider (the local one by default)."},
		Requires{Scope: auth.ScopeProjectsWrite, OrgRole: "owner"}, s.startCheckout)
}

// CreateOrganizationInput is the request of organizations-create.
type CreateOrganizationInput struct {
	Body CreateOrganizationInputBody
}

// CreateOrganizationInputBody is the body of a CreateOrganizationInput request.
type CreateOrganizationInputBody struct {
	Name string `json:"name" required:"true" minLength:"1" maxLength:"100"`
	Slug Slug   `json:"slug" required:"true"`
}

func (s tenancyOps) createOrganization(ctx context.Context,
	in *CreateOrganizationInput) (*Output[OrganizationOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	org, err := s.tenancy.CreateOrganization(ctx, principalFrom(ctx).User.ID, name, string(in.Body.Slug))
	if err != nil {
		return nil, fail(err)
	}
	return &Output[OrganizationOut]{Body: organizationOut(org, "owner")}, nil
}

func (s tenancyOps) listOrganizations(ctx context.Context, _ *struct{}) (*Output[[]OrganizationOut], error) {
	return listOf(myOrganizationOut)(s.tenancy.ListOrganizations(ctx, principalFrom(ctx).User.ID))
}

func (s tenancyOps) getOrganization(ctx context.Context, _ *OrgPath) (*Output[OrganizationOut], error) {
	a := accessFrom(ctx)
	return &Output[OrganizationOut]{Body: OrganizationOut{ID: a.OrgID, Name: a.OrgName, Slug: a.OrgSlug,
		OwnerID: a.OrgOwnerID, CreatedAt: a.OrgCreatedAt, MyRole: a.OrgRole, IsPersonal: a.OrgIsPersonal}}, nil
}

// UpdateOrganizationInput is the request of organizations-update.
type UpdateOrganizationInput struct {
	OrgPath
	Body UpdateOrganizationInputBody
}

// UpdateOrganizationInputBody is the body of a UpdateOrganizationInput request.
type UpdateOrganizationInputBody struct {
	Name *string `json:"name,omitempty" minLength:"1" maxLength:"100"`
}

func (s tenancyOps) updateOrganization(ctx context.Context,
	in *UpdateOrganizationInput) (*Output[OrganizationOut], error) {
	a := accessFrom(ctx)
	name, err := nonBlankOpt("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	org, err := s.tenancy.UpdateOrganization(ctx, a.OrgID, name)
	if err != nil {
		return nil, fail(err)
	}
	return &Output[OrganizationOut]{Body: organizationOut(org, a.OrgRole)}, nil
}

func (s tenancyOps) deleteOrganization(ctx context.Context, _ *OrgPath) (*OKOutput, error) {
	return done(s.tenancy.DeleteOrganization(ctx, accessFrom(ctx).OrgID))
}

// ListOrgMembersInput is the request of organizations-members-list.
type ListOrgMembersInput struct {
	OrgPath
	PageQuery
}

func (s tenancyOps) listOrganizationMembers(ctx context.Context,
	in *ListOrgMembersInput) (*PageOutput[OrgMemberOut], error) {
	return orgMembers.listed(ctx, s.tenancy, in.page())
}

// InviteToOrganizationInput is the request of organizations-members-add.
type InviteToOrganizationInput struct {
	OrgPath
	Body InviteToOrganizationInputBody
}

// InviteToOrganizationInputBody is the body of an InviteToOrganizationInput request.
type InviteToOrganizationInputBody struct {
	Email string          `json:"email" required:"true" format:"email" maxLength:"254"`
	Role  tenancy.OrgRole `json:"role" required:"true" enum:"admin,member"`
}

func (s tenancyOps) inviteToOrganization(ctx context.Context,
	in *InviteToOrganizationInput) (*Output[InvitationOut], error) {
	a := accessFrom(ctx)
	l := s.newInvitationLink(ctx, "/organization-invitations/")
	inv, err := s.tenancy.InviteToOrganization(ctx, tenancy.NewOrganizationInvitation{OrganizationID: a.OrgID,
		OrganizationName: a.OrgName, Email: strings.TrimSpace(in.Body.Email), Role: string(in.Body.Role),
		InvitedBy: principalFrom(ctx).User.ID, InviterName: l.inviter, Token: l.token, AcceptURL: l.acceptURL})
	if err != nil {
		return nil, fail(err)
	}
	return l.out(inv.ID, inv.Email, inv.Role, inv.ExpiresAt), nil
}

// AcceptedOrgInvitationOut says where an accepted organization invitation leads.
type AcceptedOrgInvitationOut struct {
	Organization OrganizationOut `json:"organization"`
	Role         string          `json:"role" enum:"owner,admin,member" doc:"The caller's role in the organization now"`
}

func (s tenancyOps) acceptOrganizationInvitation(ctx context.Context,
	in *AcceptInvitationInput) (*Output[AcceptedOrgInvitationOut], error) {
	res, err := s.tenancy.AcceptOrganizationInvitation(ctx, in.Token, principalFrom(ctx).User)
	if err != nil {
		return nil, fail(err)
	}
	return &Output[AcceptedOrgInvitationOut]{Body: AcceptedOrgInvitationOut{Organization: organizationOut(res.Organization,
		res.Role), Role: res.Role}}, nil
}

// OrgMemberPath names a member of an organization.
type OrgMemberPath struct {
	OrgPath
	UserID string `path:"userId" format:"uuid"`
}

// UpdateOrganizationMemberInput is the request of organizations-members-update.
type UpdateOrganizationMemberInput struct {
	OrgMemberPath
	Body UpdateOrganizationMemberInputBody
}

// UpdateOrganizationMemberInputBody is the body of a UpdateOrganizationMemberInput request.
type UpdateOrganizationMemberInputBody struct {
	Role tenancy.OrgRole `json:"role" required:"true" enum:"admin,member"`
}

func (s tenancyOps) updateOrganizationMember(ctx context.Context,
	in *UpdateOrganizationMemberInput) (*Output[OrgMemberOut], error) {
	return oneOf(orgMemberOut)(s.tenancy.SetOrganizationMemberRole(ctx, accessFrom(ctx).OrgID, in.UserID,
		string(in.Body.Role)))
}

func (s tenancyOps) removeOrganizationMember(ctx context.Context, in *OrgMemberPath) (*OKOutput, error) {
	return orgMembers.removed(ctx, s.tenancy, in.UserID)
}

func (s tenancyOps) startCheckout(ctx context.Context, _ *OrgPath) (*Output[CheckoutOut], error) {
	a := accessFrom(ctx)
	c, err := s.billing.CreateCheckout(ctx, a.OrgID, a.OrgSlug)
	if err != nil {
		return nil, err
	}
	rec, err := s.tenancy.RecordCheckout(ctx, db.NewCheckout{OrganizationID: a.OrgID, Provider: s.billing.Name(),
		ExternalID: c.ExternalID, URL: c.URL, Status: c.Status, CreatedBy: principalFrom(ctx).User.ID})
	if err != nil {
		return nil, fail(err)
	}
	return &Output[CheckoutOut]{Body: CheckoutOut{ID: rec.ID, URL: rec.URL, Status: rec.Status}}, nil
}

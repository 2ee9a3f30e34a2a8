package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/auth"
)

// Slug is an organization, workspace or agent slug (spec Part 8): 2 to 60 lowercase letters and
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
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	OwnerID   string    `json:"ownerId"`
	CreatedAt time.Time `json:"createdAt"`
	MyRole    string    `json:"myRole" enum:"owner,admin,member"`
}

// OrgMemberOut is a member of an organization.
type OrgMemberOut struct {
	UserID string `json:"userId"`
	Role   string `json:"role" enum:"owner,admin,member"`
	Email  string `json:"email"`
	Name   string `json:"name"`
}

// CheckoutOut is a billing checkout session.
type CheckoutOut struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Status string `json:"status"`
}

type OrgPath struct {
	OrgSlug string `path:"orgSlug"`
}

func orgMemberOut(userID, role, email, name string) OrgMemberOut {
	return OrgMemberOut{UserID: userID, Role: role, Email: email, Name: name}
}

func (s *Server) registerOrganizations() {
	tags := []string{"Organizations"}
	read := Access{Scope: auth.ScopeProjectsRead, OrgRole: "member"}

	register(s, huma.Operation{OperationID: "organizations-create", Method: http.MethodPost, Path: "/organizations",
		Summary: "Create an organization", Tags: tags, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict}},
		Access{Scope: auth.ScopeProjectsWrite},
		func(ctx context.Context, in *struct {
			Body struct {
				Name string `json:"name" required:"true" minLength:"1" maxLength:"100"`
				Slug Slug   `json:"slug" required:"true"`
			}
		}) (*struct{ Body OrganizationOut }, error) {
			name := strings.TrimSpace(in.Body.Name)
			if name == "" {
				return nil, errBadRequest("name must not be blank")
			}
			org, err := s.store.CreateOrganization(ctx, principalFrom(ctx).User.ID, name, string(in.Body.Slug))
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body OrganizationOut }{Body: OrganizationOut{ID: org.ID, Name: org.Name, Slug: org.Slug,
				OwnerID: org.OwnerID, CreatedAt: org.CreatedAt, MyRole: "owner"}}, nil
		})

	register(s, huma.Operation{OperationID: "organizations-list", Method: http.MethodGet, Path: "/organizations",
		Summary: "List my organizations", Tags: tags},
		Access{Scope: auth.ScopeProjectsRead},
		func(ctx context.Context, _ *struct{}) (*struct{ Body []OrganizationOut }, error) {
			rows, err := s.store.ListOrganizations(ctx, principalFrom(ctx).User.ID)
			if err != nil {
				return nil, fail(err)
			}
			out := make([]OrganizationOut, len(rows))
			for i, r := range rows {
				out[i] = OrganizationOut{ID: r.ID, Name: r.Name, Slug: r.Slug, OwnerID: r.OwnerID, CreatedAt: r.CreatedAt, MyRole: r.MyRole}
			}
			return &struct{ Body []OrganizationOut }{Body: out}, nil
		})

	register(s, huma.Operation{OperationID: "organizations-get", Method: http.MethodGet, Path: "/organizations/{orgSlug}",
		Summary: "Get an organization", Tags: tags}, read,
		func(ctx context.Context, _ *OrgPath) (*struct{ Body OrganizationOut }, error) {
			a := accessFrom(ctx)
			return &struct{ Body OrganizationOut }{Body: OrganizationOut{ID: a.OrgID, Name: a.OrgName, Slug: a.OrgSlug,
				OwnerID: a.OrgOwnerID, CreatedAt: a.OrgCreatedAt, MyRole: a.OrgRole}}, nil
		})

	register(s, huma.Operation{OperationID: "organizations-update", Method: http.MethodPatch, Path: "/organizations/{orgSlug}",
		Summary: "Rename an organization", Tags: tags},
		Access{Scope: auth.ScopeProjectsWrite, OrgRole: "admin"},
		func(ctx context.Context, in *struct {
			OrgPath
			Body struct {
				Name *string `json:"name,omitempty" minLength:"1" maxLength:"100"`
			}
		}) (*struct{ Body OrganizationOut }, error) {
			a := accessFrom(ctx)
			name := trimPtr(in.Body.Name)
			if name != nil && *name == "" {
				return nil, errBadRequest("name must not be blank")
			}
			org, err := s.store.UpdateOrganization(ctx, a.OrgID, name)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body OrganizationOut }{Body: OrganizationOut{ID: org.ID, Name: org.Name, Slug: org.Slug,
				OwnerID: org.OwnerID, CreatedAt: org.CreatedAt, MyRole: a.OrgRole}}, nil
		})

	register(s, huma.Operation{OperationID: "organizations-delete", Method: http.MethodDelete, Path: "/organizations/{orgSlug}",
		Summary: "Delete an organization and everything in it", Tags: tags,
		Description: "Owner only. Removes every workspace, project, card and record of the organization, in one transaction."},
		Access{Scope: auth.ScopeProjectsWrite, OrgRole: "owner"},
		func(ctx context.Context, _ *OrgPath) (*OKOutput, error) {
			if err := s.store.DeleteOrganization(ctx, accessFrom(ctx).OrgID); err != nil {
				return nil, fail(err)
			}
			return okOutput(), nil
		})

	register(s, huma.Operation{OperationID: "organizations-members-list", Method: http.MethodGet, Path: "/organizations/{orgSlug}/members",
		Summary: "List organization members", Tags: tags}, read,
		func(ctx context.Context, _ *OrgPath) (*struct{ Body []OrgMemberOut }, error) {
			rows, err := s.store.OrganizationMembers(ctx, accessFrom(ctx).OrgID)
			if err != nil {
				return nil, fail(err)
			}
			out := make([]OrgMemberOut, len(rows))
			for i, r := range rows {
				out[i] = orgMemberOut(r.UserID, r.Role, r.Email, r.Name)
			}
			return &struct{ Body []OrgMemberOut }{Body: out}, nil
		})

	register(s, huma.Operation{OperationID: "organizations-members-add", Method: http.MethodPost, Path: "/organizations/{orgSlug}/members",
		Summary: "Add a registered user to the organization", Tags: tags, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict}},
		Access{Scope: auth.ScopeProjectsWrite, OrgRole: "admin"},
		func(ctx context.Context, in *struct {
			OrgPath
			Body struct {
				Email string `json:"email" required:"true" format:"email" maxLength:"254"`
				Role  string `json:"role" required:"true" enum:"admin,member"`
			}
		}) (*struct{ Body OrgMemberOut }, error) {
			m, err := s.store.AddOrganizationMember(ctx, accessFrom(ctx).OrgID, strings.TrimSpace(in.Body.Email), in.Body.Role)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body OrgMemberOut }{Body: orgMemberOut(m.UserID, m.Role, m.Email, m.Name)}, nil
		})

	register(s, huma.Operation{OperationID: "organizations-members-update", Method: http.MethodPatch, Path: "/organizations/{orgSlug}/members/{userId}",
		Summary: "Change a member's role", Tags: tags, Description: "The owner's role cannot be changed (403)."},
		Access{Scope: auth.ScopeProjectsWrite, OrgRole: "admin"},
		func(ctx context.Context, in *struct {
			OrgPath
			UserID string `path:"userId"`
			Body   struct {
				Role string `json:"role" required:"true" enum:"admin,member"`
			}
		}) (*struct{ Body OrgMemberOut }, error) {
			m, err := s.store.SetOrganizationMemberRole(ctx, accessFrom(ctx).OrgID, in.UserID, in.Body.Role)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body OrgMemberOut }{Body: orgMemberOut(m.UserID, m.Role, m.Email, m.Name)}, nil
		})

	register(s, huma.Operation{OperationID: "organizations-members-remove", Method: http.MethodDelete, Path: "/organizations/{orgSlug}/members/{userId}",
		Summary: "Remove a member", Tags: tags,
		Description: "Admins remove anyone but the owner; a member may remove themselves. Also removes them from the organization's workspaces."},
		Access{Scope: auth.ScopeProjectsWrite, OrgRole: "member"},
		func(ctx context.Context, in *struct {
			OrgPath
			UserID string `path:"userId"`
		}) (*OKOutput, error) {
			a := accessFrom(ctx)
			if !a.OrgAdmin() && in.UserID != principalFrom(ctx).User.ID {
				return nil, errForbidden("this needs the organization admin role")
			}
			if err := s.store.RemoveOrganizationMember(ctx, a.OrgID, in.UserID); err != nil {
				return nil, fail(err)
			}
			return okOutput(), nil
		})

	register(s, huma.Operation{OperationID: "organizations-billing-checkout", Method: http.MethodPost, Path: "/organizations/{orgSlug}/billing/checkout",
		Summary: "Start a billing checkout", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "Owner only. Creates a checkout session with the configured billing provider (the local one by default)."},
		Access{Scope: auth.ScopeProjectsWrite, OrgRole: "owner"},
		func(ctx context.Context, _ *OrgPath) (*struct{ Body CheckoutOut }, error) {
			a := accessFrom(ctx)
			c, err := s.billing.CreateCheckout(ctx, a.OrgID, a.OrgSlug)
			if err != nil {
				return nil, err
			}
			rec, err := s.store.RecordCheckout(ctx, db.NewCheckout{OrganizationID: a.OrgID, Provider: s.billing.Name(),
				ExternalID: c.ExternalID, URL: c.URL, Status: c.Status, CreatedBy: principalFrom(ctx).User.ID})
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body CheckoutOut }{Body: CheckoutOut{ID: rec.ID, URL: rec.Url, Status: rec.Status}}, nil
		})
}

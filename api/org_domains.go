package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/auth"
)

// Sign-in domains of an organization (db/tenancy/domains.go): a person whose address at one of them is
// verified joins the organization as a member.

// OrgDomainOut is a sign-in domain of an organization.
type OrgDomainOut struct {
	ID        string    `json:"id" format:"uuid"`
	Domain    string    `json:"domain" doc:"Lower case, like example.com"`
	CreatedAt time.Time `json:"createdAt"`
}

func orgDomainOut(d db.OrganizationDomain) OrgDomainOut {
	return OrgDomainOut{ID: d.ID, Domain: d.Domain, CreatedAt: d.CreatedAt}
}

const orgDomainsDoc = "A person whose e-mail address at a sign-in domain is verified joins the organization as a " +
	"member: at the single sign-on that links or creates their account when the provider says the address is " +
	"verified, or when they follow the link Pilot e-mails to verify it. Never by a password sign-up alone. " +
	"Organization admins."

// registerOrganizationDomains registers an organization's sign-in domains.
func (s tenancyOps) registerOrganizationDomains() {
	tags := []string{"Organizations"}
	admin := Requires{Scope: auth.ScopeProjectsWrite, OrgRole: "admin"}
	register(s.Server, huma.Operation{OperationID: "organizations-domains-list", Method: http.MethodGet,
		Path: pathOrganization + "/domains", Summary: "List the organization's sign-in domains", Tags: tags,
		Description: orgDomainsDoc + " The oldest first."},
		Requires{Scope: auth.ScopeProjectsRead, OrgRole: "admin"}, s.listOrganizationDomains)
	register(s.Server, huma.Operation{OperationID: "organizations-domains-add", Method: http.MethodPost,
		Path: pathOrganization + "/domains", Summary: "Add a sign-in domain", Tags: tags,
		DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict},
		Description: orgDomainsDoc + " The domain is stored lower case and must be a hostname of at least two labels " +
			"(400 otherwise). A domain belongs to one organization at most: another organization's, or this one's " +
			"again, is 409; so is a personal organization, and more than 20 domains. People already members are " +
			"unchanged; nobody joins until their next verified address."},
		admin, s.addOrganizationDomain)
	register(s.Server, huma.Operation{OperationID: "organizations-domains-remove", Method: http.MethodDelete,
		Path: pathOrganization + "/domains/{domainId}", Summary: "Remove a sign-in domain", Tags: tags,
		Description: "Organization admins. Those who joined by it stay members; nobody joins by it any more."},
		admin, s.removeOrganizationDomain)
}

func (s tenancyOps) listOrganizationDomains(ctx context.Context, _ *OrgPath) (*Output[[]OrgDomainOut], error) {
	return listOf(orgDomainOut)(s.tenancy.OrganizationDomains(ctx, accessFrom(ctx).OrgID))
}

// AddOrgDomainInput is the request of organizations-domains-add.
type AddOrgDomainInput struct {
	OrgPath
	Body struct {
		Domain string `json:"domain" required:"true" minLength:"1" maxLength:"253" doc:"Like example.com"`
	}
}

func (s tenancyOps) addOrganizationDomain(ctx context.Context, in *AddOrgDomainInput) (*Output[OrgDomainOut], error) {
	return oneOf(orgDomainOut)(s.tenancy.AddOrganizationDomain(ctx, accessFrom(ctx).OrgID,
		principalFrom(ctx).User.ID, in.Body.Domain))
}

// OrgDomainPath names a sign-in domain of an organization.
type OrgDomainPath struct {
	OrgPath
	DomainID string `path:"domainId" format:"uuid"`
}

func (s tenancyOps) removeOrganizationDomain(ctx context.Context, in *OrgDomainPath) (*OKOutput, error) {
	return done(s.tenancy.RemoveOrganizationDomain(ctx, accessFrom(ctx).OrgID, in.DomainID))
}

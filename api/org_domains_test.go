package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/oidctest"
)

// An organization's admins list, add and remove its sign-in domains; members may not; a domain is one
// organization's; a personal organization has none.
func TestOrganizationDomainsAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	requireStatus(t, e.do("POST", "/organizations", alice.Token, map[string]any{"name": "Acme", "slug": "acme"}),
		http.StatusCreated)
	requireStatus(t, e.do("POST", "/organizations", bob.Token, map[string]any{"name": "Rival", "slug": "rival"}),
		http.StatusCreated)
	e.addOrgMember(alice, bob, "acme", "member")

	list := decode[[]OrgDomainOut](t, e.do("GET", "/organizations/acme/domains", alice.Token, nil))
	require.Empty(t, list)
	r := e.do("POST", "/organizations/acme/domains", alice.Token, map[string]any{"domain": " Acme.EXAMPLE "})
	requireStatus(t, r, http.StatusCreated)
	d := decode[OrgDomainOut](t, r)
	require.Equal(t, "acme.example", d.Domain)
	require.Equal(t, []OrgDomainOut{d}, decode[[]OrgDomainOut](t, e.do("GET", "/organizations/acme/domains",
		alice.Token, nil)))

	r = e.do("POST", "/organizations/acme/domains", alice.Token, map[string]any{"domain": "not a domain"})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, string(r.Body), "is not a domain")
	requireStatus(t, e.do("POST", "/organizations/acme/domains", alice.Token, map[string]any{"domain": ""}),
		http.StatusBadRequest)
	r = e.do("POST", "/organizations/rival/domains", bob.Token, map[string]any{"domain": "acme.example"})
	requireStatus(t, r, http.StatusConflict)
	require.Contains(t, string(r.Body), "another organization")

	var personal string
	for _, o := range decode[[]OrganizationOut](t, e.do("GET", "/organizations", alice.Token, nil)) {
		if o.IsPersonal {
			personal = o.Slug
		}
	}
	require.NotEmpty(t, personal)
	requireStatus(t, e.do("POST", "/organizations/"+personal+"/domains", alice.Token,
		map[string]any{"domain": "alice.example"}), http.StatusConflict)

	// A member neither lists nor changes them.
	requireStatus(t, e.do("GET", "/organizations/acme/domains", bob.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("POST", "/organizations/acme/domains", bob.Token, map[string]any{"domain": "b.example"}),
		http.StatusForbidden)
	requireStatus(t, e.do("DELETE", "/organizations/acme/domains/"+d.ID, bob.Token, nil), http.StatusForbidden)

	requireStatus(t, e.do("DELETE", "/organizations/rival/domains/"+d.ID, bob.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", "/organizations/acme/domains/"+d.ID, alice.Token, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", "/organizations/acme/domains/"+d.ID, alice.Token, nil), http.StatusNotFound)
	require.Empty(t, decode[[]OrgDomainOut](t, e.do("GET", "/organizations/acme/domains", alice.Token, nil)))
}

// The first sign-in through a provider (zitadel's, in process) with an address it verifies creates the
// account and makes it a member of the organization of the address's domain; the audit log says how.
func TestOIDCFirstSignInJoinsByDomain(t *testing.T) {
	t.Parallel()
	op := oidctest.Start(t, []oidctest.User{opAda, opEve}, oidcCallback)
	e := oidcEnv(t, op, nil)
	owner := e.register("owner@example.com")
	requireStatus(t, e.do("POST", "/organizations", owner.Token, map[string]any{"name": "Acme", "slug": "acme"}),
		http.StatusCreated)
	requireStatus(t, e.do("POST", "/organizations/acme/domains", owner.Token, map[string]any{"domain": "example.com"}),
		http.StatusCreated)

	r := oidcSignIn(t, e, op, opAda)
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	token := cookieOf(r, sessionCookie).Value
	roles := rolesByOrgSlug(t, e.do("GET", "/organizations", token, nil))
	require.Equal(t, "member", roles["acme"], "joined by the verified domain: %v", roles)

	var adaID string
	for _, m := range decode[[]OrgMemberOut](t, e.do("GET", "/organizations/acme/members", owner.Token, nil)) {
		if m.Email == "ada@example.com" {
			adaID = m.UserID
		}
	}
	require.NotEmpty(t, adaID)
	entries := decode[[]AuditEntryOut](t, e.do("GET", "/organizations/acme/audit-log?kind=member_added",
		owner.Token, nil))
	require.Len(t, entries, 1)
	require.Equal(t, adaID, entries[0].TargetID)
	require.Equal(t, "sso_verified_email", entries[0].Changes["via"])
	require.Equal(t, "corp", entries[0].Changes["provider"])

	// Another domain: signed in, a member of nothing more.
	r = oidcSignIn(t, e, op, opEve)
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	roles = rolesByOrgSlug(t, e.do("GET", "/organizations", cookieOf(r, sessionCookie).Value, nil))
	require.NotContains(t, roles, "acme")
}

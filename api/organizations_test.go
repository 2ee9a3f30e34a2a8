package api

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/tenancy"
)

// tenancyOrgID reads an organization's id by slug straight from the database.
func (e *testEnv) tenancyOrgID(slug string) string {
	e.t.Helper()
	var id string
	require.NoError(e.t, e.pool.QueryRow(context.Background(), "SELECT id::text FROM organizations WHERE slug = $1",
		slug).Scan(&id))
	return id
}

// tenancyOrgRole reads a user's stored role in an organization ("" when not a member).
func (e *testEnv) tenancyOrgRole(orgSlug, userID string) string {
	e.t.Helper()
	var role string
	err := e.pool.QueryRow(context.Background(), `SELECT m.role FROM organization_members m
		JOIN organizations o ON o.id = m.organization_id WHERE o.slug = $1 AND m.user_id = $2`, orgSlug, userID).Scan(&role)
	if err != nil {
		return ""
	}
	return role
}

// inviteToOrg invites email into org as role through the API, as admin, and answers the invitation.
func (e *testEnv) inviteToOrg(admin user, org, email, role string) InvitationOut {
	e.t.Helper()
	r := e.do("POST", "/organizations/"+org+"/members", admin.Token, map[string]any{"email": email, "role": role})
	requireStatus(e.t, r, http.StatusAccepted)
	return decode[InvitationOut](e.t, r)
}

// addOrgMember makes u a member of org as role through the API: admin invites, u accepts.
func (e *testEnv) addOrgMember(admin, u user, org, role string) {
	e.t.Helper()
	inv := e.inviteToOrg(admin, org, u.Email, role)
	requireStatus(e.t, e.do("POST", "/organization-invitations/"+inv.Token+"/accept", u.Token, nil), http.StatusOK)
}

// rolesByOrgSlug maps each organization slug of a list answer to myRole.
func rolesByOrgSlug(t *testing.T, r *resp) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range decode[[]OrganizationOut](t, r) {
		out[o.Slug] = o.MyRole
	}
	return out
}

func TestOrganizationCreate(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")

	r := e.do("POST", "/organizations", alice.Token, map[string]any{"name": "  Acme Corp ", "slug": "acme"})
	requireStatus(t, r, http.StatusCreated)
	m := decode[OrganizationOut](t, r)
	require.NotEmpty(t, m.ID)
	require.Equal(t, "Acme Corp", m.Name, "the name is trimmed")
	require.Equal(t, "acme", m.Slug)
	require.Equal(t, alice.ID, m.OwnerID)
	require.EqualValues(t, "owner", m.MyRole)
	require.WithinDuration(t, time.Now(), m.CreatedAt, time.Minute)

	require.Equal(t, m.ID, e.tenancyOrgID("acme"))
	require.Equal(t, "owner", e.tenancyOrgRole("acme", alice.ID))
	require.Equal(t, 1, e.count("SELECT count(*) FROM organization_members WHERE organization_id = $1", m.ID))
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme' AND owner_id = $1 AND name = "+
		"'Acme Corp'", alice.ID))

	g := e.do("GET", "/organizations/acme", alice.Token, nil)
	requireStatus(t, g, http.StatusOK)
	gm := decode[OrganizationOut](t, g)
	require.Equal(t, m.ID, gm.ID)
	require.Equal(t, "Acme Corp", gm.Name)
	require.Equal(t, alice.ID, gm.OwnerID)
	require.EqualValues(t, "owner", gm.MyRole)
}

func TestOrganizationCreateDuplicateSlugIsConflict(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	e.org(alice, "acme")

	requireStatus(t, e.do("POST", "/organizations", alice.Token, map[string]any{"name": "Again", "slug": "acme"}),
		http.StatusConflict)
	// Slugs are global: another user cannot take it either.
	requireStatus(t, e.do("POST", "/organizations", bob.Token, map[string]any{"name": "Bob's acme", "slug": "acme"}),
		http.StatusConflict)
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme'"))
	require.Equal(t, "", e.tenancyOrgRole("acme", bob.ID))
}

func TestOrganizationCreateValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")

	for _, tc := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"one char", map[string]any{"name": "X", "slug": "a"}, http.StatusBadRequest},
		{"two chars", map[string]any{"name": "X", "slug": "ab"}, http.StatusCreated},
		{"sixty chars", map[string]any{"name": "X", "slug": strings.Repeat("s", 60)}, http.StatusCreated},
		{"sixty-one chars", map[string]any{"name": "X", "slug": strings.Repeat("t", 61)}, http.StatusBadRequest},
		{"uppercase", map[string]any{"name": "X", "slug": "Acme"}, http.StatusBadRequest},
		{"space", map[string]any{"name": "X", "slug": "my org"}, http.StatusBadRequest},
		{"underscore", map[string]any{"name": "X", "slug": "my_org"}, http.StatusBadRequest},
		{"leading hyphen", map[string]any{"name": "X", "slug": "-acme"}, http.StatusBadRequest},
		{"trailing hyphen", map[string]any{"name": "X", "slug": "acme-"}, http.StatusBadRequest},
		{"hyphen inside", map[string]any{"name": "X", "slug": "acme-2"}, http.StatusCreated},
		{"name missing", map[string]any{"slug": "noname"}, http.StatusBadRequest},
		{"name blank", map[string]any{"name": "   ", "slug": "blank"}, http.StatusBadRequest},
		{"slug missing", map[string]any{"name": "X"}, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("POST", "/organizations", alice.Token, tc.body)
			requireStatus(t, r, tc.want)
			slug, _ := tc.body["slug"].(string)
			want := 0
			if tc.want == http.StatusCreated {
				want = 1
				require.Equal(t, slug, decode[OrganizationOut](t, r).Slug)
			}
			require.Equal(t, want, e.count("SELECT count(*) FROM organizations WHERE slug = $1", slug))
		})
	}
}

func TestOrganizationListShowsMyRole(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	e.org(alice, "acme")
	e.addOrgMember(alice, bob, "acme", "member")
	e.addOrgMember(alice, carol, "acme", "admin")

	r := e.do("GET", "/organizations", alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, map[string]string{alice.OrgSlug: "owner", "acme": "owner"}, rolesByOrgSlug(t, r))

	r = e.do("GET", "/organizations", bob.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, map[string]string{bob.OrgSlug: "owner", "acme": "member"}, rolesByOrgSlug(t, r))
	for _, o := range decode[[]OrganizationOut](t, r) {
		require.NotEmpty(t, o.ID)
		require.NotEmpty(t, o.Name)
	}

	r = e.do("GET", "/organizations", carol.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, map[string]string{carol.OrgSlug: "owner", "acme": "admin"}, rolesByOrgSlug(t, r))

	g := e.do("GET", "/organizations/acme", bob.Token, nil)
	requireStatus(t, g, http.StatusOK)
	require.EqualValues(t, "member", decode[OrganizationOut](t, g).MyRole)
	require.Equal(t, alice.ID, decode[OrganizationOut](t, g).OwnerID)
}

func TestOrganizationOutsideTenancyIsNotFound(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	mallory := e.register("mallory@example.com")
	requireStatus(t, e.do("POST", "/organizations", alice.Token, map[string]any{"name": "Hidden Treasure Inc",
		"slug": "acme"}), http.StatusCreated)
	orgID := e.tenancyOrgID("acme")

	for _, rq := range []struct{ method, path string }{
		{"GET", "/organizations/acme"},
		{"GET", "/organizations/acme/members"},
		{"PATCH", "/organizations/acme"},
		{"DELETE", "/organizations/acme"},
		{"POST", "/organizations/acme/billing/checkout"},
		{"GET", "/orgs/acme/workspaces"},
	} {
		var body any
		if rq.method == "PATCH" {
			body = map[string]any{"name": "pwned"}
		}
		r := e.do(rq.method, rq.path, mallory.Token, body)
		requireStatus(t, r, http.StatusNotFound)
		require.NotContains(t, string(r.Body), orgID, "%s %s", rq.method, rq.path)
		require.NotContains(t, string(r.Body), "Hidden Treasure", "%s %s", rq.method, rq.path)
		require.NotContains(t, string(r.Body), alice.Email, "%s %s", rq.method, rq.path)
	}
	// The failed writes changed nothing.
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme' AND name = 'Hidden Treasure Inc'"))
	require.Equal(t, 0, e.count("SELECT count(*) FROM billing_checkouts"))

	// An unknown slug answers the same way.
	requireStatus(t, e.do("GET", "/organizations/no-such-org", alice.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/organizations/no-such-org/members", alice.Token, nil), http.StatusNotFound)
}

func TestOrganizationUpdate(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	e.org(alice, "acme")
	e.addOrgMember(alice, bob, "acme", "admin")
	e.addOrgMember(alice, carol, "acme", "member")

	r := e.do("PATCH", "/organizations/acme", bob.Token, map[string]any{"name": "Acme Renamed"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Acme Renamed", decode[OrganizationOut](t, r).Name)
	require.EqualValues(t, "admin", decode[OrganizationOut](t, r).MyRole)
	require.Equal(t, "acme", decode[OrganizationOut](t, r).Slug)
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme' AND name = 'Acme Renamed'"))

	g := e.do("GET", "/organizations/acme", carol.Token, nil)
	requireStatus(t, g, http.StatusOK)
	require.Equal(t, "Acme Renamed", decode[OrganizationOut](t, g).Name)

	requireStatus(t, e.do("PATCH", "/organizations/acme", carol.Token, map[string]any{"name": "By a member"}),
		http.StatusForbidden)
	requireStatus(t, e.do("PATCH", "/organizations/acme", alice.Token, map[string]any{"name": "   "}),
		http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", "/organizations/acme", alice.Token, map[string]any{"name": strings.Repeat("n", 101)}),
		http.StatusBadRequest)
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme' AND name = 'Acme Renamed'"))

	r = e.do("PATCH", "/organizations/acme", alice.Token, map[string]any{"name": "Acme Owned"})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "owner", decode[OrganizationOut](t, r).MyRole)
	require.Equal(t, "Acme Owned", decode[OrganizationOut](t, r).Name)
}

func TestOrganizationDeleteRemovesEverything(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	e.org(alice, "acme")
	orgID := e.tenancyOrgID("acme")
	e.addOrgMember(alice, bob, "acme", "admin")
	e.workspace(alice, "acme", "eng")
	e.workspace(alice, "acme", "ops")
	e.join(alice, carol, "acme", "eng", "member")
	requireStatus(t, e.do("POST", "/orgs/acme/workspaces/ops/members/invite", alice.Token,
		map[string]any{"email": "pending@example.com"}), http.StatusCreated)
	requireStatus(t, e.do("POST", "/organizations/acme/billing/checkout", alice.Token, nil), http.StatusCreated)

	const (
		wsCount = "SELECT count(*) FROM workspaces WHERE organization_id = $1"
		wmCount = "SELECT count(*) FROM workspace_members wm JOIN workspaces w ON w.id = wm.workspace_id WHERE " +
			"w.organization_id = $1"
		invCount = "SELECT count(*) FROM workspace_invitations i JOIN workspaces w ON w.id = i.workspace_id WHERE " +
			"w.organization_id = $1"
		omCount   = "SELECT count(*) FROM organization_members WHERE organization_id = $1"
		billCount = "SELECT count(*) FROM billing_checkouts WHERE organization_id = $1"
	)
	require.Equal(t, 2, e.count(wsCount, orgID))
	require.Equal(t, 3, e.count(wmCount, orgID)) // alice in eng and ops, carol in eng
	require.Equal(t, 2, e.count(invCount, orgID))
	require.Equal(t, 3, e.count(omCount, orgID))
	require.Equal(t, 1, e.count(billCount, orgID))
	totalWS := e.count("SELECT count(*) FROM workspaces")
	totalWM := e.count("SELECT count(*) FROM workspace_members")

	requireStatus(t, e.do("DELETE", "/organizations/acme", bob.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", "/organizations/acme", carol.Token, nil), http.StatusForbidden)
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE id = $1", orgID))
	require.Equal(t, 2, e.count(wsCount, orgID))

	requireStatus(t, e.do("DELETE", "/organizations/acme", alice.Token, nil), http.StatusOK)

	require.Equal(t, 0, e.count("SELECT count(*) FROM organizations WHERE id = $1", orgID))
	require.Equal(t, 0, e.count(wsCount, orgID))
	require.Equal(t, 0, e.count("SELECT count(*) FROM workspace_invitations"))
	require.Equal(t, 0, e.count(omCount, orgID))
	require.Equal(t, 0, e.count(billCount, orgID))
	require.Equal(t, totalWS-2, e.count("SELECT count(*) FROM workspaces"))
	require.Equal(t, totalWM-3, e.count("SELECT count(*) FROM workspace_members"))

	for _, u := range []user{alice, bob, carol} {
		requireStatus(t, e.do("GET", "/organizations/acme", u.Token, nil), http.StatusNotFound)
		requireStatus(t, e.do("GET", "/orgs/acme/workspaces/eng", u.Token, nil), http.StatusNotFound)
	}
	// The users and their personal organizations survive.
	r := e.do("GET", "/organizations", alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, map[string]string{alice.OrgSlug: "owner"}, rolesByOrgSlug(t, r))
	requireStatus(t, e.do("GET", "/orgs/"+carol.OrgSlug+"/workspaces/personal", carol.Token, nil), http.StatusOK)
	// The slug is free again.
	e.org(bob, "acme")
}

// TestOrganizationMembersInvite: adding someone by e-mail invites them; the answer is the same whether or
// not the address has an account, and nobody joins until they accept.
func TestOrganizationMembersInvite(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	dave := e.register("dave@example.com")
	e.org(alice, "acme")
	orgID := e.tenancyOrgID("acme")

	// An address with an account and one without: the same status and the same fields.
	known := e.do("POST", "/organizations/acme/members", alice.Token, map[string]any{"email": bob.Email, "role": "member"})
	unknown := e.do("POST", "/organizations/acme/members", alice.Token, map[string]any{"email": "nobody@example.com",
		"role": "member"})
	requireStatus(t, known, http.StatusAccepted)
	requireStatus(t, unknown, http.StatusAccepted)
	keys := func(r *resp) []string {
		var ks []string
		for k := range bodyFields(t, r) {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	require.Equal(t, keys(known), keys(unknown))
	inv := decode[InvitationOut](t, known)
	require.Equal(t, "bob@example.com", inv.Email)
	require.EqualValues(t, "member", inv.Role)
	require.Equal(t, "http://pilot.test/organization-invitations/"+inv.Token+"/accept", inv.AcceptURL)
	require.WithinDuration(t, time.Now().Add(7*24*time.Hour), inv.ExpiresAt, 2*time.Minute)

	// Nobody joined: bob must accept. Each address is e-mailed its link; the token is stored hashed.
	require.Equal(t, "", e.tenancyOrgRole("acme", bob.ID))
	mails := e.mails(tenancy.EmailTopicOrganizationInvitation)
	require.Len(t, mails, 2)
	require.Equal(t, []string{"bob@example.com", "nobody@example.com"}, []string{mails[0].To, mails[1].To})
	require.Contains(t, mails[0].Body, inv.AcceptURL)
	require.Equal(t, inv.ID, mails[0].RefID)
	require.Equal(t, 0, e.count("SELECT count(*) FROM organization_invitations WHERE token_hash = $1", []byte(inv.Token)))
	require.Equal(t, 2, e.count("SELECT count(*) FROM organization_invitations WHERE organization_id = $1 AND "+
		"accepted_at IS NULL", orgID))

	// Only the invited address accepts, once.
	accept := func(u user, token string) *resp {
		return e.do("POST", "/organization-invitations/"+token+"/accept", u.Token, nil)
	}
	requireStatus(t, accept(carol, inv.Token), http.StatusForbidden)
	requireStatus(t, accept(bob, "no-such-token"), http.StatusNotFound)
	r := accept(bob, inv.Token)
	requireStatus(t, r, http.StatusOK)
	acc := decode[AcceptedOrgInvitationOut](t, r)
	require.EqualValues(t, "member", acc.Role)
	require.Equal(t, "acme", acc.Organization.Slug)
	require.EqualValues(t, "member", acc.Organization.MyRole)
	require.Equal(t, "member", e.tenancyOrgRole("acme", bob.ID))
	requireStatus(t, accept(bob, inv.Token), http.StatusConflict)
	requireStatus(t, e.do("GET", "/organizations/acme", bob.Token, nil), http.StatusOK)

	// Case-insensitive; an admin invitation gives the admin role.
	e.addOrgMember(alice, user{ID: carol.ID, Email: "CAROL@example.com", Token: carol.Token}, "acme", "admin")
	require.Equal(t, "admin", e.tenancyOrgRole("acme", carol.ID))

	r = e.do("GET", "/organizations/acme/members", bob.Token, nil)
	requireStatus(t, r, http.StatusOK)
	got := map[string]string{}
	for _, mm := range decode[[]OrgMemberOut](t, r) {
		got[mm.UserID] = string(mm.Role)
		require.NotEmpty(t, mm.Email)
	}
	require.Equal(t, map[string]string{alice.ID: "owner", bob.ID: "member", carol.ID: "admin"}, got)

	// Refusals write no invitation and send nothing.
	before := e.count("SELECT count(*) FROM organization_invitations")
	requireStatus(t, e.do("POST", "/organizations/acme/members", alice.Token, map[string]any{"email": bob.Email,
		"role": "admin"}), http.StatusConflict)
	requireStatus(t, e.do("POST", "/organizations/acme/members", alice.Token, map[string]any{"email": "BOB@example.com",
		"role": "admin"}), http.StatusConflict)
	requireStatus(t, e.do("POST", "/organizations/acme/members", alice.Token, map[string]any{"email": dave.Email,
		"role": "owner"}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/organizations/acme/members", alice.Token, map[string]any{"email": dave.Email,
		"role": "boss"}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/organizations/acme/members", alice.Token, map[string]any{"email": dave.Email}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/organizations/acme/members", alice.Token, map[string]any{"email": "not-an-email",
		"role": "member"}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/organizations/acme/members", bob.Token, map[string]any{"email": dave.Email,
		"role": "member"}), http.StatusForbidden)
	require.Equal(t, before, e.count("SELECT count(*) FROM organization_invitations"))
	require.Len(t, e.mails(tenancy.EmailTopicOrganizationInvitation), 3)
	require.Equal(t, "member", e.tenancyOrgRole("acme", bob.ID), "a refused invitation must not change the role")

	// An admin may invite too; an expired invitation is refused.
	late := e.inviteToOrg(carol, "acme", dave.Email, "member")
	_, err := e.pool.Exec(context.Background(), "UPDATE organization_invitations SET expires_at = now() - interval '1 "+
		"second' WHERE id = $1", late.ID)
	require.NoError(t, err)
	requireStatus(t, accept(dave, late.Token), http.StatusBadRequest)
	require.Equal(t, "", e.tenancyOrgRole("acme", dave.ID))
	e.addOrgMember(carol, dave, "acme", "member")
	require.Equal(t, "member", e.tenancyOrgRole("acme", dave.ID))

	// Someone invited before they had an account joins once they sign up with the address.
	nobodyToken := ""
	for _, m := range e.mails(tenancy.EmailTopicOrganizationInvitation) {
		if m.To == "nobody@example.com" {
			nobodyToken = regexp.MustCompile(`/organization-invitations/([0-9a-f]+)/accept`).FindStringSubmatch(m.Body)[1]
		}
	}
	require.NotEmpty(t, nobodyToken)
	newcomer := e.register("nobody@example.com")
	requireStatus(t, accept(newcomer, nobodyToken), http.StatusOK)
	require.Equal(t, "member", e.tenancyOrgRole("acme", newcomer.ID))
}

func TestOrganizationMemberRoleChange(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	e.org(alice, "acme")
	e.addOrgMember(alice, bob, "acme", "member")
	e.addOrgMember(alice, carol, "acme", "admin")
	base := "/organizations/acme/members/"

	r := e.do("PATCH", base+bob.ID, carol.Token, map[string]any{"role": "admin"})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "admin", decode[OrgMemberOut](t, r).Role)
	require.Equal(t, bob.ID, decode[OrgMemberOut](t, r).UserID)
	require.Equal(t, "admin", e.tenancyOrgRole("acme", bob.ID))
	g := e.do("GET", "/organizations/acme", bob.Token, nil)
	requireStatus(t, g, http.StatusOK)
	require.EqualValues(t, "admin", decode[OrganizationOut](t, g).MyRole)

	r = e.do("PATCH", base+bob.ID, alice.Token, map[string]any{"role": "member"})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "member", decode[OrgMemberOut](t, r).Role)
	require.Equal(t, "member", e.tenancyOrgRole("acme", bob.ID))

	// The owner's role is immutable, whoever asks.
	requireStatus(t, e.do("PATCH", base+alice.ID, carol.Token, map[string]any{"role": "member"}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", base+alice.ID, alice.Token, map[string]any{"role": "admin"}), http.StatusForbidden)
	require.Equal(t, "owner", e.tenancyOrgRole("acme", alice.ID))

	// A member cannot change roles; nobody can grant owner.
	requireStatus(t, e.do("PATCH", base+carol.ID, bob.Token, map[string]any{"role": "member"}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", base+bob.ID, alice.Token, map[string]any{"role": "owner"}), http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", base+bob.ID, alice.Token, map[string]any{}), http.StatusBadRequest)
	require.Equal(t, "admin", e.tenancyOrgRole("acme", carol.ID))
	require.Equal(t, "member", e.tenancyOrgRole("acme", bob.ID))

	// Unknown members.
	outsider := e.register("outsider@example.com")
	requireStatus(t, e.do("PATCH", base+outsider.ID, alice.Token, map[string]any{"role": "admin"}), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", base+"01890000-0000-7000-8000-000000000000", alice.Token,
		map[string]any{"role": "admin"}), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", base+"not-a-uuid", alice.Token, map[string]any{"role": "admin"}), http.StatusNotFound)
	require.Equal(t, "", e.tenancyOrgRole("acme", outsider.ID))
}

func TestOrganizationMemberRemove(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	dave := e.register("dave@example.com")
	e.org(alice, "acme")
	e.addOrgMember(alice, bob, "acme", "admin")
	e.workspace(alice, "acme", "eng")
	e.workspace(alice, "acme", "ops")
	e.join(alice, carol, "acme", "eng", "member")
	e.join(alice, carol, "acme", "ops", "member")
	e.join(alice, dave, "acme", "eng", "member")
	base := "/organizations/acme/members/"
	orgID := e.tenancyOrgID("acme")
	wsOf := func(u user) int {
		return e.count(`SELECT count(*) FROM workspace_members wm JOIN workspaces w ON w.id = wm.workspace_id
			WHERE w.organization_id = $1 AND wm.user_id = $2`, orgID, u.ID)
	}
	require.Equal(t, 2, wsOf(carol))
	require.Equal(t, 1, wsOf(dave))

	// The owner cannot be removed, not even by themselves.
	requireStatus(t, e.do("DELETE", base+alice.ID, bob.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", base+alice.ID, alice.Token, nil), http.StatusForbidden)
	require.Equal(t, "owner", e.tenancyOrgRole("acme", alice.ID))

	// A member cannot remove someone else.
	requireStatus(t, e.do("DELETE", base+dave.ID, carol.Token, nil), http.StatusForbidden)
	require.Equal(t, "member", e.tenancyOrgRole("acme", dave.ID))
	require.Equal(t, 1, wsOf(dave))

	// An admin removes a member, who also leaves every workspace of the organization (and only those).
	personalBefore := e.count("SELECT count(*) FROM workspace_members WHERE user_id = $1", carol.ID) - wsOf(carol)
	requireStatus(t, e.do("DELETE", base+carol.ID, bob.Token, nil), http.StatusOK)
	require.Equal(t, "", e.tenancyOrgRole("acme", carol.ID))
	require.Equal(t, 0, wsOf(carol))
	require.Equal(t, personalBefore, e.count("SELECT count(*) FROM workspace_members WHERE user_id = $1", carol.ID))
	requireStatus(t, e.do("GET", "/organizations/acme", carol.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/orgs/acme/workspaces/eng", carol.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/orgs/"+carol.OrgSlug+"/workspaces/personal", carol.Token, nil), http.StatusOK)

	// Removing someone who is not a member is 404.
	requireStatus(t, e.do("DELETE", base+carol.ID, bob.Token, nil), http.StatusNotFound)

	// A member may leave on their own.
	requireStatus(t, e.do("DELETE", base+dave.ID, dave.Token, nil), http.StatusOK)
	require.Equal(t, "", e.tenancyOrgRole("acme", dave.ID))
	require.Equal(t, 0, wsOf(dave))
	requireStatus(t, e.do("GET", "/orgs/acme/workspaces/eng", dave.Token, nil), http.StatusNotFound)

	r := e.do("GET", "/organizations/acme/members", alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]OrgMemberOut](t, r), 2)
}

func TestOrganizationBillingCheckout(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	e.org(alice, "acme")
	e.addOrgMember(alice, bob, "acme", "admin")
	e.addOrgMember(alice, carol, "acme", "member")
	orgID := e.tenancyOrgID("acme")

	r := e.do("POST", "/organizations/acme/billing/checkout", alice.Token, nil)
	requireStatus(t, r, http.StatusCreated)
	m := decode[CheckoutOut](t, r)
	require.NotEmpty(t, m.ID)
	require.EqualValues(t, "open", m.Status)
	require.True(t, strings.HasPrefix(m.URL, "http://pilot.test/"), "url: %v", m.URL)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM billing_checkouts WHERE id = $1 AND organization_id = $2
		AND created_by = $3 AND url = $4 AND status = 'open' AND provider = 'local'`, m.ID, orgID, alice.ID, m.URL))

	requireStatus(t, e.do("POST", "/organizations/acme/billing/checkout", bob.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("POST", "/organizations/acme/billing/checkout", carol.Token, nil), http.StatusForbidden)
	require.Equal(t, 1, e.count("SELECT count(*) FROM billing_checkouts"))

	// Each checkout is its own session.
	r2 := e.do("POST", "/organizations/acme/billing/checkout", alice.Token, nil)
	requireStatus(t, r2, http.StatusCreated)
	require.NotEqual(t, m.ID, decode[CheckoutOut](t, r2).ID)
	require.Equal(t, 2, e.count("SELECT count(*) FROM billing_checkouts WHERE organization_id = $1", orgID))
}

func TestOrganizationTokenScopesAndCredentials(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	e.org(alice, "acme")
	readOnly := e.pat(alice, []string{"projects:read"})
	writer := e.pat(alice, []string{"projects:write"})

	r := e.do("GET", "/organizations", readOnly, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "owner", rolesByOrgSlug(t, r)["acme"])
	requireStatus(t, e.do("GET", "/organizations/acme", readOnly, nil), http.StatusOK)
	requireStatus(t, e.do("GET", "/organizations/acme/members", readOnly, nil), http.StatusOK)

	requireStatus(t, e.do("POST", "/organizations", readOnly, map[string]any{"name": "X", "slug": "via-read-token"}),
		http.StatusForbidden)
	requireStatus(t, e.do("PATCH", "/organizations/acme", readOnly, map[string]any{"name": "via read token"}),
		http.StatusForbidden)
	requireStatus(t, e.do("POST", "/organizations/acme/members", readOnly, map[string]any{"email": bob.Email,
		"role": "member"}), http.StatusForbidden)
	requireStatus(t, e.do("POST", "/organizations/acme/billing/checkout", readOnly, nil), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", "/organizations/acme", readOnly, nil), http.StatusForbidden)
	require.Equal(t, 0, e.count("SELECT count(*) FROM organizations WHERE slug = 'via-read-token'"))
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme' AND name = 'acme'"))
	require.Equal(t, "", e.tenancyOrgRole("acme", bob.ID))
	require.Equal(t, 0, e.count("SELECT count(*) FROM billing_checkouts"))

	// A write token lacks read but may write.
	requireStatus(t, e.do("GET", "/organizations/acme", writer, nil), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", "/organizations/acme", writer, map[string]any{"name": "via write token"}),
		http.StatusOK)
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme' AND name = 'via write token'"))

	// No credentials, or bad ones.
	for _, rq := range []struct{ method, path string }{
		{"GET", "/organizations"},
		{"POST", "/organizations"},
		{"GET", "/organizations/acme"},
		{"PATCH", "/organizations/acme"},
		{"DELETE", "/organizations/acme"},
		{"GET", "/organizations/acme/members"},
		{"POST", "/organizations/acme/billing/checkout"},
	} {
		requireStatus(t, e.do(rq.method, rq.path, "", nil), http.StatusUnauthorized)
		requireStatus(t, e.do(rq.method, rq.path, "not-a-token", nil), http.StatusUnauthorized)
	}
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme'"))
}

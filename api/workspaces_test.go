package api

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/tenancy"
)

// tenancyWorkspaceID reads a workspace's id by organization and workspace slug.
func (e *testEnv) tenancyWorkspaceID(orgSlug, wsSlug string) string {
	e.t.Helper()
	var id string
	require.NoError(e.t, e.pool.QueryRow(context.Background(), `SELECT w.id::text FROM workspaces w
		JOIN organizations o ON o.id = w.organization_id WHERE o.slug = $1 AND w.slug = $2`, orgSlug, wsSlug).Scan(&id))
	return id
}

// tenancyWSRoles reads a user's stored workspace role and pilotage role ("", "" when not a member).
func (e *testEnv) tenancyWSRoles(wsID, userID string) (string, string) {
	e.t.Helper()
	var role, prole string
	err := e.pool.QueryRow(context.Background(), "SELECT role, pilotage_role FROM workspace_members WHERE workspace_id "+
		"= $1 AND user_id = $2",
		wsID, userID).Scan(&role, &prole)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ""
	}
	require.NoError(e.t, err)
	return role, prole
}

// invite invites email into org/ws as inviter and returns the answer's body.
func (e *testEnv) invite(inviter user, org, ws, email, role string) InvitationOut {
	e.t.Helper()
	body := map[string]any{"email": email}
	if role != "" {
		body["role"] = role
	}
	r := e.do("POST", "/orgs/"+org+"/workspaces/"+ws+"/members/invite", inviter.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	return decode[InvitationOut](e.t, r)
}

// wsSlugs lists the slugs of a workspace list answer with myRole/myPilotageRole.
func wsSlugs(t *testing.T, r *resp) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, w := range decode[[]WorkspaceOut](t, r) {
		out[w.Slug] = w.MyRole + "/" + w.MyPilotageRole
	}
	return out
}

func TestWorkspaceCreate(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	mallory := e.register("mallory@example.com")
	e.org(alice, "acme")
	e.addOrgMember(alice, bob, "acme", "member")
	e.addOrgMember(alice, carol, "acme", "admin")
	orgID := e.tenancyOrgID("acme")

	r := e.do("POST", "/orgs/acme/workspaces", alice.Token, map[string]any{"name": " Engineering ", "slug": "eng"})
	requireStatus(t, r, http.StatusCreated)
	m := decode[WorkspaceOut](t, r)
	require.NotEmpty(t, m.ID)
	require.Equal(t, "Engineering", m.Name)
	require.Equal(t, "eng", m.Slug)
	require.Equal(t, orgID, m.OrganizationID)
	require.Equal(t, alice.ID, m.OwnerID)
	require.Equal(t, false, m.IsPersonal)
	require.EqualValues(t, "admin", m.MyRole)
	require.EqualValues(t, "owner", m.MyPilotageRole)
	require.NotEmpty(t, m.CreatedAt)
	require.NotEmpty(t, m.UpdatedAt)
	role, prole := e.tenancyWSRoles(m.ID, alice.ID)
	require.Equal(t, "admin", role)
	require.Equal(t, "owner", prole)
	require.Equal(t, 1, e.count("SELECT count(*) FROM workspace_members WHERE workspace_id = $1", m.ID))

	// An organization admin may create one too and becomes its admin and pilotage owner.
	r = e.do("POST", "/orgs/acme/workspaces", carol.Token, map[string]any{"name": "Ops", "slug": "ops"})
	requireStatus(t, r, http.StatusCreated)
	role, prole = e.tenancyWSRoles(decode[WorkspaceOut](t, r).ID, carol.ID)
	require.Equal(t, "admin/owner", role+"/"+prole)

	// A plain organization member may not; an outsider does not see the organization.
	requireStatus(t, e.do("POST", "/orgs/acme/workspaces", bob.Token, map[string]any{"name": "Bob's", "slug": "bobs"}),
		http.StatusForbidden)
	requireStatus(t, e.do("POST", "/orgs/acme/workspaces", mallory.Token, map[string]any{"name": "Mal", "slug": "mal"}),
		http.StatusNotFound)
	requireStatus(t, e.do("POST", "/orgs/no-such-org/workspaces", alice.Token, map[string]any{"name": "X", "slug": "xx"}),
		http.StatusNotFound)

	// Duplicate slug in the same organization; the same slug elsewhere is fine.
	requireStatus(t, e.do("POST", "/orgs/acme/workspaces", carol.Token, map[string]any{"name": "Eng 2", "slug": "eng"}),
		http.StatusConflict)
	e.org(alice, "beta")
	r = e.do("POST", "/orgs/beta/workspaces", alice.Token, map[string]any{"name": "Beta eng", "slug": "eng"})
	requireStatus(t, r, http.StatusCreated)
	require.Equal(t, e.tenancyOrgID("beta"), decode[WorkspaceOut](t, r).OrganizationID)
	require.Equal(t, 2, e.count("SELECT count(*) FROM workspaces WHERE organization_id = $1", orgID))
	require.Equal(t, 2, e.count("SELECT count(*) FROM workspaces WHERE slug = 'eng'"))
	// "personal" exists in alice's personal organization, not in acme.
	requireStatus(t, e.do("POST", "/orgs/acme/workspaces", alice.Token, map[string]any{"name": "P", "slug": "personal"}),
		http.StatusCreated)
	requireStatus(t, e.do("POST", "/orgs/"+alice.OrgSlug+"/workspaces", alice.Token, map[string]any{"name": "P",
		"slug": "personal"}), http.StatusConflict)

	for _, tc := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"one char", map[string]any{"name": "X", "slug": "a"}, http.StatusBadRequest},
		{"two chars", map[string]any{"name": "X", "slug": "ab"}, http.StatusCreated},
		{"sixty chars", map[string]any{"name": "X", "slug": strings.Repeat("w", 60)}, http.StatusCreated},
		{"sixty-one chars", map[string]any{"name": "X", "slug": strings.Repeat("v", 61)}, http.StatusBadRequest},
		{"uppercase", map[string]any{"name": "X", "slug": "Eng"}, http.StatusBadRequest},
		{"space", map[string]any{"name": "X", "slug": "my ws"}, http.StatusBadRequest},
		{"underscore", map[string]any{"name": "X", "slug": "my_ws"}, http.StatusBadRequest},
		{"leading hyphen", map[string]any{"name": "X", "slug": "-ws"}, http.StatusBadRequest},
		{"name missing", map[string]any{"slug": "noname"}, http.StatusBadRequest},
		{"name blank", map[string]any{"name": " ", "slug": "blank"}, http.StatusBadRequest},
		{"slug missing", map[string]any{"name": "X"}, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("POST", "/orgs/acme/workspaces", alice.Token, tc.body)
			requireStatus(t, r, tc.want)
			slug, _ := tc.body["slug"].(string)
			want := 0
			if tc.want == http.StatusCreated {
				want = 1
			}
			require.Equal(t, want, e.count("SELECT count(*) FROM workspaces WHERE organization_id = $1 AND slug = $2", orgID,
				slug))
		})
	}
	require.Equal(t, 0, e.count("SELECT count(*) FROM workspaces WHERE slug IN ('bobs', 'mal', 'xx')"))
}

func TestWorkspaceListByRole(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	dave := e.register("dave@example.com")
	e.org(alice, "acme")
	e.workspace(alice, "acme", "eng")
	e.workspace(alice, "acme", "ops")
	e.workspace(alice, "acme", "sales")
	e.join(alice, bob, "acme", "eng", "member")
	e.addOrgMember(alice, carol, "acme", "admin")
	e.addOrgMember(alice, dave, "acme", "member")

	// An organization member sees only the workspaces they belong to.
	r := e.do("GET", "/orgs/acme/workspaces", bob.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, map[string]string{"eng": "member/viewer"}, wsSlugs(t, r))
	r = e.do("GET", "/orgs/acme/workspaces", dave.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[[]WorkspaceOut](t, r))

	// Organization owners and admins see them all, as admins.
	all := map[string]string{"eng": "admin/owner", "ops": "admin/owner", "sales": "admin/owner"}
	r = e.do("GET", "/orgs/acme/workspaces", carol.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, all, wsSlugs(t, r))
	r = e.do("GET", "/orgs/acme/workspaces", alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, all, wsSlugs(t, r))
	for _, w := range decode[[]WorkspaceOut](t, r) {
		require.Equal(t, e.tenancyOrgID("acme"), w.OrganizationID)
	}

	// Promoted to admin, bob sees everything.
	requireStatus(t, e.do("PATCH", "/organizations/acme/members/"+bob.ID, alice.Token, map[string]any{"role": "admin"}),
		http.StatusOK)
	r = e.do("GET", "/orgs/acme/workspaces", bob.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]WorkspaceOut](t, r), 3)
	require.Equal(t, "admin", wsSlugs(t, r)["ops"][:5])
}

func TestWorkspaceGetAndTenancy(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	dave := e.register("dave@example.com")
	mallory := e.register("mallory@example.com")
	e.org(alice, "acme")
	requireStatus(t, e.do("POST", "/orgs/acme/workspaces", alice.Token, map[string]any{"name": "Secret Skunkworks",
		"slug": "eng"}), http.StatusCreated)
	requireStatus(t, e.do("POST", "/orgs/acme/workspaces", alice.Token, map[string]any{"name": "Classified Ops",
		"slug": "ops"}), http.StatusCreated)
	e.join(alice, bob, "acme", "eng", "member")
	e.addOrgMember(alice, dave, "acme", "member")
	engID := e.tenancyWorkspaceID("acme", "eng")
	opsID := e.tenancyWorkspaceID("acme", "ops")

	r := e.do("GET", "/orgs/acme/workspaces/eng", alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	m := decode[WorkspaceOut](t, r)
	require.Equal(t, engID, m.ID)
	require.Equal(t, "Secret Skunkworks", m.Name)
	require.EqualValues(t, "admin", m.MyRole)
	require.EqualValues(t, "owner", m.MyPilotageRole)

	r = e.do("GET", "/orgs/acme/workspaces/eng", bob.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "member", decode[WorkspaceOut](t, r).MyRole)
	require.EqualValues(t, "viewer", decode[WorkspaceOut](t, r).MyPilotageRole)

	// An organization member outside the workspace.
	for _, u := range []user{bob, dave} {
		r = e.do("GET", "/orgs/acme/workspaces/ops", u.Token, nil)
		requireStatus(t, r, http.StatusNotFound)
		require.NotContains(t, string(r.Body), opsID)
		require.NotContains(t, string(r.Body), "Classified")
	}

	// A user of another organization: every org and workspace route is 404 and leaks nothing.
	for _, rq := range []struct{ method, path string }{
		{"GET", "/organizations/acme"},
		{"GET", "/orgs/acme/workspaces"},
		{"GET", "/orgs/acme/workspaces/eng"},
		{"GET", "/orgs/acme/workspaces/eng/members"},
		{"POST", "/orgs/acme/workspaces/eng/members/invite"},
		{"PATCH", "/orgs/acme/workspaces/eng/members/" + bob.ID},
	} {
		var body any
		switch rq.method {
		case "POST":
			body = map[string]any{"email": "x@example.com"}
		case "PATCH":
			body = map[string]any{"role": "admin"}
		}
		r = e.do(rq.method, rq.path, mallory.Token, body)
		requireStatus(t, r, http.StatusNotFound)
		for _, secret := range []string{engID, opsID, "Secret Skunkworks", "Classified Ops", bob.Email, alice.Email} {
			require.NotContains(t, string(r.Body), secret, "%s %s", rq.method, rq.path)
		}
	}
	require.Equal(t, 1, e.count("SELECT count(*) FROM workspace_invitations")) // only bob's
	role, _ := e.tenancyWSRoles(engID, bob.ID)
	require.Equal(t, "member", role)

	// Mallory's own workspace under acme's slug, and unknown slugs.
	requireStatus(t, e.do("GET", "/orgs/"+mallory.OrgSlug+"/workspaces/eng", mallory.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/orgs/acme/workspaces/personal", alice.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/orgs/acme/workspaces/no-such-ws", alice.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/orgs/acme/workspaces/eng", "", nil), http.StatusUnauthorized)
}

func TestWorkspaceInvite(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	e.org(alice, "acme")
	requireStatus(t, e.do("POST", "/orgs/acme/workspaces", alice.Token, map[string]any{"name": "Engineering",
		"slug": "eng"}), http.StatusCreated)
	wsID := e.tenancyWorkspaceID("acme", "eng")

	r := e.do("POST", "/orgs/acme/workspaces/eng/members/invite", alice.Token,
		map[string]any{"email": "Newbie@Example.com", "role": "admin"})
	requireStatus(t, r, http.StatusCreated)
	m := decode[InvitationOut](t, r)
	invID := m.ID
	require.NotEmpty(t, invID)
	require.Equal(t, "newbie@example.com", strings.ToLower(m.Email))
	require.EqualValues(t, "admin", m.Role)
	token := m.Token
	require.GreaterOrEqual(t, len(token), 16)
	require.Equal(t, "http://pilot.test/invitations/"+token+"/accept", m.AcceptURL)
	require.WithinDuration(t, time.Now().Add(7*24*time.Hour), m.ExpiresAt, 2*time.Minute)

	// Stored: bound to the e-mail, the token only as its hash.
	hash := sha256.Sum256([]byte(token))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM workspace_invitations WHERE id = $1 AND workspace_id = $2
		AND email = 'newbie@example.com' AND role = 'admin' AND invited_by = $3 AND token_hash = $4 AND accepted_at IS NULL`,
		invID, wsID, alice.ID, hash[:]))
	require.Equal(t, 0, e.count("SELECT count(*) FROM workspace_invitations WHERE token_hash = $1", []byte(token)))

	// The e-mail job was inserted with the invitation.
	mails := e.mails(tenancy.EmailTopicInvitation)
	require.Len(t, mails, 1)
	job := mails[0]
	require.Equal(t, "newbie@example.com", job.To)
	require.Equal(t, invID, job.RefID)
	require.Contains(t, job.Subject, "Engineering")
	require.Contains(t, job.Body, m.AcceptURL)
	require.NotContains(t, job.Body, "%!")

	// The role defaults to member.
	d := e.invite(alice, "acme", "eng", "default@example.com", "")
	require.EqualValues(t, "member", d.Role)
	require.NotEqual(t, token, d.Token)

	// Refusals write neither an invitation nor a job.
	bob := e.register("bob@example.com")
	e.join(alice, bob, "acme", "eng", "member")
	invitations := e.count("SELECT count(*) FROM workspace_invitations")
	require.Equal(t, 3, invitations)
	require.Len(t, e.mails(tenancy.EmailTopicInvitation), 3)

	base := "/orgs/acme/workspaces/eng/members/invite"
	requireStatus(t, e.do("POST", base, bob.Token, map[string]any{"email": "friend@example.com"}), http.StatusForbidden)
	requireStatus(t, e.do("POST", base, alice.Token, map[string]any{"email": "not-an-email"}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", base, alice.Token, map[string]any{}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", base, alice.Token, map[string]any{"email": "x@example.com", "role": "owner"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", base, alice.Token, map[string]any{"email": "x@example.com", "role": "viewer"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", base, alice.Token, map[string]any{"email": bob.Email}), http.StatusConflict)
	requireStatus(t, e.do("POST", base, alice.Token, map[string]any{"email": "BOB@example.com"}), http.StatusConflict)
	requireStatus(t, e.do("POST", base, alice.Token, map[string]any{"email": alice.Email}), http.StatusConflict)
	requireStatus(t, e.do("POST", base, "", map[string]any{"email": "x@example.com"}), http.StatusUnauthorized)
	require.Equal(t, invitations, e.count("SELECT count(*) FROM workspace_invitations"))
	require.Len(t, e.mails(tenancy.EmailTopicInvitation), 3)

	// An organization admin who is not in the workspace acts as its admin.
	carol := e.register("carol@example.com")
	e.addOrgMember(alice, carol, "acme", "admin")
	e.invite(carol, "acme", "eng", "via-org-admin@example.com", "member")
	require.Len(t, e.mails(tenancy.EmailTopicInvitation), 4)
}

func TestInvitationAccept(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	carol := e.register("carol@example.com")
	dave := e.register("dave@example.com")
	e.org(alice, "acme")
	requireStatus(t, e.do("POST", "/orgs/acme/workspaces", alice.Token, map[string]any{"name": "Engineering",
		"slug": "eng"}), http.StatusCreated)
	wsID := e.tenancyWorkspaceID("acme", "eng")
	inv := e.invite(alice, "acme", "eng", "Carol@Example.com", "member")
	token := inv.Token
	path := "/invitations/" + token + "/accept"

	// Before accepting, carol cannot see the organization or workspace.
	requireStatus(t, e.do("GET", "/orgs/acme/workspaces/eng", carol.Token, nil), http.StatusNotFound)

	// Without credentials, or as someone else, nothing happens.
	requireStatus(t, e.do("POST", path, "", nil), http.StatusUnauthorized)
	requireStatus(t, e.do("POST", path, dave.Token, nil), http.StatusForbidden)
	require.Equal(t, "", e.tenancyOrgRole("acme", dave.ID))
	role, _ := e.tenancyWSRoles(wsID, dave.ID)
	require.Empty(t, role)
	require.Equal(t, 1, e.count("SELECT count(*) FROM workspace_invitations WHERE id = $1 AND accepted_at IS NULL",
		inv.ID))

	r := e.do("POST", path, carol.Token, nil)
	requireStatus(t, r, http.StatusOK)
	m := decode[AcceptedInvitationOut](t, r)
	require.Equal(t, "acme", m.OrganizationSlug)
	require.EqualValues(t, "member", m.Role)
	ws := m.Workspace
	require.Equal(t, wsID, ws.ID)
	require.Equal(t, "eng", ws.Slug)

	require.Equal(t, "member", e.tenancyOrgRole("acme", carol.ID))
	role, prole := e.tenancyWSRoles(wsID, carol.ID)
	require.Equal(t, "member", role)
	require.Equal(t, "viewer", prole)
	require.Equal(t, 1, e.count("SELECT count(*) FROM workspace_invitations WHERE id = $1 AND accepted_at IS NOT NULL "+
		"AND accepted_by = $2",
		inv.ID, carol.ID))

	g := e.do("GET", "/orgs/acme/workspaces/eng", carol.Token, nil)
	requireStatus(t, g, http.StatusOK)
	require.EqualValues(t, "member", decode[WorkspaceOut](t, g).MyRole)
	require.EqualValues(t, "viewer", decode[WorkspaceOut](t, g).MyPilotageRole)
	o := e.do("GET", "/organizations/acme", carol.Token, nil)
	requireStatus(t, o, http.StatusOK)
	require.EqualValues(t, "member", decode[OrganizationOut](t, o).MyRole)

	// Single use.
	requireStatus(t, e.do("POST", path, carol.Token, nil), http.StatusConflict)
	requireStatus(t, e.do("POST", "/invitations/no-such-token/accept", carol.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", "/invitations/"+strings.ToUpper(token)+"x/accept", carol.Token, nil),
		http.StatusNotFound)

	// Expired.
	inv2 := e.invite(alice, "acme", "eng", dave.Email, "admin")
	_, err := e.pool.Exec(context.Background(), "UPDATE workspace_invitations SET expires_at = now() - interval '1 "+
		"minute' WHERE id = $1", inv2.ID)
	require.NoError(t, err)
	requireStatus(t, e.do("POST", "/invitations/"+inv2.Token+"/accept", dave.Token, nil), http.StatusBadRequest)
	require.Equal(t, "", e.tenancyOrgRole("acme", dave.ID))
	role, _ = e.tenancyWSRoles(wsID, dave.ID)
	require.Empty(t, role)

	// An admin invitation makes a workspace admin; the organization role it adds is member.
	inv3 := e.invite(alice, "acme", "eng", dave.Email, "admin")
	requireStatus(t, e.do("POST", "/invitations/"+inv3.Token+"/accept", dave.Token, nil), http.StatusOK)
	role, prole = e.tenancyWSRoles(wsID, dave.ID)
	require.Equal(t, "admin/viewer", role+"/"+prole)
	require.Equal(t, "member", e.tenancyOrgRole("acme", dave.ID))
	g = e.do("GET", "/orgs/acme/workspaces/eng", dave.Token, nil)
	requireStatus(t, g, http.StatusOK)
	require.EqualValues(t, "admin", decode[WorkspaceOut](t, g).MyRole)

	// An organization admin invited as a workspace member stays an organization admin.
	frank := e.register("frank@example.com")
	e.addOrgMember(alice, frank, "acme", "admin")
	inv5 := e.invite(alice, "acme", "eng", frank.Email, "member")
	r = e.do("POST", "/invitations/"+inv5.Token+"/accept", frank.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "admin", e.tenancyOrgRole("acme", frank.ID))
	role, prole = e.tenancyWSRoles(wsID, frank.ID)
	require.Equal(t, "member/viewer", role+"/"+prole)
	// The answer reports the roles the workspace read reports.
	g = e.do("GET", "/orgs/acme/workspaces/eng", frank.Token, nil)
	requireStatus(t, g, http.StatusOK)
	ws = decode[AcceptedInvitationOut](t, r).Workspace
	require.Equal(t, decode[WorkspaceOut](t, g).MyRole, ws.MyRole)
	require.Equal(t, decode[WorkspaceOut](t, g).MyPilotageRole, ws.MyPilotageRole)
	require.EqualValues(t, "admin", ws.MyRole)

	// A personal access token accepts with the account:write scope only.
	erin := e.register("erin@example.com")
	inv4 := e.invite(alice, "acme", "eng", erin.Email, "member")
	readPAT := e.pat(erin, []string{"projects:read"})
	requireStatus(t, e.do("POST", "/invitations/"+inv4.Token+"/accept", readPAT, nil), http.StatusForbidden)
	require.Equal(t, "", e.tenancyOrgRole("acme", erin.ID))
}

func TestWorkspaceMemberUpdate(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	carol := e.register("carol@example.com")
	dave := e.register("dave@example.com")
	e.org(alice, "acme")
	e.workspace(alice, "acme", "eng")
	e.workspace(alice, "acme", "ops")
	e.join(alice, bob, "acme", "eng", "member")
	e.join(alice, carol, "acme", "eng", "member")
	e.join(alice, dave, "acme", "ops", "member")
	wsID := e.tenancyWorkspaceID("acme", "eng")
	base := "/orgs/acme/workspaces/eng/members/"

	r := e.do("PATCH", base+bob.ID, alice.Token, map[string]any{"role": "admin"})
	requireStatus(t, r, http.StatusOK)
	m := decode[WorkspaceMemberOut](t, r)
	require.Equal(t, bob.ID, m.UserID)
	require.EqualValues(t, "admin", m.Role)
	require.EqualValues(t, "viewer", m.PilotageRole)
	role, prole := e.tenancyWSRoles(wsID, bob.ID)
	require.Equal(t, "admin/viewer", role+"/"+prole)

	r = e.do("PATCH", base+bob.ID, alice.Token, map[string]any{"pilotageRole": "reviewer"})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "admin", decode[WorkspaceMemberOut](t, r).Role)
	require.EqualValues(t, "reviewer", decode[WorkspaceMemberOut](t, r).PilotageRole)
	role, prole = e.tenancyWSRoles(wsID, bob.ID)
	require.Equal(t, "admin/reviewer", role+"/"+prole)
	g := e.do("GET", "/orgs/acme/workspaces/eng", bob.Token, nil)
	requireStatus(t, g, http.StatusOK)
	require.EqualValues(t, "admin", decode[WorkspaceOut](t, g).MyRole)
	require.EqualValues(t, "reviewer", decode[WorkspaceOut](t, g).MyPilotageRole)

	// Bob, now a workspace admin, changes carol's roles.
	r = e.do("PATCH", base+carol.ID, bob.Token, map[string]any{"role": "member", "pilotageRole": "owner"})
	requireStatus(t, r, http.StatusOK)
	role, prole = e.tenancyWSRoles(wsID, carol.ID)
	require.Equal(t, "member/owner", role+"/"+prole)

	// A member may not, not even on themselves.
	requireStatus(t, e.do("PATCH", base+bob.ID, carol.Token, map[string]any{"role": "member"}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", base+carol.ID, carol.Token, map[string]any{"role": "admin"}), http.StatusForbidden)
	role, prole = e.tenancyWSRoles(wsID, bob.ID)
	require.Equal(t, "admin/reviewer", role+"/"+prole)
	role, _ = e.tenancyWSRoles(wsID, carol.ID)
	require.Equal(t, "member", role)

	// Bad bodies.
	requireStatus(t, e.do("PATCH", base+carol.ID, alice.Token, map[string]any{}), http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", base+carol.ID, alice.Token, map[string]any{"role": "owner"}), http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", base+carol.ID, alice.Token, map[string]any{"pilotageRole": "admin"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", base+carol.ID, alice.Token, map[string]any{"role": "member", "pilotageRole": "boss"}),
		http.StatusBadRequest)
	role, prole = e.tenancyWSRoles(wsID, carol.ID)
	require.Equal(t, "member/owner", role+"/"+prole)

	// Unknown users, and a member of another workspace of the organization.
	requireStatus(t, e.do("PATCH", base+"01890000-0000-7000-8000-000000000000", alice.Token,
		map[string]any{"role": "admin"}), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", base+"not-a-uuid", alice.Token, map[string]any{"role": "admin"}), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", base+dave.ID, alice.Token, map[string]any{"role": "admin"}), http.StatusNotFound)
	role, _ = e.tenancyWSRoles(wsID, dave.ID)
	require.Empty(t, role)

	// The workspace owner's roles are immutable, even for another admin.
	requireStatus(t, e.do("PATCH", base+alice.ID, bob.Token, map[string]any{"role": "member"}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", base+alice.ID, alice.Token, map[string]any{"pilotageRole": "viewer"}),
		http.StatusForbidden)
	role, prole = e.tenancyWSRoles(wsID, alice.ID)
	require.Equal(t, "admin/owner", role+"/"+prole)

	requireStatus(t, e.do("PATCH", base+carol.ID, "", map[string]any{"role": "admin"}), http.StatusUnauthorized)
}

func TestInvitationAcceptAnswersTheRolesHeld(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	dave := e.register("dave@example.com")
	e.org(alice, "acme")
	e.workspace(alice, "acme", "eng")
	wsID := e.tenancyWorkspaceID("acme", "eng")
	// Two invitations sent before either is accepted.
	asMember := e.invite(alice, "acme", "eng", dave.Email, "member")
	asAdmin := e.invite(alice, "acme", "eng", dave.Email, "admin")

	r := e.do("POST", "/invitations/"+asMember.Token+"/accept", dave.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "member", decode[AcceptedInvitationOut](t, r).Role)

	// The second one is used up, but an existing member keeps their roles, and the answer says so.
	r = e.do("POST", "/invitations/"+asAdmin.Token+"/accept", dave.Token, nil)
	requireStatus(t, r, http.StatusOK)
	role, prole := e.tenancyWSRoles(wsID, dave.ID)
	require.Equal(t, "member/viewer", role+"/"+prole)
	m := decode[AcceptedInvitationOut](t, r)
	ws := m.Workspace
	require.Equal(t, role, m.Role)
	require.Equal(t, role, ws.MyRole)
	require.Equal(t, prole, ws.MyPilotageRole)
	g := e.do("GET", "/orgs/acme/workspaces/eng", dave.Token, nil)
	requireStatus(t, g, http.StatusOK)
	require.EqualValues(t, "member", decode[WorkspaceOut](t, g).MyRole)
	require.Equal(t, 2, e.count("SELECT count(*) FROM workspace_invitations WHERE accepted_by = $1", dave.ID))
	requireStatus(t, e.do("POST", "/invitations/"+asAdmin.Token+"/accept", dave.Token, nil), http.StatusConflict)
}

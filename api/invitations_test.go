package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/tenancy"
)

// A workspace's pending invitations: admins list them (no token), send one again (a new link, the old one
// 404, a second e-mail) and withdraw one (its link no longer accepts); members are refused; the link's
// read names the workspace, the inviter and the role, to anyone holding it, and nothing else.
func TestWorkspaceInvitationsPending(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	e.org(alice, "acme")
	e.workspace(alice, "acme", "eng")
	bob := e.register("bob@example.com")
	e.join(alice, bob, "acme", "eng", "member")
	carol := e.register("carol@example.com")
	base := "/orgs/acme/workspaces/eng/invitations"

	inv := e.invite(alice, "acme", "eng", carol.Email, "admin")
	gone := e.invite(alice, "acme", "eng", "gone@example.com", "member")
	r := e.do("GET", base, alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	list := decode[[]PendingInvitationOut](t, r)
	require.Len(t, list, 2)
	require.Equal(t, inv.ID, list[0].ID)
	require.Equal(t, "admin", list[0].Role)
	require.Equal(t, "alice", list[0].InviterName)
	require.False(t, list[0].Expired)
	require.NotContains(t, string(r.Body), inv.Token)
	requireStatus(t, e.do("GET", base, bob.Token, nil), http.StatusForbidden)

	r = e.do("GET", "/invitations/"+inv.Token, "", nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, InvitationPreviewOut{OrganizationName: "acme", WorkspaceName: "eng", InviterName: "alice",
		Role: "admin", Status: "pending"}, decode[InvitationPreviewOut](t, r))
	require.NotContains(t, string(r.Body), carol.Email)
	requireStatus(t, e.do("GET", "/invitations/no-such-token", "", nil), http.StatusNotFound)

	// Sent again: a new link, a second e-mail; the old link is gone.
	requireStatus(t, e.do("POST", base+"/"+inv.ID+"/resend", bob.Token, nil), http.StatusForbidden)
	r = e.do("POST", base+"/"+inv.ID+"/resend", alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	again := decode[InvitationOut](t, r)
	require.Equal(t, inv.ID, again.ID)
	require.NotEqual(t, inv.Token, again.Token)
	require.Equal(t, "http://pilot.test/invitations/"+again.Token+"/accept", again.AcceptURL)
	require.WithinDuration(t, time.Now().Add(tenancy.InvitationTTL), again.ExpiresAt, time.Minute)
	var toCarol int
	for _, m := range e.mails(tenancy.EmailTopicInvitation) {
		if m.To == carol.Email {
			toCarol++
			require.Contains(t, m.Body, "/invitations/")
		}
	}
	require.Equal(t, 2, toCarol)
	require.Contains(t, e.mails(tenancy.EmailTopicInvitation)[len(e.mails(tenancy.EmailTopicInvitation))-1].Body,
		again.AcceptURL)
	requireStatus(t, e.do("GET", "/invitations/"+inv.Token, "", nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", "/invitations/"+inv.Token+"/accept", carol.Token, nil), http.StatusNotFound)

	// Withdrawn: its link no longer accepts; a second withdrawal is 404.
	requireStatus(t, e.do("DELETE", base+"/"+gone.ID, bob.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", base+"/"+gone.ID, alice.Token, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", base+"/"+gone.ID, alice.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", base+"/"+gone.ID+"/resend", alice.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/invitations/"+gone.Token, "", nil), http.StatusNotFound)
	goneUser := e.register("gone@example.com")
	requireStatus(t, e.do("POST", "/invitations/"+gone.Token+"/accept", goneUser.Token, nil), http.StatusNotFound)

	// Accepted with the new link: no longer listed, its link says so.
	requireStatus(t, e.do("POST", "/invitations/"+again.Token+"/accept", carol.Token, nil), http.StatusOK)
	r = e.do("GET", "/invitations/"+again.Token, "", nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "accepted", decode[InvitationPreviewOut](t, r).Status)
	require.Empty(t, decode[[]PendingInvitationOut](t, e.do("GET", base, alice.Token, nil)))

	// Another workspace's admin cannot touch it.
	dan := e.register("dan@example.com")
	late := e.invite(alice, "acme", "eng", "late@example.com", "member")
	requireStatus(t, e.do("DELETE", "/orgs/"+dan.OrgSlug+"/workspaces/personal/invitations/"+late.ID, dan.Token, nil),
		http.StatusNotFound)
	require.Equal(t, 1, e.count("SELECT count(*) FROM workspace_invitations WHERE id = $1", late.ID))
}

// An organization's pending invitations work as a workspace's, for its admins; the link's read names
// the organization, with no workspace.
func TestOrganizationInvitationsPending(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	e.org(alice, "acme")
	bob := e.register("bob@example.com")
	e.addOrgMember(alice, bob, "acme", "member")
	base := "/organizations/acme/invitations"

	inv := e.inviteToOrg(alice, "acme", "carol@example.com", "admin")
	gone := e.inviteToOrg(alice, "acme", "gone@example.com", "member")
	r := e.do("GET", base, alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	list := decode[[]PendingInvitationOut](t, r)
	require.Len(t, list, 2)
	require.Equal(t, "carol@example.com", list[0].Email)
	requireStatus(t, e.do("GET", base, bob.Token, nil), http.StatusForbidden)

	r = e.do("GET", "/organization-invitations/"+inv.Token, "", nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, InvitationPreviewOut{OrganizationName: "acme", InviterName: "alice", Role: "admin",
		Status: "pending"}, decode[InvitationPreviewOut](t, r))
	requireStatus(t, e.do("GET", "/invitations/"+inv.Token, "", nil), http.StatusNotFound)

	r = e.do("POST", base+"/"+inv.ID+"/resend", alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	again := decode[InvitationOut](t, r)
	require.Equal(t, "http://pilot.test/organization-invitations/"+again.Token+"/accept", again.AcceptURL)
	require.Len(t, e.mails(tenancy.EmailTopicOrganizationInvitation), 4, "bob's, two, and one again")
	requireStatus(t, e.do("GET", "/organization-invitations/"+inv.Token, "", nil), http.StatusNotFound)

	requireStatus(t, e.do("DELETE", base+"/"+gone.ID, bob.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", base+"/"+gone.ID, alice.Token, nil), http.StatusOK)
	goneUser := e.register("gone@example.com")
	requireStatus(t, e.do("POST", "/organization-invitations/"+gone.Token+"/accept", goneUser.Token, nil),
		http.StatusNotFound)
	require.Len(t, decode[[]PendingInvitationOut](t, e.do("GET", base, alice.Token, nil)), 1)
}

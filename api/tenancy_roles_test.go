package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOrgAdminsActAsPilotageOwnersEverywhere(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	frank := e.register("frank@example.com")
	e.org(alice, "acme")
	e.workspace(alice, "acme", "eng")
	e.addOrgMember(alice, frank, "acme", "admin")
	// Joining as a plain member does not lower an organization admin's rights.
	e.join(alice, frank, "acme", "eng", "member")
	r := e.do("GET", "/orgs/acme/workspaces/eng", frank.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "admin", decode[WorkspaceOut](t, r).MyRole)
	require.EqualValues(t, "owner", decode[WorkspaceOut](t, r).MyPilotageRole)
	r = e.do("GET", "/orgs/acme/workspaces", frank.Token, nil)
	requireStatus(t, r, http.StatusOK)
	for _, w := range decode[[]WorkspaceOut](t, r) {
		require.Equal(t, "owner", w.MyPilotageRole, "workspace %v", w.Slug)
	}
}

func TestRemovingAWorkspaceOwnerHandsTheWorkspaceToTheOrgOwner(t *testing.T) {
	t.Parallel()
	e := setup(t)
	alice := e.register("alice@example.com")
	bob := e.register("bob@example.com")
	e.org(alice, "acme")
	e.addOrgMember(alice, bob, "acme", "admin")
	e.workspace(bob, "acme", "bobs")
	requireStatus(t, e.do("DELETE", "/organizations/acme/members/"+bob.ID, alice.Token, nil), http.StatusOK)
	r := e.do("GET", "/orgs/acme/workspaces/bobs", alice.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, alice.ID, decode[WorkspaceOut](t, r).OwnerID)
	// Bob can be invited back and his roles managed like anyone's.
	e.join(alice, bob, "acme", "bobs", "member")
	requireStatus(t, e.do("PATCH", "/orgs/acme/workspaces/bobs/members/"+bob.ID, alice.Token,
		map[string]any{"role": "admin"}), http.StatusOK)
}

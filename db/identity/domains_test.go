package identity_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// A person whose address a provider verifies joins, at the sign-in that links or creates their account,
// the organization whose sign-in domain the address has, as a member, with a member_added entry saying
// how; an unverified address joins nothing, a member keeps their role, a later sign-in does not bring
// back one who was removed, and a password account joins when it follows its verification link.
func TestSignInJoinsByDomain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	owner := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("owner@acme.test")})
	acme, err := b.Tenancy.CreateOrganization(ctx, owner.User.ID, "Acme", "acme")
	require.NoError(t, err)
	_, err = b.Tenancy.AddOrganizationDomain(ctx, acme.ID, owner.User.ID, "acme.test")
	require.NoError(t, err)
	role := func(userID string) string {
		var r string
		rows := b.Count(t, `SELECT count(*) FROM organization_members WHERE organization_id = $1 AND user_id = $2`,
			acme.ID, userID)
		if rows == 0 {
			return ""
		}
		require.NoError(t, b.Pool.QueryRow(ctx, `SELECT role FROM organization_members
			WHERE organization_id = $1 AND user_id = $2`, acme.ID, userID).Scan(&r))
		return r
	}
	joins := func(userID string) int {
		return b.Count(t, `SELECT count(*) FROM audit_log WHERE kind = 'member_added' AND organization_id = $1
			AND target_id = $2::text AND changes->>'domain' = 'acme.test'`, acme.ID, userID)
	}

	// Verified, no account: created just in time and joined, in the same transaction.
	res, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-ann",
		Email: "Ann@ACME.test", EmailVerified: true, Name: "Ann"})
	require.NoError(t, err)
	require.True(t, res.Created)
	require.Equal(t, []string{acme.ID}, res.JoinedOrganizations)
	require.Equal(t, "member", role(res.User.ID))
	require.Equal(t, 1, joins(res.User.ID))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM audit_log WHERE kind = 'member_added' AND target_id = $1::text
		AND actor_id::text = $1 AND changes->>'via' = $2 AND changes->>'provider' = 'corp'
		AND changes->'after'->>'organizationRole' = 'member'`, res.User.ID, tenancy.JoinedBySSO))

	// Unverified: the account is created, but joins nothing.
	res, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-bob",
		Email: "bob@acme.test", Name: "Bob"})
	require.NoError(t, err)
	require.True(t, res.Created)
	require.Empty(t, res.JoinedOrganizations)
	require.Empty(t, role(res.User.ID))
	require.Zero(t, joins(res.User.ID))

	// Verified, an existing account found by its address: linked and joined.
	cat := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("cat@acme.test")})
	require.Empty(t, role(cat.User.ID), "a password sign-up joins nothing")
	res, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-cat",
		Email: "cat@acme.test", EmailVerified: true})
	require.NoError(t, err)
	require.True(t, res.Linked)
	require.Equal(t, "member", role(cat.User.ID))

	// Removed by an admin, the next sign-in of the linked subject does not bring them back.
	require.NoError(t, b.Tenancy.RemoveOrganizationMember(ctx, tenancy.OrgMemberRemoval{OrgID: acme.ID,
		UserID: cat.User.ID, ActorID: owner.User.ID}))
	res, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-cat",
		Email: "cat@acme.test", EmailVerified: true})
	require.NoError(t, err)
	require.Empty(t, res.JoinedOrganizations)
	require.Empty(t, role(cat.User.ID))

	// Already a member (an admin): unchanged, and no entry.
	dan := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("dan@acme.test")})
	_, err = b.Pool.Exec(ctx, `INSERT INTO organization_members (organization_id, user_id, role)
		VALUES ($1, $2, 'admin')`, acme.ID, dan.User.ID)
	require.NoError(t, err)
	res, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-dan",
		Email: "dan@acme.test", EmailVerified: true})
	require.NoError(t, err)
	require.True(t, res.Linked)
	require.Empty(t, res.JoinedOrganizations)
	require.Equal(t, "admin", role(dan.User.ID))
	require.Zero(t, joins(dan.User.ID))

	// Another domain, or a subdomain: nothing.
	res, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-eve",
		Email: "eve@eu.acme.test", EmailVerified: true})
	require.NoError(t, err)
	require.Empty(t, res.JoinedOrganizations)

	// A password account joins once it follows the link that verifies its address, not before.
	reg, err := e.RegisterAndVerify(ctx, "fay@acme.test", "Fay", "hash", "http://pilot.test/verify-email?token=")
	require.NoError(t, err)
	require.Empty(t, role(reg.User.ID))
	require.NoError(t, e.VerifyEmail(ctx, tokenOf(t, mailed(t, b, identity.EmailTopicEmailVerification)[0])))
	require.Equal(t, "member", role(reg.User.ID))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM audit_log WHERE kind = 'member_added' AND target_id = $1::text
		AND changes->>'via' = $2`, reg.User.ID, tenancy.JoinedByEmailVerification))

	// A removed domain joins nobody any more.
	ds, err := b.Tenancy.OrganizationDomains(ctx, acme.ID)
	require.NoError(t, err)
	require.NoError(t, b.Tenancy.RemoveOrganizationDomain(ctx, acme.ID, ds[0].ID))
	res, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-gus",
		Email: "gus@acme.test", EmailVerified: true})
	require.NoError(t, err)
	require.Empty(t, res.JoinedOrganizations)
}

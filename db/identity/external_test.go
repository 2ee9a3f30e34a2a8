package identity_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

func TestSignInExternalLinksFindsOrCreates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	e := b.Identity
	ada := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("ada@example.com")})

	// An unverified address that an account has: not linked, and no second account with it.
	_, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-ada", Email: "Ada@example.com"})
	require.ErrorIs(t, err, identity.ErrExternalEmailTaken)
	require.ErrorIs(t, err, db.ErrConflict)
	links, err := e.Identities(ctx, ada.User.ID)
	require.NoError(t, err)
	require.Empty(t, links, "a refused sign-in links nothing")

	// Verified: the account is found by its address and linked.
	res, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-ada",
		Email: "ada@example.com", EmailVerified: true})
	require.NoError(t, err)
	require.True(t, res.Linked)
	require.False(t, res.Created)
	require.Equal(t, ada.User.ID, res.User.ID)
	require.True(t, res.User.EmailVerified, "the provider verified the address")

	// Next time the subject finds the account, whatever address the provider says now.
	res, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-ada", Email: "a@other.test"})
	require.NoError(t, err)
	require.Equal(t, ada.User.ID, res.User.ID)
	require.False(t, res.Linked || res.Created)
	links, err = e.Identities(ctx, ada.User.ID)
	require.NoError(t, err)
	require.Len(t, links, 1)
	require.Equal(t, "a@other.test", links[0].Email, "the address last said")

	// The same subject at another provider is another person.
	_, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "other", Subject: "s-ada", Email: "ada@example.com"})
	require.ErrorIs(t, err, identity.ErrExternalEmailTaken)

	// No account has the address: created just in time, with its personal organization, no password.
	res, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-bob", Email: "bob@example.com",
		Name: "Bob"})
	require.NoError(t, err)
	require.True(t, res.Created)
	require.Equal(t, "Bob", res.User.Name)
	require.Empty(t, res.User.PasswordHash)
	require.False(t, res.User.EmailVerified)
	orgs, err := b.Tenancy.ListOrganizations(ctx, res.User.ID)
	require.NoError(t, err)
	require.Len(t, orgs, 1, "a personal organization")

	// No address: nothing to find or create an account with.
	_, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-nobody"})
	require.ErrorIs(t, err, identity.ErrExternalNoEmail)
}

func TestSignInExternalAllowedDomains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	e := b.Identity
	domains := []string{"example.com"}

	_, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s1", Email: "eve@evil.test",
		EmailVerified: true, AllowedDomains: domains})
	require.ErrorIs(t, err, identity.ErrExternalDomain)
	_, err = e.UserByEmail(ctx, "eve@evil.test")
	require.ErrorIs(t, err, db.ErrNotFound, "nothing half-created")

	_, err = e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s2", Email: "eve@example.com",
		AllowedDomains: domains})
	require.ErrorIs(t, err, identity.ErrExternalDomain, "an unverified address proves no domain")

	res, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s3", Email: "Cy@Example.com",
		EmailVerified: true, AllowedDomains: domains})
	require.NoError(t, err)
	require.True(t, res.Created)
	require.True(t, res.User.EmailVerified)
}

func TestUnlinkIdentityKeepsAWayIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	e := b.Identity
	ada := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("ada@example.com")})
	one, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "a1", Email: "ada@example.com",
		EmailVerified: true})
	require.NoError(t, err)

	// Ada has a password: it counts unless password sign-in is off.
	require.ErrorIs(t, e.UnlinkIdentity(ctx, ada.User.ID, one.Identity.ID, false), db.ErrConflict)
	require.NoError(t, e.UnlinkIdentity(ctx, ada.User.ID, one.Identity.ID, true))
	require.ErrorIs(t, e.UnlinkIdentity(ctx, ada.User.ID, one.Identity.ID, true), db.ErrNotFound, "unlinked once")

	// Bob has no password: his only identity stays, his second may go.
	bob, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "b1", Email: "bob@example.com"})
	require.NoError(t, err)
	require.ErrorIs(t, e.UnlinkIdentity(ctx, bob.User.ID, bob.Identity.ID, true), db.ErrConflict)
	require.ErrorIs(t, e.UnlinkIdentity(ctx, ada.User.ID, bob.Identity.ID, true), db.ErrNotFound, "another's")
	two, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "other", Subject: "b2", Email: "bob@example.com",
		EmailVerified: true})
	require.NoError(t, err)
	require.True(t, two.Linked)
	require.NoError(t, e.UnlinkIdentity(ctx, bob.User.ID, bob.Identity.ID, true))
	links, err := e.Identities(ctx, bob.User.ID)
	require.NoError(t, err)
	require.Len(t, links, 1)
	require.Equal(t, two.Identity.ID, links[0].ID)
}

func TestExternalLoginTakenOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := testfactory.Store(t).Identity
	l := identity.ExternalLogin{State: "st-1", Provider: "corp", Nonce: "n", CodeVerifier: "v", ReturnTo: "/x",
		ExpiresAt: time.Now().Add(time.Minute)}
	require.NoError(t, e.BeginExternalLogin(ctx, l))
	_, err := e.TakeExternalLogin(ctx, "other", "st-1")
	require.ErrorIs(t, err, db.ErrNotFound, "another provider's callback")
	got, err := e.TakeExternalLogin(ctx, "corp", "st-1")
	require.NoError(t, err)
	require.Equal(t, "n", got.Nonce)
	require.Equal(t, "v", got.CodeVerifier)
	require.Equal(t, "/x", got.ReturnTo)
	_, err = e.TakeExternalLogin(ctx, "corp", "st-1")
	require.ErrorIs(t, err, db.ErrNotFound, "a replayed callback")

	l.State, l.ExpiresAt = "st-2", time.Now().Add(-time.Second)
	require.NoError(t, e.BeginExternalLogin(ctx, l))
	_, err = e.TakeExternalLogin(ctx, "corp", "st-2")
	require.ErrorIs(t, err, identity.ErrExternalLoginExpired)
}

// TestLinkExternalToASignedInAccount: a signed-in person links a provider's subject to their account
// while the session that started it is active; a subject of another account is refused; links and
// unlinks are in the account's audit log, in their transactions.
func TestLinkExternalToASignedInAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	e := b.Identity
	ada := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("ada@example.com")})
	sess, err := e.CreateSession(ctx, identity.NewSession{UserID: ada.User.ID, ExpiresAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	kinds := func(userID string) []string {
		t.Helper()
		p, err := b.Audit.ListAccount(ctx, userID, audit.Filter{Kinds: []db.AuditKind{db.AuditSSOLinked,
			db.AuditSSOUnlinked}}, db.Page{Limit: 50})
		require.NoError(t, err)
		var out []string
		for _, x := range p.Items {
			out = append(out, x.Kind+":"+x.TargetID)
		}
		return out
	}

	// The address the provider says need not be the account's, nor verified: the person is signed in.
	link := identity.ExternalLink{UserID: ada.User.ID, SessionID: sess.ID, Provider: "corp", Subject: "s-ada",
		Email: "ada@elsewhere.test"}
	got, err := e.LinkExternal(ctx, link)
	require.NoError(t, err)
	require.Equal(t, ada.User.ID, got.UserID)
	res, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-ada"})
	require.NoError(t, err)
	require.Equal(t, ada.User.ID, res.User.ID, "the subject signs in to the account now")
	again, err := e.LinkExternal(ctx, link)
	require.NoError(t, err, "linking it twice is no error")
	require.Equal(t, got.ID, again.ID)
	require.Equal(t, []string{"sso_linked:s-ada"}, kinds(ada.User.ID), "recorded once")

	// A subject of another account is refused, and nothing changes.
	bob, err := e.SignInExternal(ctx, identity.ExternalSignIn{Provider: "corp", Subject: "s-bob",
		Email: "bob@example.com"})
	require.NoError(t, err)
	_, err = e.LinkExternal(ctx, identity.ExternalLink{UserID: ada.User.ID, SessionID: sess.ID, Provider: "corp",
		Subject: "s-bob"})
	require.ErrorIs(t, err, identity.ErrExternalLinkedElsewhere)
	require.ErrorIs(t, err, db.ErrConflict)
	require.Equal(t, []string{"sso_linked:s-bob"}, kinds(bob.User.ID), "the sign-in that created Bob linked him")

	// Once the session ends, its link is refused.
	require.NoError(t, e.RevokeSession(ctx, ada.User.ID, sess.ID))
	_, err = e.LinkExternal(ctx, identity.ExternalLink{UserID: ada.User.ID, SessionID: sess.ID, Provider: "other",
		Subject: "s-ada"})
	require.ErrorIs(t, err, db.ErrNotFound)

	require.NoError(t, e.UnlinkIdentity(ctx, ada.User.ID, got.ID, true))
	require.Equal(t, []string{"sso_unlinked:s-ada", "sso_linked:s-ada"}, kinds(ada.User.ID))

	// A sign-in under way that links says whose, and the session.
	l := identity.ExternalLogin{State: "st-link", Provider: "corp", Nonce: "n", CodeVerifier: "v", ReturnTo: "/settings",
		ExpiresAt: time.Now().Add(time.Minute), LinkUserID: ada.User.ID, LinkSessionID: sess.ID}
	require.NoError(t, e.BeginExternalLogin(ctx, l))
	taken, err := e.TakeExternalLogin(ctx, "corp", "st-link")
	require.NoError(t, err)
	require.Equal(t, ada.User.ID, taken.LinkUserID)
	require.Equal(t, sess.ID, taken.LinkSessionID)
}

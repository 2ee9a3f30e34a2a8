package identity_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

func setup(t *testing.T) (*testfactory.Bundle, *identity.Engine) {
	t.Helper()
	b := testfactory.Store(t)
	return b, b.Identity
}

// A registration is a user with their personal organization (owned) and workspace (admin, pilotage
// owner); an e-mail is taken whatever its case, and the refused registration writes nothing.
func TestRegister(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	reg, err := e.Register(ctx, "alice@example.com", "Alice Martin", "hash")
	require.NoError(t, err)
	require.Equal(t, "alice@example.com", reg.User.Email)
	require.True(t, reg.Organization.IsPersonal)
	require.Equal(t, reg.User.ID, reg.Organization.OwnerID)
	require.Equal(t, "alice-martin", reg.Organization.Slug)
	require.Equal(t, "Alice Martin's organization", reg.Organization.Name)
	require.True(t, reg.Workspace.IsPersonal)
	require.Equal(t, reg.Organization.ID, reg.Workspace.OrganizationID)
	require.Equal(t, 1, b.Count(t,
		`SELECT count(*) FROM organization_members WHERE organization_id = $1 AND user_id = $2 AND role = 'owner'`,
		reg.Organization.ID, reg.User.ID))
	require.Equal(t, 1, b.Count(t,
		`SELECT count(*) FROM workspace_members
			WHERE workspace_id = $1 AND user_id = $2 AND role = 'admin' AND pilotage_role = 'owner'`,
		reg.Workspace.ID, reg.User.ID))

	users, orgs := b.Count(t, `SELECT count(*) FROM users`), b.Count(t, `SELECT count(*) FROM organizations`)
	_, err = e.Register(ctx, "ALICE@example.com", "Other Alice", "hash")
	require.ErrorIs(t, err, db.ErrConflict)
	require.Equal(t, users, b.Count(t, `SELECT count(*) FROM users`))
	require.Equal(t, orgs, b.Count(t, `SELECT count(*) FROM organizations`))

	// The same name gets a free slug; a name that gives no slug uses the e-mail's local part.
	twin, err := e.Register(ctx, "alice2@example.com", "Alice Martin", "hash")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(twin.Organization.Slug, "alice-martin-"), twin.Organization.Slug)
	anon, err := e.Register(ctx, "zed.dev@example.com", "", "hash")
	require.NoError(t, err)
	require.Equal(t, "zed-dev", anon.Organization.Slug)
	require.Equal(t, "zed.dev's organization", anon.Organization.Name)
	long, err := e.Register(ctx, "long@example.com", strings.Repeat("é", 120), "hash")
	require.NoError(t, err)
	require.LessOrEqual(t, len([]rune(long.Organization.Name)), 100)

	got, err := e.UserByEmail(ctx, "Alice@Example.com")
	require.NoError(t, err)
	require.Equal(t, reg.User.ID, got.ID)
	_, err = e.UserByID(ctx, db.NewID())
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.UserByEmail(ctx, "nobody@example.com")
	require.ErrorIs(t, err, db.ErrNotFound)
}

// A profile changes only the fields given; a new password ends every session issued before it.
func TestProfileAndPassword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	reg := testfactory.User(t, b.Engines, nil)

	u, err := e.UpdateProfile(ctx, reg.User.ID, nil, testfactory.Ptr("Engineer"))
	require.NoError(t, err)
	require.Equal(t, reg.User.Name, u.Name)
	require.Equal(t, "Engineer", u.JobTitle)
	_, err = e.UpdateProfile(ctx, db.NewID(), testfactory.Ptr("x"), nil)
	require.ErrorIs(t, err, db.ErrNotFound)

	u, err = e.SetPassword(ctx, reg.User.ID, "new-hash")
	require.NoError(t, err)
	require.Equal(t, "new-hash", u.PasswordHash)
	require.Equal(t, reg.User.SessionVersion+1, u.SessionVersion)
}

// Two-factor: a secret waits until enabled, turning it off forgets it; each time step's code is
// accepted once, and no earlier step after a later one (replays).
func TestTOTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	reg := testfactory.User(t, b.Engines, nil)

	require.NoError(t, e.SetTOTPSecret(ctx, reg.User.ID, "SECRET"))
	u, err := e.UserByID(ctx, reg.User.ID)
	require.NoError(t, err)
	require.Equal(t, testfactory.Ptr("SECRET"), u.TotpSecret)
	require.False(t, u.TotpEnabled)
	codes, err := e.EnableTwoFactor(ctx, reg.User.ID)
	require.NoError(t, err)
	require.Len(t, codes, identity.RecoveryCodeCount)

	ok, err := e.ConsumeTOTPStep(ctx, reg.User.ID, 1000)
	require.NoError(t, err)
	require.True(t, ok)
	for _, step := range []int64{1000, 999} {
		ok, err = e.ConsumeTOTPStep(ctx, reg.User.ID, step)
		require.NoError(t, err)
		require.False(t, ok, "step %d is a replay", step)
	}
	ok, err = e.ConsumeTOTPStep(ctx, reg.User.ID, 1001)
	require.NoError(t, err)
	require.True(t, ok)

	require.NoError(t, e.DisableTwoFactor(ctx, reg.User.ID))
	u, err = e.UserByID(ctx, reg.User.ID)
	require.NoError(t, err)
	require.False(t, u.TotpEnabled)
	require.Nil(t, u.TotpSecret)
}

// Personal access tokens: found by their secret's hash, listed newest first, revoked by their owner
// only; a use is recorded at most once a minute.
func TestAPITokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	alice := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("alice@example.com")})
	bob := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("bob@example.com")})

	first, err := e.CreateAPIToken(ctx, identity.NewAPIToken{UserID: alice.User.ID, Name: "ci", Prefix: "pil_aaaa",
		SecretHash: []byte("hash-1"), Scopes: []string{"read"}})
	require.NoError(t, err)
	second, err := e.CreateAPIToken(ctx, identity.NewAPIToken{UserID: alice.User.ID, Name: "cli", Prefix: "pil_bbbb",
		SecretHash: []byte("hash-2"), Scopes: []string{"read", "write"}})
	require.NoError(t, err)
	list, err := e.ListAPITokens(ctx, alice.User.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Equal(t, []string{second.ID, first.ID}, []string{list.Items[0].ID, list.Items[1].ID})
	list, err = e.ListAPITokens(ctx, bob.User.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Empty(t, list.Items)

	got, err := e.APITokenByHash(ctx, []byte("hash-1"))
	require.NoError(t, err)
	require.Equal(t, first.ID, got.ID)
	require.Equal(t, []string{"read"}, got.Scopes)
	_, err = e.APITokenByHash(ctx, []byte("nope"))
	require.ErrorIs(t, err, db.ErrNotFound)

	require.Nil(t, got.LastUsedAt)
	require.NoError(t, e.TouchAPIToken(ctx, first.ID))
	got, err = e.APITokenByHash(ctx, []byte("hash-1"))
	require.NoError(t, err)
	require.NotNil(t, got.LastUsedAt)
	used := *got.LastUsedAt
	require.NoError(t, e.TouchAPIToken(ctx, first.ID))
	got, err = e.APITokenByHash(ctx, []byte("hash-1"))
	require.NoError(t, err)
	require.Equal(t, used, *got.LastUsedAt, "a second use within the minute writes nothing")

	require.ErrorIs(t, e.RevokeAPIToken(ctx, bob.User.ID, first.ID), db.ErrNotFound, "only its owner revokes a token")
	require.NoError(t, e.RevokeAPIToken(ctx, alice.User.ID, first.ID))
	_, err = e.APITokenByHash(ctx, []byte("hash-1"))
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorIs(t, e.RevokeAPIToken(ctx, alice.User.ID, first.ID), db.ErrNotFound)
}

// The first load makes a signing key that every later load reads; a rotation adds a key that signs
// only after its delay, and drops the keys replaced longer ago than keep.
func TestSigningKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	keys, err := e.SigningKeys(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	require.Len(t, keys[0].Secret, 32)
	again, err := e.SigningKeys(ctx)
	require.NoError(t, err)
	require.Equal(t, keys, again)

	next, err := e.RotateSigningKey(ctx, time.Hour, 24*time.Hour)
	require.NoError(t, err)
	require.NotEqual(t, keys[0].ID, next.ID)
	require.WithinDuration(t, time.Now().Add(time.Hour), next.NotBefore, time.Minute)
	keys, err = e.SigningKeys(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 2, "the old key verifies until the new one has replaced it for keep")

	// A key that replaced the first one long ago (its not_before in the past by more than keep).
	_, err = b.Pool.Exec(ctx, `UPDATE signing_keys SET not_before = now() - interval '2 days' WHERE id = $1`, next.ID)
	require.NoError(t, err)
	_, err = b.Pool.Exec(ctx, `UPDATE signing_keys SET not_before = now() - interval '3 days' WHERE id = $1`, keys[0].ID)
	require.NoError(t, err)
	latest, err := e.RotateSigningKey(ctx, 0, 24*time.Hour)
	require.NoError(t, err)
	keys, err = e.SigningKeys(ctx)
	require.NoError(t, err)
	ids := []string{}
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	require.Equal(t, []string{next.ID, latest.ID}, ids, "the key replaced more than keep ago is gone")
}

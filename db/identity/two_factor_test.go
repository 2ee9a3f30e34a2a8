package identity_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// Turning two-factor on needs a waiting secret and answers ten distinct recovery codes, of which only
// hashes are stored; on twice is a conflict.
func TestEnableTwoFactorMakesRecoveryCodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	reg := testfactory.User(t, b.Engines, nil)

	_, err := e.EnableTwoFactor(ctx, reg.User.ID)
	require.ErrorIs(t, err, db.ErrInvalid, "no secret waits")
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM two_factor_recovery_codes`))

	require.NoError(t, e.SetTOTPSecret(ctx, reg.User.ID, "SECRET"))
	codes, err := e.EnableTwoFactor(ctx, reg.User.ID)
	require.NoError(t, err)
	require.Len(t, codes, identity.RecoveryCodeCount)
	distinct := map[string]bool{}
	for _, c := range codes {
		distinct[c] = true
		hash, ok := auth.HashRecoveryCode(c)
		require.True(t, ok)
		require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1 AND code_hash = $2`,
			reg.User.ID, hash), "only the code's hash is stored")
	}
	require.Len(t, distinct, identity.RecoveryCodeCount)
	left, err := e.RecoveryCodesLeft(ctx, reg.User.ID)
	require.NoError(t, err)
	require.Equal(t, identity.RecoveryCodeCount, left)

	u, err := e.UserByID(ctx, reg.User.ID)
	require.NoError(t, err)
	require.True(t, u.TotpEnabled)
	_, err = e.EnableTwoFactor(ctx, reg.User.ID)
	require.ErrorIs(t, err, db.ErrConflict)
	left, err = e.RecoveryCodesLeft(ctx, reg.User.ID)
	require.NoError(t, err)
	require.Equal(t, identity.RecoveryCodeCount, left, "a refused enable keeps the codes")
}

// A recovery code is accepted once, as a person may type it, for its own user only; renewing replaces
// every code; turning two-factor off deletes them.
func TestRecoveryCodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	alice := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("alice@example.com")})
	bob := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("bob@example.com")})
	enable := func(id string) []string {
		require.NoError(t, e.SetTOTPSecret(ctx, id, "SECRET"))
		codes, err := e.EnableTwoFactor(ctx, id)
		require.NoError(t, err)
		return codes
	}
	codes := enable(alice.User.ID)
	bobCodes := enable(bob.User.ID)

	use := func(id, code string) bool {
		ok, err := e.UseRecoveryCode(ctx, id, code)
		require.NoError(t, err)
		return ok
	}
	require.False(t, use(alice.User.ID, bobCodes[0]), "another user's code")
	require.False(t, use(alice.User.ID, "not a code"))
	require.True(t, use(alice.User.ID, strings.ToUpper(strings.ReplaceAll(codes[0], "-", " "))))
	require.False(t, use(alice.User.ID, codes[0]), "a code is used once")
	left, err := e.RecoveryCodesLeft(ctx, alice.User.ID)
	require.NoError(t, err)
	require.Equal(t, identity.RecoveryCodeCount-1, left)

	// Two uses of one code at once: one wins.
	var wins sync.Map
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := e.UseRecoveryCode(ctx, alice.User.ID, codes[1])
			require.NoError(t, err)
			wins.Store(i, ok)
		}()
	}
	wg.Wait()
	won := 0
	wins.Range(func(_, v any) bool {
		if v.(bool) {
			won++
		}
		return true
	})
	require.Equal(t, 1, won)

	renewed, err := e.RenewRecoveryCodes(ctx, alice.User.ID)
	require.NoError(t, err)
	require.Len(t, renewed, identity.RecoveryCodeCount)
	require.False(t, use(alice.User.ID, codes[2]), "renewing replaces the old codes")
	require.True(t, use(alice.User.ID, renewed[2]))

	require.NoError(t, e.DisableTwoFactor(ctx, alice.User.ID))
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1`, alice.User.ID))
	require.False(t, use(alice.User.ID, renewed[3]))
	_, err = e.RenewRecoveryCodes(ctx, alice.User.ID)
	require.ErrorIs(t, err, db.ErrConflict, "no codes without two-factor")
	require.True(t, use(bob.User.ID, bobCodes[0]), "another user's codes are untouched")
}

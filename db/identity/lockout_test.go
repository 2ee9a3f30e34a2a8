package identity_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// lockoutClock is a settable clock for the lockout's windows.
type lockoutClock struct{ t time.Time }

func (c *lockoutClock) at() *time.Time          { t := c.t; return &t }
func (c *lockoutClock) advance(d time.Duration) { c.t = c.t.Add(d) }

const resetLink = "http://pilot.test/forgot-password"

// fail records a failed attempt as the api does: checked first, counted against whom the check says.
func fail(t *testing.T, e *identity.Engine, a identity.LoginAttempt, limit int) identity.LoginGate {
	t.Helper()
	ctx := context.Background()
	g, err := e.CheckLogin(ctx, a)
	require.NoError(t, err)
	require.NoError(t, e.RecordLoginFailure(ctx, identity.LoginFailure{LoginAttempt: a, Gate: g, Limit: limit,
		ResetLink: resetLink}))
	return g
}

func gate(t *testing.T, e *identity.Engine, a identity.LoginAttempt) identity.LoginGate {
	t.Helper()
	g, err := e.CheckLogin(context.Background(), a)
	require.NoError(t, err)
	return g
}

// TestLoginLockoutAccount: failures from unknown devices count against the account whatever the
// address's case; the one past the limit locks unknown devices out for the window and e-mails the owner
// once, in its transaction; a known device is not refused; the lockout ends with its window, and a new
// one e-mails again.
func TestLoginLockoutAccount(t *testing.T) {
	t.Parallel()
	b, e := setup(t)
	testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("olga@example.com")})
	clock := &lockoutClock{t: time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)}
	unknown := func() identity.LoginAttempt { return identity.LoginAttempt{Email: "Olga@Example.com", At: clock.at()} }
	known := func() identity.LoginAttempt {
		return identity.LoginAttempt{Email: "olga@example.com", Device: "nonce-1", At: clock.at()}
	}

	for range 3 {
		require.Equal(t, identity.LoginGate{}, fail(t, e, unknown(), 3))
		clock.advance(time.Minute)
	}
	require.Empty(t, mailed(t, b, identity.EmailTopicLoginLockout), "three failures are within the limit")
	require.Equal(t, identity.LoginGate{}, gate(t, e, unknown()))

	fail(t, e, unknown(), 3) // the fourth, at 9:03, locks until 10:03
	require.Equal(t, identity.LoginGate{RetryAfter: time.Hour}, gate(t, e, unknown()))
	require.Equal(t, identity.LoginGate{Trusted: true}, gate(t, e, known()))
	mails := mailed(t, b, identity.EmailTopicLoginLockout)
	require.Len(t, mails, 1)
	require.Equal(t, jobs.QueueEmail, mails[0].Queue)
	require.Equal(t, "olga@example.com", mails[0].Args["to"])
	require.Contains(t, mails[0].Args["body"], "10:03 UTC")
	require.Contains(t, mails[0].Args["body"], resetLink)

	// Failures that raced the lockout count, but start no second one and send nothing more.
	fail(t, e, unknown(), 3)
	clock.advance(59 * time.Minute)
	require.Equal(t, identity.LoginGate{RetryAfter: time.Minute}, gate(t, e, unknown()))
	require.Len(t, mailed(t, b, identity.EmailTopicLoginLockout), 1)

	// At 10:03 the lockout is over and the count starts again.
	clock.advance(time.Minute)
	require.Equal(t, identity.LoginGate{}, gate(t, e, unknown()))
	for range 3 {
		fail(t, e, unknown(), 3)
	}
	require.Equal(t, identity.LoginGate{}, gate(t, e, unknown()))
	fail(t, e, unknown(), 3)
	require.Equal(t, identity.LoginGate{RetryAfter: time.Hour}, gate(t, e, unknown()))
	require.Len(t, mailed(t, b, identity.EmailTopicLoginLockout), 2, "a new lockout, a new e-mail")
}

// TestLoginLockoutWindow: failures spread wider than the window never add up to a lockout.
func TestLoginLockoutWindow(t *testing.T) {
	t.Parallel()
	_, e := setup(t)
	clock := &lockoutClock{t: time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)}
	for range 12 {
		fail(t, e, identity.LoginAttempt{Email: "slow@example.com", At: clock.at()}, 3)
		clock.advance(21 * time.Minute) // three in an hour at most
	}
	require.Equal(t, identity.LoginGate{}, gate(t, e, identity.LoginAttempt{Email: "slow@example.com", At: clock.at()}))
}

// TestLoginLockoutDevice: a known device's failures count against that device alone; past the limit it
// is treated as unknown (so the account's count applies to it) for the window, and no e-mail is sent.
func TestLoginLockoutDevice(t *testing.T) {
	t.Parallel()
	b, e := setup(t)
	testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("pia@example.com")})
	clock := &lockoutClock{t: time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)}
	device := func(nonce string) identity.LoginAttempt {
		return identity.LoginAttempt{Email: "pia@example.com", Device: nonce, At: clock.at()}
	}
	unknown := identity.LoginAttempt{Email: "pia@example.com", At: clock.at()}

	for range 4 {
		require.True(t, fail(t, e, device("stolen"), 3).Trusted)
	}
	require.Equal(t, identity.LoginGate{}, gate(t, e, device("stolen")), "locked out: an unknown device now")
	require.Equal(t, identity.LoginGate{Trusted: true}, gate(t, e, device("owner")))
	require.Equal(t, identity.LoginGate{}, gate(t, e, unknown), "the account's own count is untouched")
	require.Empty(t, mailed(t, b, identity.EmailTopicLoginLockout))

	// The locked device's failures now count against the account.
	for range 4 {
		require.False(t, fail(t, e, device("stolen"), 3).Trusted)
	}
	require.Equal(t, time.Hour, gate(t, e, device("stolen")).RetryAfter)
	require.Equal(t, identity.LoginGate{Trusted: true}, gate(t, e, device("owner")))
	require.Len(t, mailed(t, b, identity.EmailTopicLoginLockout), 1)
}

// TestLoginLockoutUnknownAddress: an address nobody uses is counted and locked out like any other (the
// answers must not tell which addresses have accounts), and nobody is e-mailed.
func TestLoginLockoutUnknownAddress(t *testing.T) {
	t.Parallel()
	b, e := setup(t)
	for range 3 {
		fail(t, e, identity.LoginAttempt{Email: "nobody@example.com"}, 2)
	}
	require.Positive(t, gate(t, e, identity.LoginAttempt{Email: "nobody@example.com"}).RetryAfter)
	require.Empty(t, mailed(t, b, identity.EmailTopicLoginLockout))
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM login_failures WHERE key LIKE '%nobody%'`),
		"addresses are kept as hashes")
}

// TestLoginLockoutConcurrent: failures recorded at once (as from several api processes) are each
// counted, and exactly one of them starts the lockout and its e-mail.
func TestLoginLockoutConcurrent(t *testing.T) {
	t.Parallel()
	b, e := setup(t)
	testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("quinn@example.com")})
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			errs <- e.RecordLoginFailure(context.Background(), identity.LoginFailure{
				LoginAttempt: identity.LoginAttempt{Email: "quinn@example.com"}, Limit: 5, ResetLink: resetLink})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, 20, b.Count(t, `SELECT failures FROM login_failures`))
	require.Len(t, mailed(t, b, identity.EmailTopicLoginLockout), 1)
	require.Positive(t, gate(t, e, identity.LoginAttempt{Email: "quinn@example.com"}).RetryAfter)
}

// TestLoginLockoutLiftedByPasswordReset: the lockout e-mail sends its owner to the password reset; the
// reset proves them, so the lockout ends with it and the new password signs in from a new device at once.
// Another account's lockout stays.
func TestLoginLockoutLiftedByPasswordReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("petra@example.com")})
	testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("quinn@example.com")})
	for _, email := range []string{"petra@example.com", "quinn@example.com"} {
		for range 3 {
			fail(t, e, identity.LoginAttempt{Email: email}, 2)
		}
		require.Positive(t, gate(t, e, identity.LoginAttempt{Email: email}).RetryAfter, "%s locked out", email)
	}

	require.NoError(t, e.RequestPasswordReset(ctx, "petra@example.com", "http://pilot.test/reset-password?token="))
	_, err := e.ResetPassword(ctx, tokenOf(t, mailed(t, b, identity.EmailTopicPasswordReset)[0]), "new-hash")
	require.NoError(t, err)
	require.Equal(t, identity.LoginGate{}, gate(t, e, identity.LoginAttempt{Email: "Petra@example.com"}),
		"the reset lifts the lockout")
	require.Positive(t, gate(t, e, identity.LoginAttempt{Email: "quinn@example.com"}).RetryAfter,
		"another account's lockout stays")
}

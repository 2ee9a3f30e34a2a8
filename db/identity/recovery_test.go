package identity_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// mailed lists the e-mails enqueued for topic, oldest first.
func mailed(t *testing.T, b *testfactory.Bundle, topic string) []testfactory.Job {
	t.Helper()
	var out []testfactory.Job
	for _, j := range b.Jobs(t, jobs.SendEmailArgs{}.Kind()) {
		if j.Args["topic"] == topic {
			out = append(out, j)
		}
	}
	return out
}

var linkToken = regexp.MustCompile(`\?token=([0-9a-f]{64})\n`)

// tokenOf reads the token of the link an e-mail job carries.
func tokenOf(t *testing.T, j testfactory.Job) string {
	t.Helper()
	m := linkToken.FindStringSubmatch(j.Args["body"].(string))
	require.NotNil(t, m, "body: %s", j.Args["body"])
	return m[1]
}

// A reset request for an account e-mails it a link (on the e-mail queue, in the request's
// transaction); for an unknown address or a service user it does nothing. A new request replaces the
// token; the token sets the password once, ends the sessions (version) and proves the address.
func TestPasswordReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	reg := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("alice@example.com")})

	require.NoError(t, e.RequestPasswordReset(ctx, "nobody@example.com", "http://pilot.test/reset-password?token="))
	require.Empty(t, mailed(t, b, identity.EmailTopicPasswordReset))
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM account_tokens`))

	require.NoError(t, e.RequestPasswordReset(ctx, "ALICE@example.com", "http://pilot.test/reset-password?token="))
	first := mailed(t, b, identity.EmailTopicPasswordReset)
	require.Len(t, first, 1)
	require.Equal(t, jobs.QueueEmail, first[0].Queue)
	require.Equal(t, "alice@example.com", first[0].Args["to"])
	require.Contains(t, first[0].Args["body"], "http://pilot.test/reset-password?token=")
	old := tokenOf(t, first[0])
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM account_tokens WHERE token_hash = convert_to($1, 'UTF8')`, old),
		"only the hash is stored")

	require.NoError(t, e.RequestPasswordReset(ctx, "alice@example.com", "http://pilot.test/reset-password?token="))
	all := mailed(t, b, identity.EmailTopicPasswordReset)
	require.Len(t, all, 2)
	require.NotEqual(t, all[0].Args["refId"], all[1].Args["refId"], "each e-mail its own outbox entry")
	fresh := tokenOf(t, all[1])
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM account_tokens WHERE user_id = $1`, reg.User.ID),
		"one live token per user")

	_, err := e.ResetPassword(ctx, old, "new-hash")
	require.ErrorIs(t, err, db.ErrInvalid, "the replaced token")
	_, err = e.ResetPassword(ctx, "garbage", "new-hash")
	require.ErrorIs(t, err, db.ErrInvalid)

	_, err = e.CreateSession(ctx, identity.NewSession{UserID: reg.User.ID, ExpiresAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	u, err := e.ResetPassword(ctx, fresh, "new-hash")
	require.NoError(t, err)
	sessions, err := e.Sessions(ctx, reg.User.ID)
	require.NoError(t, err)
	require.Empty(t, sessions, "a reset ends every session")
	require.Equal(t, "new-hash", u.PasswordHash)
	require.Equal(t, reg.User.SessionVersion+1, u.SessionVersion)
	require.True(t, u.EmailVerified, "the link proved the address")
	_, err = e.ResetPassword(ctx, fresh, "other-hash")
	require.ErrorIs(t, err, db.ErrInvalid, "single use")

	// An expired token is refused.
	require.NoError(t, e.RequestPasswordReset(ctx, "alice@example.com", "http://pilot.test/reset-password?token="))
	expired := tokenOf(t, mailed(t, b, identity.EmailTopicPasswordReset)[2])
	_, err = b.Pool.Exec(ctx, `UPDATE account_tokens SET expires_at = now() - interval '1 second'`)
	require.NoError(t, err)
	_, err = e.ResetPassword(ctx, expired, "other-hash")
	require.ErrorIs(t, err, db.ErrInvalid)
	u, err = e.UserByID(ctx, reg.User.ID)
	require.NoError(t, err)
	require.Equal(t, "new-hash", u.PasswordHash)

	// A service user (an agent) gets no reset.
	_, err = b.Pool.Exec(ctx, `UPDATE users SET is_service = true WHERE id = $1`, reg.User.ID)
	require.NoError(t, err)
	require.NoError(t, e.RequestPasswordReset(ctx, "alice@example.com", "http://pilot.test/reset-password?token="))
	require.Len(t, mailed(t, b, identity.EmailTopicPasswordReset), 3)
}

// Registration can e-mail a verification link in its transaction; the link verifies the address once,
// not after the account's address changed; a verified address needs no new link. A reset token does
// not verify, nor a verification token reset.
func TestEmailVerification(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, e := setup(t)
	reg, err := e.RegisterAndVerify(ctx, "bob@example.com", "Bob", "hash", "http://pilot.test/verify-email?token=")
	require.NoError(t, err)
	require.False(t, reg.User.EmailVerified)
	sent := mailed(t, b, identity.EmailTopicEmailVerification)
	require.Len(t, sent, 1)
	require.Equal(t, "bob@example.com", sent[0].Args["to"])
	token := tokenOf(t, sent[0])

	require.NoError(t, e.RequestPasswordReset(ctx, "bob@example.com", "http://pilot.test/reset-password?token="))
	resetToken := tokenOf(t, mailed(t, b, identity.EmailTopicPasswordReset)[0])
	require.ErrorIs(t, e.VerifyEmail(ctx, resetToken), db.ErrInvalid, "another purpose's token")
	_, err = e.ResetPassword(ctx, token, "hash")
	require.ErrorIs(t, err, db.ErrInvalid, "another purpose's token")

	require.NoError(t, e.VerifyEmail(ctx, token))
	u, err := e.UserByID(ctx, reg.User.ID)
	require.NoError(t, err)
	require.True(t, u.EmailVerified)
	require.ErrorIs(t, e.VerifyEmail(ctx, token), db.ErrInvalid, "single use")
	require.ErrorIs(t, e.SendEmailVerification(ctx, reg.User.ID, "http://pilot.test/verify-email?token="), db.ErrConflict)

	// A link sent to an address the account no longer has verifies nothing.
	_, err = b.Pool.Exec(ctx, `UPDATE users SET email_verified = false WHERE id = $1`, reg.User.ID)
	require.NoError(t, err)
	require.NoError(t, e.SendEmailVerification(ctx, reg.User.ID, "http://pilot.test/verify-email?token="))
	stale := tokenOf(t, mailed(t, b, identity.EmailTopicEmailVerification)[1])
	_, err = b.Pool.Exec(ctx, `UPDATE users SET email = 'robert@example.com' WHERE id = $1`, reg.User.ID)
	require.NoError(t, err)
	require.ErrorIs(t, e.VerifyEmail(ctx, stale), db.ErrInvalid)
	u, err = e.UserByID(ctx, reg.User.ID)
	require.NoError(t, err)
	require.False(t, u.EmailVerified)

	// Plain Register (fixtures) sends nothing.
	testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("carol@example.com")})
	require.Len(t, mailed(t, b, identity.EmailTopicEmailVerification), 2)
}

package api

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/identity"
)

var mailedLink = regexp.MustCompile(`(http://pilot\.test/[a-z-]+\?token=)([0-9a-f]{64})\n`)

// mailedToken reads the token of the link in the last e-mail of topic sent to address, after checking
// that the link opens page under the public URL.
func (e *testEnv) mailedToken(topic, to, page string) string {
	e.t.Helper()
	mails := e.mails(topic)
	for i := len(mails) - 1; i >= 0; i-- {
		if mails[i].To == to {
			m := mailedLink.FindStringSubmatch(mails[i].Body)
			require.NotNil(e.t, m, "body: %s", mails[i].Body)
			require.Equal(e.t, "http://pilot.test"+page, m[1])
			return m[2]
		}
	}
	e.t.Fatalf("no %s e-mail to %s", topic, to)
	return ""
}

func (e *testEnv) resetToken(to string) string {
	e.t.Helper()
	return e.mailedToken(identity.EmailTopicPasswordReset, to, "/reset-password?token=")
}

func (e *testEnv) verifyToken(to string) string {
	e.t.Helper()
	return e.mailedToken(identity.EmailTopicEmailVerification, to, "/verify-email?token=")
}

// TestForgotPasswordSameAnswer: the answer is the same for an address with an account and one without;
// only the account is e-mailed a link.
func TestForgotPasswordSameAnswer(t *testing.T) {
	t.Parallel()
	e := setup(t)
	identRegister(e, "ana@example.com", "Ana")

	known := e.do("POST", "/auth/forgot-password", "", map[string]any{"email": "ANA@example.com"})
	unknown := e.do("POST", "/auth/forgot-password", "", map[string]any{"email": "nobody@example.com"})
	requireStatus(t, known, http.StatusAccepted)
	requireStatus(t, unknown, http.StatusAccepted)
	require.Equal(t, string(known.Body), string(unknown.Body))
	require.Equal(t, OKBody{OK: true}, decode[OKBody](t, known))

	mails := e.mails(identity.EmailTopicPasswordReset)
	require.Len(t, mails, 1)
	require.Equal(t, "ana@example.com", mails[0].To)
	require.NotEmpty(t, e.resetToken("ana@example.com"))

	r := e.do("POST", "/auth/forgot-password", "", map[string]any{"email": "not-an-email"})
	requireStatus(t, r, http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/auth/forgot-password", "", map[string]any{}), http.StatusBadRequest)
	require.Len(t, e.mails(identity.EmailTopicPasswordReset), 1)
}

// TestResetPassword: the link's token sets a new password once, under the password rules, and ends every
// session of the account (bearer and cookie, cached or not); a used, unknown or expired token is 400.
func TestResetPassword(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("bea@example.com")
	login := identLogin(e, "bea@example.com", identPassword)
	requireStatus(t, login, http.StatusOK)
	cookie := identSessionCookie(login)
	tenantPath := "/orgs/" + u.OrgSlug + "/workspaces/personal"
	// Resolved once, so the guard's cache holds the old session.
	requireStatus(t, e.do("GET", tenantPath, u.Token, nil), http.StatusOK)

	requireStatus(t, e.do("POST", "/auth/forgot-password", "", map[string]any{"email": "bea@example.com"}),
		http.StatusAccepted)
	token := e.resetToken("bea@example.com")

	// Password rules as at registration; a refusal uses nothing up.
	r := e.do("POST", "/auth/reset-password", "", map[string]any{"token": token, "newPassword": "short"})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "newPassword")
	requireStatus(t, e.do("POST", "/auth/reset-password", "", map[string]any{"newPassword": "a-new-password"}),
		http.StatusBadRequest)
	require.Equal(t, http.StatusOK, e.do("GET", "/auth/me", u.Token, nil).Code)

	r = e.do("POST", "/auth/reset-password", "", map[string]any{"token": token, "newPassword": "a-new-password"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, OKBody{OK: true}, decode[OKBody](t, r))

	// Every session of the account is over.
	requireStatus(t, e.do("GET", "/auth/me", u.Token, nil), http.StatusUnauthorized)
	requireStatus(t, e.do("GET", tenantPath, u.Token, nil), http.StatusUnauthorized)
	requireStatus(t, e.send(req{Method: "GET", Path: "/auth/me", Cookies: []*http.Cookie{{Name: sessionCookie,
		Value: cookie.Value}}}), http.StatusUnauthorized)
	requireStatus(t, identLogin(e, "bea@example.com", identPassword), http.StatusUnauthorized)
	requireStatus(t, identLogin(e, "bea@example.com", "a-new-password"), http.StatusOK)
	require.Equal(t, 1, e.count("SELECT count(*) FROM users WHERE id = $1 AND email_verified", u.ID), "the link proved "+
		"the address")

	// Used up; unknown; expired.
	for _, tok := range []string{token, "no-such-token"} {
		r = e.do("POST", "/auth/reset-password", "", map[string]any{"token": tok, "newPassword": "third-password"})
		requireStatus(t, r, http.StatusBadRequest)
	}
	requireStatus(t, e.do("POST", "/auth/forgot-password", "", map[string]any{"email": "bea@example.com"}),
		http.StatusAccepted)
	expired := e.resetToken("bea@example.com")
	_, err := e.pool.Exec(context.Background(), "UPDATE account_tokens SET expires_at = now() - interval '1 second'")
	require.NoError(t, err)
	requireStatus(t, e.do("POST", "/auth/reset-password", "", map[string]any{"token": expired,
		"newPassword": "third-password"}), http.StatusBadRequest)
	requireStatus(t, identLogin(e, "bea@example.com", "a-new-password"), http.StatusOK)
}

// TestResetPasswordKeepsTwoFactor: a reset sets the password only; the second factor is still asked.
func TestResetPasswordKeepsTwoFactor(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tfaEnable(e, "cleo@example.com")
	requireStatus(t, e.do("POST", "/auth/forgot-password", "", map[string]any{"email": "cleo@example.com"}),
		http.StatusAccepted)
	requireStatus(t, e.do("POST", "/auth/reset-password", "", map[string]any{"token": e.resetToken("cleo@example.com"),
		"newPassword": "a-new-password"}), http.StatusOK)
	r := identLogin(e, "cleo@example.com", "a-new-password")
	requireStatus(t, r, http.StatusOK)
	require.True(t, decode[SessionBody](t, r).TwoFactorRequired)
}

// TestForgotPasswordRateLimits: one client address is held back after ten requests (429); one e-mail
// address receives three links an hour whoever asks, past which the answer stays the same.
func TestForgotPasswordRateLimits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	identRegister(e, "dina@example.com", "Dina")
	forgot := func(addr, email string) *resp {
		return e.send(req{Method: "POST", Path: "/auth/forgot-password", RemoteAddr: addr,
			Body: map[string]any{"email": email}})
	}

	for i := range 4 {
		r := forgot(fmt.Sprintf("198.51.100.%d:1000", 60+i), "dina@example.com")
		requireStatus(t, r, http.StatusAccepted)
		require.Equal(t, OKBody{OK: true}, decode[OKBody](t, r))
	}
	require.Len(t, e.mails(identity.EmailTopicPasswordReset), 3, "the fourth request sent nothing")

	for i := range 10 {
		requireStatus(t, forgot("198.51.100.70:1000", fmt.Sprintf("x%d@example.com", i)), http.StatusAccepted)
	}
	requireStatus(t, forgot("198.51.100.70:1001", "y@example.com"), http.StatusTooManyRequests)
	requireStatus(t, forgot("198.51.100.71:1000", "y@example.com"), http.StatusAccepted)
}

// TestEmailVerification: registration e-mails a verification link; its token verifies the address once;
// a new link replaces the old; a verified address needs none (409).
func TestEmailVerification(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("edna@example.com")
	me := identMe(t, e.do("GET", "/auth/me", u.Token, nil)).Body.User
	require.False(t, me.EmailVerified)
	first := e.verifyToken("edna@example.com")

	// A new link replaces the first.
	requireStatus(t, e.do("POST", "/auth/verify-email/send", u.Token, nil), http.StatusAccepted)
	second := e.verifyToken("edna@example.com")
	require.NotEqual(t, first, second)
	require.Len(t, e.mails(identity.EmailTopicEmailVerification), 2)
	requireStatus(t, e.do("POST", "/auth/verify-email", "", map[string]any{"token": first}), http.StatusBadRequest)

	r := e.do("POST", "/auth/verify-email", "", map[string]any{"token": second})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, OKBody{OK: true}, decode[OKBody](t, r))
	require.True(t, identMe(t, e.do("GET", "/auth/me", u.Token, nil)).Body.User.EmailVerified)
	requireStatus(t, e.do("POST", "/auth/verify-email", "", map[string]any{"token": second}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/auth/verify-email", "", map[string]any{}), http.StatusBadRequest)

	requireStatus(t, e.do("POST", "/auth/verify-email/send", u.Token, nil), http.StatusConflict)
	require.Len(t, e.mails(identity.EmailTopicEmailVerification), 2)

	// An expired link verifies nothing.
	v := e.register("fay@example.com")
	tok := e.verifyToken("fay@example.com")
	_, err := e.pool.Exec(context.Background(), "UPDATE account_tokens SET expires_at = now() - interval '1 second' "+
		"WHERE user_id = $1", v.ID)
	require.NoError(t, err)
	requireStatus(t, e.do("POST", "/auth/verify-email", "", map[string]any{"token": tok}), http.StatusBadRequest)
	require.False(t, identMe(t, e.do("GET", "/auth/me", v.Token, nil)).Body.User.EmailVerified)
}

// TestEmailVerificationSendLimits: sending needs credentials (a token with account:write), and is held
// back per account, whatever the address, and per client address.
func TestEmailVerificationSendLimits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("gil@example.com")
	requireStatus(t, e.do("POST", "/auth/verify-email/send", "", nil), http.StatusUnauthorized)
	requireStatus(t, e.do("POST", "/auth/verify-email/send", e.pat(u, []string{"account:read"}), nil),
		http.StatusForbidden)
	send := func(addr, token string) *resp {
		return e.send(req{Method: "POST", Path: "/auth/verify-email/send", Token: token, RemoteAddr: addr})
	}
	requireStatus(t, send("198.51.100.80:1", e.pat(u, []string{"account:write"})), http.StatusAccepted)
	requireStatus(t, send("198.51.100.81:1", u.Token), http.StatusAccepted)
	requireStatus(t, send("198.51.100.82:1", u.Token), http.StatusAccepted)
	requireStatus(t, send("198.51.100.83:1", u.Token), http.StatusTooManyRequests)
	require.Len(t, e.mails(identity.EmailTopicEmailVerification), 4, "registration's and three more")

	// One address, many accounts: ten, then 429.
	for i := range 10 {
		v := e.register(fmt.Sprintf("h%d@example.com", i))
		requireStatus(t, send("198.51.100.90:1", v.Token), http.StatusAccepted)
	}
	w := e.register("last@example.com")
	requireStatus(t, send("198.51.100.90:1", w.Token), http.StatusTooManyRequests)
	requireStatus(t, send("198.51.100.91:1", w.Token), http.StatusAccepted)
}

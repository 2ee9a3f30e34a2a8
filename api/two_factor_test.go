package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/auth"
)

// tfaCode is the TOTP code of secret at t.
func tfaCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := auth.TOTPCode(secret, at)
	require.NoError(t, err)
	return code
}

// tfaWrongCode is a well-formed code that matches none of the steps MatchTOTP accepts now.
func tfaWrongCode(t *testing.T, secret string) string {
	t.Helper()
	now := time.Now()
	for i := 0; ; i++ {
		code := fmt.Sprintf("%06d", i)
		if _, ok := auth.MatchTOTP(secret, code, now); !ok {
			if _, ok := auth.MatchTOTP(secret, code, now.Add(30*time.Second)); !ok {
				return code
			}
		}
	}
}

// tfaEnable registers email, turns two-factor authentication on with the code of the current step, and
// returns the session token, user id and TOTP secret.
func tfaEnable(e *testEnv, email string) (token, id, secret string) {
	e.t.Helper()
	token, id, secret, _ = tfaEnableWithCodes(e, email)
	return token, id, secret
}

// tfaEnableWithCodes is tfaEnable that also returns the recovery codes the enable answered.
func tfaEnableWithCodes(e *testEnv, email string) (token, id, secret string, codes []string) {
	e.t.Helper()
	reg := identRegister(e, email, "Two Factor")
	token = reg.AccessToken
	id = reg.User.ID
	r := e.do("POST", "/auth/2fa/setup", token, nil)
	requireStatus(e.t, r, http.StatusOK)
	secret = tfaSetup(e.t, r).Body.Secret
	r = e.do("POST", "/auth/2fa/enable", token, map[string]any{"password": identPassword, "code": tfaCode(e.t, secret,
		time.Now())})
	requireStatus(e.t, r, http.StatusOK)
	out := decode[TwoFactorEnabledOutputBody](e.t, r)
	require.Equal(e.t, true, out.TwoFactorEnabled)
	require.Len(e.t, out.RecoveryCodes, 10)
	return token, id, secret, out.RecoveryCodes
}

// tfaSetup decodes an answer of auth-2fa-setup.
func tfaSetup(t *testing.T, r *resp) TwoFactorSetupOutput {
	t.Helper()
	var out TwoFactorSetupOutput
	decodeTo(t, r, &out.Body)
	return out
}

// tfaState decodes an answer of auth-2fa-disable.
func tfaState(t *testing.T, r *resp) TwoFactorStateOutput {
	t.Helper()
	var out TwoFactorStateOutput
	decodeTo(t, r, &out.Body)
	return out
}

// tfaLogin logs in with password and returns the two-factor token the answer must carry instead of a
// session.
func tfaLogin(e *testEnv, email string) string {
	e.t.Helper()
	r := identLogin(e, email, identPassword)
	requireStatus(e.t, r, http.StatusOK)
	m := decode[SessionBody](e.t, r)
	require.Equal(e.t, true, m.TwoFactorRequired, "body: %s", r.Body)
	// No session at all: the fields are absent, which SessionBody would read as empty.
	fields := bodyFields(e.t, r)
	require.NotContains(e.t, fields, "access_token")
	require.NotContains(e.t, fields, "csrfToken")
	require.NotContains(e.t, fields, "user")
	require.Nil(e.t, identSessionCookie(r), "no session cookie before the second factor")
	require.NotEmpty(e.t, m.TwoFactorToken)
	return m.TwoFactorToken
}

// tfaToken signs a two-factor token for id issued at issued, as the server's signer would.
func tfaToken(t *testing.T, id string, issued time.Time) string {
	t.Helper()
	c := auth.Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: id, ID: auth.RandomString(12), Issuer: "pilot",
			IssuedAt: jwt.NewNumericDate(issued), ExpiresAt: jwt.NewNumericDate(issued.Add(auth.TwoFactorTTL))},
		Type: auth.TypeTwoFactor, Version: 1,
	}
	j := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	j.Header["kid"] = auth.StaticKeys(testJWTSecret)[0].ID
	tok, err := j.SignedString(testJWTSecret)
	require.NoError(t, err)
	return tok
}

func tfaEnabledInDB(e *testEnv, id string) bool {
	e.t.Helper()
	var on bool
	require.NoError(e.t, e.pool.QueryRow(context.Background(), "SELECT totp_enabled FROM users WHERE id = $1",
		id).Scan(&on))
	return on
}

func TestTwoFactorSetupAndEnable(t *testing.T) {
	t.Parallel()
	e := setup(t)
	reg := identRegister(e, "nina@example.com", "Nina")
	token := reg.AccessToken
	id := reg.User.ID

	// Enable before setup has nothing to check against.
	requireStatus(t, e.do("POST", "/auth/2fa/enable", token, map[string]any{"password": identPassword, "code": "123456"}),
		http.StatusBadRequest)

	r := e.do("POST", "/auth/2fa/setup", token, nil)
	requireStatus(t, r, http.StatusOK)
	m := tfaSetup(t, r).Body
	secret := m.Secret
	require.NotEmpty(t, secret)
	u, err := url.Parse(m.OtpauthURL)
	require.NoError(t, err)
	require.Equal(t, "otpauth", u.Scheme)
	require.Equal(t, "totp", u.Host)
	require.Equal(t, secret, u.Query().Get("secret"))
	require.Equal(t, "Pilot", u.Query().Get("issuer"))
	require.Contains(t, u.Path, "nina@example.com")

	// Set up is not yet on: login still answers a session.
	require.False(t, tfaEnabledInDB(e, id))
	requireStatus(t, identLogin(e, "nina@example.com", identPassword), http.StatusOK)
	require.Contains(t, bodyFields(t, identLogin(e, "nina@example.com", identPassword)), "access_token")

	r = e.do("POST", "/auth/2fa/enable", token, map[string]any{"password": identPassword, "code": tfaWrongCode(t, secret)})
	requireStatus(t, r, http.StatusBadRequest)
	require.False(t, tfaEnabledInDB(e, id))
	for _, bad := range []string{"12ab", "12345", "1234567", ""} {
		requireStatus(t, e.do("POST", "/auth/2fa/enable", token, map[string]any{"password": identPassword, "code": bad}),
			http.StatusBadRequest)
	}
	requireStatus(t, e.do("POST", "/auth/2fa/enable", token, map[string]any{}), http.StatusBadRequest)
	// The right code without the password, or with a wrong one, turns nothing on and uses up no code.
	now := tfaCode(t, secret, time.Now())
	r = e.do("POST", "/auth/2fa/enable", token, map[string]any{"code": now})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "password")
	r = e.do("POST", "/auth/2fa/enable", token, map[string]any{"password": "not-my-password", "code": now})
	requireStatus(t, r, http.StatusBadRequest)
	require.Equal(t, "current password is incorrect", decode[ErrorBody](t, r).Message)
	require.False(t, tfaEnabledInDB(e, id))
	require.Equal(t, 0, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1", id))

	r = e.do("POST", "/auth/2fa/enable", token, map[string]any{"password": identPassword, "code": now})
	requireStatus(t, r, http.StatusOK)
	enabled := decode[TwoFactorEnabledOutputBody](t, r)
	require.Equal(t, true, enabled.TwoFactorEnabled)
	require.True(t, tfaEnabledInDB(e, id))
	// Ten distinct recovery codes, stored as hashes only.
	require.Len(t, enabled.RecoveryCodes, 10)
	distinct := map[string]bool{}
	for _, c := range enabled.RecoveryCodes {
		require.Regexp(t, `^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$`, c)
		distinct[c] = true
		hash, ok := auth.HashRecoveryCode(c)
		require.True(t, ok)
		require.Equal(t, 1, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1 AND code_hash = $2",
			id, hash))
	}
	require.Len(t, distinct, 10)
	require.Equal(t, 10, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1", id))

	me := e.do("GET", "/auth/me", token, nil)
	requireStatus(t, me, http.StatusOK)
	require.Equal(t, true, identMe(t, me).Body.User.TwoFactorEnabled)

	// Once on, setup and enable refuse, and the secret is unchanged.
	requireStatus(t, e.do("POST", "/auth/2fa/setup", token, nil), http.StatusConflict)
	requireStatus(t, e.do("POST", "/auth/2fa/enable", token, map[string]any{"password": identPassword, "code": tfaCode(t,
		secret, time.Now())}), http.StatusConflict)
	require.Equal(t, 10, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1", id),
		"a refused enable keeps the codes")
	var stored string
	require.NoError(t, e.pool.QueryRow(context.Background(), "SELECT totp_secret FROM users WHERE id = $1",
		id).Scan(&stored))
	require.Equal(t, secret, stored)
}

func TestTwoFactorLoginAndVerify(t *testing.T) {
	t.Parallel()
	e := setup(t)
	enabledAt := time.Now()
	sessionToken, id, secret := tfaEnable(e, "omar@example.com")

	twoFA := tfaLogin(e, "omar@example.com")

	// The two-factor token is not a session.
	requireStatus(t, e.do("GET", "/auth/me", twoFA, nil), http.StatusUnauthorized)

	// The code of the step already used to enable is a replay.
	r := e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": tfaCode(t, secret,
		enabledAt)})
	requireStatus(t, r, http.StatusUnauthorized)
	require.NotContains(t, bodyFields(t, r), "access_token")

	// A wrong code.
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": tfaWrongCode(t,
		secret)}), http.StatusUnauthorized)
	// A malformed code is a validation error.
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": "12ab"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA}), http.StatusBadRequest)
	// A bad two-factor token, or a session JWT in its place.
	next := tfaCode(t, secret, time.Now().Add(30*time.Second))
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": "garbage", "code": next}),
		http.StatusUnauthorized)
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": sessionToken, "code": next}),
		http.StatusUnauthorized)
	forged, _, err := testSigner([]byte("another-secret-another-secret-another"), time.Hour).Issue(id, auth.TypeTwoFactor,
		1)
	require.NoError(t, err)
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": forged, "code": next}),
		http.StatusUnauthorized)
	// A two-factor token past its (fixed, short) lifetime.
	expired := e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": tfaToken(t, id,
		time.Now().Add(-auth.TwoFactorTTL-time.Minute)), "code": next})
	requireStatus(t, expired, http.StatusUnauthorized)
	// The same construction unexpired gets past the token check (and fails on the wrong code instead), so
	// the refusal above is about expiry alone.
	fresh := e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": tfaToken(t, id, time.Now()),
		"code": tfaWrongCode(t, secret)})
	requireStatus(t, fresh, http.StatusUnauthorized)
	require.NotEqual(t, decode[ErrorBody](t, expired).Message, decode[ErrorBody](t, fresh).Message)

	// The refusals above consumed nothing: the next step's code still completes the login.
	r = e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": next})
	requireStatus(t, r, http.StatusOK)
	m := decode[SessionBody](t, r)
	token := m.AccessToken
	require.NotEmpty(t, token)
	require.NotEmpty(t, m.CSRFToken)
	require.NotNil(t, m.User)
	require.Equal(t, true, m.User.TwoFactorEnabled)
	c := identSessionCookie(r)
	require.NotNil(t, c)
	require.True(t, c.HttpOnly)
	require.Equal(t, id, identMeID(e, req{Token: token}))

	// The same code again is a replay, even with a fresh two-factor token.
	r = e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": tfaLogin(e, "omar@example.com"),
		"code": next})
	requireStatus(t, r, http.StatusUnauthorized)
	r = e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": next})
	requireStatus(t, r, http.StatusUnauthorized)
}

func TestTwoFactorTokenDiesWithPasswordChange(t *testing.T) {
	t.Parallel()
	e := setup(t)
	token, _, secret := tfaEnable(e, "pia@example.com")
	twoFA := tfaLogin(e, "pia@example.com")

	r := e.do("POST", "/auth/change-password", token, map[string]any{"currentPassword": identPassword,
		"newPassword": "a-new-password"})
	requireStatus(t, r, http.StatusOK)

	r = e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": tfaCode(t, secret,
		time.Now().Add(30*time.Second))})
	requireStatus(t, r, http.StatusUnauthorized)
}

func TestTwoFactorDisable(t *testing.T) {
	t.Parallel()
	e := setup(t)
	token, id, secret := tfaEnable(e, "quinn@example.com")
	disable := func(body map[string]any) *resp { return e.do("POST", "/auth/2fa/disable", token, body) }

	next := tfaCode(t, secret, time.Now().Add(30*time.Second))
	requireStatus(t, disable(map[string]any{"password": identPassword, "code": tfaWrongCode(t, secret)}),
		http.StatusBadRequest)
	r := disable(map[string]any{"password": identPassword, "code": "12ab"})
	requireStatus(t, r, http.StatusBadRequest)
	require.Equal(t, "code", decode[ErrorBody](t, r).Errors[0].Field)
	// The step used to enable cannot be used again to disable.
	requireStatus(t, disable(map[string]any{"password": identPassword, "code": tfaCode(t, secret,
		time.Now().Add(-30*time.Second))}), http.StatusBadRequest)
	// A valid code without the password, or with a wrong one, is refused and not used up.
	requireStatus(t, disable(map[string]any{"code": next}), http.StatusBadRequest)
	r = disable(map[string]any{"password": "not-my-password", "code": next})
	requireStatus(t, r, http.StatusBadRequest)
	require.Equal(t, "current password is incorrect", decode[ErrorBody](t, r).Message)
	require.True(t, tfaEnabledInDB(e, id))

	r = disable(map[string]any{"password": identPassword, "code": next})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, false, tfaState(t, r).Body.TwoFactorEnabled)
	require.False(t, tfaEnabledInDB(e, id))
	require.Equal(t, 0, e.count("SELECT count(*) FROM users WHERE id = $1 AND totp_secret IS NOT NULL", id),
		"disabling forgets the secret")
	require.Equal(t, 0, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1", id),
		"disabling deletes the recovery codes")

	me := e.do("GET", "/auth/me", token, nil)
	requireStatus(t, me, http.StatusOK)
	require.Equal(t, false, identMe(t, me).Body.User.TwoFactorEnabled)

	login := identLogin(e, "quinn@example.com", identPassword)
	requireStatus(t, login, http.StatusOK)
	require.NotEmpty(t, decode[SessionBody](t, login).AccessToken)
	require.NotContains(t, bodyFields(t, login), "twoFactorRequired")

	// Disabling again has nothing to turn off.
	requireStatus(t, disable(map[string]any{"password": identPassword, "code": "123456"}), http.StatusConflict)
}

func TestTwoFactorRefusesPersonalAccessTokens(t *testing.T) {
	t.Parallel()
	e := setup(t)
	reg := identRegister(e, "rosa@example.com", "Rosa")
	token := reg.AccessToken
	id := reg.User.ID
	pat := e.do("POST", "/api-tokens", token, map[string]any{"name": "all scopes"})
	requireStatus(t, pat, http.StatusCreated)
	secret := decode[CreatedTokenOut](t, pat).Token

	requireStatus(t, e.do("POST", "/auth/2fa/setup", secret, nil), http.StatusForbidden)
	require.Equal(t, 0, e.count("SELECT count(*) FROM users WHERE id = $1 AND totp_secret IS NOT NULL", id))

	r := e.do("POST", "/auth/2fa/setup", token, nil)
	requireStatus(t, r, http.StatusOK)
	totp := tfaSetup(t, r).Body.Secret
	requireStatus(t, e.do("POST", "/auth/2fa/enable", secret, map[string]any{"password": identPassword, "code": tfaCode(t,
		totp, time.Now())}), http.StatusForbidden)
	require.False(t, tfaEnabledInDB(e, id))

	r = e.do("POST", "/auth/2fa/enable", token, map[string]any{"password": identPassword, "code": tfaCode(t, totp,
		time.Now())})
	requireStatus(t, r, http.StatusOK)
	codes := decode[TwoFactorEnabledOutputBody](t, r).RecoveryCodes
	next := tfaCode(t, totp, time.Now().Add(30*time.Second))
	requireStatus(t, e.do("POST", "/auth/2fa/disable", secret, map[string]any{"password": identPassword, "code": next}),
		http.StatusForbidden)
	requireStatus(t, e.do("POST", "/auth/2fa/recovery-codes", secret, map[string]any{"password": identPassword,
		"code": codes[0]}), http.StatusForbidden)
	require.True(t, tfaEnabledInDB(e, id))
	require.Equal(t, 10, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1", id))

	// Unauthenticated calls are 401.
	requireStatus(t, e.do("POST", "/auth/2fa/setup", "", nil), http.StatusUnauthorized)
	requireStatus(t, e.do("POST", "/auth/2fa/disable", "", map[string]any{"password": identPassword, "code": "123456"}),
		http.StatusUnauthorized)
	requireStatus(t, e.do("POST", "/auth/2fa/recovery-codes", "", map[string]any{"password": identPassword,
		"code": "123456"}), http.StatusUnauthorized)
}

// TestTwoFactorRecoveryCodeCompletesLogin: a recovery code stands in for a TOTP code at the login's
// second step, in any form a person may type it, once; a malformed one is a validation error.
func TestTwoFactorRecoveryCodeCompletesLogin(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, id, _, codes := tfaEnableWithCodes(e, "rhea@example.com")
	verify := func(code string) *resp {
		return e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": tfaLogin(e, "rhea@example.com"),
			"code": code})
	}

	r := verify(strings.ToUpper(strings.ReplaceAll(codes[0], "-", " ")))
	requireStatus(t, r, http.StatusOK)
	m := decode[SessionBody](t, r)
	require.NotEmpty(t, m.AccessToken)
	require.NotNil(t, identSessionCookie(r))
	require.Equal(t, id, identMeID(e, req{Token: m.AccessToken}))
	require.Equal(t, 9, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1", id))

	// Used up.
	r = verify(codes[0])
	requireStatus(t, r, http.StatusUnauthorized)
	require.NotContains(t, bodyFields(t, r), "access_token")
	// Not a code of this user's, well-formed.
	requireStatus(t, verify("0000-0000-0000-0000"), http.StatusUnauthorized)
	// Malformed: neither six digits nor a recovery code.
	for _, bad := range []string{"abcd-efgh", "abcd-efgh-jkmn-pqru", "1234567"} {
		r = verify(bad)
		requireStatus(t, r, http.StatusBadRequest)
		require.Equal(t, "code", decode[ErrorBody](t, r).Errors[0].Field)
	}
	// Another code still works.
	requireStatus(t, verify(codes[1]), http.StatusOK)
}

// TestTwoFactorRenewRecoveryCodes: renewing needs the password and a code (TOTP or recovery), answers ten
// new codes and retires every earlier one; it is 409 without two-factor.
func TestTwoFactorRenewRecoveryCodes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	token, id, secret, codes := tfaEnableWithCodes(e, "sami@example.com")
	renew := func(body map[string]any) *resp { return e.do("POST", "/auth/2fa/recovery-codes", token, body) }

	r := renew(map[string]any{"password": "not-my-password", "code": codes[0]})
	requireStatus(t, r, http.StatusBadRequest)
	require.Equal(t, "current password is incorrect", decode[ErrorBody](t, r).Message)
	requireStatus(t, renew(map[string]any{"code": codes[0]}), http.StatusBadRequest)
	requireStatus(t, renew(map[string]any{"password": identPassword, "code": tfaWrongCode(t, secret)}),
		http.StatusBadRequest)
	require.Equal(t, 10, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1", id),
		"refusals use up no code")

	r = renew(map[string]any{"password": identPassword, "code": codes[0]})
	requireStatus(t, r, http.StatusOK)
	renewed := decode[RecoveryCodesOutputBody](t, r).RecoveryCodes
	require.Len(t, renewed, 10)
	require.Empty(t, slices.DeleteFunc(slices.Clone(renewed), func(c string) bool { return !slices.Contains(codes, c) }),
		"all new")
	require.Equal(t, 10, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1", id))

	// The old codes are gone; the new ones complete a login; a TOTP code renews too.
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": tfaLogin(e, "sami@example.com"),
		"code": codes[1]}), http.StatusUnauthorized)
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": tfaLogin(e, "sami@example.com"),
		"code": renewed[1]}), http.StatusOK)
	r = renew(map[string]any{"password": identPassword, "code": tfaCode(t, secret, time.Now().Add(30*time.Second))})
	requireStatus(t, r, http.StatusOK)
	last := decode[RecoveryCodesOutputBody](t, r).RecoveryCodes

	// Disabling with a recovery code, then nothing to renew.
	requireStatus(t, e.do("POST", "/auth/2fa/disable", token, map[string]any{"password": identPassword, "code": last[0]}),
		http.StatusOK)
	requireStatus(t, renew(map[string]any{"password": identPassword, "code": last[1]}), http.StatusConflict)
	require.Equal(t, 0, e.count("SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1", id))
}

// TestTwoFactorManagementRateLimited: enable, disable and renewal count against the user's second-factor
// limit, as verify does, from any address; another user is not held back.
func TestTwoFactorManagementRateLimited(t *testing.T) {
	t.Parallel()
	e := setupWith(t, setupOpts{loginRateLimit: 3})
	token, id, secret := tfaEnable(e, "tara@example.com") // the enable is the first attempt
	other, _, otherSecret := tfaEnable(e, "umar@example.com")
	from := func(addr, tok, path string, body map[string]any) *resp {
		return e.send(req{Method: "POST", Path: path, Token: tok, Body: body, RemoteAddr: addr})
	}

	requireStatus(t, from("198.51.100.20:1", token, "/auth/2fa/disable", map[string]any{"password": identPassword,
		"code": tfaWrongCode(t, secret)}), http.StatusBadRequest)
	requireStatus(t, from("198.51.100.21:1", token, "/auth/2fa/recovery-codes",
		map[string]any{"password": "wrong-password", "code": tfaWrongCode(t, secret)}), http.StatusBadRequest)
	// The fourth attempt, from yet another address and with the right password and code, is refused.
	r := from("198.51.100.22:1", token, "/auth/2fa/disable", map[string]any{"password": identPassword, "code": tfaCode(t,
		secret, time.Now().Add(30*time.Second))})
	requireStatus(t, r, http.StatusTooManyRequests)
	require.True(t, tfaEnabledInDB(e, id))

	requireStatus(t, from("198.51.100.23:1", other, "/auth/2fa/disable", map[string]any{"password": identPassword,
		"code": tfaCode(t, otherSecret, time.Now().Add(30*time.Second))}), http.StatusOK)
}

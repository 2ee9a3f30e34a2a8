package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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
	reg := identRegister(e, email, "Two Factor")
	token = reg.AccessToken
	id = reg.User.ID
	r := e.do("POST", "/auth/2fa/setup", token, nil)
	requireStatus(e.t, r, http.StatusOK)
	secret = tfaSetup(e.t, r).Body.Secret
	r = e.do("POST", "/auth/2fa/enable", token, map[string]any{"code": tfaCode(e.t, secret, time.Now())})
	requireStatus(e.t, r, http.StatusOK)
	require.Equal(e.t, true, tfaState(e.t, r).Body.TwoFactorEnabled)
	return token, id, secret
}

// tfaSetup decodes an answer of auth-2fa-setup.
func tfaSetup(t *testing.T, r *resp) TwoFactorSetupOutput {
	t.Helper()
	var out TwoFactorSetupOutput
	decodeTo(t, r, &out.Body)
	return out
}

// tfaState decodes an answer of auth-2fa-enable or auth-2fa-disable.
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
	require.NoError(e.t, e.pool.QueryRow(context.Background(), "SELECT totp_enabled FROM users WHERE id = $1", id).Scan(&on))
	return on
}

func TestTwoFactorSetupAndEnable(t *testing.T) {
	t.Parallel()
	e := setup(t)
	reg := identRegister(e, "nina@example.com", "Nina")
	token := reg.AccessToken
	id := reg.User.ID

	// Enable before setup has nothing to check against.
	requireStatus(t, e.do("POST", "/auth/2fa/enable", token, map[string]any{"code": "123456"}), http.StatusBadRequest)

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

	r = e.do("POST", "/auth/2fa/enable", token, map[string]any{"code": tfaWrongCode(t, secret)})
	requireStatus(t, r, http.StatusBadRequest)
	require.False(t, tfaEnabledInDB(e, id))
	for _, bad := range []string{"12ab", "12345", "1234567", ""} {
		requireStatus(t, e.do("POST", "/auth/2fa/enable", token, map[string]any{"code": bad}), http.StatusBadRequest)
	}
	requireStatus(t, e.do("POST", "/auth/2fa/enable", token, map[string]any{}), http.StatusBadRequest)
	require.False(t, tfaEnabledInDB(e, id))

	r = e.do("POST", "/auth/2fa/enable", token, map[string]any{"code": tfaCode(t, secret, time.Now())})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, tfaState(t, r).Body.TwoFactorEnabled)
	require.True(t, tfaEnabledInDB(e, id))

	me := e.do("GET", "/auth/me", token, nil)
	requireStatus(t, me, http.StatusOK)
	require.Equal(t, true, identMe(t, me).Body.User.TwoFactorEnabled)

	// Once on, setup and enable refuse, and the secret is unchanged.
	requireStatus(t, e.do("POST", "/auth/2fa/setup", token, nil), http.StatusConflict)
	requireStatus(t, e.do("POST", "/auth/2fa/enable", token, map[string]any{"code": tfaCode(t, secret, time.Now())}), http.StatusConflict)
	var stored string
	require.NoError(t, e.pool.QueryRow(context.Background(), "SELECT totp_secret FROM users WHERE id = $1", id).Scan(&stored))
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
	r := e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": tfaCode(t, secret, enabledAt)})
	requireStatus(t, r, http.StatusUnauthorized)
	require.NotContains(t, bodyFields(t, r), "access_token")

	// A wrong code.
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": tfaWrongCode(t, secret)}), http.StatusUnauthorized)
	// A malformed code is a validation error.
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": "12ab"}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA}), http.StatusBadRequest)
	// A bad two-factor token, or a session JWT in its place.
	next := tfaCode(t, secret, time.Now().Add(30*time.Second))
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": "garbage", "code": next}), http.StatusUnauthorized)
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": sessionToken, "code": next}), http.StatusUnauthorized)
	forged, _, err := testSigner([]byte("another-secret-another-secret-another"), time.Hour).Issue(id, auth.TypeTwoFactor, 1)
	require.NoError(t, err)
	requireStatus(t, e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": forged, "code": next}), http.StatusUnauthorized)
	// A two-factor token past its (fixed, short) lifetime.
	expired := e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": tfaToken(t, id, time.Now().Add(-auth.TwoFactorTTL-time.Minute)), "code": next})
	requireStatus(t, expired, http.StatusUnauthorized)
	// The same construction unexpired gets past the token check (and fails on the wrong code instead), so
	// the refusal above is about expiry alone.
	fresh := e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": tfaToken(t, id, time.Now()), "code": tfaWrongCode(t, secret)})
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
	r = e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": tfaLogin(e, "omar@example.com"), "code": next})
	requireStatus(t, r, http.StatusUnauthorized)
	r = e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": next})
	requireStatus(t, r, http.StatusUnauthorized)
}

func TestTwoFactorTokenDiesWithPasswordChange(t *testing.T) {
	t.Parallel()
	e := setup(t)
	token, _, secret := tfaEnable(e, "pia@example.com")
	twoFA := tfaLogin(e, "pia@example.com")

	r := e.do("POST", "/auth/change-password", token, map[string]any{"currentPassword": identPassword, "newPassword": "a-new-password"})
	requireStatus(t, r, http.StatusOK)

	r = e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": twoFA, "code": tfaCode(t, secret, time.Now().Add(30*time.Second))})
	requireStatus(t, r, http.StatusUnauthorized)
}

func TestTwoFactorDisable(t *testing.T) {
	t.Parallel()
	e := setup(t)
	token, id, secret := tfaEnable(e, "quinn@example.com")

	requireStatus(t, e.do("POST", "/auth/2fa/disable", token, map[string]any{"code": tfaWrongCode(t, secret)}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/auth/2fa/disable", token, map[string]any{"code": "12ab"}), http.StatusBadRequest)
	// The step used to enable cannot be used again to disable.
	requireStatus(t, e.do("POST", "/auth/2fa/disable", token, map[string]any{"code": tfaCode(t, secret, time.Now().Add(-30*time.Second))}), http.StatusBadRequest)
	require.True(t, tfaEnabledInDB(e, id))

	r := e.do("POST", "/auth/2fa/disable", token, map[string]any{"code": tfaCode(t, secret, time.Now().Add(30*time.Second))})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, false, tfaState(t, r).Body.TwoFactorEnabled)
	require.False(t, tfaEnabledInDB(e, id))
	require.Equal(t, 0, e.count("SELECT count(*) FROM users WHERE id = $1 AND totp_secret IS NOT NULL", id), "disabling forgets the secret")

	me := e.do("GET", "/auth/me", token, nil)
	requireStatus(t, me, http.StatusOK)
	require.Equal(t, false, identMe(t, me).Body.User.TwoFactorEnabled)

	login := identLogin(e, "quinn@example.com", identPassword)
	requireStatus(t, login, http.StatusOK)
	require.NotEmpty(t, decode[SessionBody](t, login).AccessToken)
	require.NotContains(t, bodyFields(t, login), "twoFactorRequired")

	// Disabling again has nothing to turn off.
	requireStatus(t, e.do("POST", "/auth/2fa/disable", token, map[string]any{"code": "123456"}), http.StatusConflict)
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
	requireStatus(t, e.do("POST", "/auth/2fa/enable", secret, map[string]any{"code": tfaCode(t, totp, time.Now())}), http.StatusForbidden)
	require.False(t, tfaEnabledInDB(e, id))

	requireStatus(t, e.do("POST", "/auth/2fa/enable", token, map[string]any{"code": tfaCode(t, totp, time.Now())}), http.StatusOK)
	requireStatus(t, e.do("POST", "/auth/2fa/disable", secret, map[string]any{"code": tfaCode(t, totp, time.Now().Add(30*time.Second))}), http.StatusForbidden)
	require.True(t, tfaEnabledInDB(e, id))

	// Unauthenticated calls are 401.
	requireStatus(t, e.do("POST", "/auth/2fa/setup", "", nil), http.StatusUnauthorized)
	requireStatus(t, e.do("POST", "/auth/2fa/disable", "", map[string]any{"code": "123456"}), http.StatusUnauthorized)
}

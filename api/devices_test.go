package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
)

// deviceClock is the login lockout's clock in these tests: time moves when a test says so.
type deviceClock struct {
	mu sync.Mutex
	t  time.Time
}

func newDeviceClock() *deviceClock {
	return &deviceClock{t: time.Date(2030, 3, 4, 9, 0, 0, 0, time.UTC)}
}

func (c *deviceClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *deviceClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// deviceLimit is LOGIN_ACCOUNT_FAILURE_LIMIT in these tests.
const deviceLimit = 3

// deviceOptions are the options of an api process in these tests: the limit and the clock.
func deviceOptions(clock *deviceClock) func(*Options) {
	return func(o *Options) {
		o.LoginAccountFailureLimit = deviceLimit
		o.LoginClock = clock.now
	}
}

// deviceSetup is setup with deviceOptions.
func deviceSetup(t *testing.T, clock *deviceClock) *testEnv {
	t.Helper()
	return setupWith(t, setupOpts{options: deviceOptions(clock)})
}

// deviceLogin logs in to email with password from the client address addr (a distinct one per attacker),
// with r's cookies and headers.
func deviceLogin(e *testEnv, addr, email, password string, r req) *resp {
	e.t.Helper()
	r.Method, r.Path, r.RemoteAddr = "POST", "/auth/login", addr
	r.Body = map[string]any{"email": email, "password": password}
	return e.send(r)
}

// deviceCookieOf returns the pilot_device cookie an answer sets, or nil.
func deviceCookieOf(r *resp) *http.Cookie {
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == deviceCookie {
			return c
		}
	}
	return nil
}

// signIn logs in to email from addr and returns the device cookie the answer left, checking that the
// body carries the same token.
func signIn(e *testEnv, addr, email string) *http.Cookie {
	e.t.Helper()
	r := deviceLogin(e, addr, email, identPassword, req{})
	requireStatus(e.t, r, http.StatusOK)
	c := deviceCookieOf(r)
	require.NotNil(e.t, c, "a completed sign-in leaves a device cookie; headers: %v", r.Header)
	require.Equal(e.t, c.Value, decode[SessionBody](e.t, r).DeviceToken)
	return c
}

// requireLockedOut asserts the lockout's answer: 429 in the error shape, with Retry-After in seconds,
// and no session.
func requireLockedOut(t *testing.T, r *resp, retryAfter time.Duration) {
	t.Helper()
	requireStatus(t, r, http.StatusTooManyRequests)
	require.Equal(t, fmt.Sprint(int(retryAfter.Seconds())), r.Header.Get("Retry-After"))
	require.Nil(t, identSessionCookie(r))
	require.Nil(t, deviceCookieOf(r))
}

// guess fails the password of email from n addresses, one attempt each, and returns the answers.
func guess(e *testEnv, email string, from, n int) []*resp {
	e.t.Helper()
	var out []*resp
	for i := range n {
		out = append(out, deviceLogin(e, fmt.Sprintf("203.0.113.%d:4000", from+i), email, "wrong-password", req{}))
	}
	return out
}

// TestLoginDeviceCookie: a completed sign-in leaves the device cookie (HttpOnly, SameSite=Strict, only
// for the login route, a year; Secure in production) and the same token in the body; a login that waits
// for its second factor leaves none until the code is verified. Logging out keeps it.
func TestLoginDeviceCookie(t *testing.T) {
	t.Parallel()
	e := setup(t)
	identRegister(e, "dora@example.com", "Dora")
	c := signIn(e, "198.51.100.1:1000", "dora@example.com")
	require.True(t, c.HttpOnly)
	require.False(t, c.Secure, "plain http in development")
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	require.Equal(t, "/auth/login", c.Path)
	require.WithinDuration(t, time.Now().Add(auth.DeviceTTL), c.Expires, time.Minute)
	claims, err := e.signer.Verify(c.Value, auth.TypeDevice)
	require.NoError(t, err)
	_, err = e.signer.Verify(c.Value, auth.TypeSession)
	require.Error(t, err, "a device token is no session")
	requireStatus(t, e.send(req{Method: "GET", Path: "/auth/me", Header: map[string]string{"Authorization": "Bearer " +
		c.Value}}), http.StatusUnauthorized)
	require.NotEqual(t, claims.ID, signInClaims(e, "dora@example.com").ID, "every sign-in gets a new nonce")

	logout := e.send(req{Method: "POST", Path: "/auth/logout", Cookies: []*http.Cookie{c}})
	requireStatus(t, logout, http.StatusOK)
	require.Nil(t, deviceCookieOf(logout), "logging out keeps the device known")

	prod := setupWith(t, setupOpts{production: true})
	identRegister(prod, "dora@example.com", "Dora")
	require.True(t, signIn(prod, "198.51.100.1:1000", "dora@example.com").Secure, "production cookies are Secure")

	// Two-factor: the password alone leaves no device; the verified code does.
	_, _, _, codes := tfaEnableWithCodes(e, "tfa-dora@example.com")
	r := deviceLogin(e, "198.51.100.1:1001", "tfa-dora@example.com", identPassword, req{})
	requireStatus(t, r, http.StatusOK)
	require.Nil(t, deviceCookieOf(r))
	require.NotContains(t, bodyFields(t, r), "deviceToken")
	verified := e.do("POST", "/auth/2fa/verify", "", map[string]any{"twoFactorToken": decode[SessionBody](t,
		r).TwoFactorToken, "code": codes[0]})
	requireStatus(t, verified, http.StatusOK)
	require.NotNil(t, deviceCookieOf(verified))
	require.Equal(t, deviceCookieOf(verified).Value, decode[SessionBody](t, verified).DeviceToken)
}

// signInClaims signs in to email and returns the device token's claims.
func signInClaims(e *testEnv, email string) auth.Claims {
	e.t.Helper()
	c, err := e.signer.Verify(signIn(e, "198.51.100.9:1000", email).Value, auth.TypeDevice)
	require.NoError(e.t, err)
	return c
}

// TestLoginSpreadGuessIsStopped is the outside probe's attack: one wrong password from each of many
// addresses, which the per-address limits never see. Past the account's budget every further login
// without a device of the account is refused with 429 and Retry-After, the right password too, and an
// address nobody uses answers exactly the same; the owner's browser (its cookie) and API client (its
// header) still sign in; the owner is e-mailed once; when Retry-After has passed, any device may sign
// in again.
func TestLoginSpreadGuessIsStopped(t *testing.T) {
	t.Parallel()
	clock := newDeviceClock()
	e := deviceSetup(t, clock)
	identRegister(e, "owen@example.com", "Owen")
	browser := signIn(e, "198.51.100.10:1000", "owen@example.com")
	apiClient := signIn(e, "198.51.100.11:1000", "owen@example.com").Value

	for _, email := range []string{"owen@example.com", "nobody@example.com"} {
		answers := guess(e, email, 1, 15)
		for i, r := range answers[:deviceLimit+1] {
			requireStatus(t, r, http.StatusUnauthorized)
			require.Empty(t, r.Header.Get("Retry-After"), "attempt %d", i+1)
		}
		for _, r := range answers[deviceLimit+1:] {
			requireLockedOut(t, r, time.Hour)
		}
	}
	// Known and unknown addresses were refused alike.
	owen := deviceLogin(e, "203.0.113.50:4000", "owen@example.com", "wrong-password", req{})
	nobody := deviceLogin(e, "203.0.113.51:4000", "nobody@example.com", "wrong-password", req{})
	requireLockedOut(t, owen, time.Hour)
	requireLockedOut(t, nobody, time.Hour)
	require.Equal(t, string(owen.Body), string(nobody.Body))

	// The right password from a device the account never saw is refused as well: the lockout is no oracle.
	requireLockedOut(t, deviceLogin(e, "203.0.113.52:4000", "owen@example.com", identPassword, req{}), time.Hour)
	// Another account's device token, a forged one, or a session token instead, are no device of Owen's.
	identRegister(e, "mallory@example.com", "Mallory")
	mallory := signIn(e, "203.0.113.53:4000", "mallory@example.com")
	session := decode[SessionBody](t, identLogin(e, "mallory@example.com", identPassword)).AccessToken
	for _, r := range []req{
		{Cookies: []*http.Cookie{{Name: deviceCookie, Value: mallory.Value}}},
		{Header: map[string]string{"X-Pilot-Device": mallory.Value}},
		{Header: map[string]string{"X-Pilot-Device": "garbage"}},
		{Header: map[string]string{"X-Pilot-Device": session}},
	} {
		requireLockedOut(t, deviceLogin(e, "203.0.113.54:4000", "owen@example.com", identPassword, r), time.Hour)
	}

	// The owner's browser and API client sign in, and a wrong password from them is a plain 401.
	r := deviceLogin(e, "198.51.100.10:1001", "owen@example.com", identPassword, req{Cookies: []*http.Cookie{browser}})
	requireStatus(t, r, http.StatusOK)
	require.NotNil(t, identSessionCookie(r))
	requireStatus(t, deviceLogin(e, "198.51.100.11:1001", "owen@example.com", identPassword,
		req{Header: map[string]string{"X-Pilot-Device": apiClient}}), http.StatusOK)
	requireStatus(t, deviceLogin(e, "198.51.100.10:1002", "owen@example.com", "typo",
		req{Cookies: []*http.Cookie{browser}}), http.StatusUnauthorized)

	// One e-mail to the owner, none for the address nobody uses.
	mails := e.mails(identity.EmailTopicLoginLockout)
	require.Len(t, mails, 1)
	require.Equal(t, "owen@example.com", mails[0].To)
	require.Contains(t, mails[0].Body, "http://pilot.test/forgot-password")

	// Retry-After counts down with the clock; once it has passed, a new device signs in.
	clock.advance(40 * time.Minute)
	requireLockedOut(t, deviceLogin(e, "203.0.113.55:4000", "owen@example.com", identPassword, req{}), 20*time.Minute)
	clock.advance(20 * time.Minute)
	requireStatus(t, deviceLogin(e, "203.0.113.55:4001", "owen@example.com", identPassword, req{}), http.StatusOK)

	// A second attack, after the first lockout, locks again and e-mails again.
	for _, r := range guess(e, "owen@example.com", 100, deviceLimit+1) {
		requireStatus(t, r, http.StatusUnauthorized)
	}
	requireLockedOut(t, deviceLogin(e, "203.0.113.56:4000", "owen@example.com", identPassword, req{}), time.Hour)
	require.Len(t, e.mails(identity.EmailTopicLoginLockout), 2)
}

// TestLoginKnownDeviceFailuresCountApart: a known device's failures do not count against the account,
// so the owner's typos never lock strangers' guesses in or the owner out; but a device token that fails
// too often (a stolen one, say) is treated as unknown for the window, while the owner's other devices
// still sign in. A password change forgets every device.
func TestLoginKnownDeviceFailuresCountApart(t *testing.T) {
	t.Parallel()
	clock := newDeviceClock()
	e := deviceSetup(t, clock)
	identRegister(e, "pat@example.com", "Pat")
	laptop := signIn(e, "198.51.100.20:1000", "pat@example.com")
	phone := signIn(e, "198.51.100.21:1000", "pat@example.com")
	withLaptop := req{Cookies: []*http.Cookie{laptop}}

	for range deviceLimit + 1 {
		requireStatus(t, deviceLogin(e, "198.51.100.20:1001", "pat@example.com", "wrong-password", withLaptop),
			http.StatusUnauthorized)
	}
	// The account's own budget is untouched: an unknown device still signs in, and so would the laptop.
	requireStatus(t, deviceLogin(e, "198.51.100.22:1000", "pat@example.com", identPassword, req{}), http.StatusOK)
	require.Empty(t, e.mails(identity.EmailTopicLoginLockout))

	// Strangers lock the account: the over-failed laptop now counts as unknown and is refused; the phone is not.
	guess(e, "pat@example.com", 1, deviceLimit+1)
	requireLockedOut(t, deviceLogin(e, "198.51.100.20:1002", "pat@example.com", identPassword, withLaptop), time.Hour)
	requireStatus(t, deviceLogin(e, "198.51.100.21:1001", "pat@example.com", identPassword,
		req{Cookies: []*http.Cookie{phone}}), http.StatusOK)

	// A password change forgets the devices: the phone's old token is unknown now; a new sign-in makes a new one.
	session := decode[SessionBody](t, deviceLogin(e, "198.51.100.21:1002", "pat@example.com", identPassword,
		req{Cookies: []*http.Cookie{phone}})).AccessToken
	requireStatus(t, e.do("POST", "/auth/change-password", session, map[string]any{"currentPassword": identPassword,
		"newPassword": "new-horse-battery"}), http.StatusOK)
	requireLockedOut(t, deviceLogin(e, "198.51.100.21:1003", "pat@example.com", "new-horse-battery",
		req{Cookies: []*http.Cookie{phone}}), time.Hour)
}

// TestLoginLockoutAcrossReplicas spreads the guesses over two api processes on one database: the
// account's count is theirs together, both refuse once it is past, the owner's device signs in on
// either, and the owner hears once.
func TestLoginLockoutAcrossReplicas(t *testing.T) {
	t.Parallel()
	clock := newDeviceClock()
	e := deviceSetup(t, clock)
	replica := *e
	opts := Options{PublicURL: "http://pilot.test", LoginRateLimit: 1000, RegisterRateLimit: 1000, AccessCache: e.access}
	deviceOptions(clock)(&opts)
	replica.handler = newTestHandler(t, e.eng, e.signer, slog.New(slog.DiscardHandler),
		opts)
	identRegister(e, "rita@example.com", "Rita")
	device := signIn(&replica, "198.51.100.30:1000", "rita@example.com")

	// Each replica sees half of the failures, and neither alone is past the budget.
	envs := []*testEnv{e, &replica}
	for i := range deviceLimit + 1 {
		requireStatus(t, deviceLogin(envs[i%2], fmt.Sprintf("203.0.113.%d:4000", i+1), "rita@example.com",
			"wrong-password", req{}), http.StatusUnauthorized)
	}
	for i, env := range envs {
		requireLockedOut(t, deviceLogin(env, fmt.Sprintf("203.0.113.%d:4001", 20+i), "rita@example.com", identPassword,
			req{}), time.Hour)
		requireStatus(t, deviceLogin(env, "198.51.100.30:1001", "rita@example.com", identPassword,
			req{Cookies: []*http.Cookie{device}}), http.StatusOK)
	}
	require.Len(t, e.mails(identity.EmailTopicLoginLockout), 1)
}

// TestRegisterAndPasswordChangeLeaveDevice: creating an account and changing the password are completed
// sign-ins: each leaves a device token (cookie and body) of the account at its current session version,
// so that device signs in while the account refuses unknown ones.
func TestRegisterAndPasswordChangeLeaveDevice(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do("POST", "/auth/register", "", map[string]any{"email": "nina@example.com", "password": identPassword,
		"name": "Nina"})
	requireStatus(t, r, http.StatusCreated)
	c := deviceCookieOf(r)
	require.NotNil(t, c, "registering leaves the device cookie")
	s := decode[SessionBody](t, r)
	require.Equal(t, c.Value, s.DeviceToken)
	claims, err := e.signer.Verify(c.Value, auth.TypeDevice)
	require.NoError(t, err)
	require.Equal(t, s.User.ID, claims.Subject)

	ch := e.do("POST", "/auth/change-password", s.AccessToken, map[string]any{"currentPassword": identPassword,
		"newPassword": "another long password"})
	requireStatus(t, ch, http.StatusOK)
	after := deviceCookieOf(ch)
	require.NotNil(t, after, "the device that changed the password is known again")
	require.Equal(t, after.Value, decode[SessionBody](t, ch).DeviceToken)
	old, err := e.signer.Verify(c.Value, auth.TypeDevice)
	require.NoError(t, err)
	now, err := e.signer.Verify(after.Value, auth.TypeDevice)
	require.NoError(t, err)
	require.Greater(t, now.Version, old.Version, "the new token is of the new session version")
}

package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
)

// identPassword is the password identRegister gives every account.
const identPassword = "correct-horse"

// identRegister registers email through the API and returns the decoded answer.
func identRegister(e *testEnv, email, name string) SessionBody {
	e.t.Helper()
	r := e.do("POST", "/auth/register", "", map[string]any{"email": email, "password": identPassword, "name": name})
	requireStatus(e.t, r, http.StatusCreated)
	s := decode[SessionBody](e.t, r)
	require.NotNil(e.t, s.User)
	return s
}

// identLogin logs in and returns the raw answer.
func identLogin(e *testEnv, email, password string) *resp {
	e.t.Helper()
	return e.do("POST", "/auth/login", "", map[string]any{"email": email, "password": password})
}

// identLoginFrom logs in from the given client address, which the recorder-based helpers cannot set.
func identLoginFrom(e *testEnv, remoteAddr, email, password string) *resp {
	e.t.Helper()
	body := `{"email":"` + email + `","password":"` + password + `"}`
	hr := httptest.NewRequestWithContext(context.Background(), "POST", "/auth/login", strings.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	hr.RemoteAddr = remoteAddr
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, hr)
	return &resp{Code: rec.Code, Body: rec.Body.Bytes(), Header: rec.Header()}
}

// identSessionCookie returns the pilot_session cookie an answer sets, or nil.
func identSessionCookie(r *resp) *http.Cookie {
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == sessionCookie {
			return c
		}
	}
	return nil
}

// identUserName reads a user's stored name.
func identUserName(e *testEnv, id string) string {
	e.t.Helper()
	var name string
	require.NoError(e.t, e.pool.QueryRow(context.Background(), "SELECT name FROM users WHERE id = $1", id).Scan(&name))
	return name
}

// identMeID calls GET /auth/me as r and returns the user id it answers.
func identMeID(e *testEnv, r req) string {
	e.t.Helper()
	r.Method, r.Path = "GET", "/auth/me"
	res := e.send(r)
	requireStatus(e.t, res, http.StatusOK)
	return identMe(e.t, res).Body.User.ID
}

// identMe decodes an answer of auth-me or auth-update-me, which has a user.
func identMe(t *testing.T, r *resp) MeOutput {
	t.Helper()
	var me MeOutput
	decodeTo(t, r, &me.Body)
	require.NotNil(t, me.Body.User)
	return me
}

func TestAuthRegisterCreatesAccountWithPersonalTenancy(t *testing.T) {
	t.Parallel()
	e := setup(t)

	r := e.do("POST", "/auth/register", "", map[string]any{"email": "alice@example.com", "password": identPassword,
		"name": "Alice"})
	requireStatus(t, r, http.StatusCreated)
	m := decode[SessionBody](t, r)
	token := m.AccessToken
	require.NotEmpty(t, token)
	require.NotNil(t, m.User)
	u := m.User
	id := u.ID
	require.NotEmpty(t, id)
	require.Equal(t, "alice@example.com", u.Email)
	require.Equal(t, "Alice", u.Name)

	// The token opens a session.
	me := e.do("GET", "/auth/me", token, nil)
	requireStatus(t, me, http.StatusOK)
	mu := identMe(t, me).Body.User
	require.Equal(t, id, mu.ID)
	require.Equal(t, "alice@example.com", mu.Email)
	require.Equal(t, "Alice", mu.Name)

	// Stored: the password is hashed, never kept in clear.
	var hash string
	require.NoError(t, e.pool.QueryRow(context.Background(), "SELECT password_hash FROM users WHERE id = $1",
		id).Scan(&hash))
	require.NotContains(t, hash, identPassword)
	require.True(t, strings.HasPrefix(hash, "$argon2id$"), hash)

	// A personal organization owned by the user, with a personal workspace "personal".
	orgs := e.do("GET", "/organizations", token, nil)
	requireStatus(t, orgs, http.StatusOK)
	ol := decode[[]OrganizationOut](t, orgs)
	require.Len(t, ol, 1)
	require.EqualValues(t, "owner", ol[0].MyRole)
	orgSlug := ol[0].Slug
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE owner_id = $1", id))
	require.Equal(t, 1, e.count("SELECT count(*) FROM organization_members WHERE user_id = $1 AND role = 'owner'", id))

	ws := e.do("GET", "/orgs/"+orgSlug+"/workspaces/personal", token, nil)
	requireStatus(t, ws, http.StatusOK)
	wm := decode[WorkspaceOut](t, ws)
	require.Equal(t, "personal", wm.Slug)
	require.Equal(t, true, wm.IsPersonal)
	require.EqualValues(t, "admin", wm.MyRole)
	require.EqualValues(t, "owner", wm.MyPilotageRole)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM workspaces w JOIN organizations o ON o.id = w.organization_id
		WHERE o.owner_id = $1 AND w.slug = 'personal' AND w.is_personal`, id))
}

func TestAuthRegisterDuplicateEmailIsConflict(t *testing.T) {
	t.Parallel()
	e := setup(t)
	identRegister(e, "bob@example.com", "Bob")

	for _, email := range []string{"bob@example.com", "BOB@Example.COM"} {
		r := e.do("POST", "/auth/register", "", map[string]any{"email": email, "password": "another-password",
			"name": "Imposter"})
		requireStatus(t, r, http.StatusConflict)
	}
	require.Equal(t, 1, e.count("SELECT count(*) FROM users WHERE lower(email) = 'bob@example.com'"))
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations"))

	// The original password still opens the account.
	requireStatus(t, identLogin(e, "bob@example.com", identPassword), http.StatusOK)
}

func TestAuthRegisterValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)

	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"email invalid", map[string]any{"email": "not-an-email", "password": identPassword}, "email"},
		{"email with display name", map[string]any{"email": "Eve <eve@example.com>", "password": identPassword}, "email"},
		{"email missing", map[string]any{"password": identPassword}, "email"},
		{"email empty", map[string]any{"email": "", "password": identPassword}, "email"},
		{"password missing", map[string]any{"email": "p0@example.com"}, "password"},
		{"password 7 chars", map[string]any{"email": "p1@example.com", "password": strings.Repeat("p", 7)}, "password"},
		{"password 129 chars", map[string]any{"email": "p2@example.com", "password": strings.Repeat("p", 129)}, "password"},
		{"name 101 chars", map[string]any{"email": "n1@example.com", "password": identPassword, "name": strings.Repeat("n",
			101)}, "name"},
	}
	for _, tc := range cases {
		r := e.do("POST", "/auth/register", "", tc.body)
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, decode[ErrorBody](t, r).Message, tc.field, "%s: %s", tc.name, r.Body)
	}
	require.Equal(t, 0, e.count("SELECT count(*) FROM users"), "no rejected registration may create a user")
	require.Equal(t, 0, e.count("SELECT count(*) FROM organizations"))

	// The limits themselves are accepted.
	for _, ok := range []struct {
		email, password, name string
	}{
		{"p8@example.com", strings.Repeat("p", 8), "Eight"},
		{"p128@example.com", strings.Repeat("p", 128), "Long password"},
		{"n100@example.com", identPassword, strings.Repeat("n", 100)},
	} {
		r := e.do("POST", "/auth/register", "", map[string]any{"email": ok.email, "password": ok.password, "name": ok.name})
		requireStatus(t, r, http.StatusCreated)
		s := decode[SessionBody](t, r)
		require.NotNil(t, s.User)
		require.Equal(t, ok.name, identUserName(e, s.User.ID))
		requireStatus(t, identLogin(e, ok.email, ok.password), http.StatusOK)
	}
}

func TestAuthLogin(t *testing.T) {
	t.Parallel()
	e := setup(t)
	reg := identRegister(e, "carol@example.com", "Carol")
	id := reg.User.ID

	r := identLogin(e, "carol@example.com", identPassword)
	requireStatus(t, r, http.StatusOK)
	m := decode[SessionBody](t, r)
	token := m.AccessToken
	require.NotEmpty(t, token)
	require.Equal(t, "Bearer", m.TokenType)
	require.NotEmpty(t, m.CSRFToken)
	// Absent, not false or empty: SessionBody would read either way the same.
	require.NotContains(t, bodyFields(t, r), "twoFactorRequired")
	require.NotContains(t, bodyFields(t, r), "twoFactorToken")
	require.NotNil(t, m.User)
	u := m.User
	require.Equal(t, id, u.ID)
	require.Equal(t, "carol@example.com", u.Email)
	require.Equal(t, "Carol", u.Name)
	require.Equal(t, false, u.EmailVerified)
	require.Equal(t, false, u.TwoFactorEnabled)
	require.EqualValues(t, "owner", u.PilotageRole)

	c := identSessionCookie(r)
	require.NotNil(t, c, "login must set the %s cookie; headers: %v", sessionCookie, r.Header)
	require.True(t, c.HttpOnly)
	require.Equal(t, "/", c.Path)
	require.Equal(t, token, c.Value)
	require.True(t, c.Expires.After(time.Now().Add(6*24*time.Hour)), "cookie expires %v", c.Expires)

	require.Equal(t, id, identMeID(e, req{Token: token}))

	// E-mail matching is case-insensitive.
	requireStatus(t, identLogin(e, "CAROL@example.com", identPassword), http.StatusOK)

	// Wrong password and unknown e-mail answer the same 401, and no session.
	for _, bad := range [][2]string{{"carol@example.com", "wrong-password"}, {"nobody@example.com", identPassword}} {
		r := identLogin(e, bad[0], bad[1])
		requireStatus(t, r, http.StatusUnauthorized)
		require.Nil(t, identSessionCookie(r))
		require.NotContains(t, bodyFields(t, r), "access_token")
	}
	wrong := decode[ErrorBody](t, identLogin(e, "carol@example.com", "wrong-password")).Message
	unknown := decode[ErrorBody](t, identLogin(e, "nobody@example.com", identPassword)).Message
	require.Equal(t, wrong, unknown, "the answer must not reveal which accounts exist")

	// Missing fields are validation errors.
	requireStatus(t, e.do("POST", "/auth/login", "", map[string]any{"email": "carol@example.com"}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/auth/login", "", map[string]any{"password": identPassword}), http.StatusBadRequest)

	// A service user (an agent) never logs in with a password.
	_, err := e.pool.Exec(context.Background(), "UPDATE users SET is_service = true WHERE id = $1", id)
	require.NoError(t, err)
	requireStatus(t, identLogin(e, "carol@example.com", identPassword), http.StatusUnauthorized)
}

func TestAuthSessionCookieAttributes(t *testing.T) {
	t.Parallel()
	dev := setup(t)
	identRegister(dev, "dev@example.com", "Dev")
	r := identLogin(dev, "dev@example.com", identPassword)
	requireStatus(t, r, http.StatusOK)
	c := identSessionCookie(r)
	require.NotNil(t, c)
	require.True(t, c.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, c.SameSite)
	require.False(t, c.Secure, "plain http in development")

	prod := setupWith(t, setupOpts{production: true})
	identRegister(prod, "prod@example.com", "Prod")
	r = identLogin(prod, "prod@example.com", identPassword)
	requireStatus(t, r, http.StatusOK)
	c = identSessionCookie(r)
	require.NotNil(t, c)
	require.True(t, c.HttpOnly)
	require.True(t, c.Secure, "production cookies are Secure")
}

// TestAuthLoginRateLimitPerAccountAndClient: ten wrong passwords from address A hold back A, for that
// account and any other, but not the account's owner at address B: a stranger cannot lock an account
// out from elsewhere.
func TestAuthLoginRateLimitPerAccountAndClient(t *testing.T) {
	t.Parallel()
	e := setupWith(t, setupOpts{loginRateLimit: 10})
	identRegister(e, "dave@example.com", "Dave")
	identRegister(e, "erin@example.com", "Erin")

	for range 10 {
		requireStatus(t, identLoginFrom(e, "198.51.100.1:1000", "dave@example.com", "wrong-password"),
			http.StatusUnauthorized)
	}
	// From A, the right password is refused too, whatever the case of the e-mail, and so is another account.
	r := identLoginFrom(e, "198.51.100.1:1001", "DAVE@example.com", identPassword)
	requireStatus(t, r, http.StatusTooManyRequests)
	require.Nil(t, identSessionCookie(r))
	requireStatus(t, identLoginFrom(e, "198.51.100.1:1002", "erin@example.com", identPassword), http.StatusTooManyRequests)

	// From B, the owner logs in.
	r = identLoginFrom(e, "198.51.100.2:1000", "dave@example.com", identPassword)
	requireStatus(t, r, http.StatusOK)
	require.NotNil(t, identSessionCookie(r))
	requireStatus(t, identLoginFrom(e, "198.51.100.3:1000", "erin@example.com", identPassword), http.StatusOK)
}

func TestAuthLoginRateLimitPerClient(t *testing.T) {
	t.Parallel()
	e := setupWith(t, setupOpts{loginRateLimit: 3})
	identRegister(e, "frank@example.com", "Frank")

	// One client, three different accounts: the per-account limits are untouched.
	for _, email := range []string{"x1@example.com", "x2@example.com", "x3@example.com"} {
		requireStatus(t, identLoginFrom(e, "203.0.113.7:4000", email, identPassword), http.StatusUnauthorized)
	}
	// The fourth attempt from that client is refused, even with valid credentials of a fresh account.
	r := identLoginFrom(e, "203.0.113.7:4001", "frank@example.com", identPassword)
	requireStatus(t, r, http.StatusTooManyRequests)
	require.Equal(t, "60", r.Header.Get("Retry-After"), "the limit's window")
	require.NotContains(t, bodyFields(t, r), "access_token")

	// Another client still logs in.
	requireStatus(t, identLoginFrom(e, "203.0.113.8:4000", "frank@example.com", identPassword), http.StatusOK)
}

func TestAuthLoginRateLimitThroughRecorder(t *testing.T) {
	t.Parallel()
	e := setupWith(t, setupOpts{loginRateLimit: 3})
	identRegister(e, "gina@example.com", "Gina")
	for range 3 {
		requireStatus(t, identLogin(e, "gina@example.com", "wrong-password"), http.StatusUnauthorized)
	}
	requireStatus(t, identLogin(e, "gina@example.com", identPassword), http.StatusTooManyRequests)
	// Varying the e-mail does not escape the per-client limit.
	requireStatus(t, identLogin(e, "other@example.com", identPassword), http.StatusTooManyRequests)
}

// TestAuthLoginRateLimitAcrossReplicas spreads one client's attempts over two api processes on one
// database: the limit counts them together, as it must for a deployment behind a load balancer.
func TestAuthLoginRateLimitAcrossReplicas(t *testing.T) {
	t.Parallel()
	e := setupWith(t, setupOpts{loginRateLimit: 4})
	replica := *e
	replica.handler = newTestHandler(t, e.eng, e.signer, slog.New(slog.DiscardHandler),
		Options{PublicURL: "http://pilot.test", LoginRateLimit: 4, RegisterRateLimit: 1000, AccessCache: e.access})
	identRegister(e, "ivy@example.com", "Ivy")

	// Four failed attempts, alternating between the replicas: each saw only two.
	for _, env := range []*testEnv{e, &replica, e, &replica} {
		requireStatus(t, identLoginFrom(env, "198.51.100.40:1000", "ivy@example.com", "wrong-password"),
			http.StatusUnauthorized)
	}
	// The fifth is refused on either replica, valid credentials or not.
	requireStatus(t, identLoginFrom(&replica, "198.51.100.40:1001", "ivy@example.com", identPassword),
		http.StatusTooManyRequests)
	requireStatus(t, identLoginFrom(e, "198.51.100.40:1002", "ivy@example.com", identPassword), http.StatusTooManyRequests)
	// The same client is refused for another account too: the per-client count was shared as well.
	requireStatus(t, identLoginFrom(&replica, "198.51.100.40:1000", "nobody@example.com", identPassword),
		http.StatusTooManyRequests)
	// Another client still logs in to the account.
	requireStatus(t, identLoginFrom(&replica, "198.51.100.41:1000", "ivy@example.com", identPassword), http.StatusOK)
}

func TestAuthMeRejectsBadCredentials(t *testing.T) {
	t.Parallel()
	e := setup(t)
	reg := identRegister(e, "hank@example.com", "Hank")
	id := reg.User.ID

	requireStatus(t, e.do("GET", "/auth/me", "", nil), http.StatusUnauthorized)

	for _, h := range []string{"garbage", "Bearer", "Bearer ", "Basic aGFuazpwdw==", "Token abc", "Bearer garbage",
		"Bearer a.b.c", "Bearer pilot_pat_unknown"} {
		r := e.send(req{Method: "GET", Path: "/auth/me", Header: map[string]string{"Authorization": h}})
		requireStatus(t, r, http.StatusUnauthorized)
	}

	// A well-formed session token for the user works, so the refusals below are about the token alone.
	fresh := sessionToken(t, e.eng.Identity, testJWTSecret, id, 1, time.Hour)
	require.Equal(t, id, identMeID(e, req{Token: fresh}))

	expired := sessionToken(t, e.eng.Identity, testJWTSecret, id, 1, -time.Hour)
	requireStatus(t, e.do("GET", "/auth/me", expired, nil), http.StatusUnauthorized)

	forged := sessionToken(t, e.eng.Identity, []byte("another-secret-another-secret-another"), id, 1, time.Hour)
	requireStatus(t, e.do("GET", "/auth/me", forged, nil), http.StatusUnauthorized)

	// A validly signed token that names no server-side session, or another user's session.
	sessionless, _, err := testSigner(testJWTSecret, time.Hour).Issue(id, auth.TypeSession, 1)
	require.NoError(t, err)
	requireStatus(t, e.do("GET", "/auth/me", sessionless, nil), http.StatusUnauthorized)
	other := identRegister(e, "hank2@example.com", "Hank Two")
	othersSession, err := e.eng.Identity.CreateSession(context.Background(), identity.NewSession{UserID: other.User.ID,
		ExpiresAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	borrowed, _, err := testSigner(testJWTSecret, time.Hour).IssueSession(id, othersSession.ID, 1,
		time.Now().Add(time.Hour))
	require.NoError(t, err)
	requireStatus(t, e.do("GET", "/auth/me", borrowed, nil), http.StatusUnauthorized)

	// A token of the wrong type, of a stale session version, or for a user that does not exist.
	twoFA, _, err := testSigner(testJWTSecret, time.Hour).Issue(id, auth.TypeTwoFactor, 1)
	require.NoError(t, err)
	requireStatus(t, e.do("GET", "/auth/me", twoFA, nil), http.StatusUnauthorized)
	stale := sessionToken(t, e.eng.Identity, testJWTSecret, id, 0, time.Hour)
	requireStatus(t, e.do("GET", "/auth/me", stale, nil), http.StatusUnauthorized)
	ghost, _, err := testSigner(testJWTSecret, time.Hour).IssueSession("0190c1d2-0000-7000-8000-000000000000", db.NewID(),
		1, time.Now().Add(time.Hour))
	require.NoError(t, err)
	requireStatus(t, e.do("GET", "/auth/me", ghost, nil), http.StatusUnauthorized)

	// A garbage session cookie is no session either.
	requireStatus(t, e.send(req{Method: "GET", Path: "/auth/me", Cookies: []*http.Cookie{{Name: sessionCookie,
		Value: "garbage"}}}), http.StatusUnauthorized)
}

func TestAuthCookieSession(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := identRegister(e, "ivy@example.com", "Ivy")
	aID := a.User.ID

	login := identLogin(e, "ivy@example.com", identPassword)
	requireStatus(t, login, http.StatusOK)
	csrf := decode[SessionBody](t, login).CSRFToken
	cookie := identSessionCookie(login)
	require.NotNil(t, cookie)
	jar := []*http.Cookie{{Name: cookie.Name, Value: cookie.Value}}

	// A read with only the cookie works and hands out the session's CSRF token.
	me := e.send(req{Method: "GET", Path: "/auth/me", Cookies: jar})
	requireStatus(t, me, http.StatusOK)
	mm := identMe(t, me)
	require.Equal(t, aID, mm.Body.User.ID)
	require.Equal(t, csrf, mm.Body.CSRFToken)

	// A bearer caller gets no CSRF token: the field is absent, not empty.
	require.NotContains(t, bodyFields(t, e.do("GET", "/auth/me", a.AccessToken, nil)), "csrfToken")

	// Writes by cookie need the CSRF token.
	r := e.send(req{Method: "PATCH", Path: "/auth/me", Cookies: jar, Body: map[string]any{"name": "No CSRF"}})
	requireStatus(t, r, http.StatusForbidden)
	r = e.send(req{Method: "PATCH", Path: "/auth/me", Cookies: jar, Body: map[string]any{"name": "Wrong CSRF"},
		Header: map[string]string{"X-CSRF-Token": csrf + "x"}})
	requireStatus(t, r, http.StatusForbidden)
	// The CSRF token of another session of the same user is not this session's.
	other := decode[SessionBody](t, identLogin(e, "ivy@example.com", identPassword)).CSRFToken
	require.NotEqual(t, csrf, other)
	r = e.send(req{Method: "PATCH", Path: "/auth/me", Cookies: jar, Body: map[string]any{"name": "Other CSRF"},
		Header: map[string]string{"X-CSRF-Token": other}})
	requireStatus(t, r, http.StatusForbidden)
	require.Equal(t, "Ivy", identUserName(e, aID))

	r = e.send(req{Method: "PATCH", Path: "/auth/me", Cookies: jar, Body: map[string]any{"name": "Ivy Cookie"},
		Header: map[string]string{"X-CSRF-Token": csrf}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Ivy Cookie", identMe(t, r).Body.User.Name)
	require.Equal(t, "Ivy Cookie", identUserName(e, aID))

	// Logout clears the cookie.
	out := e.do("POST", "/auth/logout", "", nil)
	requireStatus(t, out, http.StatusOK)
	cleared := identSessionCookie(out)
	require.NotNil(t, cleared)
	require.Empty(t, cleared.Value)
	require.True(t, cleared.MaxAge < 0)
}

func TestAuthBearerWinsOverCookie(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := identRegister(e, "jack@example.com", "Jack")
	aID := a.User.ID
	b := identRegister(e, "kate@example.com", "Kate")
	bID := b.User.ID

	bLogin := identLogin(e, "kate@example.com", identPassword)
	requireStatus(t, bLogin, http.StatusOK)
	bc := identSessionCookie(bLogin)
	require.NotNil(t, bc)
	jar := []*http.Cookie{{Name: bc.Name, Value: bc.Value}}

	require.Equal(t, bID, identMeID(e, req{Cookies: jar}))
	require.Equal(t, aID, identMeID(e, req{Token: a.AccessToken, Cookies: jar}))

	// A bearer write needs no CSRF token and changes the bearer's profile, not the cookie's.
	r := e.send(req{Method: "PATCH", Path: "/auth/me", Token: a.AccessToken, Cookies: jar,
		Body: map[string]any{"name": "Jack B."}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Jack B.", identUserName(e, aID))
	require.Equal(t, "Kate", identUserName(e, bID))

	// An invalid bearer does not fall back to the cookie.
	requireStatus(t, e.send(req{Method: "GET", Path: "/auth/me", Token: "garbage", Cookies: jar}), http.StatusUnauthorized)
}

func TestAuthUpdateMe(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := identRegister(e, "liam@example.com", "Liam")
	token := a.AccessToken
	id := a.User.ID

	r := e.do("PATCH", "/auth/me", token, map[string]any{"name": "  Liam Renamed  ", "jobTitle": "Engineer"})
	requireStatus(t, r, http.StatusOK)
	u := identMe(t, r).Body.User
	require.Equal(t, "Liam Renamed", u.Name)
	require.Equal(t, "Engineer", u.JobTitle)
	require.Equal(t, "Liam Renamed", identUserName(e, id))

	me := identMe(t, e.do("GET", "/auth/me", token, nil)).Body.User
	require.Equal(t, "Liam Renamed", me.Name)
	require.Equal(t, "Engineer", me.JobTitle)

	// A field left out stays as it is.
	requireStatus(t, e.do("PATCH", "/auth/me", token, map[string]any{"jobTitle": "Lead"}), http.StatusOK)
	require.Equal(t, "Liam Renamed", identUserName(e, id))

	r = e.do("PATCH", "/auth/me", token, map[string]any{"name": strings.Repeat("n", 101)})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "name")
	require.Equal(t, "Liam Renamed", identUserName(e, id))

	requireStatus(t, e.do("PATCH", "/auth/me", token, map[string]any{"name": strings.Repeat("n", 100)}), http.StatusOK)
	require.Equal(t, strings.Repeat("n", 100), identUserName(e, id))

	requireStatus(t, e.do("PATCH", "/auth/me", "", map[string]any{"name": "Anonymous"}), http.StatusUnauthorized)
}

func TestAuthChangePassword(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := identRegister(e, "mia@example.com", "Mia")
	oldToken := a.AccessToken
	id := a.User.ID

	// A personal access token cannot change the password, even with every scope.
	pat := e.do("POST", "/api-tokens", oldToken, map[string]any{"name": "all"})
	requireStatus(t, pat, http.StatusCreated)
	patSecret := decode[CreatedTokenOut](t, pat).Token
	r := e.do("POST", "/auth/change-password", patSecret, map[string]any{"currentPassword": identPassword,
		"newPassword": "brand-new-password"})
	requireStatus(t, r, http.StatusForbidden)

	// A cookie session from before the change.
	login := identLogin(e, "mia@example.com", identPassword)
	requireStatus(t, login, http.StatusOK)
	oldCookie := identSessionCookie(login)
	require.NotNil(t, oldCookie)

	r = e.do("POST", "/auth/change-password", oldToken, map[string]any{"currentPassword": "not-my-password",
		"newPassword": "brand-new-password"})
	requireStatus(t, r, http.StatusBadRequest)
	r = e.do("POST", "/auth/change-password", oldToken, map[string]any{"currentPassword": identPassword,
		"newPassword": strings.Repeat("s", 7)})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "newPassword")
	r = e.do("POST", "/auth/change-password", oldToken, map[string]any{"currentPassword": identPassword,
		"newPassword": strings.Repeat("s", 129)})
	requireStatus(t, r, http.StatusBadRequest)
	r = e.do("POST", "/auth/change-password", oldToken, map[string]any{"newPassword": "brand-new-password"})
	requireStatus(t, r, http.StatusBadRequest)
	// None of the refusals changed anything.
	require.Equal(t, id, identMeID(e, req{Token: oldToken}))
	require.Equal(t, 1, e.count("SELECT session_version FROM users WHERE id = $1", id))

	r = e.do("POST", "/auth/change-password", oldToken, map[string]any{"currentPassword": identPassword,
		"newPassword": "brand-new-password"})
	requireStatus(t, r, http.StatusOK)
	newToken := decode[SessionBody](t, r).AccessToken
	require.NotEmpty(t, newToken)
	require.NotEqual(t, oldToken, newToken)

	// Sessions from before the change are gone; the new one works.
	requireStatus(t, e.do("GET", "/auth/me", oldToken, nil), http.StatusUnauthorized)
	requireStatus(t, e.send(req{Method: "GET", Path: "/auth/me", Cookies: []*http.Cookie{{Name: sessionCookie,
		Value: oldCookie.Value}}}), http.StatusUnauthorized)
	require.Equal(t, id, identMeID(e, req{Token: newToken}))

	requireStatus(t, identLogin(e, "mia@example.com", "brand-new-password"), http.StatusOK)
	requireStatus(t, identLogin(e, "mia@example.com", identPassword), http.StatusUnauthorized)
}

// TestAuthRegisterRateLimitPerClient: account creation is limited per client address, counted in the
// database as login's limits are; a refused registration creates nothing, and another address is not
// held back.
func TestAuthRegisterRateLimitPerClient(t *testing.T) {
	t.Parallel()
	e := setupWith(t, setupOpts{registerRateLimit: 2})
	from := func(addr, email string) *resp {
		return e.send(req{Method: "POST", Path: "/auth/register", RemoteAddr: addr,
			Body: map[string]any{"email": email, "password": identPassword}})
	}
	requireStatus(t, from("198.51.100.9:1000", "r1@example.com"), http.StatusCreated)
	requireStatus(t, from("198.51.100.9:1001", "r2@example.com"), http.StatusCreated)
	r := from("198.51.100.9:1002", "r3@example.com")
	requireStatus(t, r, http.StatusTooManyRequests)
	require.Nil(t, identSessionCookie(r))
	require.Equal(t, 0, e.count("SELECT count(*) FROM users WHERE email = 'r3@example.com'"))

	requireStatus(t, from("198.51.100.10:1000", "r3@example.com"), http.StatusCreated)
}

package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/oidc"
	"github.com/pilot-dev/pilot/internal/oidctest"
)

// The OpenID Connect sign-in, end to end against a real provider (zitadel's example server, in process),
// through its login form: the api's start and callback routes on the real store.

const oidcCallback = "http://pilot.test/auth/oidc/corp/callback"

var (
	opAda = oidctest.User{ID: "u-ada", Username: "ada", Password: "verysecure", Email: "ada@example.com",
		EmailVerified: true, FirstName: "Ada", LastName: "Lovelace"}
	opEve = oidctest.User{ID: "u-eve", Username: "eve", Password: "verysecure", Email: "eve@elsewhere.test",
		EmailVerified: true, FirstName: "Eve"}
	opMal = oidctest.User{ID: "u-mal", Username: "mal", Password: "verysecure", Email: "bob@example.com",
		EmailVerified: false, FirstName: "Mal"}
)

// oidcEnv is an api whose one provider, "corp", is op.
func oidcEnv(t *testing.T, op *oidctest.Provider, tune func(*Options)) *testEnv {
	set := oidc.New([]oidc.Config{{ID: "corp", Name: "Corp SSO", Issuer: op.Issuer, ClientID: oidctest.ClientID,
		ClientSecret: oidctest.ClientSecret, Scopes: []string{"email", "profile"}}},
		func(id string) string { return "http://pilot.test/auth/oidc/" + id + "/callback" }, nil)
	return setupWith(t, setupOpts{options: func(o *Options) {
		o.OIDC = set
		if tune != nil {
			tune(o)
		}
	}})
}

// browse is a browser's navigation: it accepts pages.
var browse = map[string]string{"Accept": "text/html,application/xhtml+xml"}

// oidcStart starts a sign-in: the redirect to the provider and the state cookie.
func oidcStart(t *testing.T, e *testEnv, path string) (string, *http.Cookie) {
	t.Helper()
	r := e.send(req{Method: http.MethodGet, Path: path, Header: browse})
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	var state *http.Cookie
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == oidcStateCookie {
			state = c
		}
	}
	require.NotNil(t, state, "the state cookie")
	return r.Header.Get("Location"), state
}

// oidcSignIn runs the whole flow for user and answers the callback's answer.
func oidcSignIn(t *testing.T, e *testEnv, op *oidctest.Provider, u oidctest.User) *resp {
	t.Helper()
	loc, state := oidcStart(t, e, "/auth/oidc/corp/start?returnTo=/settings")
	back, err := op.SignIn(context.Background(), oidctest.Browser(), loc, u.Username, u.Password)
	require.NoError(t, err)
	require.Equal(t, oidcCallback, back.Scheme+"://"+back.Host+back.Path)
	return e.send(req{Method: http.MethodGet, Path: back.RequestURI(), Cookies: []*http.Cookie{state}, Header: browse})
}

func cookieOf(r *resp, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// requirePage checks a page in words: its status and what it says.
func requirePage(t *testing.T, r *resp, code int, says string) {
	t.Helper()
	require.Equal(t, code, r.Code, "body: %s", r.Body)
	require.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "text/html"), r.Header.Get("Content-Type"))
	require.Contains(t, string(r.Body), says)
	require.Contains(t, string(r.Body), `href="/sign-in"`, "the way back")
}

func TestOIDCSignInCreatesThenFindsTheAccount(t *testing.T) {
	t.Parallel()
	op := oidctest.Start(t, []oidctest.User{opAda}, oidcCallback)
	e := oidcEnv(t, op, nil)

	providers := decode[ProvidersOut](t, e.do(http.MethodGet, "/auth/providers", "", nil))
	require.Equal(t, ProvidersOut{PasswordLogin: true, Providers: []ProviderOut{{ID: "corp", Name: "Corp SSO",
		StartURL: "/auth/oidc/corp/start"}}}, providers)

	r := oidcSignIn(t, e, op, opAda)
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	require.Equal(t, "/settings", r.Header.Get("Location"), "back where the sign-in started")
	session := cookieOf(r, sessionCookie)
	require.NotNil(t, session)
	require.NotNil(t, cookieOf(r, deviceCookie), "a completed sign-in, as a password's")
	require.Equal(t, -1, cookieOf(r, oidcStateCookie).MaxAge, "the state cookie has served")

	// An ordinary session: the web app sees it, it is listed and it ends like the others.
	state := decode[SessionStateBody](t, e.send(req{Method: http.MethodGet, Path: "/auth/session",
		Cookies: []*http.Cookie{session}}))
	require.True(t, state.SignedIn)
	require.Equal(t, "ada@example.com", state.User.Email)
	require.Equal(t, "Ada Lovelace", state.User.Name)
	require.True(t, state.User.EmailVerified, "the provider verified it")
	token := session.Value
	sessions := decode[[]SessionOut](t, e.do(http.MethodGet, "/auth/sessions", token, nil))
	require.Len(t, sessions, 1)
	ids := decode[[]IdentityOut](t, e.do(http.MethodGet, "/auth/identities", token, nil))
	require.Len(t, ids, 1)
	require.Equal(t, "corp", ids[0].Provider)
	require.Equal(t, "Corp SSO", ids[0].ProviderName)
	require.Equal(t, "ada@example.com", ids[0].Email)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM users`))

	// The only way in of an account without a password stays.
	r = e.do(http.MethodDelete, "/auth/identities/"+ids[0].ID, token, nil)
	requireStatus(t, r, http.StatusConflict)

	// Signing in again finds the account through the link.
	r = oidcSignIn(t, e, op, opAda)
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM users`))
	require.Equal(t, 2, e.count(`SELECT count(*) FROM sessions`))

	requireStatus(t, e.do(http.MethodDelete, "/auth/sessions/"+sessions[0].ID, token, nil), http.StatusOK)
	state = decode[SessionStateBody](t, e.send(req{Method: http.MethodGet, Path: "/auth/session",
		Cookies: []*http.Cookie{session}}))
	require.False(t, state.SignedIn, "revoked like any session")
}

func TestOIDCLinksAVerifiedAddressAndUnlinks(t *testing.T) {
	t.Parallel()
	op := oidctest.Start(t, []oidctest.User{opAda, opMal}, oidcCallback)
	e := oidcEnv(t, op, nil)
	ada := e.register("ada@example.com")
	bob := e.register("bob@example.com")

	r := oidcSignIn(t, e, op, opAda)
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	state := decode[SessionStateBody](t, e.send(req{Method: http.MethodGet, Path: "/auth/session",
		Cookies: []*http.Cookie{cookieOf(r, sessionCookie)}}))
	require.Equal(t, ada.ID, state.User.ID, "found by the verified address")

	// Mal's provider account says bob's address, unverified: no way into Bob's account, no second account.
	r = oidcSignIn(t, e, op, opMal)
	requirePage(t, r, http.StatusConflict, "already uses this e-mail address")
	require.Nil(t, cookieOf(r, sessionCookie))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM user_identities WHERE user_id = $1`, bob.ID))
	require.Equal(t, 2, e.count(`SELECT count(*) FROM users`))

	// Ada keeps her password: she may unlink.
	ids := decode[[]IdentityOut](t, e.do(http.MethodGet, "/auth/identities", ada.Token, nil))
	require.Len(t, ids, 1)
	requireStatus(t, e.do(http.MethodDelete, "/auth/identities/"+ids[0].ID, bob.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do(http.MethodDelete, "/auth/identities/"+ids[0].ID, ada.Token, nil), http.StatusOK)
	require.Empty(t, decode[[]IdentityOut](t, e.do(http.MethodGet, "/auth/identities", ada.Token, nil)))
}

func TestOIDCCallbackRefusals(t *testing.T) {
	t.Parallel()
	op := oidctest.Start(t, []oidctest.User{opAda, opEve}, oidcCallback)
	e := oidcEnv(t, op, func(o *Options) { o.OIDCAllowedDomains = []string{"example.com"} })
	ctx := context.Background()

	// A replayed callback: its sign-in was taken.
	loc, state := oidcStart(t, e, "/auth/oidc/corp/start")
	back, err := op.SignIn(ctx, oidctest.Browser(), loc, opAda.Username, opAda.Password)
	require.NoError(t, err)
	r := e.send(req{Method: http.MethodGet, Path: back.RequestURI(), Cookies: []*http.Cookie{state}, Header: browse})
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	r = e.send(req{Method: http.MethodGet, Path: back.RequestURI(), Cookies: []*http.Cookie{state}, Header: browse})
	requirePage(t, r, http.StatusBadRequest, "already used")
	require.Nil(t, cookieOf(r, sessionCookie))

	// A wrong state, or none in this browser: refused, and the real sign-in is not spent.
	loc, state = oidcStart(t, e, "/auth/oidc/corp/start")
	back, err = op.SignIn(ctx, oidctest.Browser(), loc, opAda.Username, opAda.Password)
	require.NoError(t, err)
	q := back.Query()
	q.Set("state", "forged")
	r = e.send(req{Method: http.MethodGet, Path: back.Path + "?" + q.Encode(), Cookies: []*http.Cookie{state},
		Header: browse})
	requirePage(t, r, http.StatusBadRequest, "did not start here")
	r = e.send(req{Method: http.MethodGet, Path: back.RequestURI(), Header: browse})
	requirePage(t, r, http.StatusBadRequest, "did not start here")
	// Another client than a browser gets the error shape.
	requireStatus(t, e.send(req{Method: http.MethodGet, Path: back.RequestURI()}), http.StatusBadRequest)
	r = e.send(req{Method: http.MethodGet, Path: back.RequestURI(), Cookies: []*http.Cookie{state}, Header: browse})
	require.Equal(t, http.StatusFound, r.Code, "the real callback still completes: %s", r.Body)

	// Consent denied at the provider.
	_, state = oidcStart(t, e, "/auth/oidc/corp/start")
	r = e.send(req{Method: http.MethodGet, Path: "/auth/oidc/corp/callback?error=access_denied&state=" +
		url.QueryEscape(state.Value) + "&session_state=x", Cookies: []*http.Cookie{state}, Header: browse})
	requirePage(t, r, http.StatusForbidden, "You did not allow Pilot")

	// A domain not allowed: nothing created.
	r = oidcSignIn(t, e, op, opEve)
	requirePage(t, r, http.StatusForbidden, "e-mail domain is not allowed")
	require.Equal(t, 0, e.count(`SELECT count(*) FROM users WHERE email = 'eve@elsewhere.test'`))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM organizations o JOIN users u ON u.id = o.owner_id
		WHERE u.email = 'eve@elsewhere.test'`))

	// An unknown provider.
	requirePage(t, e.send(req{Method: http.MethodGet, Path: "/auth/oidc/nope/start", Header: browse}),
		http.StatusNotFound,
		"no sign-in provider by that name")

	// A provider that is down.
	op.Stop()
	down := oidcEnv(t, op, nil) // a fresh api: nothing discovered yet
	requirePage(t, down.send(req{Method: http.MethodGet, Path: "/auth/oidc/corp/start", Header: browse}),
		http.StatusBadGateway,
		"did not answer")
	require.Equal(t, 0, down.count(`SELECT count(*) FROM oidc_logins`), "nothing under way")
}

func TestPasswordLoginOff(t *testing.T) {
	t.Parallel()
	op := oidctest.Start(t, []oidctest.User{opAda}, oidcCallback)
	off := oidcEnv(t, op, func(o *Options) { o.PasswordLoginOff = true })
	// The first owner, who registered with a password before passwords were turned off.
	reg, err := off.eng.Identity.Register(context.Background(), "ada@example.com", "Ada", "hash")
	require.NoError(t, err)

	providers := decode[ProvidersOut](t, off.do(http.MethodGet, "/auth/providers", "", nil))
	require.False(t, providers.PasswordLogin)
	requireStatus(t, off.do(http.MethodPost, "/auth/login", "", map[string]string{"email": "ada@example.com",
		"password": "password123"}), http.StatusForbidden)
	requireStatus(t, off.do(http.MethodPost, "/auth/register", "", map[string]string{"email": "new@example.com",
		"password": "password123"}), http.StatusForbidden)

	// The provider, which verified her address, signs her in to her account.
	r := oidcSignIn(t, off, op, opAda)
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	state := decode[SessionStateBody](t, off.send(req{Method: http.MethodGet, Path: "/auth/session",
		Cookies: []*http.Cookie{cookieOf(r, sessionCookie)}}))
	require.Equal(t, reg.User.ID, state.User.ID)
	// Her password does not count as a way in while passwords are off: her one identity stays.
	ids := decode[[]IdentityOut](t, off.do(http.MethodGet, "/auth/identities", cookieOf(r, sessionCookie).Value, nil))
	requireStatus(t, off.do(http.MethodDelete, "/auth/identities/"+ids[0].ID, cookieOf(r, sessionCookie).Value, nil),
		http.StatusConflict)
}

// oidcLink runs a link started by token's session, signing in at the provider as u, and answers the
// callback's answer in a browser carrying cookies (besides the state cookie).
func oidcLink(t *testing.T, e *testEnv, op *oidctest.Provider, token string, u oidctest.User,
	cookies ...*http.Cookie) *resp {
	t.Helper()
	r := e.do(http.MethodPost, "/auth/identities/link", token, map[string]any{"provider": "corp"})
	requireStatus(t, r, http.StatusOK)
	state := cookieOf(r, oidcStateCookie)
	require.NotNil(t, state, "the state cookie")
	back, err := op.SignIn(context.Background(), oidctest.Browser(), decode[OIDCLinkOut](t, r).URL, u.Username,
		u.Password)
	require.NoError(t, err)
	return e.send(req{Method: http.MethodGet, Path: back.RequestURI(), Cookies: append(cookies, state), Header: browse})
}

// requireLinkPage checks a refused link's page: its status, what it says, the way back to the account.
func requireLinkPage(t *testing.T, r *resp, code int, says string) {
	t.Helper()
	require.Equal(t, code, r.Code, "body: %s", r.Body)
	require.Contains(t, string(r.Body), says)
	require.Contains(t, string(r.Body), `href="/settings"`, "the way back")
}

// TestOIDCLinkFromASignedInAccount: a signed-in person links a provider whose address differs from the
// account's; the callback links only for the browser signed in with the session that started it, never
// a provider's identity of another account; links and unlinks are in the account's audit log.
func TestOIDCLinkFromASignedInAccount(t *testing.T) {
	t.Parallel()
	op := oidctest.Start(t, []oidctest.User{opAda, opEve}, oidcCallback)
	e := oidcEnv(t, op, nil)
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	session := func(u user) *http.Cookie { return &http.Cookie{Name: sessionCookie, Value: u.Token} }

	// Unknown provider; a token is no session.
	requireStatus(t, e.do(http.MethodPost, "/auth/identities/link", ann.Token, map[string]any{"provider": "nope"}),
		http.StatusNotFound)
	requireStatus(t, e.do(http.MethodPost, "/auth/identities/link", e.pat(ann, []string{"account:write"}),
		map[string]any{"provider": "corp"}), http.StatusForbidden)

	// Back in a browser without the session, or with another's: nothing linked.
	r := oidcLink(t, e, op, ann.Token, opEve)
	requireLinkPage(t, r, http.StatusForbidden, "Sign in to link Corp SSO")
	r = oidcLink(t, e, op, ann.Token, opEve, session(bob))
	requireLinkPage(t, r, http.StatusForbidden, "Sign in to link Corp SSO")
	require.Nil(t, cookieOf(r, sessionCookie), "a link signs nobody in")
	require.Equal(t, 0, e.count(`SELECT count(*) FROM user_identities`))

	// With it: linked to Ann though the provider says another address, and no session opened.
	r = oidcLink(t, e, op, ann.Token, opEve, session(ann))
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	require.Equal(t, "/settings", r.Header.Get("Location"))
	require.Nil(t, cookieOf(r, sessionCookie))
	ids := decode[[]IdentityOut](t, e.do(http.MethodGet, "/auth/identities", ann.Token, nil))
	require.Len(t, ids, 1)
	require.Equal(t, "eve@elsewhere.test", ids[0].Email)
	en := findAudit(t, e.auditPages(ann.Token, "/auth/audit-log?kind=sso_linked"), db.AuditSSOLinked, opEve.ID)
	require.Equal(t, ann.ID, *en.ActorID)
	require.Equal(t, "corp", en.Changes["provider"])
	// Eve's identity now signs in to Ann's account.
	r = oidcSignIn(t, e, op, opEve)
	require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
	state := decode[SessionStateBody](t, e.send(req{Method: http.MethodGet, Path: "/auth/session",
		Cookies: []*http.Cookie{cookieOf(r, sessionCookie)}}))
	require.Equal(t, ann.ID, state.User.ID)

	// Bob cannot take it: it is another account's.
	r = oidcLink(t, e, op, bob.Token, opEve, session(bob))
	requireLinkPage(t, r, http.StatusConflict, "linked to another account")
	require.Empty(t, decode[[]IdentityOut](t, e.do(http.MethodGet, "/auth/identities", bob.Token, nil)))

	// A link whose session ended meanwhile links nothing.
	r = e.do(http.MethodPost, "/auth/login", "", map[string]any{"email": bob.Email, "password": "correct-horse"})
	requireStatus(t, r, http.StatusOK)
	other := user{Token: decode[SessionBody](t, r).AccessToken}
	start := e.do(http.MethodPost, "/auth/identities/link", other.Token, map[string]any{"provider": "corp"})
	requireStatus(t, start, http.StatusOK)
	back, err := op.SignIn(context.Background(), oidctest.Browser(), decode[OIDCLinkOut](t, start).URL,
		opAda.Username, opAda.Password)
	require.NoError(t, err)
	requireStatus(t, e.do(http.MethodPost, "/auth/logout", other.Token, nil), http.StatusOK)
	r = e.send(req{Method: http.MethodGet, Path: back.RequestURI(), Header: browse,
		Cookies: []*http.Cookie{session(other), cookieOf(start, oidcStateCookie)}})
	requireLinkPage(t, r, http.StatusForbidden, "has ended")
	require.Empty(t, decode[[]IdentityOut](t, e.do(http.MethodGet, "/auth/identities", bob.Token, nil)))

	requireStatus(t, e.do(http.MethodDelete, "/auth/identities/"+ids[0].ID, ann.Token, nil), http.StatusOK)
	en = findAudit(t, e.auditPages(ann.Token, "/auth/audit-log"), db.AuditSSOUnlinked, opEve.ID)
	require.Equal(t, "eve@elsewhere.test", en.Changes["email"])
}

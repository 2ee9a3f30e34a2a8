package web_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
)

// TestBrowserAccountTwoFactor: two-factor authentication set up from the security settings, its secret
// read from the QR code's otpauth URL (as an authenticator app would scan it); then signing in asks for a
// code, and a recovery code stands in for one; the codes renewed, and two-factor turned off.
func TestBrowserAccountTwoFactor(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("tina@example.com")
	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href="/settings"]`)), chromedp.WaitVisible(chromedp.CSS(`#profile-name`)),
		chromedp.Click(chromedp.CSS(`a[href="/settings/security"]`)))
	waitFor(t, ctx, "the security settings", `[...document.querySelectorAll("button")].some(b =>
		b.textContent === "Set up two-factor authentication") && !!document.querySelector("table tbody tr")`)
	accessible(t, ctx, "security settings, two-factor off")
	const loadedQR = `performance.getEntriesByType("resource").some(e => e.name.endsWith("/static/vendor/uqr.js"))`
	require.False(t, eval[bool](t, ctx, loadedQR), "the QR code library is loaded only when it draws")
	eval[bool](t, ctx, `[...document.querySelectorAll("button")].find(b => b.textContent ===
		"Set up two-factor authentication").click() === undefined`)
	waitFor(t, ctx, "the QR code", `!!document.querySelector("svg.qr[data-otpauth] path")`)
	accessible(t, ctx, "two-factor setup")
	require.True(t, eval[bool](t, ctx, loadedQR))
	shot(t, ctx, "two-factor-setup", 1440, 1100)

	otpauth := eval[string](t, ctx, `document.querySelector("svg.qr").dataset.otpauth`)
	u, err := url.Parse(otpauth)
	require.NoError(t, err)
	require.Equal(t, "otpauth", u.Scheme)
	secret := u.Query().Get("secret")
	require.NotEmpty(t, secret)
	require.Equal(t, secret, eval[string](t, ctx, `document.querySelector("code.secret").dataset.secret`),
		"the key shown as text is the QR code's")
	require.Equal(t, secret, strings.ReplaceAll(text(t, ctx, `code.secret`), " ", ""))

	// A wrong code is refused in words; the right one turns it on and shows the recovery codes once.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#tf-password`), a.Password), chromedp.SendKeys(chromedp.CSS(`#tf-code`),
		"000000"+kb.Enter), chromedp.WaitVisible(chromedp.CSS(`.steps [role=alert]`)))
	code, err := auth.TOTPCode(secret, time.Now())
	require.NoError(t, err)
	eval[bool](t, ctx, `(document.querySelector("#tf-code").value = "") === ""`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#tf-code`), code+kb.Enter))
	waitFor(t, ctx, "the recovery codes", `document.querySelectorAll(".codes code").length === 10`)
	accessible(t, ctx, "recovery codes")
	codes := eval[[]string](t, ctx, `[...document.querySelectorAll(".codes code")].map(c => c.textContent)`)
	eval[bool](t, ctx, `[...document.querySelectorAll(".recovery button")].find(b => b.textContent ===
		"I have saved them").click() === undefined`)
	waitFor(t, ctx, "two-factor on", `!document.querySelector(".codes") && !!document.querySelector("#disable-code")`)
	accessible(t, ctx, "security settings, two-factor on")

	// Signing in now asks for a code: the next time step's (the one that enabled it is used up).
	do(t, ctx, chromedp.Navigate(s.url+"/sign-out"), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#code`)))
	next, err := auth.TOTPCode(secret, time.Now().Add(30*time.Second))
	require.NoError(t, err)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#code`), next+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname === "/w/`+a.Org+`/`+a.WS+`"`)

	// A recovery code stands in for a code.
	do(t, ctx, chromedp.Navigate(s.url+"/sign-out"), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#code`)), chromedp.SendKeys(chromedp.CSS(`#code`), codes[0]+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname === "/w/`+a.Org+`/`+a.WS+`"`)

	// New recovery codes, confirmed with another recovery code: ten new ones, shown once.
	do(t, ctx, chromedp.Navigate(s.url+"/settings/security"), chromedp.WaitVisible(chromedp.CSS(`#renew-code`)),
		chromedp.SendKeys(chromedp.CSS(`#renew-password`), a.Password), chromedp.SendKeys(chromedp.CSS(`#renew-code`),
			codes[1]))
	eval[bool](t, ctx, `[...document.querySelectorAll("button")].find(b => b.textContent ===
		"Renew recovery codes").click() === undefined`)
	confirm(t, ctx, "renew recovery codes, confirming")
	waitFor(t, ctx, "the new recovery codes", `document.querySelectorAll(".codes code").length === 10`)
	renewed := eval[[]string](t, ctx, `[...document.querySelectorAll(".codes code")].map(c => c.textContent)`)
	require.NotContains(t, renewed, codes[2])
	eval[bool](t, ctx, `[...document.querySelectorAll(".recovery button")].find(b => b.textContent ===
		"I have saved them").click() === undefined`)

	// An old recovery code no longer turns it off (refused in words in the dialog); a new one does.
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#disable-code`)), chromedp.SendKeys(chromedp.CSS(`#disable-password`),
		a.Password), chromedp.SendKeys(chromedp.CSS(`#disable-code`), codes[2]))
	eval[bool](t, ctx, `[...document.querySelectorAll("button")].find(b => b.textContent ===
		"Turn off two-factor authentication").click() === undefined`)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`dialog[open] button[type=submit]`)),
		chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open] [role=alert]`)))
	accessible(t, ctx, "turn off two-factor, refused")
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button.secondary`)))
	eval[bool](t, ctx, `(document.querySelector("#disable-code").value = "") === ""`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#disable-code`), renewed[0]))
	eval[bool](t, ctx, `[...document.querySelectorAll("button")].find(b => b.textContent ===
		"Turn off two-factor authentication").click() === undefined`)
	confirm(t, ctx, "turn off two-factor, confirming")
	waitFor(t, ctx, "two-factor off", `[...document.querySelectorAll("button")].some(b =>
		b.textContent === "Set up two-factor authentication")`)
	var login struct{ TwoFactorRequired bool }
	s.call("POST", "/auth/login", "", map[string]string{"email": a.Email, "password": a.Password}, &login)
	require.False(t, login.TwoFactorRequired, "signing in asks for the password only again")
}

// TestBrowserAccountTokens: a personal access token created in the page with one scope, shown once,
// works as a bearer token within its scope; revoked (confirmed), it is refused.
func TestBrowserAccountTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("toby@example.com")
	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/settings/tokens"), chromedp.WaitVisible(chromedp.CSS(`#token-name`)))
	waitFor(t, ctx, "the empty list", `document.querySelector("main").textContent.includes("No token yet.")`)
	require.Contains(t, text(t, ctx, `.scopes`), "Read your profile", "scopes in words")
	require.NotContains(t, text(t, ctx, `.scopes`), "account:read", "no raw scope names")
	accessible(t, ctx, "access tokens, none yet")

	// No scope: refused in words before anything is sent.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#token-name`), "Nightly export"),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`form [role=alert]`)))
	require.Contains(t, text(t, ctx, `form [role=alert]`), "at least one scope")
	do(t, ctx, chromedp.Click(chromedp.CSS(`#scope-account-read`)),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)))
	waitFor(t, ctx, "the token, shown once", `!!document.querySelector("code.secret[data-token]")`)
	accessible(t, ctx, "access token created")
	shot(t, ctx, "access-tokens", 1440, 1300)
	require.Equal(t, "90", eval[string](t, ctx, `document.querySelector("#token-lifetime").value`), "the form reset")
	token := eval[string](t, ctx, `document.querySelector("code.secret").dataset.token`)
	require.True(t, strings.HasPrefix(token, "pilot_pat_"), token)
	waitFor(t, ctx, "the token listed", `document.querySelectorAll("tr[data-token-id]").length === 1 &&
		document.querySelector("tr[data-token-id]").textContent.includes("Read your profile")`)

	// The token answers GET /auth/me as its owner (account:read), and nothing its scope does not allow.
	type answer struct {
		Status int    `json:"status"`
		Email  string `json:"email"`
	}
	me := eval[answer](t, ctx, `fetch("/auth/me", {credentials: "omit", headers: {Authorization: "Bearer " + `+
		jsString(token)+`}}).then(async r => ({status: r.status, email: r.ok ? (await r.json()).user.email : ""}))`)
	require.Equal(t, answer{Status: 200, Email: a.Email}, me)
	require.Equal(t, http.StatusForbidden, s.status("PATCH", "/auth/me", token, `{"name":"Mallory"}`))

	do(t, ctx, chromedp.Click(chromedp.CSS(`.token-shown button:not(.secondary)`)))
	waitFor(t, ctx, "the token no longer shown", `!document.querySelector("code.secret")`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`tr[data-token-id] button`)))
	confirm(t, ctx, "revoke a token, confirming")
	waitFor(t, ctx, "the empty list again", `document.querySelector("main").textContent.includes("No token yet.")`)
	refused := eval[int](t, ctx, `fetch("/auth/me", {credentials: "omit", headers: {Authorization: "Bearer " + `+
		jsString(token)+`}}).then(r => r.status)`)
	require.Equal(t, http.StatusUnauthorized, refused)
}

// TestBrowserAccountSessions: the sessions list marks this device; ending another browser's session
// signs that browser out; "every other device" ends the rest.
func TestBrowserAccountSessions(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("sara@example.com") // a session of its own (the registration's token)
	ctx, other := page(t), page(t)
	signIn(t, ctx, s, a)
	signIn(t, other, s, a)
	otherID := eval[string](t, other, `fetch("/auth/sessions").then(r => r.json()).then(l => l.find(x => x.current).id)`)

	do(t, ctx, chromedp.Navigate(s.url+"/settings/security"))
	waitFor(t, ctx, "three sessions", `document.querySelectorAll("tr[data-session]").length === 3`)
	require.Contains(t, text(t, ctx, `tr.current`), "This device")
	require.NotContains(t, text(t, ctx, `tr[data-session="`+otherID+`"]`), "This device")
	accessible(t, ctx, "sessions")

	do(t, ctx, chromedp.Click(chromedp.CSS(`tr[data-session="`+otherID+`"] button`)))
	confirm(t, ctx, "end a session, confirming")
	waitFor(t, ctx, "two sessions", `document.querySelectorAll("tr[data-session]").length === 2`)
	// The other browser is signed out: its next load lands on the sign-in page.
	do(t, other, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS), chromedp.WaitVisible(chromedp.CSS(`#email`)))
	require.Equal(t, "/sign-in", eval[string](t, other, `location.pathname`))

	require.Equal(t, http.StatusOK, s.status("GET", "/auth/me", a.Token, ""))
	eval[bool](t, ctx, `[...document.querySelectorAll("button")].find(b => b.textContent ===
		"Sign out every other device").click() === undefined`)
	confirm(t, ctx, "sign out every other device, confirming")
	waitFor(t, ctx, "this device alone", `document.querySelectorAll("tr[data-session]").length === 1 &&
		document.querySelector("main").textContent.includes("Only this device is signed in.")`)
	require.Equal(t, http.StatusUnauthorized, s.status("GET", "/auth/me", a.Token, ""))
}

// TestBrowserAccountProfile: the name and job title saved; the e-mail's verification link sent again;
// the password changed (a wrong current password and a mistyped confirmation refused in words), after
// which the old password and the other sessions are refused and this browser stays signed in.
func TestBrowserAccountProfile(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("pia@example.com")
	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href="/settings"]`)), chromedp.WaitVisible(chromedp.CSS(`#profile-name`)))
	require.Contains(t, text(t, ctx, `main`), "Not verified")
	accessible(t, ctx, "profile settings")
	shot(t, ctx, "account-settings", 1440, 900)

	eval[bool](t, ctx, `(document.querySelector("#profile-name").value = "") === ""`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#profile-name`), "Pia Lund"),
		chromedp.SendKeys(chromedp.CSS(`#profile-title`), "Head of delivery"),
		chromedp.Click(chromedp.CSS(`#profile-name`)), chromedp.SendKeys(chromedp.CSS(`#profile-name`), kb.Enter))
	waitFor(t, ctx, "saved", `document.querySelector("main").textContent.includes("Saved.")`)
	var me struct {
		User struct{ Name, JobTitle string }
	}
	s.call("GET", "/auth/me", a.Token, nil, &me)
	require.Equal(t, "Pia Lund", me.User.Name)
	require.Equal(t, "Head of delivery", me.User.JobTitle)

	sent := func() int {
		var n int
		require.NoError(t, s.b.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE
			args->>'topic' = $1 AND args->>'to' = $2`, identity.EmailTopicEmailVerification, a.Email).Scan(&n))
		return n
	}
	before := sent()
	eval[bool](t, ctx, `[...document.querySelectorAll("button")].find(b => b.textContent === "Send the link again")
		.click() === undefined`)
	waitFor(t, ctx, "the link sent", `document.querySelector("main").textContent.includes("A new link is on its way")`)
	require.Equal(t, before+1, sent())

	// Refusals in words: a mistyped confirmation, a wrong current password.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#pw-current`), a.Password),
		chromedp.SendKeys(chromedp.CSS(`#pw-new`), "a brand new password"),
		chromedp.SendKeys(chromedp.CSS(`#pw-confirm`), "a brand new passwrod"+kb.Enter))
	waitFor(t, ctx, "the mismatch said", `document.querySelector("#password-h").parentElement.querySelector("[role=alert]")
		?.textContent.includes("differ")`)
	for _, sel := range []string{"#pw-current", "#pw-confirm"} {
		eval[bool](t, ctx, `(document.querySelector("`+sel+`").value = "") === ""`)
	}
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#pw-current`), "not my password"),
		chromedp.SendKeys(chromedp.CSS(`#pw-confirm`), "a brand new password"+kb.Enter))
	waitFor(t, ctx, "the wrong password said", `document.querySelector("#password-h").parentElement
		.querySelector("[role=alert]")?.textContent.includes("current password is incorrect")`)
	accessible(t, ctx, "password change refused")
	eval[bool](t, ctx, `(document.querySelector("#pw-current").value = "") === ""`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#pw-current`), a.Password+kb.Enter))
	waitFor(t, ctx, "the password changed",
		`document.querySelector("main").textContent.includes("Your password is changed.")`)

	require.Equal(t, http.StatusUnauthorized, s.status("POST", "/auth/login", "",
		`{"email":"pia@example.com","password":"`+a.Password+`"}`))
	require.Equal(t, http.StatusOK, s.status("POST", "/auth/login", "",
		`{"email":"pia@example.com","password":"a brand new password"}`))
	require.Equal(t, http.StatusUnauthorized, s.status("GET", "/auth/me", a.Token, ""), "other sessions ended")
	// This browser holds the new session: a write (with its new CSRF token) and a reload still work.
	eval[bool](t, ctx, `(document.querySelector("#profile-title").value = "") === ""`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#profile-title`), "Delivery lead"+kb.Enter))
	waitFor(t, ctx, "saved again", `document.querySelector("main").textContent.includes("Saved.")`)
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#profile-title`)))
	require.Equal(t, "Delivery lead", eval[string](t, ctx, `document.querySelector("#profile-title").value`))
}

// TestBrowserSignedOutIsQuiet: opening the app signed out logs nothing to the console, not even the
// failed requests the harness lets pass (a 401 of /auth/me was one); /favicon.ico answers the app's icon,
// which the page names.
func TestBrowserSignedOutIsQuiet(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctx := page(t)
	var mu sync.Mutex
	var logged []string
	marker := false
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			mu.Lock()
			if strings.Contains(m.String(), "pilot-test-marker") {
				marker = true
			} else {
				logged = append(logged, string(m.Type)+" ("+m.Source+"): "+m.String()+" "+m.URL)
			}
			mu.Unlock()
		}
	}()
	do(t, ctx, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS(`#email`)))
	require.Equal(t, "/sign-in", eval[string](t, ctx, `location.pathname`))
	accessible(t, ctx, "sign-in, signed out")
	// Every message the page logged so far reaches the listener before the marker logged after it.
	eval[bool](t, ctx, `console.debug("pilot-test-marker") === undefined`)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return marker }, 10*time.Second,
		20*time.Millisecond, "the console listener saw no marker")
	mu.Lock()
	require.Empty(t, logged, "the signed-out page logged to the console")
	mu.Unlock()

	require.True(t, eval[bool](t, ctx, `!!document.querySelector('link[rel=icon][href="/favicon.ico"]')`))
	res, err := http.Get(s.url + "/favicon.ico")
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "image/vnd.microsoft.icon", res.Header.Get("Content-Type"))
	require.True(t, bytes.HasPrefix(body, []byte{0, 0, 1, 0}), "an ICO file")
	require.Greater(t, int(body[4]), 0, "with at least one image")
}

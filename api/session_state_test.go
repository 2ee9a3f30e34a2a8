package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSessionStateAnswersSignedOutWithoutAnError: /auth/session answers 200 whether or not the browser
// is signed in, reading the session cookie only; the user and CSRF token are those /auth/me answers.
func TestSessionStateAnswersSignedOutWithoutAnError(t *testing.T) {
	t.Parallel()
	e := setup(t)
	reg := identRegister(e, "sol@example.com", "Sol")
	state := func(r req) SessionStateBody {
		t.Helper()
		r.Method, r.Path = "GET", "/auth/session"
		got := e.send(r)
		requireStatus(t, got, http.StatusOK)
		return decode[SessionStateBody](t, got)
	}
	signedOut := SessionStateBody{}
	require.Equal(t, signedOut, state(req{}), "no cookie")
	require.Equal(t, signedOut, state(req{Token: reg.AccessToken}), "a bearer token is not the browser's session")
	require.Equal(t, signedOut, state(req{Cookies: []*http.Cookie{{Name: sessionCookie, Value: "not-a-jwt"}}}))

	login := identLogin(e, "sol@example.com", identPassword)
	requireStatus(t, login, http.StatusOK)
	jar := []*http.Cookie{identSessionCookie(login)}
	got := state(req{Cookies: jar})
	require.True(t, got.SignedIn)
	require.NotNil(t, got.User)
	require.Equal(t, "sol@example.com", got.User.Email)
	me := identMe(t, e.send(req{Method: "GET", Path: "/auth/me", Cookies: jar}))
	require.Equal(t, me.Body.CSRFToken, got.CSRFToken)
	require.NotEmpty(t, got.CSRFToken)

	// A password change ends the session: its cookie now reads as signed out.
	requireStatus(t, e.send(req{Method: "POST", Path: "/auth/change-password", Cookies: jar,
		Header: map[string]string{"X-CSRF-Token": got.CSRFToken},
		Body:   map[string]any{"currentPassword": identPassword, "newPassword": "a-new-password"}}), http.StatusOK)
	require.Equal(t, signedOut, state(req{Cookies: jar}))

	// So does logging out.
	login = identLogin(e, "sol@example.com", "a-new-password")
	requireStatus(t, login, http.StatusOK)
	jar = []*http.Cookie{identSessionCookie(login)}
	require.True(t, state(req{Cookies: jar}).SignedIn)
	requireStatus(t, e.send(req{Method: "POST", Path: "/auth/logout", Cookies: jar}), http.StatusOK)
	require.Equal(t, signedOut, state(req{Cookies: jar}))
}

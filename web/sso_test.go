package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/api"
	"github.com/pilot-dev/pilot/internal/oidc"
	"github.com/pilot-dev/pilot/internal/oidctest"
)

// withProvider configures op as the api's provider "corp", its redirect URI allowed at op.
func withProvider(op *oidctest.Provider, tune func(*api.Options)) func(*api.Options) {
	return func(o *api.Options) {
		callback := func(id string) string { return o.PublicURL + "/auth/oidc/" + id + "/callback" }
		o.OIDC = oidc.New([]oidc.Config{{ID: "corp", Name: "Corp SSO", Issuer: op.Issuer, ClientID: oidctest.ClientID,
			ClientSecret: oidctest.ClientSecret, Scopes: []string{"email", "profile"}}}, callback, nil)
		op.AllowRedirect(callback("corp"))
		if tune != nil {
			tune(o)
		}
	}
}

// waitAcrossRedirects is waitFor while the page goes through the redirects of a sign-in (the provider,
// Pilot's callback, the app): a poll whose page navigated away polls the next page.
func waitAcrossRedirects(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(30*time.Second)))
		if err == nil {
			return
		}
		moved := strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "navigated or closed")
		if attempt == 10 || !moved {
			fail(t, ctx, "waiting for "+what, err)
		}
	}
}

// TestBrowserSignInWithProvider: the sign-in page's provider button leads to the provider's own login
// form (zitadel's example OpenID provider, run in process); filled in, it lands in the app signed in to
// an account created for that person. The account page lists the linked provider, and refuses in words
// to unlink the account's only way in. With passwords turned off, the sign-in page offers only the
// provider.
func TestBrowserSignInWithProvider(t *testing.T) {
	t.Parallel()
	op := oidctest.Start(t, []oidctest.User{{ID: "u-ola", Username: "ola", Password: "verysecure",
		Email: "ola@example.com", EmailVerified: true, FirstName: "Ola", LastName: "Nordmann"}})
	s := startServerWith(t, withProvider(op, nil))
	ctx := page(t)

	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`a[data-provider="corp"]`)))
	require.Equal(t, "Sign in with Corp SSO", text(t, ctx, `a[data-provider="corp"]`))
	require.True(t, eval[bool](t, ctx, `!!document.querySelector("#password")`), "passwords sign in too")
	accessible(t, ctx, "sign-in with a provider")
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[data-provider="corp"]`)), chromedp.WaitVisible(chromedp.CSS(`#username`)))
	require.True(t, strings.HasPrefix(eval[string](t, ctx, `location.href`), op.Issuer), "at the provider")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#username`), "ola"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "verysecure"+kb.Enter))
	waitAcrossRedirects(t, ctx, "the workspace", `location.pathname.startsWith("/w/") && !!document.querySelector("h1")`)

	u, err := s.b.Identity.UserByEmail(context.Background(), "ola@example.com")
	require.NoError(t, err, "the account was created at the first sign-in")
	require.Equal(t, "Ola Nordmann", u.Name)
	sessions, err := s.b.Identity.Sessions(context.Background(), u.ID)
	require.NoError(t, err)
	require.Len(t, sessions, 1, "an ordinary session")

	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href="/settings"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-identity]`)))
	require.Contains(t, text(t, ctx, `[data-identity]`), "Corp SSO")
	require.Contains(t, text(t, ctx, `[data-identity]`), "ola@example.com")
	accessible(t, ctx, "account settings with a linked provider")
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-identity] button`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open] button[type=submit]`)))
	accessible(t, ctx, "unlink a provider")
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open] [role=alert]`)))
	require.Contains(t, text(t, ctx, `dialog[open] [role=alert]`), "only way to sign in")
	ids, err := s.b.Identity.Identities(context.Background(), u.ID)
	require.NoError(t, err)
	require.Len(t, ids, 1, "still linked")

	off := startServerWith(t, withProvider(op, func(o *api.Options) { o.PasswordLoginOff = true }))
	ctx = page(t)
	do(t, ctx, chromedp.Navigate(off.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`a[data-provider="corp"]`)))
	require.False(t, eval[bool](t, ctx, `!!document.querySelector("#password")`), "no password form")
	accessible(t, ctx, "sign-in with passwords off")
}

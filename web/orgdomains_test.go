package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserSignInDomains: an organization's owner adds a sign-in domain (a wrong one refused in words,
// another organization's too) and removes it after confirming; a personal organization has no such section.
func TestBrowserSignInDomains(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("sara@example.com")
	rival := s.register("rex@example.com")
	s.call("POST", "/organizations", a.Token, map[string]string{"name": "Acme", "slug": "acme"}, nil)
	s.call("POST", "/orgs/acme/workspaces", a.Token, map[string]string{"name": "General", "slug": "general"}, nil)
	s.call("POST", "/organizations", rival.Token, map[string]string{"name": "Rival", "slug": "rival"}, nil)
	s.call("POST", "/organizations/rival/domains", rival.Token, map[string]string{"domain": "taken.example"}, nil)
	domains := func() []string {
		var ds []struct{ Domain string }
		s.call("GET", "/organizations/acme/domains", a.Token, nil, &ds)
		out := []string{}
		for _, d := range ds {
			out = append(out, d.Domain)
		}
		return out
	}

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/acme/general/settings/organization"),
		chromedp.WaitVisible(chromedp.CSS(`#org-domain`)))
	waitFor(t, ctx, "the empty state", `document.querySelector('[aria-labelledby="org-domains-h"]')
		?.textContent.includes("No sign-in domains yet")`)
	accessible(t, ctx, "sign-in domains")

	add := func(domain string) {
		do(t, ctx, chromedp.SetValue(chromedp.CSS(`#org-domain`), domain),
			chromedp.Click(chromedp.CSS(`#org-domain ~ button[type=submit]`)))
	}
	add("not a domain")
	waitFor(t, ctx, "the refusal in words", `document.querySelector('#org-domain ~ [role=alert]')
		?.textContent.includes("is not a domain")`)
	require.Empty(t, domains())

	add("Acme.Example")
	waitFor(t, ctx, "the domain listed", `document.querySelector('.org-domains')?.textContent.includes("acme.example")`)
	require.Equal(t, []string{"acme.example"}, domains())

	add("taken.example")
	waitFor(t, ctx, "another organization's refused", `document.querySelector('#org-domain ~ [role=alert]')
		?.textContent.includes("another organization")`)
	require.Equal(t, []string{"acme.example"}, domains())

	do(t, ctx, chromedp.Click(chromedp.CSS(`.org-domains li button.danger`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
	require.Contains(t, text(t, ctx, `dialog[open]`), "stay members")
	accessible(t, ctx, "remove a sign-in domain")
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "the domain gone", `!document.querySelector('.org-domains')`)
	require.Empty(t, domains())

	// A personal organization: no sign-in domains.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/settings/organization"),
		chromedp.WaitVisible(chromedp.CSS(`#org-name`)))
	require.False(t, eval[bool](t, ctx, `!!document.getElementById("org-domains-h")`))
}

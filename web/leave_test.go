package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserLeave: from the members screen, a member leaves the workspace (the dialog says what
// leaving does) and lands in their own workspace, still in the organization; another leaves the
// organization; the owner sees why they cannot leave either, and the API refuses them too.
func TestBrowserLeave(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("olivia@example.com")
	b := s.register("bo@example.com")
	c := s.register("cy@example.com")
	s.hooksMember(a, b)
	s.hooksMember(a, c)
	members := s.url + "/w/" + a.Org + "/" + a.WS + "/members"
	memberOf := func(path, email string) bool {
		var list []struct{ Email string }
		s.call("GET", path, a.Token, nil, &list)
		for _, m := range list {
			if m.Email == email {
				return true
			}
		}
		return false
	}
	leaves := func(ctx context.Context, who account, button string) {
		t.Helper()
		signIn(t, ctx, s, who)
		do(t, ctx, chromedp.Navigate(members))
		waitFor(t, ctx, "the leave section", `!!document.querySelector("section.leave button")`)
		accessible(t, ctx, "members with the leave section")
		settingsClick(t, ctx, `section.leave button`, button)
		do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
		require.Contains(t, text(t, ctx, `dialog[open]`), "the cards assigned to you there are unassigned")
		confirm(t, ctx, "the leave dialog")
		waitFor(t, ctx, "their own workspace", `location.pathname === `+jsString("/w/"+who.Org+"/"+who.WS))
	}

	// c leaves the workspace: out of it, still in the organization.
	leaves(page(t), c, "Leave the workspace")
	require.False(t, memberOf(a.ws()+"/members", c.Email))
	require.True(t, memberOf("/organizations/"+a.Org+"/members", c.Email))

	// b leaves the organization, and with it the workspace.
	leaves(page(t), b, "Leave the organization")
	require.False(t, memberOf("/organizations/"+a.Org+"/members", b.Email))
	require.False(t, memberOf(a.ws()+"/members", b.Email))

	// The owner: no leave button, the reasons in words; the API refuses them as well.
	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(members))
	waitFor(t, ctx, "the owner's reasons", `document.querySelectorAll("section.leave [data-leave]").length === 2`)
	require.Zero(t, eval[int](t, ctx, `document.querySelectorAll("section.leave button").length`))
	require.Contains(t, text(t, ctx, `[data-leave="workspace"]`), "you cannot leave it")
	require.Contains(t, text(t, ctx, `[data-leave="organization"]`), "an organization always keeps its owner")
	accessible(t, ctx, "the owner's leave section")
	var me struct{ User struct{ ID string } }
	s.call("GET", "/auth/me", a.Token, nil, &me)
	require.NotEmpty(t, me.User.ID)
	require.Equal(t, 403, s.status("DELETE", "/organizations/"+a.Org+"/members/"+me.User.ID, a.Token, ""))
	require.Equal(t, 403, s.status("DELETE", a.ws()+"/members/"+me.User.ID, a.Token, ""))
}

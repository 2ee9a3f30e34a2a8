package web_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/jobs"
)

// choose picks value in the select sel, as a person does (a change event).
func choose(t *testing.T, ctx context.Context, sel, value string) {
	t.Helper()
	if !eval[bool](t, ctx, `(() => { const s = document.querySelector(`+jsString(sel)+`); if (!s) return false;
		s.value = `+jsString(value)+`; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`) {
		fail(t, ctx, "choose "+value+" in "+sel, errors.New("no such select"))
	}
}

// mails counts the invitation e-mails enqueued to an address.
func (s *server) mails(topic, to string) int {
	s.t.Helper()
	var n int
	require.NoError(s.t, s.b.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = $1
		AND args->>'topic' = $2 AND args->>'to' = $3`, jobs.SendEmailArgs{}.Kind(), topic, to).Scan(&n))
	return n
}

// TestBrowserTeamMembers: an owner invites a person from the members screen, sends the invitation again (a
// second e-mail) and withdraws another (its link no longer accepts); the invitee's page names the
// workspace, the inviter and the role; they accept, see the members read-only, are promoted, then removed,
// and their next page load of the workspace says they cannot open it, with the way back.
func TestBrowserTeamMembers(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	owner := s.register("olga@example.com")
	s.call("POST", "/orgs/"+owner.Org+"/workspaces", owner.Token, map[string]string{"name": "Studio", "slug": "studio"},
		nil)
	var org struct{ Name string }
	s.call("GET", "/organizations/"+owner.Org, owner.Token, nil, &org)
	studio := "/orgs/" + owner.Org + "/workspaces/studio"
	members := "/w/" + owner.Org + "/studio/members"

	ctx := page(t)
	signIn(t, ctx, s, owner)
	do(t, ctx, chromedp.Navigate(s.url+members), chromedp.WaitVisible(chromedp.CSS(`#ws-invite-email`)))
	waitFor(t, ctx, "the owner listed", `!!document.querySelector('tr[data-user="olga@example.com"]')`)
	require.Contains(t, text(t, ctx, `#ws-members-h`), "Studio")
	accessible(t, ctx, "members")

	invite := func(email string) {
		do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#ws-invite-email`), email))
		choose(t, ctx, `#ws-invite-role`, "member")
		do(t, ctx, chromedp.Click(chromedp.CSS(`form.invite[aria-label="Invite to the workspace"] button[type=submit]`)))
		waitFor(t, ctx, "the invitation to "+email+" listed",
			`!!document.querySelector('.invitations li[data-email="`+email+`"]')`)
	}
	invite("ivan@example.com")
	require.Contains(t, text(t, ctx, `.invitations li[data-email="ivan@example.com"]`), "as a member")
	first := s.mailed(tenancy.EmailTopicInvitation, "ivan@example.com")
	do(t, ctx, chromedp.Click(chromedp.CSS(`.invitations li[data-email="ivan@example.com"] button.secondary`)))
	waitFor(t, ctx, "the invitation sent again", `[...document.querySelectorAll("[role=status]")]
		.some(e => e.textContent.includes("sent again to ivan@example.com"))`)
	require.Equal(t, 2, s.mails(tenancy.EmailTopicInvitation, "ivan@example.com"), "a second e-mail")
	link := s.mailed(tenancy.EmailTopicInvitation, "ivan@example.com")
	require.NotEqual(t, first, link, "a new link")
	require.Eventually(t, func() bool { // the worker sends both: the outbox keeps one e-mail per sending
		var n int
		require.NoError(t, s.b.Pool.QueryRow(context.Background(),
			`SELECT count(*) FROM email_outbox WHERE to_address = 'ivan@example.com' AND body LIKE '%' || $1`,
			link+"\n").Scan(&n))
		return n == 1
	}, 10*time.Second, 50*time.Millisecond, "the second e-mail in the outbox, with the new link")

	// Another invitation, withdrawn: its link no longer accepts.
	invite("gone@example.com")
	gone := s.mailed(tenancy.EmailTopicInvitation, "gone@example.com")
	do(t, ctx, chromedp.Click(chromedp.CSS(`.invitations li[data-email="gone@example.com"] button.danger`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
	require.Contains(t, text(t, ctx, `dialog[open]`), "no longer work")
	accessible(t, ctx, "withdraw an invitation")
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "the withdrawn invitation gone",
		`!document.querySelector('.invitations li[data-email="gone@example.com"]')`)
	goneUser := s.register("gone@example.com")
	token := strings.TrimSuffix(strings.TrimPrefix(gone, "/invitations/"), "/accept")
	require.Equal(t, http.StatusNotFound, s.status("POST", "/invitations/"+token+"/accept", goneUser.Token, ""))

	// The invitee: the page names the workspace, the inviter and the role; the old link no longer does.
	guest := page(t)
	do(t, guest, chromedp.Navigate(s.url+first))
	waitFor(t, guest, "the old link refused", `document.querySelector(".error")?.textContent.includes("no longer exists")`)
	do(t, guest, chromedp.Navigate(s.url+link))
	waitFor(t, guest, "the invitation's details", `!!document.querySelector(".invitation-summary")`)
	summary := text(t, guest, `.invitation-summary`)
	for _, want := range []string{"olga", "Studio", org.Name, "as a member"} {
		require.Contains(t, summary, want)
	}
	accessible(t, guest, "invitation, details")
	do(t, guest, chromedp.Click(chromedp.CSS(`a[href^="/sign-up"]`)), chromedp.WaitVisible(chromedp.CSS(`#name`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Ivan"), chromedp.SendKeys(chromedp.CSS(`#email`), "ivan@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "a long password"+kb.Enter))
	waitFor(t, guest, "the invitation, signed in", `!!document.querySelector("main .actions button")`)
	do(t, guest, chromedp.Click(chromedp.CSS(`main .actions button`)))
	waitFor(t, guest, "the workspace", `location.pathname === "/w/`+owner.Org+`/studio"`)

	// A member sees the members without the admins' controls.
	do(t, guest, chromedp.Navigate(s.url+members))
	waitFor(t, guest, "the members, read-only", `!!document.querySelector('tr[data-user="ivan@example.com"]')`)
	require.True(t, eval[bool](t, guest, `!document.querySelector("form.invite") && !document.querySelector("main select")
		&& ![...document.querySelectorAll("main button")].some(b => b.textContent === "Remove")`))
	accessible(t, guest, "members, read-only")

	// Promoted, then removed.
	const wsRow = `section[aria-labelledby="ws-members-h"] tr[data-user="ivan@example.com"]`
	do(t, ctx, chromedp.Reload())
	waitFor(t, ctx, "Ivan listed", `!!document.querySelector('`+wsRow+` select')`)
	choose(t, ctx, `select[aria-label="Role of Ivan"]`, "admin")
	wsMember := func(email string) (string, bool) {
		var list []struct{ Email, Role string }
		s.call("GET", studio+"/members", owner.Token, nil, &list)
		for _, m := range list {
			if m.Email == email {
				return m.Role, true
			}
		}
		return "", false
	}
	require.Eventually(t, func() bool { r, _ := wsMember("ivan@example.com"); return r == "admin" }, 10*time.Second,
		50*time.Millisecond)
	do(t, ctx, chromedp.Click(chromedp.CSS(wsRow+` button.danger`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
	detail := text(t, ctx, `dialog[open]`)
	for _, want := range []string{"unassigned", "cancelled", "disabled", "stay a member of the organization"} {
		require.Contains(t, detail, want)
	}
	accessible(t, ctx, "remove a member")
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "Ivan gone from the list", `!document.querySelector('`+wsRow+`')`)
	_, still := wsMember("ivan@example.com")
	require.False(t, still)

	// Their next page load of the workspace says what happened, with the way back.
	do(t, guest, chromedp.Navigate(s.url+"/w/"+owner.Org+"/studio"))
	waitFor(t, guest, "the no-access message", `document.querySelector(".no-access")?.textContent
		.includes("You are not a member of this workspace, or it no longer exists")`)
	require.True(t, eval[bool](t, guest, `!!document.querySelector('.no-access a[href^="/w/"]')`))
	accessible(t, guest, "no access")
}

// TestBrowserTeamSettings: the organization renamed; a workspace and an organization created from the
// switcher, each opened once created; deleting a workspace asks for its name typed; a project's members.
func TestBrowserTeamSettings(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("sara@example.com")
	ctx := page(t)
	signIn(t, ctx, s, a)

	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/settings/organization"),
		chromedp.WaitVisible(chromedp.CSS(`#org-name`)))
	accessible(t, ctx, "organization settings")
	do(t, ctx, chromedp.SetValue(chromedp.CSS(`#org-name`), "Sara's Studio"),
		chromedp.Click(chromedp.CSS(`#org-name ~ button[type=submit]`)))
	waitFor(t, ctx, "the organization renamed",
		`document.querySelector("[role=status]")?.textContent.includes("Sara's Studio")`)
	var org struct{ Name string }
	s.call("GET", "/organizations/"+a.Org, a.Token, nil, &org)
	require.Equal(t, "Sara's Studio", org.Name)
	waitFor(t, ctx, "the switcher renamed",
		`document.querySelector(".switcher select").textContent.includes("Sara's Studio")`)

	// A workspace from the switcher.
	choose(t, ctx, `.switcher select`, "new:workspace")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`dialog[open] #new-workspace-name`)))
	accessible(t, ctx, "new workspace")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#new-workspace-name`), "Research Lab"))
	require.Equal(t, "research-lab", eval[string](t, ctx, `document.querySelector("#new-workspace-slug").value`))
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "the new workspace opened", `location.pathname === "/w/`+a.Org+`/research-lab"`)
	waitFor(t, ctx, "the switcher on it", `document.querySelector(".switcher select").value === "`+a.Org+`/research-lab"`)

	// An organization from the switcher, with its first workspace.
	choose(t, ctx, `.switcher select`, "new:organization")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`dialog[open] #new-organization-name`)))
	accessible(t, ctx, "new organization")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#new-organization-name`), "Northwind"),
		chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "the new organization opened", `location.pathname === "/w/northwind/general"`)
	var orgs []struct{ Slug, MyRole string }
	s.call("GET", "/organizations", a.Token, nil, &orgs)
	require.Contains(t, orgs, struct{ Slug, MyRole string }{"northwind", "owner"})

	// Deleting a workspace asks for its name.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/research-lab/settings/workspace"),
		chromedp.WaitVisible(chromedp.CSS(`#ws-name`)))
	accessible(t, ctx, "workspace settings")
	do(t, ctx, chromedp.Click(chromedp.CSS(`#ws-delete-h ~ button.danger`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
	accessible(t, ctx, "delete a workspace")
	submit := `document.querySelector("dialog[open] button[type=submit]")`
	require.True(t, eval[bool](t, ctx, submit+`.disabled`), "nothing typed yet")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`dialog[open] input`), "Research"))
	require.True(t, eval[bool](t, ctx, submit+`.disabled`), "not its name")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`dialog[open] input`), " Lab"))
	waitFor(t, ctx, "the delete allowed", `!`+submit+`.disabled`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "another workspace opened",
		`location.pathname.startsWith("/w/") && !location.pathname.includes("research-lab")`)
	require.Equal(t, http.StatusNotFound, s.status("GET", "/orgs/"+a.Org+"/workspaces/research-lab", a.Token, ""))

	// A project's members, from the board.
	var prj struct{ ID string }
	s.call("POST", a.ws()+"/projects", a.Token, map[string]string{"name": "Garden"}, &prj)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/p/"+prj.ID),
		chromedp.WaitVisible(chromedp.CSS(`a.project-members-link`)), chromedp.Click(chromedp.CSS(`a.project-members-link`)),
		chromedp.WaitVisible(chromedp.CSS(`#project-member-email`)))
	waitFor(t, ctx, "the project's members", `document.querySelector("h1").textContent === "Members of Garden"`)
	accessible(t, ctx, "project members")
	if eval[bool](t, ctx, `!document.querySelector('li[data-user="sara@example.com"]')`) {
		do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#project-member-email`), a.Email+kb.Enter))
		waitFor(t, ctx, "Sara added", `!!document.querySelector('li[data-user="sara@example.com"]')`)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`li[data-user="sara@example.com"] button.danger`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
	accessible(t, ctx, "remove a project member")
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "Sara removed from the project", `!document.querySelector('li[data-user="sara@example.com"]')`)
	var pm []struct{ Email string }
	s.call("GET", a.ws()+"/projects/"+prj.ID+"/members", a.Token, nil, &pm)
	require.Empty(t, pm)
}

package web_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/auth"
)

// TestBrowserInvitation: an invitation's e-mail link, opened in another browser (no session there),
// leads through creating an account back to the invitation, and accepting it lands in the workspace.
func TestBrowserInvitation(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	owner := s.register("olga@example.com")
	var ws struct{ Slug, Name string }
	s.call("POST", "/orgs/"+owner.Org+"/workspaces", owner.Token, map[string]string{"name": "Studio", "slug": "studio"},
		&ws)
	s.call("POST", "/orgs/"+owner.Org+"/workspaces/studio/members/invite", owner.Token,
		map[string]string{"email": "ivan@example.com"}, nil)
	link := s.mailed(tenancy.EmailTopicInvitation, "ivan@example.com")
	require.True(t, strings.HasPrefix(link, "/invitations/"), link)

	ctx := page(t)
	do(t, ctx, chromedp.Navigate(s.url+link), chromedp.WaitVisible(chromedp.CSS(`a[href^="/sign-up"]`)))
	shot(t, ctx, "invitation", 1440, 900)
	accessible(t, ctx, "invitation, signed out")
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href^="/sign-up"]`)), chromedp.WaitVisible(chromedp.CSS(`#name`)))
	accessible(t, ctx, "sign-up")
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#name`), "Ivan"), chromedp.SendKeys(chromedp.CSS(`#email`), "ivan@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "a long password"+kb.Enter))
	waitFor(t, ctx, "the invitation again, signed in",
		`location.pathname.startsWith("/invitations/") && !!document.querySelector("main button")`)
	accessible(t, ctx, "invitation, signed in")
	do(t, ctx, chromedp.Click(chromedp.CSS(`main button`)))
	waitFor(t, ctx, "the workspace", `location.pathname === "/w/`+owner.Org+
		`/studio" && document.querySelector("h1")?.textContent === "Projects"`)
	require.Contains(t, text(t, ctx, `.switcher select`), "Studio")

	// The new member's board follows the owner's moves live, through the workspace's event feed: a card
	// the owner moves (the app's own PATCH) reaches the open board without a reload.
	studio := "/orgs/" + owner.Org + "/workspaces/studio"
	var prj struct{ ID string }
	s.call("POST", studio+"/projects", owner.Token, map[string]string{"name": "Tour"}, &prj)
	var cols []struct{ ID string }
	s.call("GET", studio+"/projects/"+prj.ID+"/columns", owner.Token, nil, &cols)
	var card struct{ ID string }
	s.call("POST", studio+"/projects/"+prj.ID+"/columns/"+cols[0].ID+"/cards", owner.Token,
		map[string]string{"title": "Book the hall"}, &card)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+owner.Org+"/studio/p/"+prj.ID))
	waitFor(t, ctx, "the card in the first column",
		`document.querySelector(".column:nth-child(1) .card")?.textContent.includes("Book the hall")`)
	waitFor(t, ctx, "the board to follow the feed", `document.documentElement.dataset.feed === "open"`)
	s.call("PATCH", studio+"/projects/"+prj.ID+"/cards/"+card.ID, owner.Token, map[string]any{"columnId": cols[2].ID,
		"order": 0}, nil)
	moved := time.Now()
	waitFor(t, ctx, "the owner's move, live",
		`document.querySelector(".column:nth-child(3) .card")?.textContent.includes("Book the hall")`)
	t.Logf("a move shown on another person's open board %s after the PATCH answered (chromedp's polling included)",
		time.Since(moved).Round(time.Millisecond))
}

// TestBrowserResetPassword: forgot password, the e-mail's link, a new password, and signing in with it.
func TestBrowserResetPassword(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("rita@example.com")
	s.call("POST", "/auth/verify-email/send", a.Token, nil, nil)
	ctx := page(t)
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`a[href="/forgot-password"]`)),
		chromedp.Click(chromedp.CSS(`a[href="/forgot-password"]`)), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email+kb.Enter), chromedp.WaitVisible(chromedp.CSS(`[role=status]`)))
	accessible(t, ctx, "forgot password")
	link := s.mailed(identity.EmailTopicPasswordReset, a.Email)
	require.True(t, strings.HasPrefix(link, "/reset-password?token="), link)
	do(t, ctx, chromedp.Navigate(s.url+link), chromedp.WaitVisible(chromedp.CSS(`#password`)),
		chromedp.SendKeys(chromedp.CSS(`#password`), "a brand new password"+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`a[href="/sign-in"]`)))
	require.Contains(t, text(t, ctx, `[role=status]`), "password is changed")
	accessible(t, ctx, "reset password")
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href="/sign-in"]`)), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), "a brand new "+
			"password"+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname === "/w/`+a.Org+`/`+a.WS+`"`)
	// The verification link opens its page too.
	verify := s.mailed(identity.EmailTopicEmailVerification, a.Email)
	do(t, ctx, chromedp.Navigate(s.url+verify), chromedp.WaitVisible(chromedp.CSS(`[role=status]`)))
	waitFor(t, ctx, "the address verified", `document.querySelector("[role=status]")?.textContent.includes("verified")`)
	accessible(t, ctx, "verify e-mail")
	// Signing out ends the session: the workspace asks for a sign-in again.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS), chromedp.WaitVisible(chromedp.CSS(`a[href="/sign-out"]`)),
		chromedp.Click(chromedp.CSS(`a[href="/sign-out"]`)))
	waitFor(t, ctx, "the sign-in page", `location.pathname === "/sign-in" && !!document.querySelector("#email")`)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS))
	waitFor(t, ctx, "the sign-in page after signing out", `location.pathname === "/sign-in"`)
}

// TestBrowserMission: a mission started on a card from its detail, watched live to the proposals, a
// reload in the middle that loses no event, the stream's connection lost and found again, the proposals
// approved (the last event arriving on the new connection), and the mission completed.
func TestBrowserMission(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("mia@example.com")
	prj, card := s.projectWithCard(a, "Site", map[string]any{"title": "Plan the launch",
		"description": "Decide the date and the checklist."})
	s.call("POST", a.ws()+"/agents", a.Token, map[string]any{"name": "Planner", "slug": "planner",
		"autonomyMode": "approval"}, nil)

	ctx := page(t)
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname.startsWith("/w/")`)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/p/"+prj+"?card="+card),
		chromedp.WaitVisible(chromedp.CSS(`#mission-prompt`)))
	waitFor(t, ctx, "the card's parts",
		`document.querySelector("#mission-agent")?.options.length === 1 &&
			document.body.textContent.includes("No document is linked")`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#mission-prompt`), "Plan this card"),
		chromedp.Click(chromedp.CSS(`#mission-prompt ~ button`)))
	waitFor(t, ctx, "the mission page", `location.pathname.includes("/missions/")`)
	// The status and proposals come with the mission's read, its steps with its event stream: wait for both,
	// up to the status event that ends the run of steps.
	waitFor(t, ctx, "the mission to wait for approval",
		`document.querySelector("[data-status]")?.dataset.status === "awaiting_approval" &&
		document.querySelectorAll(".proposal button").length > 0 &&
		[...document.querySelectorAll(".events li")].some((li) => li.textContent.includes("Awaiting approval"))`)
	steps := eval[int](t, ctx, `document.querySelectorAll(".events li").length`)
	require.Positive(t, steps)
	// A reload reattaches: every event is there again, once.
	do(t, ctx, chromedp.Reload())
	waitFor(t, ctx, "the events after a reload", `document.querySelectorAll(".events li").length === `+itoa(steps)+` &&
		document.querySelector("[data-status]")?.dataset.status === "awaiting_approval" &&
		document.querySelectorAll(".proposal").length > 0`)
	shot(t, ctx, "mission", 1440, 900)
	accessible(t, ctx, "mission")
	// A lost stream reconnects by itself: the server drops every connection, the page follows again.
	s.srv.CloseClientConnections()
	waitFor(t, ctx, "the stream to be live again", `document.querySelector(".status-line")?.textContent.includes("live")`)
	n := eval[int](t, ctx, `document.querySelectorAll(".proposal").length`)
	require.Positive(t, n)
	for i := 0; i < n; i++ {
		do(t, ctx, chromedp.Click(chromedp.CSS(`.proposal .actions button:first-child`)))
		waitFor(t, ctx, "the proposal approved", `document.querySelectorAll(".proposal .actions button").length === `+
			itoa(2*(n-i-1)))
	}
	waitFor(t, ctx, "the mission completed", `document.querySelector("[data-status]")?.dataset.status === "completed"`)
	// The workspace's pending proposals are none now.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/proposals"))
	waitFor(t, ctx, "no pending proposal", `document.querySelector("main")?.textContent.includes("No proposal.")`)
	accessible(t, ctx, "proposals")
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestBrowserTwoFactor: signing in to an account with the second factor on asks for the code, then
// lands in the workspace.
func TestBrowserTwoFactor(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("tess@example.com")
	var setup struct{ Secret string }
	s.call("POST", "/auth/2fa/setup", a.Token, nil, &setup)
	code, err := auth.TOTPCode(setup.Secret, time.Now())
	require.NoError(t, err)
	s.call("POST", "/auth/2fa/enable", a.Token, map[string]string{"password": a.Password, "code": code}, nil)
	ctx := page(t)
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#code`)))
	// A wrong code is refused in words; the next time step's code is accepted (the one that enabled it
	// cannot be used twice).
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#code`), "000000"+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[role=alert]`)))
	accessible(t, ctx, "second factor")
	next, err := auth.TOTPCode(setup.Secret, time.Now().Add(30*time.Second))
	require.NoError(t, err)
	eval[bool](t, ctx, `(document.querySelector("#code").value = "") === ""`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#code`), next+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname === "/w/`+a.Org+`/`+a.WS+`"`)
}

// TestBrowserDocumentsAndSearch: a document written in markdown, submitted and approved; search finds it
// with the matched word highlighted (as a <mark> element, the snippet's other text as text); the
// pilotage dashboard and the notifications open.
func TestBrowserDocumentsAndSearch(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("dora@example.com")
	ctx := page(t)
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname.startsWith("/w/")`)
	base := s.url + "/w/" + a.Org + "/" + a.WS
	do(t, ctx, chromedp.Navigate(base+"/docs"), chromedp.WaitVisible(chromedp.CSS(`#doc-title`)),
		chromedp.SendKeys(chromedp.CSS(`#doc-title`), "Onboarding guide"+kb.Enter))
	waitFor(t, ctx, "the new document", `document.querySelector("#doc-h")?.textContent === "Onboarding guide"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`.document .actions button`)),
		chromedp.WaitVisible(chromedp.CSS(`#doc-edit-content`)),
		chromedp.SendKeys(chromedp.CSS(`#doc-edit-content`), "# Welcome\n\nRead the <b>handbook</b> and the "+
			"[wiki](javascript:alert(1)) first."),
		chromedp.Click(chromedp.CSS(`.document form button[type=submit]`)))
	waitFor(t, ctx, "the rendered document", `document.querySelector(".document .markdown h3")?.textContent === "Welcome"`)
	require.Zero(t, eval[int](t, ctx, `document.querySelectorAll(".document .markdown b, .document .markdown a").length`),
		"HTML stays text and a javascript: link is no link")
	do(t, ctx, chromedp.Click(chromedp.CSS(`.document .actions button.secondary`)))
	waitFor(t, ctx, "pending review", `document.querySelector(".document .status")?.textContent === "Pending review"`)
	// Alone in the workspace, its only owner approves their own document (Edit is hidden while pending).
	require.Zero(t, eval[int](t, ctx,
		`[...document.querySelectorAll(".document button")].filter(b => b.textContent === "Edit").length`))
	do(t, ctx, chromedp.Click(chromedp.CSS(`.document .actions button:not(.secondary)`)))
	waitFor(t, ctx, "approved", `document.querySelector(".document .status")?.textContent === "Approved"`)
	shot(t, ctx, "documents", 1440, 900)
	accessible(t, ctx, "documents")

	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#top-search`), "handbook"+kb.Enter))
	waitFor(t, ctx, "the search result",
		`document.querySelector(".results mark")?.textContent.toLowerCase() === "handbook"`)
	require.Zero(t, eval[int](t, ctx, `document.querySelectorAll(".results b").length`), "the snippet's escaped HTML "+
		"stays text")
	shot(t, ctx, "search", 1440, 900)
	accessible(t, ctx, "search")

	do(t, ctx, chromedp.Navigate(base+"/pilotage"))
	waitFor(t, ctx, "the dashboard",
		`document.body.textContent.includes("Proposed actions") && document.body.textContent.includes("Cycle")`)
	shot(t, ctx, "pilotage", 1440, 900)
	accessible(t, ctx, "pilotage")
	do(t, ctx, chromedp.Navigate(base+"/inbox"))
	waitFor(t, ctx, "the notifications",
		`document.querySelector("h1")?.textContent === "Notifications" && !document.querySelector("[role=status]")`)
	accessible(t, ctx, "notifications")
}

package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserAuditLog: the owner opens the organization's audit log from its settings and finds the
// entries of real actions (a member added, webhooks, the member's own), in words; filters by kind and by
// actor narrow it, "Load more" pages on, and the export follows the filters. The account's activity
// shows its sign-ins. A plain member sees no link, and the screen's address tells them why in words.
func TestBrowserAuditLog(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ann := s.register("ann@example.com")
	bob := s.register("bob@example.com")
	s.hooksMember(ann, bob) // member_invited, member_added
	for i := range 51 {
		s.call("POST", ann.ws()+"/webhooks", ann.Token, map[string]any{"url": fmt.Sprintf("https://hooks.example.com/%d", i),
			"events": []string{"card_created"}}, nil)
	}
	var proj struct{ ID string }
	s.call("POST", ann.ws()+"/projects", bob.Token, map[string]any{"name": "Bob's"}, &proj)
	s.call("GET", ann.ws()+"/projects/"+proj.ID+"/export", bob.Token, nil, nil) // project_exported, by Bob

	ctx := page(t)
	signIn(t, ctx, s, ann)
	base := s.url + "/w/" + ann.Org + "/" + ann.WS
	do(t, ctx, chromedp.Navigate(base+"/settings/organization"), chromedp.WaitVisible(chromedp.CSS(`a[data-link=audit]`)),
		chromedp.Click(chromedp.CSS(`a[data-link=audit]`)))
	waitFor(t, ctx, "the audit log", `location.pathname.endsWith("/settings/audit") &&
		document.querySelectorAll("tr[data-audit]").length === 50`)
	accessible(t, ctx, "audit log")
	require.Contains(t, text(t, ctx, `tr[data-audit=webhook_created]`), "Webhook created")
	require.Contains(t, text(t, ctx, `tr[data-audit=webhook_created]`), "https://hooks.example.com/50")
	require.Contains(t, text(t, ctx, `tr[data-audit=project_exported]`), "bob")

	// Load more: the rest, without repeating.
	do(t, ctx, chromedp.Click(chromedp.CSS(`button[data-more]`)))
	waitFor(t, ctx, "the next page", `document.querySelectorAll("tr[data-audit]").length === 54`)
	waitFor(t, ctx, "the first events at the end", `!!document.querySelector("tr[data-audit=member_added]") &&
		[...document.querySelectorAll("tr[data-audit]")].at(-1).dataset.audit === "member_invited"`)

	// By kind, then by actor.
	choose(t, ctx, `#audit-kind`, "member_added")
	do(t, ctx, chromedp.Click(chromedp.CSS(`form.audit-filters button[type=submit]`)))
	waitFor(t, ctx, "only the member added", `document.querySelectorAll("tr[data-audit]").length === 1 &&
		!!document.querySelector("tr[data-audit=member_added]")`)
	csv := eval[string](t, ctx, `fetch([...document.querySelectorAll(".audit-export a")].at(-1).href).then(r => r.text())`)
	require.Contains(t, csv, "member_added")
	require.NotContains(t, csv, "webhook_created", "the export follows the filters")
	choose(t, ctx, `#audit-kind`, "")
	bobID := eval[string](t, ctx,
		`[...document.querySelectorAll("#audit-actor option")].find(o => o.textContent === "bob").value`)
	choose(t, ctx, `#audit-actor`, bobID)
	do(t, ctx, chromedp.Click(chromedp.CSS(`form.audit-filters button[type=submit]`)))
	waitFor(t, ctx, "only Bob's", `document.querySelectorAll("tr[data-audit]").length === 2 &&
		!!document.querySelector("tr[data-audit=project_exported]") &&
		!!document.querySelector("tr[data-audit=member_added]")`)
	// A time range with nothing in it says so.
	do(t, ctx, chromedp.SetValue(chromedp.CSS(`#audit-since`), "2001-01-01T00:00"),
		chromedp.SetValue(chromedp.CSS(`#audit-until`), "2001-01-02T00:00"),
		chromedp.Click(chromedp.CSS(`form.audit-filters button[type=submit]`)))
	waitFor(t, ctx, "nothing in 2001", `!!document.querySelector("[data-empty=audit]")`)
	accessible(t, ctx, "audit log, filtered")

	// The account's own activity.
	do(t, ctx, chromedp.Navigate(s.url+"/settings/security"))
	waitFor(t, ctx, "the account's activity", `!!document.querySelector("#activity-h") &&
		!!document.querySelector("tr[data-audit=sign_in]")`)
	accessible(t, ctx, "account activity")

	// A plain member: no link, and the address says why.
	bctx := page(t)
	signIn(t, bctx, s, bob)
	do(t, bctx, chromedp.Navigate(base+"/settings/organization"), chromedp.WaitVisible(chromedp.CSS(`#org-name-h`)))
	require.False(t, eval[bool](t, bctx, `!!document.querySelector("a[data-link=audit]")`))
	do(t, bctx, chromedp.Navigate(base+"/settings/audit"))
	waitFor(t, bctx, "the refusal in words", `!!document.querySelector("[data-refused=audit]")`)
	require.Contains(t, text(t, bctx, `[data-refused=audit]`), "Only the owners and admins")
	accessible(t, bctx, "audit log refused")
}

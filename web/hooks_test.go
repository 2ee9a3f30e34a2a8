package web_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// hooksMember invites b into a's workspace as a member, who accepts.
func (s *server) hooksMember(a, b account) {
	s.t.Helper()
	var inv struct{ Token string }
	s.call("POST", a.ws()+"/members/invite", a.Token, map[string]string{"email": b.Email}, &inv)
	s.call("POST", "/invitations/"+inv.Token+"/accept", b.Token, nil, nil)
}

// TestBrowserAutomations: from the board to the project's automations, an admin writes a rule "when a
// label is put on a card and it is Urgent, move it to the last column": a conditions' syntax error is
// shown as it is typed, the API's refusal of an unknown label beside the conditions, the condition then
// added from the choices; the rule moves a card labelled through the API on the open board, its trace
// names the card; it is edited and turned off; a member reads it without any control; it is deleted.
func TestBrowserAutomations(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("ada@example.com")
	b := s.register("bert@example.com")
	s.hooksMember(a, b)
	prj, cols := s.viewProject(a, "Launch")
	last := cols[len(cols)-1]
	var label struct{ ID string }
	s.call("POST", prj+"/labels", a.Token, map[string]string{"name": "Urgent", "color": "#d32f2f"}, &label)
	card := s.viewCard(a, prj, cols[0], "Fix login", nil)
	board := "/w/" + a.Org + "/" + a.WS + "/p/" + strings.TrimPrefix(prj, a.ws()+"/projects/")

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+board), chromedp.WaitVisible(chromedp.CSS(`a.automations-link`)),
		chromedp.Click(chromedp.CSS(`a.automations-link`)))
	waitFor(t, ctx, "the automations", `!!document.querySelector('[data-empty="rules"]')`)
	accessible(t, ctx, "automations")

	clickText(t, ctx, "New rule")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#new-rule-name`)),
		chromedp.SendKeys(chromedp.CSS(`#new-rule-name`), "Urgent to done"))
	choose(t, ctx, "#new-rule-trigger", "task_labeled")
	choose(t, ctx, "#new-rule-action", "move_card")
	choose(t, ctx, "#new-rule-param", last)
	settingsSetValue(t, ctx, "#new-rule-conditions", `{"labelId": `)
	check := `document.querySelector('[data-check="conditions"]').textContent`
	waitFor(t, ctx, "the syntax error", check+`.includes("Not valid JSON")
		&& document.querySelector("#new-rule-conditions").getAttribute("aria-invalid") === "true"
		&& [...document.querySelectorAll("button")].find(b => b.textContent.trim() === "Create the rule").disabled`)
	accessible(t, ctx, "new rule, a syntax error")
	shot(t, ctx, "automation-new-rule", 1280, 900)
	settingsSetValue(t, ctx, "#new-rule-conditions", `{"labelId": "0190a3c4-0000-7000-8000-000000000000"}`)
	waitFor(t, ctx, "the syntax right", check+`.includes("The syntax is right")`)
	clickText(t, ctx, "Create the rule")
	waitFor(t, ctx, "the API's refusal beside the conditions", check+`.includes("not a label of this project")`)
	var rules []map[string]any
	s.call("GET", prj+"/automations", a.Token, nil, &rules)
	require.Empty(t, rules)

	settingsSetValue(t, ctx, "#new-rule-conditions", `{}`)
	choose(t, ctx, ".add-condition label:first-child select", "labelId")
	choose(t, ctx, ".add-condition label:nth-child(2) select", label.ID)
	clickText(t, ctx, "Add the condition")
	waitFor(t, ctx, "the condition written",
		`document.querySelector("#new-rule-conditions").value.includes(`+jsString(label.ID)+`)`)
	clickText(t, ctx, "Create the rule")
	waitFor(t, ctx, "the rule listed",
		`!!document.querySelector("[data-rule-id]") && !document.querySelector("#new-rule-name")`)
	require.Contains(t, text(t, ctx, ".rule-words"), "a label is put on a card")
	require.Contains(t, text(t, ctx, ".rule-words"), "Urgent")
	accessible(t, ctx, "automations with a rule")
	var rule struct {
		ID, Name, Trigger string
		Enabled           bool
		Conditions        map[string]any
		Action            map[string]any
	}
	s.call("GET", prj+"/automations", a.Token, nil, &rules)
	require.Len(t, rules, 1)
	s.call("GET", prj+"/automations/"+rules[0]["id"].(string), a.Token, nil, &rule)
	require.Equal(t, "task_labeled", rule.Trigger)
	require.True(t, rule.Enabled)
	require.Equal(t, map[string]any{"labelId": label.ID}, rule.Conditions)
	require.Equal(t, map[string]any{"type": "move_card", "columnId": last}, rule.Action)

	// Labelled through the API, the card moves on the open board: the worker ran the rule.
	do(t, ctx, chromedp.Click(chromedp.CSS(`main a[href="`+board+`"]`)))
	cardIn := func(col string) string {
		return `!!document.querySelector('[data-column-id="` + col + `"] [data-card-id="` + card.ID + `"]')`
	}
	waitFor(t, ctx, "the card in the first column", cardIn(cols[0]))
	s.call("POST", prj+"/cards/"+card.ID+"/labels/"+label.ID, a.Token, nil, nil)
	waitFor(t, ctx, "the card moved by the rule", cardIn(last))
	require.Equal(t, last, s.cardsByTitle(a, prj)["Fix login"].ColumnID)

	do(t, ctx, chromedp.Click(chromedp.CSS(`a.automations-link`)))
	waitFor(t, ctx, "the rule", `!!document.querySelector("[data-rule-id]")`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-rule-id] a[href$="/automations/`+rule.ID+`"]`)))
	waitFor(t, ctx, "its trace", `!!document.querySelector('tr[data-trace-result="applied"]')`)
	row := text(t, ctx, `tr[data-trace-result="applied"]`)
	require.Contains(t, row, "Fix login")
	require.Contains(t, row, "Matched and acted")
	require.True(t, eval[bool](t, ctx, `!!document.querySelector('tr[data-trace-result="applied"] time[datetime]')`))
	accessible(t, ctx, "automation rule")
	shot(t, ctx, "automation-rule", 1280, 800)

	clickText(t, ctx, "Edit the rule")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#edit-rule-name`)))
	accessible(t, ctx, "edit rule")
	settingsSetValue(t, ctx, "#edit-rule-name", "Urgent cards to done")
	clickText(t, ctx, "Save the rule")
	waitFor(t, ctx, "the rule saved", `document.querySelector("h1")?.textContent.includes("Urgent cards to done")`)
	clickText(t, ctx, "Turn off Urgent cards to done")
	waitFor(t, ctx, "the rule off", `document.querySelector("h1 .tag").textContent === "Off"`)
	s.call("GET", prj+"/automations/"+rule.ID, a.Token, nil, &rule)
	require.Equal(t, "Urgent cards to done", rule.Name)
	require.False(t, rule.Enabled)

	// A member reads the rules and what they did, without a control.
	bctx := page(t)
	signIn(t, bctx, s, b)
	do(t, bctx, chromedp.Navigate(s.url+board+"/automations"))
	waitFor(t, bctx, "the rules, read only", `!!document.querySelector("[data-rule-id]")`)
	noControl := `![...document.querySelectorAll("main button")].some(b =>
		/New rule|Turn|Delete|Edit/.test(b.textContent))`
	require.True(t, eval[bool](t, bctx, noControl))
	accessible(t, bctx, "automations, read only")
	do(t, bctx, chromedp.Navigate(s.url+board+"/automations/"+rule.ID))
	waitFor(t, bctx, "the trace, read only", `!!document.querySelector('tr[data-trace-result="applied"]')`)
	require.True(t, eval[bool](t, bctx, noControl))

	clickText(t, ctx, "Delete Urgent cards to done")
	confirm(t, ctx, "delete rule dialog")
	waitFor(t, ctx, "no rule left", `!!document.querySelector('[data-empty="rules"]')`)
	s.call("GET", prj+"/automations", a.Token, nil, &rules)
	require.Empty(t, rules)
}

// receiver is a local webhook receiver: it counts requests and keeps the last one.
type receiver struct {
	srv  *httptest.Server
	hits atomic.Int32
	mu   sync.Mutex
	head http.Header
	body []byte
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.head, r.body = req.Header.Clone(), b
		r.mu.Unlock()
		r.hits.Add(1)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// signedWith says whether the last request was signed with secret (docs/webhooks.md).
func (r *receiver) signedWith(secret string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	_, _ = fmt.Fprintf(mac, "%s.%s.%s", r.head.Get("webhook-id"), r.head.Get("webhook-timestamp"), r.body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, s := range strings.Fields(r.head.Get("webhook-signature")) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return true
		}
	}
	return false
}

// TestBrowserWebhooks: from the workspace settings an admin creates a webhook to a local receiver, its
// secret shown once beside the verification example; its events are changed, it is turned off and on; a
// test ping reaches the receiver, signed with that secret, and is listed with its answer's code; it is
// redelivered (a second request, two attempts); the secret is rotated (a new one shown); a member sees no
// webhook control; the webhook is deleted.
func TestBrowserWebhooks(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("hana@example.com")
	b := s.register("ivo@example.com")
	s.hooksMember(a, b)
	rcv := newReceiver(t)

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/settings/workspace"))
	waitFor(t, ctx, "the webhooks link", `!!document.querySelector('main a[href$="/webhooks"]')`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`main a[href$="/webhooks"]`)))
	waitFor(t, ctx, "the webhooks", `!!document.querySelector('[data-empty="webhooks"]')`)
	accessible(t, ctx, "webhooks")

	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#new-hook-url`), rcv.srv.URL+"/hook"),
		chromedp.SendKeys(chromedp.CSS(`#new-hook-description`), "Test receiver"),
		chromedp.Click(chromedp.CSS(`#new-hook-event-card_created`)),
		chromedp.Click(chromedp.CSS(`#new-hook-event-card_moved`)))
	clickText(t, ctx, "Create the webhook")
	waitFor(t, ctx, "the secret", `document.querySelector("code.secret")?.dataset.secret?.startsWith("whsec_")`)
	secret := eval[string](t, ctx, `document.querySelector("code.secret").dataset.secret`)
	require.Contains(t, text(t, ctx, "pre.code"), `h.Get("webhook-signature")`)
	accessible(t, ctx, "webhook secret")
	shot(t, ctx, "webhook-secret", 1280, 800)
	var hooks []struct {
		ID, URL, Description string
		Events               []string
		Enabled              bool
	}
	s.call("GET", a.ws()+"/webhooks", a.Token, nil, &hooks)
	require.Len(t, hooks, 1)
	require.Equal(t, rcv.srv.URL+"/hook", hooks[0].URL)
	require.Equal(t, []string{"card_created", "card_moved"}, hooks[0].Events)
	hook := a.ws() + "/webhooks/" + hooks[0].ID

	clickText(t, ctx, "Open the webhook")
	waitFor(t, ctx, "the webhook", `document.querySelector("h1")?.textContent.startsWith("Webhook to") &&
		!!document.querySelector('[data-empty="deliveries"]')`)
	require.False(t, eval[bool](t, ctx, `!!document.querySelector("code.secret")`), "the secret is shown once")
	accessible(t, ctx, "webhook")

	clickText(t, ctx, "Edit the webhook")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#edit-hook-event-comment_added`)))
	accessible(t, ctx, "edit webhook")
	do(t, ctx, chromedp.Click(chromedp.CSS(`#edit-hook-event-card_created`)),
		chromedp.Click(chromedp.CSS(`#edit-hook-event-comment_added`)))
	clickText(t, ctx, "Save the webhook")
	waitFor(t, ctx, "the events saved",
		`document.querySelector("[data-events]")?.textContent === "Card moved, Comment added"`)
	var got struct {
		Events  []string
		Enabled bool
	}
	s.call("GET", hook, a.Token, nil, &got)
	require.Equal(t, []string{"card_moved", "comment_added"}, got.Events)

	clickText(t, ctx, "Turn off")
	waitFor(t, ctx, "turned off", `document.querySelector("[data-enabled]").dataset.enabled === "false"`)
	s.call("GET", hook, a.Token, nil, &got)
	require.False(t, got.Enabled)
	clickText(t, ctx, "Turn on")
	waitFor(t, ctx, "turned on", `document.querySelector("[data-enabled]").dataset.enabled === "true"`)
	s.call("GET", hook, a.Token, nil, &got)
	require.True(t, got.Enabled)

	clickText(t, ctx, "Send a test ping")
	waitFor(t, ctx, "the ping delivered", `(() => { const r = document.querySelector('tr[data-status="succeeded"]');
		return !!r && r.querySelector("[data-code]")?.textContent === "200" && r.textContent.includes("Ping"); })()`)
	require.EqualValues(t, 1, rcv.hits.Load())
	require.True(t, rcv.signedWith(secret), "the ping is signed with the secret shown")
	accessible(t, ctx, "webhook deliveries")
	shot(t, ctx, "webhook-deliveries", 1280, 900)

	clickText(t, ctx, "Redeliver")
	require.Eventually(t, func() bool { return rcv.hits.Load() == 2 }, 30*time.Second, 50*time.Millisecond)
	waitFor(t, ctx, "the redelivery listed", `(() => { const r = document.querySelector('tr[data-status="succeeded"]');
		return !!r && r.querySelector("[data-attempts]").textContent === "2"; })()`)
	var deliveries []struct {
		Event          string
		Status         string
		Attempts       int
		ResponseStatus *int
	}
	s.call("GET", hook+"/deliveries", a.Token, nil, &deliveries)
	require.Len(t, deliveries, 1)
	require.Equal(t, "ping", deliveries[0].Event)
	require.Equal(t, 2, deliveries[0].Attempts)
	require.Equal(t, 200, *deliveries[0].ResponseStatus)

	clickText(t, ctx, "Rotate the secret")
	confirm(t, ctx, "rotate secret dialog")
	waitFor(t, ctx, "the new secret", `document.querySelector("code.secret")?.dataset.secret?.startsWith("whsec_") &&
		document.querySelector("code.secret").dataset.secret !== `+jsString(secret))
	rotated := eval[string](t, ctx, `document.querySelector("code.secret").dataset.secret`)
	accessible(t, ctx, "rotated secret")
	clickText(t, ctx, "Send a test ping")
	require.Eventually(t, func() bool { return rcv.hits.Load() == 3 }, 30*time.Second, 50*time.Millisecond)
	require.True(t, rcv.signedWith(rotated), "signed with the new secret")
	require.True(t, rcv.signedWith(secret), "and with the old one, for a day")

	// A member sees no webhook control: no link in the settings, a message instead of the screens.
	bctx := page(t)
	signIn(t, bctx, s, b)
	do(t, bctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/settings/workspace"))
	waitFor(t, bctx, "the settings", `document.querySelector("main").textContent.includes("Only its admins")`)
	require.False(t, eval[bool](t, bctx, `!!document.querySelector('main a[href$="/webhooks"]')`))
	for _, path := range []string{"/webhooks", "/webhooks/" + hooks[0].ID} {
		do(t, bctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+path))
		waitFor(t, bctx, "the message", `!!document.querySelector('[data-empty="not-admin"]')`)
		require.False(t, eval[bool](t, bctx, `!!document.querySelector("main form, main button, main input")`))
	}
	accessible(t, bctx, "webhooks, not an admin")

	clickText(t, ctx, "Done")
	clickText(t, ctx, "Delete the webhook")
	confirm(t, ctx, "delete webhook dialog")
	waitFor(t, ctx, "no webhook left", `!!document.querySelector('[data-empty="webhooks"]')`)
	s.call("GET", a.ws()+"/webhooks", a.Token, nil, &hooks)
	require.Empty(t, hooks)
}

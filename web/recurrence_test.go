package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserRepeatCard: in Paris's time zone, a person makes a card repeat weekly on Mondays and
// Thursdays from the card's Repeat section (the time zone defaults to the browser's), sees the board
// mark the card as repeating, and stops it through the confirmation dialog.
func TestBrowserRepeatCard(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("rae@example.com")
	prj, card := s.projectWithCard(a, "Chores", map[string]any{"title": "Water the plants"})
	rec := a.ws() + "/projects/" + prj + "/cards/" + card + "/recurrence"

	ctx := page(t)
	do(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{
			TimezoneID: "Europe/Paris"})
		return err
	}))
	signIn(t, ctx, s, a)
	visit := func(path string) {
		t.Helper()
		eval[bool](t, ctx, `(() => { history.pushState(null, "", `+jsString(path)+`);
			dispatchEvent(new PopStateEvent("popstate")); return true; })()`)
	}
	board := "/w/" + a.Org + "/" + a.WS + "/p/" + prj
	visit(board + "?card=" + card)
	waitFor(t, ctx, "the Repeat section", `document.querySelector("#repeat-title + p")?.textContent
		.includes("does not repeat")`)
	accessible(t, ctx, "card without repeat")

	settingsSetValue(t, ctx, `.repeat-form select[name=kind]`, "weekly")
	waitFor(t, ctx, "the days", `!!document.querySelector(".repeat-form input[name=day-TH]")`)
	require.Equal(t, "Europe/Paris", eval[string](t, ctx,
		`document.querySelector(".repeat-form input[name=timeZone]").value`))
	eval[bool](t, ctx, `(() => { document.querySelector(".repeat-form input[name=day-TH]").click(); return true; })()`)
	settingsClick(t, ctx, `.repeat-form button`, "Repeat")
	waitFor(t, ctx, "the summary", `document.querySelector(".repeat-summary")?.textContent
		.includes("FREQ=WEEKLY;BYDAY=MO,TH")`)
	accessible(t, ctx, "card repeating")

	var got struct {
		Rule, TimeZone, Mode string
		Stopped              bool
	}
	s.call("GET", rec, a.Token, nil, &got)
	require.Equal(t, "FREQ=WEEKLY;BYDAY=MO,TH", got.Rule)
	require.Equal(t, "Europe/Paris", got.TimeZone)
	require.Equal(t, "on_schedule", got.Mode)

	waitFor(t, ctx, "the board's marker", `!!document.querySelector(`+jsString(`[data-card-id="`+card+`"] .repeats`)+`)`)

	settingsClick(t, ctx, `.card-detail button`, "Stop repeating")
	waitFor(t, ctx, "the dialog", `!!document.querySelector("dialog.confirm[open]")`)
	accessible(t, ctx, "stop repeating dialog")
	settingsClick(t, ctx, `dialog.confirm[open] button`, "Stop repeating")
	waitFor(t, ctx, "stopped", `document.querySelector("#repeat-title + p")?.textContent.includes("was stopped")`)
	s.call("GET", rec, a.Token, nil, &got)
	require.True(t, got.Stopped)
	waitFor(t, ctx, "the marker gone", `!document.querySelector(`+jsString(`[data-card-id="`+card+`"] .repeats`)+`)`)
}

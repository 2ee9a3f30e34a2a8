package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserDueDateWestOfUTC: in Los Angeles's time zone, a card due on 2 March 2030 (midnight UTC, as
// the API has it) shows 2 March on the board, in the card's detail, the list, the calendar and My work,
// not the 1st; a day picked in the card's detail is saved as that day's midnight UTC.
func TestBrowserDueDateWestOfUTC(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("lou@example.com")
	var me struct{ User struct{ ID string } }
	s.call("GET", "/auth/me", a.Token, nil, &me)
	prj, card := s.projectWithCard(a, "Launch", map[string]any{"title": "Ship it", "dueDate": "2030-03-02T00:00:00Z",
		"assigneeId": me.User.ID})
	// What the page shows for 2 March 2030, in its own language.
	shown := `new Date(Date.UTC(2030, 2, 2)).toLocaleDateString(undefined,
		{year: "numeric", month: "short", day: "numeric", timeZone: "UTC"})`

	ctx := page(t)
	do(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{
			TimezoneID: "America/Los_Angeles"})
		return err
	}))
	signIn(t, ctx, s, a)
	require.Equal(t, "America/Los_Angeles", eval[string](t, ctx, `Intl.DateTimeFormat().resolvedOptions().timeZone`))
	// Midnight UTC is still the 1st in Los Angeles: the test would see the 1st if the page used local time.
	require.Equal(t, 1, eval[int](t, ctx, `new Date("2030-03-02T00:00:00Z").getDate()`))

	// Moving within the app (as its links do), so the page keeps one workspace feed open.
	visit := func(path string) {
		t.Helper()
		eval[bool](t, ctx, `(() => { history.pushState(null, "", `+jsString(path)+`);
			dispatchEvent(new PopStateEvent("popstate")); return true; })()`)
	}
	visit("/w/" + a.Org + "/" + a.WS + "/my-work")
	waitFor(t, ctx, "My work's due date", `[...document.querySelectorAll(".due")].some(e => e.textContent === "Due " + `+
		shown+`)`)

	visit("/w/" + a.Org + "/" + a.WS + "/p/" + prj)
	waitFor(t, ctx, "the board's due date", `document.querySelector("[data-card-id] .due")?.textContent === "Due " + `+
		shown)
	accessible(t, ctx, "board in Los Angeles")
	visit("/w/" + a.Org + "/" + a.WS + "/p/" + prj + "?card=" + card)
	waitFor(t, ctx, "the card's due date", `document.querySelector("input[name=dueDate]")?.value === "2030-03-02"`)

	visit("/w/" + a.Org + "/" + a.WS + "/p/" + prj + "/list")
	waitFor(t, ctx, "the list's due date", `document.querySelector("td time.due")
		?.getAttribute("datetime") === "2030-03-02" && document.querySelector("td time.due").textContent === `+shown)

	visit("/w/" + a.Org + "/" + a.WS + "/p/" + prj + "/calendar?date=2030-03-01")
	waitFor(t, ctx, "the calendar's day", `!!document.querySelector('td[data-day="2030-03-02"] .cal-cards') &&
		!document.querySelector('td[data-day="2030-03-01"] .cal-cards')`)
	accessible(t, ctx, "calendar in Los Angeles")

	// A day picked is that day's midnight UTC.
	visit("/w/" + a.Org + "/" + a.WS + "/p/" + prj + "?card=" + card)
	settingsSetValue(t, ctx, `input[name=dueDate]`, "2030-03-05")
	settingsClick(t, ctx, `.card-form button`, "Save")
	waitFor(t, ctx, "the day saved", `(async () => (await `+settingsFetch(a.ws()+"/projects/"+prj+"/cards/"+card)+
		`).dueDate === "2030-03-05T00:00:00Z")()`)
	waitFor(t, ctx, "the day shown", `document.querySelector("input[name=dueDate]").value === "2030-03-05"`)
	var got struct{ DueDate time.Time }
	s.call("GET", a.ws()+"/projects/"+prj+"/cards/"+card, a.Token, nil, &got)
	require.Equal(t, "2030-03-05", got.DueDate.UTC().Format(time.DateOnly))
}

package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserTimeTracking: on a card's detail, an estimate is saved, the timer started (the shell shows it
// on every page) and stopped from the shell, time logged by hand, edited and deleted; the board's tile
// shows the card's total; the time report lists it and offers its CSV.
func TestBrowserTimeTracking(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("tess@example.com")
	prj, card := s.projectWithCard(a, "Launch", map[string]any{"title": "Write the post"})
	cardAPI := a.ws() + "/projects/" + prj + "/cards/" + card
	ctx := page(t)
	signIn(t, ctx, s, a)
	board := "/w/" + a.Org + "/" + a.WS + "/p/" + prj
	do(t, ctx, chromedp.Navigate(s.url+board+"?card="+card), chromedp.WaitVisible(chromedp.CSS(`#time-estimate`)))
	waitFor(t, ctx, "the empty entries", `document.body.textContent.includes("No time logged yet")`)
	accessible(t, ctx, "card time")

	// The estimate, read back through the API.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#time-estimate`), "2h 30m"))
	clickText(t, ctx, "Save estimate")
	var got struct {
		EstimateSeconds  *int `json:"estimateSeconds"`
		TimeSpentSeconds int  `json:"timeSpentSeconds"`
	}
	waitFor(t, ctx, "the estimate saved",
		`document.querySelector(".time-summary")?.textContent.includes("of an estimate of 2 h 30 min")`)
	s.call("GET", cardAPI, a.Token, nil, &got)
	require.NotNil(t, got.EstimateSeconds)
	require.Equal(t, 9000, *got.EstimateSeconds)

	// The timer: started on the card, shown in the shell, stopped there.
	clickText(t, ctx, "Start timer")
	waitFor(t, ctx, "the shell's timer", `document.querySelector(".timer-indicator a")?.textContent === "Write the post"`)
	var timer struct {
		Running *struct {
			CardTitle string `json:"cardTitle"`
		} `json:"running"`
	}
	s.call("GET", "/timer", a.Token, nil, &timer)
	require.NotNil(t, timer.Running)
	accessible(t, ctx, "running timer")
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/time"))
	waitFor(t, ctx, "the timer on another page", `document.querySelector(".timer-indicator button") !== null`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`.timer-indicator button`)))
	waitFor(t, ctx, "the timer stopped", `document.querySelector(".timer-indicator") === null`)
	s.call("GET", "/timer", a.Token, nil, &timer)
	require.Nil(t, timer.Running)

	// Time logged by hand, then edited; the total follows.
	do(t, ctx, chromedp.Navigate(s.url+board+"?card="+card),
		chromedp.WaitVisible(chromedp.CSS(`.time-add input[name=duration]`)),
		chromedp.SendKeys(chromedp.CSS(`.time-add input[name=duration]`), "1h 15m"),
		chromedp.SendKeys(chromedp.CSS(`.time-add input[name=note]`), "first draft"))
	clickText(t, ctx, "Log time")
	waitFor(t, ctx, "the entry listed", entryListed("first draft"))
	s.call("GET", cardAPI, a.Token, nil, &got)
	require.GreaterOrEqual(t, got.TimeSpentSeconds, 4500)
	base := got.TimeSpentSeconds - 4500 // the timer's few seconds
	do(t, ctx, chromedp.Click(chromedp.CSS(`.time-entries button[aria-label^="Edit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.time-entries form input[name=duration]`)),
		chromedp.SetValue(chromedp.CSS(`.time-entries form input[name=duration]`), "45m"))
	accessible(t, ctx, "editing a time entry")
	do(t, ctx, chromedp.Click(chromedp.CSS(`.time-entries form button[type=submit]`)))
	waitFor(t, ctx, "the edited entry", entryListed("45 min"))
	s.call("GET", cardAPI, a.Token, nil, &got)
	require.Equal(t, base+2700, got.TimeSpentSeconds)

	// The board's tile shows the total of the estimate.
	do(t, ctx, chromedp.Navigate(s.url+board), chromedp.WaitVisible(chromedp.CSS(`.card .card-time`)))
	require.Contains(t, text(t, ctx, `.card .card-time`), "of 2 h 30 min")

	// The report lists it and links its CSV.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/time"))
	waitFor(t, ctx, "the report's row",
		`[...document.querySelectorAll(".report-rows td")].some(td => td.textContent === "Write the post")`)
	accessible(t, ctx, "time report")
	href := eval[string](t, ctx, `document.querySelector('a[download="time-report.csv"]').getAttribute("href")`)
	require.True(t, strings.HasPrefix(href, a.ws()+"/time-report/export?"), href)
	csv := eval[string](t, ctx, `fetch(document.querySelector('a[download="time-report.csv"]').href).then(r => r.text())`)
	require.Contains(t, csv, "Write the post")

	// Deleting the entry, confirmed, takes it off the total.
	do(t, ctx, chromedp.Navigate(s.url+board+"?card="+card), chromedp.WaitVisible(chromedp.CSS(`.time-entries li`)))
	waitFor(t, ctx, "the entries", entryListed("first draft"))
	do(t, ctx, chromedp.Click(chromedp.CSS(`.time-entries li button.danger`)))
	confirm(t, ctx, "delete a time entry")
	waitFor(t, ctx, "the entry gone", "!"+entryListed("first draft"))
	s.call("GET", cardAPI, a.Token, nil, &got)
	require.Equal(t, base, got.TimeSpentSeconds)
}

// entryListed is a condition: an entry of the card's time entries shows text.
func entryListed(text string) string {
	return `[...document.querySelectorAll(".time-entries li")].some(li => li.textContent.includes(` + jsString(text) + `))`
}

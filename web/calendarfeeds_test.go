package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// getFeed fetches a calendar feed's URL without credentials, as a calendar application does.
func getFeed(t *testing.T, feedURL string) (int, string) {
	t.Helper()
	res, err := http.Get(feedURL)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// TestBrowserCalendarFeeds: the account's calendar feeds tab creates a personal feed whose URL, shown
// once, serves the card assigned to the person as an event; the project settings create a project feed;
// both are listed, and a feed revoked after confirming answers 404.
func TestBrowserCalendarFeeds(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("cleo@example.com")
	var me struct {
		User struct{ ID string } `json:"user"`
	}
	s.call("GET", "/auth/me", a.Token, nil, &me)
	prj, card := s.projectWithCard(a, "Launch", map[string]any{"title": "Print the posters"})
	s.call("PATCH", a.ws()+"/projects/"+prj+"/cards/"+card, a.Token, map[string]any{"assigneeId": me.User.ID,
		"dueDate": "2030-05-06T00:00:00Z"}, nil)
	ctx := page(t)
	signIn(t, ctx, s, a)

	do(t, ctx, chromedp.Navigate(s.url+"/settings/calendar"), chromedp.WaitVisible(chromedp.CSS(`#feed-name`)))
	waitFor(t, ctx, "the empty list", `document.querySelector("main").textContent.includes("No calendar feed yet.")`)
	accessible(t, ctx, "calendar feeds, none yet")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#feed-name`), "Phone"),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)))
	waitFor(t, ctx, "the feed's URL, shown once", `!!document.querySelector("code.secret[data-feed-url]")`)
	accessible(t, ctx, "calendar feed created")
	feedURL := eval[string](t, ctx, `document.querySelector("code.secret").dataset.feedUrl`)
	require.True(t, strings.HasPrefix(feedURL, s.url+"/calendar/pilot_cal_"), feedURL)
	require.True(t, strings.HasSuffix(feedURL, ".ics"), feedURL)
	code, body := getFeed(t, feedURL)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "SUMMARY:Print the posters\r\n")
	require.Contains(t, body, "DTSTART;VALUE=DATE:20300506\r\n")
	waitFor(t, ctx, "the feed listed", `document.querySelectorAll("tr[data-feed-id]").length === 1 &&
		document.querySelector("tr[data-feed-id]").textContent.includes("Cards assigned to you")`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`.token-shown button:not(.secondary)`)))
	waitFor(t, ctx, "the URL no longer shown", `!document.querySelector("code.secret")`)

	// A project feed, from the project's settings.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/p/"+prj+"/settings"))
	waitFor(t, ctx, "the subscribe section", `!!document.querySelector("#settings-calendar")`)
	// A click through the page's script: the section is the last of a long page.
	require.True(t, eval[bool](t, ctx, `document.querySelector("section[aria-labelledby=settings-calendar] button")
		.click() === undefined`))
	waitFor(t, ctx, "the project feed's URL", `!!document.querySelector("code.secret[data-feed-url]")`)
	accessible(t, ctx, "project calendar feed created")
	projectURL := eval[string](t, ctx, `document.querySelector("code.secret").dataset.feedUrl`)
	code, body = getFeed(t, projectURL)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "X-WR-CALNAME:Pilot: Launch\r\n")

	// Both listed; the personal one revoked after confirming.
	do(t, ctx, chromedp.Navigate(s.url+"/settings/calendar"))
	waitFor(t, ctx, "two feeds listed", `document.querySelectorAll("tr[data-feed-id]").length === 2 &&
		document.querySelector("main").textContent.includes("Launch")`)
	accessible(t, ctx, "calendar feeds listed")
	do(t, ctx, chromedp.Click(chromedp.CSS(`tr[data-feed-id]:last-child button`)))
	confirm(t, ctx, "revoke a calendar feed, confirming")
	waitFor(t, ctx, "one feed left", `document.querySelectorAll("tr[data-feed-id]").length === 1`)
	code, _ = getFeed(t, feedURL)
	require.Equal(t, http.StatusNotFound, code)
	code, _ = getFeed(t, projectURL)
	require.Equal(t, http.StatusOK, code)
}

package web_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

// apiCard is what the views' tests read of a card through the API.
type apiCard struct {
	ID, Title, ColumnID, Priority string
	DueDate                       *time.Time
	AssigneeID                    *string
}

// viewProject creates a project over the API for a, with its columns' ids, in order.
func (s *server) viewProject(a account, name string) (path string, cols []string) {
	s.t.Helper()
	var prj struct{ ID string }
	s.call("POST", a.ws()+"/projects", a.Token, map[string]string{"name": name}, &prj)
	var cs []struct {
		ID    string
		Order int
	}
	s.call("GET", a.ws()+"/projects/"+prj.ID+"/columns", a.Token, nil, &cs)
	for i := range cs {
		for j := range cs {
			if cs[j].Order == i {
				cols = append(cols, cs[j].ID)
			}
		}
	}
	require.Len(s.t, cols, len(cs))
	return a.ws() + "/projects/" + prj.ID, cols
}

// viewCard creates a card in a column with the fields of patch (priority, dueDate, assigneeId…).
func (s *server) viewCard(a account, prj, col, title string, patch map[string]any) apiCard {
	s.t.Helper()
	var c apiCard
	s.call("POST", prj+"/columns/"+col+"/cards", a.Token, map[string]string{"title": title}, &c)
	if len(patch) > 0 {
		s.call("PATCH", prj+"/cards/"+c.ID, a.Token, patch, &c)
	}
	return c
}

func (s *server) cardsByTitle(a account, prj string) map[string]apiCard {
	s.t.Helper()
	var cards []apiCard
	s.call("GET", prj+"/cards", a.Token, nil, &cards)
	out := map[string]apiCard{}
	for _, c := range cards {
		out[c.Title] = c
	}
	return out
}

// signInTo signs a in through the sign-in page, which then opens next.
func signInTo(t *testing.T, ctx context.Context, s *server, a account, next string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in?next="+url.QueryEscape(next)),
		chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter))
	waitFor(t, ctx, "the page after signing in", `location.pathname !== "/sign-in"`)
}

// appPath is the web app's path of a project's API path (/orgs/o/workspaces/w/projects/id → /w/o/w/p/id).
func appPath(a account, prj string) string {
	u, err := url.Parse(prj)
	if err != nil {
		panic(err)
	}
	return "/w/" + a.Org + "/" + a.WS + "/p/" + u.Path[len(a.ws()+"/projects/"):]
}

// TestBrowserListView: the list view of a project: two cards selected and moved to another column at
// once (the page says "2 moved", the API has them there); the sort and a filter chosen on the page are in
// the URL and restored after a reload.
func TestBrowserListView(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("lena@example.com")
	prj, cols := s.viewProject(a, "Launch")
	s.viewCard(a, prj, cols[0], "Write the brief", map[string]any{"priority": "high", "dueDate": "2030-03-02T00:00:00Z"})
	s.viewCard(a, prj, cols[0], "Book the venue", map[string]any{"priority": "high"})
	s.viewCard(a, prj, cols[0], "Print posters", map[string]any{"priority": "low"})
	s.viewCard(a, prj, cols[1], "Hire a band", nil)
	list := appPath(a, prj) + "/list"

	ctx := page(t)
	signInTo(t, ctx, s, a, list)
	waitFor(t, ctx, "the list's four rows", `document.querySelectorAll(".card-table tbody tr").length === 4`)
	require.Contains(t, text(t, ctx, `.card-table tbody`), "High", "priorities in words")
	require.Equal(t, "page", eval[string](t, ctx,
		`document.querySelector(".view-switcher a[aria-current]").textContent === "List" ? "page" : "other"`))
	accessible(t, ctx, "list")

	// Select two cards and move them to the third column.
	do(t, ctx, chromedp.Click(chromedp.CSS(`input[aria-label="Select Book the venue"]`)),
		chromedp.Click(chromedp.CSS(`input[aria-label="Select Print posters"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.bulk`)))
	require.Contains(t, text(t, ctx, `.bulk`), "2 selected")
	shot(t, ctx, "list", 1440, 900)
	accessible(t, ctx, "list, two cards selected")
	do(t, ctx, chromedp.SetValue(chromedp.CSS(`.bulk select[name=column]`), cols[2]),
		chromedp.Click(chromedp.CSS(`.bulk form:first-child button[type=submit]`)))
	waitFor(t, ctx, "the bulk move's outcome", `document.querySelector(".bulk-result")?.textContent.includes("2 moved")`)
	cards := s.cardsByTitle(a, prj)
	require.Equal(t, cols[2], cards["Book the venue"].ColumnID)
	require.Equal(t, cols[2], cards["Print posters"].ColumnID)
	require.Equal(t, cols[0], cards["Write the brief"].ColumnID, "an unselected card stays")

	// Sort by title, descending (two clicks), and keep only the high priority cards.
	do(t, ctx, chromedp.Click(chromedp.CSS(`th:nth-child(2) button.sort`)))
	waitFor(t, ctx, "sorted by title",
		`document.querySelector("th:nth-child(2)").getAttribute("aria-sort") === "ascending"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`th:nth-child(2) button.sort`)))
	waitFor(t, ctx, "sorted by title, descending",
		`document.querySelector("th:nth-child(2)").getAttribute("aria-sort") === "descending"`)
	do(t, ctx, chromedp.SetValue(chromedp.CSS(`.filters select[name=priority]`), "high"))
	eval[bool](t, ctx,
		`document.querySelector(".filters select[name=priority]").dispatchEvent(new Event("change", {bubbles: true}))`)
	rows := `[...document.querySelectorAll(".card-table tbody tr td:nth-child(2)")].map(td => td.textContent).join("|")`
	waitFor(t, ctx, "the high priority cards, by title descending", rows+` === "Write the brief|Book the venue"`)
	q := eval[string](t, ctx, `location.search`)
	v, err := url.ParseQuery(q[1:])
	require.NoError(t, err)
	require.Equal(t, url.Values{"sort": {"title"}, "dir": {"desc"}, "priority": {"high"}}, v)

	do(t, ctx, chromedp.Reload())
	waitFor(t, ctx, "the same view after a reload", rows+` === "Write the brief|Book the venue" &&
		document.querySelector(".filters select[name=priority]").value === "high" &&
		document.querySelector("th:nth-child(2)").getAttribute("aria-sort") === "descending"`)
	accessible(t, ctx, "list, sorted and filtered")

	// A filter nothing matches says what to do.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`.filters input[name=q]`), "nothing like this"))
	waitFor(t, ctx, "the empty state", `document.querySelector(".list-page").textContent.includes("No card matches")`)

	// The board's filters live in its URL too, beside the open card's.
	do(t, ctx, chromedp.Navigate(s.url+appPath(a, prj)+"?priority=low"))
	waitFor(t, ctx, "the board filtered by the URL", `document.querySelectorAll(".card").length === 1 &&
		document.querySelector(".card").textContent.includes("Print posters") &&
		document.querySelector(".filters label:nth-child(3) select").value === "low"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`.card a`)), chromedp.WaitVisible(chromedp.CSS(`.card-detail`)))
	waitFor(t, ctx, "the filter kept beside the open card", `(() => {
		const q = new URLSearchParams(location.search);
		return q.get("priority") === "low" && !!q.get("card");
	})()`)
}

// TestBrowserMyWork: "My work" shows the person's cards of every project of the workspace, an overdue
// one under Overdue and one without a date under No due date, each linked to its card on its board, and
// not another person's card.
func TestBrowserMyWork(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("mona@example.com")
	b := s.register("noah@example.com")
	var inv struct{ Token string }
	s.call("POST", a.ws()+"/members/invite", a.Token, map[string]string{"email": b.Email}, &inv)
	s.call("POST", "/invitations/"+inv.Token+"/accept", b.Token, nil, nil)
	var me, them struct{ User struct{ ID string } }
	s.call("GET", "/auth/me", a.Token, nil, &me)
	s.call("GET", "/auth/me", b.Token, nil, &them)
	launch, lcols := s.viewProject(a, "Launch")
	tour, tcols := s.viewProject(a, "Tour")
	overdue := s.viewCard(a, launch, lcols[0], "Pay the printer", map[string]any{"assigneeId": me.User.ID,
		"dueDate": "2020-01-06T00:00:00Z"})
	someday := s.viewCard(a, tour, tcols[1], "Plan the encore", map[string]any{"assigneeId": me.User.ID})
	s.viewCard(a, launch, lcols[0], "Tune the guitars", map[string]any{"assigneeId": them.User.ID,
		"dueDate": "2020-01-06T00:00:00Z"})
	s.viewCard(a, launch, lcols[0], "Nobody's task", nil)

	ctx := page(t)
	signInTo(t, ctx, s, a, "/w/"+a.Org+"/"+a.WS)
	waitFor(t, ctx, "the projects", `document.querySelector("h1")?.textContent === "Projects"`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`nav[aria-label=Main] a[href$="/my-work"]`)))
	waitFor(t, ctx, "my work", `!!document.querySelector(".my-group")`)
	require.Equal(t, "Pay the printer", text(t, ctx, `[data-group=overdue] .my-cards a`))
	require.Equal(t, "Plan the encore", text(t, ctx, `[data-group=none] .my-cards a`))
	require.Contains(t, text(t, ctx, `[data-group=overdue]`), "Launch", "the card's project")
	require.NotContains(t, text(t, ctx, `main`), "Tune the guitars")
	require.NotContains(t, text(t, ctx, `main`), "Nobody's task")
	require.Zero(t, eval[int](t, ctx,
		`document.querySelectorAll("[data-group=week] .my-cards li, [data-group=later] .my-cards li").length`))
	require.Equal(t, appPath(a, tour)+"?card="+someday.ID,
		eval[string](t, ctx, `document.querySelector("[data-group=none] .my-cards a").getAttribute("href")`))
	shot(t, ctx, "my-work", 1440, 900)
	accessible(t, ctx, "my work")
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-group=overdue] .my-cards a`)))
	waitFor(t, ctx, "the card on its board",
		`location.search === "?card=`+overdue.ID+`" && !!document.querySelector(".card-detail")`)
}

// TestBrowserCalendar: a project's calendar of due dates opens on the month the URL names; a card dragged
// to another day is due that day (read through the API), Alt+→ on a focused card moves it a day, and the
// week view shows it.
func TestBrowserCalendar(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("olle@example.com")
	prj, cols := s.viewProject(a, "Launch")
	c := s.viewCard(a, prj, cols[0], "Send the invitations", map[string]any{"dueDate": "2030-01-10T00:00:00Z"})
	s.viewCard(a, prj, cols[1], "Choose the menu", nil)

	ctx := page(t)
	signInTo(t, ctx, s, a, appPath(a, prj)+"/calendar?date=2030-01-15")
	waitFor(t, ctx, "the card on its day", `document.querySelector("td[data-day='2030-01-10'] .cal-card")
		?.textContent.includes("Send the invitations")`)
	require.Contains(t, text(t, ctx, `.cal-undated`), "Choose the menu", "a card without a date is listed apart")
	require.Equal(t, int64(7), eval[int64](t, ctx, `document.querySelectorAll("table.calendar thead th").length`))
	shot(t, ctx, "calendar", 1440, 900)
	accessible(t, ctx, "calendar, month")

	// Drag the card to the 17th.
	eval[bool](t, ctx, `(() => {
		const card = document.querySelector("td[data-day='2030-01-10'] .cal-card");
		const day = document.querySelector("td[data-day='2030-01-17']");
		const dt = new DataTransfer();
		card.dispatchEvent(new DragEvent("dragstart", {bubbles: true, dataTransfer: dt}));
		day.dispatchEvent(new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: dt}));
		day.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt}));
		card.dispatchEvent(new DragEvent("dragend", {bubbles: true, dataTransfer: dt}));
		return true;
	})()`)
	waitFor(t, ctx, "the card on the 17th", `!!document.querySelector("td[data-day='2030-01-17'] .cal-card")`)
	dueOf := func() string {
		var got apiCard
		s.call("GET", prj+"/cards/"+c.ID, a.Token, nil, &got)
		require.NotNil(t, got.DueDate)
		return got.DueDate.UTC().Format(time.DateOnly)
	}
	require.Eventually(t, func() bool { return dueOf() == "2030-01-17" }, 10*time.Second, 50*time.Millisecond,
		"the API has the dragged due date")

	// The keyboard: Alt+→ on the focused card moves it to the 18th.
	do(t, ctx, chromedp.Focus(chromedp.CSS(`td[data-day='2030-01-17'] .cal-card`)),
		chromedp.KeyEvent(kb.ArrowRight, chromedp.KeyModifiers(chromedp.ModifierAlt)))
	waitFor(t, ctx, "the card on the 18th", `!!document.querySelector("td[data-day='2030-01-18'] .cal-card")`)
	waitFor(t, ctx, "the focus to follow the card", `document.activeElement?.dataset.cardId === "`+c.ID+`"`)
	require.Eventually(t, func() bool { return dueOf() == "2030-01-18" }, 10*time.Second, 50*time.Millisecond,
		"the API has the due date moved by keyboard")

	// The week view, in the URL.
	do(t, ctx, chromedp.Click(chromedp.CSS(`.toggle button:last-child`)))
	waitFor(t, ctx, "the week view", `document.querySelectorAll("table.calendar.week tbody td").length === 7 &&
		new URLSearchParams(location.search).get("view") === "week"`)
	shot(t, ctx, "calendar-week-390", 390, 844)
	accessible(t, ctx, "calendar, week")
}

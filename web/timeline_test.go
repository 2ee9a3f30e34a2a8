package web_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserProjectRoadmap: a project's roadmap from its view switcher shows its scopes with their dated
// cards and the dated cards outside any scope, as the API has them, each card linking to the board; a project
// without dates (as one made from a draft) shows what to do instead.
func TestBrowserProjectRoadmap(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("ravi@example.com")
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format(time.RFC3339) }
	prj, _ := s.projectWithCard(a, "Launch", map[string]any{"title": "Undated"})
	var cols []struct{ ID string }
	s.call("GET", a.ws()+"/projects/"+prj+"/columns", a.Token, nil, &cols)
	var scope struct{ ID string }
	s.call("POST", a.ws()+"/projects/"+prj+"/scopes", a.Token, map[string]any{"name": "Beta", "startDate": day(0),
		"endDate": day(30)}, &scope)
	cards := a.ws() + "/projects/" + prj + "/columns/" + cols[0].ID + "/cards"
	var inScope, outside struct{ ID string }
	s.call("POST", cards, a.Token, map[string]any{"title": "Invite testers", "scopeId": scope.ID, "startDate": day(2),
		"dueDate": day(9), "priority": "high"}, &inScope)
	s.call("POST", cards, a.Token, map[string]any{"title": "Press kit", "dueDate": day(40)}, &outside)
	empty, _ := s.projectWithCard(a, "From a draft", map[string]any{"title": "No dates here"})

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/p/"+prj))
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`.view-switcher a[href$="/roadmap"]`)),
		chromedp.Click(chromedp.CSS(`.view-switcher a[href$="/roadmap"]`)))
	waitFor(t, ctx, "the roadmap", `document.querySelectorAll(".tl-card").length === 2`)
	var rm struct {
		Scopes []struct {
			ID    string
			Cards []struct{ ID string }
		}
		Unscoped []struct{ ID string }
	}
	s.call("GET", a.ws()+"/projects/"+prj+"/roadmap", a.Token, nil, &rm)
	require.Len(t, rm.Scopes, 1)
	require.Equal(t, inScope.ID, rm.Scopes[0].Cards[0].ID)
	require.Equal(t, outside.ID, rm.Unscoped[0].ID)
	require.Equal(t, []string{inScope.ID}, eval[[]string](t, ctx,
		`[...document.querySelectorAll('[data-scope-id="`+scope.ID+`"] .tl-card')].map(e => e.dataset.cardId)`))
	require.Equal(t, []string{outside.ID}, eval[[]string](t, ctx,
		`[...document.querySelectorAll('[data-scope-id=""] .tl-card')].map(e => e.dataset.cardId)`))
	require.Contains(t, text(t, ctx, `[data-scope-id="`+scope.ID+`"] h2`), "Beta")
	require.Equal(t, "page", eval[string](t, ctx,
		`document.querySelector('.view-switcher a[href$="/roadmap"]').getAttribute("aria-current")`))
	accessible(t, ctx, "project roadmap")
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-card-id="`+inScope.ID+`"] a`)))
	waitFor(t, ctx, "the card on the board", `location.search.includes("card=`+inScope.ID+`")`)

	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/p/"+empty+"/roadmap"))
	waitFor(t, ctx, "the empty roadmap", `!!document.querySelector("[data-empty=roadmap]")`)
	accessible(t, ctx, "project roadmap, empty")
}

// TestBrowserPortfolio: the portfolio from the main navigation shows each project's cards, overdue cards and
// checklist progress as the API sums them; a workspace without projects says what to do.
func TestBrowserPortfolio(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("pia@example.com")
	prj, card := s.projectWithCard(a, "Launch", map[string]any{"title": "Late",
		"dueDate": time.Now().UTC().AddDate(0, 0, -3).Format(time.RFC3339)})
	s.call("POST", a.ws()+"/projects/"+prj+"/cards/"+card+"/checklist", a.Token, map[string]any{"title": "Step"}, nil)
	other, _ := s.projectWithCard(a, "Quiet", map[string]any{"title": "Calm"})

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Click(chromedp.CSS(`nav a[href$="/portfolio"]`)))
	waitFor(t, ctx, "the portfolio", `document.querySelectorAll(".portfolio-table tbody tr").length >= 2`)
	var pf []struct {
		ProjectID string
		CardCount int
		Overdue   int
	}
	s.call("GET", a.ws()+"/projects/portfolio", a.Token, nil, &pf)
	for _, p := range pf {
		row := `.portfolio-table tr[data-project-id="` + p.ProjectID + `"]`
		require.Equal(t, strconv.Itoa(p.CardCount), text(t, ctx, row+` [data-cards]`))
		require.Equal(t, strconv.Itoa(p.Overdue), text(t, ctx, row+` [data-overdue]`))
	}
	require.Equal(t, "1", text(t, ctx, `tr[data-project-id="`+prj+`"] [data-overdue]`))
	require.Equal(t, "0", text(t, ctx, `tr[data-project-id="`+other+`"] [data-overdue]`))
	require.Contains(t, text(t, ctx, `tr[data-project-id="`+prj+`"]`), "0/1")
	accessible(t, ctx, "portfolio")

	b := s.register("noa@example.com")
	var mine []struct{ ID string }
	s.call("GET", b.ws()+"/projects", b.Token, nil, &mine)
	require.Empty(t, mine, "a new workspace has no project")
	bctx := page(t)
	signIn(t, bctx, s, b)
	do(t, bctx, chromedp.Navigate(s.url+"/w/"+b.Org+"/"+b.WS+"/portfolio"))
	waitFor(t, bctx, "the empty portfolio", `!!document.querySelector("[data-empty=portfolio]")`)
	accessible(t, bctx, "portfolio, empty")
}

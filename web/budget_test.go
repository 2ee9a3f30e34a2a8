package web_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

// TestBrowserBudgets measures, in the browser, what docs/web.md promises: the first screen's scripts and
// styles at most 150 KB as sent (gzip), and a board of 500 cards interactive (rendered and painted) less
// than 500 ms after its data arrived. It logs both figures (go test -v).
func TestBrowserBudgets(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("bea@example.com")
	var prj struct{ ID string }
	s.call("POST", a.ws()+"/projects", a.Token, map[string]string{"name": "Big", "templateId": "scrum"}, &prj)
	var cols []struct{ ID string }
	s.call("GET", a.ws()+"/projects/"+prj.ID+"/columns", a.Token, nil, &cols)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range 500 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s.call("POST", a.ws()+"/projects/"+prj.ID+"/columns/"+cols[i%len(cols)].ID+"/cards", a.Token,
				map[string]any{"title": fmt.Sprintf("Card number %d", i), "priority": []string{"low", "medium", "high"}[i%3],
					"checklist": []map[string]any{{"title": "one"}, {"title": "two", "done": i%2 == 0}}}, nil)
		}()
	}
	wg.Wait()

	ctx := page(t)
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)))
	sent := eval[float64](t, ctx, `performance.getEntriesByType("resource").filter(e => /\.(js|css)$/.test(new URL(e.name).pathname))
		.reduce((n, e) => n + e.encodedBodySize, 0)`)
	raw := eval[float64](t, ctx, `performance.getEntriesByType("resource").filter(e => /\.(js|css)$/.test(new URL(e.name).pathname))
		.reduce((n, e) => n + e.decodedBodySize, 0)`)
	t.Logf("first screen: scripts and styles %.1f KB as sent (gzip), %.1f KB decoded", sent/1024, raw/1024)
	require.Positive(t, sent)
	require.LessOrEqual(t, sent, 150.0*1024)

	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname.startsWith("/w/")`)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/p/"+prj.ID))
	waitFor(t, ctx, "500 cards", `document.querySelectorAll(".card").length === 500 && performance.getEntriesByName("board-interactive").length > 0`)
	ms := eval[float64](t, ctx, `performance.measure("board", "board-data", "board-interactive").duration`)
	t.Logf("board of 500 cards: interactive %.0f ms after its data arrived", ms)
	require.Less(t, ms, 500.0)
	shot(t, ctx, "board-500", 1440, 900)
}

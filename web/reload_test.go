package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserManyPageLoadsInOneTab: full page loads one after another in the same tab each open the app.
// Every page follows its workspace's event feed; a page left behind (kept by the browser's back-forward
// cache) must not keep its stream open, or after six of them the browser's connections to the host are
// all taken and the next load waits forever.
func TestBrowserManyPageLoadsInOneTab(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	owner, _ := roughTeam(t, s, "")
	ctx := page(t)
	var prj struct{ ID string }
	s.call("POST", owner.ws()+"/projects", owner.Token, map[string]string{"name": "Loads"}, &prj)
	roughSignIn(t, ctx, s, owner)
	w := "/w/" + owner.Org + "/" + owner.WS
	paths := []string{w + "/p/" + prj.ID, w + "/p/" + prj.ID + "/list", w + "/p/" + prj.ID + "/calendar", w + "/inbox"}
	for i := range 12 {
		do(t, ctx, chromedp.Navigate(s.url+paths[i%len(paths)]))
		waitFor(t, ctx, fmt.Sprintf("page load %d", i+1), `document.querySelector("main h1") !== null`)
	}
}

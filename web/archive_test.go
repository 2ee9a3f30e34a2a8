package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserProjectArchive: a project archived from its settings (confirmed) leaves the projects list;
// its board says it is archived, has no control to add or move a card, and its card opens read-only;
// the projects page's Archived section lists it and restores it, and it is back in the list and
// writable (each checked through the API).
func TestBrowserProjectArchive(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("ines@example.com")
	prj, card := s.projectWithCard(a, "Old launch", map[string]any{"title": "Kept card"})
	s.projectWithCard(a, "Current work", map[string]any{"title": "Busy"})
	base := a.ws() + "/projects/" + prj
	app := s.url + "/w/" + a.Org + "/" + a.WS
	archivedAt := func() string {
		var p struct{ ArchivedAt *string }
		s.call("GET", base, a.Token, nil, &p)
		if p.ArchivedAt == nil {
			return ""
		}
		return *p.ArchivedAt
	}

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(app+"/p/"+prj+"/settings"))
	settingsClick(t, ctx, `button`, "Archive project")
	confirm(t, ctx, "archive project dialog")
	waitFor(t, ctx, "the restore button", `[...document.querySelectorAll("button")].some(b =>
		b.textContent.trim() === "Restore the project")`)
	require.NotEmpty(t, archivedAt())
	require.Contains(t, text(t, ctx, `.archived-note`), "read-only")
	accessible(t, ctx, "archived project's settings")

	// The board: said archived, no add-card form, cards not draggable, the card's detail disabled.
	do(t, ctx, chromedp.Navigate(app+"/p/"+prj+"?card="+card))
	waitFor(t, ctx, "the archived board", `!!document.querySelector(".board-page .archived-banner") &&
		!!document.querySelector("[data-card-id]") && !!document.querySelector(".card-detail")`)
	require.Zero(t, eval[int](t, ctx, `document.querySelectorAll(".add-card").length`))
	require.Equal(t, "false", eval[string](t, ctx, `document.querySelector("[data-card-id]").getAttribute("draggable")`))
	require.True(t, eval[bool](t, ctx, `document.querySelector("#card-title").matches(":disabled") &&
		document.querySelector(".card-detail fieldset").disabled`))
	accessible(t, ctx, "archived board with a card open")

	// The projects list: only the other project; the Archived section restores it.
	do(t, ctx, chromedp.Navigate(app))
	waitFor(t, ctx, "the projects", `document.querySelectorAll(".cards-grid .project").length === 1`)
	require.Contains(t, text(t, ctx, `.cards-grid`), "Current work")
	require.NotContains(t, text(t, ctx, `.cards-grid`), "Old launch")
	settingsClick(t, ctx, `button`, "Show archived projects")
	waitFor(t, ctx, "the archived list", `!!document.querySelector(".archived-list li")`)
	require.Contains(t, text(t, ctx, `.archived-list`), "Old launch")
	accessible(t, ctx, "projects with the archived ones shown")
	settingsClick(t, ctx, `button`, "Restore Old launch")
	waitFor(t, ctx, "the project back in the list", `document.querySelectorAll(".cards-grid .project").length === 2 &&
		!document.querySelector(".archived-list li")`)
	require.Empty(t, archivedAt())
	require.Equal(t, 200, s.status("PATCH", base+"/cards/"+card, a.Token, `{"title":"Changed again"}`))
}

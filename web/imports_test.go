package web_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserImportJira: "Import from another tool" from the projects page: Jira chosen, its CSV
// uploaded, the report shown as the import's stream brings it (the project created with its counts, the
// items left out with why), the project there through the API, and the import listed below.
func TestBrowserImportJira(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("ivy@example.com")
	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href$="/imports"]`)), chromedp.WaitVisible(chromedp.CSS(`#imports-file`)))
	waitFor(t, ctx, "the empty list", `document.body.textContent.includes("No import yet")`)
	accessible(t, ctx, "imports")

	file := filepath.Join(t.TempDir(), "jira.csv")
	require.NoError(t, os.WriteFile(file, []byte("Summary,Issue key,Status,Assignee,Outward issue link (Blocks)\n"+
		"Set up CI,OPS-1,In Progress,Carl,OPS-9\nDeploy <b>now</b>,OPS-2,To Do,,OPS-1\n"), 0o600))
	do(t, ctx, chromedp.Click(chromedp.CSS(`input[value="jira"]`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#imports-file`), []string{file}))
	require.Contains(t, text(t, ctx, `#import-hint`), "CSV export")
	clickText(t, ctx, "Import")
	waitFor(t, ctx, "the completed report", `
		document.querySelector(".import-status")?.textContent.startsWith("Completed") &&
		document.querySelector(".import-skipped") !== null`)
	report := text(t, ctx, `.import-report`)
	require.Contains(t, report, "2 cards")
	require.Contains(t, report, "1 relations")
	require.Contains(t, report, `assignee "Carl" of issue OPS-1: the export names no e-mail`)
	require.Contains(t, report, "it names a card that is not in the import")
	accessible(t, ctx, "import report")
	waitFor(t, ctx, "the import listed", `document.querySelector(".import-list li")?.textContent.includes("jira.csv")`)

	var projects []struct{ Name string }
	s.call("GET", "/orgs/"+a.Org+"/workspaces/"+a.WS+"/projects", a.Token, nil, &projects)
	names := []string{}
	for _, p := range projects {
		names = append(names, p.Name)
	}
	require.Contains(t, names, "Jira import")
	do(t, ctx, chromedp.Click(chromedp.CSS(`.import-report a`)))
	waitFor(t, ctx, "the imported board", `document.querySelector("h1")?.textContent === "Jira import" &&
		document.body.textContent.includes("Deploy <b>now</b>")`)
}

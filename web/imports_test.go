package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserImportJira: "Import from another tool" from the projects page: Jira chosen, its CSV
// uploaded, the report shown as the import's stream brings it (the project created with its counts, the
// items left out with why), the project there through the API, and the import listed below. Then each
// other source in turn (Trello, Vikunja, Plane, Pilot), each report seen.
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

	do(t, ctx, chromedp.NavigateBack(), chromedp.WaitVisible(chromedp.CSS(`#imports-file`)))
	for _, c := range otherSources(t) {
		importFile(t, ctx, c.source, c.file)
		report := text(t, ctx, `.import-report`)
		for _, want := range c.want {
			require.Contains(t, report, want, c.source)
		}
		if c.source == "vikunja" {
			accessible(t, ctx, "import report with files")
		}
	}
}

type importCase struct {
	source, file string
	want         []string
}

// otherSources writes an export of each source but Jira, as the tools write them: Trello's a real board
// (WeKan's test data, MIT), Vikunja's an archive with an attachment file, Plane's a CSV, Pilot's a project.
func otherSources(t *testing.T) []importCase {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	trello, err := os.ReadFile("../db/transfer/sources/testdata/wekan/trello-project100.json")
	require.NoError(t, err)
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, e := range [][2]string{{"VERSION", "v0.24.6"}, {"files/9", "seed list"}, {"data.json", `[{"id":1,` +
		`"title":"Garden","views":[{"id":2,"view_kind":"kanban","position":1}],"buckets":[{"id":3,"title":"Beds",` +
		`"project_view_id":2,"position":1}],"task_buckets":[{"task_id":5,"bucket_id":3,"project_view_id":2}],` +
		`"tasks":[{"id":5,"title":"Sow","attachments":[{"id":1,"file":{"id":9,"name":"seeds.txt","size":9}}]},` +
		`{"id":6,"title":"Harvest","done":true,"due_date":"2026-09-01T00:00:00Z"}]}]`}} {
		f, err := zw.Create(e[0])
		require.NoError(t, err)
		_, err = f.Write([]byte(e[1]))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	plane := `"ID","Project Identifier","Project","Name","Priority","State","Labels","Assignees","Parent"` + "\n" +
		`"APP-1","APP","App","Login","urgent","In Progress","auth","Bob Stone",""` + "\n" +
		`"APP-2","APP","App","Logout","low","Todo","","","APP-1"` + "\n"
	pilot := `{"version":1,"project":{"name":"From Pilot"},"columns":[{"name":"Now"}],` +
		`"cards":[{"title":"Carried over","columnIndex":0}]}`
	return []importCase{
		{"trello", write("board.json", trello), []string{"Project 100", "3 cards", "6 labels",
			"member test_user", "no e-mail"}},
		{"vikunja", write("vikunja-export.zip", zb.Bytes()), []string{"Garden", "2 cards", "1 attachments as files"}},
		{"plane", write("plane.csv", []byte(plane)), []string{"App", "2 cards", "1 relations",
			`assignee "Bob Stone" of work item APP-1`}},
		{"pilot", write("project.json", []byte(pilot)), []string{"From Pilot", "1 cards"}},
	}
}

// importFile imports file as source from the import page and waits for its completed report.
func importFile(t *testing.T, ctx context.Context, source, file string) {
	t.Helper()
	do(t, ctx, chromedp.Click(chromedp.CSS(`input[value="`+source+`"]`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#imports-file`), []string{file}))
	clickText(t, ctx, "Import")
	name := filepath.Base(file)
	waitFor(t, ctx, "the completed report of "+name, `
		document.querySelector(".import-report h2")?.textContent.includes(`+jsString(name)+`) &&
		document.querySelector(".import-status")?.textContent.startsWith("Completed") &&
		document.querySelector(".import-report h3")?.textContent === "Created"`)
	require.True(t, strings.Contains(text(t, ctx, `.import-report h2`), name))
}

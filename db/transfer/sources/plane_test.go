package sources

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/transfer"
)

// planeHeader is the header Plane's work item CSV export writes (its IssueExportSchema's labels, in order).
var planeHeader = []string{"ID", "Project Identifier", "Project", "Project ID", "Sequence ID", "Name",
	"Description", "Priority", "Start Date", "Target Date", "State", "Created At", "Updated At", "Completed At",
	"Archived At", "Module Name", "Created By", "Labels", "Comments", "Estimate", "Link", "Assignees",
	"Subscribers Count", "Attachment Count", "Attachment Links", "Cycle Name", "Cycle Start Date",
	"Cycle End Date", "Parent", "Relations"}

// planeCSV writes rows (header name → value) as Plane does: every cell quoted.
func planeCSV(t testing.TB, rows ...map[string]string) []byte {
	t.Helper()
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	require.NoError(t, w.Write(planeHeader))
	for _, r := range rows {
		rec := make([]string, len(planeHeader))
		for i, h := range planeHeader {
			rec[i] = r[h]
		}
		require.NoError(t, w.Write(rec))
	}
	w.Flush()
	return []byte(sb.String())
}

func planeJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func planeRows(t testing.TB) []map[string]string {
	proj := map[string]string{"Project Identifier": "WEB", "Project": "Website", "Project ID": "p-1"}
	row := func(id, name, state string, extra map[string]string) map[string]string {
		r := map[string]string{"ID": id, "Name": name, "State": state, "Priority": "none",
			"Created At": "Mon, 02 Mar 2026 10:00:00 AM UTC+0000", "Comments": "[]", "Relations": "{}",
			"Attachment Count": "0"}
		for k, v := range proj {
			r[k] = v
		}
		for k, v := range extra {
			r[k] = v
		}
		return r
	}
	return []map[string]string{
		row("WEB-1", "New landing page", "In Progress", map[string]string{"Priority": "urgent",
			"Description": "Hero <img src=x onerror=alert(1)>", "Start Date": "Mon, 02 Mar 2026",
			"Target Date": "Fri, 20 Mar 2026", "Labels": "design, frontend", "Assignees": "ann@example.com, Bob Stone",
			"Link":             "https://example.com/spec, https://example.com/mock",
			"Attachment Links": "/api/assets/v2/workspaces/w/projects/p/issues/i/attachments/a/",
			"Comments": planeJSON(t, []map[string]string{{"comment": "Looks good", "created_at": "Tue, 03 Mar 2026",
				"created_by": "Ann Lee"}}),
			"Relations": planeJSON(t, map[string]string{"blocking": "WEB-2", "relates_to": "WEB-3"})}),
		row("WEB-2", "Copy", "Todo", map[string]string{"Priority": "low", "Parent": "WEB-1",
			"Relations": planeJSON(t, map[string]string{"blocked_by": "WEB-1"})}),
		row("WEB-3", "=cmd|' /C calc'!A0", "Backlog", map[string]string{"Name": "'=SUM(A1)",
			"Relations": planeJSON(t, map[string]string{"relates_to": "WEB-1", "duplicate": "OPS-9"})}),
		row("WEB-4", "Shipped", "Done", map[string]string{"Archived At": "Mon, 02 Mar 2026 10:00:00 AM UTC+0000"}),
	}
}

func TestPlaneCSV(t *testing.T) {
	t.Parallel()
	for name, data := range map[string][]byte{
		"csv": planeCSV(t, planeRows(t)...),
		"zip": zipOf(t, map[string][]byte{"ws-p-1.csv": planeCSV(t, planeRows(t)...), "ws-p-2.csv": nil}),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ex, err := Parse(Plane, data)
			require.NoError(t, err)
			require.Len(t, ex.Projects, 1)
			p := ex.Projects[0]
			doc := p.Doc
			require.Equal(t, "Website", doc.Project.Name)
			require.Equal(t, []transfer.TransferColumn{{Name: "Backlog"}, {Name: "Todo"}, {Name: "In Progress"},
				{Name: "Done"}}, doc.Columns, "states in their board's order")
			i, c := cardNamed(t, doc, "WEB-1 ")
			require.Equal(t, "WEB-1 New landing page", c.Title)
			require.Equal(t, 2, c.ColumnIndex)
			require.Equal(t, "high", c.Priority)
			require.Equal(t, "2026-03-02", c.StartDate.Format("2006-01-02"))
			require.Equal(t, "2026-03-20", c.DueDate.Format("2006-01-02"))
			require.Equal(t, []string{"design", "frontend"}, c.Labels)
			require.True(t, strings.HasPrefix(c.Description, "Hero <img src=x onerror=alert(1)>"), "kept as text")
			require.Contains(t, c.Description, "- [https://example.com/mock](https://example.com/mock)")
			require.Equal(t, 2, p.Attachments)
			require.Len(t, c.Comments, 1)
			require.Equal(t, "Ann Lee: Looks good", c.Comments[0].Content)
			require.Equal(t, "2026-03-03", c.Comments[0].CreatedAt.Format("2006-01-02"))
			require.Equal(t, "ann@example.com", p.Assignees[i])
			require.Contains(t, skipped(p, `assignee "Bob Stone"`), "not their e-mail")
			require.Contains(t, skipped(p, "attachment /api/assets"), "only a path")

			j, c := cardNamed(t, doc, "WEB-2 ")
			require.Equal(t, "low", c.Priority)
			k, c := cardNamed(t, doc, "WEB-3 ")
			require.Equal(t, "WEB-3 =SUM(A1)", c.Title, "Plane's formula quote taken off")
			require.Empty(t, c.Priority)
			_, c = cardNamed(t, doc, "WEB-4 ")
			require.True(t, c.Archived)
			require.ElementsMatch(t, []transfer.TransferRelation{
				{CardIndex: i, TargetCardIndex: j, Type: "blocks"},
				{CardIndex: i, TargetCardIndex: j, Type: "parent_of"},
				{CardIndex: i, TargetCardIndex: k, Type: "related_to"},
			}, doc.Relations, "each relation once, though listed on both work items")
			require.Contains(t, skipped(p, "OPS-9"), "not in the import")
			require.NoError(t, transfer.Plan(doc, transfer.ImportOptions{MaxColumns: MaxColumns, MaxCards: MaxCards}))
		})
	}
}

func TestPlaneCSVRefused(t *testing.T) {
	t.Parallel()
	_, err := Parse(Plane, []byte("Title,Key,Status\nA,X-1,Open\n"))
	require.ErrorIs(t, err, ErrUnreadable)
	require.ErrorContains(t, err, "missing the column(s) ID, Name, State")
	_, err = Parse(Plane, zipOf(t, map[string][]byte{"export.json": []byte("[]")}))
	require.ErrorContains(t, err, "holds no CSV file")
	_, err = Parse(Plane, zipOf(t, map[string][]byte{"a.csv": make([]byte, 4<<20)}))
	require.ErrorContains(t, err, "zip bomb")
	ex, err := Parse(Plane, planeCSV(t, map[string]string{"ID": "X-1", "Name": "n", "State": "Todo",
		"Comments": "[" + strings.Repeat("[", 20000), "Relations": "not json"}))
	require.NoError(t, err, "a bad cell skips what it held, not the file")
	require.Contains(t, skipped(ex.Projects[0], "the comments of work item X-1"), "not Plane's JSON list")
	require.Contains(t, skipped(ex.Projects[0], "the relations of work item X-1"), "not Plane's JSON object")
}

func TestTrelloRealExport(t *testing.T) {
	t.Parallel()
	// A board exported by Trello itself, published by WeKan under the MIT licence (testdata/wekan/ORIGIN.md).
	ex, err := Parse(Trello, readTestdata(t, "wekan/trello-project100.json"))
	require.NoError(t, err)
	p := ex.Projects[0]
	require.Equal(t, "Project 100", p.Doc.Project.Name)
	require.Equal(t, []transfer.TransferColumn{{Name: "Todo"}, {Name: "In Progress"}, {Name: "Done"}}, p.Doc.Columns)
	require.Equal(t, Counts{Columns: 3, Cards: 3, Labels: 6}, p.Count())
	require.Equal(t, []string{"green", "yellow", "red", "purple", "orange", "blue"},
		func() (n []string) {
			for _, l := range p.Doc.Labels {
				n = append(n, l.Name)
			}
			return n
		}(), "unnamed labels named by their colour")
	require.Contains(t, skipped(p, "member test_user"), "no e-mail")
	require.Empty(t, p.Assignees)
	require.NoError(t, transfer.Plan(p.Doc, transfer.ImportOptions{MaxColumns: MaxColumns, MaxCards: MaxCards}))
}

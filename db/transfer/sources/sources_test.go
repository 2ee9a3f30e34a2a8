package sources

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/transfer"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

func cardNamed(t *testing.T, doc transfer.TransferDoc, prefix string) (int, transfer.TransferCard) {
	t.Helper()
	for i, c := range doc.Cards {
		if strings.HasPrefix(c.Title, prefix) {
			return i, c
		}
	}
	t.Fatalf("no card titled %q…", prefix)
	return 0, transfer.TransferCard{}
}

func skipped(p Project, item string) string {
	for _, s := range p.Skipped {
		if strings.Contains(s.Item, item) {
			return s.Reason
		}
	}
	return ""
}

func TestTrelloBoard(t *testing.T) {
	t.Parallel()
	ex, err := Parse(Trello, readTestdata(t, "trello_board.json"))
	require.NoError(t, err)
	require.Len(t, ex.Projects, 1)
	p := ex.Projects[0]
	doc := p.Doc
	require.Equal(t, "Launch <script>alert(1)</script>", doc.Project.Name, "kept as text")
	require.Equal(t, []transfer.TransferColumn{{Name: "To do"}, {Name: "Doing"}, {Name: "Old (archived)"}}, doc.Columns,
		"lists by position; a closed list kept, named so")
	require.Equal(t, []transfer.TransferLabel{{Name: "Bug", Color: "#eb5a46"}, {Name: "green", Color: "#61bd4f"},
		{Name: "No colour", Color: "#b3bac5"}}, doc.Labels)
	require.Equal(t, "Write the press release", doc.Cards[0].Title, "cards by position in their list")
	i, c := cardNamed(t, doc, "Write the press release")
	require.Equal(t, 0, c.ColumnIndex)
	require.Equal(t, "2026-03-01T12:00:00Z", c.DueDate.Format("2006-01-02T15:04:05Z07:00"))
	require.NotNil(t, c.StartDate)
	require.Equal(t, []string{"Bug", "green"}, c.Labels)
	require.Equal(t, []transfer.TransferChecklistItem{{Title: "Write", Done: true}, {Title: "Publish"}}, c.Checklist)
	require.Len(t, c.Comments, 1)
	require.Equal(t, "Ann Lee: Looks good", c.Comments[0].Content)
	require.Contains(t, c.Description, "Draft it **now**")
	require.Contains(t, c.Description, "[brief.pdf](https://trello.com/1/cards/C1/attachments/A1/download/brief.pdf)")
	require.Equal(t, 1, p.Attachments)
	require.Equal(t, "member@example.com", p.Assignees[i], "a member with an e-mail is the assignee")

	_, c = cardNamed(t, doc, "Second <img")
	require.Equal(t, "Second <img src=x onerror=alert(1)>", c.Title)
	_, c = cardNamed(t, doc, "Archived one")
	require.True(t, c.Archived)
	_, c = cardNamed(t, doc, "On an old list")
	require.True(t, c.Archived, "a card of a closed list is archived")
	require.Len(t, doc.Cards, 4)
	require.Equal(t, "it has no title", skipped(p, "card C4"))
	require.Equal(t, "its list is not in the export", skipped(p, `card "On a list not exported"`))
	require.Contains(t, skipped(p, "member ann"), "no e-mail")
	require.NoError(t, transfer.Plan(doc, transfer.ImportOptions{MaxColumns: MaxColumns, MaxCards: MaxCards}))

	counts := p.Count()
	require.Equal(t, Counts{Columns: 3, Cards: 4, Labels: 3, ChecklistItems: 2, Comments: 1, DueDates: 1,
		Attachments: 1, ArchivedCards: 2}, counts)
}

func TestJiraCSV(t *testing.T) {
	t.Parallel()
	ex, err := Parse(Jira, readTestdata(t, "jira_issues.csv"))
	require.NoError(t, err)
	require.Len(t, ex.Projects, 1)
	p := ex.Projects[0]
	doc := p.Doc
	require.Equal(t, "Operations", doc.Project.Name)
	require.Equal(t, []transfer.TransferColumn{{Name: "To Do"}, {Name: "In Progress"}, {Name: "Done"}}, doc.Columns,
		"statuses ordered by their category")
	i, c := cardNamed(t, doc, "OPS-1 ")
	require.Equal(t, "OPS-1 Set up CI", c.Title)
	require.Equal(t, 1, c.ColumnIndex)
	require.Equal(t, "high", c.Priority)
	require.Equal(t, "Use the \"fast\" runners\non two lines", c.Description)
	require.Equal(t, []string{"infra", "ci"}, c.Labels, "repeated Labels headers read as a list")
	require.Len(t, c.Comments, 1)
	require.Equal(t, "First comment", c.Comments[0].Content)
	require.Equal(t, "2026-03-01", c.Comments[0].CreatedAt.Format("2006-01-02"))
	require.Equal(t, "2026-03-12", c.DueDate.Format("2006-01-02"))
	require.Equal(t, "ann@example.com", p.Assignees[i])

	j, c := cardNamed(t, doc, "OPS-2 ")
	require.Equal(t, "low", c.Priority)
	require.Equal(t, "2026-04-01", c.DueDate.Format("2006-01-02"))
	require.Contains(t, skipped(p, `assignee "Carl"`), "no e-mail")
	k, c := cardNamed(t, doc, "OPS-3 ")
	require.Equal(t, "<b>bold</b><script>x()</script>", c.Description, "HTML kept as text")
	require.ElementsMatch(t, []transfer.TransferRelation{
		{CardIndex: i, TargetCardIndex: j, Type: "blocks"},
		{CardIndex: i, TargetCardIndex: k, Type: "parent_of"},
	}, doc.Relations, "outward links and sub-tasks; inward links are the same links")
	require.Contains(t, skipped(p, "OPS-99"), "not in the import")
	require.NoError(t, transfer.Plan(doc, transfer.ImportOptions{MaxColumns: MaxColumns, MaxCards: MaxCards}))
}

func TestJiraCSVMissingHeaders(t *testing.T) {
	t.Parallel()
	_, err := Parse(Jira, []byte("Title,Issue key,State\nA,X-1,Open\n"))
	require.ErrorIs(t, err, ErrUnreadable)
	require.ErrorContains(t, err, "missing the column(s) Summary, Status")
	_, err = Parse(Jira, []byte(""))
	require.ErrorContains(t, err, "empty")
}

func TestJiraCSVProjects(t *testing.T) {
	t.Parallel()
	csv := "Summary,Issue key,Status,Project key,Project name\nA,A-1,Open,A,Alpha\nB,B-1,Open,B,Beta\nC,A-2,Done,A,Alpha\n"
	ex, err := Parse(Jira, []byte(csv))
	require.NoError(t, err)
	require.Len(t, ex.Projects, 2, "one project per project key")
	require.Equal(t, "Alpha", ex.Projects[0].Doc.Project.Name)
	require.Len(t, ex.Projects[0].Doc.Cards, 2)
	require.Equal(t, "Beta", ex.Projects[1].Doc.Project.Name)
}

func TestHostileFiles(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	_, err := Parse(Trello, []byte(deep))
	require.ErrorIs(t, err, ErrUnreadable, "deep JSON refused, not a crash")
	_, err = Parse(Pilot, []byte(`{"project":{"name":`+strings.Repeat(`{"a":`, 20000)+"1"+strings.Repeat("}", 20000)+"}}"))
	require.ErrorIs(t, err, ErrUnreadable)

	huge := strings.Repeat("é", 100000)
	csv := fmt.Sprintf("Summary,Issue key,Status,Description,Comment\n%s,X-1,Open,%s,%s\n", huge, huge, huge)
	ex, err := Parse(Jira, []byte(csv))
	require.NoError(t, err)
	c := ex.Projects[0].Doc.Cards[0]
	require.Len(t, []rune(c.Title), titleRunes)
	require.Len(t, []rune(c.Description), descriptionRunes)
	require.Len(t, []rune(c.Comments[0].Content), 2000)
	require.Len(t, ex.Projects[0].Warnings, 3, "each cut is reported")
	require.NoError(t, transfer.Plan(ex.Projects[0].Doc, transfer.ImportOptions{}))

	_, err = Parse(Trello, bytes.Repeat([]byte(" "), int(MaxFileSize[Trello])+1))
	require.ErrorContains(t, err, "at most 50 MB")
	_, err = Parse(Trello, []byte(`{"nothing": true}`))
	require.ErrorIs(t, err, ErrUnreadable)
	_, err = Parse("asana", []byte(`{}`))
	require.ErrorIs(t, err, ErrUnreadable)
}

func TestPilotExport(t *testing.T) {
	t.Parallel()
	ex, err := Parse(Pilot, []byte(`{"version":1,"project":{"name":"P"},"columns":[{"name":"A"}],`+
		`"cards":[{"title":"x","columnIndex":0}]}`))
	require.NoError(t, err)
	require.Equal(t, "P", ex.Projects[0].Doc.Project.Name)
	require.Len(t, ex.Projects[0].Doc.Cards, 1)
}

package sources

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/transfer"
)

// zipOf writes entries (name → content) into a zip archive, deflated as Vikunja writes them.
func zipOf(t testing.TB, entries map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, data := range entries {
		f, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		require.NoError(t, err)
		_, err = f.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// vikunjaData is a data.json as Vikunja (0.24) writes it: projects with their views, buckets, task buckets,
// positions and tasks. Written for this test; field names as Vikunja's export has them.
func vikunjaData() []any {
	zero := "0001-01-01T00:00:00Z"
	user := func(id int, name, email string) map[string]any {
		u := map[string]any{"id": id, "name": name, "username": strings.ToLower(name), "created": zero}
		if email != "" {
			u["email"] = email
		}
		return u
	}
	task := func(id int, title string, extra map[string]any) map[string]any {
		t := map[string]any{"id": id, "title": title, "description": "", "done": false, "done_at": zero,
			"due_date": zero, "start_date": zero, "end_date": zero, "priority": 0, "project_id": 10,
			"assignees": nil, "labels": nil, "related_tasks": map[string]any{}, "attachments": nil,
			"identifier": "#" + title, "index": id, "bucket_id": 0, "position": 0, "comments": nil,
			"created_by": user(1, "Owner", "")}
		for k, v := range extra {
			t[k] = v
		}
		return t
	}
	return []any{
		map[string]any{"id": 10, "title": "Garden <b>plan</b>", "description": "<p>Spring</p>", "is_archived": false,
			"parent_project_id": 0, "child_projects": nil, "background_information": nil, "position": 1,
			"views": []any{
				map[string]any{"id": 1, "title": "List", "project_id": 10, "view_kind": "list", "position": 100},
				map[string]any{"id": 4, "title": "Kanban", "project_id": 10, "view_kind": "kanban", "position": 400,
					"bucket_configuration_mode": "manual", "done_bucket_id": 22, "default_bucket_id": 20},
			},
			"buckets": []any{
				map[string]any{"id": 22, "title": "Done", "project_view_id": 4, "position": 3000},
				map[string]any{"id": 20, "title": "Backlog", "project_view_id": 4, "position": 1000},
				map[string]any{"id": 21, "title": "Doing", "project_view_id": 4, "position": 2000},
			},
			"task_buckets": []any{
				map[string]any{"task_id": 100, "bucket_id": 21, "project_view_id": 4},
				map[string]any{"task_id": 101, "bucket_id": 20, "project_view_id": 4},
				map[string]any{"task_id": 102, "bucket_id": 22, "project_view_id": 4},
			},
			"positions": []any{
				map[string]any{"task_id": 100, "project_view_id": 4, "position": 2},
				map[string]any{"task_id": 101, "project_view_id": 4, "position": 1},
			},
			"tasks": []any{
				task(100, "Dig beds", map[string]any{
					"description": "<p>Use the <script>alert(1)</script> spade</p>", "priority": 4,
					"due_date": "2026-04-01T10:00:00Z", "start_date": "2026-03-20T08:00:00Z",
					"labels": []any{map[string]any{"id": 1, "title": "outside", "hex_color": "1973ff"},
						map[string]any{"id": 2, "title": "heavy", "hex_color": ""}},
					"assignees": []any{user(2, "Ann", "ann@example.com"), user(3, "Bob", "")},
					"comments": []any{map[string]any{"id": 5, "comment": "<p>Wear gloves</p>",
						"author": user(2, "Ann", "ann@example.com"), "created": "2026-03-02T09:00:00Z"}},
					"related_tasks": map[string]any{"subtask": []any{map[string]any{"id": 101}},
						"blocking": []any{map[string]any{"id": 102}}, "related": []any{map[string]any{"id": 999}}},
					"attachments": []any{
						map[string]any{"id": 7, "task_id": 100, "file": map[string]any{"id": 70, "name": "beds.txt",
							"mime": "text/plain", "size": 11}},
						map[string]any{"id": 8, "task_id": 100, "file": map[string]any{"id": 80, "name": "gone.png",
							"mime": "image/png", "size": 5}},
					},
				}),
				task(101, "Buy seeds", map[string]any{"priority": 1,
					"related_tasks": map[string]any{"parenttask": []any{map[string]any{"id": 100}}}}),
				task(102, "Order tools", map[string]any{"done": true, "priority": 3,
					"related_tasks": map[string]any{"blocked": []any{map[string]any{"id": 100}}}}),
				task(103, "Water", map[string]any{"done": true}),
				task(104, "", nil),
			},
		},
		map[string]any{"id": 11, "title": "Old", "is_archived": true, "tasks": []any{
			task(110, "Forgotten", map[string]any{"project_id": 11})}},
		map[string]any{"id": -1, "title": "Favorites", "tasks": nil},
	}
}

func vikunjaArchive(t testing.TB, data any, files map[string][]byte) []byte {
	t.Helper()
	b, err := json.Marshal(data)
	require.NoError(t, err)
	entries := map[string][]byte{"VERSION": []byte("v0.24.6"), "data.json": b, "filters.json": []byte("[]")}
	for k, v := range files {
		entries[k] = v
	}
	return zipOf(t, entries)
}

func TestVikunjaArchive(t *testing.T) {
	t.Parallel()
	ex, err := Parse(Vikunja, vikunjaArchive(t, vikunjaData(), map[string][]byte{"files/70": []byte("rows of peas")}))
	require.NoError(t, err)
	require.Len(t, ex.Projects, 2, "the saved filter pseudo project is left out")
	require.Equal(t, []Skip{{Item: `project "Favorites"`,
		Reason: "a saved filter or pseudo project (Favorites), not a project"}}, ex.Skipped)
	p := ex.Projects[0]
	doc := p.Doc
	require.Equal(t, "Garden <b>plan</b>", doc.Project.Name, "kept as text")
	require.Equal(t, "<p>Spring</p>", doc.Project.Description)
	require.Equal(t, []transfer.TransferColumn{{Name: "Backlog"}, {Name: "Doing"}, {Name: "Done"}}, doc.Columns,
		"the kanban view's buckets by position")
	i, c := cardNamed(t, doc, "Dig beds")
	require.Equal(t, 1, c.ColumnIndex, "its bucket")
	require.Equal(t, "<p>Use the <script>alert(1)</script> spade</p>", c.Description, "HTML kept as text")
	require.Equal(t, "high", c.Priority, "urgent")
	require.Equal(t, "2026-04-01T10:00:00Z", c.DueDate.Format("2006-01-02T15:04:05Z07:00"))
	require.NotNil(t, c.StartDate)
	require.Equal(t, []string{"outside", "heavy"}, c.Labels)
	require.Equal(t, []transfer.TransferLabel{{Name: "outside", Color: "#1973ff"}, {Name: "heavy", Color: "#e2e8f0"}},
		doc.Labels)
	require.Len(t, c.Comments, 1)
	require.Equal(t, "Ann: <p>Wear gloves</p>", c.Comments[0].Content)
	require.Equal(t, "ann@example.com", c.Comments[0].AuthorEmail)
	require.Equal(t, "ann@example.com", p.Assignees[i])
	require.Contains(t, skipped(p, "assignee Bob"), "no e-mail")

	j, c := cardNamed(t, doc, "Buy seeds")
	require.Less(t, j, i, "tasks by their kanban position")
	require.Equal(t, 0, c.ColumnIndex)
	require.Equal(t, "low", c.Priority)
	require.Nil(t, c.DueDate, "Vikunja's zero date is no date")
	k, c := cardNamed(t, doc, "Order tools")
	require.Equal(t, 2, c.ColumnIndex, "a done task is in the done bucket")
	_, c = cardNamed(t, doc, "Water")
	require.Equal(t, 2, c.ColumnIndex, "a done task without a bucket goes to the done bucket")
	require.Equal(t, "it has no title", skipped(p, "card 104"))

	require.ElementsMatch(t, []transfer.TransferRelation{
		{CardIndex: i, TargetCardIndex: j, Type: "parent_of"},
		{CardIndex: i, TargetCardIndex: k, Type: "blocks"},
	}, doc.Relations, "subtask/parenttask and blocking/blocked are each one relation")
	require.Contains(t, skipped(p, "relation related"), "another project")

	require.Len(t, p.Files, 1)
	require.Equal(t, "beds.txt", p.Files[0].Name)
	require.Equal(t, i, p.Files[0].CardIndex)
	b, err := p.Files[0].Open()
	require.NoError(t, err)
	require.Equal(t, "rows of peas", string(b))
	require.Equal(t, "the archive does not hold its file", skipped(p, `attachment "gone.png"`))
	require.NoError(t, transfer.Plan(doc, transfer.ImportOptions{MaxColumns: MaxColumns, MaxCards: MaxCards}))
	require.Equal(t, Counts{Columns: 3, Cards: 4, Labels: 2, Comments: 1, DueDates: 1, Relations: 2, Files: 1},
		p.Count())

	old := ex.Projects[1]
	require.Equal(t, "Old (archived)", old.Doc.Project.Name)
	require.Equal(t, []transfer.TransferColumn{{Name: "To do"}}, old.Doc.Columns, "no buckets: one column")
}

func TestVikunjaArchiveBeforeViews(t *testing.T) {
	t.Parallel()
	// Before Vikunja 0.22: buckets by project, each task's bucket_id, no views.
	data := []any{map[string]any{"id": 1, "title": "Inbox", "buckets": []any{
		map[string]any{"id": 1, "title": "Test Bucket", "project_id": 1, "position": 65536},
		map[string]any{"id": 2, "title": "Later", "project_id": 1, "position": 70000}},
		"tasks": []any{
			map[string]any{"id": 1, "title": "first", "bucket_id": 2, "kanban_position": 1,
				"due_date": "0001-01-01T00:00:00Z"},
			map[string]any{"id": 2, "title": "second", "bucket_id": 1, "kanban_position": 2, "done": true},
		}}}
	ex, err := Parse(Vikunja, vikunjaArchive(t, data, nil))
	require.NoError(t, err)
	doc := ex.Projects[0].Doc
	require.Equal(t, []transfer.TransferColumn{{Name: "Test Bucket"}, {Name: "Later"}, {Name: "Done"}}, doc.Columns)
	_, c := cardNamed(t, doc, "first")
	require.Equal(t, 1, c.ColumnIndex)
	_, c = cardNamed(t, doc, "second")
	require.Equal(t, 2, c.ColumnIndex, "done, and no done bucket: a Done column")
}

func TestVikunjaHostileArchives(t *testing.T) {
	t.Parallel()
	_, err := Parse(Vikunja, []byte(`[{"id":1,"title":"x"}]`))
	require.ErrorContains(t, err, "a Vikunja export is a zip archive")
	_, err = Parse(Vikunja, zipOf(t, map[string][]byte{"data.json": []byte("[]")}))
	require.ErrorContains(t, err, "no data.json or VERSION")
	_, err = Parse(Vikunja, zipOf(t, map[string][]byte{"VERSION": []byte("v1"), "data.json": []byte("{")}))
	require.ErrorIs(t, err, ErrUnreadable)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	_, err = Parse(Vikunja, zipOf(t, map[string][]byte{"VERSION": []byte("v1"), "data.json": []byte(deep)}))
	require.ErrorIs(t, err, ErrUnreadable, "deep JSON refused, not a crash")

	// A zip bomb: 5 MB of zeros compress to a few KB.
	bomb := zipOf(t, map[string][]byte{"VERSION": []byte("v1"), "data.json": []byte("[]"),
		"files/1": make([]byte, 5<<20)})
	require.Less(t, len(bomb), 64<<10)
	_, err = Parse(Vikunja, bomb)
	require.ErrorContains(t, err, "refused as a possible zip bomb")
	// Entries declaring more than the archive's content cap together (each under the ratio).
	var raw bytes.Buffer
	w := zip.NewWriter(&raw)
	for _, name := range []string{"files/1", "files/2"} {
		f, err := w.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CompressedSize64: 2 << 20,
			UncompressedSize64: 150 << 20})
		require.NoError(t, err)
		_, err = f.Write(make([]byte, 2<<20))
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	_, err = Parse(Vikunja, raw.Bytes())
	require.ErrorContains(t, err, "expands to more than 200 MB")

	// An attachment over the attachment size limit is skipped with why.
	data := []any{map[string]any{"id": 1, "title": "P", "tasks": []any{map[string]any{"id": 1, "title": "t",
		"attachments": []any{map[string]any{"id": 1, "file": map[string]any{"id": 9, "name": "big.bin"}}}}}}}
	js, err := json.Marshal(data)
	require.NoError(t, err)
	var buf bytes.Buffer
	w = zip.NewWriter(&buf)
	for name, content := range map[string][]byte{"VERSION": []byte("v1"), "data.json": js} {
		f, err := w.Create(name)
		require.NoError(t, err)
		_, _ = f.Write(content)
	}
	f, err := w.CreateHeader(&zip.FileHeader{Name: "files/9", Method: zip.Store})
	require.NoError(t, err)
	_, _ = f.Write(bytes.Repeat([]byte{1, 2, 3, 4}, int(board.MaxAttachmentSize/4)+1))
	require.NoError(t, w.Close())
	ex, err := Parse(Vikunja, buf.Bytes())
	require.NoError(t, err)
	require.Empty(t, ex.Projects[0].Files)
	require.Contains(t, skipped(ex.Projects[0], `attachment "big.bin"`), "10 MB attachment limit")
}

package imports_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/imports"
	"github.com/pilot-dev/pilot/db/transfer/sources"
)

// vikunjaArchive is a Vikunja export archive (VERSION, data.json, files/) built for these tests, in the
// shape Vikunja writes it: one project with a kanban view of two buckets and three tasks, one with an
// attachment whose file the archive holds and one whose file it does not.
func vikunjaArchive(t *testing.T, title string) []byte {
	t.Helper()
	type m = map[string]any
	data := []m{{"id": 1, "title": title, "views": []m{{"id": 3, "title": "Kanban", "view_kind": "kanban",
		"position": 1, "done_bucket_id": 6}},
		"buckets": []m{{"id": 5, "title": "To do", "project_view_id": 3, "position": 1},
			{"id": 6, "title": "Done", "project_view_id": 3, "position": 2}},
		"task_buckets": []m{{"task_id": 10, "bucket_id": 5, "project_view_id": 3}},
		"tasks": []m{
			{"id": 10, "title": "Plant", "description": "<p>rows</p>", "priority": 3,
				"due_date": "2026-05-01T00:00:00Z", "assignees": []m{{"id": 2, "username": "m", "email": "member@example.com"}},
				"labels":        []m{{"id": 1, "title": "outside", "hex_color": "00aa00"}},
				"comments":      []m{{"comment": "soon", "author": m{"username": "m"}, "created": "2026-03-01T00:00:00Z"}},
				"related_tasks": m{"blocking": []m{{"id": 11}}},
				"attachments": []m{{"id": 1, "file": m{"id": 40, "name": "../plan.txt", "mime": "", "size": 9}},
					{"id": 2, "file": m{"id": 41, "name": "lost.png", "size": 3}}}},
			{"id": 11, "title": "Water", "done": true},
			{"id": 12, "title": "Weed", "due_date": "0001-01-01T00:00:00Z"},
		}}}
	raw, err := json.Marshal(data)
	require.NoError(t, err)
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range []struct{ name, body string }{{"VERSION", "v0.24.6"}, {"data.json", string(raw)},
		{"files/40", "row A, B"}} {
		f, err := w.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		require.NoError(t, err)
		_, err = f.Write([]byte(e.body))
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func TestImportVikunjaArchive(t *testing.T) {
	t.Parallel()
	e := setup(t)
	im := e.run(t, e.create(t, sources.Vikunja, vikunjaArchive(t, "Garden")).ID)
	require.Equal(t, imports.StatusCompleted, im.Status, "error: %v", im.Error)
	require.Len(t, im.Report.Projects, 1)
	rep := im.Report.Projects[0]
	require.Equal(t, sources.Counts{Columns: 2, Cards: 3, Labels: 1, Comments: 1, DueDates: 1, Relations: 1,
		Files: 1}, rep.Created)
	require.Equal(t, 1, rep.Assigned)
	require.Contains(t, im.Report.Skipped, sources.Skip{Item: `attachment "lost.png" of task "Plant"`,
		Reason: "the archive does not hold its file"})
	require.Equal(t, im.ItemsCreated+im.ItemsSkipped, im.ItemsRead)

	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM cards c JOIN columns k ON k.id = c.column_id
		WHERE c.project_id = $1 AND c.title = 'Water' AND k.name = 'Done'`, rep.ProjectID), "done → the done bucket")
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1 AND title = 'Plant'
		AND description = '<p>rows</p>' AND priority = 'high' AND assignee_id = $2`, rep.ProjectID,
		e.team.Member.User.ID))
	// The attachment is the card's, its bytes in storage, under a safe name.
	var key, name, mime string
	var size int64
	require.NoError(t, e.Pool.QueryRow(context.Background(), `SELECT a.storage_key, a.original_name, a.mime_type,
		a.size FROM attachments a JOIN cards c ON c.id = a.card_id WHERE c.project_id = $1 AND c.title = 'Plant'`,
		rep.ProjectID).Scan(&key, &name, &mime, &size))
	require.Equal(t, "plan.txt", name, "no directories in a name")
	require.Equal(t, "text/plain; charset=utf-8", mime)
	require.EqualValues(t, 8, size)
	rc, err := e.files.Open(context.Background(), key)
	require.NoError(t, err)
	b, _ := io.ReadAll(rc)
	_ = rc.Close()
	require.Equal(t, "row A, B", string(b))
	require.Equal(t, 1, e.Count(t, `SELECT attachment_count FROM cards WHERE project_id = $1 AND title = 'Plant'`,
		rep.ProjectID))

	// The same archive again is refused; without storage, files are skipped with why.
	_, err = e.Imports.Create(context.Background(), e.ws(), e.team.Owner.User.ID, sources.Vikunja, "again.zip",
		vikunjaArchive(t, "Garden"))
	require.ErrorIs(t, err, db.ErrConflict)
	other := e.create(t, sources.Vikunja, vikunjaArchive(t, "Orchard"))
	require.NoError(t, e.Imports.Run(context.Background(), other.ID, nil))
	got, err := e.Imports.Get(context.Background(), e.ws(), other.ID)
	require.NoError(t, err)
	require.Equal(t, 0, got.Report.Projects[0].Created.Files)
	require.Contains(t, got.Report.Skipped, sources.Skip{Item: `attachment "plan.txt"`,
		Reason: "no attachment storage is configured"})
	require.Equal(t, got.ItemsCreated+got.ItemsSkipped, got.ItemsRead)
}

func TestImportVikunjaZipBomb(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, body := range map[string][]byte{"VERSION": []byte("v1"), "data.json": make([]byte, 8<<20)} {
		f, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		require.NoError(t, err)
		_, err = f.Write(body)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	im := e.run(t, e.create(t, sources.Vikunja, buf.Bytes()).ID)
	require.Equal(t, imports.StatusFailed, im.Status)
	require.Contains(t, *im.Error, "refused as a possible zip bomb")
}

func TestImportPlaneCSV(t *testing.T) {
	t.Parallel()
	e := setup(t)
	csv := `"ID","Project Identifier","Project","Name","Description","Priority","Target Date","State","Labels",` +
		`"Comments","Link","Assignees","Parent","Relations"` + "\n" +
		`"APP-1","APP","App","Login <script>x()</script>","","high","Fri, 20 Mar 2026","In Progress","auth, web",` +
		`"[{""comment"": ""ok"", ""created_at"": ""Tue, 03 Mar 2026"", ""created_by"": ""Ann""}]",` +
		`"https://example.com/a","member@example.com","","{""blocking"": ""APP-2""}"` + "\n" +
		`"APP-2","APP","App","Logout","","none","","Todo","","[]","","Bob Stone","APP-1","{}"` + "\n"
	im := e.run(t, e.create(t, sources.Plane, []byte(csv)).ID)
	require.Equal(t, imports.StatusCompleted, im.Status, "error: %v", im.Error)
	rep := im.Report.Projects[0]
	require.Equal(t, "App", rep.Name)
	require.Equal(t, sources.Counts{Columns: 2, Cards: 2, Labels: 2, Comments: 1, DueDates: 1, Relations: 2,
		Attachments: 1}, rep.Created)
	require.Equal(t, 1, rep.Assigned)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1
		AND title = 'APP-1 Login <script>x()</script>'`, rep.ProjectID), "stored as text")
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM card_relations r JOIN cards c ON c.id = r.card_id
		WHERE c.project_id = $1`, rep.ProjectID))

	failed := e.run(t, e.create(t, sources.Plane, []byte("Title,Key\nA,B\n")).ID)
	require.Equal(t, imports.StatusFailed, failed.Status)
	require.Contains(t, *failed.Error, "missing the column(s) ID, Name, State")
}

func TestImportRealTrelloExport(t *testing.T) {
	t.Parallel()
	e := setup(t)
	// A board exported by Trello itself (WeKan's test data, MIT: testdata/wekan/ORIGIN.md).
	im := e.run(t, e.create(t, sources.Trello, testdata(t, "wekan/trello-project100.json")).ID)
	require.Equal(t, imports.StatusCompleted, im.Status, "error: %v", im.Error)
	rep := im.Report.Projects[0]
	require.Equal(t, "Project 100", rep.Name)
	require.Equal(t, sources.Counts{Columns: 3, Cards: 3, Labels: 6}, rep.Created)
	require.Equal(t, 3, e.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, rep.ProjectID))
	require.Equal(t, 12, im.ItemsCreated)
	require.Equal(t, 1, im.ItemsSkipped, "its one member, who has no e-mail")
}

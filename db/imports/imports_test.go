package imports_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/imports"
	"github.com/pilot-dev/pilot/db/transfer/sources"
	"github.com/pilot-dev/pilot/internal/storage"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

type env struct {
	testfactory.Bundle
	team  testfactory.Team
	files storage.Storage
}

func setup(t testing.TB) *env {
	t.Helper()
	b := testfactory.Store(t)
	return &env{Bundle: *b, team: testfactory.NewTeam(t, b.Engines), files: storage.NewLocal(t.TempDir())}
}

func (e *env) ws() string { return e.team.Owner.Workspace.ID }

func (e *env) create(t *testing.T, src sources.Source, data []byte) imports.Import {
	t.Helper()
	im, err := e.Imports.Create(context.Background(), e.ws(), e.team.Owner.User.ID, src, "export", data)
	require.NoError(t, err)
	return im
}

// run does the import's job and reads it back.
func (e *env) run(t *testing.T, id string) imports.Import {
	t.Helper()
	require.NoError(t, e.Imports.Run(context.Background(), id, e.files))
	im, err := e.Imports.Get(context.Background(), e.ws(), id)
	require.NoError(t, err)
	return im
}

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../transfer/sources/testdata/" + name)
	require.NoError(t, err)
	return b
}

func TestImportTrelloBoard(t *testing.T) {
	t.Parallel()
	e := setup(t)
	im := e.create(t, sources.Trello, testdata(t, "trello_board.json"))
	require.Equal(t, imports.StatusQueued, im.Status)
	require.Len(t, e.Jobs(t, jobs.ImportArgs{}.Kind()), 1, "the job committed with the import")
	require.Equal(t, []string{"status:queued"}, e.Events(t, im.ID))

	im = e.run(t, im.ID)
	require.Equal(t, imports.StatusCompleted, im.Status, "error: %v", im.Error)
	require.Len(t, im.Report.Projects, 1)
	rep := im.Report.Projects[0]
	require.Equal(t, "Launch <script>alert(1)</script>", rep.Name)
	require.Equal(t, 4, rep.Created.Cards)
	require.Equal(t, 1, rep.Assigned)
	require.Equal(t, rep.Created.Total(), im.ItemsCreated)
	require.Equal(t, im.ItemsCreated+im.ItemsSkipped, im.ItemsRead)
	require.GreaterOrEqual(t, im.ItemsSkipped, 3)
	require.Equal(t, []string{"status:queued", "status:running", "progress:running", "done:completed"},
		e.Events(t, im.ID))

	require.Equal(t, 4, e.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, rep.ProjectID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM cards c JOIN users u ON u.id = c.assignee_id
		WHERE c.project_id = $1 AND u.email = 'member@example.com'`, rep.ProjectID), "not a Trello member")
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM comments cm JOIN cards c ON c.id = cm.card_id
		WHERE c.project_id = $1`, rep.ProjectID))
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM imports WHERE id = $1 AND file IS NOT NULL`, im.ID),
		"the file is dropped once read")
}

func TestImportAssigneeByEmail(t *testing.T) {
	t.Parallel()
	e := setup(t)
	csv := "Summary,Issue key,Status,Assignee\nA,X-1,Open,MEMBER@example.com\nB,X-2,Open,nobody@example.com\n"
	im := e.run(t, e.create(t, sources.Jira, []byte(csv)).ID)
	require.Equal(t, imports.StatusCompleted, im.Status)
	pid := im.Report.Projects[0].ProjectID
	require.Equal(t, 1, im.Report.Projects[0].Assigned)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM cards c WHERE c.project_id = $1 AND c.assignee_id = $2`,
		pid, e.team.Member.User.ID), "matched by e-mail in any case")
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`,
		pid, e.team.Member.User.ID), "the assignee joins the project")
	require.Contains(t, im.Report.Skipped, sources.Skip{Item: "assignee nobody@example.com",
		Reason: "no member of the workspace has this e-mail"})
}

func TestImportSameFileTwice(t *testing.T) {
	t.Parallel()
	e := setup(t)
	data := testdata(t, "jira_issues.csv")
	first := e.run(t, e.create(t, sources.Jira, data).ID)
	_, err := e.Imports.Create(context.Background(), e.ws(), e.team.Owner.User.ID, sources.Jira, "again.csv", data)
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "already imported")
	require.ErrorContains(t, err, first.ID)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM projects WHERE name = 'Operations'`))

	// A failed import's file may be tried again.
	bad := []byte("Title\nx\n")
	failed := e.run(t, e.create(t, sources.Jira, bad).ID)
	require.Equal(t, imports.StatusFailed, failed.Status)
	require.Contains(t, *failed.Error, "missing the column(s) Summary, Issue key, Status")
	require.Equal(t, []string{"status:queued", "status:running", "done:failed"}, e.Events(t, failed.ID))
	e.create(t, sources.Jira, bad)
}

func TestImportAllOrNothingPerProject(t *testing.T) {
	t.Parallel()
	e := setup(t)
	// The last card names a column the export does not have: the project is refused whole, with why.
	doc := `{"project":{"name":"Half"},"columns":[{"name":"A"}],"cards":[{"title":"ok","columnIndex":0},` +
		`{"title":"bad","columnIndex":3}]}`
	im := e.run(t, e.create(t, sources.Pilot, []byte(doc)).ID)
	require.Equal(t, imports.StatusCompleted, im.Status)
	require.Empty(t, im.Report.Projects)
	require.Equal(t, []sources.Skip{{Item: `project "Half"`,
		Reason: "cards[1].columnIndex: 3 is not the index of a column (the import has 1)"}}, im.Report.Skipped)
	require.Equal(t, 0, im.ItemsCreated)
	require.Equal(t, 3, im.ItemsSkipped, "the project's column and cards")
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM projects WHERE name = 'Half'`), "nothing half-made")
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM cards WHERE title = 'ok'`))
}

func TestImportRetryResumes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	csv := "Summary,Issue key,Status,Project key,Project name\nA,A-1,Open,A,Alpha\nB,B-1,Open,B,Beta\n"
	im := e.create(t, sources.Jira, []byte(csv))
	require.NoError(t, e.Imports.Run(context.Background(), im.ID, e.files))
	// A second run of a finished import (a duplicated job) does nothing.
	require.NoError(t, e.Imports.Run(context.Background(), im.ID, e.files))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM projects WHERE name = 'Alpha'`))
	// A run that stopped after Alpha resumes after it: forget Beta and reopen the import.
	_, err := e.Pool.Exec(context.Background(), `DELETE FROM projects WHERE name = 'Beta'`)
	require.NoError(t, err)
	_, err = e.Pool.Exec(context.Background(), `UPDATE imports SET status = 'running', file = $2,
		report = jsonb_set(report, '{projects}', (report->'projects') - 1) WHERE id = $1`, im.ID, []byte(csv))
	require.NoError(t, err)
	got := e.run(t, im.ID)
	require.Equal(t, imports.StatusCompleted, got.Status)
	require.Len(t, got.Report.Projects, 2)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM projects WHERE name = 'Alpha'`), "not made twice")
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM projects WHERE name = 'Beta'`))
}

func TestImportFail(t *testing.T) {
	t.Parallel()
	e := setup(t)
	im := e.create(t, sources.Pilot, []byte(`{"project":{"name":"P"},"columns":[{"name":"A"}],"cards":[]}`))
	require.NoError(t, e.Imports.Fail(context.Background(), im.ID, "gave up"))
	got, err := e.Imports.Get(context.Background(), e.ws(), im.ID)
	require.NoError(t, err)
	require.Equal(t, imports.StatusFailed, got.Status)
	require.NoError(t, e.Imports.Run(context.Background(), im.ID, e.files), "a failed import is not run")
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM projects WHERE name = 'P'`))
}

package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/jobs"
)

// attachFile gives card a stored attachment (its row; the file itself is storage's).
func (e *testEnv) attachFile(u user, cardID, key string) {
	e.t.Helper()
	_, err := e.pool.Exec(context.Background(), `INSERT INTO attachments
		(id, card_id, uploaded_by, original_name, mime_type, size, storage_key)
		VALUES ($1, $2, $3, 'a.txt', 'text/plain', 1, $4)`, db.NewID(), cardID, u.ID, key)
	require.NoError(e.t, err)
}

// TestDeleteProject: a workspace admin deletes a project with all it holds; its attachment files are
// left to the sweep, enqueued at once; its other members are told; a member is refused, another
// workspace's project is not found, and a second delete finds nothing.
func TestDeleteProject(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	admin := e.register("ann@example.com")
	member := e.register("bob@example.com")
	e.join(admin, member, admin.OrgSlug, admin.WsSlug, "member")
	prj, cols := e.project(admin, "Launch")
	projectID := prj[len(prj)-36:]
	requireStatus(t, e.do("POST", prj+"/members", admin.Token, map[string]any{"email": member.Email}), http.StatusCreated)
	c := e.card(admin, prj, cols[0], "Write the post")
	requireStatus(t, e.do("POST", prj+"/cards/"+c.ID+"/comments", member.Token, map[string]any{"content": "on it"}),
		http.StatusCreated)
	e.attachFile(admin, c.ID, "files/one")
	mission := e.newTestMission(admin, "running")
	_, err := e.pool.Exec(ctx, `UPDATE agent_missions SET project_id = $1 WHERE id = $2`, projectID, mission)
	require.NoError(t, err)

	// A member is refused; the project stays.
	requireStatus(t, e.do("DELETE", prj, member.Token, nil), http.StatusForbidden)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM projects WHERE id = $1`, projectID))
	rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(e.pool), jobs.AttachmentSweepArgs{}, nil)

	// Another workspace's admin names it from their workspace: not found.
	other := e.register("cat@example.com")
	requireStatus(t, e.do("DELETE", other.ws()+"/projects/"+projectID, other.Token, nil), http.StatusNotFound)

	r := e.do("DELETE", prj, admin.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.True(t, decode[OKBody](t, r).OK)
	for _, table := range []string{"projects WHERE id = $1", "columns WHERE project_id = $1",
		"cards WHERE project_id = $1", "project_members WHERE project_id = $1", "activities WHERE project_id = $1",
		"agent_missions WHERE project_id = $1"} {
		require.Zero(t, e.count(`SELECT count(*) FROM `+table, projectID), table)
	}
	require.Zero(t, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, c.ID))
	require.Zero(t, e.count(`SELECT count(*) FROM attachments WHERE card_id = $1`, c.ID))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM attachment_files_orphaned WHERE storage_key = 'files/one'`))
	rivertest.RequireInserted(ctx, t, riverpgxv5.New(e.pool), jobs.AttachmentSweepArgs{}, nil)

	// The other member hears of it; the admin who deleted it does not.
	e.fanOutRecorded()
	require.Contains(t, e.notificationTypes(member), db.ActivityProjectDeleted)
	require.NotContains(t, e.notificationTypes(admin), db.ActivityProjectDeleted)
	var meta map[string]any
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT meta FROM activities WHERE type = $1`,
		db.ActivityProjectDeleted).Scan(&meta))
	require.Equal(t, map[string]any{"projectId": projectID, "name": "Launch"}, meta)

	requireStatus(t, e.do("DELETE", prj, admin.Token, nil), http.StatusNotFound)
}

// TestUpdateWorkspace: an admin renames a workspace and changes its slug; a taken slug is a conflict,
// a blank name and a bad slug are refused, a member is refused, and a personal workspace keeps its slug.
func TestUpdateWorkspace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	admin := e.register("ann@example.com")
	member := e.register("bob@example.com")
	e.workspace(admin, admin.OrgSlug, "team")
	e.workspace(admin, admin.OrgSlug, "taken")
	e.join(admin, member, admin.OrgSlug, "team", "member")
	team := "/orgs/" + admin.OrgSlug + "/workspaces/team"

	requireStatus(t, e.do("PATCH", team, member.Token, map[string]any{"name": "Mine"}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", team, admin.Token, map[string]any{}), http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", team, admin.Token, map[string]any{"name": "   "}), http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", team, admin.Token, map[string]any{"slug": "Not A Slug"}), http.StatusBadRequest)
	requireStatus(t, e.do("PATCH", team, admin.Token, map[string]any{"slug": "taken"}), http.StatusConflict)

	r := e.do("PATCH", team, admin.Token, map[string]any{"name": " Core team ", "slug": "core"})
	requireStatus(t, r, http.StatusOK)
	ws := decode[WorkspaceOut](t, r)
	require.Equal(t, "Core team", ws.Name)
	require.Equal(t, "core", ws.Slug)
	require.EqualValues(t, "admin", ws.MyRole)
	e.settleAccess()
	requireStatus(t, e.do("GET", team, admin.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/orgs/"+admin.OrgSlug+"/workspaces/core", member.Token, nil), http.StatusOK)

	// The personal workspace may be renamed, not moved.
	requireStatus(t, e.do("PATCH", admin.ws(), admin.Token, map[string]any{"slug": "elsewhere"}), http.StatusForbidden)
	r = e.do("PATCH", admin.ws(), admin.Token, map[string]any{"name": "Mine", "slug": "personal"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Mine", decode[WorkspaceOut](t, r).Name)
}

// TestDeleteWorkspace: an admin deletes a workspace with everything in it, its invitation e-mails
// cancelled and the attachment sweep enqueued; an organization admin who is no member of it may too; a
// member is refused, the personal workspace is a conflict, and a second delete finds nothing.
func TestDeleteWorkspace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	admin := e.register("ann@example.com")
	member := e.register("bob@example.com")
	e.workspace(admin, admin.OrgSlug, "team")
	e.join(admin, member, admin.OrgSlug, "team", "member")
	team := user{ID: admin.ID, Email: admin.Email, Token: admin.Token, OrgSlug: admin.OrgSlug, WsSlug: "team"}
	wsID := e.wsID(team)
	prj, cols := e.project(team, "Launch")
	c := e.card(team, prj, cols[0], "Write the post")
	e.attachFile(admin, c.ID, "files/two")
	e.agent(team, "helper", nil)
	e.doc(team, "Handbook", nil)
	requireStatus(t, e.do("POST", team.ws()+"/members/invite", admin.Token, map[string]any{"email": "dan@example.com"}),
		http.StatusCreated)
	var emailJob int64
	require.NoError(t, e.pool.QueryRow(ctx,
		`SELECT email_job_id FROM workspace_invitations WHERE workspace_id = $1 AND accepted_at IS NULL`,
		wsID).Scan(&emailJob))

	requireStatus(t, e.do("DELETE", team.ws(), member.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", admin.ws(), admin.Token, nil), http.StatusConflict)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM workspaces WHERE id = $1`, wsID))
	rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(e.pool), jobs.AttachmentSweepArgs{}, nil)

	// Another organization's admin names it from their organization: not found.
	other := e.register("cat@example.com")
	requireStatus(t, e.do("DELETE", "/orgs/"+other.OrgSlug+"/workspaces/team", other.Token, nil), http.StatusNotFound)

	r := e.do("DELETE", team.ws(), admin.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.True(t, decode[OKBody](t, r).OK)
	for _, table := range []string{"workspaces WHERE id = $1", "projects WHERE workspace_id = $1", "workspace_members " +
		"WHERE workspace_id = $1",
		"workspace_invitations WHERE workspace_id = $1", "agents WHERE workspace_id = $1",
		"documents WHERE workspace_id = $1"} {
		require.Zero(t, e.count(`SELECT count(*) FROM `+table, wsID), table)
	}
	require.Equal(t, 1, e.count(`SELECT count(*) FROM attachment_files_orphaned WHERE storage_key = 'files/two'`))
	rivertest.RequireInserted(ctx, t, riverpgxv5.New(e.pool), jobs.AttachmentSweepArgs{}, nil)
	var state string
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT state::text FROM river_job WHERE id = $1`, emailJob).Scan(&state))
	require.Equal(t, "cancelled", state)
	// The agent's service user stays, as when an agent is deleted.
	require.Equal(t, 1, e.count(`SELECT count(*) FROM users WHERE is_service`))

	e.settleAccess()
	requireStatus(t, e.do("DELETE", team.ws(), admin.Token, nil), http.StatusNotFound)
}

// TestDeleteWorkspaceAsOrganizationAdmin: an organization admin acts as admin in a workspace they are
// no member of, and may delete it.
func TestDeleteWorkspaceAsOrganizationAdmin(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.register("ann@example.com")
	orgAdmin := e.register("bob@example.com")
	e.org(owner, "acme")
	e.workspace(owner, "acme", "team")
	e.join(owner, orgAdmin, "acme", "team", "member")
	requireStatus(t, e.do("PATCH", "/organizations/acme/members/"+orgAdmin.ID, owner.Token,
		map[string]any{"role": "admin"}), http.StatusOK)
	e.workspace(owner, "acme", "other")
	requireStatus(t, e.do("DELETE", "/orgs/acme/workspaces/other", orgAdmin.Token, nil), http.StatusOK)
}

package tenancy_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// listenSessions listens on pilot_sessions on a connection of its own; the answered function waits
// for the next announcement (failing the test after a few seconds).
func (e *env) listenSessions(t *testing.T) func() string {
	t.Helper()
	ctx := context.Background()
	conn, err := e.Pool.Acquire(ctx)
	require.NoError(t, err)
	t.Cleanup(conn.Release)
	_, err = conn.Exec(ctx, "LISTEN pilot_sessions")
	require.NoError(t, err)
	return func() string {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		n, err := conn.Conn().WaitForNotification(wctx)
		require.NoError(t, err, "no announcement on pilot_sessions")
		return n.Payload
	}
}

// assigned answers a card's assignee ("" for none).
func (e *env) assigned(t *testing.T, cardID string) string {
	t.Helper()
	var a *string
	require.NoError(t, e.Pool.QueryRow(context.Background(), `SELECT assignee_id::text FROM cards WHERE id = $1`, cardID).Scan(&a))
	if a == nil {
		return ""
	}
	return *a
}

// startWaitingRun starts, as starter (a workspace admin), a run of a pipeline of ws that waits an hour,
// then creates a card in prj: its first step's job is scheduled, nothing has acted yet.
func (e *env) startWaitingRun(t *testing.T, ws string, starter identity.Registration, prj testfactory.Project) pipeline.RunWithSteps {
	t.Helper()
	ctx := context.Background()
	steps, err := json.Marshal([]map[string]any{
		{"id": "wait", "type": "wait", "params": map[string]any{"duration": "1h"}},
		{"id": "make", "type": "create_card", "needs": []string{"wait"}, "params": map[string]any{"projectId": prj.ID, "columnId": prj.Columns[0], "title": "Made later"}},
	})
	require.NoError(t, err)
	engine := e.Pipelines
	p, err := engine.CreatePipeline(ctx, ws, starter.User.ID, pipeline.NewPipeline{Name: "Later", Steps: steps, Enabled: true})
	require.NoError(t, err)
	r, err := engine.StartRun(ctx, db.RecordEdit{WorkspaceID: ws, ID: p.ID, ActorID: starter.User.ID})
	require.NoError(t, err)
	return r
}

// Leaving an organization means leaving: in the removal's transaction the member leaves the projects
// of its workspaces (member_removed), the cards there assigned to them are unassigned through the
// card update (card_assigned, assigneeId null, by the remover), the runs they started there are
// cancelled with their jobs, and their streams are told to end. What they have elsewhere (their own
// organization) and what others have there is left alone.
func TestRemoveOrganizationMemberLeavesEverything(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	leaver, _ := testfactory.Member(t, e.Engines, e.owner, &testfactory.MemberOpts{Email: testfactory.Ptr("leaver@example.com"), Role: testfactory.Ptr("admin")})
	stay, _ := testfactory.Member(t, e.Engines, e.owner, &testfactory.MemberOpts{Email: testfactory.Ptr("stay@example.com")})
	prj := testfactory.NewProject(t, e.Engines, e.owner, &testfactory.ProjectOpts{Members: []identity.Registration{leaver, stay}})
	theirs := testfactory.Card(t, e.Engines, prj, &testfactory.CardOpts{In: board.NewCard{AssigneeID: &leaver.User.ID}})
	others := testfactory.Card(t, e.Engines, prj, &testfactory.CardOpts{Title: testfactory.Ptr("Stay's"), In: board.NewCard{AssigneeID: &stay.User.ID}})
	ownPrj := testfactory.NewProject(t, e.Engines, leaver, &testfactory.ProjectOpts{Name: testfactory.Ptr("Mine")})
	own := testfactory.Card(t, e.Engines, ownPrj, &testfactory.CardOpts{In: board.NewCard{AssigneeID: &leaver.User.ID}})
	run := e.startWaitingRun(t, e.owner.Workspace.ID, leaver, prj)
	ownRun := e.startWaitingRun(t, leaver.Workspace.ID, leaver, ownPrj)
	announced := e.listenSessions(t)

	require.NoError(t, e.engine.RemoveOrganizationMember(ctx, tenancy.OrgMemberRemoval{OrgID: e.owner.Organization.ID, UserID: leaver.User.ID, ActorID: e.owner.User.ID}))

	require.Equal(t, "u:"+leaver.User.ID, announced(), "their open streams end")
	require.Zero(t, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`, prj.ID, leaver.User.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM activities WHERE project_id = $1 AND type = $2 AND meta->>'userId' = $3 AND actor_id = $4`,
		prj.ID, db.ActivityMemberRemoved, leaver.User.ID, e.owner.User.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`, prj.ID, stay.User.ID))

	require.Empty(t, e.assigned(t, theirs.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM activities WHERE card_id = $1 AND type = $2 AND meta->'assigneeId' = 'null'::jsonb
		AND meta->>'previousAssigneeId' = $3 AND actor_id = $4`, theirs.ID, db.ActivityCardAssigned, leaver.User.ID, e.owner.User.ID))
	require.Equal(t, stay.User.ID, e.assigned(t, others.ID))
	require.Equal(t, leaver.User.ID, e.assigned(t, own.ID), "their own organization's cards are theirs still")

	engine := e.Pipelines
	got, err := engine.Run(ctx, pipeline.RunRef{WorkspaceID: e.owner.Workspace.ID, PipelineID: run.Run.PipelineID, RunID: run.Run.ID})
	require.NoError(t, err)
	require.Equal(t, pipeline.RunCancelled, got.Run.Status)
	for _, st := range got.Steps {
		require.Equal(t, pipeline.StepCancelled, st.Status, st.StepID)
	}
	require.Equal(t, []string{"status:running", "done:cancelled"}, e.Events(t, run.Run.ID))
	msg, data := e.LastEvent(t, run.Run.ID)
	require.Equal(t, "run cancelled: its starter left the workspace", msg)
	require.Equal(t, "starter_left", data["reason"])
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM river_job WHERE kind = $1 AND state = 'cancelled' AND args->>'runId' = $2`,
		jobs.PipelineStepArgs{}.Kind(), run.Run.ID), "the wait's scheduled job is cancelled")
	require.NoError(t, engine.RunStep(ctx, run.Run.ID, "wait"), "a job that ran anyway does nothing")
	require.Zero(t, e.Count(t, `SELECT count(*) FROM cards WHERE title = 'Made later'`))

	mine, err := engine.Run(ctx, pipeline.RunRef{WorkspaceID: leaver.Workspace.ID, PipelineID: ownRun.Run.PipelineID, RunID: ownRun.Run.ID})
	require.NoError(t, err)
	require.Equal(t, pipeline.RunRunning, mine.Run.Status, "a run in their own organization goes on")
}

// Leaving a workspace is the same, for that workspace only: the member keeps the organization and its
// other workspaces. The workspace owner cannot be removed, an organization admin is refused (they
// would keep their access), and someone who is not a member is not found.
func TestRemoveWorkspaceMember(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	leaver, _ := testfactory.Member(t, e.Engines, e.owner, &testfactory.MemberOpts{Email: testfactory.Ptr("leaver@example.com"), Role: testfactory.Ptr("admin")})
	orgAdmin, _ := testfactory.Member(t, e.Engines, e.owner, &testfactory.MemberOpts{Email: testfactory.Ptr("boss@example.com")})
	_, err := e.engine.SetOrganizationMemberRole(ctx, e.owner.Organization.ID, orgAdmin.User.ID, "admin")
	require.NoError(t, err)
	prj := testfactory.NewProject(t, e.Engines, e.owner, &testfactory.ProjectOpts{Members: []identity.Registration{leaver}})
	card := testfactory.Card(t, e.Engines, prj, &testfactory.CardOpts{In: board.NewCard{AssigneeID: &leaver.User.ID}})
	run := e.startWaitingRun(t, e.owner.Workspace.ID, leaver, prj)

	dev, err := e.engine.CreateWorkspace(ctx, e.owner.Organization.ID, e.owner.User.ID, "Dev", "dev")
	require.NoError(t, err)
	token := "tok-dev"
	testfactory.Invitation(t, e.Engines, e.owner, &testfactory.InvitationOpts{Email: &leaver.User.Email, Role: testfactory.Ptr("admin"), Token: &token, Workspace: &dev})
	_, err = e.engine.AcceptInvitation(ctx, token, leaver.User)
	require.NoError(t, err)
	inDev := e.owner
	inDev.Workspace = dev
	devPrj := testfactory.NewProject(t, e.Engines, inDev, &testfactory.ProjectOpts{Name: testfactory.Ptr("Dev work"), Members: []identity.Registration{leaver}})
	devCard := testfactory.Card(t, e.Engines, devPrj, &testfactory.CardOpts{In: board.NewCard{AssigneeID: &leaver.User.ID}})
	devRun := e.startWaitingRun(t, dev.ID, leaver, devPrj)

	remove := func(ws, user string) error {
		return e.engine.RemoveWorkspaceMember(ctx, tenancy.WorkspaceMemberRemoval{WorkspaceID: ws, UserID: user, ActorID: e.owner.User.ID})
	}
	require.ErrorIs(t, remove(e.owner.Workspace.ID, e.owner.User.ID), db.ErrForbidden)
	require.ErrorIs(t, remove(e.owner.Workspace.ID, orgAdmin.User.ID), db.ErrConflict)
	require.ErrorIs(t, remove(e.owner.Workspace.ID, db.NewID()), db.ErrNotFound)
	require.ErrorIs(t, remove(db.NewID(), leaver.User.ID), db.ErrNotFound)

	announced := e.listenSessions(t)
	require.NoError(t, remove(e.owner.Workspace.ID, leaver.User.ID))
	require.Equal(t, "u:"+leaver.User.ID, announced())
	require.ErrorIs(t, remove(e.owner.Workspace.ID, leaver.User.ID), db.ErrNotFound, "gone already")

	require.Zero(t, e.Count(t, `SELECT count(*) FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, e.owner.Workspace.ID, leaver.User.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`, prj.ID, leaver.User.ID))
	require.Empty(t, e.assigned(t, card.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM activities WHERE card_id = $1 AND type = $2 AND meta->'assigneeId' = 'null'::jsonb`,
		card.ID, db.ActivityCardAssigned))
	got, err := e.Pipelines.Run(ctx, pipeline.RunRef{WorkspaceID: e.owner.Workspace.ID, PipelineID: run.Run.PipelineID, RunID: run.Run.ID})
	require.NoError(t, err)
	require.Equal(t, pipeline.RunCancelled, got.Run.Status)

	// The organization and its other workspace keep them, with their projects, cards and runs.
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM organization_members WHERE organization_id = $1 AND user_id = $2`, e.owner.Organization.ID, leaver.User.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`, devPrj.ID, leaver.User.ID))
	require.Equal(t, leaver.User.ID, e.assigned(t, devCard.ID))
	got, err = e.Pipelines.Run(ctx, pipeline.RunRef{WorkspaceID: dev.ID, PipelineID: devRun.Run.PipelineID, RunID: devRun.Run.ID})
	require.NoError(t, err)
	require.Equal(t, pipeline.RunRunning, got.Run.Status)
}

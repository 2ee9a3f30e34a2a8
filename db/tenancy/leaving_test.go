package tenancy_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/mission"
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
	require.NoError(t, e.Pool.QueryRow(context.Background(), `SELECT assignee_id::text FROM cards WHERE id = $1`,
		cardID).Scan(&a))
	if a == nil {
		return ""
	}
	return *a
}

// startWaitingRun starts, as starter (a workspace admin), a run of a pipeline of ws that waits an hour,
// then creates a card in prj: its first step's job is scheduled, nothing has acted yet.
func (e *env) startWaitingRun(t *testing.T, ws string, starter identity.Registration,
	prj testfactory.Project) pipeline.RunWithSteps {
	t.Helper()
	ctx := context.Background()
	steps, err := json.Marshal([]map[string]any{
		{"id": "wait", "type": "wait", "params": map[string]any{"duration": "1h"}},
		{"id": "make", "type": "create_card", "needs": []string{"wait"}, "params": map[string]any{"projectId": prj.ID,
			"columnId": prj.Columns[0], "title": "Made later"}},
	})
	require.NoError(t, err)
	engine := e.Pipelines
	p, err := engine.CreatePipeline(ctx, ws, starter.User.ID, pipeline.NewPipeline{Name: "Later", Steps: steps,
		Enabled: true})
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
	leaver, _ := testfactory.Member(t, e.Engines, e.owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("leaver@example.com"), Role: testfactory.Ptr("admin")})
	stay, _ := testfactory.Member(t, e.Engines, e.owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("stay@example.com")})
	prj := testfactory.NewProject(t, e.Engines, e.owner, &testfactory.ProjectOpts{Members: []identity.Registration{leaver,
		stay}})
	theirs := testfactory.Card(t, e.Engines, prj, &testfactory.CardOpts{In: board.NewCard{AssigneeID: &leaver.User.ID}})
	others := testfactory.Card(t, e.Engines, prj, &testfactory.CardOpts{Title: testfactory.Ptr("Stay's"),
		In: board.NewCard{AssigneeID: &stay.User.ID}})
	ownPrj := testfactory.NewProject(t, e.Engines, leaver, &testfactory.ProjectOpts{Name: testfactory.Ptr("Mine")})
	own := testfactory.Card(t, e.Engines, ownPrj, &testfactory.CardOpts{In: board.NewCard{AssigneeID: &leaver.User.ID}})
	run := e.startWaitingRun(t, e.owner.Workspace.ID, leaver, prj)
	ownRun := e.startWaitingRun(t, leaver.Workspace.ID, leaver, ownPrj)
	announced := e.listenSessions(t)

	require.NoError(t, e.engine.RemoveOrganizationMember(ctx, tenancy.OrgMemberRemoval{OrgID: e.owner.Organization.ID,
		UserID: leaver.User.ID, ActorID: e.owner.User.ID}))

	require.Equal(t, "u:"+leaver.User.ID, announced(), "their open streams end")
	require.Zero(t, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`, prj.ID,
		leaver.User.ID))
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM activities WHERE project_id = $1 AND type = $2 AND meta->>'userId' = $3 AND actor_id = $4`,
		prj.ID, db.ActivityMemberRemoved, leaver.User.ID, e.owner.User.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`, prj.ID,
		stay.User.ID))

	require.Empty(t, e.assigned(t, theirs.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM activities WHERE card_id = $1 AND type = $2
		AND meta->'assigneeId' = 'null'::jsonb AND meta->>'previousAssigneeId' = $3 AND actor_id = $4`,
		theirs.ID, db.ActivityCardAssigned, leaver.User.ID, e.owner.User.ID))
	require.Equal(t, stay.User.ID, e.assigned(t, others.ID))
	require.Equal(t, leaver.User.ID, e.assigned(t, own.ID), "their own organization's cards are theirs still")

	engine := e.Pipelines
	got, err := engine.Run(ctx, pipeline.RunRef{WorkspaceID: e.owner.Workspace.ID, PipelineID: run.Run.PipelineID,
		RunID: run.Run.ID})
	require.NoError(t, err)
	require.Equal(t, pipeline.RunCancelled, got.Run.Status)
	for _, st := range got.Steps {
		require.Equal(t, pipeline.StepCancelled, st.Status, st.StepID)
	}
	require.Equal(t, []string{"status:running", "done:cancelled"}, e.Events(t, run.Run.ID))
	msg, data := e.LastEvent(t, run.Run.ID)
	require.Equal(t, "run cancelled: its starter left the workspace", msg)
	require.Equal(t, "starter_left", data["reason"])
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM river_job WHERE kind = $1 AND state = 'cancelled' AND args->>'runId' = $2`,
		jobs.PipelineStepArgs{}.Kind(), run.Run.ID), "the wait's scheduled job is cancelled")
	require.NoError(t, engine.RunStep(ctx, run.Run.ID, "wait"), "a job that ran anyway does nothing")
	require.Zero(t, e.Count(t, `SELECT count(*) FROM cards WHERE title = 'Made later'`))

	mine, err := engine.Run(ctx, pipeline.RunRef{WorkspaceID: leaver.Workspace.ID, PipelineID: ownRun.Run.PipelineID,
		RunID: ownRun.Run.ID})
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
	leaver, _ := testfactory.Member(t, e.Engines, e.owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("leaver@example.com"), Role: testfactory.Ptr("admin")})
	orgAdmin, _ := testfactory.Member(t, e.Engines, e.owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("boss@example.com")})
	_, err := e.engine.SetOrganizationMemberRole(ctx, e.owner.Organization.ID, orgAdmin.User.ID, "admin")
	require.NoError(t, err)
	prj := testfactory.NewProject(t, e.Engines, e.owner,
		&testfactory.ProjectOpts{Members: []identity.Registration{leaver}})
	card := testfactory.Card(t, e.Engines, prj, &testfactory.CardOpts{In: board.NewCard{AssigneeID: &leaver.User.ID}})
	run := e.startWaitingRun(t, e.owner.Workspace.ID, leaver, prj)

	dev, err := e.engine.CreateWorkspace(ctx, e.owner.Organization.ID, e.owner.User.ID, "Dev", "dev")
	require.NoError(t, err)
	token := "tok-dev"
	testfactory.Invitation(t, e.Engines, e.owner, &testfactory.InvitationOpts{Email: &leaver.User.Email,
		Role: testfactory.Ptr("admin"), Token: &token, Workspace: &dev})
	_, err = e.engine.AcceptInvitation(ctx, token, leaver.User)
	require.NoError(t, err)
	inDev := e.owner
	inDev.Workspace = dev
	devPrj := testfactory.NewProject(t, e.Engines, inDev, &testfactory.ProjectOpts{Name: testfactory.Ptr("Dev work"),
		Members: []identity.Registration{leaver}})
	devCard := testfactory.Card(t, e.Engines, devPrj,
		&testfactory.CardOpts{In: board.NewCard{AssigneeID: &leaver.User.ID}})
	devRun := e.startWaitingRun(t, dev.ID, leaver, devPrj)

	remove := func(ws, user string) error {
		return e.engine.RemoveWorkspaceMember(ctx, tenancy.WorkspaceMemberRemoval{WorkspaceID: ws, UserID: user,
			ActorID: e.owner.User.ID})
	}
	require.ErrorIs(t, remove(e.owner.Workspace.ID, e.owner.User.ID), db.ErrForbidden)
	require.ErrorIs(t, remove(e.owner.Workspace.ID, orgAdmin.User.ID), db.ErrConflict)
	require.ErrorIs(t, remove(e.owner.Workspace.ID, db.NewID()), db.ErrNotFound)
	require.ErrorIs(t, remove(db.NewID(), leaver.User.ID), db.ErrNotFound)

	announced := e.listenSessions(t)
	require.NoError(t, remove(e.owner.Workspace.ID, leaver.User.ID))
	require.Equal(t, "u:"+leaver.User.ID, announced())
	require.ErrorIs(t, remove(e.owner.Workspace.ID, leaver.User.ID), db.ErrNotFound, "gone already")

	require.Zero(t, e.Count(t, `SELECT count(*) FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`,
		e.owner.Workspace.ID, leaver.User.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`, prj.ID,
		leaver.User.ID))
	require.Empty(t, e.assigned(t, card.ID))
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM activities WHERE card_id = $1 AND type = $2 AND meta->'assigneeId' = 'null'::jsonb`, card.ID,
		db.ActivityCardAssigned))
	got, err := e.Pipelines.Run(ctx, pipeline.RunRef{WorkspaceID: e.owner.Workspace.ID, PipelineID: run.Run.PipelineID,
		RunID: run.Run.ID})
	require.NoError(t, err)
	require.Equal(t, pipeline.RunCancelled, got.Run.Status)

	// The organization and its other workspace keep them, with their projects, cards and runs.
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM organization_members WHERE organization_id = $1 AND user_id = $2`,
		e.owner.Organization.ID, leaver.User.ID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM project_members WHERE project_id = $1 AND user_id = $2`,
		devPrj.ID, leaver.User.ID))
	require.Equal(t, leaver.User.ID, e.assigned(t, devCard.ID))
	got, err = e.Pipelines.Run(ctx, pipeline.RunRef{WorkspaceID: dev.ID, PipelineID: devRun.Run.PipelineID,
		RunID: devRun.Run.ID})
	require.NoError(t, err)
	require.Equal(t, pipeline.RunRunning, got.Run.Status)
}

// Leaving a workspace stops the agent missions the member started there, queued, running or awaiting
// approval (an MCP client's too), through the mission engine's cancel: each is failed and cancelled,
// its job cancelled and its pending proposals rejected, and its stream ends with a done event saying
// why. Their finished missions, others' missions and theirs in another workspace go on as they were.
func TestRemoveWorkspaceMemberStopsTheMissionsTheyStarted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	leaver, _ := testfactory.Member(t, e.Engines, e.owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("leaver@example.com")})
	stay, _ := testfactory.Member(t, e.Engines, e.owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("stay@example.com")})
	prj := testfactory.NewProject(t, e.Engines, e.owner,
		&testfactory.ProjectOpts{Members: []identity.Registration{leaver, stay}})
	card := testfactory.Card(t, e.Engines, prj, nil)
	agent := testfactory.Agent(t, e.Engines, e.owner,
		&testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyApproval)})
	remote := testfactory.Agent(t, e.Engines, e.owner,
		&testfactory.AgentOpts{Slug: testfactory.Ptr("remote"), McpOnly: testfactory.Ptr(true)})
	start := func(a db.Agent, by identity.Registration, ws string) db.AgentMission {
		t.Helper()
		in := mission.NewMission{WorkspaceID: ws, AgentID: a.ID, ActorID: by.User.ID, Source: mission.MissionSourceRuntime,
			Objective: "Tidy"}
		if ws == e.owner.Workspace.ID {
			in.ProjectID, in.CardID, in.Source = &prj.ID, &card.ID, mission.MissionSourceAgent
		}
		m, err := e.Missions.CreateMission(ctx, in)
		require.NoError(t, err)
		return m
	}
	run := func(m db.AgentMission) {
		t.Helper()
		r, err := e.Missions.StartMission(ctx, m.ID)
		require.NoError(t, err)
		require.True(t, r.Proceed)
	}
	queued := start(agent, leaver, e.owner.Workspace.ID)
	running := start(agent, leaver, e.owner.Workspace.ID)
	run(running)
	awaiting := start(agent, leaver, e.owner.Workspace.ID)
	run(awaiting)
	step, err := e.Missions.RunMissionStep(ctx, mission.StepInput{MissionID: awaiting.ID, StepKey: "turn1:0",
		Tool: "add_comment", Args: json.RawMessage(`{"content": "Noted"}`), Explanation: "because"})
	require.NoError(t, err)
	require.Equal(t, mission.StepProposed, step.Outcome)
	got, err := e.Missions.FinishMission(ctx, awaiting.ID, "", "")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionAwaitingApproval, got.Status)
	forMCP := start(remote, leaver, e.owner.Workspace.ID)
	done := start(agent, leaver, e.owner.Workspace.ID)
	run(done)
	_, err = e.Missions.FinishMission(ctx, done.ID, "Done", "")
	require.NoError(t, err)
	others := start(agent, stay, e.owner.Workspace.ID)
	theirs := start(testfactory.Agent(t, e.Engines, leaver, nil), leaver, leaver.Workspace.ID)

	require.NoError(t, e.engine.RemoveWorkspaceMember(ctx, tenancy.WorkspaceMemberRemoval{
		WorkspaceID: e.owner.Workspace.ID, UserID: leaver.User.ID, ActorID: e.owner.User.ID}))

	status := func(m db.AgentMission) db.AgentMission {
		t.Helper()
		got, err := e.Missions.Mission(ctx, m.WorkspaceID, m.ID)
		require.NoError(t, err)
		return got
	}
	for _, m := range []db.AgentMission{queued, running, awaiting, forMCP} {
		got := status(m)
		require.EqualValues(t, db.MissionStopped, got.Status, m.ID)
		require.Equal(t, testfactory.Ptr("creator_left"), got.StopReason, m.ID)
		require.NotNil(t, got.CancelledAt, m.ID)
		evs := e.Events(t, m.ID)
		require.Equal(t, "done:stopped", evs[len(evs)-1], "the stream ends with the final status")
		msg, data := e.LastEvent(t, m.ID)
		require.Equal(t, "mission stopped: the member who started it left the workspace", msg)
		require.Equal(t, "creator_left", data["reason"])
		require.Equal(t, e.owner.User.ID, data["stoppedBy"])
	}
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM river_job
		WHERE kind = $1 AND state = 'cancelled' AND args->>'missionId' = ANY($2)`,
		jobs.MissionArgs{}.Kind(), []string{queued.ID, running.ID}), "their jobs are cancelled")
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM agent_proposals WHERE mission_id = $1 AND status = 'rejected'`,
		awaiting.ID))
	require.EqualValues(t, db.MissionCompleted, status(done).Status)
	require.EqualValues(t, db.MissionQueued, status(others).Status)
	require.EqualValues(t, db.MissionQueued, status(theirs).Status, "a mission in their own workspace goes on")
}

// Leaving a workspace disables the automation rules the member created in its projects (a rule acts as
// its creator), and tells the workspace's admins which, the remover included. Others' rules, and theirs
// in another workspace, stay on.
func TestRemoveWorkspaceMemberDisablesTheirAutomationRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	leaver, _ := testfactory.Member(t, e.Engines, e.owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("leaver@example.com")})
	admin, _ := testfactory.Member(t, e.Engines, e.owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("admin@example.com"), Role: testfactory.Ptr("admin")})
	prj := testfactory.NewProject(t, e.Engines, e.owner,
		&testfactory.ProjectOpts{Members: []identity.Registration{leaver, admin}})
	ownPrj := testfactory.NewProject(t, e.Engines, leaver, &testfactory.ProjectOpts{Name: testfactory.Ptr("Mine")})
	rule := func(projectID string, by identity.Registration, name string, trigger db.Trigger,
		enabled bool) db.AutomationRule {
		t.Helper()
		r, err := e.Automations.CreateRule(ctx, projectID, by.User.ID, automation.NewRule{Name: name, Trigger: trigger,
			Action: json.RawMessage(`{"type": "set_priority", "priority": "high"}`), Enabled: enabled})
		require.NoError(t, err)
		return r
	}
	triage := rule(prj.ID, leaver, "Triage", "task_created", true)
	bump := rule(prj.ID, leaver, "Bump", "task_moved", true)
	off := rule(prj.ID, leaver, "Off", "task_created", false)
	admins := rule(prj.ID, admin, "Admin's", "task_assigned", true)
	mine := rule(ownPrj.ID, leaver, "Mine", "task_created", true)

	require.NoError(t, e.engine.RemoveWorkspaceMember(ctx, tenancy.WorkspaceMemberRemoval{
		WorkspaceID: e.owner.Workspace.ID, UserID: leaver.User.ID, ActorID: e.owner.User.ID}))

	enabled := func(r db.AutomationRule) bool {
		t.Helper()
		got, err := e.Automations.Rule(ctx, r.ProjectID, r.ID)
		require.NoError(t, err)
		return got.Enabled
	}
	require.False(t, enabled(triage))
	require.False(t, enabled(bump))
	require.False(t, enabled(off))
	require.True(t, enabled(admins))
	require.True(t, enabled(mine), "their rules elsewhere stay on")

	var activityID string
	var actor *string
	var meta struct {
		UserID    string `json:"userId"`
		RemovedBy string `json:"removedBy"`
		Rules     []struct{ ID, Name, ProjectID string }
	}
	var recipients []string
	require.NoError(t, e.Pool.QueryRow(ctx, `SELECT id::text, actor_id::text, meta, recipients::text[] FROM activities
		WHERE workspace_id = $1 AND type = $2`, e.owner.Workspace.ID, db.ActivityAutomationRulesDisabled).Scan(&activityID,
		&actor, &meta, &recipients))
	require.Nil(t, actor)
	require.Equal(t, leaver.User.ID, meta.UserID)
	require.Equal(t, e.owner.User.ID, meta.RemovedBy)
	require.Len(t, meta.Rules, 2, "the rules it disabled, not one that was off")
	require.Equal(t, []string{"Bump", "Triage"}, []string{meta.Rules[0].Name, meta.Rules[1].Name})
	require.Equal(t, prj.ID, meta.Rules[0].ProjectID)
	require.ElementsMatch(t, []string{e.owner.User.ID, admin.User.ID}, recipients)

	// Its notify job, in the removal's transaction, tells both admins.
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM river_job WHERE kind = $1 AND args->>'activityId' = $2`,
		jobs.NotifyActivityArgs{}.Kind(), activityID))
	_, err := e.Notifications.FanOutNotifications(ctx, activityID)
	require.NoError(t, err)
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM notifications WHERE activity_id = $1 AND user_id = ANY($2)`,
		activityID, []string{e.owner.User.ID, admin.User.ID}))

	// A card created now runs none of them.
	testfactory.Card(t, e.Engines, prj, nil)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM river_job WHERE kind = $1 AND args->>'projectId' = $2`,
		jobs.AutomationEventArgs{}.Kind(), prj.ID))

	// Enabled again by an admin (a toggle, or an update), a departed member's rule is the admin's: it
	// never acts as the member again. A member's own rule toggled off and on stays theirs.
	on, err := e.Automations.ToggleRule(ctx, prj.ID, triage.ID, admin.User.ID)
	require.NoError(t, err)
	require.True(t, on.Enabled)
	require.Equal(t, admin.User.ID, on.CreatedBy, "the admin who enables it takes it over")
	up, err := e.Automations.UpdateRule(ctx, prj.ID, bump.ID, e.owner.User.ID,
		func(n automation.NewRule) automation.NewRule { n.Enabled = true; return n })
	require.NoError(t, err)
	require.Equal(t, e.owner.User.ID, up.CreatedBy)
	for range 2 {
		_, err = e.Automations.ToggleRule(ctx, prj.ID, admins.ID, e.owner.User.ID)
		require.NoError(t, err)
	}
	kept, err := e.Automations.Rule(ctx, prj.ID, admins.ID)
	require.NoError(t, err)
	require.True(t, kept.Enabled)
	require.Equal(t, admin.User.ID, kept.CreatedBy, "a member's rule stays theirs")
}

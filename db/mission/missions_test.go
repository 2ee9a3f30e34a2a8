package mission_test

import (
	"context"
	"testing"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// A mission is queued with its River job on the missions queue (the job's id kept on the row), the
// agent's step cap when none is asked, and a first status event.
func TestCreateMissionQueuesItsJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{MaxSteps: testfactory.Ptr(int32(7))})

	m := e.cardMission(t, a)
	require.EqualValues(t, db.MissionQueued, m.Status)
	require.Equal(t, int32(7), m.MaxSteps, "no cap asked: the agent's")
	require.Equal(t, e.team.Member.User.ID, m.CreatedBy)
	require.Equal(t, &e.card.ID, m.CardID)
	require.NotNil(t, m.JobID)

	job := rivertest.RequireInserted(ctx, t, riverpgxv5.New(e.Pool), jobs.MissionArgs{},
		&rivertest.RequireInsertedOpts{Queue: jobs.QueueMissions, MaxAttempts: mission.MissionMaxAttempts})
	require.Equal(t, *m.JobID, job.ID)
	require.Equal(t, m.ID, job.Args.MissionID)
	require.Equal(t, []string{"status:queued"}, e.Events(t, m.ID))
	msg, data := e.LastEvent(t, m.ID)
	require.Equal(t, "mission queued", msg)
	require.Equal(t, map[string]any{"agentId": a.ID, "source": mission.MissionSourceAgent}, data)

	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.Equal(t, m.JobID, got.JobID)

	// A smaller cap is kept.
	m2, err := e.engine.CreateMission(ctx, mission.NewMission{WorkspaceID: e.ws(), AgentID: a.ID,
		ActorID: e.team.Owner.User.ID, Source: mission.MissionSourceRuntime, Objective: "o", MaxSteps: 3})
	require.NoError(t, err)
	require.Equal(t, int32(3), m2.MaxSteps)
	require.Nil(t, m2.CardID)
	require.Nil(t, m2.ProjectID)
}

// An mcpOnly agent's mission gets no job: it waits for an MCP client.
func TestCreateMissionForMcpOnlyAgentHasNoJob(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("mcp"), McpOnly: testfactory.Ptr(true)})
	m := e.cardMission(t, a)
	require.EqualValues(t, db.MissionQueued, m.Status)
	require.Nil(t, m.JobID)
	require.Empty(t, e.Jobs(t, jobs.MissionArgs{}.Kind()))
	msg, _ := e.LastEvent(t, m.ID)
	require.Equal(t, "mission queued for an MCP client", msg)
}

// Each refusal of a creation writes nothing: no mission, no job, no event.
func TestCreateMissionRefusalsWriteNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{MaxSteps: testfactory.Ptr(int32(5)),
		MaxMissionsPerHour: testfactory.Ptr(int32(2))})
	other := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("other@example.com")})
	theirs := testfactory.Agent(t, e.Engines, other, &testfactory.AgentOpts{Slug: testfactory.Ptr("theirs")})
	in := func(mod func(*mission.NewMission)) mission.NewMission {
		n := mission.NewMission{WorkspaceID: e.ws(), AgentID: a.ID, ActorID: e.team.Owner.User.ID,
			Source: mission.MissionSourceRuntime, Objective: "o"}
		mod(&n)
		return n
	}

	_, err := e.engine.CreateMission(ctx, in(func(n *mission.NewMission) { n.AgentID = db.NewID() }))
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.CreateMission(ctx, in(func(n *mission.NewMission) { n.AgentID = theirs.ID }))
	require.ErrorIs(t, err, db.ErrNotFound, "another workspace's agent")
	_, err = e.engine.CreateMission(ctx, in(func(n *mission.NewMission) { n.AgentID = "not-a-uuid" }))
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.CreateMission(ctx, in(func(n *mission.NewMission) { n.MaxSteps = 6 }))
	require.ErrorIs(t, err, db.ErrInvalid, "more steps than the agent's cap")
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM agent_missions`))
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'agent_mission'`))

	// The agent's missions per hour: the third is refused as a rate.
	for range 2 {
		_, err = e.engine.CreateMission(ctx, in(func(*mission.NewMission) {}))
		require.NoError(t, err)
	}
	_, err = e.engine.CreateMission(ctx, in(func(*mission.NewMission) {}))
	require.ErrorIs(t, err, mission.ErrTooManyRequests)
	var de *db.Error
	require.ErrorAs(t, err, &de)
	require.Contains(t, de.Msg, "its limit is 2")
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM agent_missions`))
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'agent_mission'`))
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM streams s JOIN agent_missions m ON m.id = s.id`))

	// Another agent's count is its own.
	b := e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("second"), MaxMissionsPerHour: testfactory.Ptr(int32(1))})
	_, err = e.engine.CreateMission(ctx, in(func(n *mission.NewMission) { n.AgentID = b.ID }))
	require.NoError(t, err)
}

// Reads of missions, agents' missions, proposals and cards are within one workspace: another
// workspace's ids are not found.
func TestMissionReadsStayInTheirWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, nil)
	m := e.cardMission(t, a)
	other := e.team.Member.Workspace.ID // the member's personal workspace

	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.Equal(t, m.ID, got.ID)
	_, err = e.engine.Mission(ctx, other, m.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.Mission(ctx, e.ws(), e.card.ID)
	require.ErrorIs(t, err, db.ErrNotFound)

	list, err := e.engine.AgentMissions(ctx, e.ws(), a.ID, db.Page{Limit: 10})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	_, err = e.engine.AgentMissions(ctx, other, a.ID, db.Page{Limit: 10})
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.MissionProposals(ctx, other, m.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.Agent(ctx, other, a.ID)
	require.ErrorIs(t, err, db.ErrNotFound)

	pid, err := e.engine.MissionCardProject(ctx, e.ws(), e.card.ID)
	require.NoError(t, err)
	require.Equal(t, e.team.Project.ID, pid)
	_, err = e.engine.MissionCardProject(ctx, other, e.card.ID)
	require.ErrorIs(t, err, db.ErrNotFound)

	byUser, err := e.engine.AgentByUser(ctx, e.ws(), a.UserID)
	require.NoError(t, err)
	require.Equal(t, a.ID, byUser.ID)
	_, err = e.engine.AgentByUser(ctx, e.ws(), e.team.Owner.User.ID)
	require.ErrorIs(t, err, db.ErrNotFound, "a person is no agent")
	_, err = e.engine.AgentByUser(ctx, other, a.UserID)
	require.ErrorIs(t, err, db.ErrNotFound)
}

// Missions are listed newest first, up to the limit.
func TestAgentMissionsNewestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, nil)
	first := e.cardMission(t, a)
	second := e.cardMission(t, a)
	list, err := e.engine.AgentMissions(ctx, e.ws(), a.ID, db.Page{Limit: 10})
	require.NoError(t, err)
	require.Equal(t, []string{second.ID, first.ID}, []string{list.Items[0].ID, list.Items[1].ID})
	require.Empty(t, list.Next)
	list, err = e.engine.AgentMissions(ctx, e.ws(), a.ID, db.Page{Limit: 1})
	require.NoError(t, err)
	require.Equal(t, []string{second.ID}, []string{list.Items[0].ID})
	list, err = e.engine.AgentMissions(ctx, e.ws(), a.ID, db.Page{Limit: 1, Cursor: list.Next})
	require.NoError(t, err)
	require.Equal(t, []string{first.ID}, []string{list.Items[0].ID})
	require.Empty(t, list.Next)
}

// A workspace's missions are listed newest first, narrowed by status, agent and card together, paged;
// another workspace sees none of them.
func TestWorkspaceMissionsFiltered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("first")})
	b := e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("second")})
	other := testfactory.Card(t, e.Engines, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Other")})
	first := e.cardMission(t, a)
	second := e.cardMission(t, b)
	third, err := e.engine.CreateMission(ctx, mission.NewMission{WorkspaceID: e.ws(), AgentID: a.ID,
		ActorID: e.team.Owner.User.ID, ProjectID: &e.team.Project.ID, CardID: &other.ID,
		Source: mission.MissionSourceAgent, Objective: "Another card"})
	require.NoError(t, err)
	_, err = e.engine.CancelMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: second.ID, ActorID: e.team.Owner.User.ID})
	require.NoError(t, err)

	ids := func(f mission.MissionFilter) []string {
		t.Helper()
		f.WorkspaceID = e.ws()
		if f.Page.Limit == 0 {
			f.Page.Limit = 10
		}
		list, err := e.engine.WorkspaceMissions(ctx, f)
		require.NoError(t, err)
		out := []string{}
		for _, m := range list.Items {
			out = append(out, m.ID)
		}
		return out
	}
	require.Equal(t, []string{third.ID, second.ID, first.ID}, ids(mission.MissionFilter{}))
	require.Equal(t, []string{second.ID}, ids(mission.MissionFilter{Status: string(db.MissionStopped)}))
	require.Equal(t, []string{third.ID, first.ID}, ids(mission.MissionFilter{Status: string(db.MissionQueued)}))
	require.Equal(t, []string{third.ID, first.ID}, ids(mission.MissionFilter{AgentID: a.ID}))
	require.Equal(t, []string{second.ID, first.ID}, ids(mission.MissionFilter{CardID: e.card.ID}))
	require.Equal(t, []string{first.ID}, ids(mission.MissionFilter{AgentID: a.ID, CardID: e.card.ID}))
	require.Empty(t, ids(mission.MissionFilter{AgentID: b.ID, Status: string(db.MissionQueued)}))

	page, err := e.engine.WorkspaceMissions(ctx, mission.MissionFilter{WorkspaceID: e.ws(), Page: db.Page{Limit: 2}})
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	require.NotEmpty(t, page.Next)
	page, err = e.engine.WorkspaceMissions(ctx, mission.MissionFilter{WorkspaceID: e.ws(),
		Page: db.Page{Limit: 2, Cursor: page.Next}})
	require.NoError(t, err)
	require.Equal(t, first.ID, page.Items[0].ID)
	require.Empty(t, page.Next)

	elsewhere, err := e.engine.WorkspaceMissions(ctx, mission.MissionFilter{WorkspaceID: e.team.Member.Workspace.ID,
		Page: db.Page{Limit: 10}})
	require.NoError(t, err)
	require.Empty(t, elsewhere.Items)
}

// The default agent is the workspace's first; a workspace without one is refused as invalid.
func TestDefaultAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	_, err := e.engine.DefaultAgent(ctx, e.ws())
	require.ErrorIs(t, err, db.ErrInvalid)
	first := e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("first")})
	e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("later")})
	got, err := e.engine.DefaultAgent(ctx, e.ws())
	require.NoError(t, err)
	require.Equal(t, first.ID, got.ID)
}

// Cancelling (stopping) a queued mission stops it with cancelledAt and reason person, cancels its job
// and ends its stream; a second cancel is a conflict, and another workspace's is not found (and changes
// nothing).
func TestCancelQueuedMission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m := e.cardMission(t, e.agent(t, nil))

	_, err := e.engine.CancelMission(ctx, db.RecordEdit{WorkspaceID: e.team.Member.Workspace.ID, ID: m.ID,
		ActorID: e.team.Member.User.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionQueued, got.Status)
	require.Equal(t, "available", e.Jobs(t, "agent_mission")[0].State)

	c, err := e.engine.CancelMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: m.ID, ActorID: e.team.Owner.User.ID})
	require.NoError(t, err)
	require.EqualValues(t, db.MissionStopped, c.Status)
	require.NotNil(t, c.CancelledAt)
	require.NotNil(t, c.FinishedAt)
	require.Nil(t, c.Error, "stopped is not failed")
	require.Equal(t, testfactory.Ptr("person"), c.StopReason)
	js := e.Jobs(t, "agent_mission")
	require.Len(t, js, 1)
	require.Equal(t, "cancelled", js[0].State)
	require.Equal(t, []string{"status:queued", "done:stopped"}, e.Events(t, m.ID))
	_, data := e.LastEvent(t, m.ID)
	require.Equal(t, map[string]any{"stoppedBy": e.team.Owner.User.ID, "reason": "person"}, data)

	_, err = e.engine.CancelMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: m.ID, ActorID: e.team.Owner.User.ID})
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "already stopped")
	_, err = e.engine.CancelMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: db.NewID(), ActorID: e.team.Owner.User.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.Len(t, e.Events(t, m.ID), 2, "a refused cancel appends nothing")
}

// Cancelling a mission that awaits approval rejects its pending proposals, with the canceller and a
// reason; the runner's next turn then sees it stopped.
func TestCancelRejectsPendingProposals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m := e.running(t, e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyApproval)}))
	out := e.step(t, m.ID, "turn1:0", "add_comment", map[string]any{"content": "Looks good"})
	require.Equal(t, mission.StepProposed, out.Outcome)

	_, err := e.engine.CancelMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: m.ID, ActorID: e.team.Owner.User.ID})
	require.NoError(t, err)
	ps, err := e.engine.MissionProposals(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	require.EqualValues(t, "rejected", ps[0].Status)
	require.Equal(t, testfactory.Ptr("mission stopped"), ps[0].Reason)
	require.Equal(t, &e.team.Owner.User.ID, ps[0].DecidedBy)
	pending, err := e.engine.PendingProposals(ctx, e.ws(), 10)
	require.NoError(t, err)
	require.Empty(t, pending)

	require.ErrorIs(t, e.engine.MissionTurn(ctx, m.ID, 2), mission.ErrMissionStopped)
	_, err = e.engine.RunMissionStep(ctx, mission.StepInput{MissionID: m.ID, StepKey: "turn2:0", Tool: "add_comment",
		Args: raw(t, map[string]any{"content": "x"})})
	require.ErrorIs(t, err, mission.ErrMissionStopped)
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM comments`))
}

// A mission names its card in the body, so the api's guard never sees the project: the engine refuses a
// mission on an archived project's card as a conflict that writes nothing, and takes it once the project
// is restored.
func TestArchivedProjectRefusesNewMissions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, nil)
	_, err := e.Board.SetProjectArchived(ctx, board.ProjectArchiving{WorkspaceID: e.ws(), ProjectID: e.team.Project.ID,
		ActorID: e.team.Owner.User.ID, Archived: true})
	require.NoError(t, err)

	missions := e.Count(t, `SELECT count(*) FROM agent_missions`)
	newMission := mission.NewMission{WorkspaceID: e.ws(), AgentID: a.ID, ActorID: e.team.Member.User.ID,
		ProjectID: &e.team.Project.ID, CardID: &e.card.ID, Source: mission.MissionSourceAgent, Objective: "Plan it"}
	_, err = e.engine.CreateMission(ctx, newMission)
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "archived")
	require.Equal(t, missions, e.Count(t, `SELECT count(*) FROM agent_missions`))

	_, err = e.Board.SetProjectArchived(ctx, board.ProjectArchiving{WorkspaceID: e.ws(), ProjectID: e.team.Project.ID,
		ActorID: e.team.Owner.User.ID, Archived: false})
	require.NoError(t, err)
	_, err = e.engine.CreateMission(ctx, newMission)
	require.NoError(t, err)
}

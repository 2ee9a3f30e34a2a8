package mission_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// A worker's start is the guarded queued -> running move with its event and the agent's skills; a
// retried job resumes the running mission without a second event; a mission that is not the worker's
// to run (an mcpOnly agent's, a finished one) is left as it is.
func TestStartMission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, nil)
	sk, err := e.engine.CreateSkill(ctx, e.ws(), e.team.Owner.User.ID, "triage", "Triage", "Be brief.")
	require.NoError(t, err)
	_, err = e.engine.AssignSkill(ctx, mission.SkillAssignment{WorkspaceID: e.ws(), AgentID: a.ID, SkillID: sk.ID})
	require.NoError(t, err)
	m := e.cardMission(t, a)

	run, err := e.engine.StartMission(ctx, m.ID)
	require.NoError(t, err)
	require.True(t, run.Proceed)
	require.EqualValues(t, db.MissionRunning, run.Mission.Status)
	require.NotNil(t, run.Mission.StartedAt)
	require.Equal(t, a.ID, run.Agent.ID)
	require.Len(t, run.Skills, 1)
	require.Equal(t, "Be brief.", run.Skills[0].Instructions)
	require.Equal(t, []string{"status:queued", "status:running", "ack:running"}, e.Events(t, m.ID))
	msg, data := e.LastEvent(t, m.ID)
	require.Equal(t, a.Name+" picked up the mission", msg)
	require.Equal(t, map[string]any{"agentId": a.ID, "plan": ""}, data, "no model call yet: no plan")
	require.Nil(t, run.Conversation)

	again, err := e.engine.StartMission(ctx, m.ID)
	require.NoError(t, err)
	require.True(t, again.Proceed, "a retried job resumes")
	require.Equal(t, run.Mission.StartedAt, again.Mission.StartedAt)
	require.Equal(t, []string{"status:queued", "status:running", "ack:running", "ack:running"}, e.Events(t, m.ID),
		"a retried job acknowledges again, with no second start")

	_, err = e.engine.FinishMission(ctx, m.ID, "done", "")
	require.NoError(t, err)
	done, err := e.engine.StartMission(ctx, m.ID)
	require.NoError(t, err)
	require.False(t, done.Proceed)
	require.EqualValues(t, db.MissionCompleted, done.Mission.Status)

	mcp := e.cardMission(t, e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("mcp"),
		McpOnly: testfactory.Ptr(true)}))
	r, err := e.engine.StartMission(ctx, mcp.ID)
	require.NoError(t, err)
	require.False(t, r.Proceed)
	require.EqualValues(t, db.MissionQueued, r.Mission.Status)
	require.Equal(t, []string{"status:queued"}, e.Events(t, mcp.ID))

	_, err = e.engine.StartMission(ctx, db.NewID())
	require.ErrorIs(t, err, db.ErrNotFound)
}

// An autonomous agent's calls apply through the store as its service user (activity included) and are
// counted; a call replayed under the same key (a retried job) is answered from the record and applied
// no second time.
func TestAutonomousStepsApplyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	m := e.running(t, a)

	out := e.step(t, m.ID, "turn1:0", "update_card", map[string]any{"priority": "high", "title": "Fix the outage now"})
	require.Equal(t, mission.StepApplied, out.Outcome)
	require.Equal(t, "ok: card updated", out.Text)
	require.False(t, out.Replayed)
	c := e.readCard(t)
	require.EqualValues(t, "high", c.Priority)
	require.Equal(t, "Fix the outage now", c.Title)

	out = e.step(t, m.ID, "turn1:1", "add_comment", map[string]any{"content": "  On it  "})
	require.Equal(t, "ok: comment posted", out.Text)
	out = e.step(t, m.ID, "turn1:2", "add_checklist_items", map[string]any{"items": []string{"Find the node", "Restart"}})
	require.Equal(t, "ok: 2 checklist items added", out.Text)
	out = e.step(t, m.ID, "turn1:3", "move_card", map[string]any{"columnId": e.team.Project.Columns[1]})
	require.Equal(t, "ok: card moved", out.Text)
	out = e.step(t, m.ID, "turn1:4", "create_card", map[string]any{"title": "Postmortem"})
	require.True(t, strings.HasPrefix(out.Text, "ok: card created: "), out.Text)

	c = e.readCard(t)
	require.Equal(t, e.team.Project.Columns[1], c.ColumnID)
	require.Equal(t, int32(2), c.ChecklistTotal)
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM comments WHERE card_id = $1 AND author_id = $2 AND content = 'On it'`, e.card.ID, a.UserID))
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM cards WHERE project_id = $1 AND title = 'Postmortem' AND created_by = $2`, e.team.Project.ID,
		a.UserID))
	require.GreaterOrEqual(t, e.Count(t, `SELECT count(*) FROM activities WHERE card_id = $1 AND actor_id = $2`, e.card.ID,
		a.UserID), 4, "the agent's changes carry their activity")
	require.Equal(t, 5, e.Count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1 AND outcome = 'applied'`,
		m.ID))

	// The same key again, with other arguments: the recorded result, nothing applied.
	out = e.step(t, m.ID, "turn1:0", "update_card", map[string]any{"priority": "low"})
	require.True(t, out.Replayed)
	require.Equal(t, mission.StepApplied, out.Outcome)
	require.Equal(t, "ok: card updated", out.Text)
	require.EqualValues(t, "high", e.readCard(t).Priority)
	out = e.step(t, m.ID, "turn1:1", "add_comment", map[string]any{"content": "On it"})
	require.True(t, out.Replayed)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM comments WHERE card_id = $1`, e.card.ID))

	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.Equal(t, int32(5), got.Actions, "replays are not counted")
	evs := e.Events(t, m.ID)
	require.Equal(t, []string{"status:queued", "status:running", "ack:running", "step:running", "step:running",
		"step:running",
		"step:running", "step:running"}, evs)
	_, data := e.LastEvent(t, m.ID)
	require.Equal(t, "turn1:4", data["stepKey"])
	require.Equal(t, "applied", data["outcome"])
}

// A supervised agent applies comments and checklist additions and proposes every other change; the
// proposal holds the call, pending, and nothing of it is applied.
func TestSupervisedStepsProposeWhatNeedsApproval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m := e.running(t, e.agent(t, nil))

	require.Equal(t, mission.StepApplied, e.step(t, m.ID, "turn1:0", "add_comment",
		map[string]any{"content": "Noted"}).Outcome)
	require.Equal(t, mission.StepApplied, e.step(t, m.ID, "turn1:1", "add_checklist_items",
		map[string]any{"items": []string{"a"}}).Outcome)
	out := e.step(t, m.ID, "turn1:2", "update_card", map[string]any{"priority": "high"})
	require.Equal(t, mission.StepProposed, out.Outcome)
	require.NotEmpty(t, out.ProposalID)
	require.Contains(t, out.Text, out.ProposalID)
	require.Equal(t, "medium", e.readCard(t).Priority, "a proposal applies nothing")

	ps, err := e.engine.MissionProposals(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	require.Equal(t, out.ProposalID, ps[0].ID)
	require.EqualValues(t, "pending", ps[0].Status)
	require.Equal(t, "update_card", ps[0].Tool)
	require.Equal(t, "turn1:2", ps[0].StepKey)
	require.Equal(t, "because", ps[0].Explanation)
	require.JSONEq(t, `{"priority":"high"}`, string(ps[0].Args))
	pending, err := e.engine.PendingProposals(ctx, e.ws(), 10)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	pending, err = e.engine.PendingProposals(ctx, e.team.Member.Workspace.ID, 10)
	require.NoError(t, err)
	require.Empty(t, pending, "another workspace's proposals are not listed")

	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.Equal(t, int32(3), got.Actions, "a proposal counts as an action")
	evs := e.Events(t, m.ID)
	require.Equal(t, []string{"proposal:running", "step:running"}, evs[len(evs)-2:])
}

// An approval agent proposes every card change, but its cockpit suggestions are stored at once: a
// suggestion is itself what a person reviews.
func TestApprovalAgentProposesCardChangesButSuggestsPilotageActions(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyApproval)})
	m := e.running(t, a)
	require.Equal(t, mission.StepProposed, e.step(t, m.ID, "turn1:0", "add_comment",
		map[string]any{"content": "x"}).Outcome)
	out := e.step(t, m.ID, "turn1:1", "propose_pilotage_action", map[string]any{"actionType": "noop",
		"explanation": "why not"})
	require.Equal(t, mission.StepApplied, out.Outcome, out.Text)
	require.Contains(t, out.Text, "cockpit action")
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM pilotage_actions WHERE agent_mission_id = $1 AND status = 'suggested' AND proposed_by = $2`,
		m.ID, a.UserID))
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM comments`))
}

// A call the agent may not make, with bad arguments, or that the store refuses is recorded as refused
// with the reason the model is told; it applies nothing and is not counted as an action.
func TestRefusedStepsApplyNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous),
		Tools: []string{"update_card", "move_card"}})
	m := e.running(t, a)
	elsewhere := testfactory.NewProject(t, e.Engines, e.team.Owner,
		&testfactory.ProjectOpts{Name: testfactory.Ptr("Elsewhere")})
	before := e.readCard(t)

	for key, tc := range map[string]struct {
		tool string
		args any
		text string
	}{
		"turn1:0": {"add_comment", map[string]any{"content": "hi"}, `error: this agent may not use the tool "add_comment"`},
		"turn1:1": {"update_card", map[string]any{"priority": "urgent"}, "error: priority must be low, medium or high"},
		"turn1:2": {"update_card", map[string]any{}, "error: update_card needs at least one field to change"},
		"turn1:3": {"update_card", map[string]any{"priority": "high", "colour": "red"}, "error: "},
		"turn1:4": {"move_card", map[string]any{"columnId": elsewhere.Columns[0]}, "error: "},
		"turn1:5": {"move_card", map[string]any{"columnId": "not-a-uuid"}, "error: "},
	} {
		out := e.step(t, m.ID, key, tc.tool, tc.args)
		require.Equal(t, mission.StepRefused, out.Outcome, key)
		require.True(t, strings.HasPrefix(out.Text, tc.text), "%s: %s", key, out.Text)
	}
	after := e.readCard(t)
	require.Equal(t, before.ColumnID, after.ColumnID)
	require.Equal(t, before.Priority, after.Priority)
	require.Equal(t, before.UpdatedAt, after.UpdatedAt)
	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.Equal(t, int32(0), got.Actions)
	require.Equal(t, 6, e.Count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1 AND outcome = 'refused'`,
		m.ID))
	require.Equal(t, 0, e.Count(t,
		`SELECT count(*) FROM activities WHERE actor_id = $1 AND type <> 'mission_status_changed'`, a.UserID))

	// The mission goes on after a refusal: a good call still applies.
	require.Equal(t, mission.StepApplied, e.step(t, m.ID, "turn2:0", "move_card",
		map[string]any{"columnId": e.team.Project.Columns[2]}).Outcome)
	require.Equal(t, e.team.Project.Columns[2], e.readCard(t).ColumnID)
}

// Past the agent's maxActionsPerMission every call is refused, telling the model to stop.
func TestStepsPastTheActionLimitAreRefused(t *testing.T) {
	t.Parallel()
	e := setup(t)
	m := e.running(t, e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous),
		MaxActionsPerMission: testfactory.Ptr(int32(2))}))
	require.Equal(t, mission.StepApplied, e.step(t, m.ID, "turn1:0", "add_comment",
		map[string]any{"content": "one"}).Outcome)
	require.Equal(t, mission.StepApplied, e.step(t, m.ID, "turn1:1", "add_comment",
		map[string]any{"content": "two"}).Outcome)
	out := e.step(t, m.ID, "turn1:2", "add_comment", map[string]any{"content": "three"})
	require.Equal(t, mission.StepRefused, out.Outcome)
	require.Contains(t, out.Text, "limit of 2 actions")
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM comments WHERE card_id = $1`, e.card.ID))
}

// A mission without a card may only create cards (with a project) or suggest cockpit actions.
func TestStepsOfAMissionWithoutCard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	start := func(projectID *string) string {
		m, err := e.engine.CreateMission(ctx, mission.NewMission{WorkspaceID: e.ws(), AgentID: a.ID,
			ActorID: e.team.Owner.User.ID, ProjectID: projectID, Source: mission.MissionSourceRuntime, Objective: "o"})
		require.NoError(t, err)
		_, err = e.engine.StartMission(ctx, m.ID)
		require.NoError(t, err)
		return m.ID
	}
	inProject := start(&e.team.Project.ID)
	out := e.step(t, inProject, "turn1:0", "add_comment", map[string]any{"content": "x"})
	require.Equal(t, "error: this mission has no card", out.Text)
	require.Equal(t, mission.StepApplied, e.step(t, inProject, "turn1:1", "create_card",
		map[string]any{"title": "New"}).Outcome)

	nowhere := start(nil)
	out = e.step(t, nowhere, "turn1:0", "create_card", map[string]any{"title": "New"})
	require.Equal(t, "error: this mission has no project, so card tools cannot be used", out.Text)
	require.Equal(t, mission.StepApplied, e.step(t, nowhere, "turn1:1", "propose_pilotage_action",
		map[string]any{"actionType": "noop", "explanation": "e"}).Outcome)
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, e.team.Project.ID))
}

// A model turn is counted while the mission runs; once it no longer runs the runner is told to stop,
// and its steps are refused without a write.
func TestMissionTurnStopsWithTheMission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m := e.running(t, e.agent(t, nil))
	require.NoError(t, e.engine.MissionTurn(ctx, m.ID, 3))
	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.Equal(t, int32(3), got.Steps)
	status, err := e.engine.MissionStatus(ctx, m.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionRunning, status)

	_, err = e.engine.FinishMission(ctx, m.ID, "", "the model gave up")
	require.NoError(t, err)
	require.ErrorIs(t, e.engine.MissionTurn(ctx, m.ID, 4), mission.ErrMissionStopped)
	_, err = e.engine.RunMissionStep(ctx, mission.StepInput{MissionID: m.ID, StepKey: "turn4:0", Tool: "add_comment",
		Args: raw(t, map[string]any{"content": "x"})})
	require.ErrorIs(t, err, mission.ErrMissionStopped)
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM mission_steps`))
	_, err = e.engine.MissionStatus(ctx, db.NewID())
	require.ErrorIs(t, err, db.ErrNotFound)
}

// A mission ends completed with the model's summary, failed with an error, or awaiting approval while
// proposals are pending; a mission that no longer runs is left as it is.
func TestFinishMission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, nil)

	ok := e.running(t, a)
	done, err := e.engine.FinishMission(ctx, ok.ID, "All planned", "")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionCompleted, done.Status)
	require.NotNil(t, done.FinishedAt)
	require.Nil(t, done.Error)
	require.Equal(t, []string{"status:queued", "status:running", "ack:running", "done:completed"}, e.Events(t, ok.ID))
	// Each status change is an event of the workspace's feed too, in the same transaction, notifying nobody.
	require.Equal(t, 3, e.Count(t,
		`SELECT count(*) FROM activities WHERE type = $1 AND meta->>'missionId' = $2 AND actor_id = $3`,
		db.ActivityMissionStatusChanged, ok.ID, a.UserID))
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM activities WHERE type = $1 AND meta->>'missionId' = $2 AND meta->>'status' = 'completed'`,
		db.ActivityMissionStatusChanged, ok.ID))
	msg, _ := e.LastEvent(t, ok.ID)
	require.Equal(t, "All planned", msg)

	// Finishing again (a second attempt) writes nothing.
	again, err := e.engine.FinishMission(ctx, ok.ID, "", "late failure")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionCompleted, again.Status)
	require.Len(t, e.Events(t, ok.ID), 4)

	bad := e.running(t, a)
	failed, err := e.engine.FinishMission(ctx, bad.ID, "", "the model kept refusing")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionFailed, failed.Status)
	require.Equal(t, testfactory.Ptr("the model kept refusing"), failed.Error)
	require.Nil(t, failed.CancelledAt)
	msg, _ = e.LastEvent(t, bad.ID)
	require.Equal(t, "the model kept refusing", msg)

	held := e.running(t, a)
	e.step(t, held.ID, "turn1:0", "update_card", map[string]any{"priority": "low"})
	waiting, err := e.engine.FinishMission(ctx, held.ID, "", "")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionAwaitingApproval, waiting.Status)
	require.Nil(t, waiting.FinishedAt)
	evs := e.Events(t, held.ID)
	require.Equal(t, "status:awaiting_approval", evs[len(evs)-1])
	msg, _ = e.LastEvent(t, held.ID)
	require.Equal(t, "mission awaiting approval", msg)

	_, err = e.engine.FinishMission(ctx, db.NewID(), "", "")
	require.ErrorIs(t, err, db.ErrNotFound)
}

// approvalMission is a mission of an approval agent, requested by the member, that proposed three
// changes and awaits their decision.
func approvalMission(t *testing.T, e *env) (db.AgentMission, map[string]string) {
	t.Helper()
	m := e.running(t, e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyApproval)}))
	ids := map[string]string{}
	for i, call := range []struct {
		tool string
		args any
	}{
		{"update_card", map[string]any{"priority": "high"}},
		{"add_checklist_items", map[string]any{"items": []string{"one", "two"}}},
		{"add_comment", map[string]any{"content": "Plan attached"}},
	} {
		out := e.step(t, m.ID, "turn1:"+string(rune('0'+i)), call.tool, call.args)
		require.Equal(t, mission.StepProposed, out.Outcome)
		ids[call.tool] = out.ProposalID
	}
	m, err := e.engine.FinishMission(context.Background(), m.ID, "", "")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionAwaitingApproval, m.Status)
	return m, ids
}

// Proposals are decided by the mission's requester or a reviewer: an approval applies the call as the
// agent, a rejection keeps its reason, deciding twice is a conflict, and the last decision completes
// the mission.
func TestDecideProposal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m, ids := approvalMission(t, e)
	requester := mission.Decider{UserID: e.team.Member.User.ID}

	p, err := e.engine.DecideProposal(ctx, e.ws(), ids["add_checklist_items"], requester, true, "ignored")
	require.NoError(t, err)
	require.EqualValues(t, "approved", p.Status)
	require.Nil(t, p.Reason, "an approval keeps no reason")
	require.Equal(t, &e.team.Member.User.ID, p.DecidedBy)
	require.NotNil(t, p.DecidedAt)
	require.Equal(t, int32(2), e.readCard(t).ChecklistTotal)
	_, data := e.LastEvent(t, m.ID)
	require.Equal(t, "2 checklist items added", data["result"])

	_, err = e.engine.DecideProposal(ctx, e.ws(), ids["add_checklist_items"], requester, true, "")
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "already approved")
	_, err = e.engine.DecideProposal(ctx, e.ws(), ids["add_checklist_items"], requester, false, "")
	require.ErrorIs(t, err, db.ErrConflict)
	require.Equal(t, int32(2), e.readCard(t).ChecklistTotal, "a second approval applies nothing")

	p, err = e.engine.DecideProposal(ctx, e.ws(), ids["add_comment"], mission.Decider{UserID: e.team.Owner.User.ID,
		Reviewer: true}, false, "Not needed")
	require.NoError(t, err)
	require.EqualValues(t, "rejected", p.Status)
	require.Equal(t, testfactory.Ptr("Not needed"), p.Reason)
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM comments`))
	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionAwaitingApproval, got.Status, "one proposal is still pending")

	_, err = e.engine.DecideProposal(ctx, e.ws(), ids["update_card"], requester, true, "")
	require.NoError(t, err)
	require.EqualValues(t, "high", e.readCard(t).Priority)
	got, err = e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionCompleted, got.Status)
	require.NotNil(t, got.FinishedAt)
	evs := e.Events(t, m.ID)
	require.Equal(t, []string{"proposal:awaiting_approval", "proposal:awaiting_approval", "proposal:awaiting_approval",
		"done:completed"}, evs[len(evs)-4:])
	msg, _ := e.LastEvent(t, m.ID)
	// The mission says what became of each action, in the order the agent called them: the agent's summary
	// was written before the decisions.
	require.Equal(t, "Every proposal was decided; mission completed. Applied: update the card; add checklist items. "+
		"Rejected: post a comment.", msg)
}

// Someone who neither requested the mission nor reviews may not decide, another workspace's proposal
// is not found, and neither changes anything.
func TestDecideProposalRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m, ids := approvalMission(t, e)
	viewer, _ := testfactory.Member(t, e.Engines, e.team.Owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("viewer@example.com")})
	evs := len(e.Events(t, m.ID))

	_, err := e.engine.DecideProposal(ctx, e.ws(), ids["update_card"], mission.Decider{UserID: viewer.User.ID}, true, "")
	require.ErrorIs(t, err, db.ErrForbidden)
	_, err = e.engine.DecideProposal(ctx, e.ws(), ids["update_card"], mission.Decider{UserID: viewer.User.ID}, false, "no")
	require.ErrorIs(t, err, db.ErrForbidden)
	_, err = e.engine.DecideProposal(ctx, e.team.Member.Workspace.ID, ids["update_card"],
		mission.Decider{UserID: e.team.Member.User.ID, Reviewer: true}, true, "")
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.DecideProposal(ctx, e.ws(), m.ID, mission.Decider{UserID: e.team.Owner.User.ID, Reviewer: true},
		true, "")
	require.ErrorIs(t, err, db.ErrNotFound)

	ps, err := e.engine.MissionProposals(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	for _, p := range ps {
		require.EqualValues(t, "pending", p.Status)
	}
	require.EqualValues(t, "medium", e.readCard(t).Priority)
	require.Len(t, e.Events(t, m.ID), evs)

	// The same person as a reviewer may.
	_, err = e.engine.DecideProposal(ctx, e.ws(), ids["update_card"], mission.Decider{UserID: viewer.User.ID,
		Reviewer: true}, true, "")
	require.NoError(t, err)
	require.EqualValues(t, "high", e.readCard(t).Priority)
}

// An approved call that can no longer apply (its column was deleted) is refused, and the proposal
// stays pending for another decision.
func TestApprovalThatCannotApplyStaysPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	col, err := e.Board.CreateColumn(ctx, e.team.Project.ID, "Later")
	require.NoError(t, err)
	m := e.running(t, e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyApproval)}))
	out := e.step(t, m.ID, "turn1:0", "move_card", map[string]any{"columnId": col.ID})
	require.Equal(t, mission.StepProposed, out.Outcome)
	require.NoError(t, e.Board.DeleteColumn(ctx, e.team.Project.ID, col.ID))

	_, err = e.engine.DecideProposal(ctx, e.ws(), out.ProposalID, mission.Decider{UserID: e.team.Member.User.ID}, true, "")
	require.Error(t, err)
	var de *db.Error
	require.ErrorAs(t, err, &de, "a refusal, not a failure: %v", err)
	ps, err := e.engine.MissionProposals(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.EqualValues(t, "pending", ps[0].Status)
	require.Equal(t, e.team.Project.Columns[0], e.readCard(t).ColumnID)

	p, err := e.engine.DecideProposal(ctx, e.ws(), out.ProposalID, mission.Decider{UserID: e.team.Member.User.ID}, false,
		"column gone")
	require.NoError(t, err)
	require.EqualValues(t, "rejected", p.Status)
}

// The model sees the mission's card with its column, checklist, labels and comments; a mission
// without a card, or whose card was deleted, shows none.
func TestMissionCardSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	card := testfactory.Card(t, e.Engines, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Ship"),
		Column: testfactory.Ptr(1), In: board.NewCard{Description: "Ship it", Priority: "high",
			Checklist: []board.ChecklistItemInput{{Title: "build", Done: true}, {Title: "deploy"}}}})
	label, err := e.Board.CreateLabel(ctx, e.team.Project.ID, "urgent", "#ff0000")
	require.NoError(t, err)
	_, err = e.Board.AddCardLabel(ctx, db.CardEdit{ProjectID: e.team.Project.ID, CardID: card.ID,
		ActorID: e.team.Owner.User.ID}, label.ID)
	require.NoError(t, err)
	_, err = e.Board.CreateComment(ctx, db.CardEdit{ProjectID: e.team.Project.ID, CardID: card.ID,
		ActorID: e.team.Owner.User.ID}, "Go ahead")
	require.NoError(t, err)
	cols, err := e.Board.Columns(ctx, e.team.Project.ID)
	require.NoError(t, err)

	m := db.AgentMission{ProjectID: &e.team.Project.ID, CardID: &card.ID}
	snap, err := e.engine.MissionCardSnapshot(ctx, m)
	require.NoError(t, err)
	require.NotNil(t, snap)
	require.Equal(t, mission.MissionCard{ID: card.ID, Title: "Ship", Description: "Ship it", Priority: "high",
		Column: cols[1].Name, Checklist: []board.ChecklistItemInput{{Title: "build", Done: true}, {Title: "deploy"}},
		Comments: []string{"Go ahead"}, Labels: []string{"urgent"}}, *snap)

	snap, err = e.engine.MissionCardSnapshot(ctx, db.AgentMission{ProjectID: &e.team.Project.ID})
	require.NoError(t, err)
	require.Nil(t, snap)
	require.NoError(t, e.Board.DeleteCard(ctx, db.CardEdit{ProjectID: e.team.Project.ID, CardID: card.ID,
		ActorID: e.team.Owner.User.ID}))
	snap, err = e.engine.MissionCardSnapshot(ctx, m)
	require.NoError(t, err)
	require.Nil(t, snap)
}

// The result of adding checklist items agrees with its count: "1 checklist item added".
func TestChecklistResultAgreesWithCount(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	m := e.running(t, a)
	out := e.step(t, m.ID, "turn1:0", "add_checklist_items", map[string]any{"items": []string{"Write the postmortem"}})
	require.Equal(t, "ok: 1 checklist item added", out.Text)
	out = e.step(t, m.ID, "turn1:1", "add_checklist_items", map[string]any{"items": []string{"Find the node", "Restart"}})
	require.Equal(t, "ok: 2 checklist items added", out.Text)
}

package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// laterSteps wait a week, then create a card in the team's project: a run that acts long after its
// start.
func (e *env) laterSteps() []step {
	return []step{
		{ID: "wait", Type: "wait", Params: map[string]any{"duration": "168h"}},
		{ID: "make", Type: "create_card", Needs: []string{"wait"}, Params: map[string]any{"projectId": e.team.Project.ID,
			"title": "Made later"}},
	}
}

// startAs starts a run of p as userID.
func (e *env) startAs(t *testing.T, p db.Pipeline, userID string) pipeline.RunWithSteps {
	t.Helper()
	r, err := e.engine.StartRun(context.Background(), db.RecordEdit{WorkspaceID: e.ws(), ID: p.ID, ActorID: userID})
	require.NoError(t, err)
	return r
}

// A step acts in its run's starter's name only while the starter may still start the run (workspace
// admin, or owner or admin of the organization): an admin demoted during the run's wait has their run
// fail at its next step with a clear error, and nothing is created as them. An organization owner who
// is no workspace member acts as admin, so their run goes on.
func TestStepFailsWhenItsStarterIsNoLongerAdmin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	tenancyEngine := e.Tenancy
	admin := e.team.Member.User.ID
	_, err := tenancyEngine.UpdateWorkspaceMember(ctx, e.ws(), admin, testfactory.Ptr("admin"), nil)
	require.NoError(t, err)
	p := e.pipeline(t, e.laterSteps()...)
	r := e.startAs(t, p, admin)

	_, err = tenancyEngine.UpdateWorkspaceMember(ctx, e.ws(), admin, testfactory.Ptr("member"), nil)
	require.NoError(t, err)
	cur := e.drive(t, r)
	require.Equal(t, pipeline.RunFailed, cur.Run.Status)
	require.Equal(t, map[string]string{"wait": "failed", "make": "skipped"}, statuses(cur))
	require.Equal(t, pipeline.MsgStarterLeft, *stepOf(t, cur, "wait").Error)
	require.Equal(t, "step wait failed: "+pipeline.MsgStarterLeft, *cur.Run.Error)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM cards WHERE title = 'Made later'`))

	// The organization's owner, with no workspace membership left, still acts as its admin.
	_, err = e.Pool.Exec(ctx, `DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, e.ws(), e.owner())
	require.NoError(t, err)
	cur = e.drive(t, e.startAs(t, p, e.owner()))
	require.Equal(t, pipeline.RunCompleted, cur.Run.Status, "%v", statuses(cur))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM cards WHERE title = 'Made later' AND created_by = $1`, e.owner()))
}

// An admin who starts a run and is removed from the organization during its wait has the run
// cancelled by the removal, with the mission a step of it waits for: its jobs do nothing after, and
// no card is ever created in their name.
func TestRunOfARemovedStarterIsCancelled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	admin := e.team.Member.User.ID
	_, err := e.Tenancy.UpdateWorkspaceMember(ctx, e.ws(), admin, testfactory.Ptr("admin"), nil)
	require.NoError(t, err)
	a := testfactory.Agent(t, e.Engines, e.team.Owner, nil)
	p := e.pipeline(t, append(e.laterSteps(), step{ID: "agent", Type: "run_agent_mission",
		Params: map[string]any{"agentId": a.ID, "objective": "Plan"}})...)
	r := e.startAs(t, p, admin)
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "agent"))
	missionID := output(t, e.read(t, r), "agent")["missionId"].(string)

	require.NoError(t, e.Tenancy.RemoveOrganizationMember(ctx,
		tenancy.OrgMemberRemoval{OrgID: e.team.Owner.Organization.ID, UserID: admin, ActorID: e.owner()}))

	cur := e.read(t, r)
	require.Equal(t, pipeline.RunCancelled, cur.Run.Status)
	require.Equal(t, map[string]string{"wait": "cancelled", "make": "cancelled", "agent": "cancelled"}, statuses(cur))
	m, err := e.Missions.Mission(ctx, e.ws(), missionID)
	require.NoError(t, err)
	require.NotNil(t, m.CancelledAt, "the mission its step waited for is cancelled")
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "wait"), "the wait's job, had it run anyway")
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "make"))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM cards WHERE title = 'Made later'`))
	require.Equal(t, pipeline.RunCancelled, e.read(t, r).Run.Status)
}

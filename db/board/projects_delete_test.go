package board_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// Deleting a project cancels the jobs of its unsettled missions (they go with it), leaves another
// workspace's project alone, and finds nothing the second time.
func TestDeleteProjectCancelsMissionJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	owner := testfactory.User(t, b.Engines, nil)
	p := testfactory.NewProject(t, b.Engines, owner, nil)
	agent := testfactory.Agent(t, b.Engines, owner, nil)
	m, err := b.Missions.CreateMission(ctx, mission.NewMission{WorkspaceID: owner.Workspace.ID, AgentID: agent.ID,
		ActorID: owner.User.ID, ProjectID: &p.ID, Source: "agent", Objective: "Tidy", MaxSteps: 5})
	require.NoError(t, err)
	require.NotNil(t, m.JobID)

	otherEmail := "other@example.com"
	other := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: &otherEmail})
	require.ErrorIs(t, b.Board.DeleteProject(ctx, board.ProjectDeletion{WorkspaceID: other.Workspace.ID, ProjectID: p.ID,
		ActorID: other.User.ID}), db.ErrNotFound)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM projects WHERE id = $1`, p.ID))

	require.NoError(t, b.Board.DeleteProject(ctx, board.ProjectDeletion{WorkspaceID: owner.Workspace.ID, ProjectID: p.ID,
		ActorID: owner.User.ID}))
	require.Zero(t, b.Count(t, `SELECT count(*) FROM agent_missions WHERE id = $1`, m.ID))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'cancelled'`, *m.JobID))
	require.Zero(t, b.Count(t, `SELECT count(*) FROM activities WHERE type = $1`, db.ActivityProjectDeleted),
		"the deleter alone was a member")
	require.ErrorIs(t, b.Board.DeleteProject(ctx, board.ProjectDeletion{WorkspaceID: owner.Workspace.ID, ProjectID: p.ID,
		ActorID: owner.User.ID}), db.ErrNotFound)
}

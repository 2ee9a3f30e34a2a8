package board_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// testBundle is one test's board on a fresh database (testfactory's bundle: the pool, an insert-only
// River client as the api process has, the store), and a registered user with a project.
type testBundle struct {
	testfactory.Bundle
	owner identity.Registration
	// project is the owner's project Launch, with its columns' ids.
	project testfactory.Project
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	b := &testBundle{Bundle: *testfactory.Store(t)}
	b.owner = testfactory.User(t, b.Engines, nil)
	b.project = testfactory.NewProject(t, b.Engines, b.owner, nil)
	return b
}

// newCard is the input of a card of the bundle's project, created by its owner in its first column:
// for the tests whose subject is the create itself (what it writes, enqueues or refuses).
func (b *testBundle) newCard(title string) board.NewCard {
	return board.NewCard{WorkspaceID: b.owner.Workspace.ID, ProjectID: b.project.ID, ColumnID: b.project.Columns[0],
		ActorID: b.owner.User.ID, Title: title}
}

// addFollower makes a second member of the workspace a member of the bundle's project, so that its
// activity notifies someone besides the actor, and removes the jobs joining them enqueued (the tests
// that call it look at what a later write enqueues).
func (b *testBundle) addFollower(t *testing.T) identity.Registration {
	t.Helper()
	ctx := context.Background()
	follower, _ := testfactory.Member(t, b.Engines, b.owner, nil)
	_, err := b.Pool.Exec(ctx, `INSERT INTO project_members (project_id, user_id) VALUES ($1, $2)`, b.project.ID,
		follower.User.ID)
	require.NoError(t, err)
	_, err = b.Pool.Exec(ctx, `DELETE FROM river_job`)
	require.NoError(t, err)
	return follower
}

package workers

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/document"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// notifications lists a user's notifications, newest first.
func (b *testBundle) notifications(t *testing.T, u identity.Registration) []db.Notification {
	t.Helper()
	l, err := b.Notifications.Notifications(context.Background(), u.User.ID, false, db.Page{Limit: 200})
	require.NoError(t, err)
	return l.Items
}

func TestNotifyWorkerFansOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	outsider := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("outsider@example.com")})

	c := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Write docs")})
	b.update(t, tm, tm.Owner, c.ID, board.CardPatch{ColumnID: &tm.Project.Columns[1]})
	b.update(t, tm, tm.Member, c.ID, board.CardPatch{Title: testfactory.Ptr("Write the docs")})
	// member_added, card_created, card_moved, card_updated: one job each.
	require.Equal(t, 4, b.drain(t, jobs.NotifyActivityArgs{}.Kind()))

	// The member hears about being added, the owner's create and move, never about their own change.
	list := b.notifications(t, tm.Member)
	require.Len(t, list, 3)
	require.Equal(t, db.ActivityMemberAdded, list[2].Type)
	require.Equal(t, db.ActivityCardMoved, list[0].Type)
	var meta map[string]any
	require.NoError(t, json.Unmarshal(list[0].Meta, &meta))
	require.Equal(t, tm.Project.Columns[0], meta["fromColumn"])
	require.Equal(t, tm.Project.Columns[1], meta["toColumn"])
	require.Equal(t, db.ActivityCardCreated, list[1].Type)
	require.Nil(t, list[0].ReadAt)

	// The owner hears about the member's update only.
	list = b.notifications(t, tm.Owner)
	require.Len(t, list, 1)
	require.Equal(t, db.ActivityCardUpdated, list[0].Type)

	// Someone outside the project hears nothing.
	require.Empty(t, b.notifications(t, outsider))
}

func TestNotifyWorkerNotifiesAssignee(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := testfactory.User(t, b.Engines, nil)
	helper := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("helper@example.com")})
	testfactory.Join(t, b.Engines, owner, helper)
	tm := testfactory.Team{Owner: owner, Project: testfactory.NewProject(t, b.Engines, owner,
		&testfactory.ProjectOpts{Name: testfactory.Ptr("Solo")})}
	// helper is not a project member but becomes the assignee: they are notified of the assignment.
	c := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Fix bug")})
	b.update(t, tm, owner, c.ID, board.CardPatch{AssigneeID: db.Opt[string]{Set: true, Value: &helper.User.ID}})
	b.drain(t, jobs.NotifyActivityArgs{}.Kind())
	list := b.notifications(t, helper)
	require.Len(t, list, 1)
	require.Equal(t, db.ActivityCardAssigned, list[0].Type)
}

func TestNotifyJobRetriedDuplicatesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	c := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Once")})
	var activityID string
	require.NoError(t, b.Pool.QueryRow(ctx, `SELECT id FROM activities WHERE type = 'card_created' AND card_id = $1`,
		c.ID).Scan(&activityID))
	for range 3 { // the job, run as often as River might retry it
		workNew(t, b, &NotifyWorker{deps: b.deps}, jobs.NotifyActivityArgs{ActivityID: activityID}, nil)
	}
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM notifications WHERE activity_id = $1`, activityID))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM notifications WHERE user_id = $1`, tm.Member.User.ID))
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM notifications WHERE user_id = $1`, tm.Owner.User.ID))
}

func TestNotifyWorkerDocumentReview(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	owner := testfactory.User(t, b.Engines, nil)
	author := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("author@example.com")})
	testfactory.Join(t, b.Engines, owner, author) // a member with the pilotage viewer role: not a reviewer
	ws := owner.Workspace.ID
	d := testfactory.Document(t, b.Engines, owner, &testfactory.DocumentOpts{Title: testfactory.Ptr("Plan"),
		Content: testfactory.Ptr(""), Author: &author})

	// The submission notifies the workspace's reviewers (the owner), not its author.
	_, err := b.Documents.SubmitDocument(ctx, db.RecordEdit{WorkspaceID: ws, ID: d.ID, ActorID: author.User.ID})
	require.NoError(t, err)
	require.Equal(t, 1, b.drain(t, jobs.NotifyActivityArgs{}.Kind()))
	list := b.notifications(t, owner)
	require.Len(t, list, 1)
	require.Equal(t, db.ActivityDocumentSubmitted, list[0].Type)
	require.Nil(t, list[0].ProjectID)
	require.Equal(t, ws, *list[0].WorkspaceID)
	require.Equal(t, d.ID, *list[0].DocumentID)
	require.Empty(t, b.notifications(t, author))

	// The review notifies the author, not the reviewer.
	_, err = b.Documents.ReviewDocument(ctx, db.RecordEdit{WorkspaceID: ws, ID: d.ID, ActorID: owner.User.ID},
		document.DocApproved, "ok")
	require.NoError(t, err)
	require.Equal(t, 1, b.drain(t, jobs.NotifyActivityArgs{}.Kind()))
	list = b.notifications(t, author)
	require.Len(t, list, 1)
	require.Equal(t, db.ActivityDocumentReviewed, list[0].Type)
	require.Len(t, b.notifications(t, owner), 1)
}

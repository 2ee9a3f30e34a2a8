package notification_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/notification"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// A notification reaches only who can still read what it is about when its job runs: a member
// removed from the organization after a change was recorded, but before its job fanned it out, hears
// nothing of it (as a recipient of a card assigned to them or of a document review, as a project
// member), while a member who stays does. An owner of the organization who is no workspace member still
// reads every workspace, so is still notified. Fanning out again notifies no one twice.
func TestFanOutOnlyReachesThoseWhoCanStillRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	engine := b.Notifications
	tm := testfactory.NewTeam(t, b.Engines)
	leaver := tm.Member
	reviewer := testfactory.Ptr("reviewer")
	_, err := b.Tenancy.UpdateWorkspaceMember(ctx, tm.Owner.Workspace.ID, leaver.User.ID, nil, reviewer)
	require.NoError(t, err)
	stay, _ := testfactory.Member(t, b.Engines, tm.Owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("stay@example.com"), PilotageRole: reviewer})
	_, err = b.Board.AddProjectMember(ctx, db.ProjectMemberAdd{WorkspaceID: tm.Owner.Workspace.ID,
		ProjectID: tm.Project.ID, ActorID: tm.Owner.User.ID, Email: stay.User.Email})
	require.NoError(t, err)

	// Changes recorded while both are members; their jobs have not run.
	card := testfactory.Card(t, b.Engines, tm.Project,
		&testfactory.CardOpts{In: board.NewCard{AssigneeID: &leaver.User.ID}})
	doc := testfactory.Document(t, b.Engines, tm.Owner, nil)
	_, err = b.Documents.SubmitDocument(ctx, db.RecordEdit{WorkspaceID: tm.Owner.Workspace.ID, ID: doc.ID,
		ActorID: tm.Owner.User.ID})
	require.NoError(t, err)
	before := activityIDs(t, b)

	require.NoError(t, b.Tenancy.RemoveOrganizationMember(ctx, tenancy.OrgMemberRemoval{OrgID: tm.Owner.Organization.ID,
		UserID: leaver.User.ID, ActorID: tm.Owner.User.ID}))
	fanOut(t, engine, before)
	require.Empty(t, notified(t, b, leaver), "the removed member hears nothing of what was recorded before")
	require.ElementsMatch(t, []string{db.ActivityMemberAdded, db.ActivityMemberAdded, db.ActivityCardCreated,
		db.ActivityDocumentSubmitted}, notified(t, b, stay), "the one who stays hears of both members' arrival, the card "+
		"and the review")

	// The organization's owner keeps reading the workspace without a membership of it.
	_, err = b.Pool.Exec(ctx, `DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`,
		tm.Owner.Workspace.ID, tm.Owner.User.ID)
	require.NoError(t, err)
	_, err = b.Board.CreateComment(ctx, db.CardEdit{ProjectID: tm.Project.ID, CardID: card.ID, ActorID: stay.User.ID},
		"Done")
	require.NoError(t, err)
	all := activityIDs(t, b)
	fanOut(t, engine, all)
	require.Contains(t, notified(t, b, tm.Owner), db.ActivityCommentAdded)
	require.Empty(t, notified(t, b, leaver))

	n := b.Count(t, `SELECT count(*) FROM notifications`)
	fanOut(t, engine, all)
	require.Equal(t, n, b.Count(t, `SELECT count(*) FROM notifications`), "a retried job notifies no one again")
}

func activityIDs(t *testing.T, b *testfactory.Bundle) []string {
	t.Helper()
	// The activities of the feed only have no notification job.
	rows, err := b.Pool.Query(context.Background(),
		`SELECT id::text FROM activities WHERE type <> ALL($1) ORDER BY created_at, id`, db.FeedOnlyActivityTypes)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return ids
}

// fanOut runs the notify job's work for each activity, as the worker does.
func fanOut(t *testing.T, engine *notification.Engine, ids []string) {
	t.Helper()
	for _, id := range ids {
		_, err := engine.FanOutNotifications(context.Background(), id)
		require.NoError(t, err)
	}
}

// notified lists the activity types of a user's notifications.
func notified(t *testing.T, b *testfactory.Bundle, u identity.Registration) []string {
	t.Helper()
	ns, err := b.Notifications.Notifications(context.Background(), u.User.ID, false, db.Page{Limit: 100})
	require.NoError(t, err)
	out := []string{}
	for _, n := range ns.Items {
		out = append(out, n.Type)
	}
	return out
}

// A notification says who acted, by name, and what it is about: the card's or document's title as its
// activity recorded it, and for a row recorded without a title (before activities kept one) the title
// as it is now, so old rows read as well as new ones. A move records the columns' names.
func TestNotificationsNameActorAndSubject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	tm := testfactory.NewTeam(t, b.Engines)
	card := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Ship the ledger")})
	_, err := b.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: tm.Owner.Workspace.ID, ProjectID: tm.Project.ID,
		CardID: card.ID, ActorID: tm.Owner.User.ID, Patch: board.CardPatch{ColumnID: &tm.Project.Columns[1]}})
	require.NoError(t, err)
	doc := testfactory.Document(t, b.Engines, tm.Owner, &testfactory.DocumentOpts{Author: &tm.Member})
	_, err = b.Documents.SubmitDocument(ctx, db.RecordEdit{WorkspaceID: tm.Owner.Workspace.ID, ID: doc.ID,
		ActorID: tm.Member.User.ID})
	require.NoError(t, err)
	// An old row: its activity recorded no title.
	_, err = b.Pool.Exec(ctx, `UPDATE activities SET meta = meta - 'title' WHERE card_id = $1 AND type = $2`, card.ID,
		db.ActivityCardCreated)
	require.NoError(t, err)
	fanOut(t, b.Notifications, activityIDs(t, b))

	ns, err := b.Notifications.Notifications(ctx, tm.Member.User.ID, false, db.Page{Limit: 100})
	require.NoError(t, err)
	byType := map[string]db.Notification{}
	for _, n := range ns.Items {
		byType[n.Type] = n
	}
	created, moved := byType[db.ActivityCardCreated], byType[db.ActivityCardMoved]
	require.Equal(t, "Owner", created.ActorName)
	require.Equal(t, "Ship the ledger", created.SubjectTitle, "an old row reads its card's title now")
	require.Equal(t, "Owner", moved.ActorName)
	require.Equal(t, "Ship the ledger", moved.SubjectTitle)
	require.Contains(t, string(moved.Meta), `"toColumnName"`)
	require.Equal(t, &tm.Owner.Workspace.ID, moved.WorkspaceID, "a project's activity names its project's workspace")

	ns, err = b.Notifications.Notifications(ctx, tm.Owner.User.ID, false, db.Page{Limit: 100})
	require.NoError(t, err)
	var submitted *db.Notification
	for i, n := range ns.Items {
		if n.Type == db.ActivityDocumentSubmitted {
			submitted = &ns.Items[i]
		}
	}
	require.NotNil(t, submitted)
	require.Equal(t, "Member", submitted.ActorName)
	require.Equal(t, "Design notes", submitted.SubjectTitle)
}

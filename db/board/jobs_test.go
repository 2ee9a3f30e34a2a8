package board_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// A card create is one batch and one transaction: when its checklist cannot be stored (U+0000, which
// PostgreSQL text refuses, after the card row itself went in), the card, its activity and its jobs are
// all gone.
func TestCardCreateIsAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	// A rule listens to task_created: a card create enqueues an automation job besides its notification
	// (the project has a second member, who hears of it).
	b.addFollower(t)
	_, err := b.Automations.CreateRule(ctx, b.project.ID, b.owner.User.ID, automation.NewRule{Name: "bump",
		Trigger: db.TriggerTaskCreated,
		Action:  json.RawMessage(`{"type": "set_priority", "priority": "high"}`), Enabled: true})
	require.NoError(t, err)

	doomed := b.newCard("Doomed")
	doomed.Checklist = []board.ChecklistItemInput{{Title: "fine"}, {Title: "nul \x00 inside"}}
	_, err = b.Board.CreateCard(ctx, doomed)
	require.ErrorIs(t, err, db.ErrInvalid)
	require.ErrorContains(t, err, "NUL")
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM cards`))
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM checklist_items`))
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM activities WHERE card_id IS NOT NULL`))
	b.RequireNoJobs(t)

	// The next create works: the card, its activity, and its jobs in the same transaction.
	c, err := b.Board.CreateCard(ctx, b.newCard("Fine"))
	require.NoError(t, err)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM cards`))
	var activityID string
	require.NoError(t, b.Pool.QueryRow(ctx, `SELECT id FROM activities WHERE card_id = $1 AND type = 'card_created'`,
		c.ID).Scan(&activityID))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM activities WHERE card_id IS NOT NULL`))
	inserted := rivertest.RequireManyInserted(ctx, t, riverpgxv5.New(b.Pool), []rivertest.ExpectedJob{
		{Args: jobs.NotifyActivityArgs{}, Opts: &rivertest.RequireInsertedOpts{Queue: jobs.QueueDefault}},
		{Args: jobs.AutomationEventArgs{}, Opts: &rivertest.RequireInsertedOpts{Queue: jobs.QueueDefault}},
	})
	var notify jobs.NotifyActivityArgs
	require.NoError(t, json.Unmarshal(inserted[0].EncodedArgs, &notify))
	require.Equal(t, activityID, notify.ActivityID)
	var auto jobs.AutomationEventArgs
	require.NoError(t, json.Unmarshal(inserted[1].EncodedArgs, &auto))
	require.Equal(t, jobs.AutomationEventArgs{EventID: activityID, ProjectID: b.project.ID, CardID: c.ID,
		Trigger: string(db.TriggerTaskCreated),
		Meta:    map[string]any{"title": "Fine", "columnId": b.project.Columns[0]}}, auto)
}

// A card write whose transaction fails after recording its activity leaves neither activity nor job:
// nobody is notified of a change that did not happen.
func TestRolledBackCardWriteNotifiesNobody(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	b.addFollower(t)

	refused := b.newCard("x")
	refused.AssigneeID = new("00000000-0000-0000-0000-000000000000")
	_, err := b.Board.CreateCard(ctx, refused)
	require.ErrorIs(t, err, db.ErrInvalid) // the assignee is no workspace member: refused, rolled back

	boom := errors.New("boom")
	err = b.Store.InTx(ctx, func(tx pgx.Tx) error {
		_, err := b.Board.CreateCardTx(ctx, tx, b.newCard("doomed"))
		require.NoError(t, err)
		// Inside the transaction the job is there.
		rivertest.RequireInsertedTx[*riverpgxv5.Driver](ctx, t, tx, jobs.NotifyActivityArgs{}, nil)
		return boom
	})
	require.ErrorIs(t, err, boom)
	rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(b.Pool), jobs.NotifyActivityArgs{}, nil)
	b.RequireNoJobs(t)
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM activities WHERE card_id IS NOT NULL`))
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM cards`))
}

// A change nobody but its actor would hear of enqueues no notification job: a card created in a project
// whose only member is its creator, or assigned to the creator. A second member of the project, or an
// assignee who is not the actor, is notified.
func TestNotificationJobOnlyWhenSomeoneHears(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	notifyJobs := func() int { return len(b.Jobs(t, jobs.NotifyActivityArgs{}.Kind())) }

	_, err := b.Board.CreateCard(ctx, b.newCard("Alone"))
	require.NoError(t, err)
	self := b.newCard("Mine")
	self.AssigneeID = &b.owner.User.ID
	_, err = b.Board.CreateCard(ctx, self)
	require.NoError(t, err)
	require.Equal(t, 0, notifyJobs())
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM activities WHERE card_id IS NOT NULL`)) // recorded all the same

	other, _ := testfactory.Member(t, b.Engines, b.owner,
		&testfactory.MemberOpts{Email: testfactory.Ptr("assignee@example.com")})
	_, err = b.Pool.Exec(ctx, `DELETE FROM river_job`)
	require.NoError(t, err)
	theirs := b.newCard("Theirs")
	theirs.AssigneeID = &other.User.ID // a recipient, not a project member
	_, err = b.Board.CreateCard(ctx, theirs)
	require.NoError(t, err)
	require.Equal(t, 1, notifyJobs())

	b.addFollower(t)
	_, err = b.Board.CreateCard(ctx, b.newCard("Followed"))
	require.NoError(t, err)
	require.Equal(t, 1, notifyJobs())
}

// An invitation and its e-mail job commit together or not at all.
func TestWorkspaceInviteRollbackLeavesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	newInv := func(email string) tenancy.NewInvitation {
		return tenancy.NewInvitation{WorkspaceID: b.owner.Workspace.ID, WorkspaceName: b.owner.Workspace.Name, Email: email,
			Role:      "member",
			InvitedBy: b.owner.User.ID, InviterName: "Owner", Token: "tok-" + email,
			AcceptURL: "http://pilot.test/invitations/tok/accept"}
	}

	boom := errors.New("boom")
	err := b.Store.InTx(ctx, func(tx pgx.Tx) error {
		inv, err := b.Tenancy.InviteToWorkspaceTx(ctx, tx, newInv("rolled@example.com"))
		require.NoError(t, err)
		require.NotEmpty(t, inv.ID)
		// Inside the transaction both rows exist.
		rivertest.RequireInsertedTx[*riverpgxv5.Driver](ctx, t, tx, &jobs.SendEmailArgs{}, nil)
		return boom
	})
	require.ErrorIs(t, err, boom)
	b.RequireNoJobs(t)
	rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(b.Pool), &jobs.SendEmailArgs{}, nil)
	require.Equal(t, 0, b.Count(t, "SELECT count(*) FROM workspace_invitations"))

	// The same write committed leaves exactly one of each.
	err = b.Store.InTx(ctx, func(tx pgx.Tx) error {
		_, err := b.Tenancy.InviteToWorkspaceTx(ctx, tx, newInv("kept@example.com"))
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 1, b.Count(t, "SELECT count(*) FROM workspace_invitations WHERE email = 'kept@example.com'"))
	job := rivertest.RequireInserted(ctx, t, riverpgxv5.New(b.Pool), &jobs.SendEmailArgs{},
		&rivertest.RequireInsertedOpts{Queue: jobs.QueueEmail})
	require.Equal(t, "kept@example.com", job.Args.To)
}

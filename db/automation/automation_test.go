package automation_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// env is a team and its shared project (three columns) with the automation engine.
type env struct {
	testfactory.Bundle
	engine *automation.Engine
	team   testfactory.Team
}

func setup(t *testing.T) *env {
	t.Helper()
	b := testfactory.Store(t)
	return &env{Bundle: *b, engine: b.Automations, team: testfactory.NewTeam(t, b.Engines)}
}

func (e *env) pid() string { return e.team.Project.ID }

// uid is the shared project owner's user id, the actor of rule changes.
func (e *env) uid() string { return e.team.Owner.User.ID }

func jsonOf(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// rule creates an enabled rule of the shared project as its owner.
func (e *env) rule(t *testing.T, trigger db.Trigger, conditions, action map[string]any) db.AutomationRule {
	t.Helper()
	r, err := e.engine.CreateRule(context.Background(), e.pid(), e.team.Owner.User.ID, automation.NewRule{Name: "rule",
		Trigger: trigger, Conditions: jsonOf(t, conditions), Action: jsonOf(t, action), Enabled: true})
	require.NoError(t, err)
	return r
}

// update changes a card as the member.
func (e *env) update(t *testing.T, cardID string, p board.CardPatch) board.Card {
	t.Helper()
	c, err := e.Board.UpdateCard(context.Background(), board.CardUpdate{WorkspaceID: e.team.Project.WorkspaceID,
		ProjectID: e.pid(), CardID: cardID, ActorID: e.team.Member.User.ID, Patch: p})
	require.NoError(t, err)
	return c
}

func (e *env) card(t *testing.T, id string) board.Card {
	t.Helper()
	c, err := e.Board.Card(context.Background(), e.pid(), id)
	require.NoError(t, err)
	return c
}

// events answers the automation events the writes so far enqueued for a trigger and card, oldest first,
// as the automation worker would receive them.
func (e *env) events(t *testing.T, trigger db.Trigger, cardID string) []jobs.AutomationEventArgs {
	t.Helper()
	var out []jobs.AutomationEventArgs
	for _, j := range e.Jobs(t, jobs.AutomationEventArgs{}.Kind()) {
		raw, err := json.Marshal(j.Args)
		require.NoError(t, err)
		var ev jobs.AutomationEventArgs
		require.NoError(t, json.Unmarshal(raw, &ev))
		if db.Trigger(ev.Trigger) == trigger && ev.CardID == cardID {
			out = append(out, ev)
		}
	}
	return out
}

func (e *env) traces(t *testing.T, ruleID string) []db.AutomationTrace {
	t.Helper()
	tr, err := e.engine.RuleTraces(context.Background(), ruleID, 50)
	require.NoError(t, err)
	return tr
}

// Rules are validated against their project: triggers, condition keys and values, actions and their
// parameters, and every column, label and user they name; a refused rule is not stored.
func TestCreateRuleValidates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	cols := e.team.Project.Columns
	other := testfactory.NewProject(t, e.Engines, e.team.Owner, &testfactory.ProjectOpts{Name: testfactory.Ptr("Other")})
	theirLabel, err := e.Board.CreateLabel(ctx, other.ID, "theirs", "#000000")
	require.NoError(t, err)
	stranger := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("stranger@example.com")})
	prio := map[string]any{"type": "set_priority", "priority": "high"}

	for name, tc := range map[string]struct {
		trigger    db.Trigger
		conditions map[string]any
		action     map[string]any
		want       string
	}{
		"unknown trigger":   {"card_sneezed", nil, prio, "trigger must be one of"},
		"unknown condition": {db.TriggerTaskCreated, map[string]any{"colour": "red"}, prio, "conditions: "},
		"move columns off a move": {db.TriggerTaskCreated, map[string]any{"toColumnId": cols[1]}, prio,
			"task_moved trigger only"}, "column of another project": {db.TriggerTaskMoved,
			map[string]any{"toColumnId": other.Columns[1]}, prio, "toColumnId is not a column of this project"},
		"bad priority": {db.TriggerTaskCreated, map[string]any{"priority": []string{"urgent"}}, prio,
			"priority must be"}, "empty priority list": {db.TriggerTaskCreated, map[string]any{"priority": []string{}}, prio,
			"priority must be"}, "label of another project": {db.TriggerTaskCreated, map[string]any{"labelId": theirLabel.ID},
			prio, "labelId is not a label of this project"}, "assignee not a member": {db.TriggerTaskCreated,
			map[string]any{"assigneeId": stranger.User.ID}, prio, "assigneeId is not a member"},
		"bad status": {db.TriggerTaskCreated, map[string]any{"status": "sleeping"}, prio, "status must be " +
			"one of"},
		"unknown action": {db.TriggerTaskCreated, nil, map[string]any{"type": "explode"}, "action: type must be " +
			"one of"},
		"move to a foreign column": {db.TriggerTaskCreated, nil, map[string]any{"type": "move_card",
			"columnId": other.Columns[0]}, "move_card needs columnId"}, "set_status archived": {db.TriggerTaskCreated, nil,
			map[string]any{"type": "set_status", "status": "archived"}, "set_status needs status"},
		"assign a stranger": {db.TriggerTaskCreated, nil, map[string]any{"type": "assign_user", "userId": stranger.User.ID},
			"assign_user needs userId"}, "parameter the action lacks": {db.TriggerTaskCreated, nil,
			map[string]any{"type": "archive_card", "priority": "high"}, "archive_card does not take priority"},
	} {
		_, err := e.engine.CreateRule(ctx, e.pid(), e.team.Owner.User.ID, automation.NewRule{Name: name, Trigger: tc.trigger,
			Conditions: jsonOf(t, tc.conditions), Action: jsonOf(t, tc.action), Enabled: true})
		require.ErrorIs(t, err, db.ErrInvalid, name)
		require.ErrorContains(t, err, tc.want, name)
	}
	require.Zero(t, e.Count(t, `SELECT count(*) FROM automation_rules`))

	r := e.rule(t, db.TriggerTaskMoved, map[string]any{"toColumnId": cols[2], "priority": []string{"low", "medium"},
		"assigneeId": nil}, map[string]any{"type": "assign_user", "userId": e.team.Member.User.ID})
	require.True(t, r.Enabled)
	require.Equal(t, e.team.Owner.User.ID, r.CreatedBy)
	var c automation.RuleConditions
	require.NoError(t, json.Unmarshal(r.Conditions, &c))
	require.Equal(t, &cols[2], c.ToColumnID)
}

// A rule is read, changed, toggled and deleted within its project only; an update is validated whole
// and a refused one changes nothing; deleting a rule takes its traces.
func TestRuleCRUDStaysInItsProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	other := testfactory.NewProject(t, e.Engines, e.team.Owner, &testfactory.ProjectOpts{Name: testfactory.Ptr("Other")})
	r := e.rule(t, db.TriggerTaskCreated, nil, map[string]any{"type": "set_priority", "priority": "high"})

	_, err := e.engine.Rule(ctx, other.ID, r.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.ToggleRule(ctx, other.ID, r.ID, e.uid())
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.UpdateRule(ctx, other.ID, r.ID, e.uid(),
		func(n automation.NewRule) automation.NewRule { n.Name = "stolen"; return n })
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorIs(t, e.engine.DeleteRule(ctx, other.ID, r.ID), db.ErrNotFound)
	list, err := e.engine.Rules(ctx, other.ID)
	require.NoError(t, err)
	require.Empty(t, list)

	_, err = e.engine.UpdateRule(ctx, e.pid(), r.ID, e.uid(), func(n automation.NewRule) automation.NewRule {
		n.Name = "broken"
		n.Action = jsonOf(t, map[string]any{"type": "set_priority", "priority": "urgent"})
		return n
	})
	require.ErrorIs(t, err, db.ErrInvalid)
	got, err := e.engine.Rule(ctx, e.pid(), r.ID)
	require.NoError(t, err)
	require.Equal(t, "rule", got.Name)

	up, err := e.engine.UpdateRule(ctx, e.pid(), r.ID, e.uid(), func(n automation.NewRule) automation.NewRule {
		n.Trigger = db.TriggerTaskAssigned
		return n
	})
	require.NoError(t, err)
	require.Equal(t, string(db.TriggerTaskAssigned), up.Trigger)
	require.JSONEq(t, string(r.Action), string(up.Action), "what the update leaves is kept")
	off, err := e.engine.ToggleRule(ctx, e.pid(), r.ID, e.uid())
	require.NoError(t, err)
	require.False(t, off.Enabled)
	on, err := e.engine.ToggleRule(ctx, e.pid(), r.ID, e.uid())
	require.NoError(t, err)
	require.True(t, on.Enabled)

	require.NoError(t, e.engine.Run(ctx, jobs.AutomationEventArgs{EventID: db.NewID(), ProjectID: e.pid(),
		CardID: db.NewID(), Trigger: string(db.TriggerTaskAssigned)}))
	require.Len(t, e.traces(t, r.ID), 1)
	require.NoError(t, e.engine.DeleteRule(ctx, e.pid(), r.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM automation_traces`))
	require.ErrorIs(t, e.engine.DeleteRule(ctx, e.pid(), r.ID), db.ErrNotFound)
}

// A card's move enqueues its automation event (a rule listens to its trigger); running it applies the
// rule as the rule's creator, with an applied trace, and the events of the rule's own change are one
// level deeper; the same event run again (a retried job) applies nothing more.
func TestRunAppliesOncePerEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	cols := e.team.Project.Columns
	r := e.rule(t, db.TriggerTaskMoved, map[string]any{"toColumnId": cols[1]}, map[string]any{"type": "move_card",
		"columnId": cols[2]})
	c := testfactory.Card(t, e.Engines, e.team.Project, nil)
	e.update(t, c.ID, board.CardPatch{ColumnID: &cols[1]})
	evs := e.events(t, db.TriggerTaskMoved, c.ID)
	require.Len(t, evs, 1)
	ev := evs[0]
	require.Equal(t, 0, ev.Depth)
	require.Equal(t, cols[1], ev.Meta["toColumn"])

	require.NoError(t, e.engine.Run(ctx, ev))
	require.Equal(t, cols[2], e.card(t, c.ID).ColumnID)
	tr := e.traces(t, r.ID)
	require.Len(t, tr, 1)
	require.Equal(t, "applied", tr[0].Result)
	require.Equal(t, ev.EventID, tr[0].EventID)
	require.Equal(t, &c.ID, tr[0].CardID)
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM activities WHERE card_id = $1 AND actor_id = $2 AND meta->>'automationRuleId' = $3`, c.ID,
		e.team.Owner.User.ID, r.ID), "the change is the rule creator's, marked as the rule's")
	evs = e.events(t, db.TriggerTaskMoved, c.ID)
	require.Len(t, evs, 2)
	require.Equal(t, 1, evs[1].Depth, "the rule's change fires its events one level deeper")
	require.NoError(t, e.engine.Run(ctx, evs[1]))
	require.Equal(t, "conditions not met: moved to another column", e.traces(t, r.ID)[0].Reason)

	e.update(t, c.ID, board.CardPatch{ColumnID: &cols[0]})
	require.NoError(t, e.engine.Run(ctx, ev))
	require.Equal(t, cols[0], e.card(t, c.ID).ColumnID, "a retried event applies nothing")
	require.Len(t, e.traces(t, r.ID), 2)
}

// Without an enabled rule listening to a trigger, the change enqueues no automation event for it.
func TestEventsOnlyForListenedTriggers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	cols := e.team.Project.Columns
	c := testfactory.Card(t, e.Engines, e.team.Project, nil)
	e.update(t, c.ID, board.CardPatch{ColumnID: &cols[1]})
	require.Empty(t, e.Jobs(t, jobs.AutomationEventArgs{}.Kind()))

	r := e.rule(t, db.TriggerTaskMoved, nil, map[string]any{"type": "archive_card"})
	_, err := e.engine.ToggleRule(ctx, e.pid(), r.ID, e.uid())
	require.NoError(t, err)
	e.update(t, c.ID, board.CardPatch{ColumnID: &cols[2]})
	require.Empty(t, e.Jobs(t, jobs.AutomationEventArgs{}.Kind()), "a disabled rule listens to nothing")
	e.update(t, c.ID, board.CardPatch{Priority: testfactory.Ptr(board.PriorityHigh)})
	_, err = e.engine.ToggleRule(ctx, e.pid(), r.ID, e.uid())
	require.NoError(t, err)
	e.update(t, c.ID, board.CardPatch{Priority: testfactory.Ptr(board.PriorityLow)})
	require.Empty(t, e.Jobs(t, jobs.AutomationEventArgs{}.Kind()), "a change of priority fires no move")
	e.update(t, c.ID, board.CardPatch{ColumnID: &cols[0]})
	require.Len(t, e.events(t, db.TriggerTaskMoved, c.ID), 1)
}

// Rules whose conditions do not hold are traced as skipped with the reason; disabled rules and rules
// of other triggers do not run at all.
func TestRunSkipsUnmetConditions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	cols := e.team.Project.Columns
	toDone := e.rule(t, db.TriggerTaskMoved, map[string]any{"toColumnId": cols[2]}, map[string]any{"type": "archive_card"})
	highOnly := e.rule(t, db.TriggerTaskMoved, map[string]any{"priority": "high"}, map[string]any{"type": "archive_card"})
	disabled := e.rule(t, db.TriggerTaskMoved, nil, map[string]any{"type": "archive_card"})
	_, err := e.engine.ToggleRule(ctx, e.pid(), disabled.ID, e.uid())
	require.NoError(t, err)
	created := e.rule(t, db.TriggerTaskCreated, map[string]any{"priority": "high"}, map[string]any{"type": "archive_card"})

	c := testfactory.Card(t, e.Engines, e.team.Project, nil)
	e.update(t, c.ID, board.CardPatch{ColumnID: &cols[1]})
	for _, ev := range e.events(t, db.TriggerTaskMoved, c.ID) {
		require.NoError(t, e.engine.Run(ctx, ev))
	}
	require.False(t, e.card(t, c.ID).Archived)
	tr := e.traces(t, toDone.ID)
	require.Len(t, tr, 1)
	require.Equal(t, "skipped", tr[0].Result)
	require.Equal(t, "conditions not met: moved to another column", tr[0].Reason)
	tr = e.traces(t, highOnly.ID)
	require.Len(t, tr, 1)
	require.Equal(t, "conditions not met: the card's priority is medium", tr[0].Reason)
	require.Empty(t, e.traces(t, disabled.ID))
	require.Empty(t, e.traces(t, created.ID))
}

// An event at the depth cap runs no rule (rules cannot loop); an event of a deleted card is skipped; an
// action the store refuses is traced as failed and changes nothing.
func TestRunDepthCapMissingCardsAndRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	later, err := e.Board.CreateColumn(ctx, e.pid(), "Later")
	require.NoError(t, err)
	r := e.rule(t, db.TriggerTaskAssigned, nil, map[string]any{"type": "move_card", "columnId": later.ID})
	c := testfactory.Card(t, e.Engines, e.team.Project, nil)

	ev := jobs.AutomationEventArgs{EventID: db.NewID(), ProjectID: e.pid(), CardID: c.ID,
		Trigger: string(db.TriggerTaskAssigned), Depth: automation.MaxAutomationDepth}
	require.NoError(t, e.engine.Run(ctx, ev))
	tr := e.traces(t, r.ID)
	require.Len(t, tr, 1)
	require.Equal(t, "skipped", tr[0].Result)
	require.Contains(t, tr[0].Reason, "depth cap")
	require.Equal(t, int32(automation.MaxAutomationDepth), tr[0].Depth)
	require.Equal(t, c.ColumnID, e.card(t, c.ID).ColumnID)

	ev = jobs.AutomationEventArgs{EventID: db.NewID(), ProjectID: e.pid(), CardID: db.NewID(),
		Trigger: string(db.TriggerTaskAssigned)}
	require.NoError(t, e.engine.Run(ctx, ev))
	require.Equal(t, "the card no longer exists", e.traces(t, r.ID)[0].Reason)

	require.NoError(t, e.Board.DeleteColumn(ctx, e.pid(), later.ID))
	ev = jobs.AutomationEventArgs{EventID: db.NewID(), ProjectID: e.pid(), CardID: c.ID,
		Trigger: string(db.TriggerTaskAssigned)}
	require.NoError(t, e.engine.Run(ctx, ev), "a refused action is no error for the worker")
	tr = e.traces(t, r.ID)
	require.Len(t, tr, 3)
	require.Equal(t, "failed", tr[0].Result)
	require.NotEmpty(t, tr[0].Reason)
	require.Equal(t, c.ColumnID, e.card(t, c.ID).ColumnID)
	require.NoError(t, e.engine.Run(ctx, ev))
	require.Len(t, e.traces(t, r.ID), 3, "a failed event is not run again")
}

// The due-date scan fires once per card and due date: an activity for the assignee and the
// automation event; a date still ahead, an archived card or a date already fired does not fire; a
// new due date fires again once passed.
func TestScanDueDates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	due := testfactory.Card(t, e.Engines, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Late"),
		In: board.NewCard{DueDate: &past, AssigneeID: &e.team.Member.User.ID}})
	testfactory.Card(t, e.Engines, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Ahead"),
		In: board.NewCard{DueDate: &future}})
	gone := testfactory.Card(t, e.Engines, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Archived"),
		In: board.NewCard{DueDate: &past}})
	e.update(t, gone.ID, board.CardPatch{Archived: testfactory.Ptr(true)})
	e.rule(t, db.TriggerDueDateReached, nil, map[string]any{"type": "set_priority", "priority": "high"})

	n, err := e.engine.ScanDueDates(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM activities WHERE card_id = $1 AND type = $2 AND recipients = ARRAY[$3::uuid]`, due.ID,
		db.ActivityDueDateReached, e.team.Member.User.ID))
	require.Len(t, e.events(t, db.TriggerDueDateReached, due.ID), 1)

	n, err = e.engine.ScanDueDates(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a due date fires once")
	require.Len(t, e.events(t, db.TriggerDueDateReached, due.ID), 1)

	again := time.Now().Add(-time.Minute)
	e.update(t, due.ID, board.CardPatch{DueDate: db.Opt[time.Time]{Set: true, Value: &again}})
	n, err = e.engine.ScanDueDates(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "a new due date fires again")
	require.Len(t, e.events(t, db.TriggerDueDateReached, due.ID), 2)
}

// An archived project is read-only, its automations too: its passed due dates do not fire while it is
// archived, and fire once it is restored.
func TestScanDueDatesWaitsForAnArchivedProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	past := time.Now().Add(-time.Hour)
	late := testfactory.Card(t, e.Engines, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Late"),
		In: board.NewCard{DueDate: &past}})
	archive := func(archived bool) {
		_, err := e.Board.SetProjectArchived(ctx, board.ProjectArchiving{WorkspaceID: e.team.Project.WorkspaceID,
			ProjectID: e.team.Project.ID, ActorID: e.team.Owner.User.ID, Archived: archived})
		require.NoError(t, err)
	}
	archive(true)
	n, err := e.engine.ScanDueDates(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "an archived project's due dates wait")

	archive(false)
	n, err = e.engine.ScanDueDates(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM due_date_events WHERE card_id = $1`, late.ID))
}

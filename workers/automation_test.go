package workers

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// rule creates an enabled automation rule of the team's project, owned by its owner, and returns its id.
func (b *testBundle) rule(t *testing.T, tm testfactory.Team, name string, trigger db.Trigger, conditions,
	action map[string]any) string {
	t.Helper()
	r := automation.NewRule{Name: name, Trigger: trigger, Action: jsonOf(t, action), Enabled: true}
	if conditions != nil {
		r.Conditions = jsonOf(t, conditions)
	}
	rule, err := b.Automations.CreateRule(context.Background(), tm.Project.ID, tm.Owner.User.ID, r)
	require.NoError(t, err)
	return rule.ID
}

// traces lists a rule's traces.
func (b *testBundle) traces(t *testing.T, ruleID string) []db.AutomationTrace {
	t.Helper()
	tr, err := b.Automations.RuleTraces(context.Background(), ruleID, 200)
	require.NoError(t, err)
	return tr
}

// settle works the automation and notification jobs, and those they cause, until none is left.
func (b *testBundle) settle(t *testing.T) {
	t.Helper()
	b.drain(t, jobs.AutomationEventArgs{}.Kind(), jobs.NotifyActivityArgs{}.Kind())
}

func TestAutomationTriggersAndActions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	owner, member := tm.Owner, tm.Member
	doing, done := tm.Project.Columns[1], tm.Project.Columns[2]

	// task_created → set_priority (only for low cards: a skipped trace for others).
	created := b.rule(t, tm, "bump", db.TriggerTaskCreated, map[string]any{"priority": "low"},
		map[string]any{"type": "set_priority", "priority": "high"})
	// task_added_to_board → assign_user.
	b.rule(t, tm, "assign", db.TriggerTaskAddedToBoard, nil, map[string]any{"type": "assign_user",
		"userId": member.User.ID})
	low := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("low one"),
		In: board.NewCard{Priority: "low"}}).ID
	mid := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("medium one")}).ID
	b.settle(t)
	require.EqualValues(t, "high", b.getCard(t, tm, low).Priority)
	require.EqualValues(t, "medium", b.getCard(t, tm, mid).Priority)
	require.Equal(t, &member.User.ID, b.getCard(t, tm, low).AssigneeID)
	tr := b.traces(t, created)
	require.Len(t, tr, 2)
	results := map[string]string{}
	for _, x := range tr {
		require.NotNil(t, x.CardID)
		results[*x.CardID] = x.Result
		require.Equal(t, created, x.RuleID)
		require.WithinDuration(t, time.Now(), x.CreatedAt, time.Minute)
	}
	require.Equal(t, "applied", results[low])
	require.Equal(t, "skipped", results[mid])
	// Automation actions record activity (and so notify) like a person's change.
	require.Equal(t, 1, b.Count(t,
		`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_assigned' AND meta ? 'automationRuleId'`, low))

	// task_moved (to "doing") → archive_card; task_status_changed (to done) → set_priority low.
	b.rule(t, tm, "archive", db.TriggerTaskMoved, map[string]any{"toColumnId": doing},
		map[string]any{"type": "archive_card"})
	b.rule(t, tm, "calm", db.TriggerTaskStatusChanged, map[string]any{"status": "done"},
		map[string]any{"type": "set_priority", "priority": "low"})
	b.update(t, tm, owner, mid, board.CardPatch{ColumnID: &doing})
	b.update(t, tm, owner, low, board.CardPatch{ColumnID: &done})
	b.settle(t)
	require.True(t, b.getCard(t, tm, mid).Archived)
	require.False(t, b.getCard(t, tm, low).Archived)
	require.EqualValues(t, "low", b.getCard(t, tm, low).Priority)

	// task_assigned → move_card; checklist_complete → set_status done.
	b.rule(t, tm, "start", db.TriggerTaskAssigned, map[string]any{"assigneeId": owner.User.ID},
		map[string]any{"type": "move_card", "columnId": doing})
	b.rule(t, tm, "finish", db.TriggerChecklistComplete, nil, map[string]any{"type": "set_status", "status": "done"})
	list := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("list"),
		Column: testfactory.Ptr(0), // to do
		In:     board.NewCard{Checklist: []board.ChecklistItemInput{{Title: "a"}, {Title: "b", Done: true}}}}).ID
	b.settle(t)
	b.update(t, tm, owner, list, board.CardPatch{AssigneeID: db.Opt[string]{Set: true, Value: &owner.User.ID}})
	b.settle(t)
	c := b.getCard(t, tm, list)
	require.Equal(t, doing, c.ColumnID)
	require.True(t, c.Archived) // the move to "doing" fired the archive rule too: rules chain
	var items []struct {
		ID   string `json:"id"`
		Done bool   `json:"done"`
	}
	require.NoError(t, json.Unmarshal(c.PartsChecklist, &items))
	var open string
	for _, it := range items {
		if !it.Done {
			open = it.ID
		}
	}
	require.NotEmpty(t, open)
	_, err := b.Board.UpdateChecklistItem(context.Background(), db.CardEdit{ProjectID: tm.Project.ID, CardID: list,
		ActorID: owner.User.ID}, open, board.ChecklistItemPatch{Done: testfactory.Ptr(true)})
	require.NoError(t, err)
	b.settle(t)
	require.Equal(t, done, b.getCard(t, tm, list).ColumnID)
}

// TestAutomationTaskLabeled: putting a label on a card fires task_labeled, whose labelId condition holds
// for the label; taking a label off fires nothing.
func TestAutomationTaskLabeled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	urgent, err := b.Board.CreateLabel(ctx, tm.Project.ID, "urgent", "#d32f2f")
	require.NoError(t, err)
	other, err := b.Board.CreateLabel(ctx, tm.Project.ID, "other", "#1976d2")
	require.NoError(t, err)
	doing := tm.Project.Columns[1]
	rule := b.rule(t, tm, "urgent first", db.TriggerTaskLabeled, map[string]any{"labelId": urgent.ID},
		map[string]any{"type": "move_card", "columnId": doing})
	id := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("fix"),
		Column: testfactory.Ptr(0)}).ID
	edit := db.CardEdit{ProjectID: tm.Project.ID, CardID: id, ActorID: tm.Owner.User.ID}
	_, err = b.Board.AddCardLabel(ctx, edit, other.ID)
	require.NoError(t, err)
	b.settle(t)
	require.NotEqual(t, doing, b.getCard(t, tm, id).ColumnID, "another label does not match the condition")
	tr := b.traces(t, rule)
	require.Len(t, tr, 1)
	require.Equal(t, "skipped", tr[0].Result)

	_, err = b.Board.RemoveCardLabel(ctx, edit, other.ID)
	require.NoError(t, err)
	b.settle(t)
	require.Len(t, b.traces(t, rule), 1, "taking a label off fires nothing")

	_, err = b.Board.AddCardLabel(ctx, edit, urgent.ID)
	require.NoError(t, err)
	b.settle(t)
	require.Equal(t, doing, b.getCard(t, tm, id).ColumnID)
	tr = b.traces(t, rule)
	require.Len(t, tr, 2)
	require.Equal(t, "applied", tr[0].Result)
	require.Equal(t, string(db.TriggerTaskLabeled), tr[0].Trigger)
}

func TestAutomationLoopStopsAtDepthCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	ping := b.rule(t, tm, "ping", db.TriggerTaskMoved, map[string]any{"toColumnId": tm.Project.Columns[1]},
		map[string]any{"type": "move_card", "columnId": tm.Project.Columns[2]})
	pong := b.rule(t, tm, "pong", db.TriggerTaskMoved, map[string]any{"toColumnId": tm.Project.Columns[2]},
		map[string]any{"type": "move_card", "columnId": tm.Project.Columns[1]})
	id := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("ball")}).ID
	b.update(t, tm, tm.Owner, id, board.CardPatch{ColumnID: &tm.Project.Columns[1]})
	b.settle(t)
	// person (depth 0) → ping (1) → pong (2) → ping (3: past the cap, skipped).
	moves := b.Count(t, `SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_moved'`, id)
	require.Equal(t, 1+3, moves)
	var capped int
	for _, rid := range []string{ping, pong} {
		for _, tr := range b.traces(t, rid) {
			if tr.Result == "skipped" && tr.Depth == 3 {
				require.Contains(t, tr.Reason, "depth cap")
				capped++
			}
		}
	}
	require.GreaterOrEqual(t, capped, 1)
	// It has really stopped: the last jobs enqueued nothing more to run.
	rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(b.Pool), &jobs.AutomationEventArgs{},
		&rivertest.RequireInsertedOpts{State: rivertype.JobStateAvailable})
	require.Equal(t, moves, b.Count(t, `SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_moved'`, id))
}

func TestAutomationRetriedEventRunsRuleOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	rid := b.rule(t, tm, "bump", db.TriggerTaskCreated, nil, map[string]any{"type": "set_priority", "priority": "high"})
	card := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("once")})
	// The store enqueued the event with the card.
	job := rivertest.RequireInserted(ctx, t, riverpgxv5.New(b.Pool), jobs.AutomationEventArgs{},
		&rivertest.RequireInsertedOpts{Queue: jobs.QueueDefault})
	require.Equal(t, card.ID, job.Args.CardID)
	require.Equal(t, string(db.TriggerTaskCreated), job.Args.Trigger)
	for range 3 { // the job, run as often as River might retry it
		workNew(t, b, &AutomationWorker{automations: b.Automations}, job.Args, nil)
	}
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM automation_traces WHERE rule_id = $1`, rid))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_updated'`,
		card.ID))
}

// lateCards creates five cards of the team's project assigned to its member whose due date passed an
// hour ago, and one due in an hour; it answers the five.
func (b *testBundle) lateCards(t *testing.T, tm testfactory.Team) []string {
	t.Helper()
	past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	var ids []string
	for i := range 5 {
		ids = append(ids, testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("late " +
			string(rune('a'+i))), In: board.NewCard{DueDate: &past, AssigneeID: &tm.Member.User.ID}}).ID)
	}
	testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("later"),
		In: board.NewCard{DueDate: &future}})
	return ids
}

// requireDueDatesFired asserts that each late card fired due_date_reached once: its event, its
// activity, the rule applied, and a notification for the assignee only.
func (b *testBundle) requireDueDatesFired(t *testing.T, tm testfactory.Team, rid string, ids []string) {
	t.Helper()
	require.Equal(t, 5, b.Count(t, `SELECT count(*) FROM due_date_events`))
	require.Equal(t, 5, b.Count(t, `SELECT count(*) FROM activities WHERE type = 'due_date_reached'`))
	require.Equal(t, 5, b.Count(t, `SELECT count(*) FROM automation_traces WHERE rule_id = $1 AND result = 'applied'`,
		rid))
	for _, id := range ids {
		require.EqualValues(t, "high", b.getCard(t, tm, id).Priority)
	}
	// The assignee is notified; the other project member (the owner) is not.
	notified := `SELECT count(*) FROM notifications n JOIN activities a ON a.id = n.activity_id
		WHERE a.type = 'due_date_reached' AND n.user_id = $1`
	require.Equal(t, 5, b.Count(t, notified, tm.Member.User.ID))
	require.Equal(t, 0, b.Count(t, notified, tm.Owner.User.ID))
}

func TestDueDateScanFiresOncePerDueDate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	rid := b.rule(t, tm, "late", db.TriggerDueDateReached, nil, map[string]any{"type": "set_priority", "priority": "high"})
	ids := b.lateCards(t, tm)
	scan := func() { // one scan (a period's job), and the jobs it caused
		t.Helper()
		workNew(t, b, &DueDateScanWorker{deps: b.deps, automations: b.Automations}, jobs.DueDateScanArgs{}, nil)
		b.settle(t)
	}

	scan()
	b.requireDueDatesFired(t, tm, rid, ids)
	// Later scans find nothing new.
	scan()
	b.requireDueDatesFired(t, tm, rid, ids)

	// A new due date re-arms the card: it fires once more.
	b.update(t, tm, tm.Owner, ids[0], board.CardPatch{DueDate: db.Opt[time.Time]{Set: true,
		Value: testfactory.Ptr(time.Now().Add(-time.Minute))}})
	scan()
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM due_date_events WHERE card_id = $1`, ids[0]))
	scan()
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM due_date_events WHERE card_id = $1`, ids[0]))
	require.Equal(t, 6, b.Count(t, `SELECT count(*) FROM activities WHERE type = 'due_date_reached'`))
}

// Two worker processes on one database: only the leader enqueues the periodic scan, and however the
// scans interleave, each (card, due date) fires once.
func TestDueDatesFireOnceAcrossTwoWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	// started reports when each due-date scan of either worker started.
	started := make(chan time.Time, 100)
	for range 2 {
		events := b.startWorker(t, Config{Concurrency: 4, DueDateScanInterval: time.Second})
		go func() {
			for ev := range events {
				if ev.Job.Kind != (jobs.DueDateScanArgs{}).Kind() || ev.Job.AttemptedAt == nil {
					continue
				}
				select {
				case started <- *ev.Job.AttemptedAt:
				case <-t.Context().Done():
					return
				}
			}
		}()
	}
	// scansAfter waits until n scans that started after mark have finished.
	scansAfter := func(n int, mark time.Time) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for n > 0 {
			select {
			case at := <-started:
				if at.After(mark) {
					n--
				}
			case <-timeout:
				t.Fatalf("no scan started after %s finished within 20s", mark)
			}
		}
	}
	countIs := func(want int, sql string, args ...any) func() bool {
		return func() bool {
			var n int
			return b.Pool.QueryRow(ctx, sql, args...).Scan(&n) == nil && n == want
		}
	}
	tm := testfactory.NewTeam(t, b.Engines)
	rid := b.rule(t, tm, "late", db.TriggerDueDateReached, nil, map[string]any{"type": "set_priority", "priority": "high"})
	ids := b.lateCards(t, tm)

	require.Eventually(t, countIs(5, `SELECT count(*) FROM automation_traces WHERE rule_id = $1`, rid), 20*time.Second,
		25*time.Millisecond, "due dates to fire")
	// More scan periods on both workers, and the jobs they caused done.
	scansAfter(2, time.Now())
	require.Eventually(t, func() bool {
		res, err := b.River.JobList(ctx, river.NewJobListParams().Kinds(jobs.AutomationEventArgs{}.Kind(),
			jobs.NotifyActivityArgs{}.Kind()).
			States(rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
				rivertype.JobStateRunning, rivertype.JobStateScheduled).First(1))
		return err == nil && len(res.Jobs) == 0
	}, 20*time.Second, 25*time.Millisecond, "jobs to finish")
	b.requireDueDatesFired(t, tm, rid, ids)

	// A new due date re-arms the card: it fires once more.
	b.update(t, tm, tm.Owner, ids[0], board.CardPatch{DueDate: db.Opt[time.Time]{Set: true,
		Value: testfactory.Ptr(time.Now().Add(-time.Minute))}})
	require.Eventually(t, countIs(2, `SELECT count(*) FROM due_date_events WHERE card_id = $1`, ids[0]), 20*time.Second,
		25*time.Millisecond, "re-armed due date")
	scansAfter(1, time.Now())
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM due_date_events WHERE card_id = $1`, ids[0]))
	require.Equal(t, 6, b.Count(t, `SELECT count(*) FROM activities WHERE type = 'due_date_reached'`))
}

package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/jobs"
)

// rule creates an automation rule and returns its id.
func (e *testEnv) rule(u user, prj string, body map[string]any) string {
	e.t.Helper()
	r := e.do("POST", prj+"/automations", u.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	return decode[RuleOut](e.t, r).ID
}

// settle waits until no automation or notification job is left to work.
func (e *testEnv) settle() {
	e.t.Helper()
	e.waitJobs("jobs to finish", []string{jobs.AutomationEventArgs{}.Kind(), jobs.NotifyActivityArgs{}.Kind()},
		jobStatesToWork...)
}

func (e *testEnv) getCard(u user, prj, id string) CardOut {
	e.t.Helper()
	r := e.do("GET", prj+"/cards/"+id, u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return decode[CardOut](e.t, r)
}

func (e *testEnv) traces(u user, prj, ruleID string) []TraceOut {
	e.t.Helper()
	r := e.do("GET", prj+"/automations/"+ruleID+"/traces", u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return decode[[]TraceOut](e.t, r)
}

func TestAutomationRuleCRUDAndValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	other, otherCols := e.project(owner, "Other")

	id := e.rule(owner, prj, map[string]any{"name": "Prioritise", "trigger": "task_created",
		"action":     map[string]any{"type": "set_priority", "priority": "high"},
		"conditions": map[string]any{"priority": []string{"low", "medium"}}})
	r := e.do("GET", prj+"/automations/"+id, member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[RuleOut](t, r).Enabled)
	require.Len(t, decode[[]RuleOut](t, e.do("GET", prj+"/automations", member.Token, nil)), 1)

	// Bodies a rule is refused for (400). They are only read (sent as JSON), so rows share the pieces named
	// here.
	archive := map[string]any{"type": "archive_card"}
	unknownID := "00000000-0000-0000-0000-000000000001"
	bad := []map[string]any{
		// no name
		{"trigger": "task_created", "action": map[string]any{"type": "set_priority", "priority": "high"}},
		// no trigger
		{"name": "x", "action": map[string]any{"type": "set_priority", "priority": "high"}},
		// no action
		{"name": "x", "trigger": "task_created"},
		// unknown trigger
		{"name": "x", "trigger": "whenever", "action": archive},
		// unknown action
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "explode"}},
		// bad priority
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "set_priority", "priority": "urgent"}},
		// no column
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "move_card"}},
		// column of another project
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "move_card", "columnId": otherCols[0]}},
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "set_status", "status": "sleeping"}},
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "assign_user", "userId": unknownID}},
		// parameter it does not take
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "archive_card", "priority": "high"}},
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "archive_card", "bogus": 1}},
		{"name": "x", "trigger": "task_created", "action": archive, "conditions": map[string]any{"colour": "red"}},
		{"name": "x", "trigger": "task_created", "action": archive, "conditions": map[string]any{"toColumnId": cols[1]}},
		{"name": "x", "trigger": "task_moved", "action": archive, "conditions": map[string]any{"toColumnId": otherCols[1]}},
		{"name": "x", "trigger": "task_moved", "action": archive, "conditions": map[string]any{"priority": []string{}}},
		{"name": "x", "trigger": "task_moved", "action": archive, "conditions": map[string]any{"status": "sleeping"}},
		{"name": "x", "trigger": "task_moved", "action": archive, "conditions": map[string]any{"labelId": unknownID}},
	}
	for i, b := range bad {
		r := e.do("POST", prj+"/automations", owner.Token, b)
		require.Equal(t, http.StatusBadRequest, r.Code, "case %d: %s", i, r.Body)
		requireErrorShape(t, r, http.StatusBadRequest)
	}
	// Only workspace admins manage rules; members read them.
	requireStatus(t, e.do("POST", prj+"/automations", member.Token, map[string]any{"name": "x", "trigger": "task_created",
		"action": map[string]any{"type": "archive_card"}}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", prj+"/automations/"+id+"/toggle", member.Token, nil), http.StatusForbidden)

	r = e.do("PATCH", prj+"/automations/"+id, owner.Token, map[string]any{"name": "Prioritise!",
		"action": map[string]any{"type": "set_priority", "priority": "low"}})
	requireStatus(t, r, http.StatusOK)
	updated := decode[RuleOut](t, r)
	require.Equal(t, "Prioritise!", updated.Name)
	require.Equal(t, new(board.PriorityLow), decodeJSON[automation.RuleAction](t, updated.Action).Priority)
	requireStatus(t, e.do("PATCH", prj+"/automations/"+id, owner.Token, map[string]any{"trigger": "task_moved",
		"conditions": map[string]any{"toColumnId": "nope"}}), http.StatusBadRequest)
	r = e.do("PATCH", prj+"/automations/"+id+"/toggle", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, false, decode[RuleOut](t, r).Enabled)

	// A rule of another project is not found under this one.
	otherID := e.rule(owner, other, map[string]any{"name": "o", "trigger": "task_created",
		"action": map[string]any{"type": "archive_card"}})
	requireStatus(t, e.do("GET", prj+"/automations/"+otherID, owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", prj+"/automations/"+otherID, owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", prj+"/automations/"+otherID+"/traces", owner.Token, nil), http.StatusNotFound)

	requireStatus(t, e.do("DELETE", prj+"/automations/"+id, owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", prj+"/automations/"+id, owner.Token, nil), http.StatusNotFound)
}

// What rules do is the automation worker's (workers/automation_test.go); here a real worker runs
// them and the api shows the result and the traces.
func TestAutomationTracesThroughWorker(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.startWorker()
	owner, member, prj, cols := e.team()
	todo := cols[0]

	// task_created → set_priority (only for low cards: a skipped trace for others).
	created := e.rule(owner, prj, map[string]any{"name": "bump", "trigger": "task_created",
		"conditions": map[string]any{"priority": "low"}, "action": map[string]any{"type": "set_priority",
			"priority": "high"}})
	// task_added_to_board → assign_user.
	e.rule(owner, prj, map[string]any{"name": "assign", "trigger": "task_added_to_board",
		"action": map[string]any{"type": "assign_user", "userId": member.ID}})
	r := e.do("POST", prj+"/columns/"+todo+"/cards", owner.Token, map[string]any{"title": "low one", "priority": "low"})
	requireStatus(t, r, http.StatusCreated)
	low := decode[CardOut](t, r).ID
	mid := e.card(owner, prj, todo, "medium one").ID
	e.settle()
	require.EqualValues(t, "high", e.getCard(owner, prj, low).Priority)
	require.EqualValues(t, "medium", e.getCard(owner, prj, mid).Priority)
	require.Equal(t, &member.ID, e.getCard(owner, prj, low).AssigneeID)
	tr := e.traces(owner, prj, created)
	require.Len(t, tr, 2)
	results := map[string]string{}
	for _, x := range tr {
		require.NotNil(t, x.Target.ID)
		results[*x.Target.ID] = x.Result
		require.Equal(t, "card", x.Target.Type)
		require.Equal(t, "automation", x.Actor.Type)
		require.Equal(t, &created, x.Actor.ID)
		require.Equal(t, created, x.RuleID)
		require.Equal(t, "task_created", string(x.Trigger))
		require.Equal(t, int32(0), x.Depth)
		require.NotEmpty(t, x.Timestamp)
	}
	require.Equal(t, "applied", results[low])
	require.Equal(t, "skipped", results[mid])
}

// TestAutomationTaskLabeledThroughWorker: a task_labeled rule with a labelId condition moves a card when
// that label is put on it through the API.
func TestAutomationTaskLabeledThroughWorker(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.startWorker()
	owner, _, prj, cols := e.team()
	r := e.do("POST", prj+"/labels", owner.Token, map[string]any{"name": "Urgent", "color": "#d73a4a"})
	requireStatus(t, r, http.StatusCreated)
	label := decode[LabelOut](t, r).ID
	done := cols[len(cols)-1]
	rule := e.rule(owner, prj, map[string]any{"name": "urgent", "trigger": "task_labeled",
		"conditions": map[string]any{"labelId": label}, "action": map[string]any{"type": "move_card", "columnId": done}})
	id := e.card(owner, prj, cols[0], "fix").ID
	requireStatus(t, e.do("POST", prj+"/cards/"+id+"/labels/"+label, owner.Token, nil), http.StatusOK)
	e.settle()
	require.Equal(t, done, e.getCard(owner, prj, id).ColumnID)
	tr := e.traces(owner, prj, rule)
	require.Len(t, tr, 1)
	require.Equal(t, "applied", tr[0].Result)
	require.Equal(t, "task_labeled", string(tr[0].Trigger))
}

package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/workers"
)

// rule creates an automation rule and returns its id.
func (e *testEnv) rule(u user, prj string, body map[string]any) string {
	e.t.Helper()
	r := e.do("POST", prj+"/automations", u.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	return r.M(e.t)["id"].(string)
}

// settle waits until no automation or notification job is left.
func (e *testEnv) settle() {
	e.t.Helper()
	waitFor(e.t, "jobs to finish", func() bool {
		return e.count(`SELECT count(*) FROM river_job WHERE kind IN ('automation_event', 'notify_activity') AND state NOT IN ('completed', 'discarded', 'cancelled')`) == 0
	})
}

func (e *testEnv) getCard(u user, prj, id string) map[string]any {
	e.t.Helper()
	r := e.do("GET", prj+"/cards/"+id, u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return r.M(e.t)
}

func (e *testEnv) traces(u user, prj, ruleID string) []map[string]any {
	e.t.Helper()
	r := e.do("GET", prj+"/automations/"+ruleID+"/traces", u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return r.L(e.t)
}

func TestAutomationRuleCRUDAndValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	other, otherCols := e.project(owner, "Other")

	id := e.rule(owner, prj, map[string]any{"name": "Prioritise", "trigger": "task_created",
		"action": map[string]any{"type": "set_priority", "priority": "high"}, "conditions": map[string]any{"priority": []string{"low", "medium"}}})
	r := e.do("GET", prj+"/automations/"+id, member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, r.M(t)["enabled"])
	require.Len(t, e.do("GET", prj+"/automations", member.Token, nil).L(t), 1)

	bad := []map[string]any{
		{"trigger": "task_created", "action": map[string]any{"type": "set_priority", "priority": "high"}},                 // no name
		{"name": "x", "action": map[string]any{"type": "set_priority", "priority": "high"}},                               // no trigger
		{"name": "x", "trigger": "task_created"},                                                                          // no action
		{"name": "x", "trigger": "whenever", "action": map[string]any{"type": "archive_card"}},                            // unknown trigger
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "explode"}},                             // unknown action
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "set_priority", "priority": "urgent"}},  // bad priority
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "move_card"}},                           // no column
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "move_card", "columnId": otherCols[0]}}, // column of another project
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "set_status", "status": "sleeping"}},
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "assign_user", "userId": "00000000-0000-0000-0000-000000000001"}},
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "archive_card", "priority": "high"}}, // parameter it does not take
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "archive_card", "bogus": 1}},
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "archive_card"}, "conditions": map[string]any{"colour": "red"}},
		{"name": "x", "trigger": "task_created", "action": map[string]any{"type": "archive_card"}, "conditions": map[string]any{"toColumnId": cols[1]}},
		{"name": "x", "trigger": "task_moved", "action": map[string]any{"type": "archive_card"}, "conditions": map[string]any{"toColumnId": otherCols[1]}},
		{"name": "x", "trigger": "task_moved", "action": map[string]any{"type": "archive_card"}, "conditions": map[string]any{"priority": []string{}}},
		{"name": "x", "trigger": "task_moved", "action": map[string]any{"type": "archive_card"}, "conditions": map[string]any{"status": "sleeping"}},
		{"name": "x", "trigger": "task_moved", "action": map[string]any{"type": "archive_card"}, "conditions": map[string]any{"labelId": "00000000-0000-0000-0000-000000000001"}},
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

	r = e.do("PATCH", prj+"/automations/"+id, owner.Token, map[string]any{"name": "Prioritise!", "action": map[string]any{"type": "set_priority", "priority": "low"}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Prioritise!", r.M(t)["name"])
	require.Equal(t, "low", r.M(t)["action"].(map[string]any)["priority"])
	requireStatus(t, e.do("PATCH", prj+"/automations/"+id, owner.Token, map[string]any{"trigger": "task_moved", "conditions": map[string]any{"toColumnId": "nope"}}), http.StatusBadRequest)
	r = e.do("PATCH", prj+"/automations/"+id+"/toggle", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, false, r.M(t)["enabled"])

	// A rule of another project is not found under this one.
	otherID := e.rule(owner, other, map[string]any{"name": "o", "trigger": "task_created", "action": map[string]any{"type": "archive_card"}})
	requireStatus(t, e.do("GET", prj+"/automations/"+otherID, owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", prj+"/automations/"+otherID, owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", prj+"/automations/"+otherID+"/traces", owner.Token, nil), http.StatusNotFound)

	requireStatus(t, e.do("DELETE", prj+"/automations/"+id, owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", prj+"/automations/"+id, owner.Token, nil), http.StatusNotFound)
}

func TestAutomationTriggersAndActionsThroughWorker(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.startWorker()
	owner, member, prj, cols := e.team()
	todo, doing, done := cols[0], cols[1], cols[2]

	// task_created → set_priority (only for low cards: a skipped trace for others).
	created := e.rule(owner, prj, map[string]any{"name": "bump", "trigger": "task_created",
		"conditions": map[string]any{"priority": "low"}, "action": map[string]any{"type": "set_priority", "priority": "high"}})
	// task_added_to_board → assign_user.
	e.rule(owner, prj, map[string]any{"name": "assign", "trigger": "task_added_to_board", "action": map[string]any{"type": "assign_user", "userId": member.ID}})
	r := e.do("POST", prj+"/columns/"+todo+"/cards", owner.Token, map[string]any{"title": "low one", "priority": "low"})
	requireStatus(t, r, http.StatusCreated)
	low := r.M(t)["id"].(string)
	mid := e.card(owner, prj, todo, "medium one")["id"].(string)
	e.settle()
	require.Equal(t, "high", e.getCard(owner, prj, low)["priority"])
	require.Equal(t, "medium", e.getCard(owner, prj, mid)["priority"])
	require.Equal(t, member.ID, e.getCard(owner, prj, low)["assigneeId"])
	tr := e.traces(owner, prj, created)
	require.Len(t, tr, 2)
	results := map[string]string{}
	for _, x := range tr {
		results[x["target"].(map[string]any)["id"].(string)] = x["result"].(string)
		require.Equal(t, "automation", x["actor"].(map[string]any)["type"])
		require.Equal(t, created, x["actor"].(map[string]any)["id"])
		require.NotEmpty(t, x["timestamp"])
	}
	require.Equal(t, "applied", results[low])
	require.Equal(t, "skipped", results[mid])
	// Automation actions record activity (and so notify) like a person's change.
	require.Equal(t, 1, e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_assigned' AND meta ? 'automationRuleId'`, low))

	// task_moved (to "doing") → archive_card; task_status_changed (to done) → set_priority low.
	e.rule(owner, prj, map[string]any{"name": "archive", "trigger": "task_moved", "conditions": map[string]any{"toColumnId": doing}, "action": map[string]any{"type": "archive_card"}})
	e.rule(owner, prj, map[string]any{"name": "calm", "trigger": "task_status_changed", "conditions": map[string]any{"status": "done"}, "action": map[string]any{"type": "set_priority", "priority": "low"}})
	requireStatus(t, e.do("PATCH", prj+"/cards/"+mid, owner.Token, map[string]any{"columnId": doing}), http.StatusOK)
	requireStatus(t, e.do("PATCH", prj+"/cards/"+low, owner.Token, map[string]any{"columnId": done}), http.StatusOK)
	e.settle()
	require.Equal(t, true, e.getCard(owner, prj, mid)["archived"])
	require.Equal(t, false, e.getCard(owner, prj, low)["archived"])
	require.Equal(t, "low", e.getCard(owner, prj, low)["priority"])

	// task_assigned → move_card; checklist_complete → set_status done.
	e.rule(owner, prj, map[string]any{"name": "start", "trigger": "task_assigned", "conditions": map[string]any{"assigneeId": owner.ID}, "action": map[string]any{"type": "move_card", "columnId": doing}})
	e.rule(owner, prj, map[string]any{"name": "finish", "trigger": "checklist_complete", "action": map[string]any{"type": "set_status", "status": "done"}})
	r = e.do("POST", prj+"/columns/"+todo+"/cards", owner.Token, map[string]any{"title": "list", "checklist": []map[string]any{{"title": "a"}, {"title": "b", "done": true}}})
	requireStatus(t, r, http.StatusCreated)
	list := r.M(t)
	listID := list["id"].(string)
	e.settle()
	requireStatus(t, e.do("PATCH", prj+"/cards/"+listID, owner.Token, map[string]any{"assigneeId": owner.ID}), http.StatusOK)
	e.settle()
	c := e.getCard(owner, prj, listID)
	require.Equal(t, doing, c["columnId"])
	require.Equal(t, true, c["archived"]) // the move to "doing" fired the archive rule too: rules chain
	items := c["checklist"].([]any)
	var open string
	for _, it := range items {
		if !it.(map[string]any)["done"].(bool) {
			open = it.(map[string]any)["_id"].(string)
		}
	}
	requireStatus(t, e.do("PATCH", prj+"/cards/"+listID+"/checklist/"+open, owner.Token, map[string]any{"done": true}), http.StatusOK)
	e.settle()
	require.Equal(t, done, e.getCard(owner, prj, listID)["columnId"])
}

func TestAutomationLoopStopsAtDepthCap(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.startWorker()
	owner, _, prj, cols := e.team()
	ping := e.rule(owner, prj, map[string]any{"name": "ping", "trigger": "task_moved", "conditions": map[string]any{"toColumnId": cols[1]}, "action": map[string]any{"type": "move_card", "columnId": cols[2]}})
	pong := e.rule(owner, prj, map[string]any{"name": "pong", "trigger": "task_moved", "conditions": map[string]any{"toColumnId": cols[2]}, "action": map[string]any{"type": "move_card", "columnId": cols[1]}})
	id := e.card(owner, prj, cols[0], "ball")["id"].(string)
	requireStatus(t, e.do("PATCH", prj+"/cards/"+id, owner.Token, map[string]any{"columnId": cols[1]}), http.StatusOK)
	e.settle()
	// person (depth 0) → ping (1) → pong (2) → ping (3: past the cap, skipped).
	moves := e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_moved'`, id)
	require.Equal(t, 1+3, moves)
	var capped int
	for _, rid := range []string{ping, pong} {
		for _, tr := range e.traces(owner, prj, rid) {
			if tr["result"] == "skipped" && tr["depth"] == float64(3) {
				require.Contains(t, tr["reason"], "depth cap")
				capped++
			}
		}
	}
	require.GreaterOrEqual(t, capped, 1)
	// It has really stopped: nothing left to run and no further moves.
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, moves, e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_moved'`, id))
}

func TestAutomationRetriedEventRunsRuleOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	rid := e.rule(owner, prj, map[string]any{"name": "bump", "trigger": "task_created", "action": map[string]any{"type": "set_priority", "priority": "high"}})
	card := e.card(owner, prj, cols[0], "once")
	var ev jobs.AutomationEventArgs
	var activityID string
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT id FROM activities WHERE card_id = $1 AND type = 'card_created'`, card["id"]).Scan(&activityID))
	ev = jobs.AutomationEventArgs{EventID: activityID, ProjectID: card["projectId"].(string), CardID: card["id"].(string), Trigger: "task_created"}
	for range 3 {
		require.NoError(t, e.store.RunAutomations(context.Background(), ev))
	}
	require.Equal(t, 1, e.count(`SELECT count(*) FROM automation_traces WHERE rule_id = $1`, rid))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_updated'`, card["id"]))
}

func TestDueDatesFireOnceAcrossTwoWorkers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for range 2 { // two worker processes on one database
		client, _, err := workers.NewClient(e.pool, workers.Config{Concurrency: 4, DueDateScanInterval: time.Second, Logger: logger})
		require.NoError(t, err)
		require.NoError(t, client.Start(context.Background()))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = client.Stop(ctx)
		})
	}
	owner, member, prj, cols := e.team()
	rid := e.rule(owner, prj, map[string]any{"name": "late", "trigger": "due_date_reached", "action": map[string]any{"type": "set_priority", "priority": "high"}})
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	var ids []string
	for i := range 5 {
		body := map[string]any{"title": "late " + string(rune('a'+i)), "dueDate": past, "assigneeId": member.ID}
		r := e.do("POST", prj+"/columns/"+cols[0]+"/cards", owner.Token, body)
		requireStatus(t, r, http.StatusCreated)
		ids = append(ids, r.M(t)["id"].(string))
	}
	future := e.do("POST", prj+"/columns/"+cols[0]+"/cards", owner.Token, map[string]any{"title": "later", "dueDate": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	requireStatus(t, future, http.StatusCreated)

	waitFor(t, "due dates to fire", func() bool { return e.count(`SELECT count(*) FROM automation_traces WHERE rule_id = $1`, rid) == 5 })
	time.Sleep(2500 * time.Millisecond) // more scan periods on both workers
	e.settle()
	require.Equal(t, 5, e.count(`SELECT count(*) FROM due_date_events`))
	require.Equal(t, 5, e.count(`SELECT count(*) FROM activities WHERE type = 'due_date_reached'`))
	require.Equal(t, 5, e.count(`SELECT count(*) FROM automation_traces WHERE rule_id = $1 AND result = 'applied'`, rid))
	for _, id := range ids {
		require.Equal(t, "high", e.getCard(owner, prj, id)["priority"])
	}
	// The assignee is notified; the other project member (the owner) is not.
	require.Equal(t, 5, e.count(`SELECT count(*) FROM notifications n JOIN activities a ON a.id = n.activity_id WHERE a.type = 'due_date_reached' AND n.user_id = $1`, member.ID))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM notifications n JOIN activities a ON a.id = n.activity_id WHERE a.type = 'due_date_reached' AND n.user_id = $1`, owner.ID))

	// A new due date re-arms the card: it fires once more.
	requireStatus(t, e.do("PATCH", prj+"/cards/"+ids[0], owner.Token, map[string]any{"dueDate": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}), http.StatusOK)
	waitFor(t, "re-armed due date", func() bool { return e.count(`SELECT count(*) FROM due_date_events WHERE card_id = $1`, ids[0]) == 2 })
	time.Sleep(1500 * time.Millisecond)
	require.Equal(t, 2, e.count(`SELECT count(*) FROM due_date_events WHERE card_id = $1`, ids[0]))
	require.Equal(t, 6, e.count(`SELECT count(*) FROM activities WHERE type = 'due_date_reached'`))
}

package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/pilotage"
)

// plPath is the pilotage path of u's personal workspace.
func plPath(u user) string { return pfWS(u) + "/pilotage" }

// plCreate posts a record and answers its id.
func plCreate(e *testEnv, token, path string, body any) string {
	e.t.Helper()
	r := e.do("POST", path, token, body)
	requireStatus(e.t, r, http.StatusCreated)
	var v struct {
		ID string `json:"id"`
	}
	require.NoError(e.t, json.Unmarshal(r.Body, &v))
	return v.ID
}

// plSetStamp moves a record's timestamps into the past (tests of cycles and ordering).
func plSetStamp(e *testEnv, table, id string, at time.Time) {
	e.t.Helper()
	_, err := e.pool.Exec(context.Background(), `UPDATE `+table+` SET created_at = $2, updated_at = $2 WHERE id = $1`, id,
		at)
	require.NoError(e.t, err)
}

func TestPilotageMissionsCRUDAndBlockedReason(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	p := plPath(ann) + "/missions"

	r := e.do("POST", p, ann.Token, map[string]any{"objective": "Ship v2", "module": "core"})
	requireStatus(t, r, http.StatusCreated)
	m := decode[PilotageMissionOut](t, r)
	require.EqualValues(t, "to_launch", m.Status)
	require.Nil(t, m.BlockedReason)
	require.Equal(t, ann.ID, m.CreatedBy)
	require.Equal(t, ann.ID, m.UpdatedBy)

	// Blocked needs a reason; the reason is at most 200 characters; only a blocked mission has one.
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"status": "blocked"}, "blockedReason"},
		{map[string]any{"status": "blocked", "blockedReason": strings.Repeat("r", 201)}, "blockedReason"},
		{map[string]any{"blockedReason": "waiting"}, "blockedReason"},
		{map[string]any{"status": "stuck"}, "status"},
		{map[string]any{"objective": ""}, "objective"},
		{map[string]any{"objective": strings.Repeat("o", 501)}, "objective"},
	} {
		r := e.do("PATCH", p+"/"+m.ID, ann.Token, tc.body)
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, decode[ErrorBody](t, r).Message, tc.field, "%v", tc.body)
	}
	requireStatus(t, e.do("POST", p, ann.Token, map[string]any{"objective": "x", "status": "blocked"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", p, ann.Token, map[string]any{"objective": "x", "status": "done", "blockedReason": "no"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", p, ann.Token, map[string]any{"module": "x"}), http.StatusBadRequest)

	r = e.do("PATCH", p+"/"+m.ID, ann.Token, map[string]any{"status": "blocked", "blockedReason": strings.Repeat("r",
		200)})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, strings.Repeat("r", 200), *decode[PilotageMissionOut](t, r).BlockedReason)
	// Staying blocked: the reason may change but not be cleared.
	requireStatus(t, e.do("PATCH", p+"/"+m.ID, ann.Token, map[string]any{"blockedReason": nil}), http.StatusBadRequest)
	r = e.do("PATCH", p+"/"+m.ID, ann.Token, map[string]any{"blockedReason": "waiting on legal"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "waiting on legal", *decode[PilotageMissionOut](t, r).BlockedReason)
	// Leaving blocked clears it.
	r = e.do("PATCH", p+"/"+m.ID, ann.Token, map[string]any{"status": "in_progress"})
	requireStatus(t, r, http.StatusOK)
	got := decode[PilotageMissionOut](t, r)
	require.EqualValues(t, "in_progress", got.Status)
	require.Nil(t, got.BlockedReason)
	require.JSONEq(t, `null`, string(bodyFields(t, r)["blockedReason"]))

	r = e.do("GET", p, ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]PilotageMissionOut](t, r), 1)
	requireStatus(t, e.do("DELETE", p+"/"+m.ID, ann.Token, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", p+"/"+m.ID, ann.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", p+"/"+m.ID, ann.Token, map[string]any{"status": "done"}), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", p+"/not-an-id", ann.Token, map[string]any{"status": "done"}), http.StatusNotFound)
}

func TestPilotageOtherRecordsCRUD(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)

	// Priorities.
	r := e.do("POST", base+"/priorities", ann.Token, map[string]any{"label": "Retention", "module": "growth"})
	requireStatus(t, r, http.StatusCreated)
	pr := decode[PilotagePriorityOut](t, r)
	require.True(t, pr.Active)
	r = e.do("PATCH", base+"/priorities/"+pr.ID, ann.Token, map[string]any{"active": false, "label": "Retention Q3"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, PilotagePriorityOut{ID: pr.ID, Label: "Retention Q3", Module: "growth", Active: false,
		Audit: decode[PilotagePriorityOut](t, r).Audit}, decode[PilotagePriorityOut](t, r))
	requireStatus(t, e.do("POST", base+"/priorities", ann.Token, map[string]any{"label": ""}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", base+"/priorities", ann.Token, map[string]any{"label": "x", "module": strings.Repeat("m",
		101)}), http.StatusBadRequest)

	// Decisions.
	r = e.do("POST", base+"/decisions", ann.Token, map[string]any{"title": "Drop IE11", "impact": "smaller bundle"})
	requireStatus(t, r, http.StatusCreated)
	d := decode[PilotageDecisionOut](t, r)
	r = e.do("PATCH", base+"/decisions/"+d.ID, ann.Token, map[string]any{"impact": "faster pages"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "faster pages", decode[PilotageDecisionOut](t, r).Impact)
	requireStatus(t, e.do("POST", base+"/decisions", ann.Token, map[string]any{"impact": "x"}), http.StatusBadRequest)

	// Active documents.
	r = e.do("POST", base+"/docs", ann.Token, map[string]any{"title": "Roadmap", "owner": "Ann"})
	requireStatus(t, r, http.StatusCreated)
	doc := decode[PilotageDocOut](t, r)
	require.Equal(t, "product", doc.SourceType)
	r = e.do("PATCH", base+"/docs/"+doc.ID, ann.Token, map[string]any{"sourceType": "tech"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "tech", decode[PilotageDocOut](t, r).SourceType)
	r = e.do("POST", base+"/docs", ann.Token, map[string]any{"title": "x", "sourceType": "legal"})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "sourceType")

	// Todos, linked to a mission and a priority of the workspace.
	mission := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Ship"})
	r = e.do("POST", base+"/todos", ann.Token, map[string]any{"label": "Write docs", "missionId": mission,
		"priorityId": pr.ID, "dueDate": "2030-01-02T00:00:00Z"})
	requireStatus(t, r, http.StatusCreated)
	todo := decode[PilotageTodoOut](t, r)
	require.EqualValues(t, "todo", todo.Status)
	require.Equal(t, mission, *todo.MissionID)
	r = e.do("PATCH", base+"/todos/"+todo.ID, ann.Token, map[string]any{"status": "done", "priorityId": nil,
		"dueDate": nil})
	requireStatus(t, r, http.StatusOK)
	todo = decode[PilotageTodoOut](t, r)
	require.EqualValues(t, "done", todo.Status)
	require.Nil(t, todo.PriorityID)
	require.Nil(t, todo.DueDate)
	require.Equal(t, mission, *todo.MissionID)
	r = e.do("PATCH", base+"/todos/"+todo.ID, ann.Token, map[string]any{"status": "finished"})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "status")

	// Deleting the mission keeps its todo, without mission.
	requireStatus(t, e.do("DELETE", base+"/missions/"+mission, ann.Token, nil), http.StatusOK)
	r = e.do("GET", base+"/todos", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	todos := decode[[]PilotageTodoOut](t, r)
	require.Len(t, todos, 1)
	require.Nil(t, todos[0].MissionID)

	for _, kind := range []string{"priorities", "decisions", "docs", "todos"} {
		r := e.do("GET", base+"/"+kind, ann.Token, nil)
		requireStatus(t, r, http.StatusOK)
		var rows []map[string]any
		require.NoError(t, json.Unmarshal(r.Body, &rows))
		require.Len(t, rows, 1, kind)
		id := rows[0]["id"].(string)
		requireStatus(t, e.do("DELETE", base+"/"+kind+"/"+id, ann.Token, nil), http.StatusOK)
		requireStatus(t, e.do("DELETE", base+"/"+kind+"/"+id, ann.Token, nil), http.StatusNotFound)
		requireStatus(t, e.do("PATCH", base+"/"+kind+"/"+id, ann.Token, map[string]any{}), http.StatusNotFound)
	}
}

// A todo's missionId and priorityId must name records of the same workspace: another workspace's
// record, or no record at all, is 404.
func TestPilotageTodoRefsStayInTheWorkspace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	bobMission := plCreate(e, bob.Token, plPath(bob)+"/missions", map[string]any{"objective": "Bob's"})
	bobPriority := plCreate(e, bob.Token, plPath(bob)+"/priorities", map[string]any{"label": "Bob's"})
	base := plPath(ann) + "/todos"
	for _, body := range []map[string]any{
		{"label": "x", "missionId": bobMission},
		{"label": "x", "priorityId": bobPriority},
		{"label": "x", "missionId": db.NewID()},
		{"label": "x", "missionId": "nope"},
	} {
		r := e.do("POST", base, ann.Token, body)
		requireStatus(t, r, http.StatusNotFound)
	}
	todo := plCreate(e, ann.Token, base, map[string]any{"label": "x"})
	requireStatus(t, e.do("PATCH", base+"/"+todo, ann.Token, map[string]any{"missionId": bobMission}), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", base+"/"+todo, ann.Token, map[string]any{"priorityId": bobPriority}),
		http.StatusNotFound)
	require.Equal(t, 0,
		e.count(`SELECT count(*) FROM pilotage_todos WHERE mission_id IS NOT NULL OR priority_id IS NOT NULL`))
}

func TestPilotageHistoryRecordsWhoAndWhenAndPages(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)
	start := time.Now().Add(-time.Second)
	m := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Ship"})
	requireStatus(t, e.do("PATCH", base+"/missions/"+m, ann.Token, map[string]any{"status": "blocked",
		"blockedReason": "legal"}), http.StatusOK)
	d := plCreate(e, ann.Token, base+"/decisions", map[string]any{"title": "Go"})
	requireStatus(t, e.do("DELETE", base+"/decisions/"+d, ann.Token, nil), http.StatusOK)
	a := plCreate(e, ann.Token, base+"/actions/propose", map[string]any{"actionType": "noop", "explanation": "why"})
	requireStatus(t, e.do("POST", base+"/actions/"+a+"/review", ann.Token, map[string]any{"approved": true,
		"reason": "fine"}), http.StatusOK)
	requireStatus(t, e.do("POST", base+"/actions/"+a+"/apply", ann.Token, nil), http.StatusOK)

	r := e.do("GET", base+"/history?limit=3", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	page := decode[PilotageHistoryOut](t, r)
	require.Len(t, page.Items, 3)
	require.NotNil(t, page.NextCursor)
	var all []HistoryEntryOut
	all = append(all, page.Items...)
	for page.NextCursor != nil {
		r = e.do("GET", base+"/history?limit=3&before="+*page.NextCursor, ann.Token, nil)
		requireStatus(t, r, http.StatusOK)
		page = decode[PilotageHistoryOut](t, r)
		all = append(all, page.Items...)
	}
	var seen []string
	for _, h := range all {
		require.Equal(t, ann.ID, h.ActorID)
		require.True(t, h.At.After(start), "when: %v", h.At)
		seen = append(seen, h.RecordType+":"+h.Change)
	}
	require.Equal(t, []string{"action:applied", "action:reviewed", "action:proposed", "decision:deleted",
		"decision:created", "mission:updated", "mission:created"}, seen, "newest first")
	require.JSONEq(t, `{"status":{"from":"to_launch","to":"blocked"},"blockedReason":{"from":null,"to":"legal"}}`,
		string(all[5].Data))
	require.JSONEq(t, `{"status":"approved","reason":"fine"}`, string(all[1].Data))

	r = e.do("GET", base+"/history?recordType=mission", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[PilotageHistoryOut](t, r).Items, 2)
	r = e.do("GET", base+"/history?since="+time.Now().Add(time.Hour).UTC().Format(time.RFC3339), ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[PilotageHistoryOut](t, r).Items)
	requireStatus(t, e.do("GET", base+"/history?before=x", ann.Token, nil), http.StatusBadRequest)
	requireStatus(t, e.do("GET", base+"/history?recordType=card", ann.Token, nil), http.StatusBadRequest)
	requireStatus(t, e.do("GET", base+"/history?limit=201", ann.Token, nil), http.StatusBadRequest)
}

// plState reads the state with a query string.
func plState(e *testEnv, u user, query string) PilotageStateOut {
	e.t.Helper()
	r := e.do("GET", plPath(u)+"/state?"+query, u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return decode[PilotageStateOut](e.t, r)
}

func ids(rows []map[string]any) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r["id"].(string))
	}
	return out
}

func keys(m map[string]any) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The state: profile selects, intent orders and trims, detailLevel sets the fields. Each axis is shown
// on its own, then every combination is checked against what each axis promises.
func TestPilotageStateProfilesIntentsAndDetail(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)
	lastMonth := time.Now().AddDate(0, -1, 0)

	mOld := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Old done", "status": "done"})
	plSetStamp(e, "pilotage_missions", mOld, lastMonth)
	mDone := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Done this week", "status": "done"})
	mLaunch := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "To launch"})
	mProg := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Running", "status": "in_progress"})
	mBlocked := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Stuck", "status": "blocked",
		"blockedReason": "legal"})
	pActive := plCreate(e, ann.Token, base+"/priorities", map[string]any{"label": "Active"})
	plCreate(e, ann.Token, base+"/priorities", map[string]any{"label": "Shelved", "active": false})
	tLater := plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "Later", "dueDate": "2031-01-01T00:00:00Z"})
	tSoon := plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "Soon", "dueDate": "2030-01-01T00:00:00Z",
		"priorityId": pActive})
	tBlocked := plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "Blocked", "status": "blocked"})
	tDone := plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "Done", "status": "done"})
	dOld := plCreate(e, ann.Token, base+"/decisions", map[string]any{"title": "Old"})
	plSetStamp(e, "pilotage_decisions", dOld, lastMonth)
	var dNew []string
	for i := range 6 {
		id := plCreate(e, ann.Token, base+"/decisions", map[string]any{"title": fmt.Sprintf("New %d", i)})
		plSetStamp(e, "pilotage_decisions", id, time.Now().Add(time.Duration(i-10)*time.Minute))
		dNew = append(dNew, id)
	}
	doc := plCreate(e, ann.Token, base+"/docs", map[string]any{"title": "Spec"})

	// Defaults: pilotage profile, standard detail, no intent (creation order, untrimmed).
	st := plState(e, ann, "")
	require.Regexp(t, `^\d{4}-W\d{2}$`, st.Cycle)
	require.Equal(t, pilotage.Cycle(time.Now()), st.Cycle)
	require.Equal(t, 1, st.ContractVersion)
	require.Equal(t, UsageContextOut{Profile: "pilotage", Role: "owner", DetailLevel: "standard"}, st.UsageContext)
	require.Equal(t, []string{mOld, mDone, mLaunch, mProg, mBlocked}, ids(st.Missions))
	require.Equal(t, []string{pActive}, ids(st.ActivePriorities), "inactive priorities are left out")
	require.Equal(t, []string{tLater, tSoon, tBlocked, tDone}, ids(st.Todos))
	require.Equal(t, append([]string{dOld}, dNew...), ids(st.Decisions))
	require.Equal(t, []string{doc}, ids(st.ActiveDocs))

	// Profiles select.
	st = plState(e, ann, "profile=execution")
	require.Equal(t, []string{mProg, mBlocked}, ids(st.Missions))
	require.Equal(t, []string{tLater, tSoon, tBlocked}, ids(st.Todos))
	require.Empty(t, st.Decisions)
	require.Empty(t, st.ActivePriorities)
	require.Empty(t, st.ActiveDocs)
	st = plState(e, ann, "profile=revue")
	require.Equal(t, []string{mDone}, ids(st.Missions), "done this cycle only")
	require.Equal(t, []string{tDone}, ids(st.Todos))
	require.Equal(t, dNew, ids(st.Decisions), "decisions of this cycle")
	require.Empty(t, st.ActivePriorities)

	// Intents order and trim.
	st = plState(e, ann, "intent=daily_execution")
	require.Equal(t, []string{mBlocked, mProg, mLaunch}, ids(st.Missions), "blocked first, done dropped")
	require.Equal(t, []string{tBlocked, tSoon, tLater}, ids(st.Todos), "blocked first, then by due date")
	require.Equal(t, []string{dNew[5], dNew[4], dNew[3], dNew[2], dNew[1]}, ids(st.Decisions), "the five latest")
	require.Empty(t, st.ActiveDocs)
	require.Equal(t, "daily_execution", *st.UsageContext.Intent)
	st = plState(e, ann, "intent=weekly_review")
	require.NotContains(t, ids(st.Missions), mOld, "unchanged this cycle")
	require.Equal(t, []string{dNew[5], dNew[4], dNew[3], dNew[2], dNew[1], dNew[0]}, ids(st.Decisions),
		"this cycle's, newest first")
	st = plState(e, ann, "intent=sprint_planning")
	require.Equal(t, []string{mLaunch, mBlocked, mProg}, ids(st.Missions), "to launch first, done dropped")
	require.Equal(t, []string{tSoon, tLater, tBlocked}, ids(st.Todos), "prioritised todos first, then by due date")
	require.Len(t, st.Decisions, 5)
	st = plState(e, ann, "intent=context_only")
	require.Len(t, st.Decisions, 7)
	require.Equal(t, dNew[5], ids(st.Decisions)[0], "latest first")

	// Detail levels set the fields.
	st = plState(e, ann, "detailLevel=minimal")
	require.Equal(t, []string{"id", "objective", "status"}, keys(st.Missions[0]))
	require.Equal(t, []string{"id", "label"}, keys(st.ActivePriorities[0]))
	require.Equal(t, []string{"id", "label", "status"}, keys(st.Todos[0]))
	require.Equal(t, []string{"id", "title"}, keys(st.Decisions[0]))
	require.Equal(t, []string{"id", "title"}, keys(st.ActiveDocs[0]))
	st = plState(e, ann, "detailLevel=standard")
	require.Equal(t, []string{"blockedReason", "id", "module", "objective", "status"}, keys(st.Missions[0]))
	require.Equal(t, []string{"dueDate", "id", "label", "missionId", "priorityId", "status"}, keys(st.Todos[0]))
	st = plState(e, ann, "detailLevel=detailed")
	require.Equal(t, []string{"blockedReason", "createdAt", "createdBy", "id", "module", "objective", "status",
		"updatedAt", "updatedBy"}, keys(st.Missions[0]))
	require.Equal(t, ann.ID, st.Missions[0]["createdBy"])

	// Every combination: the detail level's fields, the profile's selection, the intent's trims.
	fields := map[string]int{"minimal": 3, "standard": 5, "detailed": 9}
	for _, profile := range pilotage.PilotageProfiles {
		for _, intent := range append([]string{""}, pilotage.PilotageIntents...) {
			for level, n := range fields {
				q := "profile=" + profile + "&detailLevel=" + level
				if intent != "" {
					q += "&intent=" + intent
				}
				st := plState(e, ann, q)
				require.Equal(t, profile, st.UsageContext.Profile, q)
				require.Equal(t, level, st.UsageContext.DetailLevel, q)
				for _, m := range st.Missions {
					require.Len(t, m, n, q)
					switch profile {
					case "execution":
						require.Contains(t, []string{"in_progress", "blocked"}, m["status"], q)
					case "revue":
						require.Equal(t, "done", m["status"], q)
					}
					if intent == "daily_execution" || intent == "sprint_planning" {
						require.NotEqual(t, "done", m["status"], q)
					}
				}
				if profile != "pilotage" {
					require.Empty(t, st.ActivePriorities, q)
					require.Empty(t, st.ActiveDocs, q)
				}
				if intent == "context_only" {
					require.LessOrEqual(t, len(st.Decisions), 10, q)
				}
				if intent == "daily_execution" || intent == "sprint_planning" {
					require.LessOrEqual(t, len(st.Decisions), 5, q)
				}
			}
		}
	}

	// Unknown values are 400s naming the parameter.
	for _, q := range []string{"profile=boss", "intent=party", "detailLevel=max"} {
		r := e.do("GET", base+"/state?"+q, ann.Token, nil)
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, decode[ErrorBody](t, r).Message, strings.Split(q, "=")[0], q)
	}
}

// The state, the dashboard and the portfolio each read one REPEATABLE READ read-only snapshot, with as
// many statements for a big workspace as for a small one.
func TestPilotageReadsAreOneSnapshotOfConstantQueries(t *testing.T) {
	t.Parallel()
	e, l := setupLogged(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)
	prj, cols := pfProject(e, ann, "P1", "basic-kanban", nil)
	pfCard(e, ann, prj, cols[0], map[string]any{"title": "c"})
	plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "m"})

	count := func(path string) int {
		stmts := l.during(e, "GET", path, ann.Token, nil, http.StatusOK)
		begin := slices.IndexFunc(stmts, func(s string) bool { return strings.HasPrefix(strings.ToLower(s), "begin") })
		require.GreaterOrEqual(t, begin, 0, "%s: %v", path, stmts)
		require.Equal(t, "begin isolation level repeatable read read only", strings.ToLower(stmts[begin]), path)
		end := slices.IndexFunc(stmts, func(s string) bool { return strings.ToLower(s) == "commit" })
		require.Greater(t, end, begin, path)
		return end - begin - 1
	}
	small := map[string]int{}
	for _, p := range []string{"/state", "/dashboard", "/portfolio"} {
		small[p] = count(base + p)
	}
	require.Equal(t, 5, small["/state"])
	require.Equal(t, 5, small["/dashboard"])
	require.Equal(t, 2, small["/portfolio"])

	for i := range 4 {
		prj, cols := pfProject(e, ann, fmt.Sprintf("More %d", i), "basic-kanban", nil)
		for _, c := range cols {
			pfCard(e, ann, prj, c, map[string]any{"title": "c", "dueDate": "2020-01-01T00:00:00Z"})
		}
		m := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "m", "status": "blocked",
			"blockedReason": "r"})
		plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "t", "missionId": m, "dueDate": "2020-01-01T00:00:00Z"})
		plCreate(e, ann.Token, base+"/decisions", map[string]any{"title": "d"})
		plCreate(e, ann.Token, base+"/actions/propose", map[string]any{"actionType": "x", "explanation": "y"})
	}
	for p, n := range small {
		require.Equal(t, n, count(base+p), p)
	}
}

func TestPilotageDashboard(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)
	past := time.Now().Add(-48 * time.Hour).UTC().Format(time.RFC3339)
	future := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	blocked := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Stuck", "status": "blocked",
		"blockedReason": "vendor"})
	plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Run", "status": "in_progress"})
	plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Later"})
	overdue := plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "Late", "dueDate": past})
	soon := plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "Soon", "dueDate": future,
		"status": "in_progress"})
	undated := plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "Whenever"})
	plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "Done late", "dueDate": past, "status": "done"})
	oldDecision := plCreate(e, ann.Token, base+"/decisions", map[string]any{"title": "Old"})
	plSetStamp(e, "pilotage_decisions", oldDecision, time.Now().AddDate(0, 0, -14))
	newDecision := plCreate(e, ann.Token, base+"/decisions", map[string]any{"title": "New"})
	sug := plCreate(e, ann.Token, base+"/actions/propose", map[string]any{"actionType": "x", "explanation": "y"})
	appr := plCreate(e, ann.Token, base+"/actions/propose", map[string]any{"actionType": "x", "explanation": "y"})
	requireStatus(t, e.do("POST", base+"/actions/"+appr+"/review", ann.Token, map[string]any{"approved": true}),
		http.StatusOK)
	rej := plCreate(e, ann.Token, base+"/actions/propose", map[string]any{"actionType": "x", "explanation": "y"})
	requireStatus(t, e.do("POST", base+"/actions/"+rej+"/review", ann.Token, map[string]any{"approved": false}),
		http.StatusOK)

	r := e.do("GET", base+"/dashboard", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	d := decode[PilotageDashboardOut](t, r)
	require.Equal(t, pilotage.Cycle(time.Now()), d.Cycle)
	require.Equal(t, DashboardCountsOut{
		Missions: MissionCountsOut{ToLaunch: 1, InProgress: 1, Blocked: 1},
		Todos:    TodoCountsOut{Todo: 2, InProgress: 1, Done: 1, Overdue: 1},
		Actions:  ActionCountsOut{Suggested: 1, Approved: 1, Rejected: 1},
	}, d.Counts)
	require.Len(t, d.BlockedMissions, 1)
	require.Equal(t, blocked, d.BlockedMissions[0].ID)
	require.Equal(t, "vendor", *d.BlockedMissions[0].BlockedReason)
	require.Equal(t, []string{overdue}, mapAll(d.OverdueTodos, func(t PilotageTodoOut) string { return t.ID }))
	require.Equal(t, []string{overdue, soon, undated}, mapAll(d.OpenTodos, func(t PilotageTodoOut) string { return t.ID }))
	require.Equal(t, []string{sug, appr}, mapAll(d.PendingActions, func(a PilotageActionOut) string { return a.ID }))
	require.Equal(t, []string{newDecision}, mapAll(d.Decisions, func(d PilotageDecisionOut) string { return d.ID }))
}

func TestPilotagePortfolio(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	yesterday := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	alpha, ac := pfProject(e, ann, "Alpha", "basic-kanban", nil)
	require.Len(t, ac, 3)
	pfCard(e, ann, alpha, ac[0], map[string]any{"title": "todo late", "dueDate": yesterday, "priority": "high"})
	pfCard(e, ann, alpha, ac[1], map[string]any{"title": "doing"})
	pfCard(e, ann, alpha, ac[2], map[string]any{"title": "done late", "dueDate": yesterday})
	pfCard(e, ann, alpha, ac[2], map[string]any{"title": "done"})
	gone := pfCard(e, ann, alpha, ac[0], map[string]any{"title": "archived"})
	requireStatus(t, e.do("PATCH", alpha+"/cards/"+gone, ann.Token, map[string]any{"archived": true}), http.StatusOK)
	r := e.do("POST", pfWS(ann)+"/projects", ann.Token, map[string]any{"name": "Empty", "templateId": "blank"})
	if r.Code != http.StatusCreated { // a template without columns may not exist: any project will do
		r = e.do("POST", pfWS(ann)+"/projects", ann.Token, map[string]any{"name": "Empty"})
		requireStatus(t, r, http.StatusCreated)
	}
	emptyID := decode[ProjectOut](t, r).ID
	_, err := e.pool.Exec(context.Background(), `DELETE FROM activities WHERE project_id = $1`, emptyID)
	require.NoError(t, err)

	r = e.do("GET", plPath(ann)+"/portfolio", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ps := decode[[]PilotagePortfolioProjectOut](t, r)
	require.Len(t, ps, 2)
	a := ps[0]
	require.Equal(t, pfID(alpha), a.ProjectID)
	require.Equal(t, 4, a.CardCount)
	require.Equal(t, CardStatusCountsOut{Todo: 1, InProgress: 1, Done: 2, Archived: 1}, a.CardsByStatus)
	require.Equal(t, []string{"todo", "in_progress", "done"}, mapAll(a.CardsByColumn,
		func(c PilotageColumnOut) string { return c.Type }))
	require.Equal(t, []int{1, 1, 2}, mapAll(a.CardsByColumn, func(c PilotageColumnOut) int { return c.Count }))
	require.Equal(t, 1, a.Overdue, "a late card in the done column is not overdue")
	require.Equal(t, 50, a.Progress)
	require.Equal(t, 1, a.CardsByPriority.High)
	require.NotNil(t, a.LastActivityAt)
	var last time.Time
	require.NoError(t, e.pool.QueryRow(context.Background(),
		`SELECT max(created_at) FROM activities WHERE project_id = $1`, a.ProjectID).Scan(&last))
	require.WithinDuration(t, last, *a.LastActivityAt, time.Millisecond)
	require.Nil(t, ps[1].LastActivityAt)
	require.Equal(t, 0, ps[1].Progress)

	// The projects portfolio it builds on says the same.
	r = e.do("GET", pfWS(ann)+"/projects/portfolio", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	base := decode[[]PortfolioProjectOut](t, r)[0]
	require.Equal(t, base.Overdue, a.Overdue)
	require.Equal(t, base.CardCount, a.CardCount)
	require.Equal(t, base.Checklist, a.Checklist)
}

// plAction proposes an action as token and answers its id.
func plAction(e *testEnv, token, base, actionType string, payload any) string {
	e.t.Helper()
	body := map[string]any{"actionType": actionType, "explanation": "because"}
	if payload != nil {
		body["payload"] = payload
	}
	return plCreate(e, token, base+"/actions/propose", body)
}

// The proposed actions' state table: suggested -> approved | rejected by review, approved -> applied by
// apply; every other move is 409.
func TestPilotageActionStateTable(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)

	r := e.do("POST", base+"/actions/propose", ann.Token, map[string]any{"actionType": "create_decision",
		"explanation": "We agreed", "payload": map[string]any{"title": "Adopt Go 1.26"}})
	requireStatus(t, r, http.StatusCreated)
	a := decode[PilotageActionOut](t, r)
	require.EqualValues(t, "suggested", a.Status)
	require.NotEmpty(t, a.ID)
	require.False(t, a.CreatedAt.IsZero())
	require.Equal(t, ann.ID, a.ProposedBy)
	require.Nil(t, a.Result)

	requireStatus(t, e.do("POST", base+"/actions/"+a.ID+"/apply", ann.Token, nil), http.StatusConflict)
	r = e.do("POST", base+"/actions/"+a.ID+"/review", ann.Token, map[string]any{"approved": true, "reason": "ok by me"})
	requireStatus(t, r, http.StatusOK)
	a = decode[PilotageActionOut](t, r)
	require.EqualValues(t, "approved", a.Status)
	require.Equal(t, "ok by me", *a.ReviewReason)
	require.Equal(t, ann.ID, *a.ReviewedBy)
	requireStatus(t, e.do("POST", base+"/actions/"+a.ID+"/review", ann.Token, map[string]any{"approved": false}),
		http.StatusConflict)

	r = e.do("GET", base+"/actions?status=approved", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]PilotageActionOut](t, r), 1)
	r = e.do("GET", base+"/actions?status=suggested", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[[]PilotageActionOut](t, r))

	r = e.do("POST", base+"/actions/"+a.ID+"/apply", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	a = decode[PilotageActionOut](t, r)
	require.EqualValues(t, "applied", a.Status)
	require.NotNil(t, a.AppliedAt)
	require.True(t, a.Result.Effect)
	require.Equal(t, "decision", a.Result.RecordType)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM pilotage_decisions WHERE id = $1 AND title = 'Adopt Go 1.26'`,
		a.Result.RecordID))
	requireStatus(t, e.do("POST", base+"/actions/"+a.ID+"/apply", ann.Token, nil), http.StatusConflict)
	requireStatus(t, e.do("POST", base+"/actions/"+a.ID+"/review", ann.Token, map[string]any{"approved": true}),
		http.StatusConflict)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM pilotage_decisions`), "applied once")

	rej := plAction(e, ann.Token, base, "create_decision", map[string]any{"title": "No"})
	r = e.do("POST", base+"/actions/"+rej+"/review", ann.Token, map[string]any{"approved": false, "reason": "not now"})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "rejected", decode[PilotageActionOut](t, r).Status)
	requireStatus(t, e.do("POST", base+"/actions/"+rej+"/apply", ann.Token, nil), http.StatusConflict)
	requireStatus(t, e.do("POST", base+"/actions/"+rej+"/review", ann.Token, map[string]any{"approved": true}),
		http.StatusConflict)

	requireStatus(t, e.do("POST", base+"/actions/"+db.NewID()+"/apply", ann.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", base+"/actions/"+db.NewID()+"/review", ann.Token, map[string]any{"approved": true}),
		http.StatusNotFound)
	requireStatus(t, e.do("GET", base+"/actions/"+db.NewID(), ann.Token, nil), http.StatusNotFound)
	r = e.do("GET", base+"/actions/"+rej, ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "not now", *decode[PilotageActionOut](t, r).ReviewReason)
}

func TestPilotageActionBadInput(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{"actionType": "x", "explanation": "y", "payload": []int{1}}, "payload"},
		{map[string]any{"actionType": "x", "explanation": "y", "payload": "text"}, "payload"},
		{map[string]any{"actionType": "x", "explanation": "y", "payload": 3}, "payload"},
		{map[string]any{"actionType": strings.Repeat("a", 101), "explanation": "y"}, "actionType"},
		{map[string]any{"actionType": "", "explanation": "y"}, "actionType"},
		{map[string]any{"actionType": "x", "explanation": strings.Repeat("e", 501)}, "explanation"},
		{map[string]any{"actionType": "x"}, "explanation"},
		{map[string]any{"actionType": "create_todo", "explanation": "y", "payload": map[string]any{}}, "payload.label"},
		{map[string]any{"actionType": "create_todo", "explanation": "y", "payload": map[string]any{"label": "x",
			"colour": "red"}}, "payload"}, {map[string]any{"actionType": "update_mission_status", "explanation": "y",
			"payload": map[string]any{"missionId": db.NewID(), "status": "paused"}}, "payload.status"},
		{map[string]any{"actionType": "update_mission_status", "explanation": "y",
			"payload": map[string]any{"missionId": db.NewID(), "status": "blocked"}}, "payload.blockedReason"},
		{map[string]any{"actionType": "create_card", "explanation": "y", "payload": map[string]any{"title": "x"}},
			"payload.projectId"}, {map[string]any{"actionType": "create_card", "explanation": "y",
			"payload": map[string]any{"projectId": db.NewID(), "title": "x", "priority": "urgent"}}, "payload.priority"},
		{map[string]any{"actionType": "move_card", "explanation": "y", "payload": map[string]any{"projectId": db.NewID(),
			"cardId": db.NewID()}}, "payload.columnId"}, {"not json", ""},
	} {
		r := e.do("POST", base+"/actions/propose", ann.Token, tc.body)
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, decode[ErrorBody](t, r).Message, tc.field, "%v", tc.body)
	}
	a := plAction(e, ann.Token, base, "x", nil)
	for _, body := range []any{
		map[string]any{"approved": true, "reason": strings.Repeat("r", 201)},
		map[string]any{"reason": "no verdict"},
		map[string]any{"approved": "yes"},
	} {
		r := e.do("POST", base+"/actions/"+a+"/review", ann.Token, body)
		requireStatus(t, r, http.StatusBadRequest)
	}
	r := e.do("POST", base+"/actions/"+a+"/review", ann.Token, map[string]any{"approved": true,
		"reason": strings.Repeat("r", 201)})
	require.Contains(t, decode[ErrorBody](t, r).Message, "reason")
	r = e.do("GET", base+"/actions?status=pending", ann.Token, nil)
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "status")
	require.Equal(t, 1, e.count(`SELECT count(*) FROM pilotage_actions`))
}

// Apply performs the known action types through the store in the action's transaction; card effects
// record their activity and enqueue its notification job like any card change. An unknown type is
// applied with no effect, and the answer says so.
func TestPilotageApplyEffects(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)
	apply := func(id string) PilotageActionOut {
		t.Helper()
		requireStatus(t, e.do("POST", base+"/actions/"+id+"/review", ann.Token, map[string]any{"approved": true}),
			http.StatusOK)
		r := e.do("POST", base+"/actions/"+id+"/apply", ann.Token, nil)
		requireStatus(t, r, http.StatusOK)
		a := decode[PilotageActionOut](t, r)
		require.EqualValues(t, "applied", a.Status)
		return a
	}
	mission := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "Ship"})

	a := apply(plAction(e, ann.Token, base, "create_todo", map[string]any{"label": "Call legal", "missionId": mission,
		"status": "in_progress"}))
	require.Equal(t, "todo", a.Result.RecordType)
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM pilotage_todos
			WHERE id = $1 AND mission_id = $2 AND status = 'in_progress' AND created_by = $3`,
			a.Result.RecordID, mission, ann.ID))

	a = apply(plAction(e, ann.Token, base, "update_mission_status", map[string]any{"missionId": mission,
		"status": "blocked", "blockedReason": "legal"}))
	require.Equal(t, mission, a.Result.RecordID)
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM pilotage_missions WHERE id = $1 AND status = 'blocked' AND blocked_reason = 'legal'`,
			mission))

	prj, cols := pfProject(e, ann, "Board", "basic-kanban", nil)
	before := e.count(`SELECT count(*) FROM activities WHERE card_id IS NOT NULL`)
	a = apply(plAction(e, ann.Token, base, "create_card", map[string]any{"projectId": pfID(prj), "columnId": cols[1],
		"title": "From the cockpit", "priority": "high"}))
	require.Equal(t, "card", a.Result.RecordType)
	card := a.Result.RecordID
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM cards WHERE id = $1 AND column_id = $2 AND priority = 'high' AND created_by = $3`, card,
			cols[1], ann.ID))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_created'`, card))

	a = apply(plAction(e, ann.Token, base, "move_card", map[string]any{"projectId": pfID(prj), "cardId": card,
		"columnId": cols[2]}))
	require.Equal(t, card, a.Result.RecordID)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM cards WHERE id = $1 AND column_id = $2`, card, cols[2]))
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_moved' AND meta->>'toColumn' = $2`, card,
			cols[2]))
	require.Equal(t, before+2, e.count(`SELECT count(*) FROM activities WHERE card_id IS NOT NULL`))
	// Each activity someone besides ann would hear of enqueued its notification job with it; ann is the
	// board's only member, so none of these did.
	require.Empty(t, e.notifyJobs())

	a = apply(plAction(e, ann.Token, base, "send_flowers", map[string]any{"to": "team"}))
	require.False(t, a.Result.Effect)
	require.Contains(t, a.Result.Message, "no effect")
	require.Empty(t, a.Result.RecordID)

	// An effect that cannot apply leaves the action approved and answers why.
	other := e.register("bob@example.com")
	bobPrj, _ := pfProject(e, other, "Bob's", "basic-kanban", nil)
	id := plAction(e, ann.Token, base, "create_card", map[string]any{"projectId": pfID(bobPrj), "title": "Sneaky"})
	requireStatus(t, e.do("POST", base+"/actions/"+id+"/review", ann.Token, map[string]any{"approved": true}),
		http.StatusOK)
	requireStatus(t, e.do("POST", base+"/actions/"+id+"/apply", ann.Token, nil), http.StatusNotFound)
	r := e.do("GET", base+"/actions/"+id, ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "approved", decode[PilotageActionOut](t, r).Status)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM cards WHERE title = 'Sneaky'`))
	gone := plAction(e, ann.Token, base, "update_mission_status", map[string]any{"missionId": db.NewID(),
		"status": "done"})
	requireStatus(t, e.do("POST", base+"/actions/"+gone+"/review", ann.Token, map[string]any{"approved": true}),
		http.StatusOK)
	requireStatus(t, e.do("POST", base+"/actions/"+gone+"/apply", ann.Token, nil), http.StatusNotFound)
}

// plRace sends the same request n times at once and answers the status codes.
func plRace(e *testEnv, n int, method, path, token string, body string) []int {
	var wg sync.WaitGroup
	codes := make([]int, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			hr := httptest.NewRequestWithContext(context.Background(), method, path, strings.NewReader(body))
			hr.Header.Set("Authorization", "Bearer "+token)
			hr.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			e.handler.ServeHTTP(rec, hr)
			codes[i] = rec.Code
		}()
	}
	close(start)
	wg.Wait()
	return codes
}

func tally(codes []int) map[int]int {
	m := map[int]int{}
	for _, c := range codes {
		m[c]++
	}
	return m
}

// Of 20 concurrent reviews, and of 20 concurrent applies, exactly one succeeds; the rest are 409, and
// the effect happens once.
func TestPilotageConcurrentReviewsAndApplies(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)
	prj, _ := pfProject(e, ann, "Board", "basic-kanban", nil)
	id := plAction(e, ann.Token, base, "create_card", map[string]any{"projectId": pfID(prj), "title": "Exactly once"})

	codes := plRace(e, 20, "POST", base+"/actions/"+id+"/review", ann.Token, `{"approved":true}`)
	require.Equal(t, map[int]int{http.StatusOK: 1, http.StatusConflict: 19}, tally(codes))
	codes = plRace(e, 20, "POST", base+"/actions/"+id+"/apply", ann.Token, ``)
	require.Equal(t, map[int]int{http.StatusOK: 1, http.StatusConflict: 19}, tally(codes))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM cards WHERE title = 'Exactly once'`))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM pilotage_history WHERE record_id = $1 AND change = 'applied'`, id))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM pilotage_history WHERE record_id = $1 AND change = 'reviewed'`, id))
}

// plTeam is a workspace with a member of each pilotage role, an organization admin who is no
// workspace member, and an outsider.
type plTeam struct {
	owner, viewer, reviewer, pOwner, orgAdmin, outsider user
	base                                                string
}

func plSetupTeam(t *testing.T, e *testEnv) plTeam {
	t.Helper()
	tm := plTeam{owner: e.register("ann@example.com"), viewer: e.register("vic@example.com"),
		reviewer: e.register("rae@example.com"), pOwner: e.register("pat@example.com"),
		orgAdmin: e.register("ada@example.com"), outsider: e.register("out@example.com")}
	e.org(tm.owner, "acme")
	e.workspace(tm.owner, "acme", "eng")
	tm.base = "/orgs/acme/workspaces/eng/pilotage"
	for _, u := range []user{tm.viewer, tm.reviewer, tm.pOwner} {
		e.join(tm.owner, u, "acme", "eng", "member")
	}
	requireStatus(t, e.do("PATCH", "/orgs/acme/workspaces/eng/members/"+tm.reviewer.ID, tm.owner.Token,
		map[string]any{"pilotageRole": "reviewer"}), http.StatusOK)
	requireStatus(t, e.do("PATCH", "/orgs/acme/workspaces/eng/members/"+tm.pOwner.ID, tm.owner.Token,
		map[string]any{"pilotageRole": "owner"}), http.StatusOK)
	e.addOrgMember(tm.owner, tm.orgAdmin, "acme", "admin")
	return tm
}

// Viewers read; reviewers also propose and review; owners (and organization owners and admins) also
// write records and apply. Every refusal is 403.
func TestPilotageRoles(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tm := plSetupTeam(t, e)
	b := tm.base
	mission := plCreate(e, tm.owner.Token, b+"/missions", map[string]any{"objective": "Ship"})
	ids := map[string]string{"missions": mission,
		"priorities": plCreate(e, tm.owner.Token, b+"/priorities", map[string]any{"label": "P"}),
		"todos":      plCreate(e, tm.owner.Token, b+"/todos", map[string]any{"label": "T"}),
		"decisions":  plCreate(e, tm.owner.Token, b+"/decisions", map[string]any{"title": "D"}),
		"docs":       plCreate(e, tm.owner.Token, b+"/docs", map[string]any{"title": "Doc"})}
	action := plAction(e, tm.owner.Token, b, "x", nil)

	reads := []string{"/state", "/dashboard", "/portfolio", "/history", "/missions", "/priorities", "/todos", "/decisions",
		"/docs", "/actions", "/actions/" + action}
	creates := map[string]map[string]any{"missions": {"objective": "o"}, "priorities": {"label": "l"},
		"todos": {"label": "l"}, "decisions": {"title": "t"}, "docs": {"title": "t"}}
	patches := map[string]map[string]any{"missions": {"module": "m"}, "priorities": {"module": "m"},
		"todos": {"label": "l2"}, "decisions": {"impact": "i"}, "docs": {"owner": "o"}}

	for _, u := range []user{tm.viewer, tm.reviewer} {
		for _, p := range reads {
			requireStatus(t, e.do("GET", b+p, u.Token, nil), http.StatusOK)
		}
		for kind, body := range creates {
			requireStatus(t, e.do("POST", b+"/"+kind, u.Token, body), http.StatusForbidden)
			requireStatus(t, e.do("PATCH", b+"/"+kind+"/"+ids[kind], u.Token, patches[kind]), http.StatusForbidden)
			requireStatus(t, e.do("DELETE", b+"/"+kind+"/"+ids[kind], u.Token, nil), http.StatusForbidden)
		}
		requireStatus(t, e.do("POST", b+"/actions/"+action+"/apply", u.Token, nil), http.StatusForbidden)
	}
	requireStatus(t, e.do("POST", b+"/actions/propose", tm.viewer.Token, map[string]any{"actionType": "x",
		"explanation": "y"}), http.StatusForbidden)
	requireStatus(t, e.do("POST", b+"/actions/"+action+"/review", tm.viewer.Token, map[string]any{"approved": true}),
		http.StatusForbidden)
	r := e.do("GET", b+"/state", tm.viewer.Token, nil)
	require.EqualValues(t, "viewer", decode[PilotageStateOut](t, r).UsageContext.Role)

	// A reviewer proposes and reviews, and cannot apply.
	mine := plAction(e, tm.reviewer.Token, b, "x", nil)
	requireStatus(t, e.do("POST", b+"/actions/"+mine+"/review", tm.reviewer.Token, map[string]any{"approved": true}),
		http.StatusOK)
	requireStatus(t, e.do("POST", b+"/actions/"+mine+"/apply", tm.reviewer.Token, nil), http.StatusForbidden)

	// Pilotage owners and organization admins (not workspace members) do everything.
	for i, u := range []user{tm.pOwner, tm.orgAdmin} {
		for _, p := range reads {
			requireStatus(t, e.do("GET", b+p, u.Token, nil), http.StatusOK)
		}
		for kind, body := range creates {
			id := plCreate(e, u.Token, b+"/"+kind, body)
			requireStatus(t, e.do("PATCH", b+"/"+kind+"/"+id, u.Token, patches[kind]), http.StatusOK)
			requireStatus(t, e.do("DELETE", b+"/"+kind+"/"+id, u.Token, nil), http.StatusOK)
		}
		a := plAction(e, u.Token, b, fmt.Sprintf("x%d", i), nil)
		requireStatus(t, e.do("POST", b+"/actions/"+a+"/review", u.Token, map[string]any{"approved": true}), http.StatusOK)
		requireStatus(t, e.do("POST", b+"/actions/"+a+"/apply", u.Token, nil), http.StatusOK)
	}
	r = e.do("GET", b+"/state", tm.orgAdmin.Token, nil)
	require.EqualValues(t, "owner", decode[PilotageStateOut](t, r).UsageContext.Role)

	// Personal access tokens need pilotage:read to read and pilotage:write to write.
	readOnly := e.pat(tm.owner, []string{"pilotage:read"})
	projectsOnly := e.pat(tm.owner, []string{"projects:read", "projects:write"})
	full := e.pat(tm.owner, []string{"pilotage:read", "pilotage:write"})
	for _, p := range reads {
		requireStatus(t, e.do("GET", b+p, readOnly, nil), http.StatusOK)
		requireStatus(t, e.do("GET", b+p, projectsOnly, nil), http.StatusForbidden)
	}
	for kind, body := range creates {
		requireStatus(t, e.do("POST", b+"/"+kind, readOnly, body), http.StatusForbidden)
		requireStatus(t, e.do("PATCH", b+"/"+kind+"/"+ids[kind], readOnly, patches[kind]), http.StatusForbidden)
		requireStatus(t, e.do("DELETE", b+"/"+kind+"/"+ids[kind], readOnly, nil), http.StatusForbidden)
		plCreate(e, full, b+"/"+kind, body)
	}
	requireStatus(t, e.do("POST", b+"/actions/propose", readOnly, map[string]any{"actionType": "x", "explanation": "y"}),
		http.StatusForbidden)
	requireStatus(t, e.do("POST", b+"/actions/"+action+"/review", readOnly, map[string]any{"approved": true}),
		http.StatusForbidden)
	requireStatus(t, e.do("POST", b+"/actions/"+action+"/review", full, map[string]any{"approved": true}), http.StatusOK)
	requireStatus(t, e.do("POST", b+"/actions/"+action+"/apply", readOnly, nil), http.StatusForbidden)
	requireStatus(t, e.do("POST", b+"/actions/"+action+"/apply", full, nil), http.StatusOK)
	// A viewer's token with every scope is still a viewer's.
	vTok := e.pat(tm.viewer, nil)
	requireStatus(t, e.do("POST", b+"/missions", vTok, creates["missions"]), http.StatusForbidden)
}

// Another tenant's workspace is 404, and so is any id of another workspace used under one's own.
func TestPilotageCrossTenantIsNotFound(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tm := plSetupTeam(t, e)
	b := tm.base
	out := tm.outsider
	for _, p := range []string{"/state", "/dashboard", "/portfolio", "/history", "/missions", "/actions"} {
		requireStatus(t, e.do("GET", b+p, out.Token, nil), http.StatusNotFound)
	}
	requireStatus(t, e.do("POST", b+"/missions", out.Token, map[string]any{"objective": "x"}), http.StatusNotFound)
	requireStatus(t, e.do("POST", b+"/actions/propose", out.Token, map[string]any{"actionType": "x", "explanation": "y"}),
		http.StatusNotFound)

	// Records of the team's workspace, addressed under the outsider's own workspace.
	theirs := map[string]string{
		"missions":   plCreate(e, tm.owner.Token, b+"/missions", map[string]any{"objective": "Ship"}),
		"priorities": plCreate(e, tm.owner.Token, b+"/priorities", map[string]any{"label": "P"}),
		"todos":      plCreate(e, tm.owner.Token, b+"/todos", map[string]any{"label": "T"}),
		"decisions":  plCreate(e, tm.owner.Token, b+"/decisions", map[string]any{"title": "D"}),
		"docs":       plCreate(e, tm.owner.Token, b+"/docs", map[string]any{"title": "Doc"}),
	}
	action := plAction(e, tm.owner.Token, b, "x", nil)
	own := plPath(out)
	for kind, id := range theirs {
		requireStatus(t, e.do("PATCH", own+"/"+kind+"/"+id, out.Token, map[string]any{}), http.StatusNotFound)
		requireStatus(t, e.do("DELETE", own+"/"+kind+"/"+id, out.Token, nil), http.StatusNotFound)
	}
	requireStatus(t, e.do("GET", own+"/actions/"+action, out.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", own+"/actions/"+action+"/review", out.Token, map[string]any{"approved": true}),
		http.StatusNotFound)
	requireStatus(t, e.do("POST", b+"/actions/"+action+"/review", tm.owner.Token, map[string]any{"approved": true}),
		http.StatusOK)
	requireStatus(t, e.do("POST", own+"/actions/"+action+"/apply", out.Token, nil), http.StatusNotFound)
	r := e.do("GET", own+"/state", out.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[PilotageStateOut](t, r).Missions)
	// Nothing of the team's changed.
	require.Equal(t, 1, e.count(`SELECT count(*) FROM pilotage_actions WHERE id = $1 AND status = 'approved'`, action))
	require.Equal(t, 5, e.count(`SELECT count(*) FROM pilotage_history WHERE change = 'created' AND actor_id = $1`,
		tm.owner.ID))
}

// The state renders each record with exactly its output type's fields at the detailed level.
func TestPilotageStateFieldsMatchOutputTypes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)
	m := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "o", "status": "blocked",
		"blockedReason": "r"})
	p := plCreate(e, ann.Token, base+"/priorities", map[string]any{"label": "p"})
	plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "t", "missionId": m, "priorityId": p,
		"dueDate": "2030-01-01T00:00:00Z"})
	plCreate(e, ann.Token, base+"/decisions", map[string]any{"title": "d", "impact": "i"})
	plCreate(e, ann.Token, base+"/docs", map[string]any{"title": "doc", "owner": "Ann"})
	st := plState(e, ann, "detailLevel=detailed")
	same := func(list string, row map[string]any) {
		t.Helper()
		r := e.do("GET", base+"/"+list, ann.Token, nil)
		requireStatus(t, r, http.StatusOK)
		want, err := json.Marshal(decodeJSON[[]map[string]any](t, r.Body)[0])
		require.NoError(t, err)
		got, err := json.Marshal(row)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(got), list)
	}
	same("missions", st.Missions[0])
	same("priorities", st.ActivePriorities[0])
	same("todos", st.Todos[0])
	same("decisions", st.Decisions[0])
	same("docs", st.ActiveDocs[0])
}

// Malformed values anywhere are 400s in the error shape, never 5xx.
func TestPilotageMalformedInputIsBadRequest(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := plPath(ann)
	todo := plCreate(e, ann.Token, base+"/todos", map[string]any{"label": "t"})
	mission := plCreate(e, ann.Token, base+"/missions", map[string]any{"objective": "m"})
	for _, tc := range []struct {
		method, path string
		body         any
	}{
		{"POST", base + "/todos", map[string]any{"label": "t", "dueDate": "soon"}},
		{"PATCH", base + "/todos/" + todo, map[string]any{"dueDate": "soon"}},
		{"PATCH", base + "/todos/" + todo, map[string]any{"label": "x\u0000y"}},
		{"PATCH", base + "/todos/" + todo, `{"label":`},
		{"PATCH", base + "/missions/" + mission, map[string]any{"blockedReason": 5}},
		{"POST", base + "/missions", map[string]any{"objective": "   "}},
		{"POST", base + "/decisions", map[string]any{"title": "t", "impact": strings.Repeat("i", 2001)}},
		{"POST", base + "/docs", map[string]any{"title": "t", "owner": strings.Repeat("o", 201)}},
		{"POST", base + "/priorities", map[string]any{"label": "p", "active": "yes"}},
		{"GET", base + "/history?since=yesterday", nil},
		{"GET", base + "/actions?limit=0", nil},
		{"POST", base + "/actions/propose", map[string]any{"actionType": "x", "explanation": "y",
			"payload": map[string]any{"k": "a\u0000b"}}},
	} {
		r := e.do(tc.method, tc.path, ann.Token, tc.body)
		requireStatus(t, r, http.StatusBadRequest)
	}
}

package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/llm"
	"github.com/pilot-dev/pilot/workers"
)

// missionCard creates a card the offline planner acts on: two steps in the description (a checklist),
// "outage" in the title (priority high) and a plan comment.
func (e *testEnv) missionCard(u user, prj, col string) map[string]any {
	e.t.Helper()
	r := e.do("POST", prj+"/columns/"+col+"/cards", u.Token, map[string]any{"title": "Fix the outage",
		"description": "- Find the failing node\n- Restart the service"})
	requireStatus(e.t, r, http.StatusCreated)
	return r.M(e.t)
}

func (e *testEnv) mission(u user, id string) map[string]any {
	e.t.Helper()
	r := e.do("GET", wsOf(u)+"/missions/"+id, u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return r.M(e.t)
}

// waitMission waits until the mission has the status.
func (e *testEnv) waitMission(u user, id, status string) map[string]any {
	e.t.Helper()
	var m map[string]any
	waitFor(e.t, "mission "+status, func() bool {
		m = e.mission(u, id)
		return m["status"] == status
	})
	return m
}

func (e *testEnv) startMission(u user, agentID, cardID string) map[string]any {
	e.t.Helper()
	r := e.do("POST", wsOf(u)+"/agents/"+agentID+"/missions", u.Token, map[string]any{"cardId": cardID, "prompt": "Plan this card"})
	requireStatus(e.t, r, http.StatusCreated)
	return r.M(e.t)
}

// eventTypes lists a mission's events as "type:status", in order.
func (e *testEnv) eventTypes(missionID string) []string {
	e.t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT type || ':' || status FROM mission_events WHERE mission_id = $1 AND type <> 'token' ORDER BY seq`, missionID)
	require.NoError(e.t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		require.NoError(e.t, rows.Scan(&s))
		out = append(out, s)
	}
	return out
}

func TestMissionAutonomousCompletes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	a := e.agent(owner, "auto", map[string]any{"autonomyMode": "autonomous"})
	card := e.missionCard(owner, prj, cols[0])

	m := e.startMission(owner, a["id"].(string), card["id"].(string))
	require.Equal(t, "queued", m["status"])
	require.Equal(t, card["id"], m["cardId"])
	require.Equal(t, card["projectId"], m["projectId"])
	require.Equal(t, "Plan this card", m["objective"])
	require.Equal(t, float64(10), m["maxSteps"])
	var jobID *int64
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT job_id FROM agent_missions WHERE id = $1`, m["id"]).Scan(&jobID))
	require.NotNil(t, jobID, "the job is inserted with the mission")
	job := rivertest.RequireInserted(context.Background(), t, riverpgxv5.New(e.pool), jobs.MissionArgs{},
		&rivertest.RequireInsertedOpts{Queue: jobs.QueueMissions})
	require.Equal(t, *jobID, job.ID)
	require.Equal(t, m["id"], job.Args.MissionID)
	require.Equal(t, []string{"status:queued"}, e.eventTypes(m["id"].(string)))

	e.startWorker()
	done := e.waitMission(owner, m["id"].(string), "completed")
	require.NotNil(t, done["startedAt"])
	require.NotNil(t, done["finishedAt"])
	require.Nil(t, done["error"])
	require.Equal(t, float64(2), done["steps"])
	require.Equal(t, float64(3), done["actions"])

	c := e.getCard(owner, prj, card["id"].(string))
	require.Equal(t, "high", c["priority"])
	require.Len(t, c["checklist"], 2)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM comments WHERE card_id = $1 AND author_id = $2`, card["id"], a["userId"]))
	// Changes are the agent's, with their activity.
	require.Equal(t, 3, e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND actor_id = $2`, card["id"], a["userId"]))

	require.Equal(t, []string{"status:queued", "status:running", "step:running", "step:running", "step:running", "done:completed"},
		e.eventTypes(m["id"].(string)))
	require.Positive(t, e.count(`SELECT count(*) FROM mission_events WHERE mission_id = $1 AND type = 'token'`, m["id"]))
	require.Equal(t, 3, e.count(`SELECT count(*) FROM mission_steps WHERE mission_id = $1 AND outcome = 'applied'`, m["id"]))

	// List, newest first; a finished mission cannot be cancelled.
	second := e.startMission(owner, a["id"].(string), card["id"].(string))
	r := e.do("GET", wsOf(owner)+"/agents/"+a["id"].(string)+"/missions", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	l := r.L(t)
	require.Len(t, l, 2)
	require.Equal(t, second["id"], l[0]["id"])
	requireStatus(t, e.do("POST", wsOf(owner)+"/missions/"+m["id"].(string)+"/cancel", owner.Token, nil), http.StatusConflict)
}

func TestMissionApprovalFlow(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	a := e.agent(owner, "careful", map[string]any{"autonomyMode": "approval"})
	card := e.missionCard(owner, prj, cols[0])
	e.startWorker()

	// A workspace member starts it.
	r := e.do("POST", wsOf(owner)+"/agents/"+a["id"].(string)+"/missions", member.Token, map[string]any{"cardId": card["id"], "prompt": "Plan"})
	requireStatus(t, r, http.StatusCreated)
	id := r.M(t)["id"].(string)
	done := e.waitMission(owner, id, "awaiting_approval")
	require.Nil(t, done["finishedAt"])
	// Nothing applied yet.
	c := e.getCard(owner, prj, card["id"].(string))
	require.Equal(t, "medium", c["priority"])
	require.Empty(t, c["checklist"])
	require.Equal(t, []string{"status:queued", "status:running", "proposal:running", "step:running", "proposal:running", "step:running",
		"proposal:running", "step:running", "status:awaiting_approval"}, e.eventTypes(id))

	r = e.do("GET", wsOf(owner)+"/missions/"+id+"/proposals", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ps := r.L(t)
	require.Len(t, ps, 3)
	r = e.do("GET", wsOf(owner)+"/agent-runtime/proposals", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, r.L(t), 3)

	byTool := map[string]string{}
	for _, p := range ps {
		require.Equal(t, "pending", p["status"])
		byTool[p["tool"].(string)] = p["id"].(string)
	}
	// Approve the checklist and the priority; reject the comment with a reason.
	r = e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_checklist_items"]+"/approve", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "approved", r.M(t)["status"])
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_checklist_items"]+"/approve", owner.Token, nil), http.StatusConflict)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_checklist_items"]+"/reject", owner.Token, nil), http.StatusConflict)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["update_card"]+"/approve", member.Token, nil), http.StatusOK)
	require.Equal(t, "awaiting_approval", e.mission(owner, id)["status"])

	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_comment"]+"/reject", owner.Token,
		map[string]any{"reason": string(make([]byte, 501))}), http.StatusBadRequest)
	r = e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_comment"]+"/reject", owner.Token, map[string]any{"reason": "Not needed"})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "rejected", r.M(t)["status"])
	require.Equal(t, "Not needed", r.M(t)["reason"])
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_comment"]+"/approve", owner.Token, nil), http.StatusConflict)

	final := e.mission(owner, id)
	require.Equal(t, "completed", final["status"])
	require.NotNil(t, final["finishedAt"])
	c = e.getCard(owner, prj, card["id"].(string))
	require.Equal(t, "high", c["priority"])
	require.Len(t, c["checklist"], 2)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, card["id"]))
	evs := e.eventTypes(id)
	require.Equal(t, "done:completed", evs[len(evs)-1])
	r = e.do("GET", wsOf(owner)+"/agent-runtime/proposals", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, r.L(t))

	// Unknown proposal, another workspace's proposal.
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+id+"/approve", owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", wsOf(member)+"/proposals/"+byTool["update_card"]+"/approve", member.Token, nil), http.StatusNotFound)
}

func TestMissionSupervisedAppliesCommentsAndProposesTheRest(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	a := e.agent(owner, "sup", nil)
	card := e.missionCard(owner, prj, cols[0])
	e.startWorker()
	m := e.startMission(owner, a["id"].(string), card["id"].(string))
	e.waitMission(owner, m["id"].(string), "awaiting_approval")
	c := e.getCard(owner, prj, card["id"].(string))
	require.Len(t, c["checklist"], 2)
	require.Equal(t, "medium", c["priority"])
	require.Equal(t, 1, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, card["id"]))
	ps := e.do("GET", wsOf(owner)+"/missions/"+m["id"].(string)+"/proposals", owner.Token, nil).L(t)
	require.Len(t, ps, 1)
	require.Equal(t, "update_card", ps[0]["tool"])
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+ps[0]["id"].(string)+"/reject", owner.Token, nil), http.StatusOK)
	require.Equal(t, "completed", e.mission(owner, m["id"].(string))["status"])
}

func TestMissionCreateFailures(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	ws := wsOf(owner)
	a := e.agent(owner, "one", map[string]any{"limits": map[string]any{"maxMissionsPerHour": 2}})
	card := e.card(owner, prj, cols[0], "c")
	otherPrj, otherCols := e.project(owner, "Other")
	otherCard := e.card(owner, otherPrj, otherCols[0], "elsewhere")
	foreignPrj, foreignCols := e.project(member, "Foreign")
	foreign := e.card(member, foreignPrj, foreignCols[0], "theirs")
	path := ws + "/agents/" + a["id"].(string) + "/missions"

	requireStatus(t, e.do("POST", ws+"/agents/"+card.ID+"/missions", owner.Token, map[string]any{"cardId": card.ID, "prompt": "p"}), http.StatusNotFound)
	r := e.do("POST", path, owner.Token, map[string]any{"cardId": foreign.ID, "prompt": "p"})
	requireStatus(t, r, http.StatusNotFound)
	require.Equal(t, "card not found", r.M(t)["message"])
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": "nope", "prompt": "p"}), http.StatusNotFound)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": card.ID}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": card.ID, "prompt": ""}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": card.ID, "prompt": string(make([]rune, 4001))}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"prompt": "p"}), http.StatusBadRequest)

	// Card mission: a card of another project is not found; no agent named and none exists elsewhere.
	cm := ws + "/agent-runtime/card-mission"
	requireStatus(t, e.do("POST", cm, owner.Token, map[string]any{"cardId": otherCard.ID, "projectId": card.ProjectID}), http.StatusNotFound)
	requireStatus(t, e.do("POST", cm, owner.Token, map[string]any{"cardId": card.ID, "projectId": foreign.ProjectID}), http.StatusNotFound)
	requireStatus(t, e.do("POST", cm, owner.Token, map[string]any{"cardId": card.ID, "projectId": card.ProjectID, "agentId": card.ID}), http.StatusNotFound)
	requireStatus(t, e.do("POST", cm, owner.Token, map[string]any{"cardId": card.ID}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", wsOf(member)+"/agent-runtime/card-mission", member.Token,
		map[string]any{"cardId": foreign.ID, "projectId": foreign.ProjectID}), http.StatusBadRequest)

	// Runtime run: unknown agent user, foreign project, maxSteps over the agent's.
	run := ws + "/agent-runtime/run"
	requireStatus(t, e.do("POST", run, owner.Token, map[string]any{"agentUserId": owner.ID, "objective": "o"}), http.StatusNotFound)
	requireStatus(t, e.do("POST", run, owner.Token, map[string]any{"agentUserId": a["userId"], "objective": "o", "projectId": foreign.ProjectID}), http.StatusNotFound)
	requireStatus(t, e.do("POST", run, owner.Token, map[string]any{"agentUserId": a["userId"], "objective": "o", "maxSteps": 11}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", run, owner.Token, map[string]any{"agentUserId": a["userId"], "objective": ""}), http.StatusBadRequest)

	// Missions per hour: 429 in the error shape past the agent's limit.
	e.startMission(owner, a["id"].(string), card.ID)
	r = e.do("POST", run, owner.Token, map[string]any{"agentUserId": a["userId"], "objective": "o", "maxSteps": 2, "projectId": card.ProjectID})
	requireStatus(t, r, http.StatusCreated)
	require.Equal(t, "runtime", r.M(t)["source"])
	require.Equal(t, float64(2), r.M(t)["maxSteps"])
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": card.ID, "prompt": "p"}), http.StatusTooManyRequests)
	require.Equal(t, 2, e.count(`SELECT count(*) FROM agent_missions`))
	missionJob := rivertest.ExpectedJob{Args: jobs.MissionArgs{}, Opts: &rivertest.RequireInsertedOpts{Queue: jobs.QueueMissions}}
	rivertest.RequireManyInserted(context.Background(), t, riverpgxv5.New(e.pool), []rivertest.ExpectedJob{missionJob, missionJob})

	// Missions of another workspace are not found.
	mid := e.do("GET", path, owner.Token, nil).L(t)[0]["id"].(string)
	requireStatus(t, e.do("GET", wsOf(member)+"/missions/"+mid, member.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", wsOf(member)+"/missions/"+mid+"/cancel", member.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", ws+"/missions/"+card.ID, owner.Token, nil), http.StatusNotFound)
}

func TestMissionRuntimeRunWithoutCard(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.register("owner@example.com")
	a := e.agent(owner, "rt", map[string]any{"autonomyMode": "autonomous"})
	e.startWorker()
	r := e.do("POST", wsOf(owner)+"/agent-runtime/run", owner.Token, map[string]any{"agentUserId": a["userId"], "objective": "Draft a release plan"})
	requireStatus(t, r, http.StatusCreated)
	m := r.M(t)
	require.Nil(t, m["cardId"])
	done := e.waitMission(owner, m["id"].(string), "completed")
	require.Equal(t, float64(1), done["steps"])
	require.Equal(t, []string{"status:queued", "status:running", "done:completed"}, e.eventTypes(m["id"].(string)))
}

func TestCardMissionMCPOnlyAnswersJSON(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	mcp := e.agent(owner, "mcp", map[string]any{"mcpOnly": true})
	e.agent(owner, "later", nil)
	card := e.card(owner, prj, cols[0], "c")
	r := e.do("POST", wsOf(owner)+"/agent-runtime/card-mission", owner.Token, map[string]any{"cardId": card.ID, "projectId": card.ProjectID})
	require.Equal(t, http.StatusCreated, r.Code, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	m := r.M(t)
	require.Equal(t, mcp["id"], m["agentId"], "the default agent is the first created")
	require.Equal(t, "queued", m["status"])
	require.Equal(t, "card_mission", m["source"])
	// Queued for the MCP client: no job.
	rivertest.RequireNotInserted(context.Background(), t, riverpgxv5.New(e.pool), jobs.MissionArgs{}, nil)

	// Cancel a queued mission; a second cancel conflicts.
	r = e.do("POST", wsOf(owner)+"/missions/"+m["id"].(string)+"/cancel", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	c := r.M(t)
	require.Equal(t, "failed", c["status"])
	require.NotNil(t, c["cancelledAt"])
	requireStatus(t, e.do("POST", wsOf(owner)+"/missions/"+m["id"].(string)+"/cancel", owner.Token, nil), http.StatusConflict)
	require.Equal(t, []string{"status:queued", "done:failed"}, e.eventTypes(m["id"].(string)))
}

func TestCardMissionStreamsForOtherAgents(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	a := e.agent(owner, "streamer", nil)
	card := e.card(owner, prj, cols[0], "c")
	srv := httptest.NewServer(e.handler)
	t.Cleanup(srv.Close)
	// The stream runs until the client leaves (no worker here: the mission stays queued); read it until
	// its first event, then hang up.
	body, err := json.Marshal(map[string]any{"cardId": card.ID, "projectId": card.ProjectID, "agentId": a["id"]})
	require.NoError(t, err)
	req, err := http.NewRequest("POST", srv.URL+wsOf(owner)+"/agent-runtime/card-mission", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+owner.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/event-stream")
	sc := bufio.NewScanner(resp.Body)
	var first string
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "event:") {
			first = sc.Text()
			break
		}
	}
	require.NoError(t, resp.Body.Close())
	require.Equal(t, "event: status", first)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM agent_missions WHERE source = 'card_mission' AND agent_id = $1`, a["id"]))
	job := rivertest.RequireInserted(context.Background(), t, riverpgxv5.New(e.pool), jobs.MissionArgs{},
		&rivertest.RequireInsertedOpts{Queue: jobs.QueueMissions})
	require.Equal(t, 1, e.count(`SELECT count(*) FROM agent_missions WHERE id = $1 AND job_id = $2`, job.Args.MissionID, job.ID))
}

func TestMissionCancelQueuedAndRunning(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	a := e.agent(owner, "slow", map[string]any{"autonomyMode": "autonomous"})
	card := e.missionCard(owner, prj, cols[0])

	// Queued: the job is cancelled with the mission.
	m := e.startMission(owner, a["id"].(string), card["id"].(string))
	r := e.do("POST", wsOf(owner)+"/missions/"+m["id"].(string)+"/cancel", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "failed", r.M(t)["status"])
	job := rivertest.RequireInserted(context.Background(), t, riverpgxv5.New(e.pool), jobs.MissionArgs{},
		&rivertest.RequireInsertedOpts{State: rivertype.JobStateCancelled})
	require.Equal(t, m["id"], job.Args.MissionID)

	// Running: between steps the runner sees the cancel and stops; nothing more is applied (see
	// workers' TestMissionWorkerStopsWhenCancelledWhileRunning). Through the real worker a mission
	// completes; cancelling it afterwards conflicts (see TestMissionCancelStopsRunningJob for a cancel
	// while the model call runs).
	e.startWorker()
	m2 := e.startMission(owner, a["id"].(string), card["id"].(string))
	e.waitMission(owner, m2["id"].(string), "completed")
	requireStatus(t, e.do("POST", wsOf(owner)+"/missions/"+m2["id"].(string)+"/cancel", owner.Token, nil), http.StatusConflict)
}

// blockingLLM answers nothing until its context ends: a model call that hangs.
type blockingLLM struct{ called chan struct{} }

func (b *blockingLLM) Name() string { return "blocking" }

func (b *blockingLLM) Chat(ctx context.Context, _ llm.Request) (llm.Response, error) {
	select {
	case b.called <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

func TestMissionCancelStopsRunningJob(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	a := e.agent(owner, "hangs", map[string]any{"autonomyMode": "autonomous"})
	card := e.missionCard(owner, prj, cols[0])
	model := &blockingLLM{called: make(chan struct{}, 1)}
	client, _, err := workers.NewClient(e.pool, workers.Config{Concurrency: 2, LLM: model, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	require.NoError(t, client.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(ctx)
	})

	m := e.startMission(owner, a["id"].(string), card["id"].(string))
	id := m["id"].(string)
	select {
	case <-model.called:
	case <-time.After(20 * time.Second):
		t.Fatal("the model was never called")
	}
	require.Equal(t, "running", e.mission(owner, id)["status"])
	r := e.do("POST", wsOf(owner)+"/missions/"+id+"/cancel", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "failed", r.M(t)["status"])
	// The job's context is cancelled through River and the job ends promptly.
	var jobID int64
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT job_id FROM agent_missions WHERE id = $1`, id).Scan(&jobID))
	waitFor(t, "the job to stop", func() bool {
		job, err := client.JobGet(context.Background(), jobID)
		require.NoError(t, err)
		return !slices.Contains([]rivertype.JobState{rivertype.JobStateRunning, rivertype.JobStateAvailable, rivertype.JobStateRetryable}, job.State)
	})
	got := e.mission(owner, id)
	require.Equal(t, "failed", got["status"])
	require.Equal(t, "cancelled", got["error"])
	require.NotNil(t, got["cancelledAt"])
	require.Equal(t, 0, e.count(`SELECT count(*) FROM mission_steps WHERE mission_id = $1`, id))
	evs := e.eventTypes(id)
	require.Equal(t, "done:failed", evs[len(evs)-1])
}

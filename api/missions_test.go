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
func (e *testEnv) missionCard(u user, prj, col string) CardOut {
	e.t.Helper()
	r := e.do("POST", prj+"/columns/"+col+"/cards", u.Token, map[string]any{"title": "Fix the outage",
		"description": "- Find the failing node\n- Restart the service"})
	requireStatus(e.t, r, http.StatusCreated)
	return decode[CardOut](e.t, r)
}

func (e *testEnv) mission(u user, id string) MissionOut {
	e.t.Helper()
	r := e.do("GET", wsOf(u)+"/missions/"+id, u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	return decode[MissionOut](e.t, r)
}

// waitMission waits until the mission has the status.
func (e *testEnv) waitMission(u user, id, status string) MissionOut {
	e.t.Helper()
	var m MissionOut
	waitFor(e.t, "mission "+status, func() bool {
		m = e.mission(u, id)
		return string(m.Status) == status
	})
	return m
}

func (e *testEnv) startMission(u user, agentID, cardID string) MissionOut {
	e.t.Helper()
	r := e.do("POST", wsOf(u)+"/agents/"+agentID+"/missions", u.Token, map[string]any{"cardId": cardID,
		"prompt": "Plan this card"})
	requireStatus(e.t, r, http.StatusCreated)
	return decode[MissionOut](e.t, r)
}

func TestMissionAutonomousCompletes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	a := e.agent(owner, "auto", map[string]any{"autonomyMode": "autonomous"})
	card := e.missionCard(owner, prj, cols[0])

	m := e.startMission(owner, a.ID, card.ID)
	require.EqualValues(t, "queued", m.Status)
	require.Equal(t, &card.ID, m.CardID)
	require.Equal(t, &card.ProjectID, m.ProjectID)
	require.Equal(t, "Plan this card", m.Objective)
	require.Equal(t, int32(10), m.MaxSteps)
	var jobID *int64
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT job_id FROM agent_missions WHERE id = $1`,
		m.ID).Scan(&jobID))
	require.NotNil(t, jobID, "the job is inserted with the mission")
	job := rivertest.RequireInserted(context.Background(), t, riverpgxv5.New(e.pool), jobs.MissionArgs{},
		&rivertest.RequireInsertedOpts{Queue: jobs.QueueMissions})
	require.Equal(t, *jobID, job.ID)
	require.Equal(t, m.ID, job.Args.MissionID)
	require.Equal(t, []string{"status:queued"}, e.fixtures().EventsButTokens(t, m.ID))

	e.startWorker()
	done := e.waitMission(owner, m.ID, "completed")
	require.NotNil(t, done.StartedAt)
	require.NotNil(t, done.FinishedAt)
	require.Nil(t, done.Error)
	require.Equal(t, int32(2), done.Steps)
	require.Equal(t, int32(3), done.Actions)

	c := e.getCard(owner, prj, card.ID)
	require.EqualValues(t, "high", c.Priority)
	require.Len(t, cardChecklist(t, c), 2)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM comments WHERE card_id = $1 AND author_id = $2`, card.ID, a.UserID))
	// Changes are the agent's, with their activity.
	require.Equal(t, 3,
		e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND actor_id = $2 AND type <> 'mission_status_changed'`,
			card.ID, a.UserID))

	require.Equal(t, []string{"status:queued", "status:running", "ack:running", "step:running", "step:running",
		"step:running",
		"done:completed"}, e.fixtures().EventsButTokens(t, m.ID))
	require.Positive(t, e.count(`SELECT count(*) FROM stream_events WHERE stream_id = $1 AND type = 'token'`, m.ID))
	require.Equal(t, 3, e.count(`SELECT count(*) FROM mission_steps WHERE mission_id = $1 AND outcome = 'applied'`, m.ID))

	// List, newest first; a finished mission cannot be cancelled.
	second := e.startMission(owner, a.ID, card.ID)
	r := e.do("GET", wsOf(owner)+"/agents/"+a.ID+"/missions", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	l := decode[[]MissionOut](t, r)
	require.Len(t, l, 2)
	require.Equal(t, second.ID, l[0].ID)
	requireStatus(t, e.do("POST", wsOf(owner)+"/missions/"+m.ID+"/cancel", owner.Token, nil), http.StatusConflict)
}

func TestMissionApprovalFlow(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	a := e.agent(owner, "careful", map[string]any{"autonomyMode": "approval"})
	card := e.missionCard(owner, prj, cols[0])
	e.startWorker()

	// A workspace member starts it.
	r := e.do("POST", wsOf(owner)+"/agents/"+a.ID+"/missions", member.Token, map[string]any{"cardId": card.ID,
		"prompt": "Plan"})
	requireStatus(t, r, http.StatusCreated)
	id := decode[MissionOut](t, r).ID
	done := e.waitMission(owner, id, "awaiting_approval")
	require.Nil(t, done.FinishedAt)
	// Nothing applied yet.
	c := e.getCard(owner, prj, card.ID)
	require.EqualValues(t, "medium", c.Priority)
	require.Empty(t, cardChecklist(t, c))
	require.Equal(t, []string{"status:queued", "status:running", "ack:running", "proposal:running", "step:running",
		"proposal:running",
		"step:running", "proposal:running", "step:running", "status:awaiting_approval"}, e.fixtures().EventsButTokens(t, id))

	r = e.do("GET", wsOf(owner)+"/missions/"+id+"/proposals", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ps := decode[[]ProposalOut](t, r)
	require.Len(t, ps, 3)
	r = e.do("GET", wsOf(owner)+"/agent-runtime/proposals", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]ProposalOut](t, r), 3)

	byTool := map[string]string{}
	for _, p := range ps {
		require.EqualValues(t, "pending", p.Status)
		byTool[p.Tool] = p.ID
	}
	// Approve the checklist and the priority; reject the comment with a reason.
	r = e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_checklist_items"]+"/approve", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "approved", decode[ProposalOut](t, r).Status)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_checklist_items"]+"/approve", owner.Token, nil),
		http.StatusConflict)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_checklist_items"]+"/reject", owner.Token, nil),
		http.StatusConflict)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["update_card"]+"/approve", member.Token, nil),
		http.StatusOK)
	require.EqualValues(t, "awaiting_approval", e.mission(owner, id).Status)

	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_comment"]+"/reject", owner.Token,
		map[string]any{"reason": string(make([]byte, 501))}), http.StatusBadRequest)
	r = e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_comment"]+"/reject", owner.Token,
		map[string]any{"reason": "Not needed"})
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "rejected", decode[ProposalOut](t, r).Status)
	require.Equal(t, new("Not needed"), decode[ProposalOut](t, r).Reason)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+byTool["add_comment"]+"/approve", owner.Token, nil),
		http.StatusConflict)

	final := e.mission(owner, id)
	require.EqualValues(t, "completed", final.Status)
	require.NotNil(t, final.FinishedAt)
	c = e.getCard(owner, prj, card.ID)
	require.EqualValues(t, "high", c.Priority)
	require.Len(t, cardChecklist(t, c), 2)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, card.ID))
	evs := e.fixtures().EventsButTokens(t, id)
	require.Equal(t, "done:completed", evs[len(evs)-1])
	r = e.do("GET", wsOf(owner)+"/agent-runtime/proposals", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[[]ProposalOut](t, r))

	// Unknown proposal, another workspace's proposal.
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+id+"/approve", owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", wsOf(member)+"/proposals/"+byTool["update_card"]+"/approve", member.Token, nil),
		http.StatusNotFound)
}

// TestProposalDecisionRoles: a mission's proposals are decided by its requester or by the workspace's
// pilotage reviewers and owners; another member, a viewer, is refused and nothing changes.
func TestProposalDecisionRoles(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	viewer := e.register("viewer@example.com")
	e.join(owner, viewer, owner.OrgSlug, owner.WsSlug, "member")
	a := e.agent(owner, "careful", map[string]any{"autonomyMode": "approval"})
	card := e.missionCard(owner, prj, cols[0])
	e.startWorker()

	r := e.do("POST", wsOf(owner)+"/agents/"+a.ID+"/missions", member.Token, map[string]any{"cardId": card.ID,
		"prompt": "Plan"})
	requireStatus(t, r, http.StatusCreated)
	id := decode[MissionOut](t, r).ID
	e.waitMission(owner, id, "awaiting_approval")
	r = e.do("GET", wsOf(owner)+"/missions/"+id+"/proposals", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ps := decode[[]ProposalOut](t, r)
	require.Len(t, ps, 3)

	// The viewer neither requested the mission nor reviews: refused, and the proposal stays pending.
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+ps[0].ID+"/approve", viewer.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+ps[0].ID+"/reject", viewer.Token, nil), http.StatusForbidden)
	r = e.do("GET", wsOf(owner)+"/missions/"+id+"/proposals", owner.Token, nil)
	for _, p := range decode[[]ProposalOut](t, r) {
		require.EqualValues(t, "pending", p.Status)
	}

	// The requester decides one; the viewer, made a pilotage reviewer, decides another; the workspace's
	// creator (a pilotage owner) the last.
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+ps[0].ID+"/reject", member.Token, nil), http.StatusOK)
	requireStatus(t, e.do("PATCH", wsOf(owner)+"/members/"+viewer.ID, owner.Token,
		map[string]any{"pilotageRole": "reviewer"}), http.StatusOK)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+ps[1].ID+"/reject", viewer.Token, nil), http.StatusOK)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+ps[2].ID+"/reject", owner.Token, nil), http.StatusOK)
	require.EqualValues(t, "completed", e.mission(owner, id).Status)
}

func TestMissionSupervisedAppliesCommentsAndProposesTheRest(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	a := e.agent(owner, "sup", nil)
	card := e.missionCard(owner, prj, cols[0])
	e.startWorker()
	m := e.startMission(owner, a.ID, card.ID)
	e.waitMission(owner, m.ID, "awaiting_approval")
	c := e.getCard(owner, prj, card.ID)
	require.Len(t, cardChecklist(t, c), 2)
	require.EqualValues(t, "medium", c.Priority)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, card.ID))
	ps := decode[[]ProposalOut](t, e.do("GET", wsOf(owner)+"/missions/"+m.ID+"/proposals", owner.Token, nil))
	require.Len(t, ps, 1)
	require.Equal(t, "update_card", ps[0].Tool)
	requireStatus(t, e.do("POST", wsOf(owner)+"/proposals/"+ps[0].ID+"/reject", owner.Token, nil), http.StatusOK)
	require.EqualValues(t, "completed", e.mission(owner, m.ID).Status)
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
	path := ws + "/agents/" + a.ID + "/missions"

	requireStatus(t, e.do("POST", ws+"/agents/"+card.ID+"/missions", owner.Token, map[string]any{"cardId": card.ID,
		"prompt": "p"}), http.StatusNotFound)
	r := e.do("POST", path, owner.Token, map[string]any{"cardId": foreign.ID, "prompt": "p"})
	requireStatus(t, r, http.StatusNotFound)
	require.Equal(t, "card not found", decode[ErrorBody](t, r).Message)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": "nope", "prompt": "p"}), http.StatusNotFound)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": card.ID}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": card.ID, "prompt": ""}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": card.ID, "prompt": string(make([]rune,
		4001))}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"prompt": "p"}), http.StatusBadRequest)

	// Card mission: a card of another project is not found; no agent named and none exists elsewhere.
	cm := ws + "/agent-runtime/card-mission"
	requireStatus(t, e.do("POST", cm, owner.Token, map[string]any{"cardId": otherCard.ID, "projectId": card.ProjectID}),
		http.StatusNotFound)
	requireStatus(t, e.do("POST", cm, owner.Token, map[string]any{"cardId": card.ID, "projectId": foreign.ProjectID}),
		http.StatusNotFound)
	requireStatus(t, e.do("POST", cm, owner.Token, map[string]any{"cardId": card.ID, "projectId": card.ProjectID,
		"agentId": card.ID}), http.StatusNotFound)
	requireStatus(t, e.do("POST", cm, owner.Token, map[string]any{"cardId": card.ID}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", wsOf(member)+"/agent-runtime/card-mission", member.Token,
		map[string]any{"cardId": foreign.ID, "projectId": foreign.ProjectID}), http.StatusBadRequest)

	// Runtime run: unknown agent user, foreign project, maxSteps over the agent's.
	run := ws + "/agent-runtime/run"
	requireStatus(t, e.do("POST", run, owner.Token, map[string]any{"agentUserId": owner.ID, "objective": "o"}),
		http.StatusNotFound)
	requireStatus(t, e.do("POST", run, owner.Token, map[string]any{"agentUserId": a.UserID, "objective": "o",
		"projectId": foreign.ProjectID}), http.StatusNotFound)
	requireStatus(t, e.do("POST", run, owner.Token, map[string]any{"agentUserId": a.UserID, "objective": "o",
		"maxSteps": 11}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", run, owner.Token, map[string]any{"agentUserId": a.UserID, "objective": ""}),
		http.StatusBadRequest)

	// Missions per hour: 429 in the error shape past the agent's limit.
	e.startMission(owner, a.ID, card.ID)
	r = e.do("POST", run, owner.Token, map[string]any{"agentUserId": a.UserID, "objective": "o", "maxSteps": 2,
		"projectId": card.ProjectID})
	requireStatus(t, r, http.StatusCreated)
	require.Equal(t, "runtime", decode[MissionOut](t, r).Source)
	require.Equal(t, int32(2), decode[MissionOut](t, r).MaxSteps)
	requireStatus(t, e.do("POST", path, owner.Token, map[string]any{"cardId": card.ID, "prompt": "p"}),
		http.StatusTooManyRequests)
	require.Equal(t, 2, e.count(`SELECT count(*) FROM agent_missions`))
	missionJob := rivertest.ExpectedJob{Args: jobs.MissionArgs{},
		Opts: &rivertest.RequireInsertedOpts{Queue: jobs.QueueMissions}}
	rivertest.RequireManyInserted(context.Background(), t, riverpgxv5.New(e.pool), []rivertest.ExpectedJob{missionJob,
		missionJob})

	// Missions of another workspace are not found.
	mid := decode[[]MissionOut](t, e.do("GET", path, owner.Token, nil))[0].ID
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
	r := e.do("POST", wsOf(owner)+"/agent-runtime/run", owner.Token, map[string]any{"agentUserId": a.UserID,
		"objective": "Draft a release plan"})
	requireStatus(t, r, http.StatusCreated)
	m := decode[MissionOut](t, r)
	require.Nil(t, m.CardID)
	done := e.waitMission(owner, m.ID, "completed")
	require.Equal(t, int32(1), done.Steps)
	require.Equal(t, []string{"status:queued", "status:running", "ack:running", "done:completed"},
		e.fixtures().EventsButTokens(t, m.ID))
}

func TestCardMissionMCPOnlyAnswersJSON(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	mcp := e.agent(owner, "mcp", map[string]any{"mcpOnly": true})
	e.agent(owner, "later", nil)
	card := e.card(owner, prj, cols[0], "c")
	r := e.do("POST", wsOf(owner)+"/agent-runtime/card-mission", owner.Token, map[string]any{"cardId": card.ID,
		"projectId": card.ProjectID})
	require.Equal(t, http.StatusCreated, r.Code, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	m := decode[MissionOut](t, r)
	require.Equal(t, mcp.ID, m.AgentID, "the default agent is the first created")
	require.EqualValues(t, "queued", m.Status)
	require.Equal(t, "card_mission", m.Source)
	// Queued for the MCP client: no job.
	rivertest.RequireNotInserted(context.Background(), t, riverpgxv5.New(e.pool), jobs.MissionArgs{}, nil)

	// Cancel a queued mission; a second cancel conflicts.
	r = e.do("POST", wsOf(owner)+"/missions/"+m.ID+"/cancel", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	c := decode[MissionOut](t, r)
	require.EqualValues(t, "stopped", c.Status)
	require.EqualValues(t, "person", *c.StopReason)
	require.NotNil(t, c.CancelledAt)
	requireStatus(t, e.do("POST", wsOf(owner)+"/missions/"+m.ID+"/cancel", owner.Token, nil), http.StatusConflict)
	require.Equal(t, []string{"status:queued", "done:stopped"}, e.fixtures().EventsButTokens(t, m.ID))
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
	body, err := json.Marshal(map[string]any{"cardId": card.ID, "projectId": card.ProjectID, "agentId": a.ID})
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
	require.Equal(t, 1, e.count(`SELECT count(*) FROM agent_missions WHERE source = 'card_mission' AND agent_id = $1`,
		a.ID))
	job := rivertest.RequireInserted(context.Background(), t, riverpgxv5.New(e.pool), jobs.MissionArgs{},
		&rivertest.RequireInsertedOpts{Queue: jobs.QueueMissions})
	require.Equal(t, 1, e.count(`SELECT count(*) FROM agent_missions WHERE id = $1 AND job_id = $2`, job.Args.MissionID,
		job.ID))
}

func TestMissionCancelQueuedAndRunning(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	a := e.agent(owner, "slow", map[string]any{"autonomyMode": "autonomous"})
	card := e.missionCard(owner, prj, cols[0])

	// Queued: the job is cancelled with the mission.
	m := e.startMission(owner, a.ID, card.ID)
	r := e.do("POST", wsOf(owner)+"/missions/"+m.ID+"/cancel", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "stopped", decode[MissionOut](t, r).Status)
	job := rivertest.RequireInserted(context.Background(), t, riverpgxv5.New(e.pool), jobs.MissionArgs{},
		&rivertest.RequireInsertedOpts{State: rivertype.JobStateCancelled})
	require.Equal(t, m.ID, job.Args.MissionID)

	// Running: between steps the runner sees the cancel and stops; nothing more is applied (see
	// workers' TestMissionWorkerStopsWhenCancelledWhileRunning). Through the real worker a mission
	// completes; cancelling it afterwards conflicts (see TestMissionCancelStopsRunningJob for a cancel
	// while the model call runs).
	e.startWorker()
	m2 := e.startMission(owner, a.ID, card.ID)
	e.waitMission(owner, m2.ID, "completed")
	requireStatus(t, e.do("POST", wsOf(owner)+"/missions/"+m2.ID+"/cancel", owner.Token, nil), http.StatusConflict)
}

// blockingLLM answers nothing until its context ends: a model call that hangs. cancelled, when set, gets
// the time its context ended.
type blockingLLM struct {
	called    chan struct{}
	cancelled chan time.Time
}

func (b *blockingLLM) Name() string { return "blocking" }

func (b *blockingLLM) Chat(ctx context.Context, _ llm.Request) (llm.Response, error) {
	select {
	case b.called <- struct{}{}:
	default:
	}
	<-ctx.Done()
	if b.cancelled != nil {
		b.cancelled <- time.Now()
	}
	return llm.Response{}, ctx.Err()
}

// Stopping a mission whose model call runs cancels that call through River's job cancel (a notification
// to the worker running the job), and the job ends: the measured time from the stop's answer to the
// model call's cancellation is logged (the e2e test measures it across processes).
func TestMissionCancelStopsRunningJob(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, cols := e.team()
	a := e.agent(owner, "hangs", map[string]any{"autonomyMode": "autonomous"})
	card := e.missionCard(owner, prj, cols[0])
	model := &blockingLLM{called: make(chan struct{}, 1), cancelled: make(chan time.Time, 1)}
	client, _, err := workers.NewClient(e.pool, workers.Config{Concurrency: 2, LLM: model,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	require.NoError(t, client.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(ctx)
	})

	m := e.startMission(owner, a.ID, card.ID)
	id := m.ID
	select {
	case <-model.called:
	case <-time.After(20 * time.Second):
		t.Fatal("the model was never called")
	}
	require.EqualValues(t, "running", e.mission(owner, id).Status)
	r := e.do("POST", wsOf(owner)+"/missions/"+id+"/stop", owner.Token, nil)
	stopped := time.Now()
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "stopped", decode[MissionOut](t, r).Status)
	select {
	case at := <-model.cancelled:
		t.Logf("stop answered -> model call cancelled in the worker: %s", at.Sub(stopped))
	case <-time.After(20 * time.Second):
		t.Fatal("the model call was never cancelled")
	}
	// The job's context is cancelled through River and the job ends promptly.
	var jobID int64
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT job_id FROM agent_missions WHERE id = $1`,
		id).Scan(&jobID))
	waitFor(t, "the job to stop", func() bool {
		job, err := client.JobGet(context.Background(), jobID)
		require.NoError(t, err)
		return !slices.Contains([]rivertype.JobState{rivertype.JobStateRunning, rivertype.JobStateAvailable,
			rivertype.JobStateRetryable}, job.State)
	})
	got := e.mission(owner, id)
	require.EqualValues(t, "stopped", got.Status)
	require.Nil(t, got.Error)
	require.NotNil(t, got.CancelledAt)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM mission_steps WHERE mission_id = $1`, id))
	evs := e.fixtures().EventsButTokens(t, id)
	require.Equal(t, "done:stopped", evs[len(evs)-1])
}

// The workspace's missions: every agent's, newest first, narrowed by status, agent and card; a member
// reads them, an outsider is refused, and an id that is no uuid names nothing.
func TestWorkspaceMissionsList(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	outsider := e.register("outsider@example.com")
	a := e.agent(owner, "first", nil)
	b := e.agent(owner, "second", nil)
	card := e.missionCard(owner, prj, cols[0])
	other := e.missionCard(owner, prj, cols[0])
	first := e.startMission(owner, a.ID, card.ID)
	second := e.startMission(owner, b.ID, card.ID)
	third := e.startMission(owner, a.ID, other.ID)
	requireStatus(t, e.do("POST", wsOf(owner)+"/missions/"+second.ID+"/cancel", owner.Token, nil), http.StatusOK)

	list := func(query string) []string {
		t.Helper()
		r := e.do("GET", wsOf(owner)+"/missions"+query, member.Token, nil)
		requireStatus(t, r, http.StatusOK)
		out := []string{}
		for _, m := range decode[[]MissionOut](t, r) {
			out = append(out, m.ID)
		}
		return out
	}
	require.Equal(t, []string{third.ID, second.ID, first.ID}, list(""))
	require.Equal(t, []string{second.ID}, list("?status=stopped"))
	require.Equal(t, []string{third.ID, first.ID}, list("?agentId="+a.ID))
	require.Equal(t, []string{second.ID, first.ID}, list("?cardId="+card.ID))
	require.Equal(t, []string{first.ID}, list("?status=queued&agentId="+a.ID+"&cardId="+card.ID))
	require.Empty(t, list("?agentId=nope"))

	r := e.do("GET", wsOf(owner)+"/missions?limit=2", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]MissionOut](t, r), 2)
	require.Contains(t, r.Header.Get("Link"), `rel="next"`)

	requireStatus(t, e.do("GET", wsOf(owner)+"/missions?status=paused", owner.Token, nil), http.StatusBadRequest)
	r = e.do("GET", wsOf(owner)+"/missions", outsider.Token, nil)
	require.Contains(t, []int{http.StatusForbidden, http.StatusNotFound}, r.Code)
}

package workers

import (
	"context"
	"fmt"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/llm"
)

// mission queues a mission of agent on a card the offline planner acts on: two steps in the
// description (a checklist), "outage" in the title (priority high) and a plan comment. It answers the
// mission, the card and the mission's job as the store enqueued it.
func (b *testBundle) mission(t *testing.T, tm testfactory.Team,
	agent db.Agent) (db.AgentMission, board.Card, *rivertype.JobRow) {
	t.Helper()
	ctx := context.Background()
	card := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Fix the outage"),
		In: board.NewCard{Description: "- Find the failing node\n- Restart the service"}})
	m, err := b.Missions.CreateMission(ctx, mission.NewMission{WorkspaceID: tm.Owner.Workspace.ID, AgentID: agent.ID,
		ActorID: tm.Owner.User.ID, ProjectID: &tm.Project.ID, CardID: &card.ID, Source: mission.MissionSourceAgent,
		Objective: "Plan this card"})
	require.NoError(t, err)
	require.NotNil(t, m.JobID, "the job is inserted with the mission")
	job, err := b.River.JobGet(ctx, *m.JobID)
	require.NoError(t, err)
	require.Equal(t, jobs.QueueMissions, job.Queue)
	return m, card, job
}

// getMission reads a mission of the team's workspace.
func (b *testBundle) getMission(t *testing.T, tm testfactory.Team, id string) db.AgentMission {
	t.Helper()
	m, err := b.Missions.Mission(context.Background(), tm.Owner.Workspace.ID, id)
	require.NoError(t, err)
	return m
}

func TestMissionWorkerRetryAppliesNothingTwice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("again"),
		Name: testfactory.Ptr("again"), AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	m, card, job := b.mission(t, tm, agent)

	// First attempt runs the whole mission.
	b.work(t, job)
	require.EqualValues(t, db.MissionCompleted, b.getMission(t, tm, m.ID).Status)
	acts := b.Count(t, `SELECT count(*) FROM activities WHERE card_id = $1 AND type <> 'mission_status_changed'`, card.ID)
	items := b.Count(t, `SELECT count(*) FROM checklist_items WHERE card_id = $1`, card.ID)
	comments := b.Count(t, `SELECT count(*) FROM comments WHERE card_id = $1`, card.ID)
	require.Equal(t, 2, items)
	require.Equal(t, 1, comments)

	// The same job again: the mission is finished, nothing happens.
	w := NewMissionWorker(b.deps)
	again := &river.InsertOpts{Queue: job.Queue, MaxAttempts: job.MaxAttempts}
	workNew(t, b, w, jobs.MissionArgs{MissionID: m.ID}, again)
	// A rescued job of a mission that crashed mid-run (still running): every recorded step is skipped.
	_, err := b.Pool.Exec(context.Background(),
		`UPDATE agent_missions SET status = 'running', finished_at = NULL WHERE id = $1`, m.ID)
	require.NoError(t, err)
	workNew(t, b, w, jobs.MissionArgs{MissionID: m.ID}, again)
	require.EqualValues(t, db.MissionCompleted, b.getMission(t, tm, m.ID).Status)
	require.Equal(t, acts, b.Count(t,
		`SELECT count(*) FROM activities WHERE card_id = $1 AND type <> 'mission_status_changed'`, card.ID))
	require.Equal(t, items, b.Count(t, `SELECT count(*) FROM checklist_items WHERE card_id = $1`, card.ID))
	require.Equal(t, comments, b.Count(t, `SELECT count(*) FROM comments WHERE card_id = $1`, card.ID))
	require.Equal(t, 3, b.Count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1`, m.ID))
}

func TestMissionWorkerActionLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("capped"),
		Name: testfactory.Ptr("capped"), AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous),
		MaxActionsPerMission: testfactory.Ptr(int32(1))})
	m, _, job := b.mission(t, tm, agent)
	b.work(t, job)
	got := b.getMission(t, tm, m.ID)
	require.EqualValues(t, db.MissionCompleted, got.Status)
	require.Equal(t, int32(1), got.Actions)
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1 AND outcome = 'refused'`,
		m.ID))
}

// Between steps the runner sees a cancel that came while its mission was running, and stops; nothing
// more is applied.
func TestMissionWorkerStopsWhenCancelledWhileRunning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("slow"),
		Name: testfactory.Ptr("slow"), AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	m, card, _ := b.mission(t, tm, agent)
	_, err := b.Pool.Exec(ctx, `UPDATE agent_missions SET status = 'running', started_at = now() WHERE id = $1`, m.ID)
	require.NoError(t, err)
	cancelled, err := b.Missions.CancelMission(ctx, db.RecordEdit{WorkspaceID: tm.Owner.Workspace.ID, ID: m.ID,
		ActorID: tm.Owner.User.ID})
	require.NoError(t, err)
	require.EqualValues(t, db.MissionStopped, cancelled.Status)

	// The worker that had taken the mission's job goes on with it.
	workNew(t, b, NewMissionWorker(b.deps), jobs.MissionArgs{MissionID: m.ID},
		&river.InsertOpts{Queue: jobs.QueueMissions, MaxAttempts: mission.MissionMaxAttempts})
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1`, m.ID))
	got := b.getMission(t, tm, m.ID)
	require.EqualValues(t, db.MissionStopped, got.Status)
	require.Equal(t, testfactory.Ptr("person"), got.StopReason)
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM checklist_items WHERE card_id = $1`, card.ID))
}

// brokenLLM always answers unusable output.
type brokenLLM struct{}

func (brokenLLM) Name() string { return "broken" }

func (brokenLLM) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, fmt.Errorf("bad turn: %w", llm.ErrMalformedOutput)
}

func TestMissionWorkerFailsOnUnusableModelOutput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deps.LLM = brokenLLM{}
	tm := testfactory.NewTeam(t, b.Engines)
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("broken"),
		Name: testfactory.Ptr("broken"), AutonomyMode: testfactory.Ptr(mission.AutonomySupervised)})
	m, _, job := b.mission(t, tm, agent)
	b.work(t, job) // not worth retrying: the job completes with the mission failed
	got := b.getMission(t, tm, m.ID)
	require.EqualValues(t, db.MissionFailed, got.Status)
	require.NotNil(t, got.Error)
	require.Contains(t, *got.Error, "unusable output")
	require.Nil(t, got.CancelledAt)
	require.Equal(t, []string{"status:queued", "status:running", "ack:running", "done:failed"},
		b.EventsButTokens(t, m.ID))
}

// The text of a mission whose actions wait for approval says so, not that they were done; its turns are
// apart (a blank line between the comment the agent streamed and its summary); and once a person has
// approved one and rejected another, the mission's last word says which was applied and which rejected.
func TestMissionWorkerSaysWhatWaitsAndWhatWasRejected(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("asks"),
		Name: testfactory.Ptr("asks"), AutonomyMode: testfactory.Ptr(mission.AutonomyApproval)})
	m, _, job := b.mission(t, tm, agent)
	b.work(t, job)
	require.EqualValues(t, db.MissionAwaitingApproval, b.getMission(t, tm, m.ID).Status)

	var text string
	require.NoError(t, b.Pool.QueryRow(ctx, `SELECT coalesce(string_agg(message, '' ORDER BY seq), '') FROM stream_events
		WHERE stream_id = $1 AND type = $2`, m.ID, db.MissionEventToken).Scan(&text))
	require.Contains(t, text, "\n\nMission on \"Fix the outage\": 3 actions wait for approval.", "the turns are apart")
	require.Contains(t, text, "Waiting for approval: ")
	require.NotContains(t, text, "finished")
	require.NotContains(t, text, "Done:")

	proposals, err := b.Missions.MissionProposals(ctx, tm.Owner.Workspace.ID, m.ID)
	require.NoError(t, err)
	require.Len(t, proposals, 3)
	owner := mission.Decider{UserID: tm.Owner.User.ID, Reviewer: true}
	for _, p := range proposals {
		_, err := b.Missions.DecideProposal(ctx, tm.Owner.Workspace.ID, p.ID, owner, p.Tool != "add_checklist_items", "")
		require.NoError(t, err)
	}
	require.EqualValues(t, db.MissionCompleted, b.getMission(t, tm, m.ID).Status)
	msg, _ := b.LastEvent(t, m.ID)
	require.Contains(t, msg, "Applied: ")
	require.Contains(t, msg, "post a comment")
	require.Contains(t, msg, "Rejected: add checklist items.")
}

// modelsLLM answers every turn at once and records the model each turn asked for.
type modelsLLM struct{ models chan string }

func (modelsLLM) Name() string { return "models" }

func (p modelsLLM) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	p.models <- req.Model
	return llm.Response{Content: "Nothing to do.", FinishReason: llm.FinishStop}, nil
}

// A mission asks for its agent's model; an agent without one leaves the choice to the server's default.
func TestMissionWorkerAsksForTheAgentsModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	p := modelsLLM{models: make(chan string, 2)}
	b.deps.LLM = p
	tm := testfactory.NewTeam(t, b.Engines)
	own := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("own")})
	own, err := b.Missions.UpdateAgent(ctx, tm.Owner.Workspace.ID, own.ID,
		func(c mission.AgentConfig) mission.AgentConfig {
			c.Model = "llama3.1:8b"
			return c
		}, nil)
	require.NoError(t, err)
	plain := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("plain")})
	for _, a := range []db.Agent{own, plain} {
		m, _, job := b.mission(t, tm, a)
		b.work(t, job)
		require.EqualValues(t, db.MissionCompleted, b.getMission(t, tm, m.ID).Status)
	}
	require.Equal(t, "llama3.1:8b", <-p.models)
	require.Empty(t, <-p.models)
}

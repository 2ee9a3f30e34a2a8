package workers

import (
	"context"
	"fmt"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/llm"
)

// agent creates an agent of the team's workspace with every tool and the api's default limits;
// maxActions overrides the actions per mission when positive.
func (b *testBundle) agent(t *testing.T, tm team, slug, autonomy string, maxActions int32) db.Agent {
	t.Helper()
	var tools []string
	for _, tool := range llm.ToolCatalog() {
		tools = append(tools, tool.Name)
	}
	cfg := mission.AgentConfig{Name: slug, Slug: slug, AutonomyMode: autonomy, Tools: tools, MaxSteps: 10, MaxActionsPerMission: 20,
		MaxMissionsPerHour: 30}
	if maxActions > 0 {
		cfg.MaxActionsPerMission = maxActions
	}
	a, err := mission.New(b.store).CreateAgent(context.Background(), tm.owner.Workspace.ID, tm.owner.User.ID, cfg)
	require.NoError(t, err)
	return a
}

// mission queues a mission of agent on a card the offline planner acts on: two steps in the
// description (a checklist), "outage" in the title (priority high) and a plan comment. It answers the
// mission, the card and the mission's job as the store enqueued it.
func (b *testBundle) mission(t *testing.T, tm team, agent db.Agent) (db.AgentMission, db.Card, *rivertype.JobRow) {
	t.Helper()
	ctx := context.Background()
	card := b.card(t, tm, tm.owner, db.NewCard{Title: "Fix the outage", Description: "- Find the failing node\n- Restart the service"})
	m, err := mission.New(b.store).CreateMission(ctx, mission.NewMission{WorkspaceID: tm.owner.Workspace.ID, AgentID: agent.ID, ActorID: tm.owner.User.ID,
		ProjectID: &tm.project.ID, CardID: &card.ID, Source: mission.MissionSourceAgent, Objective: "Plan this card"})
	require.NoError(t, err)
	require.NotNil(t, m.JobID, "the job is inserted with the mission")
	job, err := b.client.JobGet(ctx, *m.JobID)
	require.NoError(t, err)
	require.Equal(t, jobs.QueueMissions, job.Queue)
	return m, card, job
}

// getMission reads a mission of the team's workspace.
func (b *testBundle) getMission(t *testing.T, tm team, id string) db.AgentMission {
	t.Helper()
	m, err := mission.New(b.store).Mission(context.Background(), tm.owner.Workspace.ID, id)
	require.NoError(t, err)
	return m
}

// eventTypes lists a mission's events but tokens as "type:status", in order.
func (b *testBundle) eventTypes(t *testing.T, missionID string) []string {
	t.Helper()
	evs, err := b.store.StreamEventsAfter(context.Background(), missionID, 0, 1000)
	require.NoError(t, err)
	var out []string
	for _, ev := range evs {
		if ev.Type != db.MissionEventToken {
			out = append(out, ev.Type+":"+ev.Status)
		}
	}
	return out
}

func TestMissionWorkerRetryAppliesNothingTwice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := b.team(t)
	m, card, job := b.mission(t, tm, b.agent(t, tm, "again", mission.AutonomyAutonomous, 0))

	// First attempt runs the whole mission.
	b.work(t, job)
	require.Equal(t, db.MissionCompleted, b.getMission(t, tm, m.ID).Status)
	acts := b.count(t, `SELECT count(*) FROM activities WHERE card_id = $1`, card.ID)
	items := b.count(t, `SELECT count(*) FROM checklist_items WHERE card_id = $1`, card.ID)
	comments := b.count(t, `SELECT count(*) FROM comments WHERE card_id = $1`, card.ID)
	require.Equal(t, 2, items)
	require.Equal(t, 1, comments)

	// The same job again: the mission is finished, nothing happens.
	w := NewMissionWorker(b.deps)
	again := &river.InsertOpts{Queue: job.Queue, MaxAttempts: job.MaxAttempts}
	workNew(t, b, w, jobs.MissionArgs{MissionID: m.ID}, again)
	// A rescued job of a mission that crashed mid-run (still running): every recorded step is skipped.
	_, err := b.pool.Exec(context.Background(), `UPDATE agent_missions SET status = 'running', finished_at = NULL WHERE id = $1`, m.ID)
	require.NoError(t, err)
	workNew(t, b, w, jobs.MissionArgs{MissionID: m.ID}, again)
	require.Equal(t, db.MissionCompleted, b.getMission(t, tm, m.ID).Status)
	require.Equal(t, acts, b.count(t, `SELECT count(*) FROM activities WHERE card_id = $1`, card.ID))
	require.Equal(t, items, b.count(t, `SELECT count(*) FROM checklist_items WHERE card_id = $1`, card.ID))
	require.Equal(t, comments, b.count(t, `SELECT count(*) FROM comments WHERE card_id = $1`, card.ID))
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1`, m.ID))
}

func TestMissionWorkerActionLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := b.team(t)
	m, _, job := b.mission(t, tm, b.agent(t, tm, "capped", mission.AutonomyAutonomous, 1))
	b.work(t, job)
	got := b.getMission(t, tm, m.ID)
	require.Equal(t, db.MissionCompleted, got.Status)
	require.Equal(t, int32(1), got.Actions)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1 AND outcome = 'refused'`, m.ID))
}

// Between steps the runner sees a cancel that came while its mission was running, and stops; nothing
// more is applied.
func TestMissionWorkerStopsWhenCancelledWhileRunning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tm := b.team(t)
	m, card, _ := b.mission(t, tm, b.agent(t, tm, "slow", mission.AutonomyAutonomous, 0))
	_, err := b.pool.Exec(ctx, `UPDATE agent_missions SET status = 'running', started_at = now() WHERE id = $1`, m.ID)
	require.NoError(t, err)
	cancelled, err := mission.New(b.store).CancelMission(ctx, db.RecordEdit{WorkspaceID: tm.owner.Workspace.ID, ID: m.ID, ActorID: tm.owner.User.ID})
	require.NoError(t, err)
	require.Equal(t, db.MissionFailed, cancelled.Status)

	// The worker that had taken the mission's job goes on with it.
	workNew(t, b, NewMissionWorker(b.deps), jobs.MissionArgs{MissionID: m.ID},
		&river.InsertOpts{Queue: jobs.QueueMissions, MaxAttempts: mission.MissionMaxAttempts})
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM mission_steps WHERE mission_id = $1`, m.ID))
	got := b.getMission(t, tm, m.ID)
	require.Equal(t, db.MissionFailed, got.Status)
	require.NotNil(t, got.Error)
	require.Equal(t, "cancelled", *got.Error)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM checklist_items WHERE card_id = $1`, card.ID))
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
	tm := b.team(t)
	m, _, job := b.mission(t, tm, b.agent(t, tm, "broken", mission.AutonomySupervised, 0))
	b.work(t, job) // not worth retrying: the job completes with the mission failed
	got := b.getMission(t, tm, m.ID)
	require.Equal(t, db.MissionFailed, got.Status)
	require.NotNil(t, got.Error)
	require.Contains(t, *got.Error, "unusable output")
	require.Nil(t, got.CancelledAt)
	require.Equal(t, []string{"status:queued", "status:running", "done:failed"}, b.eventTypes(t, m.ID))
}

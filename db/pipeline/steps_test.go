package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// Steps run once however often their job runs; a completion queues the steps whose needs are all done
// (parallel branches together, a join only after both), and the last completes the run. A notify step
// notifies every workspace member but the run's starter.
func TestStepsRunOnceAndJoin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pid := e.team.Project.ID
	r := e.start(t, e.pipeline(t, notify("a", pid), notify("b", pid, "a"), notify("c", pid, "a"), notify("d", pid, "b",
		"c")))
	notices := func() int {
		return e.Count(t, `SELECT count(*) FROM activities WHERE type = $1`, pipeline.ActivityPipelineNotice)
	}

	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "a"))
	cur := e.read(t, r)
	require.Equal(t, map[string]string{"a": "completed", "b": "queued", "c": "queued", "d": "pending"}, statuses(cur))
	require.Equal(t, map[string]any{"recipients": float64(1), "message": "step a"}, output(t, cur, "a"))
	// Its activity names its recipients (the notify job fans it out): the member, not the run's starter.
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM activities WHERE type = $1 AND recipients = ARRAY[$2::uuid] AND actor_id = $3`,
		pipeline.ActivityPipelineNotice, e.team.Member.User.ID, e.owner()))
	require.Len(t, e.Jobs(t, jobs.PipelineStepArgs{}.Kind()), 3)

	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "a"), "a retried job")
	require.Equal(t, 1, notices(), "does the step no second time")
	require.Len(t, e.Jobs(t, jobs.PipelineStepArgs{}.Kind()), 3, "and queues nothing again")

	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "b"))
	require.Equal(t, "pending", statuses(e.read(t, r))["d"], "the join waits for both branches")
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "c"))
	require.Equal(t, "queued", statuses(e.read(t, r))["d"])
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "d"))

	cur = e.read(t, r)
	require.Equal(t, pipeline.RunCompleted, cur.Run.Status)
	require.NotNil(t, cur.Run.FinishedAt)
	require.Equal(t, 4, notices())
	// A step event carries the run's status (running); only the done event's status is final.
	require.Equal(t, []string{"status:running", "step:running", "step:running", "step:running", "step:running",
		"done:completed"}, e.Events(t, r.Run.ID))
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "d"), "a finished run's job does nothing")
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "nope"))
	require.NoError(t, e.engine.RunStep(ctx, db.NewID(), "a"), "a deleted run's job does nothing")
	require.Equal(t, 4, notices())
}

// A condition skips the branch not taken and every step that needs a skipped one; templates fill in
// the run's and earlier steps' values.
func TestConditionSkipsTheBranchNotTaken(t *testing.T) {
	t.Parallel()
	e := setup(t)
	pid := e.team.Project.ID
	r := e.start(t, e.pipeline(t,
		step{ID: "make", Type: "create_card", Params: map[string]any{"projectId": pid, "columnId": e.team.Project.Columns[1],
			"title": "Card of {{pipeline.name}}"}}, step{ID: "if", Type: "condition", Needs: []string{"make"},
			Params: map[string]any{"step": "make", "field": "title", "op": "equals", "value": "Card of Release",
				"then": []string{"yes"}, "else": []string{"no"}}}, step{ID: "yes", Type: "notify", Needs: []string{"if"},
			Params: map[string]any{"projectId": pid, "message": "made {{steps.make.cardId}}"}}, step{ID: "no", Type: "notify",
			Needs: []string{"if"}, Params: map[string]any{"projectId": pid, "message": "not made"}}, step{ID: "after-no",
			Type: "notify", Needs: []string{"no"}, Params: map[string]any{"projectId": pid, "message": "never"}},
	))
	cur := e.drive(t, r)
	require.Equal(t, pipeline.RunCompleted, cur.Run.Status, "%v", statuses(cur))
	require.Equal(t, map[string]string{"make": "completed", "if": "completed", "yes": "completed", "no": "skipped",
		"after-no": "skipped"}, statuses(cur))
	made := output(t, cur, "make")
	require.Equal(t, "Card of Release", made["title"])
	require.Equal(t, e.team.Project.Columns[1], made["columnId"])
	require.Equal(t, true, output(t, cur, "if")["result"])
	require.Equal(t, "made "+made["cardId"].(string), output(t, cur, "yes")["message"])
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM cards WHERE id = $1 AND created_by = $2`, made["cardId"],
		e.owner()), "the run's starter creates the card")
	require.Zero(t, e.Count(t, `SELECT count(*) FROM activities WHERE meta->>'message' IN ('not made', 'never')`))
}

// A refused step fails, and with it the run: the steps not finished are skipped and their jobs
// cancelled, the refused step's work is rolled back, and the stream ends.
func TestRefusedStepFailsTheRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pid := e.team.Project.ID
	r := e.start(t, e.pipeline(t,
		notify("ok", pid),
		step{ID: "bad", Type: "create_card", Needs: []string{"ok"}, Params: map[string]any{"projectId": pid,
			"title": "{{steps.ok.nothing}}"}}, notify("later", pid, "bad"),
		step{ID: "wait", Type: "wait", Needs: []string{"ok"}, Params: map[string]any{"duration": "1h"}},
	))
	cards := e.Count(t, `SELECT count(*) FROM cards`)
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "ok"))
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "bad"), "a refusal is no error for the worker: the step fails")

	cur := e.read(t, r)
	require.Equal(t, pipeline.RunFailed, cur.Run.Status)
	require.Equal(t, testfactory.Ptr("step bad failed: the card title is empty once filled in"), cur.Run.Error)
	require.Equal(t, map[string]string{"ok": "completed", "bad": "failed", "later": "skipped", "wait": "skipped"},
		statuses(cur))
	require.Equal(t, testfactory.Ptr("the card title is empty once filled in"), stepOf(t, cur, "bad").Error)
	require.Equal(t, cards, e.Count(t, `SELECT count(*) FROM cards`))
	for _, j := range e.Jobs(t, jobs.PipelineStepArgs{}.Kind()) {
		if j.Args["stepId"] == "wait" {
			require.Equal(t, "cancelled", j.State)
		}
	}
	evs := e.Events(t, r.Run.ID)
	require.Equal(t, []string{"step:running", "done:failed"}, evs[len(evs)-2:])
}

// A step whose job gave up is failed with the worker's text, failing the run; failing it again, or a
// step of a finished run, does nothing.
func TestFailStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pid := e.team.Project.ID
	r := e.start(t, e.pipeline(t, notify("a", pid), notify("b", pid)))
	require.NoError(t, e.engine.FailStep(ctx, r.Run.ID, "a", "the step kept failing (5 attempts): boom"))
	cur := e.read(t, r)
	require.Equal(t, pipeline.RunFailed, cur.Run.Status)
	require.Equal(t, map[string]string{"a": "failed", "b": "skipped"}, statuses(cur))
	require.Equal(t, testfactory.Ptr("step a failed: the step kept failing (5 attempts): boom"), cur.Run.Error)
	n := len(e.Events(t, r.Run.ID))
	require.NoError(t, e.engine.FailStep(ctx, r.Run.ID, "a", "again"))
	require.NoError(t, e.engine.FailStep(ctx, r.Run.ID, "b", "again"))
	require.Len(t, e.Events(t, r.Run.ID), n)
	require.Equal(t, testfactory.Ptr("step a failed: the step kept failing (5 attempts): boom"), e.read(t, r).Run.Error)
}

// missionPipeline is a run whose first step starts a mission of an autonomous agent on the card it
// creates, and whose last notifies with the mission's outcome; the first two steps are worked, so the
// mission step waits.
func missionPipeline(t *testing.T, e *env, agentOpts *testfactory.AgentOpts) (pipeline.RunWithSteps, db.AgentMission) {
	t.Helper()
	pid := e.team.Project.ID
	if agentOpts == nil {
		agentOpts = &testfactory.AgentOpts{}
	}
	agentOpts.AutonomyMode = testfactory.Ptr(mission.AutonomyAutonomous)
	a := testfactory.Agent(t, e.Engines, e.team.Owner, agentOpts)
	r := e.start(t, e.pipeline(t,
		step{ID: "make", Type: "create_card", Params: map[string]any{"projectId": pid, "title": "Fix the outage"}},
		step{ID: "agent", Type: "run_agent_mission", Needs: []string{"make"}, Params: map[string]any{"agentId": a.ID,
			"cardId": "{{steps.make.cardId}}", "objective": "Plan {{steps.make.title}}"}},
		step{ID: "done", Type: "notify", Needs: []string{"agent"}, Params: map[string]any{"projectId": pid,
			"message": "mission {{steps.agent.status}}"}},
	))
	cur := e.drive(t, r)
	if statuses(cur)["agent"] != pipeline.StepWaiting {
		return cur, db.AgentMission{}
	}
	m, err := e.Missions.Mission(context.Background(), e.ws(), output(t, cur, "agent")["missionId"].(string))
	require.NoError(t, err)
	return cur, m
}

// A run_agent_mission step starts its mission (as the run's starter, on the card a template names) and
// waits without a worker; the mission's completion completes the step in the mission's transaction
// and queues the next.
func TestMissionStepWaitsForItsMission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	cur, m := missionPipeline(t, e, nil)
	require.Equal(t, map[string]string{"make": "completed", "agent": "waiting", "done": "pending"}, statuses(cur))
	require.Equal(t, pipeline.RunRunning, cur.Run.Status)
	require.Equal(t, testfactory.Ptr("mission:"+m.ID), stepOf(t, cur, "agent").WaitRef)
	require.Equal(t, mission.MissionSourcePipeline, m.Source)
	require.Equal(t, e.owner(), m.CreatedBy)
	require.Equal(t, output(t, cur, "make")["cardId"], *m.CardID)
	require.Equal(t, "Plan Fix the outage", m.Objective)
	require.NotNil(t, m.JobID, "the mission's job was enqueued with the step")
	require.Len(t, e.Jobs(t, jobs.MissionArgs{}.Kind()), 1)
	evs := e.Events(t, cur.Run.ID)
	require.Equal(t, "step:running", evs[len(evs)-1])

	missions := e.Missions
	_, err := missions.StartMission(ctx, m.ID)
	require.NoError(t, err)
	require.Equal(t, "waiting", statuses(e.read(t, cur))["agent"], "a mission under way leaves the step waiting")
	_, err = missions.FinishMission(ctx, m.ID, "Planned", "")
	require.NoError(t, err)
	after := e.read(t, cur)
	require.Equal(t, map[string]string{"make": "completed", "agent": "completed", "done": "queued"}, statuses(after))
	require.Equal(t, map[string]any{"missionId": m.ID, "status": string(db.MissionCompleted)}, output(t, after, "agent"))

	done := e.drive(t, after)
	require.Equal(t, pipeline.RunCompleted, done.Run.Status)
	require.Equal(t, "mission completed", output(t, done, "done")["message"])
}

// A mission that fails, or that someone cancels, fails its step and the run.
func TestMissionFailureFailsTheStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, end := range map[string]func(t *testing.T, e *env, m db.AgentMission){
		"failed": func(t *testing.T, e *env, m db.AgentMission) {
			missions := e.Missions
			_, err := missions.StartMission(ctx, m.ID)
			require.NoError(t, err)
			_, err = missions.FinishMission(ctx, m.ID, "", "boom")
			require.NoError(t, err)
		},
		"cancelled": func(t *testing.T, e *env, m db.AgentMission) {
			_, err := e.Missions.CancelMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: m.ID, ActorID: e.team.Member.User.ID})
			require.NoError(t, err)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			cur, m := missionPipeline(t, e, nil)
			end(t, e, m)
			cur = e.read(t, cur)
			require.Equal(t, pipeline.RunFailed, cur.Run.Status)
			require.Equal(t, map[string]string{"make": "completed", "agent": "failed", "done": "skipped"}, statuses(cur))
			want := map[string]string{"failed": "the mission failed: boom", "cancelled": "the mission was stopped"}[name]
			require.Equal(t, &want, stepOf(t, cur, "agent").Error)
		})
	}
}

// Cancelling a run cancels the mission its step waits for.
func TestCancelRunCancelsItsMission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	cur, m := missionPipeline(t, e, nil)
	c, err := e.engine.CancelRun(ctx, ref(cur), e.owner())
	require.NoError(t, err)
	require.Equal(t, pipeline.RunCancelled, c.Run.Status)
	require.Equal(t, "cancelled", statuses(c)["agent"])
	got, err := e.Missions.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionStopped, got.Status)
	require.NotNil(t, got.CancelledAt)
	require.Equal(t, "cancelled", e.Jobs(t, jobs.MissionArgs{}.Kind())[0].State)
	require.Equal(t, pipeline.RunCancelled, e.read(t, cur).Run.Status, "the mission's end leaves the cancelled run alone")
}

// A mission past its agent's hourly limit fails the step with the limit's message, and no mission is
// created.
func TestMissionStepPastTheAgentsRateFails(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cur, _ := missionPipeline(t, e, &testfactory.AgentOpts{MaxMissionsPerHour: testfactory.Ptr(int32(0))})
	require.Equal(t, pipeline.RunFailed, cur.Run.Status)
	require.Equal(t, "failed", statuses(cur)["agent"])
	require.Contains(t, *stepOf(t, cur, "agent").Error, "its limit is 0")
	require.Zero(t, e.Count(t, `SELECT count(*) FROM agent_missions`))
	require.Empty(t, e.Jobs(t, jobs.MissionArgs{}.Kind()))
}

// Plugin steps use the plugin's settings; a plugin uninstalled while a run waits fails the step.
func TestPluginSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pid := e.team.Project.ID
	card := testfactory.Card(t, e.Engines, e.team.Project, nil)
	_, err := e.Store.InstallPlugin(ctx, db.PluginInstall{WorkspaceID: e.ws(), PluginID: "card-actions",
		ActorID: e.owner(), Settings: jsonOf(t, map[string]any{"commentPrefix": "[bot]"})})
	require.NoError(t, err)
	p := e.pipeline(t,
		step{ID: "say", Type: "add_comment", Params: map[string]any{"projectId": pid, "cardId": card.ID,
			"content": "from {{pipeline.name}}"}}, step{ID: "move", Type: "move_card", Needs: []string{"say"},
			Params: map[string]any{"projectId": pid, "cardId": card.ID, "columnId": e.team.Project.Columns[2]}},
	)
	cur := e.drive(t, e.start(t, p))
	require.Equal(t, pipeline.RunCompleted, cur.Run.Status, "%v", statuses(cur))
	require.Equal(t, 1, e.Count(t,
		`SELECT count(*) FROM comments WHERE card_id = $1 AND content = '[bot] from Release' AND author_id = $2`, card.ID,
		e.owner()))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM cards WHERE id = $1 AND column_id = $2`, card.ID,
		e.team.Project.Columns[2]))

	r := e.start(t, p)
	require.NoError(t, e.Store.UninstallPlugin(ctx, e.ws(), "card-actions"))
	cur = e.drive(t, r)
	require.Equal(t, pipeline.RunFailed, cur.Run.Status)
	require.Equal(t, testfactory.Ptr("plugin card-actions is not installed in this workspace any more"), stepOf(t, cur,
		"say").Error)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM comments WHERE card_id = $1`, card.ID))
}

// A generate_roadmap step starts its draft's roadmap job and waits; the draft's end settles the step in
// the draft's transaction: its roadmap completes it with a summary, a failure or a deletion fails it.
func TestGenerateRoadmapStepWaitsForItsDraft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	roadmap := draft.DraftRoadmap{Phases: []draft.DraftPhase{{Name: "One",
		Deliverables: []draft.DraftDeliverable{{Title: "a"}, {Title: "b"}}}}}
	for name, tc := range map[string]struct {
		end    func(t *testing.T, e *env, d draft.Draft, run int32)
		status string
		err    string
	}{
		"roadmap": {func(t *testing.T, e *env, d draft.Draft, run int32) {
			_, err := e.Drafts.FinishRoadmap(ctx, d.ID, run, roadmap)
			require.NoError(t, err)
		}, pipeline.RunCompleted, ""},
		"failure": {func(t *testing.T, e *env, d draft.Draft, run int32) {
			_, err := e.Drafts.Fail(ctx, d.ID, run, "nonsense")
			require.NoError(t, err)
		}, pipeline.RunFailed, "the draft's roadmap failed: nonsense"},
		"deletion": {func(t *testing.T, e *env, d draft.Draft, _ int32) {
			require.NoError(t, e.Drafts.Delete(ctx, e.ws(), d.ID))
		}, pipeline.RunFailed, "the draft was deleted"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			d, err := e.Drafts.Create(ctx, draft.NewDraft{WorkspaceID: e.ws(), ActorID: e.owner(), Name: "Ledger"})
			require.NoError(t, err)
			r := e.start(t, e.pipeline(t, step{ID: "plan", Type: "generate_roadmap", Params: map[string]any{"draftId": d.ID}},
				step{ID: "tell", Type: "notify", Needs: []string{"plan"}, Params: map[string]any{"projectId": e.team.Project.ID,
					"message": "{{steps.plan.summary}}"}}))
			cur := e.drive(t, r)
			require.Equal(t, map[string]string{"plan": "waiting", "tell": "pending"}, statuses(cur))
			got, err := e.Drafts.Get(ctx, e.ws(), d.ID)
			require.NoError(t, err)
			require.Equal(t, draft.DraftGenerating, got.Status)
			require.Len(t, e.Jobs(t, jobs.DraftRoadmapArgs{}.Kind()), 1)

			tc.end(t, e, d, got.Run)
			cur = e.drive(t, cur)
			require.Equal(t, tc.status, cur.Run.Status, "%v", statuses(cur))
			if tc.err == "" {
				out := output(t, cur, "plan")
				require.Equal(t, draft.DraftRoadmapReady, out["status"])
				require.Equal(t, float64(2), out["deliverables"])
				require.Equal(t, "roadmap ready: 1 phase, 2 deliverables", output(t, cur, "tell")["message"])
			} else {
				require.Equal(t, &tc.err, stepOf(t, cur, "plan").Error)
				require.Equal(t, "skipped", statuses(cur)["tell"])
			}
		})
	}
}

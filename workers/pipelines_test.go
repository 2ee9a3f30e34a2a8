package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// step is a step of a test pipeline.
type step struct {
	ID     string         `json:"id"`
	Type   string         `json:"type"`
	Params map[string]any `json:"params"`
	Needs  []string       `json:"needs,omitempty"`
}

// pipeline creates an enabled pipeline of the team's workspace as its owner.
func (b *testBundle) pipeline(t *testing.T, tm testfactory.Team, steps ...step) db.Pipeline {
	t.Helper()
	p, err := b.Pipelines.CreatePipeline(context.Background(), tm.Owner.Workspace.ID, tm.Owner.User.ID,
		pipeline.NewPipeline{Name: "Test", Steps: jsonOf(t, steps), Enabled: true})
	require.NoError(t, err)
	return p
}

// startRun starts a run of p as the team's owner.
func (b *testBundle) startRun(t *testing.T, tm testfactory.Team, p db.Pipeline) pipeline.RunWithSteps {
	t.Helper()
	r, err := b.Pipelines.StartRun(context.Background(), db.RecordEdit{WorkspaceID: tm.Owner.Workspace.ID, ID: p.ID,
		ActorID: tm.Owner.User.ID})
	require.NoError(t, err)
	require.Equal(t, pipeline.RunRunning, r.Run.Status)
	return r
}

// getRun reads a run with its steps.
func (b *testBundle) getRun(t *testing.T, tm testfactory.Team, r pipeline.RunWithSteps) pipeline.RunWithSteps {
	t.Helper()
	out, err := b.Pipelines.Run(context.Background(), pipeline.RunRef{WorkspaceID: tm.Owner.Workspace.ID,
		PipelineID: r.Run.PipelineID, RunID: r.Run.ID})
	require.NoError(t, err)
	return out
}

// waitRun waits, on a started worker's job events, until the run is no longer running.
func (b *testBundle) waitRun(t *testing.T, tm testfactory.Team, events <-chan *river.Event,
	r pipeline.RunWithSteps) pipeline.RunWithSteps {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		cur := b.getRun(t, tm, r)
		if cur.Run.Status != pipeline.RunRunning {
			return cur
		}
		select {
		case <-events:
		case <-timeout:
			t.Fatalf("run %s still running after 20s: %+v", r.Run.ID, statuses(cur))
		}
	}
}

// statuses maps a run's step ids to their statuses.
func statuses(r pipeline.RunWithSteps) map[string]string {
	out := map[string]string{}
	for _, st := range r.Steps {
		out[st.StepID] = st.Status
	}
	return out
}

// output decodes a step's output.
func output(t *testing.T, r pipeline.RunWithSteps, id string) map[string]any {
	t.Helper()
	for _, st := range r.Steps {
		if st.StepID == id {
			out := map[string]any{}
			require.NoError(t, json.Unmarshal(st.Output, &out))
			return out
		}
	}
	t.Fatalf("no step %s", id)
	return nil
}

func TestPipelineParallelBranchesJoin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	p := b.pipeline(t, tm,
		step{ID: "make", Type: "create_card", Params: map[string]any{"projectId": tm.Project.ID,
			"title": "Release {{date}}"}}, step{ID: "tell", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID,
			"message": "Card {{steps.make.title}} is ready"}, Needs: []string{"make"}}, step{ID: "second", Type: "create_card",
			Params: map[string]any{"projectId": tm.Project.ID, "columnId": tm.Project.Columns[1], "title": "Follow-up of " +
				"{{steps.make.cardId}}"}, Needs: []string{"make"}}, step{ID: "join", Type: "create_card",
			Params: map[string]any{"projectId": tm.Project.ID, "title": "Both done: {{steps.tell.recipients}} told"},
			Needs:  []string{"tell", "second"}},
	)
	run := b.startRun(t, tm, p)
	require.Equal(t, map[string]string{"make": pipeline.StepQueued, "tell": pipeline.StepPending,
		"second": pipeline.StepPending, "join": pipeline.StepPending}, statuses(run))

	b.drain(t)
	cur := b.getRun(t, tm, run)
	require.Equal(t, pipeline.RunCompleted, cur.Run.Status, "%v", statuses(cur))
	for _, st := range cur.Steps {
		require.Equal(t, pipeline.StepCompleted, st.Status, st.StepID)
		require.NotNil(t, st.JobID)
	}
	made := output(t, cur, "make")
	require.Equal(t, "Follow-up of "+made["cardId"].(string), b.getCard(t, tm, output(t, cur,
		"second")["cardId"].(string)).Title)
	require.Equal(t, "Both done: 1 told", output(t, cur, "join")["title"])
	// The notify step notified the workspace's other member through an activity and its fan-out.
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM notifications n JOIN activities a ON a.id = n.activity_id
		WHERE a.type = 'pipeline_notice' AND n.user_id = $1`, tm.Member.User.ID))
	// Cards went through the store's create: activities recorded.
	require.Equal(t, 3, b.Count(t, `SELECT count(*) FROM activities WHERE type = 'card_created' AND project_id = $1`,
		tm.Project.ID))
}

func TestPipelineBranchesEnqueuedTogether(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	p := b.pipeline(t, tm,
		step{ID: "a", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "start"}},
		step{ID: "b", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "left"},
			Needs: []string{"a"}}, step{ID: "c", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID,
			"message": "right"}, Needs: []string{"a"}},
	)
	run := b.startRun(t, tm, p)
	ctx := context.Background()
	job, err := b.River.JobGet(ctx, *run.Steps[0].JobID)
	require.NoError(t, err)
	b.work(t, job)
	cur := b.getRun(t, tm, run)
	require.Equal(t, map[string]string{"a": pipeline.StepCompleted, "b": pipeline.StepQueued, "c": pipeline.StepQueued},
		statuses(cur))
	// Both branches' jobs are available at once, for any worker to take in parallel.
	rivertest.RequireManyInserted(ctx, t, riverpgxv5.New(b.Pool), []rivertest.ExpectedJob{
		{Args: jobs.PipelineStepArgs{}}, {Args: jobs.PipelineStepArgs{}}, {Args: jobs.PipelineStepArgs{}}})

	// Working a step's job again (a retry, a job rescued from a dead worker) does nothing twice.
	workNew(t, b, &PipelineStepWorker{deps: b.deps}, jobs.PipelineStepArgs{RunID: run.Run.ID, StepID: "a"}, nil)
	require.Equal(t, 1, b.Count(t,
		`SELECT count(*) FROM activities WHERE type = 'pipeline_notice' AND meta->>'stepId' = 'a'`))
	require.Equal(t, 2, b.Count(t,
		`SELECT count(*) FROM river_job WHERE kind = 'pipeline_step' AND args->>'stepId' IN ('b', 'c')`),
		"no step enqueued twice")
}

func TestPipelineConditionSkipsTheBranchNotTaken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	events := b.startWorker(t, Config{})
	for _, tc := range []struct {
		title          string
		ran, skipped   []string
		wantCondResult bool
	}{
		{title: "urgent", ran: []string{"yes", "after"}, skipped: []string{"no"}, wantCondResult: true},
		{title: "calm", ran: []string{"no"}, skipped: []string{"yes", "after"}, wantCondResult: false},
	} {
		p := b.pipeline(t, tm,
			step{ID: "make", Type: "create_card", Params: map[string]any{"projectId": tm.Project.ID, "title": tc.title}},
			step{ID: "check", Type: "condition", Params: map[string]any{"step": "make", "field": "title", "op": "equals",
				"value": "urgent", "then": []string{"yes"}, "else": []string{"no"}}, Needs: []string{"make"}},
			step{ID: "yes", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "urgent card"},
				Needs: []string{"check"}}, step{ID: "no", Type: "create_card", Params: map[string]any{"projectId": tm.Project.ID,
				"title": "calm follow-up"}, Needs: []string{"check"}}, step{ID: "after", Type: "notify",
				Params: map[string]any{"projectId": tm.Project.ID, "message": "handled"}, Needs: []string{"yes"}},
		)
		cur := b.waitRun(t, tm, events, b.startRun(t, tm, p))
		require.Equal(t, pipeline.RunCompleted, cur.Run.Status)
		got := statuses(cur)
		for _, id := range tc.ran {
			require.Equal(t, pipeline.StepCompleted, got[id], "%s: %v", tc.title, got)
		}
		for _, id := range tc.skipped {
			require.Equal(t, pipeline.StepSkipped, got[id], "%s: %v", tc.title, got)
		}
		require.Equal(t, tc.wantCondResult, output(t, cur, "check")["result"])
	}
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM cards WHERE title = 'calm follow-up'`))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM activities WHERE meta->>'message' = 'handled'`))
}

func TestPipelineFailedStepFailsTheRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	events := b.startWorker(t, Config{})
	ctx := context.Background()
	p := b.pipeline(t, tm,
		step{ID: "ok", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "hi"}},
		// The title names an output field the notify step does not have: empty once filled in, refused.
		step{ID: "bad", Type: "create_card", Params: map[string]any{"projectId": tm.Project.ID,
			"title": "{{steps.ok.nothing}}"}, Needs: []string{"ok"}}, step{ID: "later", Type: "notify",
			Params: map[string]any{"projectId": tm.Project.ID, "message": "never"}, Needs: []string{"bad"}}, step{ID: "wait",
			Type: "wait", Params: map[string]any{"duration": "1h"}, Needs: []string{"ok"}},
	)
	cur := b.waitRun(t, tm, events, b.startRun(t, tm, p))
	require.Equal(t, pipeline.RunFailed, cur.Run.Status)
	require.NotNil(t, cur.Run.Error)
	require.Contains(t, *cur.Run.Error, "step bad failed")
	require.Equal(t, map[string]string{"ok": pipeline.StepCompleted, "bad": pipeline.StepFailed,
		"later": pipeline.StepSkipped, "wait": pipeline.StepSkipped}, statuses(cur))
	require.Contains(t, *cur.Run.Error, "the card title is empty")
	require.Zero(t, b.Count(t, `SELECT count(*) FROM cards`))
	// The wait step's scheduled job was cancelled with the run's failure.
	for _, st := range cur.Steps {
		if st.StepID == "wait" {
			job, err := b.River.JobGet(ctx, *st.JobID)
			require.NoError(t, err)
			require.Equal(t, rivertype.JobStateCancelled, job.State)
		}
	}
}

func TestPipelineWaitIsAScheduledJobAndCancelStopsTheRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	ctx := context.Background()
	p := b.pipeline(t, tm,
		step{ID: "pause", Type: "wait", Params: map[string]any{"duration": "2h"}},
		step{ID: "then", Type: "create_card", Params: map[string]any{"projectId": tm.Project.ID, "title": "after the pause"},
			Needs: []string{"pause"}},
	)
	run := b.startRun(t, tm, p)
	job, err := b.River.JobGet(ctx, *run.Steps[0].JobID)
	require.NoError(t, err)
	require.Equal(t, rivertype.JobStateScheduled, job.State)
	require.WithinDuration(t, time.Now().Add(2*time.Hour), job.ScheduledAt, time.Minute)

	cur, err := b.Pipelines.CancelRun(ctx, pipeline.RunRef{WorkspaceID: tm.Owner.Workspace.ID, PipelineID: p.ID,
		RunID: run.Run.ID}, tm.Owner.User.ID)
	require.NoError(t, err)
	require.Equal(t, pipeline.RunCancelled, cur.Run.Status)
	require.NotNil(t, cur.Run.CancelledAt)
	require.Equal(t, map[string]string{"pause": pipeline.StepCancelled, "then": pipeline.StepCancelled}, statuses(cur))
	job, err = b.River.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, rivertype.JobStateCancelled, job.State)
	// Working the job anyway (it was already taken by a worker) changes nothing.
	workNew(t, b, &PipelineStepWorker{deps: b.deps}, jobs.PipelineStepArgs{RunID: run.Run.ID, StepID: "pause"}, nil)
	require.Equal(t, pipeline.RunCancelled, b.getRun(t, tm, run).Run.Status)
	require.Zero(t, b.Count(t, `SELECT count(*) FROM cards WHERE title = 'after the pause'`))

	_, err = b.Pipelines.CancelRun(ctx, pipeline.RunRef{WorkspaceID: tm.Owner.Workspace.ID, PipelineID: p.ID,
		RunID: run.Run.ID}, tm.Owner.User.ID)
	require.ErrorIs(t, err, db.ErrConflict)
}

func TestPipelineCancelWhileRunning(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	events := b.startWorker(t, Config{})
	ctx := context.Background()
	p := b.pipeline(t, tm,
		step{ID: "first", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "one"}},
		step{ID: "pause", Type: "wait", Params: map[string]any{"duration": "1m"}, Needs: []string{"first"}},
		step{ID: "last", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "two"},
			Needs: []string{"pause"}},
	)
	run := b.startRun(t, tm, p)
	for statuses(b.getRun(t, tm, run))["pause"] != pipeline.StepQueued {
		waitJob(t, events, jobs.PipelineStepArgs{}.Kind())
	}
	cur, err := b.Pipelines.CancelRun(ctx, pipeline.RunRef{WorkspaceID: tm.Owner.Workspace.ID, PipelineID: p.ID,
		RunID: run.Run.ID}, tm.Owner.User.ID)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"first": pipeline.StepCompleted, "pause": pipeline.StepCancelled,
		"last": pipeline.StepCancelled}, statuses(cur))
	require.Zero(t, b.Count(t, `SELECT count(*) FROM activities WHERE meta->>'message' = 'two'`))
}

func TestPipelineWaitsForItsMission(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	events := b.startWorker(t, Config{})
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("helper"),
		Name: testfactory.Ptr("helper"), AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	p := b.pipeline(t, tm,
		step{ID: "make", Type: "create_card", Params: map[string]any{"projectId": tm.Project.ID, "title": "Fix the outage",
			"description": "- Find the failing node\n- Restart the service"}},
		step{ID: "agent", Type: "run_agent_mission", Params: map[string]any{"agentId": agent.ID,
			"cardId": "{{steps.make.cardId}}", "objective": "Plan this card"}, Needs: []string{"make"}},
		step{ID: "done", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID,
			"message": "mission {{steps.agent.missionId}} {{steps.agent.status}}"}, Needs: []string{"agent"}},
	)
	cur := b.waitRun(t, tm, events, b.startRun(t, tm, p))
	require.Equal(t, pipeline.RunCompleted, cur.Run.Status, "%v %v", statuses(cur), cur.Run.Error)
	out := output(t, cur, "agent")
	require.EqualValues(t, db.MissionCompleted, out["status"])
	m := b.getMission(t, tm, out["missionId"].(string))
	require.EqualValues(t, db.MissionCompleted, m.Status)
	require.Equal(t, output(t, cur, "make")["cardId"], *m.CardID)
	require.Equal(t, mission.MissionSourcePipeline, m.Source)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM activities WHERE meta->>'message' = $1`,
		"mission "+m.ID+" completed"))
}

func TestPipelineMissionFailureFailsTheStep(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("helper"),
		Name: testfactory.Ptr("helper"), AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	p := b.pipeline(t, tm,
		step{ID: "agent", Type: "run_agent_mission", Params: map[string]any{"agentId": agent.ID, "objective": "Think"}},
		step{ID: "after", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "never"},
			Needs: []string{"agent"}},
	)
	run := b.startRun(t, tm, p)
	b.drain(t, jobs.PipelineStepArgs{}.Kind())
	cur := b.getRun(t, tm, run)
	require.Equal(t, pipeline.StepWaiting, statuses(cur)["agent"])
	missionID := output(t, cur, "agent")["missionId"].(string)
	// The step's job is done: no worker slot is held while the mission runs.
	require.Zero(t, b.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_step' AND state <> 'completed'`))

	_, err := b.Missions.CancelMission(context.Background(), db.RecordEdit{WorkspaceID: tm.Owner.Workspace.ID,
		ID: missionID, ActorID: tm.Owner.User.ID})
	require.NoError(t, err)
	cur = b.getRun(t, tm, run)
	require.Equal(t, pipeline.RunFailed, cur.Run.Status)
	require.Equal(t, map[string]string{"agent": pipeline.StepFailed, "after": pipeline.StepSkipped}, statuses(cur))
	require.Contains(t, *cur.Run.Error, "the mission was stopped")
}

func TestPipelinePluginSteps(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	ctx := context.Background()
	ws := tm.Owner.Workspace.ID
	card := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Something for the " +
		"owner"), Actor: &tm.Member}) // the owner has an unread notification
	b.drain(t)

	steps := []step{
		{ID: "make", Type: "create_card", Params: map[string]any{"projectId": tm.Project.ID, "title": "Triage {{run.id}}"}},
		{ID: "say", Type: "add_comment", Params: map[string]any{"projectId": tm.Project.ID, "cardId": "{{steps.make.cardId}}",
			"content": "made by {{pipeline.name}}"}, Needs: []string{"make"}}, {ID: "move", Type: "move_card",
			Params: map[string]any{"projectId": tm.Project.ID, "cardId": "{{steps.make.cardId}}",
				"columnId": tm.Project.Columns[2]}, Needs: []string{"say"}}, {ID: "digest", Type: "email_digest",
			Params: map[string]any{"subject": "Digest of {{date}}"}, Needs: []string{"move"}},
	}
	_, err := b.Pipelines.CreatePipeline(ctx, ws, tm.Owner.User.ID, pipeline.NewPipeline{Name: "Plugins", Steps: jsonOf(t,
		steps), Enabled: true})
	require.ErrorIs(t, err, db.ErrInvalid, "plugin step types need their plugins")

	_, err = b.Store.InstallPlugin(ctx, db.PluginInstall{WorkspaceID: ws, PluginID: "card-actions",
		ActorID: tm.Owner.User.ID, Settings: jsonOf(t, map[string]any{"commentPrefix": "[bot]"})})
	require.NoError(t, err)
	_, err = b.Store.InstallPlugin(ctx, db.PluginInstall{WorkspaceID: ws, PluginID: "email-digest",
		ActorID: tm.Owner.User.ID, Settings: jsonOf(t, map[string]any{"subjectPrefix": "[Pilot]", "maxItems": 5})})
	require.NoError(t, err)
	p := b.pipeline(t, tm, steps...)
	run := b.startRun(t, tm, p)
	b.drain(t)
	cur := b.getRun(t, tm, run)
	require.Equal(t, pipeline.RunCompleted, cur.Run.Status, "%v %v", statuses(cur), cur.Run.Error)

	made := b.getCard(t, tm, output(t, cur, "make")["cardId"].(string))
	require.Equal(t, tm.Project.Columns[2], made.ColumnID, "moved by move_card")
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM comments WHERE card_id = $1 AND content = '[bot] made by Test'`,
		made.ID))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_moved'`, made.ID))
	// The digest went out through the e-mail job (to the outbox, with no SMTP): one per member with unread notifications.
	require.Equal(t, float64(2), output(t, cur, "digest")["sent"])
	var subject, body string
	require.NoError(t, b.Pool.QueryRow(ctx,
		`SELECT subject, body FROM email_outbox WHERE to_address = $1 AND kind = 'pipeline_digest'`,
		tm.Owner.User.Email).Scan(&subject, &body))
	require.Equal(t, "[Pilot] Digest of "+time.Now().UTC().Format("2006-01-02"), subject)
	require.Contains(t, body, card.Title)

	// Uninstalled, the pipeline that uses its step type no longer starts.
	require.NoError(t, b.Store.UninstallPlugin(ctx, ws, "email-digest"))
	_, err = b.Pipelines.StartRun(ctx, db.RecordEdit{WorkspaceID: ws, ID: p.ID, ActorID: tm.Owner.User.ID})
	require.ErrorIs(t, err, db.ErrInvalid)
}

// draft creates a project draft of the team's workspace (a data migration, for the offline planner).
func (b *testBundle) draft(t *testing.T, tm testfactory.Team, name string) draft.Draft {
	t.Helper()
	d, err := b.Drafts.Create(context.Background(), draft.NewDraft{WorkspaceID: tm.Owner.Workspace.ID,
		ActorID: tm.Owner.User.ID, Name: name, Description: "Migrate the legacy ledger database."})
	require.NoError(t, err)
	return d
}

// A generate_roadmap step starts the draft's roadmap job in its own transaction and waits without
// holding a worker; the roadmap's end completes the step in the draft job's transaction, with the
// roadmap's summary as its output, which a condition and a notify then use.
func TestPipelineGenerateRoadmapWaitsForItsDraft(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	ctx := context.Background()
	d := b.draft(t, tm, "Ledger move")
	p := b.pipeline(t, tm,
		step{ID: "plan", Type: "generate_roadmap", Params: map[string]any{"draftId": d.ID}},
		step{ID: "check", Type: "condition", Params: map[string]any{"step": "plan", "field": "status", "op": "equals",
			"value": "roadmap_ready", "then": []string{"tell"}, "else": []string{"alarm"}}, Needs: []string{"plan"}},
		step{ID: "tell", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID,
			"message": "{{steps.plan.name}}: {{steps.plan.summary}}"}, Needs: []string{"check"}}, step{ID: "alarm",
			Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "no roadmap"},
			Needs: []string{"check"}},
	)
	run := b.startRun(t, tm, p)
	b.drain(t, jobs.PipelineStepArgs{}.Kind())
	cur := b.getRun(t, tm, run)
	require.Equal(t, pipeline.StepWaiting, statuses(cur)["plan"])
	require.Equal(t, map[string]any{"draftId": d.ID}, output(t, cur, "plan"))
	// The step's job is done: no worker slot is held while the draft's job runs.
	require.Zero(t, b.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_step' AND state <> 'completed'`))
	require.Equal(t, draft.DraftGenerating, b.getDraft(t, d).Status)
	evs := b.draftEvents(t, d.ID)
	require.Equal(t, fmt.Sprintf("roadmap generation queued by pipeline %q (run %s)", p.Name, run.Run.ID),
		evs[len(evs)-1].Message)
	res, err := b.River.JobList(ctx,
		river.NewJobListParams().Kinds(jobs.DraftRoadmapArgs{}.Kind()).States(rivertype.JobStateAvailable))
	require.NoError(t, err)
	require.Len(t, res.Jobs, 1)

	// The draft's job completes the step in its transaction and enqueues what follows.
	require.Equal(t, river.EventKindJobCompleted, b.workDraft(t, nil, res.Jobs[0]))
	got := b.getDraft(t, d)
	require.Equal(t, draft.DraftRoadmapReady, got.Status)
	cur = b.getRun(t, tm, run)
	require.Equal(t, pipeline.StepCompleted, statuses(cur)["plan"])
	require.Equal(t, pipeline.StepQueued, statuses(cur)["check"])
	deliverables := 0
	var names []any
	for _, ph := range got.Roadmap.Phases {
		deliverables += len(ph.Deliverables)
		names = append(names, ph.Name)
	}
	summary := fmt.Sprintf("roadmap ready: %d phases, %d deliverables", len(got.Roadmap.Phases), deliverables)
	require.Equal(t, map[string]any{"draftId": d.ID, "status": draft.DraftRoadmapReady, "name": "Ledger move",
		"summary": summary, "phases": float64(len(got.Roadmap.Phases)), "deliverables": float64(deliverables),
		"phaseNames": names}, output(t, cur, "plan"))

	b.drain(t)
	cur = b.getRun(t, tm, run)
	require.Equal(t, pipeline.RunCompleted, cur.Run.Status, "%v", statuses(cur))
	require.Equal(t, map[string]string{"plan": pipeline.StepCompleted, "check": pipeline.StepCompleted,
		"tell": pipeline.StepCompleted, "alarm": pipeline.StepSkipped}, statuses(cur))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM activities WHERE meta->>'message' = $1`, "Ledger move: "+summary))
}

// Through real workers: two drafts, one framing and one refined, planned in parallel steps; the join
// tests a number of the roadmap's output and notifies with both summaries.
func TestPipelineGenerateRoadmapThroughWorkers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	ctx := context.Background()
	events := b.startWorker(t, Config{})
	framing := b.draft(t, tm, "Ledger move")
	refined := b.draft(t, tm, "Archive move")
	_, err := b.Drafts.Refine(ctx, tm.Owner.Workspace.ID, refined.ID, nil)
	require.NoError(t, err)
	waitJob(t, events, jobs.DraftRefineArgs{}.Kind())
	require.Equal(t, draft.DraftRefined, b.getDraft(t, refined).Status)

	p := b.pipeline(t, tm,
		step{ID: "a", Type: "generate_roadmap", Params: map[string]any{"draftId": framing.ID}},
		step{ID: "b", Type: "generate_roadmap", Params: map[string]any{"draftId": refined.ID}},
		step{ID: "check", Type: "condition", Params: map[string]any{"step": "b", "field": "phases", "op": "greater_than",
			"value": 2, "then": []string{"tell"}}, Needs: []string{"a", "b"}},
		step{ID: "tell", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID,
			"message": "{{steps.a.summary}} / {{steps.b.summary}}"}, Needs: []string{"check"}},
	)
	cur := b.waitRun(t, tm, events, b.startRun(t, tm, p))
	require.Equal(t, pipeline.RunCompleted, cur.Run.Status, "%v %v", statuses(cur), cur.Run.Error)
	require.Equal(t, map[string]string{"a": pipeline.StepCompleted, "b": pipeline.StepCompleted,
		"check": pipeline.StepCompleted, "tell": pipeline.StepCompleted}, statuses(cur))
	require.Equal(t, true, output(t, cur, "check")["result"])
	a, bb := output(t, cur, "a"), output(t, cur, "b")
	for _, d := range []draft.Draft{framing, refined} {
		got := b.getDraft(t, d)
		require.Equal(t, draft.DraftRoadmapReady, got.Status)
		require.NotEmpty(t, got.Roadmap.Phases)
	}
	require.Equal(t, draft.DraftRoadmapReady, a["status"])
	require.Equal(t, refined.ID, bb["draftId"])
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM activities WHERE meta->>'message' = $1`,
		a["summary"].(string)+" / "+bb["summary"].(string)))
}

// A draft's roadmap job that fails fails the step and the run, through real workers; so does a draft
// that cannot generate when the step runs (a job already running), and one deleted while the step waits.
func TestPipelineGenerateRoadmapFailures(t *testing.T) {
	t.Parallel()
	t.Run("the draft's job fails", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		tm := testfactory.NewTeam(t, b.Engines)
		fake := newFakeOpenAI(t, func(w http.ResponseWriter, _ *http.Request, n int) {
			streamContent(w, `{"phases": [{"name": "Plan", "goal": `)
		})
		events := b.startWorker(t, Config{LLM: fake.provider(5 * time.Second)})
		d := b.draft(t, tm, "Ledger move")
		p := b.pipeline(t, tm,
			step{ID: "plan", Type: "generate_roadmap", Params: map[string]any{"draftId": d.ID}},
			step{ID: "tell", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "never"},
				Needs: []string{"plan"}},
		)
		cur := b.waitRun(t, tm, events, b.startRun(t, tm, p))
		require.Equal(t, pipeline.RunFailed, cur.Run.Status)
		require.Equal(t, map[string]string{"plan": pipeline.StepFailed, "tell": pipeline.StepSkipped}, statuses(cur))
		require.Contains(t, *cur.Run.Error, "step plan failed: the draft's roadmap failed")
		require.Contains(t, *cur.Run.Error, "unusable output")
		require.Equal(t, draft.DraftFailed, output(t, cur, "plan")["status"])
		b.requireFailed(t, d, "unusable output")
		require.Zero(t, b.Count(t, `SELECT count(*) FROM activities WHERE meta->>'message' = 'never'`))
	})
	t.Run("a job already runs", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		tm := testfactory.NewTeam(t, b.Engines)
		d := b.draft(t, tm, "Ledger move")
		_, err := b.Drafts.GenerateRoadmap(context.Background(), tm.Owner.Workspace.ID, d.ID)
		require.NoError(t, err)
		run := b.startRun(t, tm, b.pipeline(t, tm, step{ID: "plan", Type: "generate_roadmap",
			Params: map[string]any{"draftId": d.ID}}))
		b.drain(t, jobs.PipelineStepArgs{}.Kind())
		cur := b.getRun(t, tm, run)
		require.Equal(t, pipeline.RunFailed, cur.Run.Status)
		require.Contains(t, *cur.Run.Error, "a roadmap job is already running for this draft")
		require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'draft_roadmap'`), "the step's attempt "+
			"rolled back")
	})
	t.Run("the draft is deleted", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		tm := testfactory.NewTeam(t, b.Engines)
		d := b.draft(t, tm, "Ledger move")
		run := b.startRun(t, tm, b.pipeline(t, tm, step{ID: "plan", Type: "generate_roadmap",
			Params: map[string]any{"draftId": d.ID}}))
		b.drain(t, jobs.PipelineStepArgs{}.Kind())
		require.Equal(t, pipeline.StepWaiting, statuses(b.getRun(t, tm, run))["plan"])
		require.NoError(t, b.Drafts.Delete(context.Background(), d.WorkspaceID, d.ID))
		cur := b.getRun(t, tm, run)
		require.Equal(t, pipeline.RunFailed, cur.Run.Status)
		require.Contains(t, *cur.Run.Error, "the draft was deleted")
	})
}

// A pipeline may name only drafts of its workspace: another workspace's draft is refused when the
// pipeline is written, naming the step, as projects and agents are.
func TestPipelineGenerateRoadmapRefusesAnotherWorkspacesDraft(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	other := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("eve@example.com")})
	d, err := b.Drafts.Create(context.Background(), draft.NewDraft{WorkspaceID: other.Workspace.ID, ActorID: other.User.ID,
		Name: "Eve's"})
	require.NoError(t, err)
	for _, id := range []string{d.ID, db.NewID()} {
		_, err = b.Pipelines.CreatePipeline(context.Background(), tm.Owner.Workspace.ID, tm.Owner.User.ID,
			pipeline.NewPipeline{Name: "Test", Steps: jsonOf(t, []step{{ID: "plan", Type: "generate_roadmap",
				Params: map[string]any{"draftId": id}}}), Enabled: true})
		require.ErrorIs(t, err, db.ErrInvalid)
		require.Contains(t, err.Error(), `step "plan": params.draftId names nothing in this workspace`)
	}
}

func TestPipelineCancelCancelsTheMissionItWaitsFor(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	ctx := context.Background()
	agent := testfactory.Agent(t, b.Engines, tm.Owner, &testfactory.AgentOpts{Slug: testfactory.Ptr("helper"),
		Name: testfactory.Ptr("helper"), AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	p := b.pipeline(t, tm,
		step{ID: "agent", Type: "run_agent_mission", Params: map[string]any{"agentId": agent.ID, "objective": "Think"}},
		step{ID: "after", Type: "notify", Params: map[string]any{"projectId": tm.Project.ID, "message": "never"},
			Needs: []string{"agent"}},
	)
	run := b.startRun(t, tm, p)
	b.drain(t, jobs.PipelineStepArgs{}.Kind())
	missionID := output(t, b.getRun(t, tm, run), "agent")["missionId"].(string)

	cur, err := b.Pipelines.CancelRun(ctx, pipeline.RunRef{WorkspaceID: tm.Owner.Workspace.ID, PipelineID: p.ID,
		RunID: run.Run.ID}, tm.Owner.User.ID)
	require.NoError(t, err)
	require.Equal(t, pipeline.RunCancelled, cur.Run.Status, "the mission's cancel leaves the cancelled run alone")
	require.Equal(t, map[string]string{"agent": pipeline.StepCancelled, "after": pipeline.StepCancelled}, statuses(cur))
	m := b.getMission(t, tm, missionID)
	require.EqualValues(t, db.MissionStopped, m.Status)
	require.NotNil(t, m.CancelledAt)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM stream_events WHERE stream_id = $1 AND type = 'done'`,
		run.Run.ID))
}

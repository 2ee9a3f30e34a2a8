package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// A run starts with every step pending but those that need nothing, queued with their jobs (a wait
// step's scheduled for the end of its wait), and a status event; a disabled pipeline is a conflict and
// another workspace's is not found, and neither writes anything.
func TestStartRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pid := e.team.Project.ID
	p := e.pipeline(t, notify("a", pid), step{ID: "w", Type: "wait", Params: map[string]any{"duration": "1h"}},
		notify("b", pid, "a"), notify("c", pid, "a", "w"))

	_, err := e.engine.StartRun(ctx, db.RecordEdit{WorkspaceID: e.team.Member.Workspace.ID, ID: p.ID,
		ActorID: e.team.Member.User.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.UpdatePipeline(ctx, e.ws(), p.ID,
		func(n pipeline.NewPipeline) pipeline.NewPipeline { n.Enabled = false; return n })
	require.NoError(t, err)
	_, err = e.engine.StartRun(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: p.ID, ActorID: e.owner()})
	require.ErrorIs(t, err, db.ErrConflict)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM pipeline_runs`))
	require.Empty(t, e.Jobs(t, jobs.PipelineStepArgs{}.Kind()))
	_, err = e.engine.UpdatePipeline(ctx, e.ws(), p.ID,
		func(n pipeline.NewPipeline) pipeline.NewPipeline { n.Enabled = true; return n })
	require.NoError(t, err)

	r := e.start(t, p)
	require.Equal(t, pipeline.RunRunning, r.Run.Status)
	require.Equal(t, "Release", r.Run.PipelineName)
	require.Equal(t, e.owner(), r.Run.StartedBy)
	require.Equal(t, map[string]string{"a": "queued", "w": "queued", "b": "pending", "c": "pending"}, statuses(r))
	js := e.Jobs(t, jobs.PipelineStepArgs{}.Kind())
	require.Len(t, js, 2)
	byStep := map[string]testfactory.Job{}
	for _, j := range js {
		require.Equal(t, r.Run.ID, j.Args["runId"])
		require.Equal(t, jobs.QueueDefault, j.Queue)
		require.Equal(t, pipeline.PipelineStepMaxAttempts, j.MaxAttempts)
		byStep[j.Args["stepId"].(string)] = j
	}
	require.Equal(t, "available", byStep["a"].State)
	require.Equal(t, "scheduled", byStep["w"].State)
	require.WithinDuration(t, time.Now().Add(time.Hour), byStep["w"].ScheduledAt, time.Minute)
	require.Equal(t, testfactory.Ptr(byStep["a"].ID), stepOf(t, e.read(t, r), "a").JobID)
	require.Equal(t, []string{"status:running"}, e.Events(t, r.Run.ID))
}

// Runs are read within their pipeline and workspace; lists are newest first.
func TestRunReadsStayInTheirPipeline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	p := e.pipeline(t, notify("a", e.team.Project.ID))
	p2 := e.pipeline(t, notify("a", e.team.Project.ID))
	first := e.start(t, p)
	second := e.start(t, p)

	page, err := e.engine.Runs(ctx, e.ws(), p.ID, db.Page{Limit: 10})
	require.NoError(t, err)
	runs := page.Items
	require.Len(t, runs, 2)
	require.Equal(t, second.Run.ID, runs[0].Run.ID)
	require.Equal(t, first.Run.ID, runs[1].Run.ID)
	require.Len(t, runs[0].Steps, 1)
	_, err = e.engine.Runs(ctx, e.team.Member.Workspace.ID, p.ID, db.Page{Limit: 10})
	require.ErrorIs(t, err, db.ErrNotFound)

	for name, r := range map[string]pipeline.RunRef{
		"another workspace": {WorkspaceID: e.team.Member.Workspace.ID, PipelineID: p.ID, RunID: first.Run.ID},
		"another pipeline":  {WorkspaceID: e.ws(), PipelineID: p2.ID, RunID: first.Run.ID},
		"no run":            {WorkspaceID: e.ws(), PipelineID: p.ID, RunID: db.NewID()},
	} {
		_, err := e.engine.Run(ctx, r)
		require.ErrorIs(t, err, db.ErrNotFound, name)
		require.ErrorIs(t, e.engine.RunStream(ctx, r), db.ErrNotFound, name)
		_, err = e.engine.CancelRun(ctx, r, e.owner())
		require.ErrorIs(t, err, db.ErrNotFound, name)
	}
	require.NoError(t, e.engine.RunStream(ctx, ref(first)))
	require.Equal(t, pipeline.RunRunning, e.read(t, first).Run.Status, "refused cancels change nothing")
}

// Cancelling a run cancels it, its unfinished steps and their jobs, and ends its stream; a second cancel
// is a conflict, and a step's job that runs afterwards does nothing.
func TestCancelRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pid := e.team.Project.ID
	r := e.start(t, e.pipeline(t, notify("a", pid), notify("b", pid, "a")))
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "a"))

	c, err := e.engine.CancelRun(ctx, ref(r), e.owner())
	require.NoError(t, err)
	require.Equal(t, pipeline.RunCancelled, c.Run.Status)
	require.NotNil(t, c.Run.CancelledAt)
	require.Equal(t, map[string]string{"a": "completed", "b": "cancelled"}, statuses(c))
	for _, j := range e.Jobs(t, jobs.PipelineStepArgs{}.Kind()) {
		if j.Args["stepId"] == "b" {
			require.Equal(t, "cancelled", j.State)
		}
	}
	evs := e.Events(t, r.Run.ID)
	require.Equal(t, "done:cancelled", evs[len(evs)-1])
	_, data := e.LastEvent(t, r.Run.ID)
	require.Equal(t, e.owner(), data["cancelledBy"])
	// The run's end is an event of the workspace's feed.
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM activities
		WHERE type = $1 AND meta->>'runId' = $2 AND meta->>'status' = 'cancelled'
		AND workspace_id IS NOT NULL`, db.ActivityPipelineRunFinished, r.Run.ID))

	_, err = e.engine.CancelRun(ctx, ref(r), e.owner())
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "already cancelled")

	activities := e.Count(t, `SELECT count(*) FROM activities WHERE type = $1`, pipeline.ActivityPipelineNotice)
	require.NoError(t, e.engine.RunStep(ctx, r.Run.ID, "b"), "a cancelled step's job finds nothing to do")
	require.Equal(t, activities, e.Count(t, `SELECT count(*) FROM activities WHERE type = $1`,
		pipeline.ActivityPipelineNotice))
	require.EqualValues(t, "cancelled", stepOf(t, e.read(t, r), "b").Status)
}

// A run checks its graph again when it starts: a plugin step type whose plugin was uninstalled since
// is refused.
func TestStartRunRevalidates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	_, err := e.Store.InstallPlugin(ctx, db.PluginInstall{WorkspaceID: e.ws(), PluginID: "email-digest",
		ActorID: e.owner(), Settings: jsonOf(t, map[string]any{"subjectPrefix": "[Pilot]", "maxItems": 5})})
	require.NoError(t, err)
	p := e.pipeline(t, step{ID: "mail", Type: "email_digest"})
	require.NoError(t, e.Store.UninstallPlugin(ctx, e.ws(), "email-digest"))
	_, err = e.engine.StartRun(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: p.ID, ActorID: e.owner()})
	require.ErrorIs(t, err, db.ErrInvalid)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM pipeline_runs`))
	rivertest.RequireNotInserted(ctx, t, riverpgxv5.New(e.Pool), &jobs.PipelineStepArgs{}, nil)
}

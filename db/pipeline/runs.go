package pipeline

// This file holds pipeline runs as records: starting a run (its steps, and the jobs of the steps that
// need nothing, in one transaction), reading and listing runs with their steps, and cancelling a run.
// What a worker does with a step is in pipeline_steps.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/stepgraph"
	"github.com/pilot-dev/pilot/jobs"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Pipeline run statuses.
const (
	RunRunning   = "running"
	RunCompleted = "completed"
	RunFailed    = "failed"
	RunCancelled = "cancelled"
)

// Step statuses: pending (waits for its needs) -> queued (its job is enqueued) -> running (a worker
// took it) -> completed or failed; waiting (its mission or draft is under way) in between for steps
// that wait; skipped (a branch not taken, a need skipped, or the run failed) and cancelled (the run was).
const (
	StepPending   = "pending"
	StepQueued    = "queued"
	StepRunning   = "running"
	StepWaiting   = "waiting"
	StepCompleted = "completed"
	StepFailed    = "failed"
	StepSkipped   = "skipped"
	StepCancelled = "cancelled"
)

// PipelineStepMaxAttempts is how many times River tries a step's job. The step key makes a retry repeat
// nothing; the last attempt's failure fails the step.
const PipelineStepMaxAttempts = 5

// RunWithSteps is a run and the status of each of its steps.
type RunWithSteps struct {
	Run   db.PipelineRun
	Steps []db.PipelineRunStep
}

// StartRun starts a run of an enabled pipeline (a disabled one is a conflict): the run, its
// steps (pending) and the jobs of the steps that need nothing, in one transaction. The graph is
// validated again, so a step type whose plugin was uninstalled since is refused.
func (e *Engine) StartRun(ctx context.Context, r db.RecordEdit) (RunWithSteps, error) {
	workspaceID, pipelineID, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out RunWithSteps
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		p, err := q.PipelineGetForShare(ctx, dbsqlc.PipelineGetForShareParams{ID: pipelineID, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("pipeline not found")
		}
		if err != nil {
			return fmt.Errorf("get pipeline: %w", err)
		}
		if !p.Enabled {
			return dbcore.Conflict("the pipeline is disabled; enable it (PATCH enabled: true) to run it")
		}
		_, steps, err := e.validateSteps(ctx, q, workspaceID, p.Steps)
		if err != nil {
			return err
		}
		run, err := q.PipelineRunInsert(ctx, dbsqlc.PipelineRunInsertParams{ID: db.NewID(), PipelineID: p.ID,
			WorkspaceID: workspaceID, PipelineName: p.Name, StartedBy: actorID})
		if err != nil {
			return fmt.Errorf("insert run: %w", err)
		}
		in := dbsqlc.PipelineRunStepsInsertParams{RunID: run.ID}
		for i, st := range steps {
			needs, err := json.Marshal(st.Needs)
			if err != nil {
				return fmt.Errorf("encode needs: %w", err)
			}
			in.StepIds, in.Positions, in.Types = append(in.StepIds, st.ID), append(in.Positions, int32(i)), append(in.Types,
				st.Type)
			in.Params, in.Needs = append(in.Params, st.Params), append(in.Needs, needs)
		}
		if err := q.PipelineRunStepsInsert(ctx, in); err != nil {
			return fmt.Errorf("insert run steps: %w", err)
		}
		rows, err := q.PipelineRunStepList(ctx, run.ID)
		if err != nil {
			return fmt.Errorf("list run steps: %w", err)
		}
		runSteps := dbcore.MapRows(rows, func(r dbsqlc.PipelineRunStep) db.PipelineRunStep { return db.PipelineRunStep(r) })
		var ready []*db.PipelineRunStep
		for i := range runSteps {
			if len(runSteps[i].Needs) == 0 {
				ready = append(ready, &runSteps[i])
			}
		}
		if err := e.queueSteps(ctx, tx, q, run.ID, ready); err != nil {
			return err
		}
		if err := e.appendRunEventTx(ctx, tx, db.PipelineRun(run), runEvent{Type: RunEventStatus, Status: RunRunning,
			Message: "run started"}); err != nil {
			return err
		}
		out = RunWithSteps{Run: db.PipelineRun(run), Steps: runSteps}
		return nil
	})
	return out, err
}

// queueSteps moves steps to queued and enqueues their jobs in tx; a wait step's job is scheduled for
// the end of its wait, so no worker holds it meanwhile.
func (e *Runner) queueSteps(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, runID string,
	steps []*db.PipelineRunStep) error {
	if len(steps) == 0 {
		return nil
	}
	ids := make([]string, len(steps))
	params := make([]river.InsertManyParams, len(steps))
	for i, st := range steps {
		ids[i] = st.StepID
		st.Status = StepQueued
		opts := &river.InsertOpts{Queue: jobs.QueueDefault, MaxAttempts: PipelineStepMaxAttempts}
		if st.Type == stepgraph.TypeWait {
			var p stepgraph.WaitParams
			_ = json.Unmarshal(st.Params, &p)
			if d, err := stepgraph.ParseWait(p.Duration); err == nil {
				opts.ScheduledAt = time.Now().Add(d)
			}
		}
		params[i] = river.InsertManyParams{Args: jobs.PipelineStepArgs{RunID: runID, StepID: st.StepID}, InsertOpts: opts}
	}
	res, err := e.core.River.InsertManyTx(ctx, tx, params)
	if err != nil {
		return fmt.Errorf("enqueue steps: %w", err)
	}
	// Each result names its step in its args (no reliance on the order of the results).
	jobIDs := make([]int64, len(res))
	for i, r := range res {
		var a jobs.PipelineStepArgs
		if err := json.Unmarshal(r.Job.EncodedArgs, &a); err != nil {
			return fmt.Errorf("decode step job: %w", err)
		}
		ids[i], jobIDs[i] = a.StepID, r.Job.ID
		for _, st := range steps {
			if st.StepID == a.StepID {
				st.JobID = &jobIDs[i]
			}
		}
	}
	if err := q.PipelineRunStepsQueue(ctx, dbsqlc.PipelineRunStepsQueueParams{RunID: runID, StepIds: ids,
		JobIds: jobIDs}); err != nil {
		return fmt.Errorf("queue steps: %w", err)
	}
	return nil
}

// Runs is one page of a pipeline's runs, newest first, with their steps.
func (e *Engine) Runs(ctx context.Context, workspaceID, pipelineID string, p db.Page) (db.Paged[RunWithSteps], error) {
	k, err := p.AfterTime("runs", true)
	if err != nil {
		return db.Paged[RunWithSteps]{}, err
	}
	if _, err := e.Pipeline(ctx, workspaceID, pipelineID); err != nil {
		return db.Paged[RunWithSteps]{}, err
	}
	var out []RunWithSteps
	err = e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		runs, err := q.PipelineRunListByPipeline(ctx, dbsqlc.PipelineRunListByPipelineParams{PipelineID: pipelineID,
			BeforeAt: k.At, BeforeID: k.ID, Lim: p.Fetch()})
		if err != nil {
			return fmt.Errorf("list runs: %w", err)
		}
		ids := make([]string, len(runs))
		for i, r := range runs {
			ids[i] = r.ID
		}
		steps, err := q.PipelineRunStepListByRuns(ctx, ids)
		if err != nil {
			return fmt.Errorf("list run steps: %w", err)
		}
		byRun := map[string][]db.PipelineRunStep{}
		for _, st := range steps {
			byRun[st.RunID] = append(byRun[st.RunID], db.PipelineRunStep(st))
		}
		out = make([]RunWithSteps, len(runs))
		for i, r := range runs {
			out[i] = RunWithSteps{Run: db.PipelineRun(r), Steps: byRun[r.ID]}
		}
		return nil
	})
	if err != nil {
		return db.Paged[RunWithSteps]{}, err
	}
	return db.PageOf(p, "runs", out, func(r RunWithSteps) any { return db.TimeKey{At: r.Run.CreatedAt, ID: r.Run.ID} }),
		nil
}

// Run reads a run of a pipeline of the workspace with its steps.
func (e *Engine) Run(ctx context.Context, r RunRef) (RunWithSteps, error) {
	workspaceID, pipelineID, runID := r.WorkspaceID, r.PipelineID, r.RunID
	var out RunWithSteps
	err := e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		run, err := q.PipelineRunGet(ctx, dbsqlc.PipelineRunGetParams{ID: runID, PipelineID: pipelineID,
			WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("run not found")
		}
		if err != nil {
			return fmt.Errorf("get run: %w", err)
		}
		steps, err := q.PipelineRunStepList(ctx, run.ID)
		if err != nil {
			return fmt.Errorf("list run steps: %w", err)
		}
		out = RunWithSteps{Run: db.PipelineRun(run), Steps: dbcore.MapRows(steps,
			func(r dbsqlc.PipelineRunStep) db.PipelineRunStep { return db.PipelineRunStep(r) })}
		return nil
	})
	return out, err
}

// CancelRun stops a running run: cancelled, its unfinished steps cancelled and their jobs
// cancelled (a running step's context ends, and its work rolls back), in one transaction; then the
// missions its steps wait for are cancelled too. A finished run is a conflict.
func (e *Engine) CancelRun(ctx context.Context, r RunRef, actorID string) (RunWithSteps, error) {
	workspaceID, pipelineID, runID := r.WorkspaceID, r.PipelineID, r.RunID
	var missions []db.RecordEdit
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		run, err := q.PipelineRunGet(ctx, dbsqlc.PipelineRunGetParams{ID: runID, PipelineID: pipelineID,
			WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("run not found")
		}
		if err != nil {
			return fmt.Errorf("get run: %w", err)
		}
		if _, err := q.PipelineRunGetForUpdate(ctx, run.ID); err != nil {
			return fmt.Errorf("lock run: %w", err)
		}
		missions, err = e.cancelRunTx(ctx, tx, q, run.ID, runEvent{Message: "run cancelled",
			Data: map[string]any{"cancelledBy": actorID}}, actorID)
		return err
	})
	if err != nil {
		return RunWithSteps{}, err
	}
	if err := e.CancelMissions(ctx, missions); err != nil {
		return RunWithSteps{}, err
	}
	return e.Run(ctx, RunRef{WorkspaceID: workspaceID, PipelineID: pipelineID, RunID: runID})
}

// RunsOf names the runs a user started in some workspaces, and who cancels them.
type RunsOf struct {
	WorkspaceIDs       []string
	StarterID, ActorID string
}

// CancelRunsStartedByTx cancels, in the caller's transaction, every running run r.StarterID started in
// r.WorkspaceIDs, as CancelRun does each (a member who leaves those workspaces: their runs must not go
// on acting in their name). It answers the missions the runs' steps were waiting for: the caller
// cancels them with CancelMissions once its transaction has committed. Card locks the caller took
// before are fine (a step takes a card's lock, then its run's); a mission's are not.
func (e *Engine) CancelRunsStartedByTx(ctx context.Context, tx pgx.Tx, r RunsOf) ([]db.RecordEdit, error) {
	q := dbcore.Queries(tx)
	runs, err := q.PipelineRunListRunningByStarter(ctx,
		dbsqlc.PipelineRunListRunningByStarterParams{StartedBy: r.StarterID, WorkspaceIds: r.WorkspaceIDs})
	if err != nil {
		return nil, fmt.Errorf("list the runs started by the user: %w", err)
	}
	var missions []db.RecordEdit
	for _, run := range runs {
		m, err := e.cancelRunTx(ctx, tx, q, run.ID, runEvent{Message: "run cancelled: its starter left the workspace",
			Data: map[string]any{"cancelledBy": r.ActorID, "reason": "starter_left"}}, r.ActorID)
		if err != nil {
			return nil, err
		}
		missions = append(missions, m...)
	}
	return missions, nil
}

// cancelRunTx cancels a run whose row tx has locked: the guarded running -> cancelled move, its
// unfinished steps cancelled with their jobs, and the done event ev (its type and status filled in).
// It answers the missions the stopped steps were waiting for, which the caller cancels after the commit.
func (e *Engine) cancelRunTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, runID string, ev runEvent,
	actorID string) ([]db.RecordEdit, error) {
	run, err := q.PipelineRunFinish(ctx, dbsqlc.PipelineRunFinishParams{ID: runID, Status: RunCancelled})
	if dbcore.IsNotFound(err) {
		cur, _ := q.PipelineRunGetForUpdate(ctx, runID)
		return nil, dbcore.Conflict(fmt.Sprintf("the run is already %s", cur.Status))
	}
	if err != nil {
		return nil, fmt.Errorf("cancel run: %w", err)
	}
	stopped, err := q.PipelineRunStepsStopAll(ctx, dbsqlc.PipelineRunStepsStopAllParams{RunID: run.ID,
		Status: StepCancelled})
	if err != nil {
		return nil, fmt.Errorf("cancel steps: %w", err)
	}
	if err := e.cancelStepJobs(ctx, tx, dbcore.MapRows(stopped,
		func(r dbsqlc.PipelineRunStep) db.PipelineRunStep { return db.PipelineRunStep(r) })); err != nil {
		return nil, err
	}
	var missions []db.RecordEdit
	for _, st := range stopped {
		if st.WaitRef != nil {
			if id, ok := strings.CutPrefix(*st.WaitRef, "mission:"); ok {
				missions = append(missions, db.RecordEdit{WorkspaceID: run.WorkspaceID, ID: id, ActorID: actorID})
			}
		}
	}
	ev.Type, ev.Status = RunEventDone, RunCancelled
	return missions, e.appendRunEventTx(ctx, tx, db.PipelineRun(run), ev)
}

// CancelMissions cancels the missions cancelled runs' steps were waiting for (CancelRun,
// CancelRunsStartedByTx). Apart, after the runs' cancel committed: a mission's cancel locks the mission,
// then (through missionSettledTx) the run, the order every mission completion takes; it finds the run
// cancelled and leaves it alone. A mission already over is left as it is.
func (e *Engine) CancelMissions(ctx context.Context, missions []db.RecordEdit) error {
	for _, m := range missions {
		if _, err := e.missions.CancelMission(ctx, m); err != nil && !errors.Is(err, db.ErrConflict) && !errors.Is(err,
			db.ErrNotFound) {
			return err
		}
	}
	return nil
}

// cancelStepJobs cancels the River jobs of stopped steps (a finished job is left as it is).
func (e *Runner) cancelStepJobs(ctx context.Context, tx pgx.Tx, stopped []db.PipelineRunStep) error {
	for _, st := range stopped {
		if st.JobID == nil {
			continue
		}
		if _, err := e.core.River.JobCancelTx(ctx, tx, *st.JobID); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
			return fmt.Errorf("cancel step job: %w", err)
		}
	}
	return nil
}

// StreamRun is the stream kind of pipeline runs: a run's events carry its id as "runId" and the run's
// status; a run is final once completed, failed or cancelled.
var StreamRun = db.StreamKind{Name: "run", Final: []string{RunCompleted, RunFailed, RunCancelled}}

// Pipeline run event types (the SSE `event` names): status (the run started), step (a step moved:
// waiting, completed, failed; the step's own status is data.status, the event's status the run's) and
// done (the run completed, failed or was cancelled: a final status, which ends the stream).
const (
	RunEventStatus = "status"
	RunEventStep   = "step"
	RunEventDone   = "done"
)

// runEvent is one event of a run's progress stream.
type runEvent struct {
	Type, Status, Message string
	Data                  map[string]any
}

// appendRunEventTx appends an event to the run's stream in tx (the transaction of the change it
// reports); its status is the run's, so the done event's final status ends the stream.
func (e *Runner) appendRunEventTx(ctx context.Context, tx pgx.Tx, run db.PipelineRun, ev runEvent) error {
	_, err := e.store.AppendStreamEventTx(ctx, tx, StreamRun, run.ID, db.NewStreamEvent{Type: ev.Type, Status: ev.Status,
		Message: ev.Message, Data: ev.Data})
	if err != nil || ev.Type != RunEventDone {
		return err
	}
	// A run's end (completed, failed or cancelled) is its done event: the workspace's feed hears of it here.
	return e.core.RecordQuietActivities(ctx, tx, db.Activity{WorkspaceID: run.WorkspaceID, ActorID: run.StartedBy,
		Type: db.ActivityPipelineRunFinished, Meta: map[string]any{"runId": run.ID, "pipelineId": run.PipelineID,
			"pipelineName": run.PipelineName, "status": ev.Status}})
}

// RunStream reads what serving a run's stream needs: nil when the run is of that pipeline of the
// workspace, else ErrNotFound.
func (e *Engine) RunStream(ctx context.Context, r RunRef) error {
	workspaceID, pipelineID, runID := r.WorkspaceID, r.PipelineID, r.RunID
	_, err := e.core.Q.PipelineRunGet(ctx, dbsqlc.PipelineRunGetParams{ID: runID, PipelineID: pipelineID,
		WorkspaceID: workspaceID})
	if dbcore.IsNotFound(err) {
		return dbcore.NotFound("run not found")
	}
	return dbcore.Wrap(err, "get run")
}

// RunRef names a run of a workspace's pipeline.
type RunRef struct{ WorkspaceID, PipelineID, RunID string }

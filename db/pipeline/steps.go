package pipeline

// This file is the pipeline step executor: what a worker does with a step's job. A step's effect (a
// card, a notification, a mission started…) and its completion commit in one transaction, under the
// run's row lock and guarded by the step's status, so a step is done once however often its job runs
// (a retry, a job rescued from a killed worker). The completion that finishes the last need of a step
// enqueues that step's job in the same transaction.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/stepgraph"
	"github.com/pilot-dev/pilot/jobs"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// ActivityPipelineNotice is the activity a notify step records; its notifications reach every
// workspace member but the run's starter.
const ActivityPipelineNotice = db.ActivityPipelineNotice

// errStepSettled rolls a step's transaction back: the step or its run was finished meanwhile (by an
// earlier attempt, a failure elsewhere, a cancel), so nothing may be done again.
var errStepSettled = errors.New("pipeline step already settled")

// stepDone is what became of a step's work.
type stepDone struct {
	output map[string]any
	// waitRef, when set, leaves the step waiting for it ("mission:<id>", "draft:<id>").
	waitRef string
}

// RunStep works one step of a run. It answers nil when the step is done, failed (a refusal:
// the run fails), waiting, or had nothing left to do; an error is transient (River retries the job).
func (e *Engine) RunStep(ctx context.Context, runID, stepID string) error {
	if _, err := e.core.Q.PipelineRunStepStart(ctx, dbsqlc.PipelineRunStepStartParams{RunID: runID,
		StepID: stepID}); dbcore.IsNotFound(err) {
		return nil // done, skipped or cancelled meanwhile, or the run was deleted
	} else if err != nil {
		return fmt.Errorf("start step: %w", err)
	}
	for range 5 {
		err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error { return e.runStepTx(ctx, tx, q, runID, stepID) })
		if errors.Is(err, errStepSettled) {
			return nil
		}
		if !errors.Is(err, board.ErrRetryMove) {
			return err
		}
	}
	return dbcore.Conflict("the card is being moved by someone else; try again")
}

// FailStep fails a step whose job gave up (its last attempt met a transient error each time).
func (e *Engine) FailStep(ctx context.Context, runID, stepID, errText string) error {
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		run, steps, st, err := lockStep(ctx, q, runID, stepID)
		if err != nil {
			return err
		}
		return e.finishStepTx(ctx, tx, q, run, steps, st, StepFailed, nil, errText)
	})
	if errors.Is(err, errStepSettled) {
		return nil
	}
	return err
}

// lockStep locks a running run and reads its steps; errStepSettled when the run or the step is over.
func lockStep(ctx context.Context, q *dbsqlc.Queries, runID,
	stepID string) (db.PipelineRun, []db.PipelineRunStep, *db.PipelineRunStep, error) {
	return readStep(ctx, q, runID, stepID, true)
}

// readStep is lockStep, without the lock when lock is false.
func readStep(ctx context.Context, q *dbsqlc.Queries, runID, stepID string,
	lock bool) (db.PipelineRun, []db.PipelineRunStep, *db.PipelineRunStep, error) {
	get := q.PipelineRunGetByID
	if lock {
		get = q.PipelineRunGetForUpdate
	}
	run, err := get(ctx, runID)
	if dbcore.IsNotFound(err) {
		return db.PipelineRun(run), nil, nil, errStepSettled
	}
	if err != nil {
		return db.PipelineRun(run), nil, nil, fmt.Errorf("lock run: %w", err)
	}
	if run.Status != RunRunning {
		return db.PipelineRun(run), nil, nil, errStepSettled
	}
	rows, err := q.PipelineRunStepList(ctx, runID)
	if err != nil {
		return db.PipelineRun(run), nil, nil, fmt.Errorf("list run steps: %w", err)
	}
	steps := dbcore.MapRows(rows, func(r dbsqlc.PipelineRunStep) db.PipelineRunStep { return db.PipelineRunStep(r) })
	i := slices.IndexFunc(steps, func(st db.PipelineRunStep) bool { return st.StepID == stepID })
	if i < 0 {
		return db.PipelineRun(run), nil, nil, errStepSettled
	}
	return db.PipelineRun(run), steps, &steps[i], nil
}

// runStepTx does the step's work, then takes the run's lock to record it: the lock, which serialises
// the completions of a run's parallel steps, is held from there to the commit only. Under the lock the
// run and step are read again: a run cancelled or failed meanwhile rolls the work back.
func (e *Engine) runStepTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, runID, stepID string) error {
	run, steps, st, err := readStep(ctx, q, runID, stepID, false)
	if err != nil {
		return err
	}
	if st.Status != StepQueued && st.Status != StepRunning {
		return errStepSettled
	}
	// A savepoint keeps a refused step from spoiling the transaction that records its failure.
	sp, err := tx.Begin(ctx)
	if err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	res, err := e.execStepAsStarter(ctx, sp, run, steps, st)
	var refusal *db.Error
	switch {
	case err == nil:
		if err := sp.Commit(ctx); err != nil {
			return fmt.Errorf("release savepoint: %w", err)
		}
	case errors.As(err, &refusal) && !errors.Is(err, board.ErrRetryMove):
		_ = sp.Rollback(ctx)
	default:
		_ = sp.Rollback(ctx)
		return err
	}
	if run, steps, st, err = lockStep(ctx, q, runID, stepID); err != nil {
		return err
	}
	if st.Status != StepQueued && st.Status != StepRunning {
		return errStepSettled
	}
	if refusal != nil {
		return e.finishStepTx(ctx, tx, q, run, steps, st, StepFailed, nil, refusal.Msg)
	}
	if res.waitRef != "" {
		out, err := json.Marshal(res.output)
		if err != nil {
			return fmt.Errorf("encode step output: %w", err)
		}
		n, err := q.PipelineRunStepWait(ctx, dbsqlc.PipelineRunStepWaitParams{RunID: runID, StepID: stepID, Output: out,
			WaitRef: &res.waitRef})
		if err != nil {
			return fmt.Errorf("step waits: %w", err)
		}
		if n == 0 {
			return errStepSettled
		}
		return e.appendRunEventTx(ctx, tx, run, runEvent{Type: RunEventStep, Status: run.Status,
			Message: "step " + stepID + " waits for " + res.waitRef, Data: map[string]any{"stepId": stepID,
				"status": StepWaiting, "output": res.output}})
	}
	return e.finishStepTx(ctx, tx, q, run, steps, st, StepCompleted, res.output, "")
}

// finishStepTx records a step's end under its run's lock. A failure fails the run and skips every
// step not finished; a completion skips the branch a condition did not take (and the steps that need
// a skipped one), enqueues the steps whose needs are now all completed, and completes the run when
// nothing is left. errStepSettled when an earlier attempt recorded the step already.
func (e *Runner) finishStepTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, run db.PipelineRun,
	steps []db.PipelineRunStep, st *db.PipelineRunStep, status string, output map[string]any, errText string) error {
	if err := e.recordStepEndTx(ctx, tx, q, run, st, status, output, errText); err != nil {
		return err
	}
	if status == StepFailed {
		return e.failRunTx(ctx, tx, q, run, st.StepID, errText)
	}
	skipped, ready := nextSteps(steps, st, output)
	if len(skipped) > 0 {
		if err := q.PipelineRunStepsSetStatus(ctx, dbsqlc.PipelineRunStepsSetStatusParams{RunID: run.ID, StepIds: skipped,
			Status: StepSkipped}); err != nil {
			return fmt.Errorf("skip steps: %w", err)
		}
	}
	if err := e.queueSteps(ctx, tx, q, run.ID, ready); err != nil {
		return err
	}
	return e.completeRunIfDoneTx(ctx, tx, q, run, steps)
}

// recordStepEndTx sets the step's final status, output and error (st too) and appends its step event;
// errStepSettled when the step was finished already.
func (e *Runner) recordStepEndTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, run db.PipelineRun,
	st *db.PipelineRunStep, status string, output map[string]any, errText string) error {
	var outJSON []byte
	if output != nil {
		var err error
		if outJSON, err = json.Marshal(output); err != nil {
			return fmt.Errorf("encode step output: %w", err)
		}
	}
	var errPtr *string
	if errText != "" {
		errPtr = &errText
	}
	n, err := q.PipelineRunStepFinish(ctx, dbsqlc.PipelineRunStepFinishParams{RunID: run.ID, StepID: st.StepID,
		Status: status, Output: outJSON, Error: errPtr})
	if err != nil {
		return fmt.Errorf("finish step: %w", err)
	}
	if n == 0 {
		return errStepSettled
	}
	st.Status, st.Output = status, outJSON
	return e.appendRunEventTx(ctx, tx, run, runEvent{Type: RunEventStep, Status: run.Status,
		Message: "step " + st.StepID + " " + status, Data: map[string]any{"stepId": st.StepID, "status": status,
			"output": output, "error": errText}})
}

// failRunTx fails the run for the failed step, skips every step not finished (cancelling their jobs)
// and appends the run's done event.
func (e *Runner) failRunTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, run db.PipelineRun, stepID,
	errText string) error {
	msg := fmt.Sprintf("step %s failed: %s", stepID, errText)
	done, err := q.PipelineRunFinish(ctx, dbsqlc.PipelineRunFinishParams{ID: run.ID, Status: RunFailed, Error: &msg})
	if err != nil {
		return fmt.Errorf("fail run: %w", err)
	}
	stopped, err := q.PipelineRunStepsStopAll(ctx, dbsqlc.PipelineRunStepsStopAllParams{RunID: run.ID,
		Status: StepSkipped})
	if err != nil {
		return fmt.Errorf("skip steps: %w", err)
	}
	if err := e.cancelStepJobs(ctx, tx, dbcore.MapRows(stopped,
		func(r dbsqlc.PipelineRunStep) db.PipelineRunStep { return db.PipelineRunStep(r) })); err != nil {
		return err
	}
	return e.appendRunEventTx(ctx, tx, db.PipelineRun(done), runEvent{Type: RunEventDone, Status: RunFailed, Message: msg})
}

// nextSteps works out, once st completed with output, which pending steps are skipped (marked so in
// steps) and which are ready: every need completed.
func nextSteps(steps []db.PipelineRunStep, st *db.PipelineRunStep,
	output map[string]any) (skipped []string, ready []*db.PipelineRunStep) {
	byID := make(map[string]*db.PipelineRunStep, len(steps))
	for i := range steps {
		byID[steps[i].StepID] = &steps[i]
	}
	skip := branchNotTaken(st, output)
	for changed := true; changed; { // a step that needs a skipped step is skipped
		changed = false
		for i := range steps {
			c := &steps[i]
			if c.Status != StepPending || skip[c.StepID] {
				continue
			}
			if slices.ContainsFunc(c.Needs, func(n string) bool { return skip[n] || byID[n].Status == StepSkipped }) {
				skip[c.StepID], changed = true, true
			}
		}
	}
	for i := range steps {
		c := &steps[i]
		if c.Status != StepPending {
			continue
		}
		if skip[c.StepID] {
			c.Status = StepSkipped
			skipped = append(skipped, c.StepID)
			continue
		}
		if !slices.ContainsFunc(c.Needs, func(n string) bool { return byID[n].Status != StepCompleted }) {
			ready = append(ready, c)
		}
	}
	return skipped, ready
}

// branchNotTaken answers, for a completed condition step, the steps of the branch its result did not
// take; for any other step, none.
func branchNotTaken(st *db.PipelineRunStep, output map[string]any) map[string]bool {
	skip := map[string]bool{}
	if st.Type == stepgraph.TypeCondition {
		var p stepgraph.ConditionParams
		_ = json.Unmarshal(st.Params, &p)
		notTaken := p.Else
		if r, _ := output["result"].(bool); !r {
			notTaken = p.Then
		}
		for _, id := range notTaken {
			skip[id] = true
		}
	}
	return skip
}

// completeRunIfDoneTx completes the run, with its done event, once no step is left to do.
func (e *Runner) completeRunIfDoneTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, run db.PipelineRun,
	steps []db.PipelineRunStep) error {
	if slices.ContainsFunc(steps, func(c db.PipelineRunStep) bool {
		return c.Status == StepPending || c.Status == StepQueued || c.Status == StepRunning || c.Status == StepWaiting
	}) {
		return nil
	}
	done, err := q.PipelineRunFinish(ctx, dbsqlc.PipelineRunFinishParams{ID: run.ID, Status: RunCompleted})
	if err != nil {
		return fmt.Errorf("complete run: %w", err)
	}
	return e.appendRunEventTx(ctx, tx, db.PipelineRun(done), runEvent{Type: RunEventDone, Status: RunCompleted,
		Message: "run completed"})
}

// WaitFinishedTx ends the steps waiting for ref ("mission:<id>", "draft:<id>") in the caller's
// transaction: completed with output merged into the step's output, or failed with errText. A step
// whose run is over is left alone.
func (e *Runner) WaitFinishedTx(ctx context.Context, tx pgx.Tx, ref string, output map[string]any,
	errText string) error {
	q := dbcore.Queries(tx)
	waiting, err := q.PipelineRunStepWaiting(ctx, &ref)
	if err != nil {
		return fmt.Errorf("find waiting steps: %w", err)
	}
	for _, w := range waiting {
		run, steps, st, err := lockStep(ctx, q, w.RunID, w.StepID)
		if errors.Is(err, errStepSettled) {
			continue
		}
		if err != nil {
			return err
		}
		if st.Status != StepWaiting {
			continue
		}
		merged := map[string]any{}
		_ = json.Unmarshal(st.Output, &merged)
		for k, v := range output {
			merged[k] = v
		}
		status := StepCompleted
		if errText != "" {
			status = StepFailed
		}
		if err := e.finishStepTx(ctx, tx, q, run, steps, st, status, merged, errText); err != nil && !errors.Is(err,
			errStepSettled) {
			return err
		}
	}
	return nil
}
func (e *Engine) emailDigests(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, run db.PipelineRun,
	st *db.PipelineRunStep, subject string, maxItems int32, skipEmpty bool) (stepDone, error) {
	members, err := q.WorkspaceMemberEmails(ctx, run.WorkspaceID)
	if err != nil {
		return stepDone{}, fmt.Errorf("workspace members: %w", err)
	}
	var params []river.InsertManyParams
	for _, m := range members {
		rows, err := q.NotificationList(ctx, dbsqlc.NotificationListParams{UserID: m.ID, UnreadOnly: true, Lim: maxItems})
		if err != nil {
			return stepDone{}, fmt.Errorf("list notifications: %w", err)
		}
		if len(rows) == 0 && skipEmpty {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d unread notification(s) in Pilot:\n\n", len(rows))
		for _, n := range rows {
			meta := map[string]any{}
			_ = json.Unmarshal(n.Meta, &meta)
			title, _ := meta["title"].(string)
			if title == "" {
				title, _ = meta["message"].(string)
			}
			fmt.Fprintf(&b, "- %s %s (%s)\n", strings.ReplaceAll(n.Type, "_", " "), title,
				n.CreatedAt.UTC().Format(time.RFC3339))
		}
		ref := uuid.NewSHA1(digestNamespace, []byte(run.ID+"/"+st.StepID+"/"+m.ID)).String()
		params = append(params, river.InsertManyParams{Args: jobs.SendEmailArgs{Topic: "pipeline_digest", RefID: ref,
			To: m.Email, Subject: subject, Body: b.String()}, InsertOpts: &river.InsertOpts{Queue: jobs.QueueEmail}})
	}
	if err := e.core.Enqueue(ctx, tx, params); err != nil {
		return stepDone{}, err
	}
	return stepDone{output: map[string]any{"sent": len(params)}}, nil
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Card limits a create_card step keeps to: the same as a card created through the API.
const (
	MaxCardTitle       = 500
	MaxCardDescription = 5000
)

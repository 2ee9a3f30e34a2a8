package workers

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/jobs"
)

// PipelineStepWorker works one step of a pipeline run through the store, which does the step's effect
// and records its completion (enqueueing the steps it unblocks) in one transaction, once per step key.
// Steps that wait (a mission, a draft's roadmap) leave the worker at once: the mission's completion
// advances the run, and a wait step's job is scheduled for the end of its wait.
type PipelineStepWorker struct {
	river.WorkerDefaults[jobs.PipelineStepArgs]
	deps Deps
}

// Work implements river.Worker. A transient error is retried by River; on the last attempt the step
// fails, and with it the run.
func (w *PipelineStepWorker) Work(ctx context.Context, job *river.Job[jobs.PipelineStepArgs]) error {
	err := w.deps.Pipelines.RunStep(ctx, job.Args.RunID, job.Args.StepID)
	if err == nil || job.Attempt < job.MaxAttempts {
		return err
	}
	return w.deps.Pipelines.FailStep(context.WithoutCancel(ctx), job.Args.RunID, job.Args.StepID,
		fmt.Sprintf("the step kept failing (%d attempts): %v", job.Attempt, err))
}

package workers

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/jobs"
)

// ImportWorker runs an import of another tool's export (db/imports).
type ImportWorker struct {
	river.WorkerDefaults[jobs.ImportArgs]
	deps Deps
}

// NewImportWorker returns the import worker (tests run its Work directly).
func NewImportWorker(deps Deps) *ImportWorker { return &ImportWorker{deps: deps} }

// Timeout bounds one attempt: reading an export of tens of thousands of cards and writing them.
func (w *ImportWorker) Timeout(*river.Job[jobs.ImportArgs]) time.Duration { return 10 * time.Minute }

// Work implements river.Worker. The attachments an export holds go to the worker's storage. An error is
// retried; after the last attempt the import is ended failed with the error, keeping the report of the
// projects already created.
func (w *ImportWorker) Work(ctx context.Context, job *river.Job[jobs.ImportArgs]) error {
	err := w.deps.Imports.Run(ctx, job.Args.ImportID, w.deps.Storage)
	if err != nil && job.Attempt >= job.MaxAttempts {
		w.deps.Logger.ErrorContext(ctx, "import failed", "importId", job.Args.ImportID, "error", err)
		if ferr := w.deps.Imports.Fail(context.WithoutCancel(ctx), job.Args.ImportID,
			"the import stopped on an internal error; the projects listed were created"); ferr != nil {
			return ferr
		}
		return nil
	}
	return err
}

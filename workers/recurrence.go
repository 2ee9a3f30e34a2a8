package workers

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/jobs"
)

// RecurrenceScanInterval is how often the leader creates the due occurrences of on-schedule recurring
// cards: an occurrence appears within this of its date.
const RecurrenceScanInterval = time.Minute

// RecurrenceScanWorker creates the occurrences of on-schedule series whose date has come
// (recurrence.Engine.RunDue): each series locked by one scan, each occurrence claimed once.
type RecurrenceScanWorker struct {
	river.WorkerDefaults[jobs.RecurrenceScanArgs]
	deps Deps
}

// Work implements river.Worker.
func (w *RecurrenceScanWorker) Work(ctx context.Context, _ *river.Job[jobs.RecurrenceScanArgs]) error {
	n, err := w.deps.Recurrence.RunDue(ctx, time.Now(), w.deps.Logger)
	if n > 0 {
		w.deps.Logger.InfoContext(ctx, "recurring cards created", "cards", n)
	}
	return err
}

// RecurrenceNextWorker creates the next occurrence of an after-completion series, enqueued by the move
// that completed the current one (recurrence.Engine.Continue); a retried job creates nothing twice.
type RecurrenceNextWorker struct {
	river.WorkerDefaults[jobs.RecurrenceNextArgs]
	deps Deps
}

// Work implements river.Worker.
func (w *RecurrenceNextWorker) Work(ctx context.Context, job *river.Job[jobs.RecurrenceNextArgs]) error {
	_, err := w.deps.Recurrence.Continue(ctx, job.Args)
	return err
}

// recurrencePeriodicJob is the leader's scan of due recurring cards, once per interval (ByPeriod: a
// leader change does not enqueue a period twice; the occurrences' key keeps each card to one anyway).
func recurrencePeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(RecurrenceScanInterval),
		func() (river.JobArgs, *river.InsertOpts) {
			return jobs.RecurrenceScanArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{
				ByPeriod: RecurrenceScanInterval}}
		}, &river.PeriodicJobOpts{RunOnStart: true})
}

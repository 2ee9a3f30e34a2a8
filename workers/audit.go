package workers

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/jobs"
)

// DefaultAuditRetention is how long an audit log entry is kept when AUDIT_RETENTION is not set.
const DefaultAuditRetention = 365 * 24 * time.Hour

// AuditRetentionWorker deletes the audit log's entries older than the retention (audit.Engine.Prune),
// in batches. Running it twice deletes nothing more: what is left is younger than the cutoff.
type AuditRetentionWorker struct {
	river.WorkerDefaults[jobs.AuditRetentionArgs]
	deps Deps
}

// Work implements river.Worker.
func (w *AuditRetentionWorker) Work(ctx context.Context, _ *river.Job[jobs.AuditRetentionArgs]) error {
	retention := w.deps.AuditRetention
	if retention <= 0 {
		retention = DefaultAuditRetention
	}
	n, err := w.deps.Audit.Prune(ctx, time.Now().Add(-retention))
	if n > 0 {
		w.deps.Logger.InfoContext(ctx, "old audit log entries deleted", "entries", n)
	}
	return err
}

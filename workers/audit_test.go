package workers

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// The retention job deletes the audit log's entries older than AUDIT_RETENTION, the only deletes the
// log's trigger lets through, and keeps the younger ones; a second run deletes nothing more.
func TestAuditRetentionDeletesOldEntries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ann := testfactory.User(t, b.Engines, nil)
	require.NoError(t, b.Audit.Record(ctx, db.AuditEntry{Kind: db.AuditSignIn, ActorID: ann.User.ID}))
	// Entries recorded three days and two years ago (inserting is all the log allows).
	for _, ago := range []string{"3 days", "2 years"} {
		_, err := b.Pool.Exec(ctx, `INSERT INTO audit_log (id, at, kind, actor_id) VALUES
			(gen_random_uuid(), now() - $1::interval, 'sign_in', $2)`, ago, ann.User.ID)
		require.NoError(t, err)
	}

	// The default retention, a year, deletes the two-year-old entry only.
	workNew(t, b, &AuditRetentionWorker{deps: b.deps}, jobs.AuditRetentionArgs{}, nil)
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM audit_log`))

	deps := b.deps
	deps.AuditRetention = 2 * 24 * time.Hour
	workNew(t, b, &AuditRetentionWorker{deps: deps}, jobs.AuditRetentionArgs{}, nil)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM audit_log WHERE at > now() - interval '1 hour'`))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM audit_log`))
	workNew(t, b, &AuditRetentionWorker{deps: deps}, jobs.AuditRetentionArgs{}, nil)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM audit_log`))
}

// The leader enqueues the retention job when the worker starts (then hourly).
func TestAuditRetentionIsPeriodic(t *testing.T) {
	t.Parallel()
	b := setup(t)
	events := b.startWorker(t, Config{})
	waitJob(t, events, jobs.AuditRetentionArgs{}.Kind())
	rivertest.RequireInserted(context.Background(), t, riverpgxv5.New(b.Pool), jobs.AuditRetentionArgs{}, nil)
}

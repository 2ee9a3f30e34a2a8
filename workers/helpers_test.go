package workers

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/mail"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testBundle is one test's database and store (testfactory's bundle, built on a worker process's
// River client instead of an insert-only one) and what the workers get.
type testBundle struct {
	// Bundle's River is the client the store enqueues through; it is never started: jobs are worked with
	// River's test worker (work, drain).
	testfactory.Bundle
	deps Deps
}

// setup builds a store on a fresh database with a worker process's River client, unstarted. Fixtures
// (users, teams, projects, cards, agents) come from testfactory, on b.Engines.
func setup(t *testing.T) *testBundle {
	t.Helper()
	return setupWith(t, Config{})
}

// setupWith is setup with a worker process configured by cfg (its concurrency and logger are the tests').
func setupWith(t *testing.T, cfg Config) *testBundle {
	t.Helper()
	dbPool := pgtest.Pool(t)
	cfg.Concurrency, cfg.Logger = 2, discardLogger()
	client, eng, err := NewClient(dbPool, cfg)
	require.NoError(t, err)
	return &testBundle{Bundle: testfactory.Bundle{Pool: dbPool, River: client, Engines: eng}, deps: Deps{Engines: eng,
		Logger: discardLogger()}}
}

// testWorker is River's test worker for w, on the bundle's database.
func testWorker[T river.JobArgs](t *testing.T, b *testBundle, w river.Worker[T]) *rivertest.Worker[T, pgx.Tx] {
	t.Helper()
	return rivertest.NewWorker(t, riverpgxv5.New(b.Pool), &river.Config{Logger: discardLogger()}, w)
}

// inTx runs fn in a transaction that commits, as a worker's fetch and completion do: a job worked
// there is finished for everyone.
func (b *testBundle) inTx(t *testing.T, fn func(tx pgx.Tx)) {
	t.Helper()
	ctx := context.Background()
	tx, err := b.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	fn(tx)
	require.NoError(t, tx.Commit(ctx))
}

// work works one inserted job with River's test worker for its kind and requires it completed.
func (b *testBundle) work(t *testing.T, job *rivertype.JobRow) {
	t.Helper()
	switch job.Kind {
	case jobs.NotifyActivityArgs{}.Kind():
		workJob(t, b, &NotifyWorker{deps: b.deps}, job)
	case jobs.AutomationEventArgs{}.Kind():
		workJob(t, b, &AutomationWorker{automations: b.Automations}, job)
	case jobs.DueDateScanArgs{}.Kind():
		workJob(t, b, &DueDateScanWorker{deps: b.deps, automations: b.Automations}, job)
	case jobs.MissionArgs{}.Kind():
		workJob(t, b, NewMissionWorker(b.deps), job)
	case jobs.SendEmailArgs{}.Kind():
		workJob(t, b, &EmailWorker{deps: b.deps}, job)
	case jobs.MissionClaimExpiryArgs{}.Kind():
		workJob(t, b, &MissionClaimExpiryWorker{deps: b.deps}, job)
	case jobs.PipelineStepArgs{}.Kind():
		workJob(t, b, &PipelineStepWorker{deps: b.deps}, job)
	case jobs.DraftRoadmapArgs{}.Kind():
		workJob(t, b, NewDraftRoadmapWorker(b.deps), job)
	case jobs.DraftRefineArgs{}.Kind():
		workJob(t, b, NewDraftRefineWorker(b.deps), job)
	case jobs.WebhookDeliveryArgs{}.Kind():
		workJob(t, b, &WebhookDeliveryWorker{deps: b.deps}, job)
	case jobs.WebhookDeliverySweepArgs{}.Kind():
		workJob(t, b, &WebhookDeliverySweepWorker{deps: b.deps}, job)
	case jobs.AuditRetentionArgs{}.Kind():
		workJob(t, b, &AuditRetentionWorker{deps: b.deps}, job)
	case jobs.RecurrenceScanArgs{}.Kind():
		workJob(t, b, &RecurrenceScanWorker{deps: b.deps}, job)
	case jobs.RecurrenceNextArgs{}.Kind():
		workJob(t, b, &RecurrenceNextWorker{deps: b.deps}, job)
	default:
		t.Fatalf("no worker for jobs of kind %q", job.Kind)
	}
}

// workJob works an inserted job with w and requires it completed.
func workJob[T river.JobArgs](t *testing.T, b *testBundle, w river.Worker[T], job *rivertype.JobRow) {
	t.Helper()
	b.inTx(t, func(tx pgx.Tx) {
		res, err := testWorker(t, b, w).WorkJob(context.Background(), t, tx, job)
		requireCompleted(t, res, err)
	})
}

// workNew inserts a job of args with opts, as another job of the same work (a duplicate, a retry, a
// second scanner), works it with w and requires it completed.
func workNew[T river.JobArgs](t *testing.T, b *testBundle, w river.Worker[T], args T, opts *river.InsertOpts) {
	t.Helper()
	b.inTx(t, func(tx pgx.Tx) {
		res, err := testWorker(t, b, w).Work(context.Background(), t, tx, args, opts)
		requireCompleted(t, res, err)
	})
}

func requireCompleted(t *testing.T, res *rivertest.WorkResult, err error) {
	t.Helper()
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind, "%s job %d: %v", res.Job.Kind, res.Job.ID, res.Job.Errors)
}

// drain works the available jobs of kinds (every kind when none is named), oldest first, then the jobs
// that work enqueued, until none is left; it answers how many it worked.
func (b *testBundle) drain(t *testing.T, kinds ...string) int {
	t.Helper()
	n := 0
	for {
		res, err := b.River.JobList(context.Background(),
			river.NewJobListParams().Kinds(kinds...).States(rivertype.JobStateAvailable))
		require.NoError(t, err)
		if len(res.Jobs) == 0 {
			return n
		}
		for _, job := range res.Jobs {
			b.work(t, job)
			n++
		}
		require.Less(t, n, 1000, "jobs keep enqueueing jobs")
	}
}

// startWorker starts a real working River client on the bundle's database (mailer sends its e-mails) and
// stops it at cleanup. The channel reports each job it finishes.
func (b *testBundle) startWorker(t *testing.T, cfg Config) <-chan *river.Event {
	t.Helper()
	cfg.Logger = discardLogger()
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 2
	}
	client, _, err := NewClient(b.Pool, cfg)
	require.NoError(t, err)
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled)
	t.Cleanup(cancel)
	require.NoError(t, client.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, client.Stop(ctx))
	})
	return events
}

// waitJob waits until a started worker reports a finished job of kind, and requires it completed.
func waitJob(t *testing.T, events <-chan *river.Event, kind string) *rivertype.JobRow {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Job.Kind != kind {
				continue
			}
			require.Equal(t, river.EventKindJobCompleted, ev.Kind, "%s job %d is %s: %v", kind, ev.Job.ID, ev.Job.State,
				ev.Job.Errors)
			return ev.Job
		case <-timeout:
			t.Fatalf("no %s job finished within 20s", kind)
		}
	}
}

// withMailer is the bundle's worker dependencies with mailer sending e-mails.
func (b *testBundle) withMailer(mailer mail.Sender) Deps {
	d := b.deps
	d.Mailer = mailer
	return d
}

// update changes a card of the project as actor.
func (b *testBundle) update(t *testing.T, tm testfactory.Team, actor identity.Registration, cardID string,
	p board.CardPatch) board.Card {
	t.Helper()
	c, err := b.Board.UpdateCard(context.Background(), board.CardUpdate{WorkspaceID: tm.Owner.Workspace.ID,
		ProjectID: tm.Project.ID, CardID: cardID, ActorID: actor.User.ID, Patch: p})
	require.NoError(t, err)
	return c
}

// getCard reads a card of the project.
func (b *testBundle) getCard(t *testing.T, tm testfactory.Team, id string) board.Card {
	t.Helper()
	c, err := b.Board.Card(context.Background(), tm.Project.ID, id)
	require.NoError(t, err)
	return c
}

// jsonOf encodes v for the store's JSON inputs.
func jsonOf(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

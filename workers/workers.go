// Package workers holds the River workers of the worker process. Each worker calls the store for its
// domain work, so a job does exactly what the equivalent request would.
package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/notification"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/mail"
	"github.com/pilot-dev/pilot/internal/storage"
	"github.com/pilot-dev/pilot/internal/telemetry"
	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/llm"
)

// Deps are what workers need.
type Deps struct {
	// Engines are the store and its engines (engines.New), enqueueing through the working client.
	*engines.Engines
	Mailer mail.Sender // nil: e-mails stay in the outbox table with a log line
	Logger *slog.Logger
	// LLM runs agent missions' model turns (nil: the offline planner).
	LLM llm.Provider
	// MissionTimeout bounds one attempt of a mission job (zero: DefaultMissionTimeout).
	MissionTimeout time.Duration
	// MissionInputTimeout is how long a mission's question waits for its answer (zero:
	// mission.DefaultInputTimeout).
	MissionInputTimeout time.Duration
	// MissionStaleAfter is how long a running mission may go without an event before the sweep marks it
	// stale (zero: mission.DefaultStaleAfter).
	MissionStaleAfter time.Duration
	// Storage keeps attachment files; the sweep removes those of deleted attachments (nil: the sweep
	// leaves them and their keys for a worker that has it).
	Storage storage.Storage
	// DraftTimeout bounds one attempt of a draft job (zero: DefaultDraftTimeout).
	DraftTimeout time.Duration
	// AuditRetention is how long an audit log entry is kept (zero: DefaultAuditRetention).
	AuditRetention time.Duration
}

// Register adds every worker to workers.
func Register(workers *river.Workers, deps Deps) error {
	if err := river.AddWorkerSafely(workers, &EmailWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &NotifyWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &AutomationWorker{automations: deps.Automations}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, NewMissionWorker(deps)); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &AttachmentSweepWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &ColumnCountsFoldWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &MissionClaimExpiryWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, NewDraftRefineWorker(deps)); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, NewDraftRoadmapWorker(deps)); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &PipelineStepWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &WebhookDeliveryWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &WebhookDeliverySweepWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, NewImportWorker(deps)); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &AuditRetentionWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &MissionInputExpiryWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &MissionStaleSweepWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &RecurrenceScanWorker{deps: deps}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &RecurrenceNextWorker{deps: deps}); err != nil {
		return err
	}
	return river.AddWorkerSafely(workers, &DueDateScanWorker{deps: deps, automations: deps.Automations})
}

// Queues returns the queues a worker process works, with their concurrency.
func Queues(concurrency int) map[string]river.QueueConfig {
	return map[string]river.QueueConfig{
		jobs.QueueDefault: {MaxWorkers: concurrency},
		jobs.QueueEmail:   {MaxWorkers: max(2, concurrency/4)},
		// Missions hold a slot for a whole agent loop (minutes of model calls): their own queue keeps
		// them from starving notifications and automations.
		jobs.QueueMissions: {MaxWorkers: max(2, concurrency/4)},
		// Draft jobs wait on a model too; people wait on them, so they do not queue behind missions.
		jobs.QueueDrafts: {MaxWorkers: max(2, concurrency/4)},
		// A webhook delivery waits on a receiver for up to its timeout, holding no database connection
		// meanwhile: slow receivers hold these slots, not the default queue's.
		jobs.QueueWebhooks: {MaxWorkers: concurrency},
	}
}

// EmailWorker sends an e-mail through SMTP, or, with no SMTP configured, leaves it in the outbox table.
type EmailWorker struct {
	river.WorkerDefaults[jobs.SendEmailArgs]
	deps Deps
}

// Timeout bounds one delivery attempt.
func (w *EmailWorker) Timeout(*river.Job[jobs.SendEmailArgs]) time.Duration { return 30 * time.Second }

// Work implements river.Worker.
func (w *EmailWorker) Work(ctx context.Context, job *river.Job[jobs.SendEmailArgs]) error {
	a := job.Args
	// An invitation withdrawn with its workspace or organization, or accepted meanwhile, needs no
	// e-mail any more.
	var pending func(context.Context, string) (bool, error)
	switch a.Topic {
	case tenancy.EmailTopicInvitation:
		pending = w.deps.Tenancy.InvitationPending
	case tenancy.EmailTopicOrganizationInvitation:
		pending = w.deps.Tenancy.OrganizationInvitationPending
	}
	if pending != nil {
		ok, err := pending(ctx, cmp.Or(a.InvitationID, a.RefID))
		if err != nil {
			return err
		}
		if !ok {
			w.deps.Logger.InfoContext(ctx, "invitation e-mail not sent: the invitation is no longer pending", "invitationId",
				a.RefID, "topic", a.Topic)
			return nil
		}
	}
	transport := "outbox"
	if w.deps.Mailer != nil {
		transport = "smtp"
	}
	row, err := w.deps.Notifications.RecordEmail(ctx, notification.Email{Topic: a.Topic, RefID: a.RefID, To: a.To,
		Subject: a.Subject, Body: a.Body, Transport: transport})
	if err != nil {
		return err
	}
	if row.SentAt != nil {
		return nil // sent by an earlier attempt
	}
	if w.deps.Mailer == nil {
		w.deps.Logger.InfoContext(ctx, "e-mail kept in outbox (SMTP_URL not set)", "to", a.To, "subject", a.Subject,
			"outboxId", row.ID)
		return nil
	}
	if err := w.deps.Mailer.Send(ctx, a.To, a.Subject, a.Body); err != nil {
		if errors.Is(err, mail.ErrRejected) {
			// A permanent refusal (unknown mailbox, say) never succeeds: stop with the reason recorded.
			return river.JobCancel(fmt.Errorf("send e-mail: %w", err))
		}
		return fmt.Errorf("send e-mail: %w", err)
	}
	return w.deps.Notifications.MarkEmailSent(ctx, row.ID)
}

// Config configures a working River client.
type Config struct {
	Concurrency int
	// DueDateScanInterval is how often the leader scans for passed due dates (default one minute).
	DueDateScanInterval time.Duration
	Mailer              mail.Sender
	Logger              *slog.Logger
	// LLM runs agent missions (nil: the offline planner).
	LLM llm.Provider
	// MissionTimeout bounds one attempt of a mission job (zero: DefaultMissionTimeout).
	MissionTimeout time.Duration
	// MissionInputTimeout is how long a mission's question waits for its answer (zero: 72 hours).
	MissionInputTimeout time.Duration
	// MissionStaleAfter is how long a running mission may go without an event before it is marked stale
	// (zero: five minutes); the sweep runs every fifth of it (at most every minute).
	MissionStaleAfter time.Duration
	// Storage keeps attachment files (nil: deleted attachments' files stay until a worker with storage
	// sweeps them).
	Storage storage.Storage
	// AttachmentSweepInterval is how often the leader sweeps the files of deleted attachments (default
	// one minute).
	AttachmentSweepInterval time.Duration
	// ColumnCountsFoldInterval is how often the leader folds the portfolio's per-column count rows
	// (default 10 seconds).
	ColumnCountsFoldInterval time.Duration
	// DraftTimeout bounds one attempt of a draft job (zero: DefaultDraftTimeout).
	DraftTimeout time.Duration
	// Webhooks configure webhook deliveries, and how long finished ones are kept.
	Webhooks webhook.Options
	// WebhookSweepInterval is how often the leader deletes the finished webhook deliveries older than
	// their retention (default one hour).
	WebhookSweepInterval time.Duration
	// AuditRetention is how long an audit log entry is kept before the leader's hourly job deletes it
	// (AUDIT_RETENTION; zero: DefaultAuditRetention).
	AuditRetention time.Duration
	// RescueStuckJobsAfter is how long a job may stay running before the leader deems its worker dead
	// and makes it retryable (zero: River's default, one hour). Missions resume safely when rescued.
	RescueStuckJobsAfter time.Duration
	// PollInterval is how often each queue looks for new jobs without an insert notification (zero:
	// River's default, 1s).
	PollInterval time.Duration
	// FetchCooldown is the shortest time between two fetches of a queue, and between two insert
	// notifications this client sends for a queue (zero: River's default, 100ms).
	FetchCooldown time.Duration
	// Middleware are River middleware around each insert and each job worked: the worker process
	// passes telemetry.RiverMiddleware (job metrics, request ids, traces).
	Middleware []rivertype.Middleware
}

// NewClient builds a working River client with every worker registered, and the engines its workers
// use. The engines enqueue through the same client, so jobs a worker causes commit with its writes.
func NewClient(dbPool *pgxpool.Pool, cfg Config) (*river.Client[pgx.Tx], *engines.Engines, error) {
	riverWorkers := river.NewWorkers()
	interval := cfg.DueDateScanInterval
	if interval <= 0 {
		interval = time.Minute
	}
	interval = max(interval, time.Second) // River's ByPeriod uniqueness needs at least a second
	sweep := cfg.AttachmentSweepInterval
	if sweep <= 0 {
		sweep = time.Minute
	}
	sweep = max(sweep, time.Second)
	fold := cfg.ColumnCountsFoldInterval
	if fold <= 0 {
		fold = 10 * time.Second
	}
	fold = max(fold, time.Second)
	hooks := cfg.WebhookSweepInterval
	if hooks <= 0 {
		hooks = time.Hour
	}
	hooks = max(hooks, time.Second)
	staleSweep := min(cmp.Or(cfg.MissionStaleAfter, mission.DefaultStaleAfter)/5, time.Minute)
	staleSweep = max(staleSweep, time.Second)
	// River wants the default job timeout no longer than the rescue window.
	jobTimeout := time.Minute
	if cfg.RescueStuckJobsAfter > 0 && cfg.RescueStuckJobsAfter < jobTimeout {
		jobTimeout = cfg.RescueStuckJobsAfter
	}
	if cfg.Logger != nil {
		// A job's log lines carry the request id of the request that enqueued it (JobRequestID puts it
		// into the job's context): workers log with the job's context.
		cfg.Logger = slog.New(telemetry.NewLogHandler(cfg.Logger.Handler()))
	}
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{
		Logger:               cfg.Logger,
		Middleware:           cfg.Middleware,
		Queues:               Queues(cfg.Concurrency),
		Workers:              riverWorkers,
		RescueStuckJobsAfter: cfg.RescueStuckJobsAfter,
		FetchPollInterval:    cfg.PollInterval,
		FetchCooldown:        cfg.FetchCooldown,
		JobTimeout:           jobTimeout,
		// Only the elected leader enqueues periodic jobs; ByPeriod uniqueness keeps a leader change from
		// enqueueing a period twice, and the scan claims each (card, due date) once in any case.
		PeriodicJobs: []*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(interval), func() (river.JobArgs, *river.InsertOpts) {
				return jobs.DueDateScanArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: interval}}
			}, &river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(sweep), func() (river.JobArgs, *river.InsertOpts) {
				return jobs.AttachmentSweepArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: sweep}}
			}, &river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(fold), func() (river.JobArgs, *river.InsertOpts) {
				return jobs.ColumnCountsFoldArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: fold}}
			}, &river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(hooks), func() (river.JobArgs, *river.InsertOpts) {
				return jobs.WebhookDeliverySweepArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: hooks}}
			}, &river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(time.Hour), func() (river.JobArgs, *river.InsertOpts) {
				return jobs.AuditRetentionArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: time.Hour}}
			}, &river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(staleSweep), func() (river.JobArgs, *river.InsertOpts) {
				return jobs.MissionStaleSweepArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: staleSweep}}
			}, &river.PeriodicJobOpts{RunOnStart: true}),
			recurrencePeriodicJob(),
		},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("river client: %w", err)
	}
	eng := engines.New(dbPool, riverClient, engines.Options{Webhooks: cfg.Webhooks})
	if err := Register(riverWorkers, Deps{Engines: eng, Mailer: cfg.Mailer, Logger: cfg.Logger, LLM: cfg.LLM,
		MissionTimeout: cfg.MissionTimeout, Storage: cfg.Storage, DraftTimeout: cfg.DraftTimeout,
		MissionInputTimeout: cfg.MissionInputTimeout, MissionStaleAfter: cfg.MissionStaleAfter,
		AuditRetention: cfg.AuditRetention}); err != nil {
		return nil, nil, fmt.Errorf("register workers: %w", err)
	}
	return riverClient, eng, nil
}

// NotifyWorker turns one activity into notifications for the users it concerns, in one statement; a
// retried job inserts nothing twice.
type NotifyWorker struct {
	river.WorkerDefaults[jobs.NotifyActivityArgs]
	deps Deps
}

// Work implements river.Worker.
func (w *NotifyWorker) Work(ctx context.Context, job *river.Job[jobs.NotifyActivityArgs]) error {
	_, err := w.deps.Notifications.FanOutNotifications(ctx, job.Args.ActivityID)
	return err
}

// AutomationWorker runs a project's rules for one card event.
type AutomationWorker struct {
	river.WorkerDefaults[jobs.AutomationEventArgs]
	automations *automation.Engine
}

// Work implements river.Worker.
func (w *AutomationWorker) Work(ctx context.Context, job *river.Job[jobs.AutomationEventArgs]) error {
	return w.automations.Run(ctx, job.Args)
}

// ColumnCountsFoldWorker folds the per-column count rows that card writes added since the last fold
// (db.FoldColumnCounts), so portfolio reads add up one row per column.
type ColumnCountsFoldWorker struct {
	river.WorkerDefaults[jobs.ColumnCountsFoldArgs]
	deps Deps
}

// Work implements river.Worker.
func (w *ColumnCountsFoldWorker) Work(ctx context.Context, _ *river.Job[jobs.ColumnCountsFoldArgs]) error {
	_, err := w.deps.Board.FoldColumnCounts(ctx)
	return err
}

// AttachmentSweepWorker removes from storage the files of deleted attachments, then forgets their keys.
// A file whose removal fails keeps its key for the next sweep.
type AttachmentSweepWorker struct {
	river.WorkerDefaults[jobs.AttachmentSweepArgs]
	deps Deps
}

// attachmentSweepBatch is how many keys one read of the sweep takes.
const attachmentSweepBatch = 500

// Work implements river.Worker.
func (w *AttachmentSweepWorker) Work(ctx context.Context, _ *river.Job[jobs.AttachmentSweepArgs]) error {
	if w.deps.Storage == nil {
		return nil
	}
	var failed error
	for {
		keys, err := w.deps.Board.OrphanedAttachmentFiles(ctx, attachmentSweepBatch)
		if err != nil {
			return err
		}
		removed := make([]string, 0, len(keys))
		for _, key := range keys {
			if err := w.deps.Storage.Delete(ctx, key); err != nil {
				failed = fmt.Errorf("remove attachment file %s: %w", key, err)
				continue
			}
			removed = append(removed, key)
		}
		if err := w.deps.Board.ForgetOrphanedAttachmentFiles(ctx, removed); err != nil {
			return err
		}
		// A batch with failures ends this sweep: its keys would come back first in the next read.
		if len(keys) < attachmentSweepBatch || len(removed) < len(keys) {
			return failed
		}
	}
}

// DueDateScanWorker fires due_date_reached for cards whose due date has passed.
type DueDateScanWorker struct {
	river.WorkerDefaults[jobs.DueDateScanArgs]
	deps        Deps
	automations *automation.Engine
}

// Work implements river.Worker.
func (w *DueDateScanWorker) Work(ctx context.Context, _ *river.Job[jobs.DueDateScanArgs]) error {
	n, err := w.automations.ScanDueDates(ctx)
	if n > 0 {
		w.deps.Logger.InfoContext(ctx, "due dates reached", "cards", n)
	}
	return err
}

// MissionClaimExpiryWorker returns a claimed mission of an mcpOnly agent to the queue when its MCP
// client went silent past the claim's deadline. A holder who spoke since moved the deadline: the job
// snoozes until then (a snooze costs no attempt).
type MissionClaimExpiryWorker struct {
	river.WorkerDefaults[jobs.MissionClaimExpiryArgs]
	deps Deps
}

// Work implements river.Worker.
func (w *MissionClaimExpiryWorker) Work(ctx context.Context, job *river.Job[jobs.MissionClaimExpiryArgs]) error {
	released, retryAt, err := w.deps.Missions.ReleaseExpiredClaim(ctx, job.Args.MissionID, job.Args.ClaimSeq)
	if err != nil {
		return err
	}
	if released {
		w.deps.Logger.InfoContext(ctx, "mission claim expired; mission queued again", "missionId", job.Args.MissionID)
	}
	if retryAt != nil {
		return river.JobSnooze(max(time.Until(*retryAt), 0) + 10*time.Millisecond)
	}
	return nil
}

// MissionInputExpiryWorker ends a mission whose question went unanswered past its deadline (expired).
type MissionInputExpiryWorker struct {
	river.WorkerDefaults[jobs.MissionInputExpiryArgs]
	deps Deps
}

// Work implements river.Worker.
func (w *MissionInputExpiryWorker) Work(ctx context.Context, job *river.Job[jobs.MissionInputExpiryArgs]) error {
	expired, err := w.deps.Missions.ExpireMissionInput(ctx, job.Args.MissionID)
	if expired {
		w.deps.Logger.InfoContext(ctx, "mission expired: its question went unanswered", "missionId", job.Args.MissionID)
	}
	return err
}

// MissionStaleSweepWorker marks stale the running missions without an event for MissionStaleAfter.
type MissionStaleSweepWorker struct {
	river.WorkerDefaults[jobs.MissionStaleSweepArgs]
	deps Deps
}

// Work implements river.Worker.
func (w *MissionStaleSweepWorker) Work(ctx context.Context, _ *river.Job[jobs.MissionStaleSweepArgs]) error {
	stale, err := w.deps.Missions.MarkStaleMissions(ctx, w.deps.MissionStaleAfter)
	for _, m := range stale {
		w.deps.Logger.WarnContext(ctx, "mission stale: no event from its worker", "missionId", m.ID)
	}
	return err
}

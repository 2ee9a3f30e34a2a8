package workers

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/mail"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/jobs"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testBundle is one test's database, its store and what the workers get.
type testBundle struct {
	pool  *pgxpool.Pool
	store *db.Store
	// client is the River client the store enqueues through; it is never started: jobs are worked
	// with River's test worker (work, drain).
	client *river.Client[pgx.Tx]
	deps   Deps
}

// setup builds a store on a fresh database with a worker process's River client, unstarted.
func setup(t *testing.T) *testBundle {
	t.Helper()
	dbPool := pgtest.Pool(t)
	client, store, err := NewClient(dbPool, Config{Concurrency: 2, Logger: discardLogger()})
	require.NoError(t, err)
	return &testBundle{pool: dbPool, store: store, client: client, deps: Deps{Store: store, Logger: discardLogger()}.withEngines()}
}

// testWorker is River's test worker for w, on the bundle's database.
func testWorker[T river.JobArgs](t *testing.T, b *testBundle, w river.Worker[T]) *rivertest.Worker[T, pgx.Tx] {
	t.Helper()
	return rivertest.NewWorker(t, riverpgxv5.New(b.pool), &river.Config{Logger: discardLogger()}, w)
}

// inTx runs fn in a transaction that commits, as a worker's fetch and completion do: a job worked
// there is finished for everyone.
func (b *testBundle) inTx(t *testing.T, fn func(tx pgx.Tx)) {
	t.Helper()
	ctx := context.Background()
	tx, err := b.pool.Begin(ctx)
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
		workJob(t, b, &AutomationWorker{automations: automation.New(b.store)}, job)
	case jobs.DueDateScanArgs{}.Kind():
		workJob(t, b, &DueDateScanWorker{deps: b.deps, automations: automation.New(b.store)}, job)
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
		res, err := b.client.JobList(context.Background(), river.NewJobListParams().Kinds(kinds...).States(rivertype.JobStateAvailable))
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
	client, _, err := NewClient(b.pool, cfg)
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
			require.Equal(t, river.EventKindJobCompleted, ev.Kind, "%s job %d is %s: %v", kind, ev.Job.ID, ev.Job.State, ev.Job.Errors)
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

// register creates a user, named after their e-mail, with their personal organization and workspace.
func (b *testBundle) register(t *testing.T, email string) identity.Registration {
	t.Helper()
	local, _, _ := strings.Cut(email, "@")
	name := strings.ToUpper(local[:1]) + local[1:] // alice@example.com is Alice
	reg, err := identity.New(b.store).Register(context.Background(), email, name, "not-a-real-hash")
	require.NoError(t, err)
	return reg
}

// invite invites email into inviter's personal workspace with the store's real write path, which
// enqueues its e-mail; the invitation's token is "tok-" and the e-mail.
func (b *testBundle) invite(t *testing.T, inviter identity.Registration, email string) db.WorkspaceInvitation {
	t.Helper()
	inv, err := tenancy.New(b.store).InviteToWorkspace(context.Background(), tenancy.NewInvitation{WorkspaceID: inviter.Workspace.ID,
		WorkspaceName: inviter.Workspace.Name, Email: email, Role: "member", InvitedBy: inviter.User.ID, InviterName: inviter.User.Name,
		Token: "tok-" + email, AcceptURL: "http://pilot.test/invitations/tok-" + email + "/accept"})
	require.NoError(t, err)
	return inv
}

// join makes u a member of owner's personal workspace, through an accepted invitation.
func (b *testBundle) join(t *testing.T, owner, u identity.Registration) {
	t.Helper()
	b.invite(t, owner, u.User.Email)
	_, err := tenancy.New(b.store).AcceptInvitation(context.Background(), "tok-"+u.User.Email, u.User)
	require.NoError(t, err)
}

// project creates a project in owner's personal workspace and returns it with its column ids.
func (b *testBundle) project(t *testing.T, owner identity.Registration, name string) (db.Project, []string) {
	t.Helper()
	ctx := context.Background()
	p, err := b.store.CreateProject(ctx, db.NewProject{WorkspaceID: owner.Workspace.ID, Name: name, CreatedBy: owner.User.ID})
	require.NoError(t, err)
	cols, err := b.store.Columns(ctx, p.ID)
	require.NoError(t, err)
	var ids []string
	for _, c := range cols {
		ids = append(ids, c.ID)
	}
	return p, ids
}

// team is an owner and a member who share the owner's personal workspace and a project.
type team struct {
	owner, member identity.Registration
	project       db.Project
	cols          []string
}

func (b *testBundle) team(t *testing.T) team {
	t.Helper()
	tm := team{owner: b.register(t, "owner@example.com"), member: b.register(t, "member@example.com")}
	b.join(t, tm.owner, tm.member)
	tm.project, tm.cols = b.project(t, tm.owner, "Shared")
	_, err := b.store.AddProjectMember(context.Background(), db.ProjectMemberAdd{WorkspaceID: tm.owner.Workspace.ID, ProjectID: tm.project.ID, ActorID: tm.owner.User.ID, Email: tm.member.User.Email})
	require.NoError(t, err)
	return tm
}

// card creates a card in the project as actor (in its first column unless in says otherwise).
func (b *testBundle) card(t *testing.T, tm team, actor identity.Registration, in db.NewCard) db.Card {
	t.Helper()
	in.WorkspaceID, in.ProjectID, in.ActorID = tm.owner.Workspace.ID, tm.project.ID, actor.User.ID
	if in.ColumnID == "" {
		in.ColumnID = tm.cols[0]
	}
	c, err := b.store.CreateCard(context.Background(), in)
	require.NoError(t, err)
	return c
}

// update changes a card of the project as actor.
func (b *testBundle) update(t *testing.T, tm team, actor identity.Registration, cardID string, p db.CardPatch) db.Card {
	t.Helper()
	c, err := b.store.UpdateCard(context.Background(), db.CardUpdate{WorkspaceID: tm.owner.Workspace.ID, ProjectID: tm.project.ID, CardID: cardID, ActorID: actor.User.ID, Patch: p})
	require.NoError(t, err)
	return c
}

// getCard reads a card of the project.
func (b *testBundle) getCard(t *testing.T, tm team, id string) db.Card {
	t.Helper()
	c, err := b.store.Card(context.Background(), tm.project.ID, id)
	require.NoError(t, err)
	return c
}

// count runs a COUNT query on the test database.
func (b *testBundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// jsonOf encodes v for the store's JSON inputs.
func jsonOf(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func ptr[T any](v T) *T { return &v }

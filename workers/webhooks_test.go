package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

func TestWebhookDeliveryWorkerSendsACardCreate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	var got atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Header.Get(webhook.HeaderSignature) != "" && r.Header.Get(webhook.HeaderID) != "" {
			got.Add(1)
		}
	}))
	t.Cleanup(rcv.Close)
	_, err := b.deps.Webhooks.Create(context.Background(), tm.Owner.Workspace.ID, tm.Owner.User.ID,
		webhook.Fields{URL: rcv.URL, Events: []webhook.EventType{"card_created"}, Enabled: true})
	require.NoError(t, err)

	testfactory.Card(t, b.Engines, tm.Project, nil)
	require.Equal(t, 1, b.drain(t, jobs.WebhookDeliveryArgs{}.Kind()))
	require.EqualValues(t, 1, got.Load())
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM webhook_deliveries WHERE status = 'succeeded'`))

	// The same job worked again sends nothing more.
	workNew(t, b, &WebhookDeliveryWorker{deps: b.deps}, jobs.WebhookDeliveryArgs{DeliveryID: testfactoryDeliveryID(t, b)},
		nil)
	require.EqualValues(t, 1, got.Load())
}

func testfactoryDeliveryID(t *testing.T, b *testBundle) string {
	t.Helper()
	var id string
	require.NoError(t, b.Pool.QueryRow(context.Background(), `SELECT id FROM webhook_deliveries`).Scan(&id))
	return id
}

// signedReceiver is a receiver that counts the requests whose signature verifies with secret (the
// Standard Webhooks library's verification) and keeps their bodies.
type signedReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newSignedReceiver(t *testing.T, secret *string) *signedReceiver {
	r := &signedReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		wh, err := standardwebhooks.NewWebhook(*secret)
		if err != nil || wh.Verify(body, req.Header) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.mu.Lock()
		r.bodies = append(r.bodies, string(body))
		r.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *signedReceiver) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...)
}

func TestWebhookPipelineStepPostsItsBodyAndOutputsTheStatus(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	var secret string
	rcv := newSignedReceiver(t, &secret)
	w, err := b.deps.Webhooks.Create(context.Background(), tm.Owner.Workspace.ID, tm.Owner.User.ID,
		webhook.Fields{URL: "http://elsewhere.test/", Events: []webhook.EventType{"card_deleted"}, Enabled: true})
	require.NoError(t, err)
	secret = w.Secret

	p := b.pipeline(t, tm,
		step{ID: "card", Type: "create_card", Params: map[string]any{"projectId": tm.Project.ID, "title": "Ship"}},
		step{ID: "hook", Type: "webhook", Needs: []string{"card"}, Params: map[string]any{"url": rcv.URL + "/ci",
			"webhookId": w.ID, "body": map[string]any{"text": "{{steps.card.title}} opened by {{run.id}}", "n": 1}}})
	r := b.startRun(t, tm, p)
	b.drain(t, jobs.PipelineStepArgs{}.Kind(), jobs.WebhookDeliveryArgs{}.Kind())

	got := rcv.got()
	require.Len(t, got, 1)
	require.JSONEq(t, fmt.Sprintf(`{"text": "Ship opened by %s", "n": 1}`, r.Run.ID), got[0])
	run := b.getRun(t, tm, r)
	require.Equal(t, pipeline.RunCompleted, run.Run.Status, statuses(run))
	var out map[string]any
	require.NoError(t, json.Unmarshal(run.Steps[1].Output, &out))
	require.EqualValues(t, http.StatusAccepted, out["statusCode"])
	require.NotEmpty(t, out["deliveryId"])
}

func TestWebhookAutomationActionDeliversTheEvent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	var secret string
	rcv := newSignedReceiver(t, &secret)
	w, err := b.deps.Webhooks.Create(context.Background(), tm.Owner.Workspace.ID, tm.Owner.User.ID,
		webhook.Fields{URL: rcv.URL, Events: []webhook.EventType{"card_deleted"}, Enabled: true})
	require.NoError(t, err)
	secret = w.Secret
	_, err = b.Automations.CreateRule(context.Background(), tm.Project.ID, tm.Owner.User.ID,
		automation.NewRule{Name: "Tell CI", Trigger: "task_created", Action: jsonOf(t, map[string]any{"type": "send_webhook",
			"webhookId": w.ID}), Enabled: true})
	require.NoError(t, err)
	_, err = b.Automations.CreateRule(context.Background(), tm.Project.ID, tm.Owner.User.ID,
		automation.NewRule{Name: "Bad", Trigger: "task_created", Action: jsonOf(t, map[string]any{"type": "send_webhook",
			"webhookId": db.NewID()}), Enabled: true})
	require.ErrorIs(t, err, db.ErrInvalid, "a webhook of another workspace, or none, is refused")

	card := testfactory.Card(t, b.Engines, tm.Project, nil)
	b.drain(t, jobs.AutomationEventArgs{}.Kind(), jobs.WebhookDeliveryArgs{}.Kind())
	got := rcv.got()
	require.Len(t, got, 1)
	var p struct {
		Type string
		Data struct{ CardID string }
	}
	require.NoError(t, json.Unmarshal([]byte(got[0]), &p))
	require.Equal(t, "card_created", p.Type)
	require.Equal(t, card.ID, p.Data.CardID)
}

func TestWebhookDeliveryWorkerSnoozesAFailedAttempt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Engines)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter,
		_ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	t.Cleanup(rcv.Close)
	_, err := b.deps.Webhooks.Create(context.Background(), tm.Owner.Workspace.ID, tm.Owner.User.ID,
		webhook.Fields{URL: rcv.URL, Events: []webhook.EventType{"card_created"}, Enabled: true})
	require.NoError(t, err)
	testfactory.Card(t, b.Engines, tm.Project, nil)

	b.inTx(t, func(tx pgx.Tx) {
		res, err := testWorker(t, b, &WebhookDeliveryWorker{deps: b.deps}).Work(context.Background(), t, tx,
			jobs.WebhookDeliveryArgs{DeliveryID: testfactoryDeliveryID(t, b)}, nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobSnoozed, res.EventKind, "a failed attempt waits for the next, it is not a job "+
			"error")
		require.True(t, res.Job.ScheduledAt.After(time.Now()))
	})
	var attempts int
	var next time.Time
	require.NoError(t, b.Pool.QueryRow(context.Background(),
		`SELECT attempts, next_attempt_at FROM webhook_deliveries`).Scan(&attempts, &next))
	require.Equal(t, 1, attempts)
	require.True(t, next.After(time.Now()))
}

// statusReceiver answers every request with its current status, counting them.
type statusReceiver struct {
	*httptest.Server
	status atomic.Int32
	got    atomic.Int32
}

func newStatusReceiver(t *testing.T, status int) *statusReceiver {
	r := &statusReceiver{}
	r.status.Store(int32(status))
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.got.Add(1)
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(r.Close)
	return r
}

// deliveryJob answers the one webhook delivery job, in whatever state.
func (b *testBundle) deliveryJob(t *testing.T) *rivertype.JobRow {
	t.Helper()
	res, err := b.River.JobList(context.Background(), river.NewJobListParams().Kinds(jobs.WebhookDeliveryArgs{}.Kind()))
	require.NoError(t, err)
	require.Len(t, res.Jobs, 1, "one job holds a delivery's schedule")
	return res.Jobs[0]
}

// workSnoozed works a delivery job whose attempt fails, and requires it snoozed until the next retry.
func workSnoozed(t *testing.T, b *testBundle, job *rivertype.JobRow) {
	t.Helper()
	b.inTx(t, func(tx pgx.Tx) {
		res, err := testWorker(t, b, &WebhookDeliveryWorker{deps: b.deps}).WorkJob(context.Background(), t, tx, job)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobSnoozed, res.EventKind)
	})
}

// pendingRetry sets up a webhook whose receiver answers 503, and a card whose delivery's first attempt
// failed: its job is snoozed for the next retry, 5 to 10 minutes away (retries start at 10 minutes here).
func pendingRetry(t *testing.T) (*testBundle, testfactory.Team, *statusReceiver, webhook.Webhook) {
	t.Helper()
	b := setupWith(t, Config{Webhooks: webhook.Options{RetryBase: 10 * time.Minute}})
	tm := testfactory.NewTeam(t, b.Engines)
	rcv := newStatusReceiver(t, http.StatusServiceUnavailable)
	w, err := b.Webhooks.Create(context.Background(), tm.Owner.Workspace.ID, tm.Owner.User.ID,
		webhook.Fields{URL: rcv.URL, Events: []webhook.EventType{"card_created"}, Enabled: true})
	require.NoError(t, err)
	testfactory.Card(t, b.Engines, tm.Project, nil)
	workSnoozed(t, b, b.deliveryJob(t))
	job := b.deliveryJob(t)
	require.Equal(t, rivertype.JobStateScheduled, job.State)
	require.Greater(t, time.Until(job.ScheduledAt), 4*time.Minute)
	require.EqualValues(t, 1, rcv.got.Load())
	return b, tm, rcv, w.Webhook
}

// delivery answers the webhook's one delivery.
func (b *testBundle) delivery(t *testing.T, tm testfactory.Team, w webhook.Webhook) webhook.Delivery {
	t.Helper()
	page, err := b.Webhooks.Deliveries(context.Background(), tm.Owner.Workspace.ID, w.ID, db.Page{Limit: 10})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	return page.Items[0]
}

// Redelivering a delivery that waits for its next retry sends it now, through the job that holds its
// schedule: once that attempt succeeds the delivery is over, and nothing is sent again later.
func TestWebhookRedeliverOfAPendingDeliverySendsNow(t *testing.T) {
	t.Parallel()
	b, tm, rcv, w := pendingRetry(t)
	rcv.status.Store(http.StatusNoContent) // the admin fixed the receiver

	d, err := b.Webhooks.Redeliver(context.Background(), tm.Owner.Workspace.ID, w.ID, b.delivery(t, tm, w).ID)
	require.NoError(t, err)
	require.Equal(t, webhook.StatusPending, d.Status)
	require.WithinDuration(t, time.Now(), *d.NextAttemptAt, time.Minute, "its next attempt is now")
	require.Equal(t, rivertype.JobStateAvailable, b.deliveryJob(t).State, "the retry's job runs now, not minutes later")

	require.Equal(t, 1, b.drain(t, jobs.WebhookDeliveryArgs{}.Kind()))
	require.EqualValues(t, 2, rcv.got.Load())
	got := b.delivery(t, tm, w)
	require.Equal(t, webhook.StatusSucceeded, got.Status)
	require.EqualValues(t, 2, got.Attempts)
	require.Equal(t, rivertype.JobStateCompleted, b.deliveryJob(t).State, "no retry is left to send it twice")
	require.Zero(t, b.drain(t, jobs.WebhookDeliveryArgs{}.Kind()))
	require.EqualValues(t, 2, rcv.got.Load())
}

// Redelivering a delivery that waits for its next retry, while its receiver still fails, makes one
// attempt now; the delivery's retries then go on from there with their backoff, by the same job.
func TestWebhookRedeliverOfAPendingDeliveryThatFailsKeepsItsRetries(t *testing.T) {
	t.Parallel()
	b, tm, rcv, w := pendingRetry(t)

	_, err := b.Webhooks.Redeliver(context.Background(), tm.Owner.Workspace.ID, w.ID, b.delivery(t, tm, w).ID)
	require.NoError(t, err)
	job := b.deliveryJob(t)
	require.Equal(t, rivertype.JobStateAvailable, job.State)
	workSnoozed(t, b, job)
	require.EqualValues(t, 2, rcv.got.Load(), "sent now")

	job = b.deliveryJob(t)
	require.Equal(t, rivertype.JobStateScheduled, job.State, "snoozed until the next retry")
	require.Greater(t, time.Until(job.ScheduledAt), 9*time.Minute, "the second retry's backoff, doubled: 10 to 20 minutes")
	got := b.delivery(t, tm, w)
	require.Equal(t, webhook.StatusPending, got.Status)
	require.EqualValues(t, 2, got.Attempts)
	require.WithinDuration(t, job.ScheduledAt, *got.NextAttemptAt, time.Second)
}

// The worker's periodic sweep (run at start by the leader, then every WebhookSweepInterval) deletes
// the finished deliveries older than the retention and keeps the rest.
func TestWebhookDeliverySweepRunsPeriodically(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	tm := testfactory.NewTeam(t, b.Engines)
	w, err := b.Webhooks.Create(ctx, tm.Owner.Workspace.ID, tm.Owner.User.ID,
		webhook.Fields{URL: "http://receiver.test/hook", Events: []webhook.EventType{"card_created"}, Enabled: true})
	require.NoError(t, err)
	ping := func(status, ago string) string {
		d, err := b.Webhooks.Ping(ctx, tm.Owner.Workspace.ID, w.ID)
		require.NoError(t, err)
		_, err = b.Pool.Exec(ctx, `UPDATE webhook_deliveries SET status = $2, created_at = now() - $3::interval,
			last_attempt_at = now() - $3::interval WHERE id = $1`, d.ID, status, ago)
		require.NoError(t, err)
		return d.ID
	}
	old := ping(webhook.StatusSucceeded, "3 days")
	recent := ping(webhook.StatusFailed, "1 hour")
	pending := ping(webhook.StatusPending, "3 days") // its job's attempt fails: it stays pending

	events := b.startWorker(t, Config{Webhooks: webhook.Options{DeliveryRetention: 2 * 24 * time.Hour}})
	waitJob(t, events, jobs.WebhookDeliverySweepArgs{}.Kind())
	rows, err := b.Pool.Query(ctx, `SELECT id FROM webhook_deliveries ORDER BY id`)
	require.NoError(t, err)
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.ElementsMatch(t, []string{recent, pending}, left)
	require.NotContains(t, left, old)
}

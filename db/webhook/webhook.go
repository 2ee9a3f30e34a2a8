package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// Defaults of Options.
const (
	DefaultAttemptWindow     = 24 * time.Hour
	DefaultFailureLimit      = 20
	DefaultRequestTimeout    = 10 * time.Second
	DefaultDeliveryRetention = 30 * 24 * time.Hour
	// RotationOverlap is how long a rotated-out secret keeps signing beside the new one.
	RotationOverlap = 24 * time.Hour
)

// Options configure the engine; the zero value suits a process that only writes webhooks outside
// production.
type Options struct {
	// Production refuses internal addresses (APP_ENV=production), unless AllowPrivate.
	Production bool
	// AllowPrivate lets webhooks reach internal addresses in production (WEBHOOK_ALLOW_PRIVATE).
	AllowPrivate bool
	// ServerSecrets derive the keys that seal webhook secrets: the first seals, every one opens
	// (JWT_SECRET, then JWT_PREVIOUS_SECRETS). None: a development key.
	ServerSecrets [][]byte
	// AttemptWindow is how long after its creation a delivery is still retried
	// (WEBHOOK_MAX_ATTEMPT_WINDOW; zero: DefaultAttemptWindow).
	AttemptWindow time.Duration
	// FailureLimit is the run of deliveries failed for good that disables a webhook
	// (WEBHOOK_FAILURE_LIMIT; zero: DefaultFailureLimit).
	FailureLimit int
	// RetryBase is the first retry's delay, doubled at each attempt (zero: one second).
	RetryBase time.Duration
	// RequestTimeout bounds one attempt's request: connecting, sending and reading the answer (zero:
	// DefaultRequestTimeout). Keep it well under the delivery job's own timeout (workers, 30 s).
	RequestTimeout time.Duration
	// DeliveryRetention is how long a finished delivery is kept after its last attempt before the sweep
	// deletes it (WEBHOOK_DELIVERY_RETENTION; zero: DefaultDeliveryRetention).
	DeliveryRetention time.Duration
}

// Engine keeps webhooks and delivers them.
type Engine struct {
	core *dbcore.Core
	// waits ends the pipeline steps that wait for a delivery.
	waits db.StepWaiter
	// audit records webhooks made, changed and deleted in the audit log.
	audit db.Auditor
	opts  Options
	seal  sealer
	// client sends deliveries; made at the first, since engines that only enqueue never send.
	client func() *http.Client
}

// New builds the webhook engine on core, configured by opts; a delivery's end ends the pipeline steps
// waiting for it through waits, and auditor records the changes to webhooks.
func New(core *dbcore.Core, waits db.StepWaiter, auditor db.Auditor, opts Options) *Engine {
	if opts.AttemptWindow <= 0 {
		opts.AttemptWindow = DefaultAttemptWindow
	}
	if opts.FailureLimit <= 0 {
		opts.FailureLimit = DefaultFailureLimit
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = time.Second
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.DeliveryRetention <= 0 {
		opts.DeliveryRetention = DefaultDeliveryRetention
	}
	s, err := newSealer(opts.ServerSecrets)
	if err != nil {
		panic(err) // HKDF and AES-256 with a 32-byte key cannot fail
	}
	e := &Engine{core: core, waits: waits, audit: auditor, opts: opts, seal: s}
	e.client = sync.OnceValue(func() *http.Client { return newClient(e.refusePrivate(), e.opts.RequestTimeout) })
	return e
}

// Webhook is a webhook as its admins see it (never its secret).
type Webhook struct {
	ID                      string
	WorkspaceID             string
	URL                     string
	Description             string
	Events                  []EventType
	Enabled                 bool
	PreviousSecretExpiresAt *time.Time
	ConsecutiveFailures     int32
	DisabledReason          *string
	CreatedBy               *string
	CreatedAt               time.Time
	UpdatedAt               time.Time
}

func webhookOf(w dbsqlc.Webhook) Webhook {
	var prev *time.Time
	if w.PreviousSecretExpiresAt != nil && w.PreviousSecretExpiresAt.After(time.Now()) {
		prev = w.PreviousSecretExpiresAt
	}
	return Webhook{ID: w.ID, WorkspaceID: w.WorkspaceID, URL: w.URL, Description: w.Description,
		Events: eventsOf(w.Events), Enabled: w.Enabled, PreviousSecretExpiresAt: prev,
		ConsecutiveFailures: w.ConsecutiveFailures, DisabledReason: w.DisabledReason, CreatedBy: w.CreatedBy,
		CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// WithSecret is a webhook just made, or whose secret was just rotated, with the secret to show once.
type WithSecret struct {
	Webhook
	Secret string
}

// eventsOf is a webhook's stored events as event types, without any that names no event type (one
// written before unknown types were refused: it never matched an activity).
func eventsOf(stored []string) []EventType {
	out := make([]EventType, 0, len(stored))
	for _, s := range stored {
		if t := EventType(s); t.Valid() {
			out = append(out, t)
		}
	}
	return out
}

// Fields are a webhook's writable fields.
type Fields struct {
	URL         string
	Description string
	Events      []EventType
	Enabled     bool
}

// checkFields refuses an address a webhook may not have, or events that name nothing, and answers the
// events sorted, once each (EventAll alone when it is there).
func (e *Engine) checkFields(ctx context.Context, f Fields) (Fields, error) {
	if err := e.checkURL(ctx, f.URL); err != nil {
		return f, dbcore.Invalid(err.Error())
	}
	if len(f.Events) == 0 {
		return f, dbcore.Invalid(`events must list activity types, or "*" for every one`)
	}
	for _, t := range f.Events {
		if !t.Valid() {
			return f, dbcore.Invalid(fmt.Sprintf("events: %q is not an event type; expected one of %s", t,
				strings.Join(valuesOf[string](EventTypes), ", ")))
		}
	}
	events := slices.Clone(f.Events)
	slices.Sort(events)
	f.Events = slices.Compact(events)
	if slices.Contains(f.Events, EventAll) {
		f.Events = []EventType{EventAll}
	}
	return f, nil
}

// stored is events as the webhooks table keeps them.
func stored(events []EventType) []string { return valuesOf[string](events) }

// Create makes a webhook of the workspace with a new secret, shown once in the answer.
func (e *Engine) Create(ctx context.Context, workspaceID, actorID string, f Fields) (WithSecret, error) {
	f, err := e.checkFields(ctx, f)
	if err != nil {
		return WithSecret{}, err
	}
	key := newSecret()
	var out WithSecret
	err = e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.WebhookInsert(ctx, dbsqlc.WebhookInsertParams{ID: dbcore.NewID(), WorkspaceID: workspaceID,
			URL: f.URL, Description: f.Description, Events: stored(f.Events), Enabled: f.Enabled, Secret: e.seal.seal(key),
			CreatedBy: dbcore.Optional(actorID)})
		if err != nil {
			return dbcore.Wrap(err, "insert webhook")
		}
		out = WithSecret{Webhook: webhookOf(row), Secret: formatSecret(key)}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditWebhookCreated, WorkspaceID: workspaceID,
			ActorID: actorID, Target: auditTarget(row), Changes: map[string]any{"after": auditFields(f)}})
	})
	return out, err
}

// Get reads a webhook of the workspace.
func (e *Engine) Get(ctx context.Context, workspaceID, id string) (Webhook, error) {
	row, err := getWebhook(ctx, e.core.Q, workspaceID, id)
	return webhookOf(row), err
}

// getWebhook reads the workspace's webhook id; one of another workspace, or none, is not found.
func getWebhook(ctx context.Context, q *dbsqlc.Queries, workspaceID, id string) (dbsqlc.Webhook, error) {
	return dbcore.OrNotFound(q.WebhookGet(ctx, dbsqlc.WebhookGetParams{ID: id, WorkspaceID: workspaceID}))(
		"webhook not found", "get webhook")
}

// List lists the workspace's webhooks, oldest first.
func (e *Engine) List(ctx context.Context, workspaceID string) ([]Webhook, error) {
	rows, err := e.core.Q.WebhookListByWorkspace(ctx, workspaceID)
	return dbcore.MapRows(rows, webhookOf), dbcore.Wrap(err, "list webhooks")
}

// Update changes a webhook: edit gets its current fields and answers the new ones, checked as on create.
func (e *Engine) Update(ctx context.Context, workspaceID, id string, edit func(Fields) Fields) (Webhook, error) {
	var out Webhook
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := getWebhook(ctx, q, workspaceID, id)
		if err != nil {
			return err
		}
		was := Fields{URL: cur.URL, Description: cur.Description, Events: eventsOf(cur.Events), Enabled: cur.Enabled}
		f := edit(was)
		if f, err = e.checkFields(ctx, f); err != nil {
			return err
		}
		row, err := q.WebhookUpdate(ctx, dbsqlc.WebhookUpdateParams{ID: id, WorkspaceID: workspaceID, URL: f.URL,
			Description: f.Description, Events: stored(f.Events), Enabled: f.Enabled})
		out = webhookOf(row)
		if err != nil {
			return dbcore.Wrap(err, "update webhook")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditWebhookChanged, WorkspaceID: workspaceID,
			Target: auditTarget(row), Changes: map[string]any{"before": auditFields(was), "after": auditFields(f)}})
	})
	return out, err
}

// Delete deletes a webhook and its deliveries (their pending jobs then find nothing to send).
func (e *Engine) Delete(ctx context.Context, workspaceID, id string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := getWebhook(ctx, q, workspaceID, id)
		if err != nil {
			return err
		}
		n, err := q.WebhookDelete(ctx, dbsqlc.WebhookDeleteParams{ID: id, WorkspaceID: workspaceID})
		if err != nil {
			return dbcore.Wrap(err, "delete webhook")
		}
		if n == 0 {
			return dbcore.NotFound("webhook not found")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditWebhookDeleted, WorkspaceID: workspaceID,
			Target: auditTarget(cur), Changes: map[string]any{"before": auditFields(Fields{URL: cur.URL,
				Description: cur.Description, Events: eventsOf(cur.Events), Enabled: cur.Enabled})}})
	})
}

// auditTarget names a webhook in the audit log: by its address.
func auditTarget(w dbsqlc.Webhook) db.AuditTarget {
	return db.AuditTarget{Type: "webhook", ID: w.ID, Name: w.URL}
}

// auditFields are a webhook's fields as the audit log shows them: never its secret.
func auditFields(f Fields) map[string]any {
	return map[string]any{"url": f.URL, "description": f.Description, "events": f.Events, "enabled": f.Enabled}
}

// RotateSecret gives a webhook a new secret, shown once; the one it replaces keeps signing beside it
// for RotationOverlap.
func (e *Engine) RotateSecret(ctx context.Context, workspaceID, id string) (WithSecret, error) {
	key := newSecret()
	var out WithSecret
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.WebhookRotateSecret(ctx, dbsqlc.WebhookRotateSecretParams{ID: id,
			WorkspaceID: workspaceID, Secret: e.seal.seal(key),
			PreviousExpiresAt: time.Now().Add(RotationOverlap)}))("webhook not found", "rotate webhook secret")
		if err != nil {
			return err
		}
		out = WithSecret{Webhook: webhookOf(row), Secret: formatSecret(key)}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditWebhookChanged, WorkspaceID: workspaceID,
			Target: auditTarget(row), Changes: map[string]bool{"secretRotated": true}})
	})
	return out, err
}

// Ping enqueues a ping delivery to the webhook (whether or not it is enabled) and answers it.
func (e *Engine) Ping(ctx context.Context, workspaceID, id string) (Delivery, error) {
	var out Delivery
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := getWebhook(ctx, q, workspaceID, id); err != nil {
			return err
		}
		var err error
		out, err = e.EnqueueTx(ctx, tx, Message{WorkspaceID: workspaceID, WebhookID: id, Type: EventPing,
			Data: map[string]any{"webhookId": id}})
		return err
	})
	return out, err
}

// Message is a delivery to enqueue: to a webhook, or, for a pipeline step, to URL (signed with the
// secret of WebhookID's webhook).
type Message struct {
	WorkspaceID string
	WebhookID   string
	URL         string
	Source      string
	Type        string
	Data        any
	// Body, when set, is sent as it is instead of the {id, type, createdAt, workspaceId, data} payload.
	Body json.RawMessage
}

// EnqueueTx records a delivery of m and enqueues its job in tx.
func (e *Engine) EnqueueTx(ctx context.Context, tx pgx.Tx, m Message) (Delivery, error) {
	id := dbcore.NewWebhookDeliveryID()
	body := m.Body
	if body == nil {
		var err error
		body, err = json.Marshal(Payload{ID: id, Type: m.Type, CreatedAt: time.Now().UTC(), WorkspaceID: m.WorkspaceID,
			Data: m.Data})
		if err != nil {
			return Delivery{}, fmt.Errorf("encode webhook payload: %w", err)
		}
	}
	return e.insert(ctx, tx, dbsqlc.WebhookDeliveryInsertParams{ID: id, WorkspaceID: m.WorkspaceID,
		WebhookID: dbcore.Optional(m.WebhookID), URL: dbcore.Optional(m.URL), Source: dbcore.Optional(m.Source),
		EventType: m.Type, Payload: body})
}

// EnqueueActivityTx records a delivery of an activity to a webhook of the workspace and enqueues its job
// in tx, as a change's own deliveries are (an automation's send_webhook action). Its payload is built
// from the activity at the first attempt.
func (e *Engine) EnqueueActivityTx(ctx context.Context, tx pgx.Tx, workspaceID, webhookID, activityID,
	source string) (Delivery, error) {
	q := dbcore.Queries(tx)
	if _, err := getWebhook(ctx, q, workspaceID, webhookID); err != nil {
		return Delivery{}, err
	}
	typ, err := dbcore.OrNotFound(q.WebhookActivityType(ctx, activityID))("activity not found", "get activity")
	if err != nil {
		return Delivery{}, err
	}
	return e.insert(ctx, tx, dbsqlc.WebhookDeliveryInsertParams{ID: dbcore.NewWebhookDeliveryID(),
		WorkspaceID: workspaceID, WebhookID: &webhookID, Source: dbcore.Optional(source), EventType: typ,
		ActivityID: &activityID})
}

// insert records a delivery and enqueues its job.
func (e *Engine) insert(ctx context.Context, tx pgx.Tx, p dbsqlc.WebhookDeliveryInsertParams) (Delivery, error) {
	row, err := dbcore.Queries(tx).WebhookDeliveryInsert(ctx, p)
	if err != nil {
		return Delivery{}, dbcore.Wrap(err, "record webhook delivery")
	}
	return Delivery(row), e.core.Enqueue(ctx, tx, []river.InsertManyParams{dbcore.WebhookDeliveryJob(p.ID)})
}

// WaitRef is what a pipeline step sending delivery id waits for: the delivery's end completes it
// (output statusCode) or fails it.
func WaitRef(id string) string { return "webhook:" + id }

// Delivery is one message to a webhook and how its attempts went.
type Delivery struct {
	ID             string
	WorkspaceID    string
	WebhookID      *string
	URL            *string
	Source         *string
	EventType      string
	ActivityID     *string
	Payload        []byte // JSON; nil until an activity delivery's first attempt
	Status         string
	Attempts       int32
	ResponseStatus *int32
	ResponseBody   *string
	DurationMs     *int32
	Error          *string
	NextAttemptAt  *time.Time
	LastAttemptAt  *time.Time
	RedeliveredAt  *time.Time
	CreatedAt      time.Time
}

// Delivery statuses.
const (
	StatusPending   = "pending"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
)

// deliveriesList names the deliveries list in its cursors.
const deliveriesList = "webhook-deliveries"

// deliveryKey is the keyset of the deliveries list: the id, which is time-ordered.
type deliveryKey struct {
	ID string `json:"i"`
}

// firstDeliveryBound sorts after every delivery id (msg_ and hex digits): a first page's bound.
const firstDeliveryBound = "msg_z"

// Deliveries lists a page of a webhook's deliveries, newest first (docs/pagination.md).
func (e *Engine) Deliveries(ctx context.Context, workspaceID, webhookID string, p db.Page) (db.Paged[Delivery], error) {
	k := deliveryKey{ID: firstDeliveryBound}
	if ok, err := p.After(deliveriesList, &k); err != nil {
		return db.Paged[Delivery]{}, err
	} else if ok && !IsDeliveryID(k.ID) {
		return db.Paged[Delivery]{}, db.ErrBadCursor
	}
	var out []Delivery
	err := e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		if _, err := getWebhook(ctx, q, workspaceID, webhookID); err != nil {
			return err
		}
		rows, err := q.WebhookDeliveryListByWebhook(ctx, dbsqlc.WebhookDeliveryListByWebhookParams{WorkspaceID: workspaceID,
			WebhookID: &webhookID, Before: k.ID, Lim: p.Fetch()})
		out = dbcore.MapRows(rows, func(r dbsqlc.WebhookDelivery) Delivery { return Delivery(r) })
		return dbcore.Wrap(err, "list webhook deliveries")
	})
	if err != nil {
		return db.Paged[Delivery]{}, err
	}
	return db.PageOf(p, deliveriesList, out, func(d Delivery) any { return deliveryKey{ID: d.ID} }), nil
}

// IsDeliveryID reports whether s has the shape of a delivery id: msg_ and 32 lower-case hex digits.
func IsDeliveryID(s string) bool {
	hex, ok := strings.CutPrefix(s, "msg_")
	if !ok || len(hex) != 32 {
		return false
	}
	for _, c := range hex {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Redeliver sends a delivery of the webhook again, now, with its id and payload (signed anew). A
// finished delivery gets a new round of attempts, its retry window starting now. A pending one, waiting
// for its next retry, is attempted now by the job that holds its schedule (redeliverPendingTx): should
// this attempt fail, its retries go on with their backoff; should it succeed, the delivery is over and
// nothing more is sent.
func (e *Engine) Redeliver(ctx context.Context, workspaceID, webhookID, deliveryID string) (Delivery, error) {
	var out Delivery
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.WebhookDeliveryGetForUpdate(ctx, dbsqlc.WebhookDeliveryGetForUpdateParams{
			ID: deliveryID, WebhookID: &webhookID, WorkspaceID: workspaceID}))("delivery not found", "get webhook delivery")
		if err != nil {
			return err
		}
		if cur.Status == StatusPending {
			out, err = e.redeliverPendingTx(ctx, tx, q, deliveryID)
			return err
		}
		row, err := q.WebhookDeliveryRedeliver(ctx, dbsqlc.WebhookDeliveryRedeliverParams{ID: deliveryID,
			WebhookID: &webhookID, WorkspaceID: workspaceID})
		if err != nil {
			return dbcore.Wrap(err, "redeliver")
		}
		out = Delivery(row)
		return e.core.Enqueue(ctx, tx, []river.InsertManyParams{dbcore.WebhookDeliveryJob(deliveryID)})
	})
	return out, err
}

// liveJobStates are the states of a delivery job that will still run (or runs now).
var liveJobStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled}

// redeliverPendingTx makes a pending delivery's next attempt now, in tx, whose caller has locked the
// delivery: its job, snoozed until the next retry, is made available at once (River's JobRetry), so
// there is still one job and one schedule. A job running now is the attempt asked for; a delivery whose
// job is gone (cancelled by hand, say) gets a new one.
func (e *Engine) redeliverPendingTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, id string) (Delivery, error) {
	row, err := q.WebhookDeliveryHasten(ctx, id)
	if err != nil {
		return Delivery{}, dbcore.Wrap(err, "hasten webhook delivery")
	}
	args, err := json.Marshal(jobs.WebhookDeliveryArgs{DeliveryID: id})
	if err != nil {
		return Delivery{}, fmt.Errorf("encode job args: %w", err)
	}
	found, err := e.core.River.JobListTx(ctx, tx, river.NewJobListParams().Kinds(jobs.WebhookDeliveryArgs{}.Kind()).
		States(liveJobStates...).Where("args @> @args::jsonb", river.NamedArgs{"args": string(args)}))
	if err != nil {
		return Delivery{}, fmt.Errorf("find the delivery's job: %w", err)
	}
	if len(found.Jobs) == 0 {
		return Delivery(row), e.core.Enqueue(ctx, tx, []river.InsertManyParams{dbcore.WebhookDeliveryJob(id)})
	}
	for _, job := range found.Jobs {
		if job.State == rivertype.JobStateRunning {
			continue
		}
		if _, err := e.core.River.JobRetryTx(ctx, tx, job.ID); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
			return Delivery{}, fmt.Errorf("make the delivery's job available: %w", err)
		}
	}
	return Delivery(row), nil
}

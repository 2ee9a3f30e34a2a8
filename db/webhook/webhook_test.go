package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// verifySpec verifies a delivery as the Standard Webhooks specification describes it, written apart from
// the signing code: the secret is whsec_ and the base64 of the key; the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>"; webhook-signature lists space-separated "v1,<base64 of
// HMAC-SHA256>" signatures, any of which may match; the timestamp must be within 5 minutes.
func verifySpec(secret string, h http.Header, body []byte) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	var unix int64
	if _, err := fmt.Sscan(ts, &unix); err != nil || time.Since(time.Unix(unix, 0)).Abs() > 5*time.Minute {
		return fmt.Errorf("timestamp %q", ts)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if v, s, ok := strings.Cut(sig, ","); ok && v == "v1" && hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return fmt.Errorf("no signature matches")
}

// request is what a receiver got.
type request struct {
	header http.Header
	body   []byte
}

// receiver is an HTTP receiver answering each request with the next of codes (the last one once they
// run out), keeping what it got.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	codes []int
	got   []request
}

func newReceiver(t *testing.T, codes ...int) *receiver {
	r := &receiver{codes: codes}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, request{header: req.Header.Clone(), body: body})
		code := r.codes[0]
		if len(r.codes) > 1 {
			r.codes = r.codes[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(code)
		_, _ = w.Write([]byte(strings.Repeat("x", 10000)))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.got...)
}

type bundle struct {
	*testfactory.Bundle
	team testfactory.Team
	eng  *webhook.Engine
}

func setup(t *testing.T, opts webhook.Options) bundle {
	t.Helper()
	t.Parallel()
	b := testfactory.Store(t)
	return bundle{Bundle: b, team: testfactory.NewTeam(t, b.Engines), eng: engines.New(b.Pool, b.River,
		engines.Options{Webhooks: opts}).Webhooks}
}

// deliveries answers the ids of the deliveries of webhookID, oldest first.
func (b bundle) deliveries(t *testing.T, webhookID string) []webhook.Delivery {
	t.Helper()
	page, err := b.eng.Deliveries(context.Background(), b.team.Owner.Workspace.ID, webhookID, db.Page{Limit: 100})
	require.NoError(t, err)
	ds := page.Items
	for i, j := 0, len(ds)-1; i < j; i, j = i+1, j-1 {
		ds[i], ds[j] = ds[j], ds[i]
	}
	return ds
}

func (b bundle) create(t *testing.T, url string, events ...webhook.EventType) webhook.WithSecret {
	t.Helper()
	w, err := b.eng.Create(context.Background(), b.team.Owner.Workspace.ID, b.team.Owner.User.ID, webhook.Fields{URL: url,
		Events: events, Enabled: true})
	require.NoError(t, err)
	return w
}

func TestWebhookSignedDeliveryOfACardCreate(t *testing.T) {
	b := setup(t, webhook.Options{})
	ctx := context.Background()
	rcv := newReceiver(t, http.StatusAccepted)
	w := b.create(t, rcv.URL, "card_created")
	require.True(t, strings.HasPrefix(w.Secret, "whsec_"))
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(w.Secret, "whsec_"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(key), 24)

	card := testfactory.Card(t, b.Engines, b.team.Project, nil)
	testfactory.Card(t, b.Engines, b.team.Project, nil)
	ds := b.deliveries(t, w.ID)
	require.Len(t, ds, 2, "one delivery per card_created")
	require.Len(t, b.Jobs(t, jobs.WebhookDeliveryArgs{}.Kind()), 2, "one job per delivery, inserted with the card")
	require.Equal(t, "card_created", ds[0].EventType)
	require.Nil(t, ds[0].Payload, "the payload is built at the first attempt")

	wait, err := b.eng.Attempt(ctx, ds[0].ID)
	require.NoError(t, err)
	require.Zero(t, wait)
	got := rcv.requests()
	require.Len(t, got, 1)
	r := got[0]
	require.Equal(t, ds[0].ID, r.header.Get("webhook-id"))
	require.NoError(t, verifySpec(w.Secret, r.header, r.body), "the specification's verification")
	lib, err := standardwebhooks.NewWebhook(w.Secret)
	require.NoError(t, err)
	require.NoError(t, lib.Verify(r.body, r.header), "the Standard Webhooks library's verification")

	var p struct {
		ID, Type, WorkspaceID string
		CreatedAt             time.Time
		Data                  struct {
			ID, Type, WorkspaceID      string
			ProjectID, CardID, ActorID *string
			DocumentID                 *string
			Meta                       map[string]any
			CreatedAt                  time.Time
		}
	}
	require.NoError(t, json.Unmarshal(r.body, &p))
	require.Equal(t, ds[0].ID, p.ID)
	require.Equal(t, "card_created", p.Type)
	require.Equal(t, b.team.Owner.Workspace.ID, p.WorkspaceID)
	require.Equal(t, "card_created", p.Data.Type)
	require.Equal(t, card.ID, *p.Data.CardID)
	require.Equal(t, b.team.Project.ID, *p.Data.ProjectID)
	require.Nil(t, p.Data.DocumentID)
	require.Equal(t, card.Title, p.Data.Meta["title"])
	// data is the workspace feed's own event: its id is the activity's feed position.
	feed, err := b.Store.EventsAfter(ctx, b.team.Owner.Workspace.ID, 0, 0, 100)
	require.NoError(t, err)
	i := slices.IndexFunc(feed, func(e db.FeedEvent) bool { return e.CardID != nil && *e.CardID == card.ID })
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, feed[i].ID, p.Data.ID)

	d := b.deliveries(t, w.ID)[0]
	require.Equal(t, webhook.StatusSucceeded, d.Status)
	require.EqualValues(t, 1, d.Attempts)
	require.EqualValues(t, http.StatusAccepted, *d.ResponseStatus)
	require.Len(t, *d.ResponseBody, 4096, "the body is kept truncated")
	require.Equal(t, string(r.body), string(d.Payload), "the payload sent is kept")

	// A second run of the same job sends nothing more.
	wait, err = b.eng.Attempt(ctx, ds[0].ID)
	require.NoError(t, err)
	require.Zero(t, wait)
	require.Len(t, rcv.requests(), 1)
}

func TestWebhookRotationSignsWithBothSecrets(t *testing.T) {
	b := setup(t, webhook.Options{})
	ctx := context.Background()
	rcv := newReceiver(t, http.StatusOK)
	w := b.create(t, rcv.URL, "*")
	rotated, err := b.eng.RotateSecret(ctx, b.team.Owner.Workspace.ID, w.ID)
	require.NoError(t, err)
	require.NotEqual(t, w.Secret, rotated.Secret)
	require.NotNil(t, rotated.PreviousSecretExpiresAt)
	require.WithinDuration(t, time.Now().Add(24*time.Hour), *rotated.PreviousSecretExpiresAt, time.Minute)

	d, err := b.eng.Ping(ctx, b.team.Owner.Workspace.ID, w.ID)
	require.NoError(t, err)
	_, err = b.eng.Attempt(ctx, d.ID)
	require.NoError(t, err)
	r := rcv.requests()[0]
	require.Len(t, strings.Fields(r.header.Get("webhook-signature")), 2)
	require.NoError(t, verifySpec(w.Secret, r.header, r.body), "the old secret still verifies")
	require.NoError(t, verifySpec(rotated.Secret, r.header, r.body), "the new secret verifies")
	require.Error(t, verifySpec("whsec_"+base64.StdEncoding.EncodeToString([]byte("another key of twenty-four+")),
		r.header, r.body))
	require.Contains(t, string(r.body), `"type":"ping"`)
}

func TestWebhookRetriesUntilTheReceiverRecovers(t *testing.T) {
	b := setup(t, webhook.Options{})
	ctx := context.Background()
	rcv := newReceiver(t, http.StatusInternalServerError, http.StatusBadGateway, http.StatusOK)
	w := b.create(t, rcv.URL, "card_created")
	testfactory.Card(t, b.Engines, b.team.Project, nil)
	id := b.deliveries(t, w.ID)[0].ID

	for range 2 {
		wait, err := b.eng.Attempt(ctx, id)
		require.NoError(t, err)
		require.Positive(t, wait, "a failed attempt within the window is retried")
		d := b.deliveries(t, w.ID)[0]
		require.Equal(t, webhook.StatusPending, d.Status)
		require.NotNil(t, d.NextAttemptAt)
	}
	wait, err := b.eng.Attempt(ctx, id)
	require.NoError(t, err)
	require.Zero(t, wait)
	d := b.deliveries(t, w.ID)[0]
	require.Equal(t, webhook.StatusSucceeded, d.Status)
	require.EqualValues(t, 3, d.Attempts)
	got := rcv.requests()
	require.Len(t, got, 3)
	for _, r := range got {
		require.Equal(t, id, r.header.Get("webhook-id"), "every attempt carries the same webhook-id")
		require.Equal(t, string(got[0].body), string(r.body), "and the same body")
	}
}

func TestWebhookGoneDisablesAndTellsTheAdmins(t *testing.T) {
	b := setup(t, webhook.Options{})
	ctx := context.Background()
	rcv := newReceiver(t, http.StatusGone)
	w := b.create(t, rcv.URL, "card_created")
	testfactory.Card(t, b.Engines, b.team.Project, nil)
	testfactory.Card(t, b.Engines, b.team.Project, nil)
	ds := b.deliveries(t, w.ID)

	wait, err := b.eng.Attempt(ctx, ds[0].ID)
	require.NoError(t, err)
	require.Zero(t, wait, "a 410 is not retried")
	got, err := b.eng.Get(ctx, b.team.Owner.Workspace.ID, w.ID)
	require.NoError(t, err)
	require.False(t, got.Enabled)
	require.Contains(t, *got.DisabledReason, "410")
	require.Equal(t, 1, b.Count(t,
		`SELECT count(*) FROM activities WHERE type = 'webhook_disabled' AND $1 = ANY (recipients)`, b.team.Owner.User.ID),
		"the workspace's admin is told")

	// The other delivery is given up without a request, and a new card enqueues nothing.
	_, err = b.eng.Attempt(ctx, ds[1].ID)
	require.NoError(t, err)
	require.Len(t, rcv.requests(), 1)
	require.Equal(t, webhook.StatusFailed, b.deliveries(t, w.ID)[1].Status)
	testfactory.Card(t, b.Engines, b.team.Project, nil)
	require.Len(t, b.deliveries(t, w.ID), 2)
}

func TestWebhookRunOfFailuresDisables(t *testing.T) {
	// A window shorter than the first retry: every failure is final.
	b := setup(t, webhook.Options{AttemptWindow: time.Millisecond, FailureLimit: 2})
	ctx := context.Background()
	rcv := newReceiver(t, http.StatusServiceUnavailable)
	w := b.create(t, rcv.URL, "card_created")
	testfactory.Card(t, b.Engines, b.team.Project, nil)
	testfactory.Card(t, b.Engines, b.team.Project, nil)
	ds := b.deliveries(t, w.ID)

	_, err := b.eng.Attempt(ctx, ds[0].ID)
	require.NoError(t, err)
	got, _ := b.eng.Get(ctx, b.team.Owner.Workspace.ID, w.ID)
	require.True(t, got.Enabled)
	require.EqualValues(t, 1, got.ConsecutiveFailures)
	_, err = b.eng.Attempt(ctx, ds[1].ID)
	require.NoError(t, err)
	got, _ = b.eng.Get(ctx, b.team.Owner.Workspace.ID, w.ID)
	require.False(t, got.Enabled, "the second failure in a row disables it")
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM activities WHERE type = 'webhook_disabled'`))

	// Enabling it again starts afresh.
	got, err = b.eng.Update(ctx, b.team.Owner.Workspace.ID, w.ID,
		func(f webhook.Fields) webhook.Fields { f.Enabled = true; return f })
	require.NoError(t, err)
	require.True(t, got.Enabled)
	require.Zero(t, got.ConsecutiveFailures)
	require.Nil(t, got.DisabledReason)
}

func TestWebhookDeliveriesCommitWithTheChange(t *testing.T) {
	b := setup(t, webhook.Options{})
	ctx := context.Background()
	w := b.create(t, "http://receiver.test/hook", "*")
	other := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("other@example.com")})
	otherProject := testfactory.NewProject(t, b.Engines, other, nil)

	// A change that rolls back leaves neither delivery nor job.
	tx, err := b.Pool.Begin(ctx)
	require.NoError(t, err)
	_, err = b.Board.CreateCardTx(ctx, tx, board.NewCard{WorkspaceID: b.team.Project.WorkspaceID,
		ProjectID: b.team.Project.ID, ColumnID: b.team.Project.Columns[0], ActorID: b.team.Owner.User.ID,
		Title: "Rolled back"})
	require.NoError(t, err)
	require.NoError(t, tx.Rollback(ctx))
	require.Empty(t, b.deliveries(t, w.ID))
	require.Empty(t, b.Jobs(t, jobs.WebhookDeliveryArgs{}.Kind()))

	// Another workspace's card goes to none of this workspace's webhooks.
	testfactory.Card(t, b.Engines, otherProject, nil)
	require.Empty(t, b.deliveries(t, w.ID))
	require.Empty(t, b.Jobs(t, jobs.WebhookDeliveryArgs{}.Kind()))

	// A comment is delivered to "*".
	card := testfactory.Card(t, b.Engines, b.team.Project, nil)
	_, err = b.Board.CreateComment(ctx, db.CardEdit{ProjectID: b.team.Project.ID, CardID: card.ID,
		ActorID: b.team.Owner.User.ID}, "Hi")
	require.NoError(t, err)
	var types []string
	for _, d := range b.deliveries(t, w.ID) {
		types = append(types, d.EventType)
	}
	require.Equal(t, []string{"card_created", "comment_added"}, types)
	require.Len(t, b.Jobs(t, jobs.WebhookDeliveryArgs{}.Kind()), 2)
}

func TestWebhookRefusesInternalAddressesInProduction(t *testing.T) {
	b := setup(t, webhook.Options{Production: true})
	ctx := context.Background()
	for _, url := range []string{"http://127.0.0.1:8080/hook", "http://localhost/hook", "http://10.1.2.3/",
		"http://192.168.0.10/",
		"http://172.16.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/", "http://[fe80::1]/",
		"http://[fd00::1]/",
		"http://0.0.0.0/", "http://100.64.0.1/", "ftp://example.com/", "file:///etc/passwd", "http://user:pw@example.com/",
		"not a url"} {
		_, err := b.eng.Create(ctx, b.team.Owner.Workspace.ID, b.team.Owner.User.ID, webhook.Fields{URL: url,
			Events: []webhook.EventType{"*"}, Enabled: true})
		require.ErrorIs(t, err, db.ErrInvalid, url)
	}

	// A webhook whose address was allowed when written (outside production here, a name that resolved
	// elsewhere in real life) is refused again where the request dials.
	rcv := newReceiver(t, http.StatusOK)
	dev, err := engines.New(b.Pool, b.River, engines.Options{Webhooks: webhook.Options{}}).Webhooks.Create(ctx,
		b.team.Owner.Workspace.ID, b.team.Owner.User.ID, webhook.Fields{URL: rcv.URL,
			Events: []webhook.EventType{"card_deleted"}, Enabled: true})
	require.NoError(t, err)
	w := dev.ID
	d, err := b.eng.Ping(ctx, b.team.Owner.Workspace.ID, w)
	require.NoError(t, err)
	wait, err := b.eng.Attempt(ctx, d.ID)
	require.NoError(t, err)
	require.Positive(t, wait)
	require.Empty(t, rcv.requests(), "the dial was refused")
	got := b.deliveries(t, w)[0]
	require.Contains(t, *got.Error, "loopback, private, link-local")
	require.Nil(t, got.ResponseStatus)

	// WEBHOOK_ALLOW_PRIVATE lets them through.
	allowed := engines.New(b.Pool, b.River, engines.Options{Webhooks: webhook.Options{Production: true,
		AllowPrivate: true}}).Webhooks
	_, err = allowed.Create(ctx, b.team.Owner.Workspace.ID, b.team.Owner.User.ID, webhook.Fields{URL: rcv.URL,
		Events: []webhook.EventType{"*"}, Enabled: true})
	require.NoError(t, err)
	d, err = allowed.Ping(ctx, b.team.Owner.Workspace.ID, w)
	require.NoError(t, err)
	_, err = allowed.Attempt(ctx, d.ID)
	require.NoError(t, err)
	require.Len(t, rcv.requests(), 1)
}

func TestWebhookRedirectIsNotFollowedAndPingsReachDisabledWebhooks(t *testing.T) {
	b := setup(t, webhook.Options{})
	ctx := context.Background()
	target := newReceiver(t, http.StatusOK)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirect.Close)
	w := b.create(t, redirect.URL, "card_created")
	_, err := b.eng.Update(ctx, b.team.Owner.Workspace.ID, w.ID,
		func(f webhook.Fields) webhook.Fields { f.Enabled = false; return f })
	require.NoError(t, err)

	d, err := b.eng.Ping(ctx, b.team.Owner.Workspace.ID, w.ID)
	require.NoError(t, err)
	wait, err := b.eng.Attempt(ctx, d.ID)
	require.NoError(t, err)
	require.Positive(t, wait, "a 307 is a failure, retried")
	require.Empty(t, target.requests(), "the redirect was not followed")
	got := b.deliveries(t, w.ID)[0]
	require.EqualValues(t, http.StatusTemporaryRedirect, *got.ResponseStatus)
	require.Equal(t, webhook.StatusPending, got.Status)
}

func TestWebhookRedeliverSendsTheSameMessageAgain(t *testing.T) {
	b := setup(t, webhook.Options{AttemptWindow: time.Millisecond})
	ctx := context.Background()
	rcv := newReceiver(t, http.StatusInternalServerError, http.StatusOK)
	w := b.create(t, rcv.URL, "card_created")
	testfactory.Card(t, b.Engines, b.team.Project, nil)
	id := b.deliveries(t, w.ID)[0].ID

	d, err := b.eng.Redeliver(ctx, b.team.Owner.Workspace.ID, w.ID, id)
	require.NoError(t, err, "a pending delivery is sent now too")
	require.Equal(t, webhook.StatusPending, d.Status)
	require.Len(t, b.Jobs(t, jobs.WebhookDeliveryArgs{}.Kind()), 1, "by the job it has")
	_, err = b.eng.Attempt(ctx, id)
	require.NoError(t, err)
	require.Equal(t, webhook.StatusFailed, b.deliveries(t, w.ID)[0].Status)

	d, err = b.eng.Redeliver(ctx, b.team.Owner.Workspace.ID, w.ID, id)
	require.NoError(t, err)
	require.Equal(t, webhook.StatusPending, d.Status)
	require.Len(t, b.Jobs(t, jobs.WebhookDeliveryArgs{}.Kind()), 2, "the first job and the redelivery's")
	_, err = b.eng.Attempt(ctx, id)
	require.NoError(t, err)
	got := b.deliveries(t, w.ID)[0]
	require.Equal(t, webhook.StatusSucceeded, got.Status)
	require.EqualValues(t, 2, got.Attempts)
	reqs := rcv.requests()
	require.Len(t, reqs, 2)
	require.Equal(t, reqs[0].header.Get("webhook-id"), reqs[1].header.Get("webhook-id"))
	require.Equal(t, string(reqs[0].body), string(reqs[1].body))

	_, err = b.eng.Redeliver(ctx, b.team.Owner.Workspace.ID, w.ID, "msg_0123456789abcdef0123456789abcdef")
	require.ErrorIs(t, err, db.ErrNotFound)
}

// The engine refuses an event type that names no activity, whoever calls it, with the valid ones in
// the message; "*" stands alone, and each type is kept once.
func TestWebhookEventsMustBeEventTypes(t *testing.T) {
	b := setup(t, webhook.Options{})
	ctx := context.Background()
	ws, actor := b.team.Owner.Workspace.ID, b.team.Owner.User.ID
	_, err := b.eng.Create(ctx, ws, actor, webhook.Fields{URL: "http://receiver.test/hook",
		Events: []webhook.EventType{"card_created", "no_such_event"}, Enabled: true})
	require.ErrorIs(t, err, db.ErrInvalid)
	require.ErrorContains(t, err, `"no_such_event" is not an event type`)
	require.ErrorContains(t, err, "expected one of card_created, card_updated")
	require.ErrorContains(t, err, "webhook_disabled")
	require.Zero(t, b.Count(t, `SELECT count(*) FROM webhooks`))

	require.Contains(t, webhook.EventTypes, webhook.EventType(db.ActivityWebhookDisabled))
	require.Equal(t, len(db.ActivityTypes)+1, len(webhook.EventTypes), "every activity type, and *")
	for _, v := range webhook.EventTypes {
		require.True(t, v.Valid(), v)
	}
	require.False(t, webhook.EventType("ping").Valid(), "a ping is sent, never subscribed to")

	w := b.create(t, "http://receiver.test/hook", "comment_added", "card_created", "comment_added")
	require.Equal(t, []webhook.EventType{"card_created", "comment_added"}, w.Events)
	got, err := b.eng.Update(ctx, ws, w.ID, func(f webhook.Fields) webhook.Fields {
		f.Events = append(f.Events, webhook.EventAll)
		return f
	})
	require.NoError(t, err)
	require.Equal(t, []webhook.EventType{webhook.EventAll}, got.Events)
	_, err = b.eng.Update(ctx, ws, w.ID, func(f webhook.Fields) webhook.Fields {
		f.Events = []webhook.EventType{"Card_Created"}
		return f
	})
	require.ErrorIs(t, err, db.ErrInvalid)
}

// A receiver that does not answer within the request timeout fails the attempt with a timeout error,
// and the delivery waits for its next retry. The timeout is an option (10 s by default), short here.
func TestWebhookAttemptTimesOut(t *testing.T) {
	b := setup(t, webhook.Options{RequestTimeout: 200 * time.Millisecond})
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		select { // no answer until the client gives up (closing the connection) or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(silent.Close)
	t.Cleanup(func() { close(release) }) // runs first
	w := b.create(t, silent.URL, "card_created")
	testfactory.Card(t, b.Engines, b.team.Project, nil)
	id := b.deliveries(t, w.ID)[0].ID

	start := time.Now()
	wait, err := b.eng.Attempt(context.Background(), id)
	took := time.Since(start)
	require.NoError(t, err)
	<-arrived
	require.Positive(t, wait, "retried later")
	require.Less(t, took, 5*time.Second, "the attempt gives up at its timeout")
	got := b.deliveries(t, w.ID)[0]
	require.Equal(t, webhook.StatusPending, got.Status)
	require.EqualValues(t, 1, got.Attempts)
	require.Nil(t, got.ResponseStatus)
	require.Equal(t, "timeout: the receiver did not answer within 200ms", *got.Error)
	require.GreaterOrEqual(t, *got.DurationMs, int32(200))
}

// The retention sweep deletes the finished deliveries whose last event is older than the retention,
// in batches, and keeps pending ones whatever their age, and recent or recently redelivered ones.
func TestWebhookSweepDeletesOldFinishedDeliveries(t *testing.T) {
	b := setup(t, webhook.Options{DeliveryRetention: 24 * time.Hour})
	ctx := context.Background()
	ws := b.team.Owner.Workspace.ID
	w := b.create(t, "http://receiver.test/hook", "card_created")
	age := func(status, set string) string {
		t.Helper()
		d, err := b.eng.Ping(ctx, ws, w.ID)
		require.NoError(t, err)
		_, err = b.Pool.Exec(ctx, `UPDATE webhook_deliveries SET status = $2, created_at = now() - interval '40 days', `+
			set+` WHERE id = $1`, d.ID, status)
		require.NoError(t, err)
		return d.ID
	}
	gone := []string{
		age(webhook.StatusSucceeded, "last_attempt_at = now() - interval '39 days'"),
		age(webhook.StatusFailed, "last_attempt_at = NULL"), // given up without an attempt
		age(webhook.StatusSucceeded, "last_attempt_at = now() - interval '25 hours'"),
	}
	kept := []string{
		age(webhook.StatusPending, "last_attempt_at = now() - interval '39 days'"),
		age(webhook.StatusSucceeded, "last_attempt_at = now() - interval '1 hour'"),
		age(webhook.StatusFailed, "last_attempt_at = now() - interval '39 days', "+
			"redelivered_at = now() - interval '2 hours'"),
	}

	n, err := b.eng.SweepDeliveries(ctx, 2)
	require.NoError(t, err)
	require.EqualValues(t, len(gone), n, "two batches: two, then one")
	var left []string
	for _, d := range b.deliveries(t, w.ID) {
		left = append(left, d.ID)
	}
	require.ElementsMatch(t, kept, left)
	n, err = b.eng.SweepDeliveries(ctx, 2)
	require.NoError(t, err)
	require.Zero(t, n)
}

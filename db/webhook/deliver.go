package webhook

// This file holds a delivery's attempt, as the webhook_delivery job makes it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// maxRetryDelay caps the backoff between two attempts.
const maxRetryDelay = time.Hour

// retryDelay is the wait before attempt n+1 after n failed ones: base doubled at each attempt, capped
// at maxRetryDelay, the upper half drawn at random (jitter), so receivers that come back are not met by
// every delivery at once.
func (e *Engine) retryDelay(n int32) time.Duration {
	d := maxRetryDelay
	if n <= 30 {
		d = min(e.opts.RetryBase<<(n-1), maxRetryDelay)
	}
	return d/2 + rand.N(d/2+1) //nolint:gosec // jitter, not a secret
}

// Attempt makes one attempt of a pending delivery and records it. It answers how long to wait before
// the next attempt (zero: none, the delivery is over: sent, given up, or not pending any more).
func (e *Engine) Attempt(ctx context.Context, deliveryID string) (time.Duration, error) {
	d, err := e.core.Q.WebhookDeliveryForAttempt(ctx, deliveryID)
	if dbcore.IsNotFound(err) {
		return 0, nil // its webhook was deleted with it
	}
	if err != nil {
		return 0, dbcore.Wrap(err, "read webhook delivery")
	}
	if d.Status != StatusPending {
		return 0, nil
	}
	if !d.WebhookEnabled && d.URL == nil && d.EventType != EventPing { // a ping tests a disabled webhook too
		return 0, e.giveUp(ctx, d, "the webhook is disabled")
	}
	payload, err := e.payload(ctx, d)
	if err != nil || payload == nil {
		return 0, err
	}
	var keys [][]byte
	for _, sealed := range [][]byte{d.Secret, d.PreviousSecret} {
		if sealed == nil {
			continue
		}
		key, err := e.seal.open(sealed)
		if err != nil {
			return 0, err
		}
		keys = append(keys, key)
	}
	res := e.send(ctx, d.Target, d.ID, payload, keys)
	return e.record(ctx, d, payload, res)
}

// payload answers the delivery's body: kept on the row, or, before an activity delivery's first
// attempt succeeded, built from the activity it read with the delivery (the attempt keeps it on the row).
// No activity (its project was deleted meanwhile): the delivery is given up, and the answer is nil.
func (e *Engine) payload(ctx context.Context, d dbsqlc.WebhookDeliveryForAttemptRow) ([]byte, error) {
	if d.Payload != nil {
		return d.Payload, nil
	}
	if d.ActivityID == nil {
		return nil, e.giveUp(ctx, d, "nothing to send")
	}
	if !d.ActivityFound {
		return nil, e.giveUp(ctx, d, "the activity is gone")
	}
	ev := eventOf(d)
	body, err := json.Marshal(Payload{ID: d.ID, Type: ev.Type, CreatedAt: ev.CreatedAt, WorkspaceID: ev.WorkspaceID,
		Data: ev})
	if err != nil {
		return nil, fmt.Errorf("encode webhook payload: %w", err)
	}
	return body, nil
}

// result is what one request came to.
type result struct {
	status   int // 0: no answer
	body     string
	duration time.Duration
	err      error
}

// send posts body to url, signed with keys, and reads at most responseBodyCap of the answer.
func (e *Engine) send(ctx context.Context, url, id string, body []byte, keys [][]byte) result {
	start := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, e.opts.RequestTimeout, errTimedOut)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	if err := setSignedHeaders(req.Header, id, time.Now(), body, keys); err != nil {
		return result{err: err}
	}
	resp, err := e.client().Do(req)
	if err != nil {
		took := time.Since(start)
		if errors.Is(context.Cause(ctx), errTimedOut) || (isTimeout(err) && took >= e.opts.RequestTimeout) {
			err = fmt.Errorf("timeout: the receiver did not answer within %s", e.opts.RequestTimeout)
		}
		return result{duration: took, err: err}
	}
	defer resp.Body.Close() //nolint:errcheck // read-only
	b, _ := io.ReadAll(io.LimitReader(resp.Body, responseBodyCap))
	return result{status: resp.StatusCode, body: strings.ToValidUTF8(string(b), string(utf8.RuneError)),
		duration: time.Since(start)}
}

// errTimedOut is the cause of an attempt's context that ran out of time.
var errTimedOut = errors.New("webhook request timed out")

// isTimeout says whether err is a timeout (the client's, the transport's waiting for the answer's
// headers, or the dialer's).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// record keeps an attempt's outcome and decides what follows: success; a 410, which disables the
// webhook; another retry within the window; or giving up, which counts towards disabling the webhook.
func (e *Engine) record(ctx context.Context, d dbsqlc.WebhookDeliveryForAttemptRow, payload []byte,
	res result) (time.Duration, error) {
	ms := dbcore.Int32(int(res.duration.Milliseconds()))
	p := dbsqlc.WebhookDeliveryRecordAttemptParams{ID: d.ID, DurationMs: &ms, Payload: payload}
	if res.status != 0 {
		st := dbcore.Int32(res.status)
		p.ResponseStatus, p.ResponseBody = &st, &res.body
	}
	var (
		wait    time.Duration
		disable string // a reason: the webhook is disabled
	)
	switch {
	case res.status >= 200 && res.status < 300:
		p.Status = StatusSucceeded
	case res.status == http.StatusGone:
		p.Status, p.Error = StatusFailed, dbcore.Optional("the receiver answered 410 Gone")
		disable = "the receiver answered 410 Gone"
	default:
		msg := fmt.Sprintf("the receiver answered %d", res.status)
		if res.err != nil {
			msg = res.err.Error()
		}
		p.Error = &msg
		wait = e.retryDelay(d.Attempts + 1)
		start := d.CreatedAt
		if d.RedeliveredAt != nil {
			start = *d.RedeliveredAt
		}
		if next := time.Now().Add(wait); next.Before(start.Add(e.opts.AttemptWindow)) {
			p.Status, p.NextAttemptAt = StatusPending, &next
		} else {
			p.Status, wait = StatusFailed, 0
		}
	}
	if p.Status == StatusSucceeded && d.URL == nil && d.ConsecutiveFailures == 0 {
		// The common case, one statement: nothing else changes.
		_, err := e.core.Q.WebhookDeliveryRecordAttempt(ctx, p)
		if dbcore.IsNotFound(err) {
			return 0, nil
		}
		return 0, dbcore.Wrap(err, "record webhook attempt")
	}
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := q.WebhookDeliveryRecordAttempt(ctx, p); err != nil {
			if dbcore.IsNotFound(err) {
				return nil // finished meanwhile
			}
			return dbcore.Wrap(err, "record webhook attempt")
		}
		if d.URL != nil { // a pipeline step's: its end ends the step, and says nothing of the webhook
			return e.endWait(ctx, tx, d, p)
		}
		if d.WebhookID == nil {
			return nil
		}
		switch {
		case p.Status == StatusSucceeded:
			return dbcore.Wrap(q.WebhookRecordSuccess(ctx, *d.WebhookID), "record webhook success")
		case disable != "":
			w, err := q.WebhookDisable(ctx, dbsqlc.WebhookDisableParams{ID: *d.WebhookID, Reason: disable})
			if dbcore.IsNotFound(err) {
				return nil // already disabled
			}
			if err != nil {
				return dbcore.Wrap(err, "disable webhook")
			}
			return e.notifyDisabled(ctx, tx, q, *d.WebhookID, w.WorkspaceID, w.URL, disable)
		case p.Status == StatusFailed:
			reason := fmt.Sprintf("%d deliveries in a row failed", e.opts.FailureLimit)
			w, err := q.WebhookRecordFailure(ctx, dbsqlc.WebhookRecordFailureParams{ID: *d.WebhookID,
				FailureLimit: dbcore.Int32(e.opts.FailureLimit), Reason: reason})
			if dbcore.IsNotFound(err) {
				return nil
			}
			if err != nil || !w.Disabled {
				return dbcore.Wrap(err, "record webhook failure")
			}
			return e.notifyDisabled(ctx, tx, q, *d.WebhookID, w.WorkspaceID, w.URL, reason)
		}
		return nil
	})
	return wait, err
}

// notifyDisabled tells the workspace's admins that a webhook was disabled, as a webhook_disabled
// activity of the workspace whose recipients they are.
func (e *Engine) notifyDisabled(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, webhookID, workspaceID, url,
	reason string) error {
	admins, err := q.WorkspaceAdminIDs(ctx, workspaceID)
	if err != nil {
		return dbcore.Wrap(err, "read workspace admins")
	}
	return e.core.RecordActivities(ctx, tx, db.Activity{WorkspaceID: workspaceID, Type: dbcore.ActivityWebhookDisabled,
		Meta: map[string]any{"webhookId": webhookID, "url": url, "reason": reason}, Recipients: admins, OnlyRecipients: true})
}

// giveUp ends a pending delivery without an attempt, failing the pipeline step waiting for it.
func (e *Engine) giveUp(ctx context.Context, d dbsqlc.WebhookDeliveryForAttemptRow, reason string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if err := q.WebhookDeliveryGiveUp(ctx, dbsqlc.WebhookDeliveryGiveUpParams{ID: d.ID, Error: reason}); err != nil {
			return dbcore.Wrap(err, "give up delivery")
		}
		return e.waits.WaitFinishedTx(ctx, tx, WaitRef(d.ID), nil, reason)
	})
}

// endWait completes the pipeline step waiting for a delivery that succeeded (output statusCode) and
// fails it when the delivery failed; a delivery still pending leaves it waiting.
func (e *Engine) endWait(ctx context.Context, tx pgx.Tx, d dbsqlc.WebhookDeliveryForAttemptRow,
	p dbsqlc.WebhookDeliveryRecordAttemptParams) error {
	out := map[string]any{"deliveryId": d.ID}
	if p.ResponseStatus != nil {
		out["statusCode"] = *p.ResponseStatus
	}
	switch p.Status {
	case StatusSucceeded:
		return e.waits.WaitFinishedTx(ctx, tx, WaitRef(d.ID), out, "")
	case StatusFailed:
		return e.waits.WaitFinishedTx(ctx, tx, WaitRef(d.ID), out, "webhook delivery failed: "+*p.Error)
	}
	return nil
}

// SweepDeliveries deletes the finished deliveries (succeeded or failed) whose last event (made, last
// attempted, redelivered) is older than Options.DeliveryRetention, oldest first, batch at a time (one
// statement each, so no transaction holds many rows), until none is left. It answers how many it
// deleted. Pending deliveries are kept whatever their age: their retries decide their end.
func (e *Engine) SweepDeliveries(ctx context.Context, batch int) (int64, error) {
	before := time.Now().Add(-e.opts.DeliveryRetention)
	var n int64
	for {
		k, err := e.core.Q.WebhookDeliveriesDeleteFinished(ctx, dbsqlc.WebhookDeliveriesDeleteFinishedParams{
			Before: before, Lim: dbcore.Int32(batch)})
		n += k
		if err != nil {
			return n, dbcore.Wrap(err, "delete old webhook deliveries")
		}
		if k < int64(batch) {
			return n, nil
		}
	}
}

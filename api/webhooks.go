package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/auth"
)

// WebhookOut is a webhook; its secret is shown only by create and rotate-secret.
type WebhookOut struct {
	ID                      string     `json:"id"`
	WorkspaceID             string     `json:"workspaceId"`
	URL                     string     `json:"url"`
	Description             string     `json:"description"`
	Events                  []string   `json:"events" doc:"Activity types delivered, or [\"*\"] for every one"`
	Enabled                 bool       `json:"enabled"`
	DisabledReason          *string    `json:"disabledReason" nullable:"true" doc:"Why deliveries disabled it (410 Gone, a run of failures)"`
	ConsecutiveFailures     int32      `json:"consecutiveFailures" doc:"Deliveries failed for good since the last success"`
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt" nullable:"true" doc:"Until when the secret replaced by the last rotation still signs"`
	CreatedBy               *string    `json:"createdBy" nullable:"true"`
	CreatedAt               time.Time  `json:"createdAt"`
	UpdatedAt               time.Time  `json:"updatedAt"`
}

func webhookOut(w webhook.Webhook) WebhookOut {
	return WebhookOut{ID: w.ID, WorkspaceID: w.WorkspaceID, URL: w.URL, Description: w.Description,
		Events: eventNames(w.Events), Enabled: w.Enabled, DisabledReason: w.DisabledReason,
		ConsecutiveFailures: w.ConsecutiveFailures, PreviousSecretExpiresAt: w.PreviousSecretExpiresAt,
		CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// eventNames are event types as an answer lists them, plain strings (the requests' schemas hold the enum).
func eventNames(ts []webhook.EventType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

// WebhookWithSecretOut is a webhook with its signing secret, shown this once.
type WebhookWithSecretOut struct {
	WebhookOut
	Secret string `json:"secret" doc:"The signing secret (whsec_…), shown once: keep it"`
}

func webhookWithSecretOut(w webhook.WithSecret) WebhookWithSecretOut {
	return WebhookWithSecretOut{WebhookOut: webhookOut(w.Webhook), Secret: w.Secret}
}

// WebhookDeliveryOut is one delivery of a webhook and how its attempts went.
type WebhookDeliveryOut struct {
	ID             string     `json:"id" doc:"The webhook-id header: the same for every attempt"`
	WebhookID      *string    `json:"webhookId" nullable:"true"`
	Event          string     `json:"event" doc:"The activity type, or ping"`
	ActivityID     *string    `json:"activityId" nullable:"true"`
	Status         string     `json:"status" enum:"pending,succeeded,failed"`
	Attempts       int32      `json:"attempts"`
	ResponseStatus *int32     `json:"responseStatus" nullable:"true" doc:"The last answer's status code"`
	ResponseBody   *string    `json:"responseBody" nullable:"true" doc:"The last answer's body, truncated to 4 KiB"`
	DurationMs     *int32     `json:"durationMs" nullable:"true" doc:"How long the last attempt took"`
	Error          *string    `json:"error" nullable:"true"`
	NextAttemptAt  *time.Time `json:"nextAttemptAt" nullable:"true"`
	LastAttemptAt  *time.Time `json:"lastAttemptAt" nullable:"true"`
	CreatedAt      time.Time  `json:"createdAt"`
}

func webhookDeliveryOut(d webhook.Delivery) WebhookDeliveryOut {
	next := d.NextAttemptAt
	if d.Status != webhook.StatusPending {
		next = nil
	}
	return WebhookDeliveryOut{ID: d.ID, WebhookID: d.WebhookID, Event: d.EventType, ActivityID: d.ActivityID,
		Status: d.Status, Attempts: d.Attempts, ResponseStatus: d.ResponseStatus, ResponseBody: d.ResponseBody,
		DurationMs: d.DurationMs, Error: d.Error, NextAttemptAt: next, LastAttemptAt: d.LastAttemptAt, CreatedAt: d.CreatedAt}
}

// WebhookPath names a webhook.
type WebhookPath struct {
	WorkspacePath
	WebhookID string `path:"webhookId" format:"uuid"`
}

// WebhookDeliveryPath names a delivery of a webhook.
type WebhookDeliveryPath struct {
	WebhookPath
	DeliveryID string `path:"deliveryId" format:"webhook-delivery-id"`
}

const webhooksDoc = "A webhook receives the workspace's activities whose type it lists in `events` (`[\"*\"]`: every " +
	"one) as signed POSTs `{id, type, createdAt, workspaceId, data}`, per the Standard Webhooks specification (headers " +
	"webhook-id, webhook-timestamp, webhook-signature). Deliveries are retried with backoff for up to 24 hours; a 410 " +
	"answer, or a run of deliveries that failed for good, disables the webhook and tells the workspace's admins. In " +
	"production, addresses that resolve to loopback, private or link-local ranges are refused. See docs/webhooks.md."

// registerWebhooks registers a workspace's webhooks and their deliveries; all are for workspace admins.
func (s workflowOps) registerWebhooks() {
	tags := []string{"Webhooks"}
	read := Requires{Scope: auth.ScopeProjectsRead, WSRole: "admin", KeepsTenancy: true}
	admin := Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin", KeepsTenancy: true}
	base := pathWorkspace + "/webhooks"
	one := base + "/{webhookId}"

	register(s.Server, huma.Operation{OperationID: "webhooks-create", Method: http.MethodPost, Path: base,
		Summary: "Create a webhook", Tags: tags, DefaultStatus: http.StatusCreated, Description: webhooksDoc +
			" The answer carries the signing secret (whsec_…), shown this once."},
		admin, s.createWebhook)
	register(s.Server, huma.Operation{OperationID: "webhooks-list", Method: http.MethodGet, Path: base,
		Summary: "List the workspace's webhooks", Tags: tags},
		read, s.listWebhooks)
	register(s.Server, huma.Operation{OperationID: "webhooks-get", Method: http.MethodGet, Path: one,
		Summary: "Get a webhook", Tags: tags},
		read, s.getWebhook)
	register(s.Server, huma.Operation{OperationID: "webhooks-update", Method: http.MethodPatch, Path: one,
		Summary: "Update a webhook", Tags: tags, Description: "Any subset of url, events, description, enabled. Enabling a " +
			"disabled webhook starts its failure count afresh."},
		admin, s.updateWebhook)
	register(s.Server, huma.Operation{OperationID: "webhooks-delete", Method: http.MethodDelete, Path: one,
		Summary: "Delete a webhook and its deliveries", Tags: tags},
		admin, s.deleteWebhook)
	register(s.Server, huma.Operation{OperationID: "webhooks-rotate-secret", Method: http.MethodPost,
		Path: one + "/rotate-secret", Summary: "Give a webhook a new signing secret", Tags: tags,
		Description: "The answer carries the new secret, shown this " + "once. For 24 hours the old secret keeps signing " +
			"too: each delivery carries both signatures, space-separated."},
		admin, s.rotateWebhookSecret)
	register(s.Server, huma.Operation{OperationID: "webhooks-test", Method: http.MethodPost, Path: one + "/test",
		Summary: "Send a ping delivery", Tags: tags, DefaultStatus: http.StatusAccepted,
		Description: "Enqueues a delivery of type ping (data: {webhookId}), enabled or not; follow it in …/deliveries."},
		admin, s.testWebhook)
	register(s.Server, huma.Operation{OperationID: "webhooks-deliveries", Method: http.MethodGet,
		Path: one + "/deliveries", Summary: "List a webhook's deliveries, newest first", Tags: tags,
		Description: "Paged (`limit`, `cursor`; the next page in the `Link` header, docs/pagination.md)."},
		read, s.listWebhookDeliveries)
	register(s.Server, huma.Operation{OperationID: "webhooks-redeliver", Method: http.MethodPost,
		Path: one + "/deliveries/{deliveryId}/redeliver", Summary: "Send a delivery again, now", Tags: tags,
		DefaultStatus: http.StatusAccepted, Description: "The same id (webhook-id) and payload, signed anew, sent now " +
			"whatever the delivery's status. A finished delivery gets a new round of attempts. A pending one, waiting " +
			"for its next retry, is attempted now instead: if that attempt fails, its retries go on with their " +
			"backoff; if it succeeds, nothing more is sent."},
		admin, s.redeliverWebhook)
}

// CreateWebhookInput is the request of webhooks-create.
type CreateWebhookInput struct {
	WorkspacePath
	Body struct {
		URL         string              `json:"url" required:"true" minLength:"1" maxLength:"2000" doc:"http or https"`
		Events      []webhook.EventType `json:"events" required:"true" minItems:"1" maxItems:"50" doc:"[\"*\"]: every type"`
		Description string              `json:"description,omitempty" maxLength:"500"`
		Enabled     *bool               `json:"enabled,omitempty" doc:"Default true"`
	}
}

func (s workflowOps) createWebhook(ctx context.Context, in *CreateWebhookInput) (*Output[WebhookWithSecretOut], error) {
	b := in.Body
	return oneOf(webhookWithSecretOut)(s.webhooks.Create(ctx, accessFrom(ctx).WorkspaceID, principalFrom(ctx).User.ID,
		webhook.Fields{
			URL: b.URL, Events: b.Events, Description: b.Description, Enabled: b.Enabled == nil || *b.Enabled}))
}

func (s workflowOps) listWebhooks(ctx context.Context, _ *WorkspacePath) (*Output[[]WebhookOut], error) {
	return listOf(webhookOut)(s.webhooks.List(ctx, accessFrom(ctx).WorkspaceID))
}

func (s workflowOps) getWebhook(ctx context.Context, in *WebhookPath) (*Output[WebhookOut], error) {
	return oneOf(webhookOut)(s.webhooks.Get(ctx, accessFrom(ctx).WorkspaceID, in.WebhookID))
}

// UpdateWebhookInput is the request of webhooks-update.
type UpdateWebhookInput struct {
	WebhookPath
	Body struct {
		URL         *string              `json:"url,omitempty" minLength:"1" maxLength:"2000"`
		Events      *[]webhook.EventType `json:"events,omitempty" minItems:"1" maxItems:"50" doc:"[\"*\"]: every type"`
		Description *string              `json:"description,omitempty" maxLength:"500"`
		Enabled     *bool                `json:"enabled,omitempty"`
	}
}

func (s workflowOps) updateWebhook(ctx context.Context, in *UpdateWebhookInput) (*Output[WebhookOut], error) {
	b := in.Body
	return oneOf(webhookOut)(s.webhooks.Update(ctx, accessFrom(ctx).WorkspaceID, in.WebhookID,
		func(f webhook.Fields) webhook.Fields {
			if b.URL != nil {
				f.URL = *b.URL
			}
			if b.Events != nil {
				f.Events = *b.Events
			}
			if b.Description != nil {
				f.Description = *b.Description
			}
			if b.Enabled != nil {
				f.Enabled = *b.Enabled
			}
			return f
		}))
}

func (s workflowOps) deleteWebhook(ctx context.Context, in *WebhookPath) (*OKOutput, error) {
	return done(s.webhooks.Delete(ctx, accessFrom(ctx).WorkspaceID, in.WebhookID))
}

func (s workflowOps) rotateWebhookSecret(ctx context.Context, in *WebhookPath) (*Output[WebhookWithSecretOut], error) {
	return oneOf(webhookWithSecretOut)(s.webhooks.RotateSecret(ctx, accessFrom(ctx).WorkspaceID, in.WebhookID))
}

func (s workflowOps) testWebhook(ctx context.Context, in *WebhookPath) (*Output[WebhookDeliveryOut], error) {
	return oneOf(webhookDeliveryOut)(s.webhooks.Ping(ctx, accessFrom(ctx).WorkspaceID, in.WebhookID))
}

// WebhookDeliveriesInput is the request of webhooks-deliveries.
type WebhookDeliveriesInput struct {
	WebhookPath
	PageQuery
}

func (s workflowOps) listWebhookDeliveries(ctx context.Context,
	in *WebhookDeliveriesInput) (*PageOutput[WebhookDeliveryOut], error) {
	return pageOf(ctx, webhookDeliveryOut)(s.webhooks.Deliveries(ctx, accessFrom(ctx).WorkspaceID, in.WebhookID,
		in.page()))
}

func (s workflowOps) redeliverWebhook(ctx context.Context,
	in *WebhookDeliveryPath) (*Output[WebhookDeliveryOut], error) {
	return oneOf(webhookDeliveryOut)(s.webhooks.Redeliver(ctx, accessFrom(ctx).WorkspaceID, in.WebhookID, in.DeliveryID))
}

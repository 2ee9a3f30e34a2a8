package webhook

import (
	"encoding/json"
	"time"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Event is an activity as the workspace's event feed shows it, and as a delivery's data carries it.
type Event struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	WorkspaceID string          `json:"workspaceId"`
	ProjectID   *string         `json:"projectId"`
	CardID      *string         `json:"cardId"`
	DocumentID  *string         `json:"documentId"`
	ActorID     *string         `json:"actorId"`
	Meta        json.RawMessage `json:"meta"`
	CreatedAt   time.Time       `json:"createdAt"`
}

// activityRow is an activity as stored, with its workspace (a project activity's is its project's).
type activityRow struct {
	ID, WorkspaceID, Type                  string
	ProjectID, CardID, DocumentID, ActorID *string
	Meta                                   json.RawMessage
	CreatedAt                              time.Time
}

// activityOf is the activity a delivery's attempt read with it.
func activityOf(d dbsqlc.WebhookDeliveryForAttemptRow) activityRow {
	a := activityRow{ID: *d.ActivityID, WorkspaceID: d.ActivityWorkspaceID, Type: d.ActivityType, ProjectID: d.ActivityProjectID,
		CardID: d.ActivityCardID, DocumentID: d.ActivityDocumentID, ActorID: d.ActivityActorID, Meta: d.ActivityMeta}
	if d.ActivityCreatedAt != nil {
		a.CreatedAt = *d.ActivityCreatedAt
	}
	return a
}

// eventFromActivity builds the feed's event of an activity row. It is the one place that shape is made
// for webhooks, so it can give way to the feed's own builder.
func eventFromActivity(a activityRow) Event {
	meta := a.Meta
	if len(meta) == 0 {
		meta = json.RawMessage(`{}`)
	}
	return Event{ID: a.ID, Type: a.Type, WorkspaceID: a.WorkspaceID, ProjectID: a.ProjectID, CardID: a.CardID,
		DocumentID: a.DocumentID, ActorID: a.ActorID, Meta: meta, CreatedAt: a.CreatedAt.UTC()}
}

// Payload is a delivery's body: id is the delivery's (its webhook-id), data the event's.
type Payload struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"createdAt"`
	WorkspaceID string    `json:"workspaceId"`
	Data        any       `json:"data"`
}

// EventPing is the type of a test delivery (POST …/webhooks/:webhookId/test).
const EventPing = "ping"

// EventAll in a webhook's events subscribes it to every activity type.
const EventAll = "*"

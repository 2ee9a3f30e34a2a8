package webhook

import (
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// eventOf is the event a delivery's attempt reports: the activity it read with the delivery, in the
// workspace event feed's own shape (db.FeedEvent, its id the feed position), so a receiver and a feed
// reader see the same thing.
func eventOf(d dbsqlc.WebhookDeliveryForAttemptRow) db.FeedEvent {
	r := db.FeedRow{ID: *d.ActivityID, WorkspaceID: d.ActivityWorkspaceID, Type: d.ActivityType,
		ProjectID: d.ActivityProjectID, CardID: d.ActivityCardID, DocumentID: d.ActivityDocumentID,
		ActorID: d.ActivityActorID, Meta: d.ActivityMeta, Actor: db.ActorColumns{ActorType: d.ActivityActorType,
			AgentID: d.ActivityAgentID, AgentName: d.ActivityAgentName, OnBehalfOf: d.ActivityOnBehalfOf,
			OnBehalfOfName: d.ActivityOnBehalfOfName}}
	if d.ActivityCreatedAt != nil {
		r.CreatedAt = d.ActivityCreatedAt.UTC()
	}
	if d.ActivitySeq != nil {
		r.Seq = *d.ActivitySeq
	}
	return r.Event()
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

package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
)

// CardActivityOut is one change recorded about a card: what the card's history shows.
type CardActivityOut struct {
	ID   string `json:"id"`
	Type string `json:"type" doc:"The activity type: card_created, card_updated, card_moved, card_assigned, card_archived, comment_added, comment_deleted, due_date_reached, mission_status_changed…"`
	// ActorID is null when nobody acted (a due date reached) or an automation did without a person.
	ActorID   *string         `json:"actorId" doc:"Who made the change; null when nobody did"`
	ActorName string          `json:"actorName" doc:"The actor's name; empty when there is none or the account is gone"`
	Meta      json.RawMessage `json:"meta" doc:"The activity's details: an update's fields, a move's fromColumn and toColumn (column ids), an assignment's assigneeId and previousAssigneeId, a comment's excerpt"`
	CreatedAt time.Time       `json:"createdAt"`
	ActorFields
}

// ActorFields say who acted: a person, an agent (for a person) or nobody.
type ActorFields struct {
	ActorType  db.ActorType  `json:"actorType" doc:"agent when an agent acted (actorId is its service user), person when a person did, system when nobody did"`
	Agent      *db.AgentRef  `json:"agent" doc:"The agent that acted (its id is null for changes recorded before agents were); null unless actorType is agent"`
	OnBehalfOf *db.PersonRef `json:"onBehalfOf" doc:"The person the agent acted for: who started its mission, or approved the proposal applied; null otherwise"`
}

func actorFields(c db.ActorColumns) ActorFields {
	return ActorFields{ActorType: c.Type(), Agent: c.AgentRef(), OnBehalfOf: c.PersonRef()}
}

func cardActivityOut(a board.CardActivity) CardActivityOut {
	meta := a.Meta
	if len(meta) == 0 {
		meta = json.RawMessage("{}")
	}
	return CardActivityOut{ID: a.ID, Type: a.Type, ActorID: a.ActorID, ActorName: a.ActorName, Meta: meta,
		CreatedAt: a.CreatedAt, ActorFields: actorFields(a.Actor())}
}

// registerCardActivity registers a card's history.
func (s boardOps) registerCardActivity() {
	register(s.Server, huma.Operation{OperationID: "cards-activity", Method: http.MethodGet,
		Path: pathCard + "/activity", Summary: "List a card's history", Tags: []string{"Cards"},
		Description: "The activities recorded about the card (created, changed, moved, assigned, archived, commented…), " +
			"newest first, with who made each change. Paged by keyset: `limit` 1 to 200, default 50; the next page is " +
			"named by the `Link` header (rel=\"next\"), absent on the last page."},
		projectRead, s.listCardActivity)
}

// ListCardActivityInput is the request of cards-activity.
type ListCardActivityInput struct {
	CardPath
	PageQuery
}

func (s boardOps) listCardActivity(ctx context.Context, in *ListCardActivityInput) (*PageOutput[CardActivityOut],
	error) {
	return pageOf(ctx, cardActivityOut)(s.board.CardHistory(ctx, accessFrom(ctx).ProjectID, in.CardID, in.page()))
}

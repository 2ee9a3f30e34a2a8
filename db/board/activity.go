package board

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// CardActivity is one change recorded about a card: its type (card_created, card_updated, card_moved,
// card_assigned, card_archived, comment_added…), who made it (ActorID nil and ActorName empty when
// nobody did or the actor is gone), the activity's meta (a move's fromColumn and toColumn, an update's
// fields) and when.
type CardActivity struct {
	ID        string
	Type      string
	ActorID   *string
	ActorName string
	Meta      json.RawMessage
	CreatedAt time.Time
	// Who acted, as db.ActorColumns says: agent, person or system; the agent, and the person it acted for.
	ActorType      string
	AgentID        *string
	AgentName      string
	OnBehalfOf     *string
	OnBehalfOfName string
}

// Actor is who made the change.
func (a CardActivity) Actor() db.ActorColumns {
	return db.ActorColumns{ActorType: a.ActorType, AgentID: a.AgentID, AgentName: a.AgentName, OnBehalfOf: a.OnBehalfOf,
		OnBehalfOfName: a.OnBehalfOfName}
}

// CardHistory lists one page of the activities recorded about a card of a project, newest first: the
// history the board already records for its feed and notifications. A card that is not in the project
// is ErrNotFound.
func (b *Engine) CardHistory(ctx context.Context, projectID, cardID string, p db.Page) (db.Paged[CardActivity],
	error) {
	k, err := p.AfterTime("card-activity", true)
	if err != nil {
		return db.Paged[CardActivity]{}, err
	}
	if err := b.cardExists(ctx, b.q, projectID, cardID); err != nil {
		return db.Paged[CardActivity]{}, err
	}
	rows, err := b.q.ActivityPageByCard(ctx, dbsqlc.ActivityPageByCardParams{CardID: &cardID, ProjectID: &projectID,
		BeforeAt: k.At, BeforeID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[CardActivity]{}, fmt.Errorf("list card activity: %w", err)
	}
	out := make([]CardActivity, len(rows))
	for i, r := range rows {
		out[i] = CardActivity(r)
	}
	return db.PageOf(p, "card-activity", out, func(a CardActivity) any { return db.TimeKey{At: a.CreatedAt, ID: a.ID} }),
		nil
}

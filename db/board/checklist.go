package board

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Card parts are what hangs on a card besides its own fields: its checklist, labels and custom values.
// The names below are the `fields` a card_updated activity lists for a change of each.
const (
	cardPartChecklist    = "checklist"
	cardPartLabels       = "labels"
	cardPartCustomFields = "customFields"
)

// lockCard locks a card of a project for a change of its parts; a card of another project is not found.
func lockCard(ctx context.Context, q *dbsqlc.Queries, projectID, cardID string) (dbsqlc.Card, error) {
	c, err := q.CardGetForUpdate(ctx, dbsqlc.CardGetForUpdateParams{ID: cardID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return c, dbcore.NotFound("card not found")
	}
	if err != nil {
		return c, fmt.Errorf("lock card: %w", err)
	}
	return c, nil
}

// cardPartChanged bumps the card's updated_at and records card_updated for a change of one of its parts,
// with its notifications, in the caller's transaction.
//
// checklistComplete says the change checked the last unchecked item: the activity then fires the
// checklist_complete automation trigger.
func (b *Engine) cardPartChanged(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, card dbsqlc.Card, actorID,
	part string, checklistComplete ...bool) error {
	var extra map[string]any
	if len(checklistComplete) > 0 && checklistComplete[0] {
		extra = map[string]any{"checklistComplete": true}
	}
	return b.cardPartChangedMeta(ctx, tx, q, card, actorID, part, extra)
}

// cardPartChangedMeta is cardPartChanged with more keys in the activity's meta: labelAdded (the label
// put on the card) fires the task_labeled automation trigger.
func (b *Engine) cardPartChangedMeta(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, card dbsqlc.Card, actorID,
	part string, extra map[string]any) error {
	if err := q.CardBumpUpdatedAt(ctx, card.ID); err != nil {
		return fmt.Errorf("touch card: %w", err)
	}
	act := db.Activity{ProjectID: card.ProjectID, CardID: card.ID, ActorID: actorID, Type: db.ActivityCardUpdated,
		Meta: map[string]any{"fields": []string{part}, "title": card.Title}}
	for k, v := range extra {
		act.Meta[k] = v
	}
	if card.AssigneeID != nil {
		act.Recipients = []string{*card.AssigneeID}
	}
	return b.core.RecordActivities(ctx, tx, act)
}

// AddChecklistItem appends an item to a card's checklist (at most MaxChecklistItems) and records
// card_updated, in one transaction. It answers the card.
func (b *Engine) AddChecklistItem(ctx context.Context, e db.CardEdit, title string) (Card, error) {
	var out Card
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if err := b.AddChecklistItemsTx(ctx, tx, e, []string{title}); err != nil {
			return err
		}
		var err error
		out, err = cardTx(ctx, q, e.ProjectID, e.CardID)
		return err
	})
	return out, err
}

// AddChecklistItemsTx appends items to a card's checklist (at most MaxChecklistItems in all) and records
// one card_updated, in the caller's transaction. The card's lock keeps concurrent adds within the cap.
func (b *Engine) AddChecklistItemsTx(ctx context.Context, tx pgx.Tx, e db.CardEdit, titles []string) error {
	projectID, cardID, actorID := e.ProjectID, e.CardID, e.ActorID
	q := dbcore.Queries(tx)
	card, err := lockCard(ctx, q, projectID, cardID)
	if err != nil {
		return err
	}
	n, err := q.ChecklistCountByCard(ctx, cardID)
	if err != nil {
		return fmt.Errorf("count checklist items: %w", err)
	}
	if int(n)+len(titles) > MaxChecklistItems {
		return dbcore.Invalid(fmt.Sprintf("a card has at most %d checklist items", MaxChecklistItems))
	}
	ids, dones, pos := make([]string, len(titles)), make([]bool, len(titles)), make([]int32, len(titles))
	for i := range titles {
		ids[i], pos[i] = db.NewID(), n+int32(i)
	}
	if err := q.ChecklistInsertMany(ctx, dbsqlc.ChecklistInsertManyParams{CardID: cardID, Ids: ids, Titles: titles,
		Dones: dones, Positions: pos}); err != nil {
		return fmt.Errorf("insert checklist items: %w", err)
	}
	return b.cardPartChanged(ctx, tx, q, card, actorID, cardPartChecklist)
}

// ChecklistItemPatch is a change to a checklist item; nil fields are left alone. Order is the item's
// 0-based place in the checklist, clamped to the ends.
type ChecklistItemPatch struct {
	Title *string
	Done  *bool
	Order *int
}

// UpdateChecklistItem renames, checks or unchecks, and reorders an item of a card's checklist, and
// records card_updated when anything changed, in one transaction. It answers the card.
func (b *Engine) UpdateChecklistItem(ctx context.Context, e db.CardEdit, itemID string,
	p ChecklistItemPatch) (Card, error) {
	projectID, cardID, actorID := e.ProjectID, e.CardID, e.ActorID
	var out Card
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		card, err := lockCard(ctx, q, projectID, cardID)
		if err != nil {
			return err
		}
		item, err := q.ChecklistGet(ctx, dbsqlc.ChecklistGetParams{ID: itemID, CardID: cardID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("checklist item not found")
		}
		if err != nil {
			return fmt.Errorf("get checklist item: %w", err)
		}
		changed := false
		next := item
		if p.Title != nil && *p.Title != item.Title {
			next.Title, changed = *p.Title, true
		}
		if p.Done != nil && *p.Done != item.Done {
			next.Done, changed = *p.Done, true
		}
		if changed {
			if err := q.ChecklistUpdate(ctx, dbsqlc.ChecklistUpdateParams{ID: item.ID, Title: next.Title,
				Done: next.Done}); err != nil {
				return fmt.Errorf("update checklist item: %w", err)
			}
		}
		if p.Order != nil {
			ids, err := q.ChecklistIDsByCard(ctx, cardID)
			if err != nil {
				return fmt.Errorf("list checklist items: %w", err)
			}
			from := slices.Index(ids, item.ID)
			if from < 0 {
				return fmt.Errorf("checklist item %s missing from its card's list", item.ID)
			}
			ids = slices.Delete(ids, from, from+1)
			at := min(max(*p.Order, 0), len(ids))
			ids = slices.Insert(ids, at, item.ID)
			if at != from {
				pos := make([]int32, len(ids))
				for i := range ids {
					pos[i] = int32(i)
				}
				if err := q.ChecklistSetPositions(ctx, dbsqlc.ChecklistSetPositionsParams{CardID: cardID, Ids: ids,
					Positions: pos}); err != nil {
					return fmt.Errorf("set checklist positions: %w", err)
				}
				changed = true
			}
		}
		if changed {
			// checklist_complete: this change checked the last unchecked item.
			complete := false
			if next.Done && !item.Done {
				open, err := q.ChecklistOpenCount(ctx, cardID)
				if err != nil {
					return fmt.Errorf("count open checklist items: %w", err)
				}
				complete = open == 0
			}
			if err := b.cardPartChanged(ctx, tx, q, card, actorID, cardPartChecklist, complete); err != nil {
				return err
			}
		}
		out, err = cardTx(ctx, q, projectID, cardID)
		return err
	})
	return out, err
}

// DeleteChecklistItem removes an item from a card's checklist, closes the gap in the order and records
// card_updated, in one transaction. It answers the card.
func (b *Engine) DeleteChecklistItem(ctx context.Context, e db.CardEdit, itemID string) (Card, error) {
	projectID, cardID, actorID := e.ProjectID, e.CardID, e.ActorID
	var out Card
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		card, err := lockCard(ctx, q, projectID, cardID)
		if err != nil {
			return err
		}
		n, err := q.ChecklistDelete(ctx, dbsqlc.ChecklistDeleteParams{ID: itemID, CardID: cardID})
		if dbcore.IsNotFound(err) || (err == nil && n == 0) {
			return dbcore.NotFound("checklist item not found")
		}
		if err != nil {
			return fmt.Errorf("delete checklist item: %w", err)
		}
		if err := q.ChecklistRenumber(ctx, cardID); err != nil {
			return fmt.Errorf("renumber checklist: %w", err)
		}
		if err := b.cardPartChanged(ctx, tx, q, card, actorID, cardPartChecklist); err != nil {
			return err
		}
		out, err = cardTx(ctx, q, projectID, cardID)
		return err
	})
	return out, err
}

package board

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Labels lists a project's labels by name.
func (b *Engine) Labels(ctx context.Context, projectID string) ([]db.Label, error) {
	ls, err := b.q.LabelListByProject(ctx, projectID)
	return dbcore.MapRows(ls, func(r dbsqlc.Label) db.Label { return db.Label(r) }), dbcore.Wrap(err, "list labels")
}

// CreateLabel adds a label to a project; its name is unique in the project.
func (b *Engine) CreateLabel(ctx context.Context, projectID, name, color string) (db.Label, error) {
	l, err := b.q.LabelInsert(ctx, dbsqlc.LabelInsertParams{ID: db.NewID(), ProjectID: projectID, Name: name,
		Color: color})
	if dbcore.IsUnique(err, "") {
		return db.Label(l), dbcore.Conflict(fmt.Sprintf("a label named %q already exists in this project", name))
	}
	return db.Label(l), dbcore.Wrap(err, "insert label")
}

// UpdateLabel renames or recolours a label of a project; nil leaves a field alone.
func (b *Engine) UpdateLabel(ctx context.Context, projectID, labelID string, name, color *string) (db.Label, error) {
	l, err := b.q.LabelUpdate(ctx, dbsqlc.LabelUpdateParams{ID: labelID, ProjectID: projectID, Name: name, Color: color})
	switch {
	case dbcore.IsNotFound(err):
		return db.Label(l), dbcore.NotFound("label not found")
	case dbcore.IsUnique(err, "") && name != nil:
		return db.Label(l), dbcore.Conflict(fmt.Sprintf("a label named %q already exists in this project", *name))
	}
	return db.Label(l), dbcore.Wrap(err, "update label")
}

// DeleteLabel deletes a label of a project, which takes it off every card.
func (b *Engine) DeleteLabel(ctx context.Context, projectID, labelID string) error {
	n, err := b.q.LabelDelete(ctx, dbsqlc.LabelDeleteParams{ID: labelID, ProjectID: projectID})
	if dbcore.IsNotFound(err) || (err == nil && n == 0) {
		return dbcore.NotFound("label not found")
	}
	return dbcore.Wrap(err, "delete label")
}

// AddCardLabel puts a label of the card's project on the card and records card_updated, in one
// transaction. A label the card already has is left as is (nothing is recorded). It answers the card.
func (b *Engine) AddCardLabel(ctx context.Context, e db.CardEdit, labelID string) (Card, error) {
	projectID, cardID, actorID := e.ProjectID, e.CardID, e.ActorID
	return b.changeCardLabel(ctx, projectID, cardID, labelID, actorID, true)
}

// RemoveCardLabel takes a label of the card's project off the card and records card_updated, in one
// transaction. A label the card does not have is left as is (nothing is recorded). It answers the card.
func (b *Engine) RemoveCardLabel(ctx context.Context, e db.CardEdit, labelID string) (Card, error) {
	projectID, cardID, actorID := e.ProjectID, e.CardID, e.ActorID
	return b.changeCardLabel(ctx, projectID, cardID, labelID, actorID, false)
}

func (b *Engine) changeCardLabel(ctx context.Context, projectID, cardID, labelID, actorID string,
	add bool) (Card, error) {
	var out Card
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		card, err := lockCard(ctx, q, projectID, cardID)
		if err != nil {
			return err
		}
		if _, err := q.LabelGet(ctx, dbsqlc.LabelGetParams{ID: labelID, ProjectID: projectID}); err != nil {
			if dbcore.IsNotFound(err) {
				return dbcore.NotFound("label not found")
			}
			return fmt.Errorf("get label: %w", err)
		}
		var n int64
		if add {
			n, err = q.CardLabelAdd(ctx, dbsqlc.CardLabelAddParams{CardID: cardID, LabelID: labelID})
		} else {
			n, err = q.CardLabelRemove(ctx, dbsqlc.CardLabelRemoveParams{CardID: cardID, LabelID: labelID})
		}
		if dbcore.IsMissingRef(err) {
			return dbcore.NotFound("label not found") // deleted meanwhile
		}
		if err != nil {
			return fmt.Errorf("change card label: %w", err)
		}
		if n > 0 {
			var extra map[string]any
			if add { // a label put on a card fires task_labeled
				extra = map[string]any{"labelAdded": labelID}
			}
			if err := b.cardPartChangedMeta(ctx, tx, q, card, actorID, cardPartLabels, extra); err != nil {
				return err
			}
		}
		out, err = cardTx(ctx, q, projectID, cardID)
		return err
	})
	return out, err
}

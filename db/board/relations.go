package board

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// RelationTypes are the types of a relation between two cards.
var RelationTypes = []string{"blocks", "blocked_by", "related_to", "duplicates", "parent_of"}

// NewRelation is a typed relation from a card of a project to another card of the same workspace.
type NewRelation struct {
	WorkspaceID, ProjectID, CardID, TargetCardID, Type, ActorID string
}

// CreateRelation relates a card of a project to another card of the same workspace (which may be in
// another project), in one transaction. The relation belongs to the source card's project.
func (b *Engine) CreateRelation(ctx context.Context, in NewRelation) (db.CardRelation, error) {
	if !slices.Contains(RelationTypes, in.Type) {
		return db.CardRelation{}, dbcore.Invalid("type must be one of " + strings.Join(RelationTypes, ", "))
	}
	var out db.CardRelation
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: in.CardID, ProjectID: in.ProjectID}); err != nil {
			if dbcore.IsNotFound(err) {
				return dbcore.NotFound("card not found")
			}
			return fmt.Errorf("get card: %w", err)
		}
		if strings.EqualFold(in.CardID, in.TargetCardID) {
			return dbcore.Invalid("a card cannot be related to itself")
		}
		if _, err := q.CardExistsInWorkspace(ctx, dbsqlc.CardExistsInWorkspaceParams{ID: in.TargetCardID,
			WorkspaceID: in.WorkspaceID}); err != nil {
			if dbcore.IsNotFound(err) {
				return dbcore.Invalid("target card not found in this workspace")
			}
			return fmt.Errorf("get target card: %w", err)
		}
		var err error
		var outRow dbsqlc.CardRelation
		outRow, err = q.CardRelationInsert(ctx, dbsqlc.CardRelationInsertParams{ID: db.NewID(), ProjectID: in.ProjectID,
			CardID: in.CardID, TargetCardID: in.TargetCardID, Type: in.Type, CreatedBy: in.ActorID})
		out = db.CardRelation(outRow)
		switch {
		case dbcore.IsUnique(err, ""):
			return dbcore.Conflict(fmt.Sprintf("this card already has a %s relation to the target card", in.Type))
		case dbcore.IsMissingRef(err):
			return dbcore.Invalid("target card not found in this workspace") // deleted meanwhile
		case err != nil:
			return fmt.Errorf("insert relation: %w", err)
		}
		return nil
	})
	return out, err
}

// CardRelations lists the relations a card of a project is the source or the target of, oldest first.
func (b *Engine) CardRelations(ctx context.Context, projectID, cardID string) ([]db.CardRelation, error) {
	if _, err := b.q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: cardID, ProjectID: projectID}); err != nil {
		if dbcore.IsNotFound(err) {
			return nil, dbcore.NotFound("card not found")
		}
		return nil, fmt.Errorf("get card: %w", err)
	}
	rs, err := b.q.CardRelationListByCard(ctx, cardID)
	return dbcore.MapRows(rs, func(r dbsqlc.CardRelation) db.CardRelation { return db.CardRelation(r) }), dbcore.Wrap(err,
		"list relations")
}

// DeleteRelation deletes a relation of a project (the project of its source card).
func (b *Engine) DeleteRelation(ctx context.Context, projectID, relationID string) error {
	n, err := b.q.CardRelationDelete(ctx, dbsqlc.CardRelationDeleteParams{ID: relationID, ProjectID: projectID})
	if dbcore.IsNotFound(err) || (err == nil && n == 0) {
		return dbcore.NotFound("relation not found")
	}
	return dbcore.Wrap(err, "delete relation")
}

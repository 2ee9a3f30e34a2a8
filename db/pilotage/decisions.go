package pilotage

// Decisions and active documents of the cockpit.

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// ---- decisions

// NewPilotageDecision is a decision to record.
type NewPilotageDecision struct {
	WorkspaceID, ActorID string
	Title, Impact        string
}

// PilotageDecisionPatch changes a decision; nil fields stay.
type PilotageDecisionPatch struct {
	Title, Impact *string
}

func checkDecision(d *dbsqlc.PilotageDecision) error {
	var err error
	if d.Title, err = checkText("title", d.Title, MaxPilotageLabel, true); err != nil {
		return err
	}
	d.Impact, err = checkText("impact", d.Impact, MaxPilotageImpact, false)
	return err
}

// CreateDecision records a decision.
func (e *Engine) CreateDecision(ctx context.Context, in NewPilotageDecision) (db.PilotageDecision, error) {
	var out db.PilotageDecision
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = e.createPilotageDecisionTx(ctx, tx, in)
		return err
	})
	return out, err
}

func (e *Engine) createPilotageDecisionTx(ctx context.Context, tx pgx.Tx,
	in NewPilotageDecision) (db.PilotageDecision, error) {
	q := dbcore.Queries(tx)
	d := dbsqlc.PilotageDecision{Title: in.Title, Impact: in.Impact}
	if err := checkDecision(&d); err != nil {
		return db.PilotageDecision(d), err
	}
	row, err := q.PilotageDecisionInsert(ctx, dbsqlc.PilotageDecisionInsertParams{ID: db.NewID(),
		WorkspaceID: in.WorkspaceID, Title: d.Title, Impact: d.Impact, ActorID: in.ActorID})
	if err != nil {
		return db.PilotageDecision(row), fmt.Errorf("insert pilotage decision: %w", err)
	}
	return db.PilotageDecision(row), e.recordPilotage(ctx, tx, in.WorkspaceID, PilotageRecordDecision, row.ID,
		PilotageChangeCreated, in.ActorID, recordFields(row))
}

// UpdateDecision applies a patch to a decision and records the change.
func (e *Engine) UpdateDecision(ctx context.Context, r db.RecordEdit,
	p PilotageDecisionPatch) (db.PilotageDecision, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotageDecision
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.PilotageDecisionGetForUpdate(ctx, dbsqlc.PilotageDecisionGetForUpdateParams{ID: id,
			WorkspaceID: workspaceID}))("decision not found", "lock pilotage decision")
		if err != nil {
			return err
		}
		next := cur
		if p.Title != nil {
			next.Title = *p.Title
		}
		if p.Impact != nil {
			next.Impact = *p.Impact
		}
		if err := checkDecision(&next); err != nil {
			return err
		}
		var outRow dbsqlc.PilotageDecision
		if outRow, err = q.PilotageDecisionUpdate(ctx, dbsqlc.PilotageDecisionUpdateParams{ID: id, Title: next.Title,
			Impact: next.Impact, ActorID: actorID}); err != nil {
			return fmt.Errorf("update pilotage decision: %w", err)
		}
		out = db.PilotageDecision(outRow)
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordDecision, id, PilotageChangeUpdated, actorID, changes(cur,
			out))
	})
	return out, err
}

// Decisions is one page of a workspace's decisions in creation order.
func (e *Engine) Decisions(ctx context.Context, workspaceID string, p db.Page) (db.Paged[db.PilotageDecision], error) {
	k, err := p.AfterTime("pilotage-decisions", false)
	if err != nil {
		return db.Paged[db.PilotageDecision]{}, err
	}
	rows, err := e.core.Q.PilotageDecisionPage(ctx, dbsqlc.PilotageDecisionPageParams{WorkspaceID: workspaceID,
		AfterAt: k.At, AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.PilotageDecision]{}, dbcore.Wrap(err, "list pilotage decisions")
	}
	return db.PageOf(p, "pilotage-decisions", dbcore.MapRows(rows,
		func(r dbsqlc.PilotageDecision) db.PilotageDecision { return db.PilotageDecision(r) }),
		func(r db.PilotageDecision) any { return db.TimeKey{At: r.CreatedAt, ID: r.ID} }), nil
}

// DeleteDecision deletes a decision and records it.
func (e *Engine) DeleteDecision(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotageDecisionDelete(ctx, dbsqlc.PilotageDecisionDeleteParams{ID: id,
			WorkspaceID: workspaceID}))("decision not found", "delete pilotage decision")
		if err != nil {
			return err
		}
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordDecision, id, PilotageChangeDeleted, actorID,
			recordFields(row))
	})
}

// ---- active documents

// NewPilotageDoc is an active document to create. SourceType defaults to product.
type NewPilotageDoc struct {
	WorkspaceID, ActorID     string
	Title, Owner, SourceType string
}

// PilotageDocPatch changes an active document; nil fields stay.
type PilotageDocPatch struct {
	Title, Owner, SourceType *string
}

func checkDoc(d *dbsqlc.PilotageDoc) error {
	var err error
	if d.Title, err = checkText("title", d.Title, MaxPilotageLabel, true); err != nil {
		return err
	}
	if d.Owner, err = checkText("owner", d.Owner, MaxPilotageDocOwner, false); err != nil {
		return err
	}
	return checkEnum("sourceType", d.SourceType, PilotageDocSourceTypes)
}

// CreateDoc creates an active document and records it.
func (e *Engine) CreateDoc(ctx context.Context, in NewPilotageDoc) (db.PilotageDoc, error) {
	if in.SourceType == "" {
		in.SourceType = "product"
	}
	d := dbsqlc.PilotageDoc{Title: in.Title, Owner: in.Owner, SourceType: in.SourceType}
	if err := checkDoc(&d); err != nil {
		return db.PilotageDoc(d), err
	}
	var out db.PilotageDoc
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		var outRow dbsqlc.PilotageDoc
		if outRow, err = q.PilotageDocInsert(ctx, dbsqlc.PilotageDocInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID,
			Title: d.Title, Owner: d.Owner, SourceType: d.SourceType, ActorID: in.ActorID}); err != nil {
			return fmt.Errorf("insert pilotage doc: %w", err)
		}
		out = db.PilotageDoc(outRow)
		return e.recordPilotage(ctx, tx, in.WorkspaceID, PilotageRecordDoc, out.ID, PilotageChangeCreated, in.ActorID,
			recordFields(out))
	})
	return out, err
}

// UpdateDoc applies a patch to an active document and records the change.
func (e *Engine) UpdateDoc(ctx context.Context, r db.RecordEdit, p PilotageDocPatch) (db.PilotageDoc, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotageDoc
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.PilotageDocGetForUpdate(ctx, dbsqlc.PilotageDocGetForUpdateParams{ID: id,
			WorkspaceID: workspaceID}))("document not found", "lock pilotage doc")
		if err != nil {
			return err
		}
		next := cur
		if p.Title != nil {
			next.Title = *p.Title
		}
		if p.Owner != nil {
			next.Owner = *p.Owner
		}
		if p.SourceType != nil {
			next.SourceType = *p.SourceType
		}
		if err := checkDoc(&next); err != nil {
			return err
		}
		var outRow dbsqlc.PilotageDoc
		if outRow, err = q.PilotageDocUpdate(ctx, dbsqlc.PilotageDocUpdateParams{ID: id, Title: next.Title, Owner: next.Owner,
			SourceType: next.SourceType, ActorID: actorID}); err != nil {
			return fmt.Errorf("update pilotage doc: %w", err)
		}
		out = db.PilotageDoc(outRow)
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordDoc, id, PilotageChangeUpdated, actorID, changes(cur,
			out))
	})
	return out, err
}

// Docs is one page of a workspace's active documents in creation order.
func (e *Engine) Docs(ctx context.Context, workspaceID string, p db.Page) (db.Paged[db.PilotageDoc], error) {
	k, err := p.AfterTime("pilotage-docs", false)
	if err != nil {
		return db.Paged[db.PilotageDoc]{}, err
	}
	rows, err := e.core.Q.PilotageDocPage(ctx, dbsqlc.PilotageDocPageParams{WorkspaceID: workspaceID, AfterAt: k.At,
		AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.PilotageDoc]{}, dbcore.Wrap(err, "list pilotage docs")
	}
	return db.PageOf(p, "pilotage-docs", dbcore.MapRows(rows,
		func(r dbsqlc.PilotageDoc) db.PilotageDoc { return db.PilotageDoc(r) }),
		func(r db.PilotageDoc) any { return db.TimeKey{At: r.CreatedAt, ID: r.ID} }), nil
}

// DeleteDoc deletes an active document and records it.
func (e *Engine) DeleteDoc(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotageDocDelete(ctx, dbsqlc.PilotageDocDeleteParams{ID: id,
			WorkspaceID: workspaceID}))("document not found", "delete pilotage doc")
		if err != nil {
			return err
		}
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordDoc, id, PilotageChangeDeleted, actorID,
			recordFields(row))
	})
}

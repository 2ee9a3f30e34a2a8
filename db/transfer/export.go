package transfer

// This file exports a project: one repeatable-read transaction that reads every part of the project and
// turns it into a TransferDoc (format in format.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Engine exports and imports projects.
type Engine struct {
	core *dbcore.Core
	// audit records exports and imports in the audit log.
	audit db.Auditor
}

// New builds the transfer engine on store's pool and River client; auditor records exports and imports.
func New(core *dbcore.Core, auditor db.Auditor) *Engine { return &Engine{core: core, audit: auditor} }

// Export takes a snapshot of a project in one read-only, repeatable-read transaction: a fixed number of
// queries whatever its size. The audit log records the export after the snapshot was read (in a
// transaction of its own: the snapshot's is read-only).
func (e *Engine) Export(ctx context.Context, workspaceID, projectID string) (TransferDoc, error) {
	var doc TransferDoc
	err := e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		var err error
		doc, err = exportTx(ctx, q, workspaceID, projectID)
		return err
	})
	if err != nil {
		return doc, err
	}
	return doc, e.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditProjectExported, WorkspaceID: workspaceID,
			Target:  db.AuditTarget{Type: "project", ID: projectID, Name: doc.Project.Name},
			Changes: map[string]int{"cards": len(doc.Cards)}})
	})
}

// exportTx reads the project and every part of it in q, then builds the document: the project's own
// parts (columns, labels, custom fields, scopes), its cards, what hangs on each card, and the
// relations between its cards.
func exportTx(ctx context.Context, q *dbsqlc.Queries, workspaceID, projectID string) (TransferDoc, error) {
	p, err := q.ProjectGet(ctx, dbsqlc.ProjectGetParams{ID: projectID, WorkspaceID: workspaceID})
	if dbcore.IsNotFound(err) {
		return TransferDoc{}, dbcore.NotFound("project not found")
	}
	if err != nil {
		return TransferDoc{}, fmt.Errorf("get project: %w", err)
	}
	var r exportRows
	if err := r.read(ctx, q, projectID); err != nil {
		return TransferDoc{}, err
	}

	now := time.Now().UTC()
	doc := TransferDoc{Version: TransferVersion, ExportedAt: &now,
		Project: TransferProject{Name: p.Name, Description: p.Description, Deadline: p.Deadline},
		Columns: make([]TransferColumn, len(r.cols)), Labels: make([]TransferLabel, len(r.labels)),
		CustomFields: make([]TransferCustomField, len(r.fields)), Scopes: make([]TransferScope, len(r.scopes)),
		Cards: make([]TransferCard, len(r.cards)), Relations: []TransferRelation{}}
	colIndex, scopeIndex := r.exportProjectParts(&doc)
	cardIndex := r.exportCards(&doc, colIndex, scopeIndex)
	r.exportCardParts(&doc, cardIndex)
	r.exportRelations(&doc, cardIndex)
	return doc, nil
}

// exportRows are the rows of every part of a project, as the export reads them.
type exportRows struct {
	cols       []dbsqlc.Column
	labels     []dbsqlc.TransferLabelListRow
	fields     []dbsqlc.TransferCustomFieldListRow
	scopes     []dbsqlc.Scope
	cards      []dbsqlc.TransferCardListRow
	items      []dbsqlc.TransferChecklistListRow
	cardLabels []dbsqlc.TransferCardLabelListRow
	values     []dbsqlc.TransferCustomValueListRow
	comments   []dbsqlc.TransferCommentListRow
	relations  []dbsqlc.TransferRelationListRow
	docLinks   []dbsqlc.TransferCardDocumentListRow
}

// read reads a project's parts, one query each.
func (r *exportRows) read(ctx context.Context, q *dbsqlc.Queries, projectID string) error {
	var err error
	if r.cols, err = q.ColumnListByProject(ctx, projectID); err != nil {
		return fmt.Errorf("list columns: %w", err)
	}
	if r.labels, err = q.TransferLabelList(ctx, projectID); err != nil {
		return fmt.Errorf("list labels: %w", err)
	}
	if r.fields, err = q.TransferCustomFieldList(ctx, projectID); err != nil {
		return fmt.Errorf("list custom fields: %w", err)
	}
	if r.scopes, err = q.ScopeListByProject(ctx, projectID); err != nil {
		return fmt.Errorf("list scopes: %w", err)
	}
	if r.cards, err = q.TransferCardList(ctx, projectID); err != nil {
		return fmt.Errorf("list cards: %w", err)
	}
	if r.items, err = q.TransferChecklistList(ctx, projectID); err != nil {
		return fmt.Errorf("list checklist items: %w", err)
	}
	if r.cardLabels, err = q.TransferCardLabelList(ctx, projectID); err != nil {
		return fmt.Errorf("list card labels: %w", err)
	}
	if r.values, err = q.TransferCustomValueList(ctx, projectID); err != nil {
		return fmt.Errorf("list custom values: %w", err)
	}
	if r.comments, err = q.TransferCommentList(ctx, projectID); err != nil {
		return fmt.Errorf("list comments: %w", err)
	}
	if r.relations, err = q.TransferRelationList(ctx, projectID); err != nil {
		return fmt.Errorf("list relations: %w", err)
	}
	if r.docLinks, err = q.TransferCardDocumentList(ctx, projectID); err != nil {
		return fmt.Errorf("list card documents: %w", err)
	}
	return nil
}

// exportProjectParts fills the document's columns, labels, custom fields and scopes, and answers the
// index of each column and scope by id.
func (r *exportRows) exportProjectParts(doc *TransferDoc) (colIndex, scopeIndex map[string]int) {
	colIndex = make(map[string]int, len(r.cols))
	for i, c := range r.cols {
		colIndex[c.ID] = i
		order := int(c.Position)
		doc.Columns[i] = TransferColumn{Name: c.Name, Order: &order}
	}
	for i, l := range r.labels {
		doc.Labels[i] = TransferLabel{Name: l.Name, Color: l.Color}
	}
	for i, f := range r.fields {
		opts := f.Options
		if opts == nil {
			opts = []string{}
		}
		doc.CustomFields[i] = TransferCustomField{Name: f.Name, Type: f.Type, Options: opts}
	}
	scopeIndex = make(map[string]int, len(r.scopes))
	for i, sc := range r.scopes {
		scopeIndex[sc.ID] = i
		doc.Scopes[i] = TransferScope{Name: sc.Name, Description: sc.Description, StartDate: sc.StartDate,
			EndDate: sc.EndDate, Settings: sc.Settings, ActiveView: sc.ActiveView}
	}
	return colIndex, scopeIndex
}

// exportCards fills the document's cards, without their parts, and answers each card's index by id.
func (r *exportRows) exportCards(doc *TransferDoc, colIndex, scopeIndex map[string]int) map[string]int {
	cardIndex := make(map[string]int, len(r.cards))
	for i, c := range r.cards {
		cardIndex[c.ID] = i
		order := int(c.Rank)
		tc := TransferCard{Title: c.Title, Description: c.Description, ColumnIndex: colIndex[c.ColumnID], Order: &order,
			Priority: c.Priority, StartDate: c.StartDate, DueDate: c.DueDate, Archived: c.Archived,
			Checklist: []TransferChecklistItem{}, Labels: []string{}, CustomFields: map[string]json.RawMessage{},
			Comments: []TransferComment{}, Documents: []TransferDocumentLink{}}
		if c.ScopeID != nil {
			if si, ok := scopeIndex[*c.ScopeID]; ok {
				tc.ScopeIndex = &si
			}
		}
		doc.Cards[i] = tc
	}
	return cardIndex
}

// exportCardParts puts on each card its checklist items, labels, custom values, comments and document
// links.
func (r *exportRows) exportCardParts(doc *TransferDoc, cardIndex map[string]int) {
	for _, it := range r.items {
		if i, ok := cardIndex[it.CardID]; ok {
			order := int(it.Position)
			doc.Cards[i].Checklist = append(doc.Cards[i].Checklist, TransferChecklistItem{Title: it.Title, Done: it.Done,
				Order: &order})
		}
	}
	for _, cl := range r.cardLabels {
		if i, ok := cardIndex[cl.CardID]; ok {
			doc.Cards[i].Labels = append(doc.Cards[i].Labels, cl.Name)
		}
	}
	for _, v := range r.values {
		if i, ok := cardIndex[v.CardID]; ok {
			doc.Cards[i].CustomFields[v.Name] = v.Value
		}
	}
	for _, cm := range r.comments {
		if i, ok := cardIndex[cm.CardID]; ok {
			at := cm.CreatedAt
			doc.Cards[i].Comments = append(doc.Cards[i].Comments, TransferComment{AuthorEmail: cm.AuthorEmail,
				Content: cm.Content, CreatedAt: &at})
		}
	}
	for _, l := range r.docLinks {
		if i, ok := cardIndex[l.CardID]; ok {
			doc.Cards[i].Documents = append(doc.Cards[i].Documents, TransferDocumentLink{ID: l.DocumentID, Title: l.Title})
		}
	}
}

// exportRelations fills the document's relations between its cards.
func (r *exportRows) exportRelations(doc *TransferDoc, cardIndex map[string]int) {
	for _, rel := range r.relations {
		from, ok1 := cardIndex[rel.CardID]
		to, ok2 := cardIndex[rel.TargetCardID]
		if ok1 && ok2 { // a relation to a card of another project cannot be carried
			doc.Relations = append(doc.Relations, TransferRelation{CardIndex: from, TargetCardIndex: to, Type: rel.Type})
		}
	}
}

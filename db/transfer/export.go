package transfer

// This file exports a project: one repeatable-read transaction that reads every part of the project and
// turns it into a TransferDoc (format in format.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Engine exports and imports projects.
type Engine struct {
	core *dbcore.Core
}

// New builds the transfer engine on store's pool and River client.
func New(store *db.Store) *Engine { return &Engine{core: dbcore.Of(store)} }

// Export takes a snapshot of a project in one read-only, repeatable-read transaction: a fixed number of
// queries whatever its size.
func (e *Engine) Export(ctx context.Context, workspaceID, projectID string) (TransferDoc, error) {
	var doc TransferDoc
	err := e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		var err error
		doc, err = exportTx(ctx, q, workspaceID, projectID)
		return err
	})
	return doc, err
}

func exportTx(ctx context.Context, q *dbsqlc.Queries, workspaceID, projectID string) (TransferDoc, error) {
	p, err := q.ProjectGet(ctx, dbsqlc.ProjectGetParams{ID: projectID, WorkspaceID: workspaceID})
	if dbcore.IsNotFound(err) {
		return TransferDoc{}, dbcore.NotFound("project not found")
	}
	if err != nil {
		return TransferDoc{}, fmt.Errorf("get project: %w", err)
	}
	cols, err := q.ColumnListByProject(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list columns: %w", err)
	}
	labels, err := q.TransferLabelList(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list labels: %w", err)
	}
	fields, err := q.TransferCustomFieldList(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list custom fields: %w", err)
	}
	scopes, err := q.ScopeListByProject(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list scopes: %w", err)
	}
	cards, err := q.TransferCardList(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list cards: %w", err)
	}
	items, err := q.TransferChecklistList(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list checklist items: %w", err)
	}
	cardLabels, err := q.TransferCardLabelList(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list card labels: %w", err)
	}
	values, err := q.TransferCustomValueList(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list custom values: %w", err)
	}
	comments, err := q.TransferCommentList(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list comments: %w", err)
	}
	relations, err := q.TransferRelationList(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list relations: %w", err)
	}
	docLinks, err := q.TransferCardDocumentList(ctx, projectID)
	if err != nil {
		return TransferDoc{}, fmt.Errorf("list card documents: %w", err)
	}

	now := time.Now().UTC()
	doc := TransferDoc{Version: TransferVersion, ExportedAt: &now,
		Project: TransferProject{Name: p.Name, Description: p.Description, Deadline: p.Deadline},
		Columns: make([]TransferColumn, len(cols)), Labels: make([]TransferLabel, len(labels)),
		CustomFields: make([]TransferCustomField, len(fields)), Scopes: make([]TransferScope, len(scopes)),
		Cards: make([]TransferCard, len(cards)), Relations: []TransferRelation{}}
	colIndex := make(map[string]int, len(cols))
	for i, c := range cols {
		colIndex[c.ID] = i
		order := int(c.Position)
		doc.Columns[i] = TransferColumn{Name: c.Name, Order: &order}
	}
	for i, l := range labels {
		doc.Labels[i] = TransferLabel{Name: l.Name, Color: l.Color}
	}
	for i, f := range fields {
		opts := f.Options
		if opts == nil {
			opts = []string{}
		}
		doc.CustomFields[i] = TransferCustomField{Name: f.Name, Type: f.Type, Options: opts}
	}
	scopeIndex := make(map[string]int, len(scopes))
	for i, sc := range scopes {
		scopeIndex[sc.ID] = i
		doc.Scopes[i] = TransferScope{Name: sc.Name, Description: sc.Description, StartDate: sc.StartDate, EndDate: sc.EndDate,
			Settings: sc.Settings, ActiveView: sc.ActiveView}
	}
	cardIndex := make(map[string]int, len(cards))
	for i, c := range cards {
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
	for _, it := range items {
		if i, ok := cardIndex[it.CardID]; ok {
			order := int(it.Position)
			doc.Cards[i].Checklist = append(doc.Cards[i].Checklist, TransferChecklistItem{Title: it.Title, Done: it.Done, Order: &order})
		}
	}
	for _, cl := range cardLabels {
		if i, ok := cardIndex[cl.CardID]; ok {
			doc.Cards[i].Labels = append(doc.Cards[i].Labels, cl.Name)
		}
	}
	for _, v := range values {
		if i, ok := cardIndex[v.CardID]; ok {
			doc.Cards[i].CustomFields[v.Name] = v.Value
		}
	}
	for _, cm := range comments {
		if i, ok := cardIndex[cm.CardID]; ok {
			at := cm.CreatedAt
			doc.Cards[i].Comments = append(doc.Cards[i].Comments, TransferComment{AuthorEmail: cm.AuthorEmail, Content: cm.Content, CreatedAt: &at})
		}
	}
	for _, l := range docLinks {
		if i, ok := cardIndex[l.CardID]; ok {
			doc.Cards[i].Documents = append(doc.Cards[i].Documents, TransferDocumentLink{ID: l.DocumentID, Title: l.Title})
		}
	}
	for _, r := range relations {
		from, ok1 := cardIndex[r.CardID]
		to, ok2 := cardIndex[r.TargetCardID]
		if ok1 && ok2 { // a relation to a card of another project cannot be carried
			doc.Relations = append(doc.Relations, TransferRelation{CardIndex: from, TargetCardIndex: to, Type: r.Type})
		}
	}
	return doc, nil
}

package transfer

// The import plan of cards and what hangs on them: checklist items, labels, custom values, comments,
// their order in their columns, and relations between them.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// planCard checks cards[i] and plans its row, then its checklist items, labels, custom values and
// comments; it records the card's id in refs.cardIDs.
func (pl *importPlan) planCard(refs *importRefs, i int, c TransferCard) error {
	at := func(field string) string { return fmt.Sprintf("cards[%d].%s", i, field) }
	row, err := pl.checkImportCard(refs, at, c)
	if err != nil {
		return err
	}
	refs.cardIDs[i] = db.NewID()
	row.ID = refs.cardIDs[i]
	pl.cardRows = append(pl.cardRows, row)
	if err := pl.planChecklist(at, row.ID, c.Checklist); err != nil {
		return err
	}
	if err := pl.planCardLabels(refs.labelIDs, at, row.ID, c.Labels); err != nil {
		return err
	}
	if err := pl.planCustomValues(refs.fields, at, row.ID, c.CustomFields); err != nil {
		return err
	}
	return pl.planComments(at, row.ID, c.Comments)
}

// checkImportCard checks a card's own fields and its references to a column and a scope, and answers
// its row without an id. at names a field of the card.
func (pl *importPlan) checkImportCard(refs *importRefs, at func(string) string, c TransferCard) (importCardRow, error) {
	doc := pl.doc
	title := strings.TrimSpace(c.Title)
	if title == "" || utf8.RuneCountInString(title) > maxCardTitleRunes {
		return importCardRow{}, dbcore.Invalid(at("title") + fmt.Sprintf(": must be 1 to %d characters", maxCardTitleRunes))
	}
	if utf8.RuneCountInString(c.Description) > maxCardDescriptionRunes {
		return importCardRow{}, dbcore.Invalid(at("description") + fmt.Sprintf(": at most %d characters",
			maxCardDescriptionRunes))
	}
	if c.ColumnIndex < 0 || c.ColumnIndex >= len(doc.Columns) {
		return importCardRow{}, dbcore.Invalid(at("columnIndex") + fmt.Sprintf(": %d is not the index of a column (the "+
			"import has %d)", c.ColumnIndex, len(doc.Columns)))
	}
	prio := board.Priority(c.Priority)
	if prio == "" {
		prio = board.PriorityMedium
	}
	if !prio.Valid() {
		return importCardRow{}, dbcore.Invalid(at("priority") + fmt.Sprintf(": must be one of %v", board.Priorities))
	}
	var scopeID *string
	if c.ScopeIndex != nil {
		if *c.ScopeIndex < 0 || *c.ScopeIndex >= len(doc.Scopes) {
			return importCardRow{}, dbcore.Invalid(at("scopeIndex") + fmt.Sprintf(": %d is not the index of a scope (the "+
				"import has %d)", *c.ScopeIndex, len(doc.Scopes)))
		}
		scopeID = &refs.scopeIDs[*c.ScopeIndex]
	}
	if len(c.Checklist) > board.MaxChecklistItems {
		return importCardRow{}, dbcore.Invalid(at("checklist") + fmt.Sprintf(": a card has at most %d checklist items",
			board.MaxChecklistItems))
	}
	if len(c.Comments) > MaxImportCommentsPerCard {
		return importCardRow{}, dbcore.Invalid(at("comments") + fmt.Sprintf(": at most %d comments per card",
			MaxImportCommentsPerCard))
	}
	return importCardRow{ColumnID: refs.colIDs[c.ColumnIndex], ScopeID: scopeID, Title: title, Description: c.Description,
		Archived: c.Archived, Priority: string(prio), StartDate: c.StartDate, DueDate: c.DueDate,
		CommentCount: len(c.Comments)}, nil
}

// planChecklist plans a card's checklist items; an item without an order keeps its place.
func (pl *importPlan) planChecklist(at func(string) string, cardID string, items []TransferChecklistItem) error {
	for j, it := range items {
		t := strings.TrimSpace(it.Title)
		if t == "" || utf8.RuneCountInString(t) > 500 {
			return dbcore.Invalid(at(fmt.Sprintf("checklist[%d].title", j)) + ": must be 1 to 500 characters")
		}
		pos := j
		if it.Order != nil {
			if *it.Order < 0 {
				return dbcore.Invalid(at(fmt.Sprintf("checklist[%d].order", j)) + ": must not be negative")
			}
			pos = *it.Order
		}
		pl.checklistRows = append(pl.checklistRows, importChecklistRow{ID: db.NewID(), CardID: cardID, Title: t,
			Done: it.Done, Position: pos})
	}
	return nil
}

// planCardLabels plans a card's labels by name; a label named twice is put on once.
func (pl *importPlan) planCardLabels(labelIDs map[string]string, at func(string) string, cardID string,
	labels []string) error {
	var seenLabels []string
	for j, ln := range labels {
		id, ok := labelIDs[strings.TrimSpace(ln)]
		if !ok {
			return dbcore.Invalid(at(fmt.Sprintf("labels[%d]", j)) + fmt.Sprintf(": no label named %q in labels", ln))
		}
		if slices.Contains(seenLabels, id) {
			continue
		}
		seenLabels = append(seenLabels, id)
		pl.cardLabelRows = append(pl.cardLabelRows, importCardLabelRow{CardID: cardID, LabelID: id})
	}
	return nil
}

// planCustomValues plans a card's custom field values, checked by field name in sorted order; a null
// value is no value.
func (pl *importPlan) planCustomValues(fields map[string]importFieldRow, at func(string) string, cardID string,
	values map[string]json.RawMessage) error {
	names := make([]string, 0, len(values))
	for fn := range values {
		names = append(names, fn)
	}
	slices.Sort(names) // deterministic: the first bad value reported is always the same
	for _, fn := range names {
		f, ok := fields[fn]
		if !ok {
			return dbcore.Invalid(at("customFields") + fmt.Sprintf(": no custom field named %q in customFields", fn))
		}
		v := values[fn]
		if board.IsNullValue(v) {
			continue // no value
		}
		if err := board.CheckCustomValue(f.Type, f.Options, v); err != nil {
			return dbcore.Invalid(at("customFields") + fmt.Sprintf("[%q]: %v", fn, err))
		}
		pl.valueRows = append(pl.valueRows, importValueRow{CardID: cardID, FieldID: f.ID, Value: v})
	}
	return nil
}

// planComments plans a card's comments.
func (pl *importPlan) planComments(at func(string) string, cardID string, comments []TransferComment) error {
	for j, cm := range comments {
		if strings.TrimSpace(cm.Content) == "" || utf8.RuneCountInString(cm.Content) > board.MaxCommentLength {
			return dbcore.Invalid(at(fmt.Sprintf("comments[%d].content", j)) + fmt.Sprintf(": must be 1 to %d characters",
				board.MaxCommentLength))
		}
		pl.commentRows = append(pl.commentRows, importCommentRow{ID: db.NewID(), CardID: cardID, Content: cm.Content,
			CreatedAt: cm.CreatedAt})
	}
	return nil
}

// placeCards sets the order in which cards take positions: column by column (colPos is each
// document column's position), by order then as given.
func (pl *importPlan) placeCards(colPos []int) {
	cards := pl.doc.Cards
	pl.cardsPlacement = make([]int, len(cards))
	for i := range pl.cardsPlacement {
		pl.cardsPlacement[i] = i
	}
	slices.SortStableFunc(pl.cardsPlacement, func(a, b int) int {
		ca, cb := cards[a], cards[b]
		if c := cmp.Compare(colPos[ca.ColumnIndex], colPos[cb.ColumnIndex]); c != 0 {
			return c
		}
		return cmp.Compare(transferOrderKey(ca.Order, a), transferOrderKey(cb.Order, b))
	})
}

// planRelations checks the relations between cards, by their index in the document, and plans their
// rows; the same relation given twice is refused.
func (pl *importPlan) planRelations(cardIDs []string) error {
	type relKey struct {
		from, to int
		typ      string
	}
	nCards := len(pl.doc.Cards)
	seen := make(map[relKey]bool, len(pl.doc.Relations))
	for i, r := range pl.doc.Relations {
		switch {
		case r.CardIndex < 0 || r.CardIndex >= nCards:
			return dbcore.Invalid(fmt.Sprintf("relations[%d].cardIndex: %d is not the index of a card (the import has %d)", i,
				r.CardIndex, nCards))
		case r.TargetCardIndex < 0 || r.TargetCardIndex >= nCards:
			return dbcore.Invalid(fmt.Sprintf("relations[%d].targetCardIndex: %d is not the index of a card (the import has %d)",
				i, r.TargetCardIndex, nCards))
		case r.CardIndex == r.TargetCardIndex:
			return dbcore.Invalid(fmt.Sprintf("relations[%d]: a card cannot be related to itself", i))
		case !slices.Contains(board.RelationTypes, r.Type):
			return dbcore.Invalid(fmt.Sprintf("relations[%d].type: must be one of %v", i, board.RelationTypes))
		}
		k := relKey{r.CardIndex, r.TargetCardIndex, r.Type}
		if seen[k] {
			return dbcore.Invalid(fmt.Sprintf("relations[%d]: duplicate relation", i))
		}
		seen[k] = true
		pl.relationRows = append(pl.relationRows, importRelationRow{ID: db.NewID(), CardID: cardIDs[r.CardIndex],
			TargetCardID: cardIDs[r.TargetCardIndex], Type: r.Type})
	}
	return nil
}

// transferOrderKey sorts items with an explicit order by it and the others by their place in the document.

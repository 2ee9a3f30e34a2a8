package transfer

// This file imports a project: planImport, the import's validator, checks a TransferDoc against every
// limit and reference and turns it into rows; importTx inserts them, one statement per kind of row, in
// one transaction (format in format.go).

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/db/roadmap"
)

// Import limits. Columns and cards are the API's documented limits; the others bound what one
// document may carry.
const (
	MaxImportColumns          = 50
	MaxImportCards            = 500
	MaxImportLabels           = 500
	MaxImportCustomFields     = 200
	MaxImportScopes           = 500
	MaxImportRelations        = 10000
	MaxImportCommentsPerCard  = 2000
	maxCardTitleRunes         = 500
	maxCardDescriptionRunes   = 5000
	maxScopeDescriptionRunes  = 5000
	maxProjectDescriptionRune = 20000
)

// Import creates a project in a workspace from a snapshot, as actorID, in one transaction: it
// is created whole or not at all. The project starts empty (no template columns or labels); the
// importer becomes its member and the author of every imported comment. The activities are those the
// same changes made one by one would record (card_created, card_archived for archived cards,
// comment_added), by the importer, in the same transaction; they notify no one, since the importer is
// the new project's only member.
func (e *Engine) Import(ctx context.Context, workspaceID, actorID string, doc TransferDoc) (db.Project, error) {
	plan, err := planImport(doc)
	if err != nil {
		return db.Project{}, err
	}
	var p db.Project
	err = e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		if p, err = importTx(ctx, q, workspaceID, actorID, plan); err != nil {
			return err
		}
		return e.core.RecordActivities(ctx, tx, plan.activities(p.ID, actorID)...)
	})
	return p, err
}

// activities are what creating the plan's cards and comments one by one would record.
func (pl *importPlan) activities(projectID, actorID string) []dbcore.Activity {
	acts := make([]dbcore.Activity, 0, len(pl.cardRows)+len(pl.commentRows))
	titles := make(map[string]string, len(pl.cardRows))
	add := func(cardID, typ string, meta map[string]any) {
		acts = append(acts, dbcore.Activity{ProjectID: projectID, CardID: cardID, ActorID: actorID, Type: typ, Meta: meta, Quiet: true})
	}
	for _, c := range pl.cardRows {
		titles[c.ID] = c.Title
		add(c.ID, db.ActivityCardCreated, map[string]any{"title": c.Title, "columnId": c.ColumnID})
		if c.Archived {
			add(c.ID, db.ActivityCardArchived, nil)
		}
	}
	for _, cm := range pl.commentRows {
		add(cm.CardID, db.ActivityCommentAdded, map[string]any{"commentId": cm.ID, "title": titles[cm.CardID],
			"excerpt": db.Excerpt(cm.Content, db.CommentExcerptLength)})
	}
	return acts
}

// importPlan is a validated document with every row to insert, ids assigned.
type importPlan struct {
	doc            TransferDoc
	projectName    string
	columnRows     []importColumnRow
	labelRows      []importLabelRow
	fieldRows      []importFieldRow
	scopeRows      []importScopeRow
	cardRows       []importCardRow
	checklistRows  []importChecklistRow
	cardLabelRows  []importCardLabelRow
	valueRows      []importValueRow
	commentRows    []importCommentRow
	relationRows   []importRelationRow
	cardsPlacement []int // card indexes in the order they take positions
}

type importColumnRow struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Position int    `json:"position"`
}

type importLabelRow struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

type importFieldRow struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Options []string `json:"options"`
	Ord     int      `json:"ord"`
}

type importScopeRow struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	StartDate   *time.Time      `json:"start_date"`
	EndDate     *time.Time      `json:"end_date"`
	Settings    json.RawMessage `json:"settings"`
	ActiveView  string          `json:"active_view"`
	Ord         int             `json:"ord"`
}

type importCardRow struct {
	ID           string     `json:"id"`
	ColumnID     string     `json:"column_id"`
	ScopeID      *string    `json:"scope_id"`
	Title        string     `json:"title"`
	Description  string     `json:"description"`
	Position     int64      `json:"position"`
	Archived     bool       `json:"archived"`
	Priority     string     `json:"priority"`
	StartDate    *time.Time `json:"start_date"`
	DueDate      *time.Time `json:"due_date"`
	CommentCount int        `json:"comment_count"`
}

type importChecklistRow struct {
	ID       string `json:"id"`
	CardID   string `json:"card_id"`
	Title    string `json:"title"`
	Done     bool   `json:"done"`
	Position int    `json:"position"`
}

type importCardLabelRow struct {
	CardID  string `json:"card_id"`
	LabelID string `json:"label_id"`
}

type importValueRow struct {
	CardID  string          `json:"card_id"`
	FieldID string          `json:"field_id"`
	Value   json.RawMessage `json:"value"`
}

type importCommentRow struct {
	ID        string     `json:"id"`
	CardID    string     `json:"card_id"`
	Content   string     `json:"content"`
	CreatedAt *time.Time `json:"created_at"`
}

type importRelationRow struct {
	ID           string `json:"id"`
	CardID       string `json:"card_id"`
	TargetCardID string `json:"target_card_id"`
	Type         string `json:"type"`
}

var transferColorRe = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// planImport checks a document against every limit and reference and turns it into rows. Every
// refusal names the offending place, e.g. "cards[3].columnIndex". The kinds are checked in the
// document's order (project, columns, labels, custom fields, scopes, cards, relations), and ids are
// assigned as each row is planned.
func planImport(doc TransferDoc) (*importPlan, error) {
	name, err := checkImportHeader(doc)
	if err != nil {
		return nil, err
	}
	pl := &importPlan{doc: doc, projectName: name}
	var refs importRefs
	var colPos []int
	if refs.colIDs, colPos, err = pl.planColumns(); err != nil {
		return nil, err
	}
	if refs.labelIDs, err = pl.planLabels(); err != nil {
		return nil, err
	}
	if refs.fields, err = pl.planCustomFields(); err != nil {
		return nil, err
	}
	if refs.scopeIDs, err = pl.planScopes(); err != nil {
		return nil, err
	}
	refs.cardIDs = make([]string, len(doc.Cards))
	for i, c := range doc.Cards {
		if err := pl.planCard(&refs, i, c); err != nil {
			return nil, err
		}
	}
	pl.placeCards(colPos)
	if err := pl.planRelations(refs.cardIDs); err != nil {
		return nil, err
	}
	return pl, nil
}

// importRefs are the ids planned so far that later records refer to: columns, scopes and cards by
// their index in the document, labels and custom fields by name.
type importRefs struct {
	colIDs   []string
	labelIDs map[string]string
	fields   map[string]importFieldRow
	scopeIDs []string
	cardIDs  []string
}

// checkImportHeader checks the document's version, the project's own fields and the per-kind count
// limits, and answers the project's trimmed name.
func checkImportHeader(doc TransferDoc) (string, error) {
	if doc.Version != 0 && doc.Version != TransferVersion {
		return "", dbcore.Invalid(fmt.Sprintf("version: unsupported export version %d (expected %d)", doc.Version, TransferVersion))
	}
	name := strings.TrimSpace(doc.Project.Name)
	if name == "" || utf8.RuneCountInString(name) > 200 {
		return "", dbcore.Invalid("project.name: must be 1 to 200 characters")
	}
	if utf8.RuneCountInString(doc.Project.Description) > maxProjectDescriptionRune {
		return "", dbcore.Invalid(fmt.Sprintf("project.description: at most %d characters", maxProjectDescriptionRune))
	}
	switch {
	case len(doc.Columns) > MaxImportColumns:
		return "", dbcore.Invalid(fmt.Sprintf("columns: an import has at most %d columns", MaxImportColumns))
	case len(doc.Cards) > MaxImportCards:
		return "", dbcore.Invalid(fmt.Sprintf("cards: an import has at most %d cards", MaxImportCards))
	case len(doc.Labels) > MaxImportLabels:
		return "", dbcore.Invalid(fmt.Sprintf("labels: an import has at most %d labels", MaxImportLabels))
	case len(doc.CustomFields) > MaxImportCustomFields:
		return "", dbcore.Invalid(fmt.Sprintf("customFields: an import has at most %d custom fields", MaxImportCustomFields))
	case len(doc.Scopes) > MaxImportScopes:
		return "", dbcore.Invalid(fmt.Sprintf("scopes: an import has at most %d scopes", MaxImportScopes))
	case len(doc.Relations) > MaxImportRelations:
		return "", dbcore.Invalid(fmt.Sprintf("relations: an import has at most %d relations", MaxImportRelations))
	}
	return name, nil
}

// planColumns plans the column rows and answers each document column's id and position, by its
// index in the document. Columns are placed by order, then as given; cards refer to them by their
// index in the document.
func (pl *importPlan) planColumns() (colIDs []string, colPos []int, err error) {
	cols := pl.doc.Columns
	colIDs = make([]string, len(cols))
	colPos = make([]int, len(cols))
	byOrder := make([]int, len(cols))
	for i, c := range cols {
		n := strings.TrimSpace(c.Name)
		if n == "" || utf8.RuneCountInString(n) > 100 {
			return nil, nil, dbcore.Invalid(fmt.Sprintf("columns[%d].name: must be 1 to 100 characters", i))
		}
		colIDs[i], byOrder[i] = db.NewID(), i
	}
	slices.SortStableFunc(byOrder, func(a, b int) int {
		return cmp.Compare(transferOrderKey(cols[a].Order, a), transferOrderKey(cols[b].Order, b))
	})
	for pos, i := range byOrder {
		colPos[i] = pos
		pl.columnRows = append(pl.columnRows, importColumnRow{ID: colIDs[i], Name: strings.TrimSpace(cols[i].Name), Position: pos})
	}
	return colIDs, colPos, nil
}

// planLabels plans the label rows and answers their ids by trimmed name.
func (pl *importPlan) planLabels() (map[string]string, error) {
	labelIDs := make(map[string]string, len(pl.doc.Labels))
	for i, l := range pl.doc.Labels {
		n := strings.TrimSpace(l.Name)
		if n == "" || utf8.RuneCountInString(n) > 100 {
			return nil, dbcore.Invalid(fmt.Sprintf("labels[%d].name: must be 1 to 100 characters", i))
		}
		if !transferColorRe.MatchString(l.Color) {
			return nil, dbcore.Invalid(fmt.Sprintf("labels[%d].color: must be a colour like #1d76db", i))
		}
		if _, dup := labelIDs[n]; dup {
			return nil, dbcore.Invalid(fmt.Sprintf("labels[%d].name: duplicate label %q", i, n))
		}
		labelIDs[n] = db.NewID()
		pl.labelRows = append(pl.labelRows, importLabelRow{ID: labelIDs[n], Name: n, Color: strings.ToLower(l.Color)})
	}
	return labelIDs, nil
}

// planCustomFields plans the custom field rows and answers them by trimmed name.
func (pl *importPlan) planCustomFields() (map[string]importFieldRow, error) {
	fields := make(map[string]importFieldRow, len(pl.doc.CustomFields))
	for i, f := range pl.doc.CustomFields {
		n := strings.TrimSpace(f.Name)
		if n == "" || utf8.RuneCountInString(n) > 100 {
			return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].name: must be 1 to 100 characters", i))
		}
		if _, dup := fields[n]; dup {
			return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].name: duplicate custom field %q", i, n))
		}
		if !slices.Contains(db.CustomFieldTypes, f.Type) {
			return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].type: must be one of %v", i, db.CustomFieldTypes))
		}
		opts, err := checkImportFieldOptions(i, f)
		if err != nil {
			return nil, err
		}
		fields[n] = importFieldRow{ID: db.NewID(), Name: n, Type: f.Type, Options: opts, Ord: i}
		pl.fieldRows = append(pl.fieldRows, fields[n])
	}
	return fields, nil
}

// checkImportFieldOptions checks the options of customFields[i] against its type and answers them.
func checkImportFieldOptions(i int, f TransferCustomField) ([]string, error) {
	selectable := db.HasOptions(f.Type)
	switch {
	case selectable && len(f.Options) == 0:
		return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].options: a %s field needs options", i, f.Type))
	case !selectable && len(f.Options) > 0:
		return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].options: only select and multi-select fields have options", i))
	case len(f.Options) > db.MaxCustomFieldOptions:
		return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].options: at most %d options", i, db.MaxCustomFieldOptions))
	}
	opts := make([]string, 0, len(f.Options))
	for j, o := range f.Options {
		if strings.TrimSpace(o) == "" || utf8.RuneCountInString(o) > db.MaxCustomFieldOptionLen || slices.Contains(opts, o) {
			return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].options[%d]: options must be distinct, not blank and at most %d characters", i, j, db.MaxCustomFieldOptionLen))
		}
		opts = append(opts, o)
	}
	return opts, nil
}

// planScopes plans the scope rows and answers their ids by index in the document.
func (pl *importPlan) planScopes() ([]string, error) {
	scopeIDs := make([]string, len(pl.doc.Scopes))
	for i, sc := range pl.doc.Scopes {
		n := strings.TrimSpace(sc.Name)
		if n == "" || utf8.RuneCountInString(n) > 200 {
			return nil, dbcore.Invalid(fmt.Sprintf("scopes[%d].name: must be 1 to 200 characters", i))
		}
		if utf8.RuneCountInString(sc.Description) > maxScopeDescriptionRunes {
			return nil, dbcore.Invalid(fmt.Sprintf("scopes[%d].description: at most %d characters", i, maxScopeDescriptionRunes))
		}
		if err := roadmap.CheckScopeDates(sc.StartDate, sc.EndDate); err != nil {
			return nil, dbcore.Invalid(fmt.Sprintf("scopes[%d]: %v", i, err))
		}
		settings, err := roadmap.ScopeSettings(sc.Settings)
		if err != nil {
			return nil, dbcore.Invalid(fmt.Sprintf("scopes[%d]: %v", i, err))
		}
		view := sc.ActiveView
		if view == "" {
			view = roadmap.ScopeViews[0]
		}
		if !slices.Contains(roadmap.ScopeViews, view) {
			return nil, dbcore.Invalid(fmt.Sprintf("scopes[%d].activeView: must be one of %v", i, roadmap.ScopeViews))
		}
		scopeIDs[i] = db.NewID()
		pl.scopeRows = append(pl.scopeRows, importScopeRow{ID: scopeIDs[i], Name: n, Description: sc.Description,
			StartDate: sc.StartDate, EndDate: sc.EndDate, Settings: settings, ActiveView: view, Ord: i})
	}
	return scopeIDs, nil
}

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
		return importCardRow{}, dbcore.Invalid(at("description") + fmt.Sprintf(": at most %d characters", maxCardDescriptionRunes))
	}
	if c.ColumnIndex < 0 || c.ColumnIndex >= len(doc.Columns) {
		return importCardRow{}, dbcore.Invalid(at("columnIndex") + fmt.Sprintf(": %d is not the index of a column (the import has %d)", c.ColumnIndex, len(doc.Columns)))
	}
	prio := c.Priority
	if prio == "" {
		prio = "medium"
	}
	if !slices.Contains(db.Priorities, prio) {
		return importCardRow{}, dbcore.Invalid(at("priority") + fmt.Sprintf(": must be one of %v", db.Priorities))
	}
	var scopeID *string
	if c.ScopeIndex != nil {
		if *c.ScopeIndex < 0 || *c.ScopeIndex >= len(doc.Scopes) {
			return importCardRow{}, dbcore.Invalid(at("scopeIndex") + fmt.Sprintf(": %d is not the index of a scope (the import has %d)", *c.ScopeIndex, len(doc.Scopes)))
		}
		scopeID = &refs.scopeIDs[*c.ScopeIndex]
	}
	if len(c.Checklist) > db.MaxChecklistItems {
		return importCardRow{}, dbcore.Invalid(at("checklist") + fmt.Sprintf(": a card has at most %d checklist items", db.MaxChecklistItems))
	}
	if len(c.Comments) > MaxImportCommentsPerCard {
		return importCardRow{}, dbcore.Invalid(at("comments") + fmt.Sprintf(": at most %d comments per card", MaxImportCommentsPerCard))
	}
	return importCardRow{ColumnID: refs.colIDs[c.ColumnIndex], ScopeID: scopeID, Title: title, Description: c.Description,
		Archived: c.Archived, Priority: prio, StartDate: c.StartDate, DueDate: c.DueDate, CommentCount: len(c.Comments)}, nil
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
		pl.checklistRows = append(pl.checklistRows, importChecklistRow{ID: db.NewID(), CardID: cardID, Title: t, Done: it.Done, Position: pos})
	}
	return nil
}

// planCardLabels plans a card's labels by name; a label named twice is put on once.
func (pl *importPlan) planCardLabels(labelIDs map[string]string, at func(string) string, cardID string, labels []string) error {
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
func (pl *importPlan) planCustomValues(fields map[string]importFieldRow, at func(string) string, cardID string, values map[string]json.RawMessage) error {
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
		if db.IsNullValue(v) {
			continue // no value
		}
		if err := db.CheckCustomValue(f.Type, f.Options, v); err != nil {
			return dbcore.Invalid(at("customFields") + fmt.Sprintf("[%q]: %v", fn, err))
		}
		pl.valueRows = append(pl.valueRows, importValueRow{CardID: cardID, FieldID: f.ID, Value: v})
	}
	return nil
}

// planComments plans a card's comments.
func (pl *importPlan) planComments(at func(string) string, cardID string, comments []TransferComment) error {
	for j, cm := range comments {
		if strings.TrimSpace(cm.Content) == "" || utf8.RuneCountInString(cm.Content) > db.MaxCommentLength {
			return dbcore.Invalid(at(fmt.Sprintf("comments[%d].content", j)) + fmt.Sprintf(": must be 1 to %d characters", db.MaxCommentLength))
		}
		pl.commentRows = append(pl.commentRows, importCommentRow{ID: db.NewID(), CardID: cardID, Content: cm.Content, CreatedAt: cm.CreatedAt})
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
			return dbcore.Invalid(fmt.Sprintf("relations[%d].cardIndex: %d is not the index of a card (the import has %d)", i, r.CardIndex, nCards))
		case r.TargetCardIndex < 0 || r.TargetCardIndex >= nCards:
			return dbcore.Invalid(fmt.Sprintf("relations[%d].targetCardIndex: %d is not the index of a card (the import has %d)", i, r.TargetCardIndex, nCards))
		case r.CardIndex == r.TargetCardIndex:
			return dbcore.Invalid(fmt.Sprintf("relations[%d]: a card cannot be related to itself", i))
		case !slices.Contains(db.RelationTypes, r.Type):
			return dbcore.Invalid(fmt.Sprintf("relations[%d].type: must be one of %v", i, db.RelationTypes))
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
func transferOrderKey(order *int, index int) int {
	if order != nil {
		return *order
	}
	return index
}

func importTx(ctx context.Context, q *dbsqlc.Queries, workspaceID, actorID string, pl *importPlan) (db.Project, error) {
	doc := pl.doc
	empty := "empty"
	p, err := q.ProjectInsert(ctx, dbsqlc.ProjectInsertParams{ID: db.NewID(), WorkspaceID: workspaceID, Name: pl.projectName,
		Description: doc.Project.Description, Deadline: doc.Project.Deadline, TemplateID: &empty, CreatedBy: actorID})
	if err != nil {
		return db.Project(p), fmt.Errorf("insert project: %w", err)
	}
	if _, err := q.ProjectMemberAdd(ctx, dbsqlc.ProjectMemberAddParams{ProjectID: p.ID, UserID: actorID}); err != nil {
		return db.Project(p), fmt.Errorf("add project creator: %w", err)
	}

	// Positions for the cards, ascending, taken from the shared sequence.
	if len(pl.cardRows) > 0 {
		positions, err := q.TransferCardPositions(ctx, dbcore.Int32(len(pl.cardRows)))
		if err != nil {
			return db.Project(p), fmt.Errorf("take card positions: %w", err)
		}
		slices.Sort(positions)
		for k, i := range pl.cardsPlacement {
			pl.cardRows[i].Position = positions[k]
		}
	}

	inserts := []struct {
		what string
		n    int
		rows any
		run  func(json.RawMessage) error
	}{
		{"columns", len(pl.columnRows), pl.columnRows, func(b json.RawMessage) error {
			return q.TransferColumnInsertMany(ctx, dbsqlc.TransferColumnInsertManyParams{ProjectID: p.ID, Rows: b})
		}},
		{"labels", len(pl.labelRows), pl.labelRows, func(b json.RawMessage) error {
			return q.TransferLabelInsertMany(ctx, dbsqlc.TransferLabelInsertManyParams{ProjectID: p.ID, Rows: b})
		}},
		{"custom fields", len(pl.fieldRows), pl.fieldRows, func(b json.RawMessage) error {
			return q.TransferCustomFieldInsertMany(ctx, dbsqlc.TransferCustomFieldInsertManyParams{ProjectID: p.ID, Rows: b})
		}},
		{"scopes", len(pl.scopeRows), pl.scopeRows, func(b json.RawMessage) error {
			return q.TransferScopeInsertMany(ctx, dbsqlc.TransferScopeInsertManyParams{ProjectID: p.ID, Rows: b})
		}},
		{"cards", len(pl.cardRows), pl.cardRows, func(b json.RawMessage) error {
			return q.TransferCardInsertMany(ctx, dbsqlc.TransferCardInsertManyParams{ProjectID: p.ID, CreatedBy: actorID, Rows: b})
		}},
		{"checklist items", len(pl.checklistRows), pl.checklistRows, func(b json.RawMessage) error {
			return q.TransferChecklistInsertMany(ctx, b)
		}},
		{"card labels", len(pl.cardLabelRows), pl.cardLabelRows, func(b json.RawMessage) error {
			return q.TransferCardLabelInsertMany(ctx, b)
		}},
		{"custom values", len(pl.valueRows), pl.valueRows, func(b json.RawMessage) error {
			return q.TransferCustomValueInsertMany(ctx, b)
		}},
		{"comments", len(pl.commentRows), pl.commentRows, func(b json.RawMessage) error {
			return q.TransferCommentInsertMany(ctx, dbsqlc.TransferCommentInsertManyParams{AuthorID: actorID, Rows: b})
		}},
		{"relations", len(pl.relationRows), pl.relationRows, func(b json.RawMessage) error {
			return q.TransferRelationInsertMany(ctx, dbsqlc.TransferRelationInsertManyParams{ProjectID: p.ID, CreatedBy: actorID, Rows: b})
		}},
	}
	for _, ins := range inserts {
		if ins.n == 0 {
			continue
		}
		b, err := json.Marshal(ins.rows)
		if err != nil {
			return db.Project(p), fmt.Errorf("encode %s: %w", ins.what, err)
		}
		if err := ins.run(b); err != nil {
			return db.Project(p), dbcore.Wrap(err, "insert "+ins.what)
		}
	}
	return db.Project(p), nil
}

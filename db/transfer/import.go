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
	"github.com/pilot-dev/pilot/db/board"
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
	plan, err := planImport(doc, ImportOptions{})
	if err != nil {
		return db.Project{}, err
	}
	var p db.Project
	err = e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		if p, err = importTx(ctx, q, workspaceID, actorID, plan); err != nil {
			return err
		}
		if err := e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditProjectImported, WorkspaceID: workspaceID,
			ActorID: actorID, Target: db.AuditTarget{Type: "project", ID: p.ID, Name: p.Name},
			Changes: map[string]int{"cards": len(plan.cardRows)}}); err != nil {
			return err
		}
		return e.core.RecordActivities(ctx, tx, plan.activities(p.ID, actorID)...)
	})
	return p, err
}

// ImportOptions widen an import for the importers of other tools' exports (db/imports): larger limits,
// and assignees named by e-mail.
type ImportOptions struct {
	// MaxColumns and MaxCards replace MaxImportColumns and MaxImportCards when not zero.
	MaxColumns, MaxCards int
	// Assignees are e-mails by card index: a card whose e-mail is a workspace member's is assigned to
	// them, and they join the project.
	Assignees map[int]string
}

// Imported is what ImportTx created.
type Imported struct {
	Project db.Project
	// Assigned counts the cards assigned to a workspace member matched by e-mail.
	Assigned int
	// Unmatched are the assignees' e-mails that name no workspace member, once each, sorted.
	Unmatched []string
	// CardIDs are the created cards' ids, by their index in the document.
	CardIDs []string
}

// Plan checks doc against opts's limits and every reference, as Import and ImportTx do, without writing:
// an importer reports a refused project before opening a transaction.
func Plan(doc TransferDoc, opts ImportOptions) error {
	_, err := planImport(doc, opts)
	return err
}

// ImportTx is Import in the caller's transaction, with opts: the caller commits the project with its own
// writes (an import's report), or not at all.
func (e *Engine) ImportTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, workspaceID, actorID string,
	doc TransferDoc, opts ImportOptions) (Imported, error) {
	plan, err := planImport(doc, opts)
	if err != nil {
		return Imported{}, err
	}
	p, err := importTx(ctx, q, workspaceID, actorID, plan)
	if err != nil {
		return Imported{}, err
	}
	out := Imported{Project: p, CardIDs: make([]string, len(plan.cardRows))}
	for i, c := range plan.cardRows {
		out.CardIDs[i] = c.ID
	}
	if out.Assigned, out.Unmatched, err = assignByEmail(ctx, q, workspaceID, p.ID, plan, opts.Assignees); err != nil {
		return out, err
	}
	return out, e.core.RecordActivities(ctx, tx, plan.activities(p.ID, actorID)...)
}

// assignByEmail assigns the plan's cards to the workspace members named by e-mail in assignees (by card
// index) and makes those members the project's.
func assignByEmail(ctx context.Context, q *dbsqlc.Queries, workspaceID, projectID string, pl *importPlan,
	assignees map[int]string) (int, []string, error) {
	if len(assignees) == 0 {
		return 0, nil, nil
	}
	type row struct {
		CardID string `json:"card_id"`
		Email  string `json:"email"`
	}
	rows := make([]row, 0, len(assignees))
	emails := map[string]bool{}
	for i, email := range assignees {
		email = strings.ToLower(strings.TrimSpace(email))
		if i < 0 || i >= len(pl.cardRows) || email == "" {
			continue
		}
		rows = append(rows, row{CardID: pl.cardRows[i].ID, Email: email})
		emails[email] = false
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return 0, nil, fmt.Errorf("encode assignees: %w", err)
	}
	assigned, err := q.TransferAssignByEmail(ctx, dbsqlc.TransferAssignByEmailParams{Rows: b, WorkspaceID: workspaceID})
	if err != nil {
		return 0, nil, dbcore.Wrap(err, "assign cards")
	}
	byCard := make(map[string]string, len(rows))
	for _, r := range rows {
		byCard[r.CardID] = r.Email
	}
	members := map[string]bool{}
	for _, a := range assigned {
		emails[byCard[a.CardID]] = true
		if members[a.UserID] {
			continue
		}
		members[a.UserID] = true
		_, err := q.ProjectMemberAdd(ctx, dbsqlc.ProjectMemberAddParams{ProjectID: projectID, UserID: a.UserID})
		if err != nil {
			return 0, nil, fmt.Errorf("add assignee to project: %w", err)
		}
	}
	var unmatched []string
	for e, ok := range emails {
		if !ok {
			unmatched = append(unmatched, e)
		}
	}
	slices.Sort(unmatched)
	return len(assigned), unmatched, nil
}

// activities are what creating the plan's cards and comments one by one would record.
func (pl *importPlan) activities(projectID, actorID string) []dbcore.Activity {
	acts := make([]dbcore.Activity, 0, len(pl.cardRows)+len(pl.commentRows))
	titles := make(map[string]string, len(pl.cardRows))
	add := func(cardID, typ string, meta map[string]any) {
		acts = append(acts, dbcore.Activity{ProjectID: projectID, CardID: cardID, ActorID: actorID, Type: typ, Meta: meta,
			Quiet: true})
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
			"excerpt": board.Excerpt(cm.Content, board.CommentExcerptLength)})
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
func planImport(doc TransferDoc, opts ImportOptions) (*importPlan, error) {
	name, err := checkImportHeader(doc, cmp.Or(opts.MaxColumns, MaxImportColumns), cmp.Or(opts.MaxCards, MaxImportCards))
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
func checkImportHeader(doc TransferDoc, maxColumns, maxCards int) (string, error) {
	if doc.Version != 0 && doc.Version != TransferVersion {
		return "", dbcore.Invalid(fmt.Sprintf("version: unsupported export version %d (expected %d)", doc.Version,
			TransferVersion))
	}
	name := strings.TrimSpace(doc.Project.Name)
	if name == "" || utf8.RuneCountInString(name) > 200 {
		return "", dbcore.Invalid("project.name: must be 1 to 200 characters")
	}
	if utf8.RuneCountInString(doc.Project.Description) > maxProjectDescriptionRune {
		return "", dbcore.Invalid(fmt.Sprintf("project.description: at most %d characters", maxProjectDescriptionRune))
	}
	switch {
	case len(doc.Columns) > maxColumns:
		return "", dbcore.Invalid(fmt.Sprintf("columns: an import has at most %d columns", maxColumns))
	case len(doc.Cards) > maxCards:
		return "", dbcore.Invalid(fmt.Sprintf("cards: an import has at most %d cards", maxCards))
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
		pl.columnRows = append(pl.columnRows, importColumnRow{ID: colIDs[i], Name: strings.TrimSpace(cols[i].Name),
			Position: pos})
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
		if !slices.Contains(board.CustomFieldTypes, f.Type) {
			return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].type: must be one of %v", i, board.CustomFieldTypes))
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
	selectable := board.HasOptions(f.Type)
	switch {
	case selectable && len(f.Options) == 0:
		return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].options: a %s field needs options", i, f.Type))
	case !selectable && len(f.Options) > 0:
		return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].options: only select and multi-select fields have options",
			i))
	case len(f.Options) > board.MaxCustomFieldOptions:
		return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].options: at most %d options", i,
			board.MaxCustomFieldOptions))
	}
	opts := make([]string, 0, len(f.Options))
	for j, o := range f.Options {
		if strings.TrimSpace(o) == "" || utf8.RuneCountInString(o) > board.MaxCustomFieldOptionLen || slices.Contains(opts,
			o) {
			return nil, dbcore.Invalid(fmt.Sprintf("customFields[%d].options[%d]: options must be distinct, not blank and at "+
				"most %d characters", i, j, board.MaxCustomFieldOptionLen))
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

func transferOrderKey(order *int, index int) int {
	if order != nil {
		return *order
	}
	return index
}

func importTx(ctx context.Context, q *dbsqlc.Queries, workspaceID, actorID string, pl *importPlan) (db.Project, error) {
	doc := pl.doc
	empty := "empty"
	p, err := q.ProjectInsert(ctx, dbsqlc.ProjectInsertParams{ID: db.NewID(), WorkspaceID: workspaceID,
		Name: pl.projectName, Description: doc.Project.Description, Deadline: doc.Project.Deadline, TemplateID: &empty,
		CreatedBy: actorID})
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
			return q.TransferCardInsertMany(ctx, dbsqlc.TransferCardInsertManyParams{ProjectID: p.ID, CreatedBy: actorID,
				Rows: b})
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
			return q.TransferRelationInsertMany(ctx, dbsqlc.TransferRelationInsertManyParams{ProjectID: p.ID, CreatedBy: actorID,
				Rows: b})
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

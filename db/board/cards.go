package board

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// MaxChecklistItems is the most checklist items a card may have.
const MaxChecklistItems = 100

// Card is a card as every read shows it: its row with its checklist, labels and custom values (the
// parts_* columns, kept by triggers). Its order is its position in the column (see docs/decisions.md).
type Card struct {
	dbsqlc.Card
}

// ChecklistItemInput is a checklist item given at card creation.
type ChecklistItemInput struct {
	Title string
	Done  bool
}

// NewCard is a card to create. An empty ColumnID puts it in the project's first column.
type NewCard struct {
	WorkspaceID, ProjectID, ColumnID, ActorID string
	Title, Description                        string
	Priority                                  Priority // empty: medium
	ScopeID, AssigneeID                       *string
	StartDate, DueDate                        *time.Time
	Checklist                                 []ChecklistItemInput
}

// CreateCard creates a card at the end of its column, with its checklist, records card_created and
// enqueues its jobs, in one transaction of three round trips: BEGIN, the card, its checklist and its
// activity go out as one batch, then River inserts the jobs, then COMMIT.
func (b *Engine) CreateCard(ctx context.Context, in NewCard) (Card, error) {
	return b.createCard(ctx, nil, in)
}

// CreateCardTx is CreateCard inside the caller's transaction (imports, automations, agents).
func (b *Engine) CreateCardTx(ctx context.Context, tx pgx.Tx, in NewCard) (Card, error) {
	return b.createCard(ctx, tx, in)
}

// createCard creates the card in tx, or, when tx is nil, in a transaction of its own begun by the
// card's batch (checks that precede the batch then read outside it).
func (b *Engine) createCard(ctx context.Context, tx pgx.Tx, in NewCard) (Card, error) {
	q, conn := b.q, batchSender(b.core.Pool)
	if tx != nil {
		q, conn = dbcore.Queries(tx), tx
	}
	in, err := b.prepareNewCard(ctx, q, in)
	if err != nil {
		return Card{}, err
	}
	act := db.Activity{ProjectID: in.ProjectID, CardID: db.NewID(), ActorID: in.ActorID, Type: db.ActivityCardCreated,
		Meta: map[string]any{"title": in.Title, "columnId": in.ColumnID}}
	if in.AssigneeID != nil {
		act.Recipients = []string{*in.AssigneeID}
	}
	rec, err := dbcore.NewActivityRecord(ctx, []db.Activity{act})
	if err != nil {
		return Card{}, err
	}
	var (
		card      Card
		listening []string
	)
	began, err := sendBatch(ctx, conn, func(q *dbsqlc.Queries) error {
		var err error
		card, listening, err = queueNewCard(ctx, q, &in, act.CardID, &rec.Params)
		return err
	})
	if err != nil {
		return Card{}, err
	}
	if began == nil {
		return card, b.core.EnqueueActivityJobs(ctx, tx, rec, listening)
	}
	defer began.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it does nothing
	if err := b.core.EnqueueActivityJobs(ctx, began, rec, listening); err != nil {
		return Card{}, err
	}
	if err := began.Commit(ctx); err != nil {
		return Card{}, fmt.Errorf("commit card: %w", err)
	}
	return card, nil
}

// prepareNewCard checks a new card's checklist size, fills in its defaults (medium priority, the
// project's first column) and checks its scope and assignee, reading through q.
func (b *Engine) prepareNewCard(ctx context.Context, q *dbsqlc.Queries, in NewCard) (NewCard, error) {
	if len(in.Checklist) > MaxChecklistItems {
		return in, dbcore.Invalid(fmt.Sprintf("a card has at most %d checklist items", MaxChecklistItems))
	}
	if in.Priority == "" {
		in.Priority = PriorityMedium
	}
	if in.ColumnID == "" {
		col, err := q.ColumnFirst(ctx, in.ProjectID)
		if dbcore.IsNotFound(err) {
			return in, dbcore.Invalid("the project has no column yet; create one first")
		}
		if err != nil {
			return in, fmt.Errorf("first column: %w", err)
		}
		in.ColumnID = col.ID
	}
	return in, b.checkCardRefs(ctx, q, in.WorkspaceID, in.ProjectID, in.ScopeID, in.AssigneeID)
}

// queueNewCard queues, on the card's batch q, the card's insert, its checklist, its activity and, when
// it has a checklist, a read of the card again (the checklist's trigger rewrote its parts). It answers
// the card and what the activity's recording answered.
func queueNewCard(ctx context.Context, q *dbsqlc.Queries, in *NewCard, cardID string,
	rec *dbsqlc.ActivitiesRecordParams) (Card, []string, error) {
	row, err := q.CardInsert(ctx, dbsqlc.CardInsertParams{ID: cardID, ProjectID: in.ProjectID, ColumnID: in.ColumnID,
		ScopeID: in.ScopeID, Title: in.Title, Description: in.Description, Priority: string(in.Priority),
		StartDate: in.StartDate, DueDate: in.DueDate, AssigneeID: in.AssigneeID, CreatedBy: in.ActorID})
	if dbcore.IsMissingRef(err) {
		return Card{}, nil, dbcore.NotFound("column not found")
	}
	if err != nil {
		return Card{}, nil, fmt.Errorf("insert card: %w", err)
	}
	card := Card{row} // nothing else changes the row unless a checklist is given (read again below)
	if len(in.Checklist) > 0 {
		if err := insertChecklist(ctx, q, cardID, in.Checklist); err != nil {
			return Card{}, nil, err
		}
	}
	listening, err := q.ActivitiesRecord(ctx, *rec)
	if err != nil {
		return Card{}, nil, fmt.Errorf("record activities: %w", err)
	}
	if len(in.Checklist) > 0 { // the checklist's trigger rewrote the card's parts
		row, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: cardID, ProjectID: in.ProjectID})
		if err != nil {
			return Card{}, nil, fmt.Errorf("read card: %w", err)
		}
		card = Card{row}
	}
	return card, listening, nil
}

// insertChecklist inserts a new card's checklist items, in order, in one statement.
func insertChecklist(ctx context.Context, q *dbsqlc.Queries, cardID string, items []ChecklistItemInput) error {
	n := len(items)
	ids, titles, dones, pos := make([]string, n), make([]string, n), make([]bool, n), make([]int32, n)
	for i, it := range items {
		ids[i], titles[i], dones[i], pos[i] = db.NewID(), it.Title, it.Done, int32(i)
	}
	if err := q.ChecklistInsertMany(ctx, dbsqlc.ChecklistInsertManyParams{CardID: cardID, Ids: ids, Titles: titles,
		Dones: dones, Positions: pos}); err != nil {
		return fmt.Errorf("insert checklist: %w", err)
	}
	return nil
}

// checkCardRefs verifies that a scope belongs to the project and an assignee to the workspace.
func (b *Engine) checkCardRefs(ctx context.Context, q *dbsqlc.Queries, workspaceID, projectID string, scopeID,
	assigneeID *string) error {
	if scopeID != nil {
		ok, err := q.ScopeExistsInProject(ctx, dbsqlc.ScopeExistsInProjectParams{ID: *scopeID, ProjectID: projectID})
		if err != nil && !dbcore.IsNotFound(err) {
			return fmt.Errorf("check scope: %w", err)
		}
		if !ok {
			return dbcore.Invalid("scopeId is not a scope of this project")
		}
	}
	if assigneeID != nil {
		ok, err := q.WorkspaceMemberIsMember(ctx, dbsqlc.WorkspaceMemberIsMemberParams{WorkspaceID: workspaceID,
			UserID: *assigneeID})
		if err != nil && !dbcore.IsNotFound(err) {
			return fmt.Errorf("check assignee: %w", err)
		}
		if !ok {
			return dbcore.Invalid("assigneeId must be a member of the workspace")
		}
	}
	return nil
}

func cardTx(ctx context.Context, q *dbsqlc.Queries, projectID, cardID string) (Card, error) {
	row, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: cardID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return Card{}, dbcore.NotFound("card not found")
	}
	if err != nil {
		return Card{}, fmt.Errorf("get card: %w", err)
	}
	return Card{row}, nil
}

// Card reads one card of a project.
func (b *Engine) Card(ctx context.Context, projectID, cardID string) (Card, error) {
	return cardTx(ctx, b.q, projectID, cardID)
}

// CardPatch is a change to a card; zero fields are left alone.
type CardPatch struct {
	Title, Description  *string
	Priority            *Priority
	Archived            *bool
	StartDate, DueDate  db.Opt[time.Time]
	AssigneeID, ScopeID db.Opt[string]
	// ColumnID moves the card to another column (at the end unless Order is set).
	ColumnID *string
	// Order moves the card to this 0-based place in its (new) column, clamped to the ends.
	Order *int
}

// ErrRetryMove means the card moved between reading it and locking its columns: the caller's
// transaction should be tried again.
var ErrRetryMove = errors.New("card moved concurrently")

// CardUpdate is one change of one card: who changes which card of which project, how, and why.
type CardUpdate struct {
	WorkspaceID, ProjectID, CardID, ActorID string
	Patch                                   CardPatch
	// Cause is set when an automation rule makes the change (the zero value for anyone else's).
	Cause db.RuleCause
}

// UpdateCard applies a patch as actorID: field changes, moves between columns and reordering. It
// records card_updated, card_moved, card_assigned and card_archived as they apply, with their
// notifications, in the same transaction. Both people's requests and automations call it.
func (b *Engine) UpdateCard(ctx context.Context, u CardUpdate) (Card, error) {
	for range 5 {
		var card Card
		err := b.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
			var err error
			card, err = b.UpdateCardTx(ctx, tx, u)
			return err
		})
		if !errors.Is(err, ErrRetryMove) {
			return card, err
		}
	}
	return Card{}, dbcore.Conflict("the card is being moved by someone else; try again")
}

// UpdateCardTx is UpdateCard's body inside the caller's transaction (automations, agents, pipelines,
// pilotage actions); u.Cause marks the activities of an automation rule's change. It returns
// ErrRetryMove when the card changed column between reading it and locking the columns.
func (b *Engine) UpdateCardTx(ctx context.Context, tx pgx.Tx, u CardUpdate) (Card, error) {
	q := dbcore.Queries(tx)
	moving := u.Patch.ColumnID != nil || u.Patch.Order != nil
	var lockedFrom string
	if moving {
		var err error
		if lockedFrom, err = lockMoveColumns(ctx, q, u.ProjectID, u.CardID, u.Patch.ColumnID); err != nil {
			return Card{}, err
		}
	}
	cur, err := q.CardGetForUpdate(ctx, dbsqlc.CardGetForUpdateParams{ID: u.CardID, ProjectID: u.ProjectID})
	if dbcore.IsNotFound(err) {
		return Card{}, dbcore.NotFound("card not found")
	}
	if err != nil {
		return Card{}, fmt.Errorf("lock card: %w", err)
	}
	if moving && cur.ColumnID != lockedFrom {
		return Card{}, ErrRetryMove
	}

	ch := patchCard(cur, u.Patch)
	if err := b.writeCardChange(ctx, q, u, &ch); err != nil {
		return Card{}, err
	}
	var acts []db.Activity
	if moving {
		if acts, err = moveChangedCard(ctx, q, u, &ch); err != nil {
			return Card{}, err
		}
		if err := b.continueSeries(ctx, tx, q, u.CardID, acts); err != nil {
			return Card{}, err
		}
	}
	acts = cardUpdateActivities(u, &ch, acts)
	if err := b.core.RecordActivities(ctx, tx, acts...); err != nil {
		return Card{}, err
	}
	return cardTx(ctx, q, u.ProjectID, u.CardID)
}

// lockMoveColumns locks, for a move, the card's column and the target column (columnID, or the card's
// own when nil) and answers the column the card was in when read. Lock order: columns (sorted), then
// the card. Every rewrite of a column's positions holds that column's lock, so two moves never wait on
// each other in a cycle.
func lockMoveColumns(ctx context.Context, q *dbsqlc.Queries, projectID, cardID string,
	columnID *string) (string, error) {
	cur, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: cardID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return "", dbcore.NotFound("card not found")
	}
	if err != nil {
		return "", fmt.Errorf("get card: %w", err)
	}
	target := cur.ColumnID
	if columnID != nil {
		target = *columnID
	}
	cols := []string{cur.ColumnID}
	if target != cur.ColumnID {
		cols = append(cols, target)
	}
	slices.Sort(cols)
	for _, c := range cols {
		if _, err := q.ColumnLock(ctx, dbsqlc.ColumnLockParams{ID: c, ProjectID: projectID}); err != nil {
			if dbcore.IsNotFound(err) {
				return "", dbcore.Invalid("columnId is not a column of this project")
			}
			return "", fmt.Errorf("lock column: %w", err)
		}
	}
	return cur.ColumnID, nil
}

// cardChange is a patch applied to a locked card: the card before (cur) and after (next), the fields
// card_updated names, and whether the patch assigns or archives the card.
type cardChange struct {
	cur, next   dbsqlc.Card
	changed     []string
	assigned    bool
	archivedNow bool
}

// patchCard applies a patch to a locked card, without writing it. Unarchiving is a change of
// "archived"; archiving is card_archived, and assigning card_assigned, instead.
func patchCard(cur dbsqlc.Card, p CardPatch) cardChange {
	ch := cardChange{cur: cur, next: cur}
	if p.Title != nil && *p.Title != cur.Title {
		ch.next.Title, ch.changed = *p.Title, append(ch.changed, "title")
	}
	if p.Description != nil && *p.Description != cur.Description {
		ch.next.Description, ch.changed = *p.Description, append(ch.changed, "description")
	}
	if p.Priority != nil && string(*p.Priority) != cur.Priority {
		ch.next.Priority, ch.changed = string(*p.Priority), append(ch.changed, "priority")
	}
	if p.StartDate.Set && !timeEq(p.StartDate.Value, cur.StartDate) {
		ch.next.StartDate, ch.changed = p.StartDate.Value, append(ch.changed, "startDate")
	}
	if p.DueDate.Set && !timeEq(p.DueDate.Value, cur.DueDate) {
		ch.next.DueDate, ch.changed = p.DueDate.Value, append(ch.changed, "dueDate")
	}
	if p.ScopeID.Set && !strEq(p.ScopeID.Value, cur.ScopeID) {
		ch.next.ScopeID, ch.changed = p.ScopeID.Value, append(ch.changed, "scopeId")
	}
	ch.assigned = p.AssigneeID.Set && !strEq(p.AssigneeID.Value, cur.AssigneeID)
	if ch.assigned {
		ch.next.AssigneeID = p.AssigneeID.Value
	}
	ch.archivedNow = p.Archived != nil && *p.Archived && !cur.Archived
	if p.Archived != nil && *p.Archived != cur.Archived {
		ch.next.Archived = *p.Archived
		if !*p.Archived {
			ch.changed = append(ch.changed, "archived")
		}
	}
	return ch
}

// writeCardChange checks the scope and assignee the change newly sets, then writes the card's fields.
func (b *Engine) writeCardChange(ctx context.Context, q *dbsqlc.Queries, u CardUpdate, ch *cardChange) error {
	var newScope, newAssignee *string
	if u.Patch.ScopeID.Set && slices.Contains(ch.changed, "scopeId") {
		newScope = ch.next.ScopeID
	}
	if ch.assigned {
		newAssignee = ch.next.AssigneeID
	}
	if err := b.checkCardRefs(ctx, q, u.WorkspaceID, u.ProjectID, newScope, newAssignee); err != nil {
		return err
	}
	next := &ch.next
	if err := q.CardUpdateFields(ctx, dbsqlc.CardUpdateFieldsParams{ID: u.CardID, Title: next.Title,
		Description: next.Description, Priority: next.Priority, StartDate: next.StartDate, DueDate: next.DueDate,
		AssigneeID: next.AssigneeID, Archived: next.Archived, ScopeID: next.ScopeID}); err != nil {
		return fmt.Errorf("update card: %w", err)
	}
	return nil
}

// moveChangedCard moves the card as the patch says (its columns locked): a move to another column
// answers card_moved; a new order in the same column is a change of "order".
func moveChangedCard(ctx context.Context, q *dbsqlc.Queries, u CardUpdate, ch *cardChange) ([]db.Activity, error) {
	cur := &ch.cur
	target := cur.ColumnID
	if u.Patch.ColumnID != nil {
		target = *u.Patch.ColumnID
	}
	if err := moveCard(ctx, q, u.CardID, target, u.Patch.Order); err != nil {
		return nil, err
	}
	if target == cur.ColumnID {
		if u.Patch.Order != nil {
			ch.changed = append(ch.changed, "order")
		}
		return nil, nil
	}
	cols, err := q.ColumnListByProject(ctx, u.ProjectID)
	if err != nil {
		return nil, fmt.Errorf("list columns: %w", err)
	}
	colIDs, names := make([]string, len(cols)), map[string]string{}
	for i, c := range cols {
		colIDs[i], names[c.ID] = c.ID, c.Name
	}
	// The columns' names as they are now, so a notification can say where the card went.
	return []db.Activity{{Type: db.ActivityCardMoved, Meta: map[string]any{"fromColumn": cur.ColumnID, "toColumn": target,
		"fromColumnName": names[cur.ColumnID], "toColumnName": names[target],
		"fromStatus": string(StatusOf(colIDs, cur.ColumnID, cur.Archived)), "toStatus": string(StatusOf(colIDs, target,
			ch.next.Archived))}}}, nil
}

// cardUpdateActivities appends to acts card_updated, card_assigned and card_archived as the change
// makes them, then sets on each the project, card, actor, cause, the card's title and, as recipients,
// its assignees before and after.
func cardUpdateActivities(u CardUpdate, ch *cardChange, acts []db.Activity) []db.Activity {
	if len(ch.changed) > 0 {
		acts = append(acts, db.Activity{Type: db.ActivityCardUpdated, Meta: map[string]any{"fields": ch.changed}})
	}
	if ch.assigned {
		meta := map[string]any{"assigneeId": ch.next.AssigneeID, "previousAssigneeId": ch.cur.AssigneeID}
		acts = append(acts, db.Activity{Type: db.ActivityCardAssigned, Meta: meta})
	}
	if ch.archivedNow {
		acts = append(acts, db.Activity{Type: db.ActivityCardArchived})
	}
	for i := range acts {
		acts[i].ProjectID, acts[i].CardID, acts[i].ActorID, acts[i].Recipients = u.ProjectID, u.CardID, u.ActorID,
			cardRecipients(ch.cur.AssigneeID, ch.next.AssigneeID)
		acts[i].Cause = u.Cause
		if acts[i].Meta == nil {
			acts[i].Meta = map[string]any{}
		}
		acts[i].Meta["title"] = ch.next.Title
	}
	return acts
}

// cardRecipients are a card's assignees before and after a change, once each.
func cardRecipients(before, after *string) []string {
	var r []string
	for _, id := range []*string{before, after} {
		if id != nil && !slices.Contains(r, *id) {
			r = append(r, *id)
		}
	}
	return r
}

// moveCard puts a card at a place in a column (the end when order is nil) and rewrites that column's
// positions densely. The caller holds the column's lock.
func moveCard(ctx context.Context, q *dbsqlc.Queries, cardID, columnID string, order *int) error {
	ids, err := q.CardColumnIDs(ctx, columnID)
	if err != nil {
		return fmt.Errorf("list column cards: %w", err)
	}
	ids = slices.DeleteFunc(ids, func(id string) bool { return id == cardID })
	at := len(ids)
	if order != nil {
		at = min(max(*order, 0), len(ids))
	}
	ids = slices.Insert(ids, at, cardID)
	pos := make([]int64, len(ids))
	for i := range ids {
		pos[i] = int64(i)
	}
	if err := q.CardSetPositions(ctx, dbsqlc.CardSetPositionsParams{ColumnID: columnID, Ids: ids,
		Positions: pos}); err != nil {
		return fmt.Errorf("set card positions: %w", err)
	}
	return nil
}

// DeleteCard deletes a card for good and records card_deleted.
func (b *Engine) DeleteCard(ctx context.Context, e db.CardEdit) error {
	projectID, cardID, actorID := e.ProjectID, e.CardID, e.ActorID
	return b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.CardGetForUpdate(ctx, dbsqlc.CardGetForUpdateParams{ID: cardID, ProjectID: projectID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("card not found")
		}
		if err != nil {
			return fmt.Errorf("lock card: %w", err)
		}
		if _, err := q.CardDelete(ctx, dbsqlc.CardDeleteParams{ID: cardID, ProjectID: projectID}); err != nil {
			return fmt.Errorf("delete card: %w", err)
		}
		act := db.Activity{ProjectID: projectID, CardID: cardID, ActorID: actorID, Type: db.ActivityCardDeleted,
			Meta: map[string]any{"title": cur.Title, "columnId": cur.ColumnID}}
		if cur.AssigneeID != nil {
			act.Recipients = []string{*cur.AssigneeID}
		}
		return b.core.RecordActivities(ctx, tx, act)
	})
}

func timeEq(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func strEq(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// CardView is one card of the card list as PostgreSQL sent it, read without copying: its byte slices
// point into the driver's buffer and are only valid inside the EachCard callback.
type CardView struct {
	ID, ProjectID, ColumnID, CreatedBy               pgtype.UUID
	ScopeID, AssigneeID                              pgtype.UUID // not Valid when null
	Title, Description, Priority                     pgtype.DriverBytes
	Checklist, Labels, CustomFields                  pgtype.DriverBytes // JSON
	Archived                                         bool
	StartDate, DueDate                               pgtype.Timestamptz // not Valid when null
	CreatedAt, UpdatedAt                             time.Time
	Position                                         int64
	ChecklistProgress, CommentCount, AttachmentCount int32
}

// cardListSQL reads a page of the card list through list_cards_page (migrations 00007 and 00026). It is
// written here rather than in queries/ (as is job_queues.go's read of River's table): the list is the
// hottest read, and scanning it without a copy per field needs the driver's own types, which sqlc does
// not generate.
const cardListSQL = `SELECT id, project_id, column_id, created_by, scope_id, assignee_id, title, description, priority,
       parts_checklist, parts_labels, parts_fields, archived, start_date, due_date, created_at, updated_at, position,
       parts_progress, comment_count, attachment_count
FROM list_cards_page($1, $2, $3, $4, $5, $6, $7)`

// cardList names the card list's cursors.
const cardList = "cards"

// cardKey is the card list's keyset: the column's position and id, then the card's position and id.
type cardKey struct {
	ColPos int32  `json:"c"`
	Col    string `json:"k"`
	Pos    int64  `json:"p"`
	ID     string `json:"i"`
}

func (k *cardKey) Valid() bool { return db.ValidID(k.Col) && db.ValidID(k.ID) }

// EachCard calls fn for each card of one page of a project's card list (archived ones only, active ones
// only, or both when archived is nil), by column then order (ties by id), in one query, and answers the
// next page's cursor ("" on the last page). fn must not keep the view or its byte slices.
func (b *Engine) EachCard(ctx context.Context, projectID string, archived *bool, p db.Page,
	fn func(*CardView)) (string, error) {
	var k cardKey
	ok, err := p.After(cardList, &k)
	if err != nil {
		return "", err
	}
	if !ok { // the first page: after every card
		k = cardKey{ColPos: math.MinInt32, Col: db.FirstID, Pos: math.MinInt64, ID: db.FirstID}
	}
	rows, err := b.core.Pool.Query(ctx, cardListSQL, projectID, archived, k.ColPos, k.Col, k.Pos, k.ID, p.Fetch())
	if err != nil {
		return "", dbcore.Wrap(dbcore.Interpret(err), "list cards")
	}
	defer rows.Close()
	var v CardView
	dest := []any{&v.ID, &v.ProjectID, &v.ColumnID, &v.CreatedBy, &v.ScopeID, &v.AssigneeID, &v.Title, &v.Description,
		&v.Priority, &v.Checklist, &v.Labels, &v.CustomFields, &v.Archived, &v.StartDate, &v.DueDate, &v.CreatedAt,
		&v.UpdatedAt, &v.Position, &v.ChecklistProgress, &v.CommentCount, &v.AttachmentCount}
	n, more := 0, false
	for rows.Next() {
		if n == p.Limit { // the row past the page: there is a next page
			more = true
			break
		}
		if err := rows.Scan(dest...); err != nil {
			return "", dbcore.Wrap(dbcore.Interpret(err), "read card")
		}
		fn(&v)
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", dbcore.Wrap(dbcore.Interpret(err), "list cards")
	}
	if !more {
		return "", nil
	}
	// v still holds the page's last card (its fixed-size fields are copies, not the driver's buffer).
	last := cardKey{Col: uuid.UUID(v.ColumnID.Bytes).String(), Pos: v.Position, ID: uuid.UUID(v.ID.Bytes).String()}
	// The column's position is read only when a page is cut, so that a whole list reads nothing more.
	col, err := dbcore.Queries(b.core.Pool).ColumnGet(ctx, dbsqlc.ColumnGetParams{ID: last.Col, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return "", dbcore.Conflict("the project's columns changed while listing its cards: list them again")
	}
	if err != nil {
		return "", fmt.Errorf("read the column of the page's last card: %w", err)
	}
	last.ColPos = col.Position
	return db.EncodeCursor(cardList, last), nil
}

// StatusOf derives a card's status: archived, else by column: first todo, last done, others in
// progress.
func StatusOf(columnIDs []string, columnID string, archived bool) Status {
	switch {
	case archived:
		return StatusArchived
	case len(columnIDs) == 0 || columnIDs[0] == columnID:
		return StatusTodo
	case columnIDs[len(columnIDs)-1] == columnID:
		return StatusDone
	default:
		return StatusInProgress
	}
}

// AssignedCards is one page of the active (not archived) cards of a workspace's projects assigned to a
// user, oldest first (keyset: created_at, id): what "my work" shows, in one read instead of one per
// project.
func (b *Engine) AssignedCards(ctx context.Context, workspaceID, userID string, p db.Page) (db.Paged[Card], error) {
	k, err := p.AfterTime("assigned-cards", false)
	if err != nil {
		return db.Paged[Card]{}, err
	}
	rows, err := b.q.CardsAssignedPage(ctx, dbsqlc.CardsAssignedPageParams{WorkspaceID: workspaceID, UserID: userID,
		AfterAt: k.At, AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[Card]{}, dbcore.Wrap(err, "list assigned cards")
	}
	return db.PageOf(p, "assigned-cards", dbcore.MapRows(rows, func(r dbsqlc.Card) Card { return Card{r} }),
		func(c Card) any { return db.TimeKey{At: c.CreatedAt, ID: c.ID} }), nil
}

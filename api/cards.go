package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
)

// pathCard is the prefix of card-scoped routes.
const pathCard = pathProject + "/cards/{cardId}"

// CardPath are the path parameters of card-scoped routes.
type CardPath struct {
	ProjectPath
	CardID string `path:"cardId" format:"uuid"`
}

// listBuffers recycles card-list response buffers (a 1,000-card list is about 800 KB); buffers that
// grew past maxPooledList are left to the collector.
var listBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

const maxPooledList = 4 << 20

// CardOut is a card with everything on it.
type CardOut struct {
	ID                string          `json:"id"`
	ProjectID         string          `json:"projectId"`
	ColumnID          string          `json:"columnId"`
	ScopeID           *string         `json:"scopeId" nullable:"true"`
	Title             string          `json:"title"`
	Description       string          `json:"description"`
	Order             int64           `json:"order" doc:"Position in the column: cards sort by it (ties, only from concurrent creates, by id)"`
	Archived          bool            `json:"archived"`
	Priority          board.Priority  `json:"priority"`
	StartDate         *time.Time      `json:"startDate" nullable:"true"`
	DueDate           *time.Time      `json:"dueDate" nullable:"true"`
	AssigneeID        *string         `json:"assigneeId" nullable:"true"`
	Checklist         json.RawMessage `json:"checklist" doc:"Items {_id, title, done, order}"`
	ChecklistProgress int32           `json:"checklistProgress" doc:"Percentage of checklist items done"`
	Labels            json.RawMessage `json:"labels" doc:"Labels {id, name, color}"`
	CustomFields      json.RawMessage `json:"customFields" doc:"Custom field values by field id"`
	CommentCount      int32           `json:"commentCount"`
	AttachmentCount   int32           `json:"attachmentCount"`
	CreatedBy         string          `json:"createdBy"`
	CreatedAt         time.Time       `json:"createdAt"`
	UpdatedAt         time.Time       `json:"updatedAt"`
	// Series is set on a card's own read (cards-get) when the card is an occurrence of a recurring
	// series; lists leave it out (a project's series: card-series-list).
	Series *CardSeriesOut `json:"series,omitempty" doc:"The recurring series this card is an occurrence of (only on the card's own read; absent when it does not repeat)"`
}

func cardOut(c board.Card) CardOut {
	return CardOut{ID: c.ID, ProjectID: c.ProjectID, ColumnID: c.ColumnID, ScopeID: c.ScopeID, Title: c.Title,
		Description: c.Description, Order: c.Position, Archived: c.Archived, Priority: board.Priority(c.Priority),
		StartDate: c.StartDate, DueDate: c.DueDate, AssigneeID: c.AssigneeID, Checklist: c.PartsChecklist,
		ChecklistProgress: c.PartsProgress, Labels: c.PartsLabels, CustomFields: c.PartsFields, CommentCount: c.CommentCount,
		AttachmentCount: c.AttachmentCount, CreatedBy: c.CreatedBy, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// ChecklistItemIn is a checklist item given at card creation.
type ChecklistItemIn struct {
	Title string `json:"title" required:"true" minLength:"1" maxLength:"500"`
	Done  bool   `json:"done,omitempty"`
	Order *int   `json:"order,omitempty" minimum:"0" doc:"Items are sorted by order, then as given"`
}

// cardCreateBody is the body of both card-create endpoints.
type cardCreateBody struct {
	Title       string            `json:"title" required:"true" minLength:"1" maxLength:"500"`
	Description string            `json:"description,omitempty" maxLength:"5000"`
	Priority    board.Priority    `json:"priority,omitempty"`
	StartDate   *time.Time        `json:"startDate,omitempty" nullable:"true"`
	DueDate     *time.Time        `json:"dueDate,omitempty" nullable:"true"`
	AssigneeID  *string           `json:"assigneeId,omitempty" nullable:"true" format:"uuid"`
	ScopeID     *string           `json:"scopeId,omitempty" nullable:"true" format:"uuid"`
	Checklist   []ChecklistItemIn `json:"checklist,omitempty" maxItems:"100"`
}

// sortChecklist orders given items by their order field (stable; items without one keep their place
// after those with one).
func sortChecklist(in []ChecklistItemIn) []board.ChecklistItemInput {
	type it struct {
		key int
		idx int
		v   ChecklistItemIn
	}
	tmp := make([]it, len(in))
	for i, v := range in {
		k := i
		if v.Order != nil {
			k = *v.Order
		}
		tmp[i] = it{k, i, v}
	}
	for i := 1; i < len(tmp); i++ { // insertion sort: at most 100 items
		for j := i; j > 0 && (tmp[j].key < tmp[j-1].key || tmp[j].key == tmp[j-1].key && tmp[j].idx < tmp[j-1].idx); j-- {
			tmp[j], tmp[j-1] = tmp[j-1], tmp[j]
		}
	}
	out := make([]board.ChecklistItemInput, len(tmp))
	for i, t := range tmp {
		out[i] = board.ChecklistItemInput{Title: t.v.Title, Done: t.v.Done}
	}
	return out
}

// registerCards registers cards.
func (s boardOps) registerCards() {
	tags := []string{"Cards"}

	register(s.Server, huma.Operation{OperationID: "cards-list", Method: http.MethodGet, Path: pathProject + "/cards",
		Summary: "List every card of the project", Tags: tags,
		Description: "Across all columns, by column order then card order; archived cards included unless `archived` " +
			"filters. Paged by keyset: `limit` defaults to 1000 (its maximum), so an ordinary project's cards come in one " +
			"answer; a larger project's next page is named by the `Link` header (rel=\"next\"), absent on the last page.",
		Responses: pageResponse(s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[CardOut](), true, ""),
			"One page of cards (CardOut)")}, projectRead, s.listCards)

	register(s.Server, huma.Operation{OperationID: "cards-create", Method: http.MethodPost, Path: pathProject + "/cards",
		Summary: "Create a card in the project's first column", Tags: tags, DefaultStatus: http.StatusCreated},
		cardWrite, s.createCard)

	register(s.Server, huma.Operation{OperationID: "cards-create-in-column", Method: http.MethodPost,
		Path: pathProject + "/columns/{columnId}/cards", Summary: "Create a card at the end of a column", Tags: tags,
		DefaultStatus: http.StatusCreated}, cardWrite, s.createCardInColumn)

	register(s.Server, huma.Operation{OperationID: "cards-get", Method: http.MethodGet, Path: pathCard,
		Summary: "Get a card", Tags: tags},
		projectRead, s.getCard)

	register(s.Server, huma.Operation{OperationID: "cards-update", Method: http.MethodPatch, Path: pathCard,
		Summary: "Update, move or reorder a card", Tags: tags,
		Description: "Any subset of fields. Nullable fields (startDate, dueDate, assigneeId, scopeId) set to null are " +
			"cleared. `columnId` moves the card (to the end unless `order` is given); `order` is the 0-based place in the " +
			"column."},
		cardWrite, s.updateCard)

	register(s.Server, huma.Operation{OperationID: "cards-delete", Method: http.MethodDelete, Path: pathCard,
		Summary: "Delete a card permanently", Tags: tags},
		cardWrite, s.deleteCard)
}

// ListCardsInput is the request of cards-list.
type ListCardsInput struct {
	ProjectPath
	Archived string `query:"archived" enum:"true,false" doc:"Only archived (true) or only active (false) cards"`
	CardPageQuery
}

// listCards writes the card list's JSON itself, into a pooled buffer: it is the busiest read.
func (s boardOps) listCards(ctx context.Context, in *ListCardsInput) (*huma.StreamResponse, error) {
	bp := listBuffers.Get().(*[]byte)
	buf := (*bp)[:0]
	buf = append(buf, '[')
	var archived *bool
	if in.Archived != "" {
		archived = new(in.Archived == "true")
	}
	next, err := s.board.EachCard(ctx, accessFrom(ctx).ProjectID, archived, in.page(), func(c *board.CardView) {
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = appendCardJSON(buf, c)
	})
	if err != nil {
		*bp = buf
		listBuffers.Put(bp)
		return nil, fail(err)
	}
	buf = append(buf, ']')
	link := nextLink(ctx, next)
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		if link != "" {
			hctx.SetHeader("Link", link)
		}
		hctx.SetHeader("Content-Type", "application/json")
		hctx.SetHeader("Content-Length", strconv.Itoa(len(buf)))
		hctx.SetStatus(http.StatusOK)
		_, _ = hctx.BodyWriter().Write(buf)
		if cap(buf) <= maxPooledList {
			*bp = buf
			listBuffers.Put(bp)
		}
	}}, nil
}

// CreateCardInput is the request of cards-create.
type CreateCardInput struct {
	ProjectPath
	Body cardCreateBody
}

func (s boardOps) createCard(ctx context.Context, in *CreateCardInput) (*Output[CardOut], error) {
	return s.insertCard(ctx, "", in.Body)
}

// CreateCardInColumnInput is the request of cards-create-in-column.
type CreateCardInColumnInput struct {
	ColumnPath
	Body cardCreateBody
}

func (s boardOps) createCardInColumn(ctx context.Context, in *CreateCardInColumnInput) (*Output[CardOut], error) {
	return s.insertCard(ctx, in.ColumnID, in.Body)
}

// insertCard creates a card in a column ("": the project's first).
func (s boardOps) insertCard(ctx context.Context, columnID string, b cardCreateBody) (*Output[CardOut], error) {
	title, err := nonBlank("title", b.Title)
	if err != nil {
		return nil, err
	}
	a := accessFrom(ctx)
	items := sortChecklist(b.Checklist)
	return oneOf(cardOut)(s.board.CreateCard(ctx, board.NewCard{WorkspaceID: a.WorkspaceID, ProjectID: a.ProjectID,
		ColumnID: columnID, ActorID: principalFrom(ctx).User.ID, Title: title, Description: b.Description,
		Priority: b.Priority, ScopeID: b.ScopeID, AssigneeID: b.AssigneeID, StartDate: b.StartDate, DueDate: b.DueDate,
		Checklist: items}))
}

func (s boardOps) getCard(ctx context.Context, in *CardPath) (*Output[CardOut], error) {
	out, err := oneOf(cardOut)(s.board.Card(ctx, accessFrom(ctx).ProjectID, in.CardID))
	if err != nil {
		return nil, err
	}
	series, err := s.recurrence.OfCard(ctx, accessFrom(ctx).ProjectID, in.CardID)
	switch {
	case err == nil:
		o := cardSeriesOut(series)
		out.Body.Series = &o
	case !errors.Is(err, db.ErrNotFound):
		return nil, fail(err)
	}
	return out, nil
}

// UpdateCardInput is the request of cards-update.
type UpdateCardInput struct {
	CardPath
	Body UpdateCardInputBody
}

// UpdateCardInputBody is the body of cards-update (and the fields of the MCP update_card tool).
type UpdateCardInputBody struct {
	Title       *string             `json:"title,omitempty" minLength:"1" maxLength:"500"`
	Description Nullable[string]    `json:"description,omitempty"`
	Priority    *board.Priority     `json:"priority,omitempty"`
	StartDate   Nullable[time.Time] `json:"startDate,omitempty"`
	DueDate     Nullable[time.Time] `json:"dueDate,omitempty"`
	AssigneeID  Nullable[string]    `json:"assigneeId,omitempty"`
	ScopeID     Nullable[string]    `json:"scopeId,omitempty"`
	ColumnID    *string             `json:"columnId,omitempty" format:"uuid"`
	Order       *int                `json:"order,omitempty" minimum:"0" maximum:"1000000"`
	Archived    *bool               `json:"archived,omitempty"`
}

func (s boardOps) updateCard(ctx context.Context, in *UpdateCardInput) (*Output[CardOut], error) {
	b := in.Body
	p := board.CardPatch{Priority: b.Priority, Archived: b.Archived, StartDate: b.StartDate.opt(),
		DueDate: b.DueDate.opt(), AssigneeID: b.AssigneeID.opt(), ScopeID: b.ScopeID.opt(), ColumnID: b.ColumnID,
		Order: b.Order}
	title, err := nonBlankOpt("title", b.Title)
	if err != nil {
		return nil, err
	}
	p.Title = title
	if b.Description.Set {
		d := b.Description.Value // null clears to ""
		if len([]rune(d)) > 5000 {
			return nil, errBadRequest("description: expected length <= 5000")
		}
		p.Description = &d
	}
	for _, id := range []db.Opt[string]{p.AssigneeID, p.ScopeID} {
		if id.Value != nil && !isUUID(*id.Value) {
			return nil, errBadRequest("assigneeId and scopeId must be ids (UUIDs) or null")
		}
	}
	a := accessFrom(ctx)
	return oneOf(cardOut)(s.board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: a.WorkspaceID, ProjectID: a.ProjectID,
		CardID: in.CardID, ActorID: principalFrom(ctx).User.ID, Patch: p}))
}

func (s boardOps) deleteCard(ctx context.Context, in *CardPath) (*OKOutput, error) {
	return done(s.board.DeleteCard(ctx, cardEdit(ctx, in.CardID)))
}

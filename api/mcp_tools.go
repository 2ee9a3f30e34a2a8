package api

// The MCP tools on organizations, workspaces, projects and cards. Each calls the REST operation's own
// handler (or its store call) under the access addTool resolved, so tenancy, roles, limits,
// activities, notifications and automations hold exactly as over REST.
//
// Adding a tool is one function here: its input type (embedding WorkspaceArgs, ProjectArgs or CardArgs
// when it works inside a tenancy), its output type (an object), and one addTool line in
// registerMCPTools with the same Requires as the REST operation it mirrors.

import (
	"context"
	"encoding/json"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
)

// registerMCPTools registers the tools on organizations, workspaces, projects and cards.
func (s *Server) registerMCPTools() {
	addTool(s, "list_organizations", "List the organizations you belong to, with your role in each.",
		Requires{Scope: projectRead.Scope}, s.mcpListOrganizations)
	addTool(s, "list_workspaces", "List the workspaces of an organization that you can open.",
		Requires{Scope: projectRead.Scope, OrgRole: "member"}, s.mcpListWorkspaces)
	addTool(s, "list_projects", "List the projects of a workspace.",
		projectRead, s.mcpListProjects)
	addTool(s, "list_cards", "List the cards of a project, by column order then card order (archived cards only when "+
		"asked).",
		projectRead, s.mcpListCards)
	addTool(s, "get_card", "Get a card with its checklist, labels and custom fields.",
		projectRead, s.mcpGetCard)
	addTool(s, "create_card", "Create a card at the end of a column (default: the project's first column).",
		cardWrite, s.mcpCreateCard)
	addTool(s, "update_card", "Update a card: send only the fields to change; null clears startDate, dueDate, "+
		"assigneeId, scopeId or description.",
		cardWrite, s.mcpUpdateCard)
	addTool(s, "move_card", "Move a card to a column (to its end, or to the 0-based place `order`).",
		cardWrite, s.mcpMoveCard)
	addTool(s, "add_comment", "Comment on a card. Its assignee and the project's members are notified.",
		cardWrite, s.mcpAddComment)
	addTool(s, "check_checklist_item", "Check or uncheck an item of a card's checklist (its `_id` in the card's "+
		"checklist).",
		cardWrite, s.mcpCheckChecklistItem)
	addTool(s, "set_card_recurrence", "Make a card repeat, or change the series it is an occurrence of: an RFC 5545 "+
		"rule (FREQ=WEEKLY;BYDAY=MO, at most hourly) in an IANA time zone, on_schedule or after_completion.",
		cardWrite, s.mcpSetCardRecurrence)
	addTool(s, "stop_card_recurrence", "Stop the series a card is an occurrence of; the cards created stay.",
		cardWrite, s.mcpStopCardRecurrence)
}

// OrganizationsOut lists organizations.
type OrganizationsOut struct {
	Organizations []OrganizationOut `json:"organizations"`
}

func (s *Server) mcpListOrganizations(ctx context.Context, _ *struct{}) (*OrganizationsOut, error) {
	res, err := s.ops.tenancy.listOrganizations(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &OrganizationsOut{Organizations: res.Body}, nil
}

// WorkspacesOut lists workspaces.
type WorkspacesOut struct {
	Workspaces []WorkspaceOut `json:"workspaces"`
}

func (s *Server) mcpListWorkspaces(ctx context.Context, in *OrgArgs) (*WorkspacesOut, error) {
	res, err := s.ops.tenancy.listWorkspaces(ctx, &OrgPath{OrgSlug: in.Org})
	if err != nil {
		return nil, err
	}
	return &WorkspacesOut{Workspaces: res.Body}, nil
}

// ListProjectsArgs is the input of list_projects.
type ListProjectsArgs struct {
	WorkspaceArgs
	Limit  int    `json:"limit,omitempty" minimum:"1" maximum:"200" doc:"Page size (default 200)"`
	Cursor string `json:"cursor,omitempty" maxLength:"1000" doc:"The nextCursor of the previous page; absent for the first page"`
}

// ProjectsOut lists projects, one page of them.
type ProjectsOut struct {
	Projects []ProjectOut `json:"projects"`
	// NextCursor names the next page, when there is one.
	NextCursor string `json:"nextCursor,omitempty" doc:"The cursor of the next page; absent on the last page"`
}

func (s *Server) mcpListProjects(ctx context.Context, in *ListProjectsArgs) (*ProjectsOut, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 200
	}
	res, err := s.ops.tenancy.listProjects(ctx, &ListProjectsInput{WorkspacePath: WorkspacePath{OrgSlug: in.Org,
		WsSlug: in.Workspace}, PageQuery: PageQuery{Limit: limit, Cursor: in.Cursor}})
	if err != nil {
		return nil, err
	}
	return &ProjectsOut{Projects: res.Body, NextCursor: res.next}, nil
}

// ListCardsArgs is the input of list_cards.
type ListCardsArgs struct {
	ProjectArgs
	Archived *bool `json:"archived,omitempty" doc:"Only archived (true) or only active (false) cards; absent: all"`
	Limit    int   `json:"limit,omitempty" minimum:"1" maximum:"1000" doc:"At most this many cards (default 200)"`
}

// CardsOut lists cards.
type CardsOut struct {
	Cards []CardOut `json:"cards"`
	// Truncated says more cards matched than limit.
	Truncated bool `json:"truncated" doc:"More cards matched than limit"`
}

func (s *Server) mcpListCards(ctx context.Context, in *ListCardsArgs) (*CardsOut, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 200
	}
	// The REST list's own encoder, so both answers hold the same fields.
	out := &CardsOut{Cards: []CardOut{}}
	var buf []byte
	next, err := s.board.EachCard(ctx, accessFrom(ctx).ProjectID, in.Archived, db.Page{Limit: limit},
		func(c *board.CardView) {
			buf = appendCardJSON(buf[:0], c)
			var co CardOut
			if err := json.Unmarshal(buf, &co); err == nil {
				out.Cards = append(out.Cards, co)
			}
		})
	if err != nil {
		return nil, fail(err)
	}
	out.Truncated = next != ""
	return out, nil
}

func (s *Server) mcpGetCard(ctx context.Context, in *CardArgs) (*CardOut, error) {
	return body(s.ops.board.getCard(ctx, &CardPath{CardID: in.CardID}))
}

// CreateCardArgs is the input of create_card.
type CreateCardArgs struct {
	ProjectArgs
	ColumnID string `json:"columnId,omitempty" doc:"The column; absent: the project's first"`
	CardCreateFields
}

// CardCreateFields are the fields of the REST card create's body (an exported name, so that the schema
// and JSON flatten them into CreateCardArgs).
type CardCreateFields = cardCreateBody

func (s *Server) mcpCreateCard(ctx context.Context, in *CreateCardArgs) (*CardOut, error) {
	return body(s.ops.board.insertCard(ctx, in.ColumnID, in.CardCreateFields))
}

// UpdateCardArgs is the input of update_card.
type UpdateCardArgs struct {
	CardArgs
	UpdateCardInputBody
}

func (s *Server) mcpUpdateCard(ctx context.Context, in *UpdateCardArgs) (*CardOut, error) {
	return body(s.ops.board.updateCard(ctx, &UpdateCardInput{CardPath: CardPath{CardID: in.CardID},
		Body: in.UpdateCardInputBody}))
}

// MoveCardArgs is the input of move_card.
type MoveCardArgs struct {
	CardArgs
	ColumnID string `json:"columnId" doc:"The column to move the card to"`
	Order    *int   `json:"order,omitempty" minimum:"0" maximum:"1000000" doc:"0-based place in the column; absent: the end"`
}

func (s *Server) mcpMoveCard(ctx context.Context, in *MoveCardArgs) (*CardOut, error) {
	col := in.ColumnID
	return body(s.ops.board.updateCard(ctx, &UpdateCardInput{CardPath: CardPath{CardID: in.CardID},
		Body: UpdateCardInputBody{ColumnID: &col, Order: in.Order}}))
}

// AddCommentArgs is the input of add_comment.
type AddCommentArgs struct {
	CardArgs
	Content string `json:"content" minLength:"1" maxLength:"2000" doc:"The comment; trimmed, not blank"`
}

func (s *Server) mcpAddComment(ctx context.Context, in *AddCommentArgs) (*CommentOut, error) {
	var req CreateCommentInput
	req.CardID = in.CardID
	req.Body.Content = in.Content
	return body(s.ops.board.createComment(ctx, &req))
}

// CheckChecklistItemArgs is the input of check_checklist_item.
type CheckChecklistItemArgs struct {
	CardArgs
	ItemID string `json:"itemId" doc:"The checklist item's _id"`
	Done   bool   `json:"done" doc:"true checks the item, false unchecks it"`
}

func (s *Server) mcpCheckChecklistItem(ctx context.Context, in *CheckChecklistItemArgs) (*CardOut, error) {
	var req UpdateChecklistItemInput
	req.CardID, req.ItemID = in.CardID, in.ItemID
	req.Body.Done = &in.Done
	return body(s.ops.board.updateChecklistItem(ctx, &req))
}

// body unwraps a REST handler's answer for a tool.
func body[T any](out *Output[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return &out.Body, nil
}

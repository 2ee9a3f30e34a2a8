package api

// The MCP tools on the knowledge base (documents, search) and the pilotage cockpit. Each calls the REST
// operation's own handler under the access addTool resolved with the REST operation's Requires (docRead,
// pilotageRead, pilotageReview), so tenancy, roles, filters and limits hold exactly as over REST.

import (
	"context"
)

// registerMCPDocumentTools registers the document, search and pilotage tools.
func (s *Server) registerMCPDocumentTools() {
	addTool(s, "list_documents", "List the workspace's documents, newest first, without their content. Filters: docType, "+
		"contextType with contextId, parentId (`root`: documents without a parent). Paginated by limit and offset; "+
		"`nextOffset` is set when a full page came back.",
		docRead, s.mcpListDocuments)
	addTool(s, "get_document", "Get a document with its full content and its reviews (oldest first).",
		docRead, s.mcpGetDocument)
	addTool(s, "search", "Full-text search over the workspace's documents (titles and content) and its projects' cards "+
		"(titles and descriptions): words, \"quoted phrases\", or, -excluded. Best match first, with a snippet: "+
		"HTML-escaped text whose only markup is the <mark></mark> around matched words.",
		docRead, s.mcpSearch)
	addTool(s, "get_pilotage_state", "Read the pilotage cockpit's state in one snapshot: missions, active priorities, "+
		"todos, decisions and active documents. `profile` selects (pilotage: everything; execution: missions in progress "+
		"or blocked and open todos; revue: this cycle's decisions and what was done this cycle), `intent` orders and trims, "+
		"`detailLevel` sets the fields. Needs the pilotage viewer role.",
		pilotageRead, s.mcpGetPilotageState)
	addTool(s, "propose_pilotage_action", "Propose a pilotage action; it is stored as `suggested` for a reviewer to "+
		"approve or reject. For the types apply knows (create_todo, update_mission_status, create_decision, create_card, "+
		"move_card) the payload is checked now. Needs the pilotage reviewer role.",
		pilotageReview, s.mcpProposePilotageAction)
}

// ListDocumentsArgs is the input of list_documents (REST's documents-list query).
type ListDocumentsArgs struct {
	WorkspaceArgs
	DocType     string `json:"docType,omitempty" enum:"document,spec,brief,adr,note,reference,template,spreadsheet" doc:"Only documents of this type"`
	ContextType string `json:"contextType,omitempty" enum:"organization,workspace,project,scope" doc:"With contextId: only documents of this context"`
	ContextID   string `json:"contextId,omitempty" doc:"With contextType: the organization, workspace, project or scope id"`
	ParentID    string `json:"parentId,omitempty" idOrWord:"root" doc:"A document id (its children), or root for documents without a parent"`
	Limit       int    `json:"limit,omitempty" minimum:"1" maximum:"200" doc:"Page size (default 50)"`
	Cursor      string `json:"cursor,omitempty" maxLength:"1000" doc:"The nextCursor of the previous page; absent for the first page"`
}

// DocumentsOut is a page of documents.
type DocumentsOut struct {
	Documents []DocumentSummaryOut `json:"documents"`
	// NextCursor names the next page, when there is one.
	NextCursor string `json:"nextCursor,omitempty" doc:"The cursor of the next page; absent on the last page"`
}

func (s *Server) mcpListDocuments(ctx context.Context, in *ListDocumentsArgs) (*DocumentsOut, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 50
	}
	res, err := s.ops.docs.listDocuments(ctx, &ListDocumentsInput{WorkspacePath: WorkspacePath{OrgSlug: in.Org,
		WsSlug: in.Workspace}, DocType: in.DocType, ContextType: in.ContextType, ContextID: in.ContextID,
		ParentID: in.ParentID, PageQuery: PageQuery{Limit: limit, Cursor: in.Cursor}})
	if err != nil {
		return nil, err
	}
	return &DocumentsOut{Documents: res.Body, NextCursor: res.next}, nil
}

// DocumentArgs names a document of a workspace.
type DocumentArgs struct {
	WorkspaceArgs
	DocumentID string `json:"documentId" doc:"The document's id (see list_documents or search)"`
}

func (s *Server) mcpGetDocument(ctx context.Context, in *DocumentArgs) (*DocumentOut, error) {
	return body(s.ops.docs.getDocument(ctx, &DocumentPath{WorkspacePath: WorkspacePath{OrgSlug: in.Org,
		WsSlug: in.Workspace}, DocumentID: in.DocumentID}))
}

// SearchArgs is the input of search (REST's workspace-search query).
type SearchArgs struct {
	WorkspaceArgs
	Q     string `json:"q" minLength:"1" maxLength:"200" doc:"Words, \"quoted phrases\", or, -excluded"`
	Limit int32  `json:"limit,omitempty" minimum:"1" maximum:"50" doc:"At most this many results (default 20)"`
}

// SearchResultsOut lists search results, best first.
type SearchResultsOut struct {
	Results []SearchResultOut `json:"results"`
}

func (s *Server) mcpSearch(ctx context.Context, in *SearchArgs) (*SearchResultsOut, error) {
	res, err := s.ops.docs.search(ctx, &SearchInput{WorkspacePath: WorkspacePath{OrgSlug: in.Org, WsSlug: in.Workspace},
		Q: in.Q, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	return &SearchResultsOut{Results: res.Body}, nil
}

// PilotageStateArgs is the input of get_pilotage_state (REST's pilotage-state query).
type PilotageStateArgs struct {
	WorkspaceArgs
	Profile     string `json:"profile,omitempty" enum:"pilotage,execution,revue" doc:"What to select (default pilotage: everything)"`
	Intent      string `json:"intent,omitempty" enum:"weekly_review,daily_execution,sprint_planning,context_only" doc:"How to order and trim (default: none, creation order, untrimmed)"`
	DetailLevel string `json:"detailLevel,omitempty" enum:"minimal,standard,detailed" doc:"Which fields (default standard)"`
}

func (s *Server) mcpGetPilotageState(ctx context.Context, in *PilotageStateArgs) (*PilotageStateOut, error) {
	req := &PilotageStateInput{WorkspacePath: WorkspacePath{OrgSlug: in.Org, WsSlug: in.Workspace}, Profile: in.Profile,
		Intent: in.Intent, DetailLevel: in.DetailLevel}
	if req.Profile == "" {
		req.Profile = "pilotage"
	}
	if req.DetailLevel == "" {
		req.DetailLevel = "standard"
	}
	return body(s.ops.cockpit.getPilotageState(ctx, req))
}

// ProposePilotageActionArgs is the input of propose_pilotage_action (REST's pilotage-actions-propose body).
type ProposePilotageActionArgs struct {
	WorkspaceArgs
	ActionType  string         `json:"actionType" minLength:"1" maxLength:"100" doc:"create_todo, update_mission_status, create_decision, create_card, move_card, or any other type"`
	Explanation string         `json:"explanation" minLength:"1" maxLength:"500" doc:"Why this action"`
	Payload     map[string]any `json:"payload,omitempty" doc:"A JSON object (default {}); checked for the action types apply knows (docs/pilotage.md)"`
}

func (s *Server) mcpProposePilotageAction(ctx context.Context,
	in *ProposePilotageActionArgs) (*PilotageActionOut, error) {
	var req ProposePilotageActionInput
	req.WorkspacePath = WorkspacePath{OrgSlug: in.Org, WsSlug: in.Workspace}
	req.Body.ActionType, req.Body.Explanation, req.Body.Payload = in.ActionType, in.Explanation, in.Payload
	return body(s.ops.cockpit.proposePilotageAction(ctx, &req))
}

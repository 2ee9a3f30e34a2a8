package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/document"
	"github.com/pilot-dev/pilot/internal/auth"
)

// Document limits, stated in the OpenAPI document through the input types' tags.
const (
	maxDocTitle   = 500
	maxDocContent = 100_000
	maxDocTags    = 20
	maxDocTag     = 50
	maxDocNotes   = 2000
)

// DocTag is a document tag: 1 to 50 characters.
type DocTag string

// Schema implements huma.SchemaProvider.
func (DocTag) Schema(huma.Registry) *huma.Schema {
	minLen, maxLen := 1, maxDocTag
	s := &huma.Schema{Type: huma.TypeString, MinLength: &minLen, MaxLength: &maxLen, Description: "A tag, 1 to 50 " +
		"characters"}
	s.PrecomputeMessages()
	return s
}

// DocumentSummaryOut is a document without its content, as lists show it.
type DocumentSummaryOut struct {
	ID            string          `json:"id"`
	WorkspaceID   string          `json:"workspaceId"`
	ParentID      *string         `json:"parentId" nullable:"true"`
	Title         string          `json:"title"`
	ContentFormat string          `json:"contentFormat" enum:"markdown,tiptap_json"`
	DocType       string          `json:"docType" enum:"document,spec,brief,adr,note,reference,template,spreadsheet"`
	ContextType   string          `json:"contextType" enum:"organization,workspace,project,scope"`
	ContextID     string          `json:"contextId"`
	Tags          []string        `json:"tags"`
	Metadata      json.RawMessage `json:"metadata" doc:"Free-form JSON object"`
	Status        string          `json:"status" enum:"draft,pending_review,approved,changes_requested"`
	AuthorID      string          `json:"authorId"`
	CreatedAt     time.Time       `json:"createdAt"`
	UpdatedAt     time.Time       `json:"updatedAt"`
}

func documentSummaryOut(d db.DocumentSummary) DocumentSummaryOut {
	return DocumentSummaryOut{ID: d.ID, WorkspaceID: d.WorkspaceID, ParentID: d.ParentID, Title: d.Title,
		ContentFormat: d.ContentFormat, DocType: d.DocType, ContextType: d.ContextType, ContextID: d.ContextID, Tags: d.Tags,
		Metadata: d.Metadata, Status: d.Status, AuthorID: d.AuthorID, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

// DocumentReviewOut is one review of a document.
type DocumentReviewOut struct {
	ID           string    `json:"id"`
	ReviewerID   string    `json:"reviewerId"`
	ReviewerName string    `json:"reviewerName"`
	Status       string    `json:"status" enum:"approved,changes_requested"`
	Notes        string    `json:"notes"`
	CreatedAt    time.Time `json:"createdAt"`
}

// DocumentOut is a document with its full content and its reviews, oldest first.
type DocumentOut struct {
	DocumentSummaryOut
	Content string              `json:"content"`
	Reviews []DocumentReviewOut `json:"reviews"`
	// AuthorMayApprove is the rule of documents-review, said ahead so that a client offers the author an
	// Approve button only when it would work.
	AuthorMayApprove bool `json:"authorMayApprove" doc:"Whether the author may approve this document themself: only when nobody else in the workspace may review documents (no other pilotage reviewer or owner, no other owner or admin of the organization), so that a one-person workspace is never stuck; otherwise another reviewer approves it"`
}

// approving completes a document's answer with whether its author may approve it (AuthorMayApprove).
func (s documentOps) approving(ctx context.Context) func(*Output[DocumentOut], error) (*Output[DocumentOut], error) {
	return func(out *Output[DocumentOut], err error) (*Output[DocumentOut], error) {
		if err != nil {
			return nil, err
		}
		if out.Body.AuthorMayApprove, err = s.documents.AuthorMayApprove(ctx, out.Body.WorkspaceID,
			out.Body.AuthorID); err != nil {
			return nil, fail(err)
		}
		return out, nil
	}
}

func documentOut(d db.Document) DocumentOut {
	return documentWithReviewsOut(db.DocumentWithReviews{Document: d})
}

func documentWithReviewsOut(d db.DocumentWithReviews) DocumentOut {
	out := DocumentOut{DocumentSummaryOut: documentSummaryOut(db.DocumentSummary{ID: d.ID, WorkspaceID: d.WorkspaceID,
		ParentID: d.ParentID, Title: d.Title, ContentFormat: d.ContentFormat, DocType: d.DocType, ContextType: d.ContextType,
		ContextID: d.ContextID, Tags: d.Tags, Metadata: d.Metadata, Status: d.Status, AuthorID: d.AuthorID,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}), Content: d.Content, Reviews: make([]DocumentReviewOut,
		len(d.Reviews))}
	for i, r := range d.Reviews {
		out.Reviews[i] = DocumentReviewOut{ID: r.ID, ReviewerID: r.ReviewerID, ReviewerName: r.ReviewerName, Status: r.Status,
			Notes: r.Notes, CreatedAt: r.CreatedAt}
	}
	return out
}

// DocumentNodeOut is a document of the tree with its children.
type DocumentNodeOut struct {
	DocumentSummaryOut
	Children []DocumentNodeOut `json:"children"`
}

func documentNodeOut(n db.DocumentNode) DocumentNodeOut {
	out := DocumentNodeOut{DocumentSummaryOut: documentSummaryOut(n.DocumentSummary), Children: make([]DocumentNodeOut,
		len(n.Children))}
	for i, c := range n.Children {
		out.Children[i] = documentNodeOut(c)
	}
	return out
}

// SearchResultOut is a document or card matching a search.
type SearchResultOut struct {
	Kind      string    `json:"kind" enum:"document,card"`
	ID        string    `json:"id"`
	ProjectID *string   `json:"projectId,omitempty" doc:"The card's project (cards only)"`
	Title     string    `json:"title"`
	Snippet   string    `json:"snippet" doc:"An extract of the content, description or comment that matched, as plain text (markdown syntax removed: **bold** reads bold) HTML-escaped, the matched words in <mark></mark>: that is its only markup, so it can be rendered as HTML (stored HTML comes back escaped, never as markup)"`
	MatchedIn string    `json:"matchedIn" enum:"content,comment" doc:"content: the title, a card's description or a document's text matched; comment: a comment of the card matched (its snippet is the comment's)"`
	Rank      float32   `json:"rank" doc:"ts_rank of the match; higher is better (title matches weigh more than body matches)"`
	DocType   *string   `json:"docType,omitempty" doc:"Documents only"`
	Status    *string   `json:"status,omitempty" doc:"The review status (documents only)"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func searchResultOut(r db.SearchResult) SearchResultOut {
	return SearchResultOut{Kind: r.Kind, ID: r.ID, ProjectID: r.ProjectID, Title: r.Title, Snippet: r.Snippet,
		Rank: r.Rank, DocType: r.DocType, Status: r.Status, UpdatedAt: r.UpdatedAt, MatchedIn: r.MatchedIn}
}

// DocumentPath are the path parameters of one document.
type DocumentPath struct {
	WorkspacePath
	DocumentID string `path:"documentId" format:"uuid"`
}

// CardDocumentPath are the path parameters of a card's link to a document.
type CardDocumentPath struct {
	CardPath
	DocumentID string `path:"documentId" format:"uuid"`
}

// Access of the knowledge base. There is no documents scope among the token scopes: documents are
// workspace content like projects and cards, so tokens need projects:read to read them and search, and
// projects:write to write, submit, review and link them (docs/documents.md).
var (
	docRead   = Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}
	docWrite  = Requires{Scope: auth.ScopeProjectsWrite, WSRole: "member", KeepsTenancy: true}
	docReview = Requires{Scope: auth.ScopeProjectsWrite, WSRole: "member", PilotageRole: "reviewer", KeepsTenancy: true}
)

// registerDocuments registers the knowledge base: documents, their review, card links and search.
func (s documentOps) registerDocuments() {
	tags := []string{"Documents"}
	base := pathWorkspace + "/documents"

	register(s.Server, huma.Operation{OperationID: "documents-create", Method: http.MethodPost, Path: base,
		Summary: "Create a document", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "A new document is a `draft`. Its context (`contextType` + `contextId`) must be this workspace, its " +
			"organization, one of its projects or a scope of one of them (else 404). A `parentId` must name a document of " +
			"this workspace (else 400). `tiptap_json` content must be a JSON object."},
		docWrite, s.createDocument)

	register(s.Server, huma.Operation{OperationID: "documents-list", Method: http.MethodGet, Path: base,
		Summary: "List documents", Tags: tags,
		Description: "Newest first, without content. Filters: `docType`, `contextType` with `contextId`, `parentId` " +
			"(`parentId=root` lists the documents without a parent). Paginated by `limit` and `offset`."},
		docRead, s.listDocuments)

	register(s.Server, huma.Operation{OperationID: "documents-tree", Method: http.MethodGet, Path: base + "/all",
		Summary: "The workspace's whole document tree", Tags: tags,
		Description: "Every document of the workspace without content, read in one query: the roots, each with its " +
			"`children`, by title."},
		docRead, s.documentTree)

	register(s.Server, huma.Operation{OperationID: "documents-get", Method: http.MethodGet, Path: base + "/{documentId}",
		Summary: "Get a document with its content and reviews", Tags: tags},
		docRead, s.getDocument)

	register(s.Server, huma.Operation{OperationID: "documents-update", Method: http.MethodPatch,
		Path: base + "/{documentId}", Summary: "Edit a document", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "Any subset of title, content, contentFormat, docType, tags (replaced as a whole), metadata (replaced " +
			"as a whole) and parentId (null makes it a root). An edit of an `approved` or `changes_requested` document " +
			"returns it to `draft`; an edit while `pending_review` answers 409, and so does a parent that is the document " +
			"itself or one of its descendants."},
		docWrite, s.updateDocument)

	register(s.Server, huma.Operation{OperationID: "documents-delete", Method: http.MethodDelete,
		Path: base + "/{documentId}", Summary: "Delete a document", Tags: tags,
		Description: "Its children move up to its parent (or become roots when it had none); its reviews and card links " +
			"are deleted with it."},
		docWrite, s.deleteDocument)

	register(s.Server, huma.Operation{OperationID: "documents-submit-review", Method: http.MethodPost,
		Path: base + "/{documentId}/submit-review", Summary: "Submit a draft for review", Tags: tags,
		Errors: []int{http.StatusConflict},
		Description: "`draft` → `pending_review`; any other state answers 409. Records a `document_submitted` activity " +
			"that notifies the workspace's pilotage reviewers and owners (and the organization's owners and admins), except " +
			"the submitter."},
		docWrite, s.submitDocument)

	register(s.Server, huma.Operation{OperationID: "documents-review", Method: http.MethodPost,
		Path: base + "/{documentId}/review", Summary: "Review a document", Tags: tags,
		Errors: []int{http.StatusForbidden, http.StatusConflict},
		Description: "Pilotage reviewers and owners only. `pending_review` → `approved` or `changes_requested`; any other " +
			"state answers 409, and of two concurrent reviews one wins and the other gets 409. The author may not approve " +
			"their own document (403) unless nobody else in the workspace may review it (`authorMayApprove`): a " +
			"one-person workspace is never stuck. The review is kept with the document. Records a `document_reviewed` " +
			"activity that notifies the author."},
		docReview, s.reviewDocument)

	register(s.Server, huma.Operation{OperationID: "cards-documents-list", Method: http.MethodGet,
		Path: pathCard + "/documents", Summary: "List the documents linked to a card", Tags: tags,
		Description: "In link order, without content."}, docRead, s.listCardDocuments)

	register(s.Server, huma.Operation{OperationID: "cards-documents-link", Method: http.MethodPost,
		Path: pathCard + "/documents/{documentId}/link", Summary: "Link a document to a card", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: "The document must belong to this workspace (else 404). A second " +
			"link answers 409."},
		docWrite, s.linkCardDocument)

	register(s.Server, huma.Operation{OperationID: "cards-documents-unlink", Method: http.MethodDelete,
		Path: pathCard + "/documents/{documentId}/link", Summary: "Unlink a document from a card", Tags: tags,
		Description: "404 when the document is not linked to the card."}, docWrite, s.unlinkCardDocument)

	register(s.Server, huma.Operation{OperationID: "workspace-search", Method: http.MethodGet,
		Path: pathWorkspace + "/search", Summary: "Search documents and cards", Tags: []string{"Search"},
		Description: "Full-text search (PostgreSQL, `websearch_to_tsquery` syntax: words, \"quoted phrases\", `or`, " +
			"`-excluded`) over the titles and content of the workspace's documents and the titles, descriptions and " +
			"comments of the cards of its projects (`matchedIn` says whether a card matched by a comment). Best match " +
			"first; titles weigh more than bodies, bodies more than comments. Words are matched as written (no " +
			"stemming). Each `snippet` is plain text (markdown syntax removed), HTML-escaped, whose only markup is the " +
			"`<mark></mark>` around matched words: " +
			"HTML stored in a document or card comes back escaped (`&lt;img …&gt;`), so a snippet is safe to render as HTML."},
		docRead, s.search)
}

// CreateDocumentInput is the request of documents-create.
type CreateDocumentInput struct {
	WorkspacePath
	Body CreateDocumentInputBody
}

// CreateDocumentInputBody is the body of a CreateDocumentInput request.
type CreateDocumentInputBody struct {
	Title         string          `json:"title" required:"true" minLength:"1" maxLength:"500"`
	Content       string          `json:"content,omitempty" maxLength:"100000" doc:"At most 100,000 characters; for tiptap_json, a JSON object as text"`
	ContentFormat string          `json:"contentFormat,omitempty" enum:"markdown,tiptap_json" default:"markdown"`
	DocType       string          `json:"docType,omitempty" enum:"document,spec,brief,adr,note,reference,template,spreadsheet" default:"document"`
	ContextType   string          `json:"contextType" required:"true" enum:"organization,workspace,project,scope"`
	ContextID     string          `json:"contextId" required:"true" doc:"Id of the organization, workspace, project or scope the document belongs to"`
	Tags          []DocTag        `json:"tags,omitempty" maxItems:"20" doc:"At most 20 tags of 1 to 50 characters"`
	ParentID      *string         `json:"parentId,omitempty" doc:"A document of this workspace"`
	Metadata      json.RawMessage `json:"metadata,omitempty" doc:"Free-form JSON object (at most 16 KB)"`
}

func (s documentOps) createDocument(ctx context.Context, in *CreateDocumentInput) (*Output[DocumentOut], error) {
	b := in.Body
	title, err := nonBlank("title", b.Title)
	if err != nil {
		return nil, err
	}
	return s.approving(ctx)(oneOf(documentOut)(s.documents.CreateDocument(ctx,
		document.NewDocument{WorkspaceID: accessFrom(ctx).WorkspaceID, AuthorID: principalFrom(ctx).User.ID, Title: title,
			Content: b.Content, ContentFormat: b.ContentFormat, DocType: b.DocType, ContextType: b.ContextType,
			ContextID: b.ContextID, ParentID: b.ParentID, Tags: docTags(b.Tags), Metadata: b.Metadata})))
}

func docTags(tags []DocTag) []string {
	if tags == nil {
		return nil
	}
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = string(t)
	}
	return out
}

// ListDocumentsInput is the request of documents-list.
type ListDocumentsInput struct {
	WorkspacePath
	DocType     string `query:"docType" enum:"document,spec,brief,adr,note,reference,template,spreadsheet"`
	ContextType string `query:"contextType" enum:"organization,workspace,project,scope" doc:"With contextId"`
	ContextID   string `query:"contextId" doc:"With contextType"`
	ParentID    string `query:"parentId" doc:"A document id, or root for documents without a parent"`
	PageQuery
}

func (s documentOps) listDocuments(ctx context.Context,
	in *ListDocumentsInput) (*PageOutput[DocumentSummaryOut], error) {
	if (in.ContextType == "") != (in.ContextID == "") {
		return nil, errBadRequest("contextType and contextId filter together: give both or neither")
	}
	f := document.DocumentFilter{WorkspaceID: accessFrom(ctx).WorkspaceID, DocType: in.DocType,
		ContextType: in.ContextType, Page: in.page()}
	if in.ContextID != "" {
		if !isUUID(in.ContextID) {
			return &PageOutput[DocumentSummaryOut]{Body: []DocumentSummaryOut{}}, nil // names nothing
		}
		f.ContextID = in.ContextID
	}
	switch {
	case in.ParentID == "root":
		f.RootsOnly = true
	case in.ParentID != "" && !isUUID(in.ParentID):
		return nil, errBadRequest("parentId: expected a document id or root")
	default:
		f.ParentID = in.ParentID
	}
	return pageOf(ctx, documentSummaryOut)(s.documents.Documents(ctx, f))
}

func (s documentOps) documentTree(ctx context.Context, _ *WorkspacePath) (*Output[[]DocumentNodeOut], error) {
	return listOf(documentNodeOut)(s.documents.DocumentTree(ctx, accessFrom(ctx).WorkspaceID))
}

func (s documentOps) getDocument(ctx context.Context, in *DocumentPath) (*Output[DocumentOut], error) {
	return s.approving(ctx)(oneOf(documentWithReviewsOut)(s.documents.Document(ctx, accessFrom(ctx).WorkspaceID,
		in.DocumentID)))
}

// UpdateDocumentInput is the request of documents-update.
type UpdateDocumentInput struct {
	DocumentPath
	Body UpdateDocumentInputBody
}

// UpdateDocumentInputBody is the body of a UpdateDocumentInput request.
type UpdateDocumentInputBody struct {
	Title         *string          `json:"title,omitempty" minLength:"1" maxLength:"500"`
	Content       *string          `json:"content,omitempty" maxLength:"100000" doc:"At most 100,000 characters"`
	ContentFormat *string          `json:"contentFormat,omitempty" enum:"markdown,tiptap_json"`
	DocType       *string          `json:"docType,omitempty" enum:"document,spec,brief,adr,note,reference,template,spreadsheet"`
	Tags          *[]DocTag        `json:"tags,omitempty" maxItems:"20" doc:"Replaces the tags: at most 20 of 1 to 50 characters"`
	Metadata      json.RawMessage  `json:"metadata,omitempty" doc:"Replaces the metadata object (at most 16 KB); null empties it"`
	ParentID      Nullable[string] `json:"parentId,omitempty" doc:"A document of this workspace, not this one nor one of its descendants; null makes it a root"`
}

func (s documentOps) updateDocument(ctx context.Context, in *UpdateDocumentInput) (*Output[DocumentOut], error) {
	b := in.Body
	title, err := nonBlankOpt("title", b.Title)
	if err != nil {
		return nil, err
	}
	p := document.DocumentPatch{Title: title, Content: b.Content, ContentFormat: b.ContentFormat, DocType: b.DocType,
		Metadata: b.Metadata, Parent: b.ParentID.opt()}
	if b.Tags != nil {
		p.Tags = docTags(*b.Tags)
		if p.Tags == nil {
			p.Tags = []string{}
		}
	}
	if p.Parent.Value != nil && !isUUID(*p.Parent.Value) {
		return nil, errBadRequest("parentId: no document of this workspace has this id")
	}
	p.ActorID = principalFrom(ctx).User.ID
	return s.approving(ctx)(oneOf(documentOut)(s.documents.UpdateDocument(ctx, accessFrom(ctx).WorkspaceID, in.DocumentID,
		p)))
}

func (s documentOps) deleteDocument(ctx context.Context, in *DocumentPath) (*OKOutput, error) {
	return done(s.documents.DeleteDocument(ctx, accessFrom(ctx).WorkspaceID, in.DocumentID))
}

func (s documentOps) submitDocument(ctx context.Context, in *DocumentPath) (*Output[DocumentOut], error) {
	return s.approving(ctx)(oneOf(documentOut)(s.documents.SubmitDocument(ctx, recordEdit(ctx, in.DocumentID))))
}

// ReviewDocumentInput is the request of documents-review.
type ReviewDocumentInput struct {
	DocumentPath
	Body ReviewDocumentInputBody
}

// ReviewDocumentInputBody is the body of a ReviewDocumentInput request.
type ReviewDocumentInputBody struct {
	Status string `json:"status" required:"true" enum:"approved,changes_requested"`
	Notes  string `json:"notes,omitempty" maxLength:"2000" doc:"At most 2,000 characters"`
}

func (s documentOps) reviewDocument(ctx context.Context, in *ReviewDocumentInput) (*Output[DocumentOut], error) {
	return s.approving(ctx)(oneOf(documentWithReviewsOut)(s.documents.ReviewDocument(ctx, recordEdit(ctx, in.DocumentID),
		in.Body.Status, strings.TrimSpace(in.Body.Notes))))
}

func (s documentOps) listCardDocuments(ctx context.Context, in *CardPath) (*Output[[]DocumentSummaryOut], error) {
	return listOf(documentSummaryOut)(s.documents.CardDocuments(ctx, accessFrom(ctx).ProjectID, in.CardID))
}

func (s documentOps) linkCardDocument(ctx context.Context, in *CardDocumentPath) (*OKOutput, error) {
	a := accessFrom(ctx)
	return done(s.documents.LinkDocument(ctx, document.CardLink{WorkspaceID: a.WorkspaceID, ProjectID: a.ProjectID,
		CardID: in.CardID, DocumentID: in.DocumentID, ActorID: principalFrom(ctx).User.ID}))
}

func (s documentOps) unlinkCardDocument(ctx context.Context, in *CardDocumentPath) (*OKOutput, error) {
	return done(s.documents.UnlinkDocument(ctx, document.CardLink{ProjectID: accessFrom(ctx).ProjectID, CardID: in.CardID,
		DocumentID: in.DocumentID}))
}

// SearchInput is the request of workspace-search.
type SearchInput struct {
	WorkspacePath
	Q     string `query:"q" required:"true" minLength:"1" maxLength:"200" doc:"Words, \"quoted phrases\", or, -excluded"`
	Limit int32  `query:"limit" minimum:"1" maximum:"50" default:"20"`
}

func (s documentOps) search(ctx context.Context, in *SearchInput) (*Output[[]SearchResultOut], error) {
	q := strings.TrimSpace(in.Q)
	if q == "" {
		return nil, errBadRequest("q: must not be blank")
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	return listOf(searchResultOut)(s.documents.Search(ctx, accessFrom(ctx).WorkspaceID, q, limit))
}

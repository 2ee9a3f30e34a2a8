package document

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
)

// Document values: types, content formats, contexts, review verdicts and the metadata limit.
var (
	DocTypes           = []string{"document", "spec", "brief", "adr", "note", "reference", "template", "spreadsheet"}
	DocContentFormats  = []string{"markdown", "tiptap_json"}
	DocContextTypes    = []string{"organization", "workspace", "project", "scope"}
	DocReviewVerdicts  = []string{"approved", "changes_requested"}
	MaxDocMetadataSize = 16 << 10 // bytes of JSON
)

// Document review statuses: draft → pending_review → approved or changes_requested (docs/documents.md).
const (
	DocDraft            = "draft"
	DocPendingReview    = "pending_review"
	DocApproved         = "approved"
	DocChangesRequested = "changes_requested"
)

// NewDocument is a document to create. Metadata nil means an empty object.
type NewDocument struct {
	WorkspaceID, AuthorID                  string
	Title, Content, ContentFormat, DocType string
	ContextType, ContextID                 string
	ParentID                               *string
	Tags                                   []string
	Metadata                               json.RawMessage
}

// CreateDocument creates a draft in a workspace. Its context must lie in the workspace (its
// organization for an organization context), else ErrNotFound; a parent must be a document of the same
// workspace, else ErrInvalid.
func (e *Engine) CreateDocument(ctx context.Context, in NewDocument) (db.Document, error) {
	if in.ContentFormat == "" {
		in.ContentFormat = "markdown"
	}
	if in.DocType == "" {
		in.DocType = "document"
	}
	text, err := DocumentText(in.ContentFormat, in.Content)
	if err != nil {
		return db.Document{}, err
	}
	meta, err := documentMetadata(in.Metadata)
	if err != nil {
		return db.Document{}, err
	}
	var out db.Document
	err = e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if err := checkDocumentContext(ctx, q, in.WorkspaceID, in.ContextType, in.ContextID); err != nil {
			return err
		}
		if in.ParentID != nil {
			if err := checkDocumentParent(ctx, q, in.WorkspaceID, *in.ParentID); err != nil {
				return err
			}
		}
		row, err := q.DocumentInsert(ctx, dbsqlc.DocumentInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID,
			ParentID: in.ParentID, Title: in.Title, Content: in.Content, ContentFormat: in.ContentFormat, ContentText: text,
			DocType: in.DocType, ContextType: in.ContextType, ContextID: in.ContextID, Tags: dbcore.OrEmpty(in.Tags),
			Metadata: meta, AuthorID: in.AuthorID})
		out = db.Document(row)
		if err != nil {
			return dbcore.Wrap(err, "insert document")
		}
		return e.core.RecordQuietActivities(ctx, tx, db.Activity{WorkspaceID: in.WorkspaceID, DocumentID: row.ID,
			ActorID: in.AuthorID, Type: db.ActivityDocumentCreated, Meta: map[string]any{"title": row.Title}})
	})
	return out, err
}

func checkDocumentContext(ctx context.Context, q *dbsqlc.Queries, wsID, contextType, contextID string) error {
	if !slices.Contains(DocContextTypes, contextType) {
		return dbcore.Invalid(fmt.Sprintf("contextType must be one of %v", DocContextTypes))
	}
	ok, err := q.DocumentContextExists(ctx, dbsqlc.DocumentContextExistsParams{ContextType: contextType, WorkspaceID: wsID,
		ContextID: contextID})
	if dbcore.IsNotFound(err) || (err == nil && !ok) {
		return dbcore.NotFound(contextType + " not found (contextId)")
	}
	return dbcore.Wrap(err, "check document context")
}

func checkDocumentParent(ctx context.Context, q *dbsqlc.Queries, wsID, parentID string) error {
	ok, err := q.DocumentExists(ctx, dbsqlc.DocumentExistsParams{ID: parentID, WorkspaceID: wsID})
	if dbcore.IsNotFound(err) || (err == nil && !ok) {
		return dbcore.Invalid("parentId: no document of this workspace has this id")
	}
	return dbcore.Wrap(err, "check document parent")
}

// DocumentText is the searchable text of a document's content: for tiptap_json, the text of its text
// nodes, one per line (the content must be a JSON object); for markdown, nothing, as the content itself
// is indexed.
func DocumentText(format, content string) (string, error) {
	switch format {
	case "markdown":
		return "", nil
	case "tiptap_json":
		var node any
		d := json.NewDecoder(strings.NewReader(content))
		d.UseNumber()
		if err := d.Decode(&node); err != nil || d.More() {
			return "", dbcore.Invalid("content: a tiptap_json document must be a JSON object")
		}
		if _, ok := node.(map[string]any); !ok {
			return "", dbcore.Invalid("content: a tiptap_json document must be a JSON object")
		}
		var b strings.Builder
		tiptapText(node, &b)
		return b.String(), nil
	}
	return "", dbcore.Invalid(fmt.Sprintf("contentFormat must be one of %v", DocContentFormats))
}

// tiptapText appends the "text" of every node under n, depth first.
func tiptapText(n any, b *strings.Builder) {
	switch v := n.(type) {
	case map[string]any:
		if t, ok := v["text"].(string); ok {
			b.WriteString(t)
			b.WriteByte('\n')
		}
		if c, ok := v["content"].([]any); ok {
			for _, child := range c {
				tiptapText(child, b)
			}
		}
	case []any:
		for _, child := range v {
			tiptapText(child, b)
		}
	}
}

func documentMetadata(m json.RawMessage) (json.RawMessage, error) {
	if len(m) == 0 || bytes.Equal(bytes.TrimSpace(m), []byte("null")) {
		return json.RawMessage(`{}`), nil
	}
	if len(m) > MaxDocMetadataSize {
		return nil, dbcore.Invalid(fmt.Sprintf("metadata: at most %d bytes of JSON", MaxDocMetadataSize))
	}
	var obj map[string]any
	if err := json.Unmarshal(m, &obj); err != nil || obj == nil {
		return nil, dbcore.Invalid("metadata: must be a JSON object")
	}
	return m, nil
}

// DocumentFilter selects a workspace's documents; empty fields do not filter. RootsOnly keeps the
// documents without a parent.
type DocumentFilter struct {
	WorkspaceID                               string
	DocType, ContextType, ContextID, ParentID string
	RootsOnly                                 bool
	Page                                      db.Page
}

// Documents is one page of documents without their content, newest first.
func (e *Engine) Documents(ctx context.Context, f DocumentFilter) (db.Paged[db.DocumentSummary], error) {
	k, err := f.Page.AfterTime("documents", true)
	if err != nil {
		return db.Paged[db.DocumentSummary]{}, err
	}
	rows, err := e.core.Q.DocumentList(ctx, dbsqlc.DocumentListParams{WorkspaceID: f.WorkspaceID,
		DocType: dbcore.Optional(f.DocType), ContextType: dbcore.Optional(f.ContextType),
		ContextID: dbcore.Optional(f.ContextID), ParentID: dbcore.Optional(f.ParentID), RootsOnly: f.RootsOnly,
		BeforeAt: k.At, BeforeID: k.ID, Lim: f.Page.Fetch()})
	if err != nil {
		return db.Paged[db.DocumentSummary]{}, dbcore.Wrap(err, "list documents")
	}
	return db.PageOf(f.Page, "documents", dbcore.MapRows(rows,
		func(r dbsqlc.DocumentListRow) db.DocumentSummary { return db.DocumentSummary(r) }),
		func(d db.DocumentSummary) any { return db.TimeKey{At: d.CreatedAt, ID: d.ID} }), nil
}

// DocumentTree is a workspace's whole document tree, read in one query: the roots, each with its
// children, ordered by title.
func (e *Engine) DocumentTree(ctx context.Context, workspaceID string) ([]db.DocumentNode, error) {
	rows, err := e.core.Q.DocumentTree(ctx, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("read document tree: %w", err)
	}
	children := map[string][]db.DocumentSummary{}
	var roots []db.DocumentSummary
	for _, r := range rows {
		d := db.DocumentSummary(r)
		if d.ParentID == nil {
			roots = append(roots, d)
		} else {
			children[*d.ParentID] = append(children[*d.ParentID], d)
		}
	}
	var build func(db.DocumentSummary) db.DocumentNode
	build = func(d db.DocumentSummary) db.DocumentNode {
		n := db.DocumentNode{DocumentSummary: d, Children: []db.DocumentNode{}}
		for _, c := range children[d.ID] {
			n.Children = append(n.Children, build(c))
		}
		return n
	}
	out := make([]db.DocumentNode, 0, len(roots))
	for _, r := range roots {
		out = append(out, build(r))
	}
	return out, nil
}

// Document reads a document with its content and its reviews.
func (e *Engine) Document(ctx context.Context, workspaceID, id string) (db.DocumentWithReviews, error) {
	var out db.DocumentWithReviews
	err := e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		row, err := q.DocumentGet(ctx, dbsqlc.DocumentGetParams{ID: id, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("document not found")
		}
		if err != nil {
			return fmt.Errorf("get document: %w", err)
		}
		out.Document = db.Document(row)
		out.Reviews, err = documentReviews(ctx, q, id)
		return err
	})
	return out, err
}

func documentReviews(ctx context.Context, q *dbsqlc.Queries, id string) ([]db.DocumentReview, error) {
	rows, err := q.DocumentReviewList(ctx, id)
	return dbcore.MapRows(rows, func(r dbsqlc.DocumentReviewListRow) db.DocumentReview { return db.DocumentReview(r) }),
		dbcore.Wrap(err, "list document reviews")
}

// DocumentPatch is a change to a document; nil fields are left alone. Parent.Set with a nil value
// makes the document a root.
type DocumentPatch struct {
	Title, Content, ContentFormat, DocType *string
	Tags                                   []string // nil: unchanged
	Metadata                               json.RawMessage
	Parent                                 db.Opt[string]
	// ActorID is who edits (the document_updated activity's actor).
	ActorID string
}

// fields names the fields the patch changes, as the API does.
func (p DocumentPatch) fields() []string {
	out := []string{}
	for _, f := range []struct {
		name string
		set  bool
	}{{"title", p.Title != nil}, {"content", p.Content != nil}, {"contentFormat", p.ContentFormat != nil}, {"docType",
		p.DocType != nil}, {"tags", p.Tags != nil}, {"metadata", p.Metadata != nil}, {"parentId", p.Parent.Set}} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

func (p DocumentPatch) empty() bool {
	return p.Title == nil && p.Content == nil && p.ContentFormat == nil && p.DocType == nil && p.Tags == nil &&
		p.Metadata == nil && !p.Parent.Set
}

// UpdateDocument edits a document. An edit while the document is pending review is refused
// (ErrConflict); an edit of an approved or changes_requested document returns it to draft. A new parent
// must be a document of the workspace (else ErrInvalid) that is not the document or one of its
// descendants (else ErrConflict).
func (e *Engine) UpdateDocument(ctx context.Context, workspaceID, id string, p DocumentPatch) (db.Document, error) {
	var out db.Document
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if p.Parent.Set {
			// Moves are serialised per workspace, so two concurrent moves cannot close a cycle together.
			if err := q.DocumentTreeLock(ctx, workspaceID); err != nil {
				return fmt.Errorf("lock document tree: %w", err)
			}
		}
		cur, err := documentForUpdate(ctx, q, workspaceID, id)
		if err != nil {
			return err
		}
		if cur.Status == DocPendingReview {
			return dbcore.Conflict("the document is pending review; it cannot be edited until it is reviewed")
		}
		if p.empty() {
			out = db.Document(cur) // nothing to change: not an edit, the status stays
			return nil
		}
		next := dbsqlc.DocumentUpdateParams{ID: id, ParentID: cur.ParentID, Title: cur.Title, Content: cur.Content,
			ContentFormat: cur.ContentFormat, DocType: cur.DocType, Tags: cur.Tags, Metadata: cur.Metadata, Status: DocDraft}
		if p.Title != nil {
			next.Title = *p.Title
		}
		if p.Content != nil {
			next.Content = *p.Content
		}
		if p.ContentFormat != nil {
			next.ContentFormat = *p.ContentFormat
		}
		if p.DocType != nil {
			next.DocType = *p.DocType
		}
		if p.Tags != nil {
			next.Tags = p.Tags
		}
		if p.Metadata != nil {
			if next.Metadata, err = documentMetadata(p.Metadata); err != nil {
				return err
			}
		}
		if next.ContentText, err = DocumentText(next.ContentFormat, next.Content); err != nil {
			return err
		}
		if p.Parent.Set {
			next.ParentID = p.Parent.Value
			if np := p.Parent.Value; np != nil {
				if err := checkDocumentParent(ctx, q, workspaceID, *np); err != nil {
					return err
				}
				cycle, err := q.DocumentIsAncestor(ctx, dbsqlc.DocumentIsAncestorParams{ID: *np, AncestorID: id})
				if err != nil {
					return fmt.Errorf("check document ancestry: %w", err)
				}
				if cycle {
					return dbcore.Conflict("parentId: a document cannot be moved under itself or one of its descendants")
				}
			}
		}
		row, err := q.DocumentUpdate(ctx, next)
		out = db.Document(row)
		if err != nil {
			return dbcore.Wrap(err, "update document")
		}
		return e.core.RecordQuietActivities(ctx, tx, db.Activity{WorkspaceID: workspaceID, DocumentID: id, ActorID: p.ActorID,
			Type: db.ActivityDocumentUpdated, Meta: map[string]any{"title": row.Title, "fields": p.fields()}})
	})
	return out, err
}

// DeleteDocument deletes a document. Its children move up to its parent (or become roots), so
// deleting a page never deletes a subtree; its card links and reviews go with it.
func (e *Engine) DeleteDocument(ctx context.Context, workspaceID, id string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if err := q.DocumentTreeLock(ctx, workspaceID); err != nil {
			return fmt.Errorf("lock document tree: %w", err)
		}
		cur, err := documentForUpdate(ctx, q, workspaceID, id)
		if err != nil {
			return err
		}
		if err := q.DocumentReparentChildren(ctx, dbsqlc.DocumentReparentChildrenParams{ID: id,
			NewParentID: cur.ParentID}); err != nil {
			return fmt.Errorf("re-parent children: %w", err)
		}
		_, err = q.DocumentDelete(ctx, dbsqlc.DocumentDeleteParams{ID: id, WorkspaceID: workspaceID})
		return dbcore.Wrap(err, "delete document")
	})
}

// SubmitDocument moves a draft to pending_review and notifies the workspace's reviewers (pilotage
// reviewers and owners, organization owners and admins) through a document_submitted activity, in the
// same transaction. Any other state answers ErrConflict.
func (e *Engine) SubmitDocument(ctx context.Context, r db.RecordEdit) (db.Document, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.Document
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.DocumentSetStatus(ctx, dbsqlc.DocumentSetStatusParams{ID: id, WorkspaceID: workspaceID,
			FromStatus: DocDraft, ToStatus: DocPendingReview})
		if err != nil {
			return documentMoveRefused(ctx, q, workspaceID, id, err, "only a draft can be submitted for review")
		}
		out = db.Document(row)
		reviewers, err := q.DocumentReviewerIDs(ctx, workspaceID)
		if err != nil {
			return fmt.Errorf("list reviewers: %w", err)
		}
		return e.core.RecordActivities(ctx, tx, db.Activity{WorkspaceID: workspaceID, DocumentID: id, ActorID: actorID,
			Type: db.ActivityDocumentSubmitted, Meta: map[string]any{"title": out.Title}, Recipients: reviewers,
			OnlyRecipients: true})
	})
	return out, err
}

// ReviewDocument gives a pending document its verdict (approved or changes_requested), keeps the
// review, and notifies the author through a document_reviewed activity, in one transaction. Of two
// concurrent reviews exactly one wins; the other, like any review of a document not pending review,
// answers ErrConflict. The author may not approve their own document (ErrForbidden) unless nobody
// else may review the workspace's documents (AuthorMayApprove): a second pair of eyes whenever the
// workspace has one, and a one-person workspace is never stuck.
func (e *Engine) ReviewDocument(ctx context.Context, r db.RecordEdit, verdict,
	notes string) (db.DocumentWithReviews, error) {
	workspaceID, id, reviewerID := r.WorkspaceID, r.ID, r.ActorID
	if !slices.Contains(DocReviewVerdicts, verdict) {
		return db.DocumentWithReviews{}, dbcore.Invalid(fmt.Sprintf("status must be one of %v", DocReviewVerdicts))
	}
	var out db.DocumentWithReviews
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.DocumentSetStatus(ctx, dbsqlc.DocumentSetStatusParams{ID: id, WorkspaceID: workspaceID,
			FromStatus: DocPendingReview, ToStatus: verdict})
		if err != nil {
			return documentMoveRefused(ctx, q, workspaceID, id, err, "only a document pending review can be reviewed")
		}
		out.Document = db.Document(row)
		if verdict == DocApproved && reviewerID == out.AuthorID {
			other, err := q.DocumentHasOtherReviewer(ctx, dbsqlc.DocumentHasOtherReviewerParams{WorkspaceID: workspaceID,
				UserID: reviewerID})
			if err != nil {
				return fmt.Errorf("check reviewers: %w", err)
			}
			if other {
				return dbcore.Forbidden("you wrote this document, so another reviewer of the workspace approves it; you may " +
					"approve your own document only when nobody else can review")
			}
		}
		if _, err := q.DocumentReviewInsert(ctx, dbsqlc.DocumentReviewInsertParams{ID: db.NewID(), DocumentID: id,
			ReviewerID: reviewerID, Status: verdict, Notes: notes}); err != nil {
			return fmt.Errorf("insert review: %w", err)
		}
		if out.Reviews, err = documentReviews(ctx, q, id); err != nil {
			return err
		}
		return e.core.RecordActivities(ctx, tx, db.Activity{WorkspaceID: workspaceID, DocumentID: id, ActorID: reviewerID,
			Type: db.ActivityDocumentReviewed, Meta: map[string]any{"title": out.Title, "status": verdict, "notes": notes},
			Recipients: []string{out.AuthorID}, OnlyRecipients: true})
	})
	return out, err
}

// AuthorMayApprove says whether authorID may approve their own document in the workspace: only when
// nobody else may review its documents (no other pilotage reviewer or owner, no other owner or admin
// of its organization).
func (e *Engine) AuthorMayApprove(ctx context.Context, workspaceID, authorID string) (bool, error) {
	other, err := e.core.Q.DocumentHasOtherReviewer(ctx, dbsqlc.DocumentHasOtherReviewerParams{WorkspaceID: workspaceID,
		UserID: authorID})
	if err != nil {
		return false, fmt.Errorf("check reviewers: %w", err)
	}
	return !other, nil
}

// documentMoveRefused explains a guarded status move that found no row: the document is missing
// (ErrNotFound) or in another state (ErrConflict).
func documentMoveRefused(ctx context.Context, q *dbsqlc.Queries, workspaceID, id string, err error, msg string) error {
	if !dbcore.IsNotFound(err) {
		return fmt.Errorf("move document status: %w", err)
	}
	ok, err := q.DocumentExists(ctx, dbsqlc.DocumentExistsParams{ID: id, WorkspaceID: workspaceID})
	if err != nil {
		return fmt.Errorf("check document: %w", err)
	}
	if !ok {
		return dbcore.NotFound("document not found")
	}
	return dbcore.Conflict(msg)
}

// LinkDocument links a document of the workspace to a card of the project. A second link answers
// ErrConflict; a card or document outside the tenancy, ErrNotFound.
func (e *Engine) LinkDocument(ctx context.Context, l CardLink) error {
	workspaceID, projectID, cardID, documentID, actorID := l.WorkspaceID, l.ProjectID, l.CardID, l.DocumentID, l.ActorID
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		n, err := q.CardDocumentInsert(ctx, dbsqlc.CardDocumentInsertParams{LinkedBy: actorID, CardID: cardID,
			ProjectID: projectID, DocumentID: documentID, WorkspaceID: workspaceID})
		if err != nil {
			return fmt.Errorf("link document: %w", err)
		}
		if n == 1 {
			return nil
		}
		if err := checkCard(ctx, q, projectID, cardID); err != nil {
			return err
		}
		ok, err := q.DocumentExists(ctx, dbsqlc.DocumentExistsParams{ID: documentID, WorkspaceID: workspaceID})
		if err != nil {
			return fmt.Errorf("check document: %w", err)
		}
		if !ok {
			return dbcore.NotFound("document not found")
		}
		return dbcore.Conflict("this document is already linked to the card")
	})
}

// UnlinkDocument removes a card's link to a document; no such link answers ErrNotFound.
func (e *Engine) UnlinkDocument(ctx context.Context, l CardLink) error {
	projectID, cardID, documentID := l.ProjectID, l.CardID, l.DocumentID
	n, err := e.core.Q.CardDocumentDelete(ctx, dbsqlc.CardDocumentDeleteParams{CardID: cardID, ProjectID: projectID,
		DocumentID: documentID})
	if err != nil {
		return fmt.Errorf("unlink document: %w", err)
	}
	if n == 0 {
		return dbcore.NotFound("this document is not linked to the card")
	}
	return nil
}

// CardDocuments lists the documents linked to a card, in link order.
func (e *Engine) CardDocuments(ctx context.Context, projectID, cardID string) ([]db.DocumentSummary, error) {
	var out []db.DocumentSummary
	err := e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		if err := checkCard(ctx, q, projectID, cardID); err != nil {
			return err
		}
		rows, err := q.CardDocumentList(ctx, cardID)
		out = dbcore.MapRows(rows, func(r dbsqlc.CardDocumentListRow) db.DocumentSummary { return db.DocumentSummary(r) })
		return dbcore.Wrap(err, "list card documents")
	})
	return out, err
}

func checkCard(ctx context.Context, q *dbsqlc.Queries, projectID, cardID string) error {
	_, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: cardID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return dbcore.NotFound("card not found")
	}
	return dbcore.Wrap(err, "get card")
}

// SearchCandidates is how many matches of each kind (documents, cards) a search ranks at most: a query
// matching more ranks the first SearchCandidates its index yields. Ranking reads each candidate's row,
// so this bounds a search's cost however common its words are.
const SearchCandidates = 1000

// Search ranks the workspace's documents and the cards of its projects (by their own text or their
// comments: MatchedIn says which) against a web-search style query (quoted phrases, or, -exclusions),
// best first, each with a snippet: plain text (markdown syntax removed), HTML-escaped, whose only markup
// is the <mark></mark> around matches (stored HTML comes back as text, never as markup).
// Every workspace member sees every document and project of the workspace, so nothing else is
// filtered; nothing outside the workspace is ever read.
func (e *Engine) Search(ctx context.Context, workspaceID, query string, limit int32) ([]db.SearchResult, error) {
	rows, err := e.core.Q.SearchWorkspace(ctx, dbsqlc.SearchWorkspaceParams{Query: query, WorkspaceID: workspaceID,
		Candidates: SearchCandidates, Lim: limit})
	return dbcore.MapRows(rows, func(r dbsqlc.SearchWorkspaceRow) db.SearchResult {
		r.Snippet = highlight(r.Snippet)
		return db.SearchResult(r)
	}), dbcore.Wrap(err, "search")
}

// The characters SearchWorkspace's ts_headline wraps matches in (private-use code points, removed from
// the searched text before highlighting, so every one is a mark of ts_headline's).
const (
	markStart = "\uE000"
	markStop  = "\uE001"
)

var marks = strings.NewReplacer(markStart, "<mark>", markStop, "</mark>")

// highlight turns a raw ts_headline snippet into HTML: its markdown syntax removed (plainSnippet), the
// text escaped, then the sentinels around its matches replaced by <mark> and </mark>, the only markup it
// can hold.
func highlight(raw string) string { return marks.Replace(html.EscapeString(plainSnippet(raw))) }

// documentForUpdate reads and locks a document of the workspace; ErrNotFound when there is none.
func documentForUpdate(ctx context.Context, q *dbsqlc.Queries, workspaceID,
	id string) (dbsqlc.DocumentGetForUpdateRow, error) {
	cur, err := q.DocumentGetForUpdate(ctx, dbsqlc.DocumentGetForUpdateParams{ID: id, WorkspaceID: workspaceID})
	if dbcore.IsNotFound(err) {
		return cur, dbcore.NotFound("document not found")
	}
	if err != nil {
		return cur, fmt.Errorf("lock document: %w", err)
	}
	return cur, nil
}

// CardLink names a document and the card it is linked to (or unlinked from), and who links it.
type CardLink struct{ WorkspaceID, ProjectID, CardID, DocumentID, ActorID string }

// Project drafts: an idea framed, refined by questions, planned as a phased roadmap by River jobs, and
// executed into a project. Jobs write their result with guarded updates (status and run), in one
// transaction with the `done` event of the draft's stream, so a draft is never half-written and a
// rescued or duplicated job writes once.

package draft

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/document"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/internal/roadmapdoc"
)

// StreamDraft is the stream kind of a project draft's progress (events carry "draftId"). A draft is
// final once executed: every other status leads on (refined and roadmap_ready wait for a person, failed
// may refine or generate again), so the stream stays open through them.
var StreamDraft = db.StreamKind{Name: "draft", Final: []string{DraftExecuted}}

// Draft statuses.
const (
	DraftFraming      = "framing"
	DraftRefining     = "refining"
	DraftRefined      = "refined"
	DraftGenerating   = "generating"
	DraftRoadmapReady = "roadmap_ready"
	DraftExecuted     = "executed"
	DraftFailed       = "failed"
)

// Draft stream event types (the SSE `event` names).
const (
	DraftEventStatus = "status"
	DraftEventToken  = "token"
	DraftEventDone   = "done"
)

// DraftMaxRounds is how many refinement rounds a draft gets; answers to the last round's questions are
// recorded without asking more.
const DraftMaxRounds = 4

// DraftMaxAttempts is how many times River runs a draft job (a crash or a database error is retried;
// unusable model output is not).
const DraftMaxAttempts = 3

// DraftDocument is a context document: given inline (Title, Content), or naming a document of the
// workspace (DocumentID), whose title and text are copied in when the draft is created.
type DraftDocument struct {
	DocumentID string `json:"documentId,omitempty"`
	Title      string `json:"title"`
	Content    string `json:"content"`
}

// DraftDocumentMaxContent bounds a context document's content, inline or copied from a document.
const DraftDocumentMaxContent = 50000

// DraftMember is a person of the draft's team; one whose e-mail is a workspace member's joins the
// project on execution.
type DraftMember struct {
	Name  string `json:"name"`
	Role  string `json:"role"`
	Email string `json:"email,omitempty"`
}

// DraftAnswer is an answered refinement question.
type DraftAnswer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// DraftRoadmap is a draft's phased plan, as the language model writes it (llm.Roadmap is the same type).
type DraftRoadmap = roadmapdoc.DraftRoadmap

// DraftPhase becomes a column on execution.
type DraftPhase = roadmapdoc.DraftPhase

// DraftDeliverable becomes a card on execution.
type DraftDeliverable = roadmapdoc.DraftDeliverable

// Draft is a project draft as read.
type Draft struct {
	ID, WorkspaceID, Name, Description string
	ContextDocuments                   []DraftDocument
	TeamMembers                        []DraftMember
	Status                             string
	Questions                          []string
	Answers                            []DraftAnswer
	Rounds                             int32
	Roadmap                            *DraftRoadmap
	Run                                int32
	Error                              *string
	ProjectID                          *string
	ExecutedAt                         *time.Time
	CreatedBy                          string
	CreatedAt, UpdatedAt               time.Time
}

func draftFromRow(r dbsqlc.ProjectDraft) (Draft, error) {
	d := Draft{ID: r.ID, WorkspaceID: r.WorkspaceID, Name: r.Name, Description: r.Description, Status: r.Status,
		Rounds: r.Rounds, Run: r.Run, Error: r.Error, ProjectID: r.ProjectID, ExecutedAt: r.ExecutedAt,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ContextDocuments: []DraftDocument{},
		TeamMembers: []DraftMember{}, Questions: []string{}, Answers: []DraftAnswer{}}
	for _, f := range []struct {
		raw json.RawMessage
		v   any
	}{{r.ContextDocuments, &d.ContextDocuments}, {r.TeamMembers, &d.TeamMembers}, {r.Questions, &d.Questions}, {r.Answers,
		&d.Answers}} {
		if err := json.Unmarshal(f.raw, f.v); err != nil {
			return d, fmt.Errorf("decode draft %s: %w", r.ID, err)
		}
	}
	if len(r.Roadmap) > 0 && string(r.Roadmap) != "null" {
		d.Roadmap = &DraftRoadmap{}
		if err := json.Unmarshal(r.Roadmap, d.Roadmap); err != nil {
			return d, fmt.Errorf("decode draft roadmap %s: %w", r.ID, err)
		}
	}
	return d, nil
}

func draftOrErr(r dbsqlc.ProjectDraft, err error) (Draft, error) {
	if err != nil {
		return Draft{}, err
	}
	return draftFromRow(r)
}

func jsonOf(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of strings: cannot fail
	}
	return b
}

// NewDraft is a draft to create. The api checks each field's limits.
type NewDraft struct {
	WorkspaceID, ActorID, Name, Description string
	ContextDocuments                        []DraftDocument
	TeamMembers                             []DraftMember
}

// Create creates a draft in framing. A context document naming a document (DocumentID) is
// resolved in the draft's workspace, in the creating transaction, and its title and text are copied
// into the draft (a snapshot: the jobs read the draft alone, and a later edit or deletion of the
// document does not change the draft). A document of another workspace, or none, is not found.
func (e *Engine) Create(ctx context.Context, in NewDraft) (Draft, error) {
	if in.TeamMembers == nil {
		in.TeamMembers = []DraftMember{}
	}
	var out Draft
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		docs := make([]DraftDocument, 0, len(in.ContextDocuments))
		for i, d := range in.ContextDocuments {
			if d.DocumentID != "" {
				var err error
				if d, err = snapshotDocument(ctx, q, in.WorkspaceID, d.DocumentID); err != nil {
					if errors.Is(err, db.ErrNotFound) {
						return dbcore.NotFound(fmt.Sprintf("contextDocuments[%d].documentId: context document not found", i))
					}
					return err
				}
			}
			docs = append(docs, d)
		}
		row, err := q.DraftInsert(ctx, dbsqlc.DraftInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID, Name: in.Name,
			Description: in.Description, ContextDocuments: jsonOf(docs), TeamMembers: jsonOf(in.TeamMembers),
			CreatedBy: in.ActorID})
		out, err = draftOrErr(row, dbcore.Wrap(err, "insert draft"))
		return err
	})
	return out, err
}

// snapshotDocument reads a document of the workspace as a draft's context document: its title and
// its text (a tiptap document's text nodes; markdown as written), cut to DraftDocumentMaxContent
// characters.
func snapshotDocument(ctx context.Context, q *dbsqlc.Queries, workspaceID, documentID string) (DraftDocument, error) {
	row, err := q.DocumentGet(ctx, dbsqlc.DocumentGetParams{ID: documentID, WorkspaceID: workspaceID})
	if dbcore.IsNotFound(err) {
		return DraftDocument{}, dbcore.NotFound("context document not found")
	}
	if err != nil {
		return DraftDocument{}, fmt.Errorf("get context document: %w", err)
	}
	text := row.Content
	if row.ContentFormat != "markdown" {
		if t, err := document.DocumentText(row.ContentFormat, row.Content); err == nil {
			text = t
		}
	}
	text = strings.TrimSpace(text)
	if r := []rune(text); len(r) > DraftDocumentMaxContent {
		text = string(r[:DraftDocumentMaxContent])
	}
	return DraftDocument{DocumentID: row.ID, Title: row.Title, Content: text}, nil
}

// List is one page of a workspace's drafts, newest first.
func (e *Engine) List(ctx context.Context, workspaceID string, p db.Page) (db.Paged[Draft], error) {
	k, err := p.AfterTime("drafts", true)
	if err != nil {
		return db.Paged[Draft]{}, err
	}
	rows, err := e.core.Q.DraftListByWorkspace(ctx, dbsqlc.DraftListByWorkspaceParams{WorkspaceID: workspaceID,
		BeforeAt: k.At, BeforeID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[Draft]{}, dbcore.Wrap(err, "list drafts")
	}
	out := make([]Draft, 0, len(rows))
	for _, r := range rows {
		d, err := draftFromRow(r)
		if err != nil {
			return db.Paged[Draft]{}, err
		}
		out = append(out, d)
	}
	return db.PageOf(p, "drafts", out, func(d Draft) any { return db.TimeKey{At: d.CreatedAt, ID: d.ID} }), nil
}

// Get reads a draft of a workspace; one of another workspace is not found.
func (e *Engine) Get(ctx context.Context, workspaceID, draftID string) (Draft, error) {
	row, err := e.core.Q.DraftGet(ctx, dbsqlc.DraftGetParams{ID: draftID, WorkspaceID: workspaceID})
	if dbcore.IsNotFound(err) {
		return Draft{}, dbcore.NotFound("draft not found")
	}
	return draftOrErr(row, dbcore.Wrap(err, "get draft"))
}

// Delete deletes a draft (and its stream); a running job finds it gone and stops, so a pipeline
// step waiting for its roadmap fails in the same transaction. The project an executed draft made stays.
func (e *Engine) Delete(ctx context.Context, workspaceID, draftID string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		n, err := q.DraftDelete(ctx, dbsqlc.DraftDeleteParams{ID: draftID, WorkspaceID: workspaceID})
		if err != nil {
			return dbcore.Wrap(err, "delete draft")
		}
		if n == 0 {
			return dbcore.NotFound("draft not found")
		}
		return e.waits.WaitFinishedTx(ctx, tx, PipelineRef(draftID), map[string]any{"status": "deleted"}, "the draft was "+
			"deleted")
	})
}

// draftStateConflict is the 409 for a draft that cannot take the step wanted in its status.
func draftStateConflict(d dbsqlc.ProjectDraft, step string) error {
	switch d.Status {
	case DraftRefining:
		return dbcore.Conflict("a refinement job is already running for this draft; wait for it (GET …/events)")
	case DraftGenerating:
		return dbcore.Conflict("a roadmap job is already running for this draft; wait for it (GET …/events)")
	case DraftExecuted:
		return dbcore.Conflict(fmt.Sprintf("the draft was already executed: it made project %s", deref(d.ProjectID)))
	}
	return dbcore.Conflict(fmt.Sprintf("a draft in status %s cannot %s", d.Status, step))
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// DraftExecution is what executing a draft made.
type DraftExecution struct {
	Draft   Draft
	Project db.Project
	// MembersAdded are the e-mails of team members who joined the project; MembersSkipped the names
	// of those who did not (no e-mail, or not a member of the workspace).
	MembersAdded, MembersSkipped []string
}

// Execute turns a ready roadmap into a project, once, in one transaction: the project (no template
// columns), a column per phase in order, the team members who are workspace members (by e-mail) as
// project members, then a card per deliverable created as any card create is (card_created activities,
// their notifications and automation jobs), and the draft executed with its projectId. A second call
// answers 409 naming the project.
func (e *Engine) Execute(ctx context.Context, r db.RecordEdit) (DraftExecution, error) {
	workspaceID, draftID, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out DraftExecution
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.DraftGetForUpdate(ctx, dbsqlc.DraftGetForUpdateParams{ID: draftID, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("draft not found")
		}
		if err != nil {
			return fmt.Errorf("lock draft: %w", err)
		}
		if row.Status != DraftRoadmapReady {
			if row.Status == DraftExecuted {
				return draftStateConflict(row, "be executed")
			}
			return dbcore.Conflict(fmt.Sprintf("the draft has no roadmap to execute (status %s); generate it first", row.Status))
		}
		d, err := draftFromRow(row)
		if err != nil {
			return err
		}
		if d.Roadmap == nil || len(d.Roadmap.Phases) == 0 {
			return dbcore.Conflict("the draft's roadmap is empty; generate it again")
		}
		p, err := e.board.CreateProjectTx(ctx, tx, board.NewProject{WorkspaceID: workspaceID, Name: d.Name,
			Description: d.Description, TemplateID: "empty", CreatedBy: actorID})
		if err != nil {
			return err
		}
		out.Project = p
		out.MembersAdded, out.MembersSkipped = []string{}, []string{}
		for _, m := range d.TeamMembers {
			if strings.TrimSpace(m.Email) == "" {
				out.MembersSkipped = append(out.MembersSkipped, m.Name)
				continue
			}
			u, added, err := e.board.AddProjectMemberTx(ctx, tx, db.ProjectMemberAdd{WorkspaceID: workspaceID, ProjectID: p.ID,
				ActorID: actorID, Email: m.Email})
			if errors.Is(err, db.ErrInvalid) {
				out.MembersSkipped = append(out.MembersSkipped, m.Name)
				continue
			}
			if err != nil {
				return err
			}
			if added {
				out.MembersAdded = append(out.MembersAdded, u.Email)
			}
		}
		for _, ph := range d.Roadmap.Phases {
			col, err := q.ColumnInsert(ctx, dbsqlc.ColumnInsertParams{ID: db.NewID(), ProjectID: p.ID, Name: ph.Name})
			if err != nil {
				return fmt.Errorf("insert phase column: %w", err)
			}
			for _, dl := range ph.Deliverables {
				if _, err := e.board.CreateCardTx(ctx, tx, board.NewCard{WorkspaceID: workspaceID, ProjectID: p.ID,
					ColumnID: col.ID, ActorID: actorID, Title: dl.Title, Description: dl.Description}); err != nil {
					return fmt.Errorf("create deliverable card: %w", err)
				}
			}
		}
		row, err = q.DraftMarkExecuted(ctx, dbsqlc.DraftMarkExecutedParams{ID: draftID, ProjectID: &p.ID})
		if err != nil {
			return fmt.Errorf("mark draft executed: %w", err)
		}
		if out.Draft, err = draftFromRow(row); err != nil {
			return err
		}
		// The draft's final event: its stream ends here.
		_, err = e.store.AppendStreamEventTx(ctx, tx, StreamDraft, draftID, db.NewStreamEvent{Type: DraftEventDone,
			Status: DraftExecuted, Message: "executed into the project " + p.Name, Data: map[string]any{"projectId": p.ID}})
		return err
	})
	return out, err
}

// questionKey compares questions ignoring case, spacing and punctuation (as llm.QuestionKey).
func questionKey(q string) string {
	var b strings.Builder
	for _, f := range strings.Fields(strings.ToLower(q)) {
		f = strings.Trim(f, ".,;:!?\"'“”‘’()")
		if f == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}

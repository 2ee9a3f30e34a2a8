// Package imports is the engine of imports of other tools' exports (Trello, Jira, Vikunja, Plane,
// Pilot): an upload is recorded with its job in one transaction; the job reads the export into projects
// (db/transfer/sources) and creates each through the transfer engine's write path, all or nothing per
// project, reporting its progress on the import's stream and ending with a report of what was created
// and what was left out, with why.
package imports

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/db/transfer"
	"github.com/pilot-dev/pilot/db/transfer/sources"
	"github.com/pilot-dev/pilot/internal/storage"
	"github.com/pilot-dev/pilot/jobs"
)

// Status is an import's state: queued, running, then completed or failed.
type Status string

// Statuses.
const (
	StatusQueued    Status = "queued"
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
)

// Values lists the statuses (the OpenAPI document's enum).
func (Status) Values() []Status {
	return []Status{StatusQueued, StatusRunning, StatusCompleted, StatusFailed}
}

// StreamImport is the stream kind of an import's progress (events carry "importId"); it ends once the
// import completed or failed.
var StreamImport = db.StreamKind{Name: "import", Final: []string{string(StatusCompleted), string(StatusFailed)}}

// Stream event types (the SSE `event` names).
const (
	EventStatus   = "status"
	EventProgress = "progress"
	EventDone     = "done"
)

// MaxAttempts is how many times River runs an import job (a crash or a database error is retried).
const MaxAttempts = 3

// Engine keeps imports.
type Engine struct {
	core     *dbcore.Core
	store    *db.Store
	transfer *transfer.Engine
	boards   *board.Engine
}

// New builds the imports engine; projects are written through transfers, the attachments an export holds
// through boards.
func New(core *dbcore.Core, store *db.Store, transfers *transfer.Engine, boards *board.Engine) *Engine {
	return &Engine{core: core, store: store, transfer: transfers, boards: boards}
}

// ProjectReport is a project the import created.
type ProjectReport struct {
	// Index is the project's place in the export (a retried job skips those already created).
	Index     int            `json:"index"`
	Name      string         `json:"name"`
	ProjectID string         `json:"projectId"`
	Created   sources.Counts `json:"created"`
	// Assigned counts the cards assigned to a workspace member matched by e-mail.
	Assigned int      `json:"assigned"`
	Warnings []string `json:"warnings" doc:"Changes made to fit, e.g. a title cut to 500 characters"`
}

// Report is what an import created and left out.
type Report struct {
	Projects []ProjectReport `json:"projects"`
	Skipped  []sources.Skip  `json:"skipped"`
}

// Import is an import as read.
type Import struct {
	ID, WorkspaceID, Source, FileName, FileSHA256 string
	FileSize                                      int64
	Status                                        Status
	ItemsRead, ItemsCreated, ItemsSkipped         int
	Report                                        Report
	Error                                         *string
	CreatedBy                                     *string
	CreatedAt, UpdatedAt                          time.Time
	FinishedAt                                    *time.Time
}

func importFrom(r dbsqlc.ImportGetRow) (Import, error) {
	im := Import{ID: r.ID, WorkspaceID: r.WorkspaceID, Source: r.Source, FileName: r.FileName, FileSHA256: r.FileSha256,
		FileSize: r.FileSize, Status: Status(r.Status), ItemsRead: int(r.ItemsRead), ItemsCreated: int(r.ItemsCreated),
		ItemsSkipped: int(r.ItemsSkipped), Error: r.Error, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, FinishedAt: r.FinishedAt}
	if err := json.Unmarshal(r.Report, &im.Report); err != nil {
		return im, fmt.Errorf("decode import report %s: %w", r.ID, err)
	}
	im.Report.normalize()
	return im, nil
}

func (r *Report) normalize() {
	if r.Projects == nil {
		r.Projects = []ProjectReport{}
	}
	if r.Skipped == nil {
		r.Skipped = []sources.Skip{}
	}
	for i := range r.Projects {
		if r.Projects[i].Warnings == nil {
			r.Projects[i].Warnings = []string{}
		}
	}
}

// Create records an upload of source's export as actorID and enqueues its job, with the stream's first
// event, in one transaction. The same file (by SHA-256) already imported into the workspace, or being
// imported, is refused as such, naming the earlier import; one that failed may be imported again.
func (e *Engine) Create(ctx context.Context, workspaceID, actorID string, source sources.Source, fileName string,
	data []byte) (Import, error) {
	if !source.Valid() {
		return Import{}, dbcore.Invalid(fmt.Sprintf("source: must be one of %v", source.Values()))
	}
	if len(data) == 0 {
		return Import{}, dbcore.Invalid("file: the file is empty")
	}
	if limit := sources.MaxFileSize[source]; int64(len(data)) > limit {
		return Import{}, dbcore.Invalid(fmt.Sprintf("file: a %s export is at most %d MB", source, limit>>20))
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	if len([]rune(fileName)) > 255 {
		fileName = string([]rune(fileName)[:255])
	}
	var out Import
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if err := sameFile(ctx, q, workspaceID, digest); err != nil {
			return err
		}
		row, err := q.ImportInsert(ctx, dbsqlc.ImportInsertParams{ID: db.NewID(), WorkspaceID: workspaceID,
			Source: string(source), FileName: fileName, FileSha256: digest, FileSize: int64(len(data)), File: data,
			CreatedBy: &actorID})
		if dbcore.IsUnique(err, "imports_same_file_idx") {
			return sameFile(ctx, q, workspaceID, digest) // imported meanwhile by another request
		}
		if err != nil {
			return dbcore.Wrap(err, "insert import")
		}
		if _, err := e.core.River.InsertTx(ctx, tx, jobs.ImportArgs{ImportID: row.ID},
			&river.InsertOpts{Queue: jobs.QueueDefault, MaxAttempts: MaxAttempts}); err != nil {
			return fmt.Errorf("enqueue import: %w", err)
		}
		if _, err := e.store.AppendStreamEventTx(ctx, tx, StreamImport, row.ID, db.NewStreamEvent{Type: EventStatus,
			Status: string(StatusQueued), Message: "import queued",
			Data: map[string]any{"source": string(source)}}); err != nil {
			return err
		}
		out, err = importFrom(dbsqlc.ImportGetRow(row))
		return err
	})
	return out, err
}

// sameFile refuses a file already imported into the workspace (or being imported).
func sameFile(ctx context.Context, q *dbsqlc.Queries, workspaceID, digest string) error {
	prev, err := q.ImportSameFile(ctx, dbsqlc.ImportSameFileParams{WorkspaceID: workspaceID, FileSha256: digest})
	if dbcore.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return dbcore.Wrap(err, "find the same file")
	}
	return dbcore.Conflict(fmt.Sprintf("this file was already imported into the workspace on %s (import %s)",
		prev.CreatedAt.UTC().Format(time.RFC3339), prev.ID))
}

// Get reads an import of a workspace; one of another workspace is not found.
func (e *Engine) Get(ctx context.Context, workspaceID, importID string) (Import, error) {
	row, err := e.core.Q.ImportGet(ctx, dbsqlc.ImportGetParams{ID: importID, WorkspaceID: workspaceID})
	if dbcore.IsNotFound(err) {
		return Import{}, dbcore.NotFound("import not found")
	}
	if err != nil {
		return Import{}, dbcore.Wrap(err, "get import")
	}
	return importFrom(row)
}

// List is one page of a workspace's imports, newest first.
func (e *Engine) List(ctx context.Context, workspaceID string, p db.Page) (db.Paged[Import], error) {
	k, err := p.AfterTime("imports", true)
	if err != nil {
		return db.Paged[Import]{}, err
	}
	rows, err := e.core.Q.ImportListByWorkspace(ctx, dbsqlc.ImportListByWorkspaceParams{WorkspaceID: workspaceID,
		BeforeAt: k.At, BeforeID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[Import]{}, dbcore.Wrap(err, "list imports")
	}
	out := make([]Import, 0, len(rows))
	for _, r := range rows {
		im, err := importFrom(dbsqlc.ImportGetRow(r))
		if err != nil {
			return db.Paged[Import]{}, err
		}
		out = append(out, im)
	}
	return db.PageOf(p, "imports", out, func(im Import) any { return db.TimeKey{At: im.CreatedAt, ID: im.ID} }), nil
}

// progress is a running import's counts.
type progress struct {
	read, created, skipped int
	report                 Report
}

func (pr *progress) data() map[string]any {
	return map[string]any{"itemsRead": pr.read, "itemsCreated": pr.created, "itemsSkipped": pr.skipped}
}

// Run does an import's work (its job's): it reads the export, then creates its projects one transaction
// each, the project with the report's entry and a progress event, and ends the import completed, or
// failed when the file cannot be read, with the final event. An import gone or already finished is left
// alone. An error is the machine's (the database): the job is retried and resumes after the projects
// already created. The attachments an export holds are stored in files (nil: they are skipped, saying so).
func (e *Engine) Run(ctx context.Context, importID string, files storage.Storage) error {
	start, err := e.core.Q.ImportStart(ctx, importID)
	if dbcore.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return dbcore.Wrap(err, "start import")
	}
	var pr progress
	if err := json.Unmarshal(start.Report, &pr.report); err != nil {
		return fmt.Errorf("decode import report: %w", err)
	}
	pr.report.normalize()
	if _, err := e.store.AppendStreamEvent(ctx, StreamImport, importID, db.NewStreamEvent{Type: EventStatus,
		Status: string(StatusRunning), Message: "reading the export"}); err != nil {
		return err
	}
	export, err := sources.Parse(sources.Source(start.Source), start.File)
	if errors.Is(err, sources.ErrUnreadable) {
		return e.finish(ctx, importID, &pr, StatusFailed, err.Error())
	}
	if err != nil {
		return err
	}
	pr.report.Skipped = append(pr.report.Skipped[:0], export.Skipped...)
	done := map[int]ProjectReport{}
	for _, p := range pr.report.Projects {
		done[p.Index] = p
	}
	actor := ""
	if start.CreatedBy != nil {
		actor = *start.CreatedBy
	}
	pr.report.Projects = pr.report.Projects[:0]
	for i, p := range export.Projects {
		counts := p.Count()
		pr.read += counts.Total() + len(p.Skipped)
		pr.skipped += len(p.Skipped)
		pr.report.Skipped = append(pr.report.Skipped, p.Skipped...)
		if rep, ok := done[i]; ok {
			pr.created += rep.Created.Total()
			pr.report.Projects = append(pr.report.Projects, rep)
			continue
		}
		if err := e.runProject(ctx, importID, start.WorkspaceID, actor, i, p, files, &pr); err != nil {
			return err
		}
	}
	pr.skipped += len(export.Skipped)
	pr.read += len(export.Skipped)
	return e.finish(ctx, importID, &pr, StatusCompleted, "")
}

// runProject creates the export's project i, all or nothing: a project refused whole (over a limit,
// say) is reported skipped with why, and its items counted skipped. The files it holds are stored first
// and recorded as its cards' attachments in the project's transaction; they are deleted again when it
// fails.
func (e *Engine) runProject(ctx context.Context, importID, workspaceID, actorID string, i int, p sources.Project,
	files storage.Storage, pr *progress) error {
	opts := transfer.ImportOptions{MaxColumns: sources.MaxColumns, MaxCards: sources.MaxCards, Assignees: p.Assignees}
	counts := p.Count()
	if err := transfer.Plan(p.Doc, opts); err != nil {
		if !errors.Is(err, db.ErrInvalid) {
			return err
		}
		pr.skipped += counts.Total()
		pr.report.Skipped = append(pr.report.Skipped, sources.Skip{Item: fmt.Sprintf("project %q", p.Doc.Project.Name),
			Reason: err.Error()})
		return e.progressEvent(ctx, importID, pr, fmt.Sprintf("project %q left out: %v", p.Doc.Project.Name, err))
	}
	stored, skips, err := storeFiles(ctx, files, p.Files)
	if err != nil {
		return err
	}
	counts.Files = len(stored)
	pr.skipped += len(skips)
	pr.report.Skipped = append(pr.report.Skipped, skips...)
	err = e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		out, err := e.transfer.ImportTx(ctx, tx, q, workspaceID, actorID, p.Doc, opts)
		if err != nil {
			return err
		}
		for _, f := range stored {
			f.ProjectID, f.CardID, f.ActorID = out.Project.ID, out.CardIDs[f.cardIndex], actorID
			if _, err := e.boards.CreateAttachmentTx(ctx, tx, q, f.NewAttachment); err != nil {
				return err
			}
		}
		rep := ProjectReport{Index: i, Name: out.Project.Name, ProjectID: out.Project.ID, Created: counts,
			Assigned: out.Assigned, Warnings: append([]string{}, p.Warnings...)}
		for _, email := range out.Unmatched {
			pr.report.Skipped = append(pr.report.Skipped, sources.Skip{Item: "assignee " + email,
				Reason: "no member of the workspace has this e-mail"})
		}
		pr.created += counts.Total()
		pr.report.Projects = append(pr.report.Projects, rep)
		if err := q.ImportProgress(ctx, pr.params(importID)); err != nil {
			return dbcore.Wrap(err, "record import progress")
		}
		_, err = e.store.AppendStreamEventTx(ctx, tx, StreamImport, importID, db.NewStreamEvent{Type: EventProgress,
			Status: string(StatusRunning), Message: fmt.Sprintf("project %q created", out.Project.Name), Data: pr.data()})
		return err
	})
	if err != nil {
		for _, f := range stored {
			_ = files.Delete(context.WithoutCancel(ctx), f.StorageKey) // best effort: the project was not created
		}
	}
	return err
}

// storedFile is a file of an export put in storage, to be recorded as the attachment of the card at
// cardIndex (its index in the export's project).
type storedFile struct {
	board.NewAttachment
	cardIndex int
}

// storeFiles reads an export's files and puts each in storage under a new id; one that cannot be read
// (or with no storage) is skipped with why. An error is storage's: the caller's job is retried.
func storeFiles(ctx context.Context, files storage.Storage, in []sources.File) ([]storedFile, []sources.Skip,
	error) {
	var out []storedFile
	var skips []sources.Skip
	for _, f := range in {
		item := fmt.Sprintf("attachment %q", f.Name)
		if files == nil {
			skips = append(skips, sources.Skip{Item: item, Reason: "no attachment storage is configured"})
			continue
		}
		data, err := f.Open()
		if err != nil {
			skips = append(skips, sources.Skip{Item: item, Reason: "its file in the archive cannot be read: " + err.Error()})
			continue
		}
		if int64(len(data)) > board.MaxAttachmentSize {
			skips = append(skips, sources.Skip{Item: item, Reason: "it is larger than the 10 MB attachment limit"})
			continue
		}
		id := db.NewID()
		size, err := files.Put(ctx, id, bytes.NewReader(data))
		if err != nil {
			for _, s := range out {
				_ = files.Delete(context.WithoutCancel(ctx), s.StorageKey)
			}
			return nil, nil, fmt.Errorf("store imported attachment: %w", err)
		}
		out = append(out, storedFile{cardIndex: f.CardIndex, NewAttachment: board.NewAttachment{ID: id,
			OriginalName: f.Name, MimeType: fileType(data, f.MimeType), Size: size, StorageKey: id, Imported: true}})
	}
	return out, skips, nil
}

// fileType is the content's sniffed type, or the declared one when sniffing finds nothing better.
func fileType(data []byte, declared string) string {
	sniffed := http.DetectContentType(data)
	if sniffed != "application/octet-stream" || declared == "" {
		return sniffed
	}
	if mt, params, err := mime.ParseMediaType(declared); err == nil {
		if v := mime.FormatMediaType(mt, params); v != "" {
			return v
		}
	}
	return sniffed
}

// MaxReportedSkips bounds the skipped items an import's report lists; the last entry counts the rest.
const MaxReportedSkips = 1000

func (pr *progress) params(importID string) dbsqlc.ImportProgressParams {
	rep := pr.report
	if n := len(rep.Skipped); n > MaxReportedSkips {
		rep.Skipped = append(rep.Skipped[:MaxReportedSkips:MaxReportedSkips], sources.Skip{
			Item: fmt.Sprintf("%d more items", n-MaxReportedSkips), Reason: "not listed: the report lists 1000"})
	}
	b, _ := json.Marshal(rep)
	return dbsqlc.ImportProgressParams{ID: importID, ItemsRead: dbcore.Int32(pr.read),
		ItemsCreated: dbcore.Int32(pr.created), ItemsSkipped: dbcore.Int32(pr.skipped), Report: b}
}

func (e *Engine) progressEvent(ctx context.Context, importID string, pr *progress, msg string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if err := q.ImportProgress(ctx, pr.params(importID)); err != nil {
			return dbcore.Wrap(err, "record import progress")
		}
		_, err := e.store.AppendStreamEventTx(ctx, tx, StreamImport, importID, db.NewStreamEvent{Type: EventProgress,
			Status: string(StatusRunning), Message: msg, Data: pr.data()})
		return err
	})
}

// finish ends a running import with its report and the stream's final event, and drops its file.
func (e *Engine) finish(ctx context.Context, importID string, pr *progress, status Status, reason string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		p := pr.params(importID)
		var errMsg *string
		msg := fmt.Sprintf("import completed: %d items created, %d skipped", pr.created, pr.skipped)
		if status == StatusFailed {
			errMsg, msg = &reason, "import failed: "+reason
		}
		_, err := q.ImportFinish(ctx, dbsqlc.ImportFinishParams{ID: importID, Status: string(status),
			ItemsRead: p.ItemsRead, ItemsCreated: p.ItemsCreated, ItemsSkipped: p.ItemsSkipped, Report: p.Report,
			Error: errMsg})
		if dbcore.IsNotFound(err) {
			return nil // finished meanwhile
		}
		if err != nil {
			return dbcore.Wrap(err, "finish import")
		}
		data := pr.data()
		data["report"] = p.Report
		_, err = e.store.AppendStreamEventTx(ctx, tx, StreamImport, importID, db.NewStreamEvent{Type: EventDone,
			Status: string(status), Message: msg, Data: data})
		return err
	})
}

// Fail ends an unfinished import failed with reason (its job gave up after its last attempt), keeping
// the report of the projects it created, with the stream's final event.
func (e *Engine) Fail(ctx context.Context, importID, reason string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.ImportFail(ctx, dbsqlc.ImportFailParams{ID: importID, Error: &reason})
		if dbcore.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return dbcore.Wrap(err, "fail import")
		}
		_, err = e.store.AppendStreamEventTx(ctx, tx, StreamImport, importID, db.NewStreamEvent{Type: EventDone,
			Status: string(StatusFailed), Message: "import failed: " + reason, Data: map[string]any{
				"itemsRead": row.ItemsRead, "itemsCreated": row.ItemsCreated, "itemsSkipped": row.ItemsSkipped}})
		return err
	})
}

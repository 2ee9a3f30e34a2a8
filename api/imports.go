package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db/imports"
	"github.com/pilot-dev/pilot/db/transfer/sources"
	"github.com/pilot-dev/pilot/internal/stream"
)

// ImportOut is an import of another tool's export as read.
type ImportOut struct {
	ID           string         `json:"id"`
	WorkspaceID  string         `json:"workspaceId"`
	Source       sources.Source `json:"source"`
	FileName     string         `json:"fileName"`
	FileSHA256   string         `json:"fileSha256" doc:"SHA-256 of the file: the same file is imported once per workspace"`
	FileSize     int64          `json:"fileSize"`
	Status       imports.Status `json:"status"`
	ItemsRead    int            `json:"itemsRead" doc:"Items of the export read (columns, cards, labels, checklist items, comments, relations, attachments)"`
	ItemsCreated int            `json:"itemsCreated"`
	ItemsSkipped int            `json:"itemsSkipped"`
	Report       imports.Report `json:"report" doc:"What was created, project by project, and each item left out with why"`
	Error        *string        `json:"error" nullable:"true" doc:"Why the import failed (status failed)"`
	CreatedBy    *string        `json:"createdBy" nullable:"true"`
	CreatedAt    time.Time      `json:"createdAt"`
	UpdatedAt    time.Time      `json:"updatedAt"`
	FinishedAt   *time.Time     `json:"finishedAt" nullable:"true"`
}

func importOut(im imports.Import) ImportOut {
	return ImportOut{ID: im.ID, WorkspaceID: im.WorkspaceID, Source: sources.Source(im.Source), FileName: im.FileName,
		FileSHA256: im.FileSHA256, FileSize: im.FileSize, Status: im.Status, ItemsRead: im.ItemsRead,
		ItemsCreated: im.ItemsCreated, ItemsSkipped: im.ItemsSkipped, Report: im.Report, Error: im.Error,
		CreatedBy: im.CreatedBy, CreatedAt: im.CreatedAt, UpdatedAt: im.UpdatedAt, FinishedAt: im.FinishedAt}
}

// ImportPath names an import.
type ImportPath struct {
	WorkspacePath
	ImportID string `path:"importId" format:"uuid"`
}

// ListImportsInput is the request of imports-list.
type ListImportsInput struct {
	WorkspacePath
	PageQuery
}

// ImportStreamInput addresses an import's event stream.
type ImportStreamInput struct {
	ImportPath
	LastEventID string `header:"Last-Event-ID" doc:"The last event id received: the stream replays the events after it"`
}

const importsDoc = "Trello: the board's JSON export. Jira: the CSV export (all fields; English headers `Summary`, " +
	"`Issue key`, `Status` required). Pilot: a project export. Vikunja: the export archive (zip; its attachment " +
	"files are stored as attachments). Plane: the work items' CSV export, the zip or a CSV file of it (`ID`, `Name`, " +
	"`State` required). Size limits: Trello, Vikunja 50 MB; Jira, Plane, Pilot 20 MB."

// registerImports registers the imports of other tools' exports.
func (s boardOps) registerImports() {
	tags := []string{"Projects"}
	path := pathWorkspace + "/imports"
	create := huma.Operation{OperationID: "imports-create", Method: http.MethodPost, Path: path,
		Summary: "Import another tool's export", Tags: tags, DefaultStatus: http.StatusAccepted,
		Description: "`multipart/form-data` with `source` (trello, jira, vikunja, plane, pilot) and the export in a " +
			"part named `file`. Answers 202 with the import, queued: a job reads the file and creates one project per " +
			"project of the export, each whole or not at all; follow `…/imports/{importId}/events` or read the import. " +
			"The same file imported again into the workspace answers 409 naming the earlier import (unless it failed). " +
			importsDoc,
		Errors: []int{http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType}}
	register(s.Server, create, projectWrite, s.createImport)
	if item := s.api.OpenAPI().Paths[create.Path]; item != nil && item.Post != nil {
		item.Post.RequestBody = &huma.RequestBody{Required: true,
			Content: map[string]*huma.MediaType{"multipart/form-data": {
				Schema: &huma.Schema{Type: huma.TypeObject, Required: []string{"source", "file"},
					Properties: map[string]*huma.Schema{
						"source": {Type: huma.TypeString, Enum: []any{"trello", "jira", "vikunja", "plane", "pilot"}},
						"file":   {Type: huma.TypeString, Format: "binary", Description: "The export"},
					}},
				Encoding: map[string]*huma.Encoding{"file": {ContentType: "application/octet-stream"}},
			}}}
	}
	register(s.Server, huma.Operation{OperationID: "imports-list", Method: http.MethodGet, Path: path,
		Summary: "List the workspace's imports, newest first", Tags: tags}, projectRead, s.listImports)
	register(s.Server, huma.Operation{OperationID: "imports-get", Method: http.MethodGet, Path: path + "/{importId}",
		Summary: "Get an import with its progress and report", Tags: tags}, projectRead, s.getImport)
	register(s.Server, huma.Operation{OperationID: "imports-events", Method: http.MethodGet,
		Path: path + "/{importId}/events", Summary: "Watch an import (server-sent events)", Tags: tags,
		Description: "A `text/event-stream` of the import's events: each has `id` (the per-import sequence), `event` " +
			"(status, progress, done) and JSON `data` {importId, seq, type, status, message, data, at}; `data` carries " +
			"itemsRead, itemsCreated and itemsSkipped, and the `done` event the report. The stream ends after the event " +
			"reporting the import completed or failed.",
		Responses: map[string]*huma.Response{"200": {Description: "The event stream",
			Content: map[string]*huma.MediaType{"text/event-stream": {Schema: &huma.Schema{Type: huma.TypeString}}}}}},
		projectRead, s.watchImport)
}

// createImport reads the multipart upload (source and file, the file capped at its source's limit) and
// records the import with its job.
func (s boardOps) createImport(ctx context.Context, in *WorkspacePath) (*Output[ImportOut], error) {
	r, w := rawRequest(ctx)
	if r == nil || w == nil {
		return nil, errors.New("import: no underlying HTTP request")
	}
	if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" ||
		params["boundary"] == "" {
		return nil, newErrorBody(http.StatusUnsupportedMediaType, "expected a multipart/form-data body with `source` and "+
			"the export in a part named \"file\"")
	}
	tooLarge := func(limit int64) error {
		return newErrorBody(http.StatusRequestEntityTooLarge, fmt.Sprintf("the file is larger than the %d MB limit",
			limit>>20))
	}
	if r.ContentLength > sources.MaxUpload+multipartOverhead {
		return nil, tooLarge(sources.MaxUpload)
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadReadTimeout))
	r.Body = http.MaxBytesReader(w, r.Body, sources.MaxUpload+multipartOverhead)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errBadRequest("malformed multipart body: " + err.Error())
	}
	var src sources.Source
	var file []byte
	var fileName string
	gotFile := false
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, importReadError(err)
		}
		switch p.FormName() {
		case "source":
			b, err := io.ReadAll(io.LimitReader(p, 64))
			if err != nil {
				return nil, importReadError(err)
			}
			src = sources.Source(strings.TrimSpace(string(b)))
		case "file":
			limit := int64(sources.MaxUpload)
			if l, ok := sources.MaxFileSize[src]; ok {
				limit = l
			}
			file, err = io.ReadAll(io.LimitReader(p, limit+1))
			if err != nil {
				return nil, importReadError(err)
			}
			if int64(len(file)) > limit {
				return nil, tooLarge(limit)
			}
			fileName, gotFile = sanitizeFilename(p.FileName()), true
		}
	}
	switch {
	case src == "":
		return nil, errBadRequest("the body has no part named \"source\" (trello, jira, vikunja, plane or pilot)")
	case !src.Valid():
		return nil, errBadRequest(fmt.Sprintf("source: must be one of %v", src.Values()))
	case !gotFile:
		return nil, errBadRequest("the body has no part named \"file\"")
	case int64(len(file)) > sources.MaxFileSize[src]:
		return nil, tooLarge(sources.MaxFileSize[src])
	}
	return oneOf(importOut)(s.imports.Create(ctx, accessFrom(ctx).WorkspaceID, principalFrom(ctx).User.ID, src,
		fileName, file))
}

func importReadError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return newErrorBody(http.StatusRequestEntityTooLarge, fmt.Sprintf("the upload is larger than the %d MB limit",
			sources.MaxUpload>>20))
	}
	return errBadRequest("could not read the multipart body: " + err.Error())
}

func (s boardOps) listImports(ctx context.Context, in *ListImportsInput) (*PageOutput[ImportOut], error) {
	return pageOf(ctx, importOut)(s.imports.List(ctx, accessFrom(ctx).WorkspaceID, in.page()))
}

func (s boardOps) getImport(ctx context.Context, in *ImportPath) (*Output[ImportOut], error) {
	if !isUUID(in.ImportID) {
		return nil, errNotFound("import not found")
	}
	return oneOf(importOut)(s.imports.Get(ctx, accessFrom(ctx).WorkspaceID, in.ImportID))
}

// watchImport answers the import's event stream from its start (or after Last-Event-ID), after checking
// the import is in the workspace; it ends after the event reporting the import completed or failed.
func (s boardOps) watchImport(ctx context.Context, in *ImportStreamInput) (*huma.StreamResponse, error) {
	if !isUUID(in.ImportID) {
		return nil, errNotFound("import not found")
	}
	if _, err := s.imports.Get(ctx, accessFrom(ctx).WorkspaceID, in.ImportID); err != nil {
		return nil, fail(err)
	}
	after := stream.ParseLastEventID(in.LastEventID)
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w, stop := s.unwrapStream(hctx)
		defer stop()
		agentOps(s).serveStream(w, r, imports.StreamImport, in.ImportID, after)
	}}, nil
}

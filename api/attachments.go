package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/storage"
)

const (
	// multipartOverhead is what an upload may carry besides the file itself: part headers, boundaries
	// and a few small form fields.
	multipartOverhead = 64 << 10
	// uploadReadTimeout bounds how long reading one upload may take (10 MB at about 35 kB/s).
	uploadReadTimeout = 5 * time.Minute
	// maxFilenameBytes bounds a stored original file name.
	maxFilenameBytes = 255
	// sniffLen is how much of a file http.DetectContentType looks at.
	sniffLen = 512
)

// errFileTooLarge is the upload reader's refusal of the byte after MaxAttachmentSize.
var errFileTooLarge = errors.New("file too large")

// AttachmentOut is a file attached to a card.
type AttachmentOut struct {
	ID           string    `json:"id"`
	CardID       string    `json:"cardId"`
	UploadedBy   string    `json:"uploadedBy" doc:"Id of the user who uploaded it"`
	OriginalName string    `json:"originalName" doc:"The uploaded file's base name, sanitised"`
	MimeType     string    `json:"mimeType"`
	Size         int64     `json:"size" doc:"Bytes"`
	CreatedAt    time.Time `json:"createdAt"`
}

func attachmentOut(a db.Attachment) AttachmentOut {
	return AttachmentOut{ID: a.ID, CardID: a.CardID, UploadedBy: a.UploadedBy, OriginalName: a.OriginalName,
		MimeType: a.MimeType, Size: a.Size, CreatedAt: a.CreatedAt}
}

// AttachmentPath are the path parameters of one attachment.
type AttachmentPath struct {
	CardPath
	AttachmentID string `path:"attachmentId" format:"uuid"`
}

// registerAttachments registers a card's attachments.
func (s boardOps) registerAttachments() {
	tags := []string{"Attachments"}

	register(s.Server, huma.Operation{OperationID: "attachments-list", Method: http.MethodGet,
		Path: pathCard + "/attachments", Summary: "List a card's attachments", Tags: tags, Description: "Oldest first."},
		projectRead, s.listAttachments)

	// The upload's input has no Body field, so huma leaves the request body alone and the handler
	// streams it; the multipart request body is documented by hand after registration, because a
	// documented object body would make huma read the whole body first.
	upload := huma.Operation{OperationID: "attachments-upload", Method: http.MethodPost, Path: pathCard + "/attachments",
		Summary: "Attach a file to a card", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: fmt.Sprintf("`multipart/form-data` with the file in a part named `file`, at most %d bytes (10 MB); "+
			"a larger file answers 413. The type is sniffed from the content, falling back to the part's Content-Type. "+
			"Records a `card_updated` activity with fields [\"attachments\"].", board.MaxAttachmentSize),
		Errors: []int{http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType}}
	register(s.Server, upload, cardWrite, s.uploadAttachment)
	if item := s.api.OpenAPI().Paths[upload.Path]; item != nil && item.Post != nil {
		item.Post.RequestBody = &huma.RequestBody{
			Description: "The file to attach, in a part named `file`.",
			Required:    true,
			Content: map[string]*huma.MediaType{"multipart/form-data": {
				Schema: &huma.Schema{Type: huma.TypeObject, Required: []string{"file"}, Properties: map[string]*huma.Schema{
					"file": {Type: huma.TypeString, Format: "binary", Description: "The file, at most 10 MB"},
				}},
				Encoding: map[string]*huma.Encoding{"file": {ContentType: "application/octet-stream"}},
			}},
		}
	}

	register(s.Server, huma.Operation{OperationID: "attachments-download", Method: http.MethodGet,
		Path: pathCard + "/attachments/{attachmentId}", Summary: "Download an attachment", Tags: tags,
		Description: "The raw file with its stored type, as a download (`Content-Disposition: attachment`).",
		Responses: map[string]*huma.Response{"200": {
			Description: "The file's bytes",
			Headers: map[string]*huma.Param{
				"Content-Disposition": {Description: "attachment; filename=\"…\" (and filename* for non-ASCII names)",
					Schema: &huma.Schema{Type: huma.TypeString}}, "Content-Length": {Schema: &huma.Schema{Type: huma.TypeInteger}},
			},
			// The file's own type, whatever it is (Content-Type: the type it was stored with).
			Content: map[string]*huma.MediaType{"*/*": {Schema: &huma.Schema{Type: huma.TypeString, Format: "binary"}}},
		}}},
		projectRead, s.downloadAttachment)

	register(s.Server, huma.Operation{OperationID: "attachments-delete", Method: http.MethodDelete,
		Path: pathCard + "/attachments/{attachmentId}", Summary: "Delete an attachment", Tags: tags,
		Description: "Only the uploader or a workspace admin may. Records a `card_updated` activity with fields " +
			"[\"attachments\"]."},
		cardWrite, s.deleteAttachment)
}

func (s boardOps) listAttachments(ctx context.Context, in *CardPath) (*Output[[]AttachmentOut], error) {
	return listOf(attachmentOut)(s.board.Attachments(ctx, accessFrom(ctx).ProjectID, in.CardID))
}

// deleteAttachment deletes the attachment's row, then its file.
func (s boardOps) deleteAttachment(ctx context.Context, in *AttachmentPath) (*OKOutput, error) {
	a := accessFrom(ctx)
	att, err := s.board.DeleteAttachment(ctx, db.CardEdit{ProjectID: a.ProjectID, CardID: in.CardID,
		ActorID: principalFrom(ctx).User.ID, AsAdmin: a.WorkspaceRole == "admin"}, in.AttachmentID)
	if err != nil {
		return nil, fail(err)
	}
	// The row is gone for good; a file left behind by a failed delete is only wasted space.
	if err := s.storage.Delete(context.WithoutCancel(ctx), att.StorageKey); err != nil {
		s.logger.WarnContext(ctx, "delete attachment file", "attachmentId", att.ID, "key", att.StorageKey, "error", err)
	}
	return okOutput(), nil
}

// uploadAttachment streams the `file` part of a multipart upload into storage, counting and capping
// its bytes, then records the attachment. Nothing holds the whole file in memory.
func (s boardOps) uploadAttachment(ctx context.Context, in *CardPath) (*Output[AttachmentOut], error) {
	r, w := rawRequest(ctx)
	if r == nil || w == nil {
		return nil, errors.New("upload: no underlying HTTP request")
	}
	a := accessFrom(ctx)
	// Refuse an unknown card before reading (and storing) anything.
	if err := s.board.CheckCard(ctx, a.ProjectID, in.CardID); err != nil {
		return nil, fail(err)
	}
	if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" ||
		params["boundary"] == "" {
		return nil, newErrorBody(http.StatusUnsupportedMediaType, "expected a multipart/form-data body with the file in a "+
			"part named \"file\"")
	}
	if r.ContentLength > board.MaxAttachmentSize+multipartOverhead {
		return nil, uploadReadError(errFileTooLarge) // declared too large: refused before reading a byte
	}
	// huma sets no read deadline on an operation without a body; an upload gets its own.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadReadTimeout))
	r.Body = http.MaxBytesReader(w, r.Body, board.MaxAttachmentSize+multipartOverhead)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errBadRequest("malformed multipart body: " + err.Error())
	}
	var part *multipart.Part
	for part == nil {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, errBadRequest("the body has no part named \"file\"")
		}
		if err != nil {
			return nil, uploadReadError(err)
		}
		if p.FormName() == "file" {
			part = p
		}
	}

	head := make([]byte, sniffLen)
	n, err := io.ReadFull(part, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, uploadReadError(err)
	}
	head = head[:n]
	body := &cappedReader{r: io.MultiReader(bytes.NewReader(head), part), left: board.MaxAttachmentSize}
	id := db.NewID()
	key := id // a generated id, never user input
	size, err := s.storage.Put(ctx, key, body)
	if err != nil {
		if body.err != nil {
			return nil, uploadReadError(body.err)
		}
		return nil, fmt.Errorf("store attachment: %w", err)
	}
	att, err := s.board.CreateAttachment(ctx, board.NewAttachment{ID: id, ProjectID: a.ProjectID, CardID: in.CardID,
		ActorID: principalFrom(ctx).User.ID, OriginalName: sanitizeFilename(part.FileName()),
		MimeType: detectMIME(head, part.Header.Get("Content-Type")), Size: size, StorageKey: key})
	if err != nil {
		if derr := s.storage.Delete(context.WithoutCancel(ctx), key); derr != nil {
			s.logger.WarnContext(ctx, "delete orphaned attachment file", "key", key, "error", derr)
		}
		return nil, fail(err)
	}
	return &Output[AttachmentOut]{Body: attachmentOut(att)}, nil
}

// uploadReadError maps a failure to read the upload to its answer: 413 when it is too large, else 400.
func uploadReadError(err error) error {
	var mbe *http.MaxBytesError
	if errors.Is(err, errFileTooLarge) || errors.As(err, &mbe) {
		return newErrorBody(http.StatusRequestEntityTooLarge,
			fmt.Sprintf("the file is larger than the %d-byte (10 MB) limit", board.MaxAttachmentSize))
	}
	return errBadRequest("could not read the multipart body: " + err.Error())
}

// cappedReader passes at most left bytes through and fails with errFileTooLarge on the next one. It
// remembers the first error it saw from its source, so the caller can tell a bad upload from a
// storage failure.
type cappedReader struct {
	r    io.Reader
	left int64
	err  error
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		c.err = errFileTooLarge
		return 0, c.err
	}
	c.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = err
	}
	return n, err
}

// downloadAttachment streams a stored file with its stored type, as a download that browsers neither
// sniff nor render.
func (s boardOps) downloadAttachment(ctx context.Context, in *AttachmentPath) (*huma.StreamResponse, error) {
	att, err := s.board.Attachment(ctx, db.CardRef{ProjectID: accessFrom(ctx).ProjectID, CardID: in.CardID},
		in.AttachmentID)
	if err != nil {
		return nil, fail(err)
	}
	rc, err := s.storage.Open(ctx, att.StorageKey)
	if errors.Is(err, storage.ErrNotFound) {
		s.logger.ErrorContext(ctx, "attachment file missing", "attachmentId", att.ID, "key", att.StorageKey)
		return nil, errNotFound("the attachment's file is missing")
	}
	if err != nil {
		return nil, fmt.Errorf("open attachment: %w", err)
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		// A read handle: its Close error says nothing about the bytes already sent.
		defer func() { _ = rc.Close() }()
		hctx.SetHeader("Content-Type", att.MimeType)
		hctx.SetHeader("Content-Length", strconv.FormatInt(att.Size, 10))
		hctx.SetHeader("Content-Disposition", contentDisposition(att.OriginalName))
		hctx.SetHeader("X-Content-Type-Options", "nosniff")
		hctx.SetHeader("Content-Security-Policy", "default-src 'none'; sandbox")
		hctx.SetHeader("Cache-Control", privateCacheControl) // an authenticated answer: stored by no cache
		hctx.SetStatus(http.StatusOK)
		if _, err := io.Copy(hctx.BodyWriter(), rc); err != nil {
			s.logger.WarnContext(ctx, "stream attachment", "attachmentId", att.ID, "error", err)
		}
	}}, nil
}

// detectMIME sniffs the file's first bytes; when sniffing finds nothing specific it trusts the part's
// declared Content-Type, if that parses.
func detectMIME(head []byte, declared string) string {
	sniffed := http.DetectContentType(head)
	if sniffed != "application/octet-stream" || declared == "" {
		return sniffed
	}
	mt, params, err := mime.ParseMediaType(declared)
	if err != nil {
		return sniffed
	}
	if v := mime.FormatMediaType(mt, params); v != "" {
		return v
	}
	return sniffed
}

// sanitizeFilename keeps the base name of an uploaded file's name: no directories (either slash), no
// control or bidirectional-formatting characters, valid UTF-8, at most 255 bytes (keeping a short
// extension), and never empty, "." or "..".
func sanitizeFilename(name string) string {
	name = strings.ToValidUTF8(name, "_")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == ".." {
		return "file"
	}
	if len(name) <= maxFilenameBytes {
		return name
	}
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= 16 {
		ext = name[i:]
	}
	return truncateUTF8(name[:len(name)-len(ext)], maxFilenameBytes-len(ext)) + ext
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// contentDisposition makes an attachment's Content-Disposition: an ASCII filename every client reads,
// plus the exact name as RFC 5987 filename* when it is not plain ASCII.
func contentDisposition(name string) string {
	fallback := strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	v := `attachment; filename="` + fallback + `"`
	if fallback != name {
		v += "; filename*=UTF-8''" + rfc5987Escape(name)
	}
	return v
}

// rfc5987Escape percent-encodes every byte that is not an RFC 5987 attr-char.
func rfc5987Escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}

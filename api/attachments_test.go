package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/storage"
)

const tenMB = 10 * 1024 * 1024

// attachmentEnv is a test server whose attachments live in their own directory, so a test can look at
// exactly the files it caused.
type attachmentEnv struct {
	*testEnv
	dir string
}

func attachmentSetup(t *testing.T) *attachmentEnv {
	return attachmentSetupWith(t, nil)
}

// attachmentSetupWith builds the real handler on a fresh database with a Local storage in a temporary
// directory, wrapped by wrap when given.
func attachmentSetupWith(t *testing.T, wrap func(storage.Storage) storage.Storage) *attachmentEnv {
	t.Helper()
	e := setup(t)
	dir := t.TempDir()
	var st storage.Storage = storage.NewLocal(dir)
	if wrap != nil {
		st = wrap(st)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	e.handler = newTestHandler(t, e.eng, e.signer, logger, Options{
		PublicURL: "http://pilot.test", LoginRateLimit: 1000, RegisterRateLimit: 1000, Storage: st,
	})
	return &attachmentEnv{testEnv: e, dir: dir}
}

// files lists the files under the storage directory, temporary ones included.
func (e *attachmentEnv) files() []string {
	e.t.Helper()
	var out []string
	require.NoError(e.t, filepath.WalkDir(e.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(e.dir, path)
			out = append(out, rel)
		}
		return nil
	}))
	return out
}

// multipartFile builds a multipart/form-data body with one file part (and any extra text fields before
// it) and returns the body and its Content-Type.
func multipartFile(t *testing.T, field, filename, contentType string, data []byte,
	extra map[string]string) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range extra {
		require.NoError(t, mw.WriteField(k, v))
	}
	if field != "" {
		h := make(textproto.MIMEHeader)
		quote := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace
		h.Set("Content-Disposition", `form-data; name="`+quote(field)+`"; filename="`+quote(filename)+`"`)
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		pw, err := mw.CreatePart(h)
		require.NoError(t, err)
		_, err = pw.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	return buf.Bytes(), mw.FormDataContentType()
}

// upload posts data as the `file` part to card's attachments.
func (e *attachmentEnv) upload(token, card, filename, contentType string, data []byte) *resp {
	e.t.Helper()
	body, ct := multipartFile(e.t, "file", filename, contentType, data, nil)
	return e.send(req{Method: "POST", Path: card + "/attachments", Token: token, Body: body,
		Header: map[string]string{"Content-Type": ct}})
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return b
}

// pngBytes is a PNG signature followed by n random bytes: sniffed as image/png.
func pngBytes(t *testing.T, n int) []byte {
	return append([]byte("\x89PNG\r\n\x1a\n"), randomBytes(t, n)...)
}

func TestAttachmentUploadListDownloadDelete(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)
	jobsBefore := len(e.notifyJobs())

	// The type is sniffed from the content, whatever the part says.
	img := pngBytes(t, 5000)
	r := e.upload(w.other.Token, w.card, "diagram.png", "application/octet-stream", img)
	requireStatus(t, r, http.StatusCreated)
	first := decode[AttachmentOut](t, r)
	id := first.ID
	require.True(t, isUUID(id))
	require.Equal(t, w.cardID, first.CardID)
	require.Equal(t, w.other.ID, first.UploadedBy)
	require.Equal(t, "diagram.png", first.OriginalName)
	require.Equal(t, "image/png", first.MimeType)
	require.Equal(t, int64(len(img)), first.Size)
	require.NotEmpty(t, first.CreatedAt)
	// A count of the body's fields, not of AttachmentOut's: a field added to AttachmentOut must fail here.
	require.Len(t, bodyFields(t, r), 7, "exactly the attachment's seven fields: %s", r.Body)

	// Content sniffing finds nothing specific in random bytes: the declared type is kept.
	blob := randomBytes(t, 3000)
	blob[0] = 0x01 // no text, no known signature
	r = e.upload(w.owner.Token, w.card, "data.bin", "application/x-pilot-test", blob)
	requireStatus(t, r, http.StatusCreated)
	second := decode[AttachmentOut](t, r)
	require.Equal(t, "application/x-pilot-test", second.MimeType)

	// Plain text is sniffed as such.
	r = e.upload(w.owner.Token, w.card, "notes.txt", "", []byte("hello, attachments\n"))
	requireStatus(t, r, http.StatusCreated)
	third := decode[AttachmentOut](t, r)
	require.Equal(t, "text/plain; charset=utf-8", third.MimeType)

	_, n := e.cardCounts(w.owner, w.card)
	require.Equal(t, 3, n)
	require.Equal(t, 3, e.count(`SELECT attachment_count FROM cards WHERE id = $1`, w.cardID))
	require.ElementsMatch(t, []string{id, second.ID, third.ID}, e.files())

	// Each upload recorded card_updated {fields: [attachments], title} for the assignee, with its job.
	var meta map[string]any
	var recipients []string
	require.Equal(t, 3,
		e.count(`SELECT count(*) FROM activities
			WHERE type = 'card_updated' AND meta->'fields' = '["attachments"]'::jsonb AND card_id = $1`, w.cardID))
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT meta, recipients::text[] FROM activities
		WHERE type = 'card_updated' AND meta->'fields' = '["attachments"]'::jsonb
		AND actor_id = $1`, w.other.ID).Scan(&meta, &recipients))
	require.Equal(t, map[string]any{"fields": []any{"attachments"}, "title": "Write the launch post"}, meta)
	require.Equal(t, []string{w.member.ID}, recipients)
	require.Len(t, e.notifyJobs(), jobsBefore+3)

	// The list, oldest first, shows what the uploads answered.
	r = e.do("GET", w.card+"/attachments", w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	list := decode[[]AttachmentOut](t, r)
	require.Len(t, list, 3)
	require.Equal(t, []AttachmentOut{first, second, third}, list)

	// Download: the same bytes with the stored type, as a download that is never sniffed.
	r = e.do("GET", w.card+"/attachments/"+id, w.member.Token, nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.Equal(t, img, r.Body)
	require.Equal(t, "image/png", r.Header.Get("Content-Type"))
	require.Equal(t, fmt.Sprint(len(img)), r.Header.Get("Content-Length"))
	require.Equal(t, `attachment; filename="diagram.png"`, r.Header.Get("Content-Disposition"))
	require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
	r = e.do("GET", w.card+"/attachments/"+second.ID, w.member.Token, nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.Equal(t, blob, r.Body)
	require.Equal(t, "application/x-pilot-test", r.Header.Get("Content-Type"))

	// Delete: the row, the count and the file go; the uploader may.
	r = e.do("DELETE", w.card+"/attachments/"+id, w.other.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[OKBody](t, r).OK)
	_, n = e.cardCounts(w.owner, w.card)
	require.Equal(t, 2, n)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM attachments WHERE id = $1`, id))
	require.ElementsMatch(t, []string{second.ID, third.ID}, e.files())
	requireStatus(t, e.do("GET", w.card+"/attachments/"+id, w.member.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", w.card+"/attachments/"+id, w.other.Token, nil), http.StatusNotFound)
	r = e.do("GET", w.card+"/attachments", w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]AttachmentOut](t, r), 2)
	require.Equal(t, 4,
		e.count(`SELECT count(*) FROM activities WHERE type = 'card_updated' AND meta->'fields' = '["attachments"]'::jsonb`))
}

func TestAttachmentSizeLimit(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)

	// Exactly 10 MB is accepted and comes back byte for byte.
	exact := randomBytes(t, tenMB)
	r := e.upload(w.owner.Token, w.card, "exact.bin", "application/octet-stream", exact)
	requireStatus(t, r, http.StatusCreated)
	att := decode[AttachmentOut](t, r)
	require.Equal(t, int64(tenMB), att.Size)
	r = e.do("GET", w.card+"/attachments/"+att.ID, w.owner.Token, nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.Equal(t, fmt.Sprint(tenMB), r.Header.Get("Content-Length"))
	require.True(t, bytes.Equal(exact, r.Body), "downloaded bytes differ from the upload")

	// One byte more is 413 in the error shape, and leaves no row, no count and no file.
	r = e.upload(w.owner.Token, w.card, "big.bin", "application/octet-stream", append(exact, 'x'))
	requireStatus(t, r, http.StatusRequestEntityTooLarge)
	require.Contains(t, decode[ErrorBody](t, r).Message, "10 MB")
	_, n := e.cardCounts(w.owner, w.card)
	require.Equal(t, 1, n)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM attachments`))
	require.Equal(t, []string{att.ID}, e.files())

	// A body padded past the overall cap by other fields is refused too.
	body, ct := multipartFile(t, "file", "small.txt", "", []byte("small"), map[string]string{"padding": strings.Repeat("p",
		tenMB+100<<10)})
	r = e.send(req{Method: "POST", Path: w.card + "/attachments", Token: w.owner.Token, Body: body,
		Header: map[string]string{"Content-Type": ct}})
	requireStatus(t, r, http.StatusRequestEntityTooLarge)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM attachments`))
}

// endlessUpload is a multipart body whose file part never ends; it counts the bytes read from it.
type endlessUpload struct {
	head []byte
	read atomic.Int64
}

func (u *endlessUpload) Read(p []byte) (int, error) {
	n := 0
	if off := u.read.Load(); off < int64(len(u.head)) {
		n = copy(p, u.head[off:])
	} else {
		for i := range p {
			p[i] = 'a'
		}
		n = len(p)
	}
	u.read.Add(int64(n))
	return n, nil
}

// TestAttachmentTooLargeStopsReading shows the upload is streamed: a never-ending file is refused
// after about 10 MB has been read, rather than read (and held) whole.
func TestAttachmentTooLargeStopsReading(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)
	boundary := "pilotboundary"
	u := &endlessUpload{head: []byte("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; " +
		"filename=\"endless.txt\"\r\n\r\n")}
	hr := httptest.NewRequest("POST", w.card+"/attachments", u)
	hr.Header.Set("Authorization", "Bearer "+w.owner.Token)
	hr.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, hr)
	r := &resp{Code: rec.Code, Body: rec.Body.Bytes(), Header: rec.Header()}
	requireStatus(t, r, http.StatusRequestEntityTooLarge)
	require.Less(t, u.read.Load(), int64(tenMB+(1<<20)), "the handler read far past the limit")
	require.Empty(t, e.files(), "no file, not even a temporary one, is left")
	require.Equal(t, 0, e.count(`SELECT count(*) FROM attachments`))

	// A body declared larger than the limit is refused before anything is read.
	u = &endlessUpload{head: u.head}
	hr = httptest.NewRequest("POST", w.card+"/attachments", u)
	hr.ContentLength = 50 << 20
	hr.Header.Set("Authorization", "Bearer "+w.owner.Token)
	hr.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	rec = httptest.NewRecorder()
	e.handler.ServeHTTP(rec, hr)
	requireStatus(t, &resp{Code: rec.Code, Body: rec.Body.Bytes(), Header: rec.Header()}, http.StatusRequestEntityTooLarge)
	require.Zero(t, u.read.Load())
}

func TestAttachmentBadRequests(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)
	post := func(body []byte, ct string) *resp {
		h := map[string]string{}
		if ct != "" {
			h["Content-Type"] = ct
		}
		return e.send(req{Method: "POST", Path: w.card + "/attachments", Token: w.owner.Token, Body: body, Header: h})
	}

	// No part named file.
	body, ct := multipartFile(t, "", "", "", nil, map[string]string{"note": "no file here"})
	requireStatus(t, post(body, ct), http.StatusBadRequest)
	body, ct = multipartFile(t, "document", "a.txt", "", []byte("wrong field"), nil)
	r := post(body, ct)
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, `"file"`)

	// Not multipart at all.
	requireStatus(t, post([]byte(`{"file":"x"}`), "application/json"), http.StatusUnsupportedMediaType)
	requireStatus(t, post([]byte("x"), "multipart/form-data"), http.StatusUnsupportedMediaType) // no boundary
	requireStatus(t, e.send(req{Method: "POST", Path: w.card + "/attachments", Token: w.owner.Token}),
		http.StatusUnsupportedMediaType)

	// Malformed or truncated multipart.
	requireStatus(t, post([]byte("garbage without any boundary"), "multipart/form-data; boundary=xyz"),
		http.StatusBadRequest)
	body, ct = multipartFile(t, "file", "cut.txt", "", bytes.Repeat([]byte("z"), 4000), nil)
	requireStatus(t, post(body[:len(body)-100], ct), http.StatusBadRequest)

	require.Equal(t, 0, e.count(`SELECT count(*) FROM attachments`))
	require.Empty(t, e.files())
	_, n := e.cardCounts(w.owner, w.card)
	require.Equal(t, 0, n)
}

func TestAttachmentFilenames(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)
	longStem := strings.Repeat("n", 300)
	for _, tc := range []struct{ given, stored, disposition string }{
		{`..\..\windows\evil.txt`, "evil.txt", `attachment; filename="evil.txt"`},
		{"/etc/passwd", "passwd", `attachment; filename="passwd"`},
		{"..", "file", `attachment; filename="file"`},
		{"", "file", `attachment; filename="file"`},
		{"tab\there\u202Egpj.exe", "tabheregpj.exe", `attachment; filename="tabheregpj.exe"`},
		{`say "hi".txt`, `say "hi".txt`, `attachment; filename="say _hi_.txt"; filename*=UTF-8''say%20%22hi%22.txt`},
		{"résumé 2026.pdf", "résumé 2026.pdf",
			`attachment; filename="r_sum_ 2026.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%202026.pdf`},
		{longStem + ".txt", longStem[:251] + ".txt", `attachment; filename="` + longStem[:251] + `.txt"`},
	} {
		r := e.upload(w.owner.Token, w.card, tc.given, "", []byte("content"))
		requireStatus(t, r, http.StatusCreated)
		att := decode[AttachmentOut](t, r)
		require.Equal(t, tc.stored, att.OriginalName, "given %q", tc.given)
		r = e.do("GET", w.card+"/attachments/"+att.ID, w.owner.Token, nil)
		require.Equal(t, http.StatusOK, r.Code)
		require.Equal(t, tc.disposition, r.Header.Get("Content-Disposition"), "given %q", tc.given)
		require.Equal(t, "content", string(r.Body))
	}
}

func TestAttachmentNotFoundPaths(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)
	otherCard := w.prj + "/cards/" + e.card(w.owner, w.prj, w.cols[1], "Another card").ID
	r := e.upload(w.owner.Token, otherCard, "other.txt", "", []byte("on the other card"))
	requireStatus(t, r, http.StatusCreated)
	otherAtt := decode[AttachmentOut](t, r).ID

	// An attachment of another card is not found under this card, and is left alone.
	requireStatus(t, e.do("GET", w.card+"/attachments/"+otherAtt, w.owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", w.card+"/attachments/"+otherAtt, w.owner.Token, nil), http.StatusNotFound)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM attachments WHERE id = $1`, otherAtt))
	require.Equal(t, []string{otherAtt}, e.files())
	_, n := e.cardCounts(w.owner, w.card)
	require.Equal(t, 0, n, "a refused delete does not move the count")

	// A card of another project of the same workspace.
	prj2, _ := e.project(w.owner, "Elsewhere")
	wrongCard := prj2 + "/cards/" + w.cardID
	requireStatus(t, e.do("GET", wrongCard+"/attachments", w.owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.upload(w.owner.Token, wrongCard, "x.txt", "", []byte("x")), http.StatusNotFound)
	requireStatus(t, e.do("GET", prj2+"/cards/"+w.cardID+"/attachments/"+otherAtt, w.owner.Token, nil),
		http.StatusNotFound)

	// Unknown and malformed ids.
	missing := "0195f0a2-7b3c-7def-8abc-0123456789ab"
	requireStatus(t, e.do("GET", w.prj+"/cards/"+missing+"/attachments", w.owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.upload(w.owner.Token, w.prj+"/cards/"+missing, "x.txt", "", []byte("x")), http.StatusNotFound)
	requireStatus(t, e.do("GET", w.card+"/attachments/"+missing, w.owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", w.card+"/attachments/"+missing, w.owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", w.card+"/attachments/not-a-uuid", w.owner.Token, nil), http.StatusNotFound)

	// Someone outside the workspace sees nothing, even through their own workspace's path.
	outsider := e.register("outsider@example.com")
	requireStatus(t, e.do("GET", w.card+"/attachments", outsider.Token, nil), http.StatusNotFound)
	requireStatus(t, e.upload(outsider.Token, w.card, "x.txt", "", []byte("x")), http.StatusNotFound)
	ownPrj, _ := e.project(outsider, "Mine")
	requireStatus(t, e.do("GET", ownPrj+"/cards/"+w.cardID+"/attachments", outsider.Token, nil), http.StatusNotFound)
	requireStatus(t, e.upload(outsider.Token, ownPrj+"/cards/"+w.cardID, "x.txt", "", []byte("x")), http.StatusNotFound)
	ownOther := ownPrj + "/cards/" + strings.TrimPrefix(otherCard, w.prj+"/cards/")
	requireStatus(t, e.do("GET", ownOther+"/attachments/"+otherAtt, outsider.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", ownOther+"/attachments/"+otherAtt, outsider.Token, nil), http.StatusNotFound)

	require.Equal(t, 1, e.count(`SELECT count(*) FROM attachments`))
	require.Equal(t, []string{otherAtt}, e.files(), "refused uploads store nothing")
	requireStatus(t, e.do("GET", w.card+"/attachments", "", nil), http.StatusUnauthorized)
}

func TestAttachmentDeletePermissions(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)
	r := e.upload(w.member.Token, w.card, "a.txt", "", []byte("a"))
	requireStatus(t, r, http.StatusCreated)
	a := w.card + "/attachments/" + decode[AttachmentOut](t, r).ID
	r = e.upload(w.member.Token, w.card, "b.txt", "", []byte("b"))
	requireStatus(t, r, http.StatusCreated)
	b := w.card + "/attachments/" + decode[AttachmentOut](t, r).ID

	requireStatus(t, e.do("DELETE", a, w.other.Token, nil), http.StatusForbidden)
	require.Len(t, e.files(), 2)
	_, n := e.cardCounts(w.owner, w.card)
	require.Equal(t, 2, n)

	requireStatus(t, e.do("DELETE", a, w.owner.Token, nil), http.StatusOK)  // a workspace admin
	requireStatus(t, e.do("DELETE", b, w.member.Token, nil), http.StatusOK) // the uploader
	require.Empty(t, e.files())
	_, n = e.cardCounts(w.owner, w.card)
	require.Equal(t, 0, n)
}

func TestAttachmentsTokenScopes(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)
	r := e.upload(w.owner.Token, w.card, "a.txt", "", []byte("readable"))
	requireStatus(t, r, http.StatusCreated)
	att := w.card + "/attachments/" + decode[AttachmentOut](t, r).ID

	read := e.pat(w.owner, []string{"projects:read"})
	r = e.do("GET", w.card+"/attachments", read, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]AttachmentOut](t, r), 1)
	r = e.do("GET", att, read, nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.Equal(t, "readable", string(r.Body))
	requireStatus(t, e.upload(read, w.card, "b.txt", "", []byte("b")), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", att, read, nil), http.StatusForbidden)
	require.Len(t, e.files(), 1)

	write := e.pat(w.owner, []string{"projects:write"})
	requireStatus(t, e.upload(write, w.card, "b.txt", "", []byte("b")), http.StatusCreated)
	requireStatus(t, e.do("DELETE", att, write, nil), http.StatusOK)
}

// deletingStorage deletes the card (as a concurrent request could) right after storing a file, so
// the attachment's transaction fails after the file exists.
type deletingStorage struct {
	storage.Storage
	afterPut func()
	deleted  []string
}

func (d *deletingStorage) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	n, err := d.Storage.Put(ctx, key, r)
	if err == nil {
		d.afterPut()
	}
	return n, err
}

func (d *deletingStorage) Delete(ctx context.Context, key string) error {
	d.deleted = append(d.deleted, key)
	return d.Storage.Delete(ctx, key)
}

func TestAttachmentFailedTransactionDeletesFile(t *testing.T) {
	t.Parallel()
	var cardID string
	var ds *deletingStorage
	var e *attachmentEnv
	e = attachmentSetupWith(t, func(st storage.Storage) storage.Storage {
		ds = &deletingStorage{Storage: st, afterPut: func() {
			_, err := e.pool.Exec(context.Background(), `DELETE FROM cards WHERE id = $1`, cardID)
			require.NoError(t, err)
		}}
		return ds
	})
	w := commentSetup(t, e.testEnv)
	cardID = w.cardID
	r := e.upload(w.owner.Token, w.card, "doomed.txt", "", []byte("doomed"))
	requireStatus(t, r, http.StatusNotFound)
	require.Len(t, ds.deleted, 1, "the stored file is deleted again")
	require.Empty(t, e.files())
	require.Equal(t, 0, e.count(`SELECT count(*) FROM attachments`))
	require.Equal(t, 0,
		e.count(`SELECT count(*) FROM activities WHERE type = 'card_updated' AND meta->'fields' = '["attachments"]'::jsonb`))
}

func TestAttachmentMissingFileAnswers404(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)
	r := e.upload(w.owner.Token, w.card, "gone.txt", "", []byte("gone"))
	requireStatus(t, r, http.StatusCreated)
	id := decode[AttachmentOut](t, r).ID
	require.NoError(t, os.Remove(filepath.Join(e.dir, id)))
	requireStatus(t, e.do("GET", w.card+"/attachments/"+id, w.owner.Token, nil), http.StatusNotFound)
	// The row can still be deleted.
	requireStatus(t, e.do("DELETE", w.card+"/attachments/"+id, w.owner.Token, nil), http.StatusOK)
}

func TestAttachmentUploadDocumented(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do("GET", "/api/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, r.Code)
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody *struct {
				Content map[string]struct {
					Schema struct {
						Type       string                    `json:"type"`
						Required   []string                  `json:"required"`
						Properties map[string]map[string]any `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
			Responses map[string]struct {
				Content map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	path := "/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/attachments"
	post := doc.Paths[path]["post"]
	require.NotNil(t, post.RequestBody)
	mp, ok := post.RequestBody.Content["multipart/form-data"]
	require.True(t, ok, "upload documents a multipart body")
	require.Equal(t, "object", mp.Schema.Type)
	require.Equal(t, []string{"file"}, mp.Schema.Required)
	require.Equal(t, any("binary"), mp.Schema.Properties["file"]["format"])
	require.Contains(t, post.Responses, "413")
	get := doc.Paths[path+"/{attachmentId}"]["get"]
	require.Contains(t, get.Responses["200"].Content, "*/*", "the file's own type")
}

// TestAttachmentOverRealHTTP streams an upload through a real HTTP server and connection (read
// deadline, MaxBytesReader and chunked request bodies behave there as in production).
func TestAttachmentOverRealHTTP(t *testing.T) {
	t.Parallel()
	e := attachmentSetup(t)
	w := commentSetup(t, e.testEnv)
	srv := httptest.NewServer(e.handler)
	t.Cleanup(srv.Close)

	data := randomBytes(t, 3<<20)
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("file", "streamed.bin")
		if err == nil {
			_, err = part.Write(data)
		}
		if err == nil {
			err = mw.Close()
		}
		_ = pw.CloseWithError(err)
	}()
	hr, err := http.NewRequest("POST", srv.URL+w.card+"/attachments", pr) // unknown length: sent chunked
	require.NoError(t, err)
	hr.Header.Set("Authorization", "Bearer "+w.owner.Token)
	hr.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := srv.Client().Do(hr)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusCreated, res.StatusCode, "body: %s", body)
	att := decodeJSON[AttachmentOut](t, body)
	require.Equal(t, int64(len(data)), att.Size)

	dl, err := http.NewRequest("GET", srv.URL+w.card+"/attachments/"+att.ID, nil)
	require.NoError(t, err)
	dl.Header.Set("Authorization", "Bearer "+w.owner.Token)
	res, err = srv.Client().Do(dl)
	require.NoError(t, err)
	got, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, int64(len(data)), res.ContentLength)
	require.True(t, bytes.Equal(data, got))
}

// Package web is the web app for people: a single page of plain ES modules (static/), embedded in the
// binary and served by the api process at /. It calls the public REST API with the session cookie and
// X-CSRF-Token, and the live streams with EventSource; nothing is loaded from another origin.
//
// The api mounts Assets at AssetPrefix and answers Page for the app's routes (see Owns) and, for a
// browser's GET (Accept: text/html), for any path the API does not own.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var static embed.FS

// AssetPrefix is the path under which the app's files are served.
const AssetPrefix = "/static/"

// CSP is the Content-Security-Policy of the app's page and files: scripts, styles and connections to
// this origin only, no inline script or style, images from this origin or data:/blob: URLs (previews of
// uploads), no framing, no <base>, forms posting here only.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src " +
	"'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// asset is one embedded file, with its gzip encoding when that is smaller.
type asset struct {
	body, gz    []byte
	contentType string
	etag        string
}

var assets = load()

func load() map[string]*asset {
	out := map[string]*asset{}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		a := &asset{body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, contentType: contentType(p)}
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		_, _ = w.Write(b)
		_ = w.Close()
		if z.Len() < len(b) {
			a.gz = z.Bytes()
		}
		out[strings.TrimPrefix(p, "static/")] = a
		return nil
	})
	if err != nil {
		panic("web: read embedded files: " + err.Error())
	}
	return out
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".html":
		return "text/html; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".ico":
		return "image/vnd.microsoft.icon"
	case "":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Assets serves the app's files under AssetPrefix: revalidated on each use (Cache-Control: no-cache
// with an ETag, so a new binary's files are seen at once and unchanged ones cost a 304), gzip-encoded
// when the browser accepts it. Unknown files answer a plain 404.
func Assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, AssetPrefix)
		a, ok := assets[name]
		if !ok || name == "index.html" {
			http.NotFound(w, r)
			return
		}
		serve(w, r, a)
	})
}

// Page answers the app's page (index.html): the app reads the path and shows its screen.
func Page(w http.ResponseWriter, r *http.Request) {
	serve(w, r, assets["index.html"])
}

// Favicon answers the app's icon (static/favicon.ico, drawn from static/icon.svg) at /favicon.ico, where
// a browser looks for a page's icon when the page names none (the API's docs page).
func Favicon(w http.ResponseWriter, r *http.Request) {
	serve(w, r, assets["favicon.ico"])
}

func serve(w http.ResponseWriter, r *http.Request, a *asset) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	h.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && match == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if a.gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		if strings.TrimSpace(strings.SplitN(part, ";", 2)[0]) == "gzip" {
			return true
		}
	}
	return false
}

// WantsPage reports whether r is a browser's navigation: a GET or HEAD whose Accept names text/html.
// The api answers the app's page to such a request for a path it does not own, and its JSON 404
// otherwise.
func WantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// Routes are the app's own paths, which answer its page whatever the Accept header: the root, the
// pages the e-mails link to, and the screens. A trailing "/*" matches the rest of the path. None of
// them is a path of the API; the invitation links are the API's POST paths, answered here for GET.
var Routes = []string{
	"/", "/sign-in", "/sign-up", "/sign-out", "/forgot-password", "/reset-password", "/verify-email",
	"/invitations/{token}/accept", "/organization-invitations/{token}/accept", "/w/*",
	"/settings", "/settings/*",
}

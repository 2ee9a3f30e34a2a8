package api

// The OpenAPI document and the docs page that renders it. The page's assets (Stoplight Elements) are
// embedded in the binary (api/docsui) and served from here, so the page needs nothing but this origin.

import (
	"embed"
	"net/http"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2/yaml"
	"github.com/go-chi/chi/v5"
)

//go:embed docsui/web-components.min.js docsui/styles.min.css docsui/LICENSE docsui/web-components.min.js.LICENSE.txt
var docsUI embed.FS

// elementsVersion names the assets' path, so that a new version is a new URL (they are cached a year).
const elementsVersion = "elements-9.0.15"

const docsAssets = "/api/docs/" + elementsVersion + "/"

// docsCSP lets the page load its script and styles from this origin only; Elements sets inline styles.
const docsCSP = "default-src 'none'; base-uri 'none'; connect-src 'self'; form-action 'none'; frame-ancestors " +
	"'none'; img-src 'self' data:; font-src 'self' data:; script-src 'self'; style-src 'self' 'unsafe-inline'"

const docsPage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="referrer" content="no-referrer">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Pilot API Reference</title>
    <link rel="stylesheet" href="` + docsAssets + `styles.min.css">
    <script src="` + docsAssets + `web-components.min.js"></script>
  </head>
  <body style="height: 100vh;">
    <elements-api apiDescriptionUrl="/api/openapi.json" router="hash" layout="sidebar"
      tryItCredentialsPolicy="same-origin"></elements-api>
  </body>
</html>
`

// publishedDoc renders the published OpenAPI document once, on first use.
type publishedDoc struct {
	once       sync.Once
	json, yaml []byte
	err        error
}

func (s *Server) openAPIJSON() ([]byte, error) {
	s.published.once.Do(func() {
		s.published.json, s.published.err = publishOpenAPI(s.api.OpenAPI())
		if s.published.err == nil {
			var b strings.Builder
			s.published.err = yaml.Convert(&b, strings.NewReader(string(s.published.json)))
			s.published.yaml = []byte(b.String())
		}
	})
	return s.published.json, s.published.err
}

// mountDocs serves the OpenAPI document (/api/openapi.json and .yaml) and, unless docs is false, the
// docs page (/api/docs) and its assets.
func (s *Server) mountDocs(router chi.Router, docs bool) {
	serveDoc := func(contentType string, pick func() []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if _, err := s.openAPIJSON(); err != nil {
				s.logger.ErrorContext(r.Context(), "openapi document", "error", err)
				writeError(w, http.StatusInternalServerError, "internal server error")
				return
			}
			w.Header().Set("Content-Type", contentType)
			_, _ = w.Write(pick())
		}
	}
	router.Get("/api/openapi.json", serveDoc("application/openapi+json", func() []byte { return s.published.json }))
	router.Get("/api/openapi.yaml", serveDoc("application/openapi+yaml", func() []byte { return s.published.yaml }))
	if !docs {
		return
	}
	router.Get("/api/docs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", docsCSP)
		_, _ = w.Write([]byte(docsPage))
	})
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
		".txt": "text/plain; charset=utf-8", "": "text/plain; charset=utf-8"}
	for _, name := range []string{"web-components.min.js", "styles.min.css", "LICENSE",
		"web-components.min.js.LICENSE.txt"} {
		body, err := docsUI.ReadFile("docsui/" + name)
		if err != nil {
			panic(err) // embedded above
		}
		ext := ""
		if i := strings.LastIndex(name, "."); i >= 0 {
			ext = name[i:]
		}
		contentType := types[ext]
		router.Get(docsAssets+name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			_, _ = w.Write(body)
		})
	}
}

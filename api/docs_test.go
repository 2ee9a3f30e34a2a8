package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/pilot-dev/pilot/db/engines"
	"github.com/stretchr/testify/require"
)

// docsHandler is the api's handler without a database: enough for the document and the docs page.
func docsHandler(t testing.TB, opts Options) http.Handler {
	return newTestHandler(t, engines.New(nil, nil, engines.Options{}), nil, slog.New(slog.DiscardHandler), opts)
}

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

// The docs page loads its script and styles from the api itself (embedded), never from another origin,
// and each is served with its content type.
func TestDocsPageIsSameOrigin(t *testing.T) {
	t.Parallel()
	h := docsHandler(t, Options{})
	r := get(t, h, "/api/docs")
	require.Equal(t, http.StatusOK, r.Code)
	require.Equal(t, "text/html; charset=utf-8", r.Header().Get("Content-Type"))
	page := r.Body.String()
	require.NotContains(t, page, "//", "the page names no other origin: %s", page)
	csp := r.Header().Get("Content-Security-Policy")
	require.Contains(t, csp, "script-src 'self'")
	require.NotContains(t, csp, "https:")

	refs := regexp.MustCompile(`(?:src|href|apiDescriptionUrl)="([^"]+)"`).FindAllStringSubmatch(page, -1)
	want := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
		".json": "application/openapi+json"}
	require.Len(t, refs, 3, "the script, the styles and the document")
	for _, ref := range refs {
		path := ref[1]
		require.True(t, strings.HasPrefix(path, "/api/"), path)
		a := get(t, h, path)
		require.Equal(t, http.StatusOK, a.Code, path)
		ext := path[strings.LastIndex(path, "."):]
		require.Equal(t, want[ext], a.Header().Get("Content-Type"), path)
		require.Equal(t, "nosniff", a.Header().Get("X-Content-Type-Options"), path)
		require.Greater(t, a.Body.Len(), 1000, path)
	}
	require.Equal(t, http.StatusOK, get(t, h, docsAssets+"LICENSE").Code)
}

// Production serves the OpenAPI document and the docs page; API_DOCS=off (NoDocs) turns the page off
// but not the document.
func TestProductionServesOpenAPI(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{Production: true, PublicURL: "https://pilot.example.com"}, {Production: true,
		NoDocs: true, PublicURL: "https://pilot.example.com"}} {
		h := docsHandler(t, opts)
		r := get(t, h, "/api/openapi.json")
		require.Equal(t, http.StatusOK, r.Code)
		var doc struct {
			OpenAPI string                    `json:"openapi"`
			Servers []struct{ URL string }    `json:"servers"`
			Paths   map[string]map[string]any `json:"paths"`
		}
		require.NoError(t, json.Unmarshal(r.Body.Bytes(), &doc))
		require.Equal(t, "3.1.0", doc.OpenAPI)
		require.Equal(t, "https://pilot.example.com", doc.Servers[0].URL)
		require.Contains(t, doc.Paths, "/auth/2fa/verify")
		require.Contains(t, doc.Paths, "/orgs/{orgSlug}/workspaces/{wsSlug}/members/invite")
		y := get(t, h, "/api/openapi.yaml")
		require.Equal(t, http.StatusOK, y.Code)
		require.Contains(t, y.Body.String(), "openapi: 3.1.0")
		if opts.NoDocs {
			require.Equal(t, http.StatusNotFound, get(t, h, "/api/docs").Code)
			require.Equal(t, http.StatusNotFound, get(t, h, docsAssets+"web-components.min.js").Code)
		} else {
			require.Equal(t, http.StatusOK, get(t, h, "/api/docs").Code)
		}
	}
}

// Every property of the published document has a schema: a type, a $ref or a composition. Without a
// PUBLIC_URL the server is "/"; public operations say they need no credentials.
func TestOpenAPIDocumentIsTyped(t *testing.T) {
	t.Parallel()
	b, err := OpenAPIDocument("")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Equal(t, []any{map[string]any{"url": "/"}}, doc["servers"])
	require.NotContains(t, string(b), "patternDescription")

	var untyped []string
	var walk func(s any, at string)
	walk = func(s any, at string) {
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		typed := false
		for _, k := range []string{"type", "$ref", "oneOf", "anyOf", "allOf", "const", "enum"} {
			if _, ok := m[k]; ok {
				typed = true
			}
		}
		if !typed && at != "JSONArray[]" { // any JSON value (jsonSchemas says why it has no $ref)
			untyped = append(untyped, at)
		}
		if ty, ok := m["type"].([]any); ok {
			for _, x := range ty {
				require.NotEmpty(t, x, "%s: an empty type", at)
			}
		}
		props, _ := m["properties"].(map[string]any)
		for k, p := range props {
			walk(p, at+"."+k)
		}
		walk(m["items"], at+"[]")
		if ap, ok := m["additionalProperties"].(map[string]any); ok {
			walk(ap, at+"{}")
		}
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			list, _ := m[k].([]any)
			for _, x := range list {
				walk(x, at+"."+k)
			}
		}
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for name, s := range schemas {
		walk(s, name)
	}
	public := 0
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			o := op.(map[string]any)
			sec, ok := o["security"].([]any)
			require.True(t, ok, "%s %s declares its security", method, path)
			if len(sec) == 0 {
				public++
			}
			for code, r := range o["responses"].(map[string]any) {
				content, _ := r.(map[string]any)["content"].(map[string]any)
				for ct, mt := range content {
					walk(mt.(map[string]any)["schema"], method+" "+path+" "+code+" "+ct)
				}
			}
		}
	}
	require.Empty(t, untyped, "properties without a schema")
	require.Positive(t, public, "public operations say security: []")
}

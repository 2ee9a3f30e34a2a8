package api

// Every answer the tests get from the api is checked against the OpenAPI document the api serves, so that
// the document cannot drift from what the api answers: the status is one the operation lists, the
// content type one that status declares, the headers it declares hold, and a JSON body matches its
// schema (formats included). A mismatch fails the test that made the request. The check wraps the
// test handler (newTestHandler), so requests sent through e.send, e.do, the MCP client, httptest servers
// and direct ServeHTTP calls are all seen.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	validationerrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/responses"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/index"
	"github.com/pb33f/libopenapi/orderedmap"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/web"
)

// newTestHandler is New's handler with every answer checked against the OpenAPI document (checkAnswers);
// mismatches fail t. Tests build their handlers here, never with New directly
// (TestTestHandlersCheckAnswers).
func newTestHandler(t testing.TB, eng *engines.Engines, signer *auth.Signer, logger *slog.Logger,
	opts Options) http.Handler {
	t.Helper()
	return checkAnswers(t, New(eng, signer, billing.Local{PublicURL: "http://pilot.test"}, logger, opts))
}

// openAPISpec is the served document parsed once per test binary, with its response validator.
type openAPISpec struct {
	model     *v3.Document
	responses responses.ResponseBodyValidator
}

var loadOpenAPISpec = sync.OnceValues(func() (*openAPISpec, error) {
	b, err := OpenAPIDocument("")
	if err != nil {
		return nil, err
	}
	doc, err := libopenapi.NewDocument(b)
	if err != nil {
		return nil, err
	}
	m, err := doc.BuildV3Model()
	if m == nil {
		return nil, err
	}
	// libopenapi takes DocumentNodeOut (its required children are DocumentNodeOuts) for an infinite
	// recursion, not seeing that an empty array ends it, and builds the model all the same. Any other error
	// fails.
	if err != nil {
		errs := []error{err}
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			errs = joined.Unwrap()
		}
		for _, e := range errs {
			var re *index.ResolvingError
			if !errors.As(e, &re) || re.CircularReference == nil || re.CircularReference.Start == nil ||
				!strings.HasSuffix(re.CircularReference.Start.Definition, "/DocumentNodeOut") {
				return nil, err
			}
		}
	}
	v := validator.NewValidatorFromV3Model(&m.Model, config.WithFormatAssertions())
	return &openAPISpec{model: &m.Model, responses: v.GetResponseBodyValidator()}, nil
})

// offDocumentKey marks a request that may name a path or method the document does not have: the unknown
// routes and wrong methods a test sends on purpose, the fuzzer's path parameters that leave the route.
// Its answer is not checked against the document when it reaches no documented operation (the test
// checks the error shape itself); an answer to a documented operation is checked as any other.
type offDocumentKey struct{}

// mayLeaveDocument marks ctx's requests as offDocumentKey says.
func mayLeaveDocument(ctx context.Context) context.Context {
	return context.WithValue(ctx, offDocumentKey{}, true)
}

// answerChecker checks the answers of an api handler against the document (checkAnswers).
type answerChecker struct {
	t    testing.TB
	next http.Handler
	mux  *chi.Mux
	spec *openAPISpec

	mu sync.Mutex
	// inFlight counts the requests being served.
	inFlight int
	// reported counts the mismatches reported; past maxReported, they are only counted.
	reported int
	// ended is set when t's cleanup ran: a late answer (a stream's goroutine) can no longer fail t.
	ended bool
}

// maxReported bounds the mismatches reported one by one per handler (the fuzzer sends thousands).
const maxReported = 25

// checkAnswers wraps h, New's handler, so that every answer it gives is checked against the OpenAPI
// document; a mismatch fails t with the operation, the status and the validator's messages.
func checkAnswers(t testing.TB, h http.Handler) http.Handler {
	t.Helper()
	mux, ok := h.(*chi.Mux)
	require.True(t, ok, "checkAnswers needs New's router, not a %T", h)
	spec, err := loadOpenAPISpec()
	require.NoError(t, err, "the OpenAPI document does not load")
	c := &answerChecker{t: t, next: h, mux: mux, spec: spec}
	t.Cleanup(c.end)
	return c
}

// end waits a little for the answers still being served (they report to t while it runs; a stream its
// test left open had its head checked when written), then stops reporting.
func (c *answerChecker) end() {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		c.mu.Lock()
		n := c.inFlight
		c.mu.Unlock()
		if n == 0 {
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reported > maxReported {
		c.t.Errorf("… and %d more answers that do not match the OpenAPI document", c.reported-maxReported)
	}
	c.ended = true
}

// fail reports a mismatch to t.
func (c *answerChecker) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.reported++
	if c.reported <= maxReported {
		c.t.Errorf(format, args...)
	}
}

func (c *answerChecker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.inFlight++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.inFlight--
		c.mu.Unlock()
	}()
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	// The route the router takes for the request is the document's path of the operation (huma registers
	// each operation on the router at its document path).
	pattern := c.mux.Find(chi.NewRouteContext(), r.Method, path)
	var op *v3.Operation
	item := c.spec.model.Paths.PathItems.GetOrZero(pattern)
	if item != nil {
		op = operationOf(item, r.Method)
	}
	if op == nil {
		if !outsideAPI(r, pattern) && r.Context().Value(offDocumentKey{}) == nil {
			c.fail("%s %s is not in the OpenAPI document (route %q); a test that means it marks the request "+
				"with mayLeaveDocument", r.Method, r.URL.Path, pattern)
		}
		c.next.ServeHTTP(w, r)
		return
	}
	aw := &answerWriter{ResponseWriter: w, check: func(a *answerWriter) { c.check(r, item, op, pattern, a) }}
	c.next.ServeHTTP(aw, r)
	aw.finish()
}

// operationOf is item's operation for method, or nil.
func operationOf(item *v3.PathItem, method string) *v3.Operation {
	switch method {
	case http.MethodGet:
		return item.Get
	case http.MethodPost:
		return item.Post
	case http.MethodPut:
		return item.Put
	case http.MethodPatch:
		return item.Patch
	case http.MethodDelete:
		return item.Delete
	case http.MethodHead:
		return item.Head
	case http.MethodOptions:
		return item.Options
	}
	return nil
}

// outsideAPI says whether a request is for the router's routes that are not the API's, which the document
// does not describe by design: the probes, the document itself and its docs page (huma's schemas too;
// production may turn the page off), the web app's files, icon and pages (docs/web.md), the page being also
// the answer to a browser's navigation to a path nobody owns, and CORS preflights, which the CORS
// middleware answers for every path.
func outsideAPI(r *http.Request, pattern string) bool {
	switch {
	case pattern == "/healthz", pattern == "/readyz", pattern == "/api/openapi.json", pattern == "/api/openapi.yaml",
		r.URL.Path == "/api/docs", strings.HasPrefix(r.URL.Path, "/api/docs/"),
		strings.HasPrefix(r.URL.Path, "/api/schemas/"):
		return true
	case r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "":
		return true
	case strings.HasPrefix(pattern, web.AssetPrefix), pattern == "/favicon.ico", slices.Contains(web.Routes, pattern):
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	case pattern == "":
		return web.WantsPage(r)
	}
	return false
}

// check validates one answer of op (at pattern in the document) against the document.
func (c *answerChecker) check(r *http.Request, item *v3.PathItem, op *v3.Operation, pattern string, a *answerWriter) {
	what := fmt.Sprintf("%s %s (%s, %s %s) answered %d %s", r.Method, r.URL.Path, op.OperationId, r.Method, pattern,
		a.status, a.header.Get("Content-Type"))
	// Only a JSON body is checked against its schema. An event stream's body is a sequence of events the
	// document describes as a string: its head is checked when written, its body never. A file (an
	// attachment's download) or a page is not JSON: its status, type and headers are checked, not its bytes.
	// JSON Lines (the audit log's export) is a sequence of JSON values, each checked against the schema
	// the document gives its media type.
	bodies := [][]byte{a.body}
	if strings.HasPrefix(strings.ToLower(a.header.Get("Content-Type")), "application/x-ndjson") {
		bodies = bytes.Split(bytes.TrimSpace(a.body), []byte("\n"))
	}
	var problems []string
	for _, body := range bodies {
		resp := &http.Response{StatusCode: a.status, Header: a.header, Body: http.NoBody, Request: r}
		if len(body) > 0 {
			resp.Body = io.NopCloser(bytes.NewReader(body))
		}
		if _, errs := c.spec.responses.ValidateResponseBodyWithPathItem(r, resp, item, pattern); len(errs) > 0 {
			for _, e := range errs {
				problems = append(problems, validationMessage(e))
			}
		}
	}
	// What the validator leaves out: a body where the answer's status declares none (a 204's).
	if declared := declaredResponse(op, a.status); declared != nil && orderedmap.Len(declared.Content) == 0 &&
		a.wroteBody {
		problems = append(problems, "a body where the document declares none: "+truncate(a.body, 300))
	}
	if len(problems) > 0 {
		c.fail("%s, which does not match the OpenAPI document:\n  %s\n  body: %s", what,
			strings.Join(problems, "\n  "), truncate(a.body, 600))
	}
}

// declaredResponse is the response op declares for status (its code, its range or the default), or nil.
func declaredResponse(op *v3.Operation, status int) *v3.Response {
	if op.Responses == nil {
		return nil
	}
	for _, code := range []string{fmt.Sprint(status), fmt.Sprintf("%dXX", status/100)} {
		if r := op.Responses.Codes.GetOrZero(code); r != nil {
			return r
		}
	}
	return op.Responses.Default
}

// validationMessage is one of the validator's findings, with the schema failures it lists.
func validationMessage(e *validationerrors.ValidationError) string {
	msg := e.Message
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	for _, f := range e.SchemaValidationErrors {
		loc := f.FieldPath
		if loc == "" {
			loc = "/" + strings.Join(f.InstancePath, "/")
		}
		msg += fmt.Sprintf("\n    at %s (schema %s): %s", loc, f.KeywordLocation, f.Reason)
	}
	return msg
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// answerWriter records an answer's status, head and body for answerChecker while passing it through.
type answerWriter struct {
	http.ResponseWriter
	check func(*answerWriter)

	status      int
	header      http.Header
	wroteHeader bool
	// stream is set for an event stream: checked when its head is written, its body never kept.
	stream bool
	// json is set for a JSON answer, the only body kept (answerChecker.check).
	json      bool
	wroteBody bool
	body      []byte
	checked   bool
}

func (w *answerWriter) WriteHeader(code int) {
	if !w.wroteHeader && code >= 200 {
		w.wroteHeader = true
		w.status = code
		w.header = w.ResponseWriter.Header().Clone()
		ct := strings.ToLower(w.header.Get("Content-Type"))
		w.stream = strings.HasPrefix(ct, "text/event-stream")
		w.json = strings.Contains(ct, "json")
		if w.stream {
			w.checked = true
			w.check(w) // status, content type and headers: a stream may run past its test
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *answerWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if len(b) > 0 {
		w.wroteBody = true
	}
	if w.json {
		w.body = append(w.body, b...)
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what was written (event streams); the head first, as net/http does.
func (w *answerWriter) Flush() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection (write deadlines, flushes).
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish checks the answer once the handler returned.
func (w *answerWriter) finish() {
	if w.checked {
		return
	}
	if !w.wroteHeader { // nothing written: net/http answers 200 with no body
		w.status, w.header, w.wroteHeader = http.StatusOK, w.ResponseWriter.Header().Clone(), true
	}
	w.checked = true
	w.check(w)
}

// TestTestHandlersCheckAnswers: the tests build their api handlers with newTestHandler, so that every
// answer they get is checked against the document. Benchmarks build theirs with New: checking would
// weigh on what they measure.
func TestTestHandlersCheckAnswers(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_bench_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "newTestHandler" {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "New" {
						t.Errorf("%s: the api handler is built with New; use newTestHandler, which checks its answers",
							fset.Position(call.Pos()))
					}
				}
				return true
			})
		}
	}
}

// recordingTB is a testing.TB whose Errorf records the failure instead of failing the test.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// take answers the failures recorded since the last take.
func (r *recordingTB) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	errs := r.errors
	r.errors = nil
	return errs
}

// TestAnswerCheckerFindsMismatches: checkAnswers fails the test on an answer the document does not
// describe (a status not listed, a content type not declared, a body not of its schema, a body where
// none is declared, a path not in the document) and not on one it does, nor on the routes outside the
// API or a request marked mayLeaveDocument.
func TestAnswerCheckerFindsMismatches(t *testing.T) {
	t.Parallel()
	rec := &recordingTB{TB: t}
	// A router whose routes answer what the request asks for (X-Status, X-Type, X-Body).
	mux := chi.NewRouter()
	answer := func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("X-Type"); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		code := http.StatusOK
		_, _ = fmt.Sscan(r.Header.Get("X-Status"), &code)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, r.Header.Get("X-Body"))
	}
	mux.Post("/auth/login", answer)
	mux.Get("/mcp", answer)
	mux.Delete("/mcp", answer)
	mux.Get("/healthz", answer)
	mux.NotFound(answer)
	h := checkAnswers(rec, mux)
	const errorBody = `{"statusCode":401,"message":"invalid e-mail or password","error":"Unauthorized"}`
	send := func(ctx context.Context, method, path string, code int, contentType, body string) []string {
		r := httptest.NewRequestWithContext(ctx, method, path, nil)
		r.Header.Set("X-Status", fmt.Sprint(code))
		r.Header.Set("X-Type", contentType)
		r.Header.Set("X-Body", body)
		h.ServeHTTP(httptest.NewRecorder(), r)
		return rec.take()
	}
	ctx := context.Background()

	require.Empty(t, send(ctx, "POST", "/auth/login", 401, "application/json", errorBody))
	require.Empty(t, send(ctx, "GET", "/mcp", 200, "text/event-stream", ": ok\n\n"))
	require.Empty(t, send(ctx, "DELETE", "/mcp", 204, "", ""))
	require.Empty(t, send(ctx, "GET", "/healthz", 200, "application/json", `{"status":"ok"}`), "a probe")
	require.Empty(t, send(mayLeaveDocument(ctx), "GET", "/no/such/route", 404, "application/json", errorBody))

	for _, tc := range []struct {
		name, method, path string
		code               int
		contentType, body  string
		want               string
	}{
		{"a status not listed", "POST", "/auth/login", 418, "application/json", errorBody, "418"},
		{"a content type not declared", "POST", "/auth/login", 401, "text/plain", "no", "text/plain"},
		{"a body not of its schema", "POST", "/auth/login", 401, "application/json", `{"message":1}`, "message"},
		{"no body where one is declared", "POST", "/auth/login", 401, "application/json", "", "missing"},
		{"a stream's content type", "GET", "/mcp", 200, "application/json", "{}", "application/json"},
		{"a body where none is declared", "DELETE", "/mcp", 204, "", "x", "declares none"},
		{"a path not in the document", "GET", "/no/such/route", 404, "application/json", errorBody, "not in the"},
	} {
		errs := send(ctx, tc.method, tc.path, tc.code, tc.contentType, tc.body)
		require.Len(t, errs, 1, tc.name)
		require.Contains(t, errs[0], tc.want, tc.name)
	}
}

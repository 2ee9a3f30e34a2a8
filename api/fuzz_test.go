package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
)

// TestFuzzEveryOperation walks the OpenAPI document and sends every operation valid, boundary and
// invalid input as an attacker tenant: each path parameter replaced by garbage, by ids that do not
// exist and by the victim tenant's ids; bodies with missing required fields, wrong types, oversized
// and NUL-carrying strings, unicode, nulls, extra fields and non-objects; query parameters of the
// wrong type or out of range. It asserts that nothing answers 5xx, that every 4xx has the error shape,
// that no request naming a victim's id succeeds, and that no answer carries the victim's data.
//
// FUZZ_ROUNDS (default 1; `make fuzz` runs more) repeats the random mutations with new seeds.
func TestFuzzEveryOperation(t *testing.T) {
	t.Parallel()
	rounds := 1
	if v := os.Getenv("FUZZ_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "FUZZ_ROUNDS")
		rounds = n
	}
	e := setup(t)
	victim := fuzzSeed(t, e, "victim")
	attacker := fuzzSeed(t, e, "attacker")
	// What both tenants have (the personal workspace's slug, say) is not the victim's data.
	victim.markers = slices.DeleteFunc(victim.markers, func(m string) bool {
		for _, v := range attacker.ids {
			if v == m {
				return true
			}
		}
		return false
	})
	r := e.do("GET", "/api/openapi.json", "", nil)
	requireStatus(t, r, http.StatusOK)
	var doc fuzzDoc
	require.NoError(t, json.Unmarshal(r.Body, &doc))

	ops := doc.operations()
	require.Greater(t, len(ops), 50, "the walk found too few operations")
	f := &fuzzer{t: t, e: e, doc: doc, victim: victim, attacker: attacker}
	for round := range rounds {
		f.rng = rand.New(rand.NewPCG(uint64(round), 42))
		for _, op := range ops {
			f.operation(op)
		}
	}
	t.Logf("fuzz: %d operations, %d requests, %d answered 2xx, %d 4xx", len(ops), f.requests, f.ok, f.clientErrors)
	require.Empty(t, f.failures, "fuzz failures (first of %d): %s\nserver warnings:\n%.4000s", len(f.failures),
		strings.Join(f.failures[:min(len(f.failures), 30)], "\n"), e.logs.String())
}

// fuzzTenant is a user with a workspace holding one of everything, its ids by path parameter name,
// and markers: strings that only its data contains.
type fuzzTenant struct {
	user user
	ids  map[string]string
	// byPath are the ids of routes whose parameter is a bare {id}, keyed by the path's end.
	byPath  map[string]string
	markers []string
}

// id is the tenant's value of op's path parameter name, if it has one.
func (ft fuzzTenant) id(op fuzzOp, name string) (string, bool) {
	if name == "id" {
		for suffix, v := range ft.byPath {
			if strings.Contains(op.Path+"/", suffix+"/") {
				return v, true
			}
		}
	}
	v, ok := ft.ids[name]
	return v, ok
}

// fuzzSeed registers a tenant and creates, through the API, one record for every path parameter the
// walk knows how to fill.
func fuzzSeed(t *testing.T, e *testEnv, name string) fuzzTenant {
	t.Helper()
	marker := "zq" + name + "marker" + db.NewID()[24:]
	u := e.register(name + "@example.com")
	ft := fuzzTenant{user: u, ids: map[string]string{"orgSlug": u.OrgSlug, "wsSlug": u.WsSlug, "userId": u.ID},
		markers: []string{marker, u.Email}}
	ws := wsOf(u)
	must := func(method, path string, body any, code int) map[string]any {
		r := e.do(method, path, u.Token, body)
		requireStatus(t, r, code)
		var out map[string]any
		_ = json.Unmarshal(r.Body, &out)
		return out
	}
	id := func(m map[string]any) string { s, _ := m["id"].(string); return s }
	prj := must("POST", ws+"/projects", map[string]any{"name": "Project " + marker, "description": marker},
		http.StatusCreated)
	ft.ids["projectId"] = id(prj)
	p := ws + "/projects/" + id(prj)
	col := must("POST", p+"/columns", map[string]any{"name": "Col " + marker}, http.StatusCreated)
	ft.ids["columnId"] = id(col)
	card := must("POST", p+"/columns/"+id(col)+"/cards", map[string]any{"title": "Card " + marker, "description": marker},
		http.StatusCreated)
	ft.ids["cardId"] = id(card)
	other := must("POST", p+"/cards", map[string]any{"title": "Other " + marker}, http.StatusCreated)
	c := p + "/cards/" + id(card)
	ft.ids["commentId"] = id(must("POST", c+"/comments", map[string]any{"content": "Comment " + marker},
		http.StatusCreated))
	ft.ids["itemId"] = id(must("POST", c+"/checklist", map[string]any{"title": "Item " + marker}, http.StatusCreated))
	ft.ids["labelId"] = id(must("POST", p+"/labels", map[string]any{"name": "L" + marker[:10], "color": "#aabbcc"},
		http.StatusCreated))
	ft.ids["fieldId"] = id(must("POST", p+"/custom-fields", map[string]any{"name": "F " + marker, "type": "text"},
		http.StatusCreated))
	ft.ids["scopeId"] = id(must("POST", p+"/scopes", map[string]any{"name": "Scope " + marker}, http.StatusCreated))
	ft.ids["relationId"] = id(must("POST", c+"/relations", map[string]any{"targetCardId": id(other), "type": "blocks"},
		http.StatusCreated))
	ft.ids["ruleId"] = id(must("POST", p+"/automations", map[string]any{"name": "Rule " + marker,
		"trigger": "task_created", "action": map[string]any{"type": "set_priority", "priority": "high"}}, http.StatusCreated))
	ft.ids["agentId"] = id(must("POST", ws+"/agents", map[string]any{"name": "Agent " + marker, "slug": "agent-" + name},
		http.StatusCreated))
	ft.ids["missionId"] = id(must("POST", ws+"/agents/"+ft.ids["agentId"]+"/missions", map[string]any{"cardId": id(card),
		"prompt": marker}, http.StatusCreated))
	wsID := id(must("GET", ws, nil, http.StatusOK))
	ft.ids["documentId"] = id(must("POST", ws+"/documents", map[string]any{"title": "Doc " + marker, "content": marker,
		"contextType": "workspace", "contextId": wsID}, http.StatusCreated))
	ft.ids["draftId"] = id(must("POST", ws+"/project-drafts", map[string]any{"name": "Draft " + marker},
		http.StatusCreated))
	ft.ids["pipelineId"] = id(must("POST", ws+"/pipelines", map[string]any{"name": "Pipeline " + marker, "enabled": true,
		"steps": []map[string]any{{"id": "a", "type": "notify", "params": map[string]any{"projectId": id(prj),
			"message": marker}}}}, http.StatusCreated))
	ft.ids["runId"] = id(must("POST", ws+"/pipelines/"+ft.ids["pipelineId"]+"/runs", nil, http.StatusCreated))
	// {id} names a different record on each route: keyed by the path segment before it.
	ft.byPath = map[string]string{}
	for _, rec := range []struct{ path, key string }{{"missions", "objective"}, {"priorities", "label"}, {"todos",
		"label"}, {"decisions", "title"}, {"docs", "title"}} {
		ft.byPath["/pilotage/"+rec.path+"/{id}"] = id(must("POST", ws+"/pilotage/"+rec.path,
			map[string]any{rec.key: "P " + marker}, http.StatusCreated))
	}
	ft.byPath["/pilotage/actions/{id}"] = id(must("POST", ws+"/pilotage/actions/propose",
		map[string]any{"actionType": "create_todo", "explanation": marker, "payload": map[string]any{"label": "T " + marker}},
		http.StatusCreated))
	hook := must("POST", ws+"/webhooks", map[string]any{"url": "http://receiver.test/" + marker,
		"events": []string{"card_created"}}, http.StatusCreated)
	ft.ids["webhookId"] = id(hook)
	ft.ids["deliveryId"] = id(must("POST", ws+"/webhooks/"+id(hook)+"/test", nil, http.StatusAccepted))
	tok := must("POST", "/api-tokens", map[string]any{"name": "Token " + marker}, http.StatusCreated)
	ft.ids["id"] = id(tok)
	inv := must("POST", ws+"/members/invite", map[string]any{"email": "invitee-" + name + "@example.com"},
		http.StatusCreated)
	ft.ids["token"], _ = inv["token"].(string)
	ft.ids["invitationId"], _ = inv["id"].(string)
	// A provider's identity linked to the account (no provider is configured: its routes answer 404 pages).
	link, err := e.eng.Identity.SignInExternal(context.Background(), identity.ExternalSignIn{Provider: "corp",
		Subject: "sub-" + name, Email: u.Email, EmailVerified: true})
	require.NoError(t, err)
	ft.ids["identityId"], ft.ids["provider"] = link.Identity.ID, "corp"
	for _, v := range ft.byPath {
		ft.markers = append(ft.markers, v)
	}
	for _, v := range ft.ids {
		if len(v) >= 8 { // slugs and ids; short common words would match by chance
			ft.markers = append(ft.markers, v)
		}
	}
	return ft
}

// fuzzDoc is the part of the OpenAPI document the walk reads.
type fuzzDoc struct {
	Paths      map[string]map[string]fuzzOp `json:"paths"`
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

type fuzzOp struct {
	Method, Path string
	OperationID  string         `json:"operationId"`
	Parameters   []fuzzParam    `json:"parameters"`
	RequestBody  map[string]any `json:"requestBody"`
	// Security is empty (not absent) on a public operation.
	Security []map[string][]string `json:"security"`
}

type fuzzParam struct {
	Name     string         `json:"name"`
	In       string         `json:"in"`
	Required bool           `json:"required"`
	Schema   map[string]any `json:"schema"`
}

// operations lists every operation: reads first, then writes, deletes last, and among them the ones
// that end the attacker's session or tenancy at the very end, so that the walk keeps its footing.
func (d fuzzDoc) operations() []fuzzOp {
	var ops []fuzzOp
	for path, methods := range d.Paths {
		for method, op := range methods {
			op.Method, op.Path = strings.ToUpper(method), path
			ops = append(ops, op)
		}
	}
	rank := func(op fuzzOp) int {
		r := map[string]int{"GET": 0, "POST": 1, "PUT": 1, "PATCH": 1, "DELETE": 2}[op.Method]
		if strings.HasPrefix(op.Path, "/auth") || strings.HasPrefix(op.Path, "/api-tokens") ||
			op.Path == "/organizations/{orgSlug}" || op.Path == pathWorkspace {
			r += 3 // the workspace's PATCH may change its slug, its DELETE ends it
		}
		if op.Method == "DELETE" && op.Path == pathProject {
			r++ // after the deletes of what is in the project
		}
		return r
	}
	slices.SortFunc(ops, func(a, b fuzzOp) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a.Method+a.Path, b.Method+b.Path)
	})
	return ops
}

type fuzzer struct {
	t                *testing.T
	e                *testEnv
	doc              fuzzDoc
	rng              *rand.Rand
	victim, attacker fuzzTenant

	requests, ok, clientErrors int
	failures                   []string
}

// badPathValues replace a path parameter; none names an existing record of the attacker.
var badPathValues = []string{"", "not-an-id", "00000000-0000-0000-0000-000000000000",
	"0197a0b2-7c3e-7000-8000-000000000000", "ünïcödé-漢字", "a\x00b", strings.Repeat("x", 2000), "..", "%2e%2e", "1 OR 1=1",
	"-1", "9999999999999999999999"}

// badStrings replace string values in bodies and queries.
var badStrings = []string{"", " ", "\x00", "nul\x00inside", "ünïcödé 漢字 🚀", strings.Repeat("é", 300),
	strings.Repeat("x", 100_001), "<script>alert(1)</script>", "'; DROP TABLE cards; --", "2026-13-45T25:61:61Z", "-1",
	"1e309"}

func (f *fuzzer) operation(op fuzzOp) {
	params := f.pathValues(op, nil)
	body := f.validBody(op)
	// As is, with the attacker's own records.
	f.send(op, params, nil, body, false)
	// Each path parameter: garbage, and the victim's record.
	for _, p := range op.Parameters {
		if p.In != "path" {
			continue
		}
		for _, bad := range badPathValues {
			f.send(op, f.pathValues(op, map[string]string{p.Name: bad}), nil, body, false)
		}
		// A public operation's token is its credential (an invitation's link): whoever holds the victim's
		// may read what it opens, as the victim would.
		if p.Name == "token" && op.Security != nil && len(op.Security) == 0 {
			continue
		}
		if v, ok := f.victim.id(op, p.Name); ok {
			if own, _ := f.attacker.id(op, p.Name); v != own {
				f.send(op, f.pathValues(op, map[string]string{p.Name: v}), nil, body, true)
			}
		}
	}
	// Query parameters of the wrong type or out of range.
	for _, p := range op.Parameters {
		if p.In != "query" {
			continue
		}
		for _, bad := range []string{"abc", "-1", "0", "99999999999", "1.5", "true", "\x00", strings.Repeat("q", 5000),
			"ünï"} {
			f.send(op, params, url.Values{p.Name: {bad}}, body, false)
		}
	}
	// Bodies.
	if op.RequestBody == nil {
		return
	}
	for _, raw := range []string{"", "null", "[]", `"text"`, "42", "{", `{"a":`, "{}", `{"unknownField":1}`} {
		f.sendRaw(op, params, nil, []byte(raw))
	}
	schema := f.bodySchema(op)
	if schema == nil {
		return
	}
	obj, _ := body.(map[string]any)
	for name, prop := range f.properties(schema) {
		for _, v := range f.badValues(prop) {
			f.send(op, params, nil, with(obj, name, v), false)
		}
		if slices.Contains(f.required(schema), name) {
			f.send(op, params, nil, without(obj, name), false)
		}
	}
	// Victim's ids in the body wherever a field names an id.
	for name := range f.properties(schema) {
		for param, v := range f.victim.ids {
			if strings.EqualFold(name, param) || (strings.HasSuffix(name, "Id") && strings.EqualFold(name,
				strings.TrimSuffix(param, "Id")+"Id")) {
				f.send(op, params, nil, with(obj, name, v), false)
			}
		}
		if strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "Ids") {
			f.send(op, params, nil, with(obj, name, f.victim.ids["cardId"]), false)
		}
	}
}

// pathValues are the attacker's values of op's path parameters, with overrides.
func (f *fuzzer) pathValues(op fuzzOp, override map[string]string) map[string]string {
	out := map[string]string{}
	for _, p := range op.Parameters {
		if p.In != "path" {
			continue
		}
		if v, ok := override[p.Name]; ok {
			out[p.Name] = v
		} else if v, ok := f.attacker.id(op, p.Name); ok {
			out[p.Name] = v
		} else {
			out[p.Name] = db.NewID() // a record no one has
		}
	}
	return out
}

func (f *fuzzer) send(op fuzzOp, params map[string]string, query url.Values, body any, victimID bool) {
	var raw []byte
	if body != nil {
		var err error
		raw, err = json.Marshal(body)
		require.NoError(f.t, err)
	}
	f.check(op, params, query, raw, victimID)
}

func (f *fuzzer) sendRaw(op fuzzOp, params map[string]string, query url.Values, raw []byte) {
	f.check(op, params, query, raw, false)
}

// check sends one request as the attacker and records what is wrong with the answer.
func (f *fuzzer) check(op fuzzOp, params map[string]string, query url.Values, body []byte, victimID bool) {
	path := op.Path
	for name, v := range params {
		path = strings.ReplaceAll(path, "{"+name+"}", url.PathEscape(v))
	}
	target := path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second) // event streams end here
	defer cancel()
	// A garbage path parameter may leave the operation's route (an empty one, say): a path the document
	// does not have, whose answer is checked here (the error shape) rather than against the document.
	ctx = mayLeaveDocument(ctx)
	req := httptest.NewRequestWithContext(ctx, op.Method, "/", bytes.NewReader(body))
	req.URL.Path, req.URL.RawPath, req.URL.RawQuery = pathUnescaped(path), path, query.Encode()
	req.RequestURI = target
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+f.attacker.user.Token)
	rec := httptest.NewRecorder()
	f.e.handler.ServeHTTP(rec, req)
	f.requests++
	what := fmt.Sprintf("%s %s body=%.200q", op.Method, target, body)
	code := rec.Code
	switch {
	case code >= 500:
		f.failures = append(f.failures, fmt.Sprintf("%d on %s: %.300s", code, what, rec.Body.Bytes()))
		return
	case code >= 400:
		f.clientErrors++
		var shape struct {
			StatusCode *int    `json:"statusCode"`
			Message    *string `json:"message"`
			Error      *string `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &shape); err != nil || shape.StatusCode == nil ||
			*shape.StatusCode != code || shape.Message == nil || shape.Error == nil || *shape.Error != http.StatusText(code) {
			f.failures = append(f.failures, fmt.Sprintf("%d without the error shape on %s: %.300s", code, what,
				rec.Body.Bytes()))
		}
	default:
		f.ok++
		if victimID {
			f.failures = append(f.failures, fmt.Sprintf("%d with the victim's id on %s", code, what))
		}
	}
	for _, m := range f.victim.markers {
		// An answer may repeat what the request said (an id it refuses); anything else of the victim's
		// is a leak.
		if bytes.Contains(rec.Body.Bytes(), []byte(m)) && !bytes.Contains(body, []byte(m)) && !strings.Contains(target, m) {
			f.failures = append(f.failures, fmt.Sprintf("victim data %q in the answer %d %.300s to %s", m, code,
				rec.Body.Bytes(), what))
		}
	}
}

func pathUnescaped(p string) string {
	if u, err := url.PathUnescape(p); err == nil {
		return u
	}
	return p
}

// bodySchema is op's JSON request body schema, resolved.
func (f *fuzzer) bodySchema(op fuzzOp) map[string]any {
	content, _ := op.RequestBody["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	s, _ := media["schema"].(map[string]any)
	return f.resolve(s)
}

func (f *fuzzer) resolve(s map[string]any) map[string]any {
	if ref, ok := s["$ref"].(string); ok {
		return f.doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
	}
	return s
}

func (f *fuzzer) properties(s map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		if m, ok := p.(map[string]any); ok {
			out[name] = f.resolve(m)
		}
	}
	return out
}

func (f *fuzzer) required(s map[string]any) []string {
	var out []string
	req, _ := s["required"].([]any)
	for _, r := range req {
		if name, ok := r.(string); ok {
			out = append(out, name)
		}
	}
	return out
}

// types are a schema's JSON types ("type" may be a string or a list, as for nullable fields).
func types(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if v, ok := x.(string); ok {
				out = append(out, v)
			}
		}
		return out
	}
	return nil
}

// validBody is a body that fits op's schema: every property given a value of its type and bounds.
func (f *fuzzer) validBody(op fuzzOp) any {
	s := f.bodySchema(op)
	if s == nil {
		return nil
	}
	return f.value(s, 0)
}

func (f *fuzzer) value(s map[string]any, depth int) any {
	if depth > 4 {
		return nil
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[f.rng.IntN(len(enum))]
	}
	ts := types(s)
	switch {
	case slices.Contains(ts, "object"), s["properties"] != nil:
		obj := map[string]any{}
		for name, p := range f.properties(s) {
			if v := f.value(p, depth+1); v != nil {
				obj[name] = v
			}
		}
		return obj
	case slices.Contains(ts, "array"):
		items, _ := s["items"].(map[string]any)
		if v := f.value(f.resolve(items), depth+1); v != nil {
			return []any{v}
		}
		return []any{}
	case slices.Contains(ts, "string"):
		switch s["format"] {
		case "date-time":
			return "2030-01-02T03:04:05Z"
		case "email":
			return "someone@example.com"
		}
		if p, _ := s["pattern"].(string); p != "" {
			return "abc-123"
		}
		v := "fuzz value"
		if maxLen, ok := s["maxLength"].(float64); ok && maxLen > 0 {
			v = strings.Repeat("m", int(maxLen)) // at the bound
		}
		return v
	case slices.Contains(ts, "integer"), slices.Contains(ts, "number"):
		if m, ok := s["maximum"].(float64); ok {
			return m
		}
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 1
	case slices.Contains(ts, "boolean"):
		return true
	}
	return nil
}

// badValues are values a property should refuse, or at least survive: wrong types, out of bounds,
// hostile strings.
func (f *fuzzer) badValues(s map[string]any) []any {
	out := []any{nil, 12345, -1, 1.5, true, []any{"x"}, map[string]any{"x": 1}}
	for range 3 {
		out = append(out, badStrings[f.rng.IntN(len(badStrings))])
	}
	if maxLen, ok := s["maxLength"].(float64); ok {
		out = append(out, strings.Repeat("o", int(maxLen)+1))
	}
	if m, ok := s["maximum"].(float64); ok {
		out = append(out, m+1)
	}
	if m, ok := s["minimum"].(float64); ok {
		out = append(out, m-1)
	}
	if maxItems, ok := s["maxItems"].(float64); ok {
		items := make([]any, int(maxItems)+1)
		for i := range items {
			items[i] = "i"
		}
		out = append(out, items)
	}
	return out
}

func with(obj map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(obj)+1)
	for k, x := range obj {
		out[k] = x
	}
	out[key] = v
	return out
}

func without(obj map[string]any, key string) map[string]any {
	out := make(map[string]any, len(obj))
	for k, x := range obj {
		if k != key {
			out[k] = x
		}
	}
	return out
}

package api

// This file serves /mcp, the Model Context Protocol endpoint for AI clients, on the official Go SDK's
// streamable HTTP transport. Authentication is the REST API's (a bearer JWT or personal access token,
// 401 with WWW-Authenticate otherwise); each tool declares what it Requires as a REST operation does, and its
// handler is a thin call into the same handler or store operation REST uses. The tools themselves are
// registered in mcp_tools.go, mcp_documents.go and mcp_missions.go; decisions are in docs/mcp.md.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/internal/auth"
)

// mcpPath is where the MCP endpoint is served.
const mcpPath = "/mcp"

// Defaults of the MCP options.
const (
	defaultMcpClaimTimeout   = 10 * time.Minute
	defaultMcpSessionTimeout = 30 * time.Minute
)

// principalExtra is the TokenInfo.Extra key carrying the request's *Principal to tool handlers;
// auditExtra the one carrying its audit.Request (caller, client address, user agent). A tool call runs
// in the MCP session's context, made by the request that opened the session: what the HTTP request of
// the call itself says reaches the tool only through its TokenInfo.
const (
	principalExtra = "pilot.principal"
	auditExtra     = "pilot.audit"
)

// mcpServer is the MCP side of the api: the SDK's server and the names of its tools, in registration
// order.
type mcpServer struct {
	srv   *mcp.Server
	tools []mcpToolInfo
	// args are the tools' input schemas, by name, as validateToolArgs checks calls against them.
	args map[string]*argsSchema
}

// mcpToolInfo describes a registered tool (tests check each one's scope refusal).
type mcpToolInfo struct {
	Name   string
	Access Requires
}

// mountMCP builds the MCP server with every tool and resource, and serves it at /mcp behind bearer
// authentication. ctx's end closes every session.
func (s *Server) mountMCP(ctx context.Context, router interface {
	Handle(string, http.Handler)
}) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "pilot", Title: "Pilot", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "Pilot's projects, cards, documents, pilotage cockpit and agent missions. Tools take the " +
			"organization and workspace slugs (list_organizations, list_workspaces) and record ids (UUIDs). An external agent " +
			"works the missions of an mcpOnly agent: list_queued_missions, claim_mission, then report_progress, " +
			"submit_proposal and complete_mission or fail_mission.",
		Logger: s.logger,
	})
	s.mcp = &mcpServer{srv: srv, args: map[string]*argsSchema{}}
	srv.AddReceivingMiddleware(s.validateToolArgs) // arguments refused with huma's messages (mcp_args.go)
	s.registerMCPTools()
	s.registerMCPMissionTools()
	s.registerMCPDocumentTools()
	s.registerMCPResources()

	timeout := s.opts.McpSessionTimeout
	if timeout <= 0 {
		timeout = defaultMcpSessionTimeout
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		JSONResponse:   true,
		SessionTimeout: timeout,
		Logger:         s.logger,
	})
	// The SDK binds a session to TokenInfo.UserID: another user's token cannot use it. Authentication
	// happened before (mcpAuth), so this verifier only hands the principal on.
	bind := mcpauth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*mcpauth.TokenInfo, error) {
		p := principalFrom(ctx)
		if p == nil {
			return nil, mcpauth.ErrInvalidToken
		}
		return &mcpauth.TokenInfo{UserID: p.User.ID, Scopes: p.Scopes,
			Extra: map[string]any{principalExtra: p, auditExtra: audit.RequestFrom(ctx)}}, nil
	}, &mcpauth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	sessions := newMcpSessions(srv, s.opts.McpMaxSessionsPerUser, s.opts.McpMaxSessions, s.watch)
	router.Handle(mcpPath, s.mcpAuth(mcpErrorShape(bind(sessions.middleware(h)))))
	documentMCP(s.api.OpenAPI())
	if ctx != nil {
		go func() {
			<-ctx.Done()
			for ss := range srv.Sessions() {
				_ = ss.Close()
			}
		}()
	}
}

// mcpAuth authenticates every /mcp request as the REST API does (bearer JWT or personal access token;
// no cookies). A missing or bad token is a 401 in the error shape with a WWW-Authenticate challenge,
// never an MCP error.
func (s *Server) mcpAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticateBearer(r.Context(), r.Header.Get("Authorization"))
		if err == nil && p.ViaPAT {
			err = s.identity.TouchAPIToken(r.Context(), p.TokenID)
		}
		if err != nil {
			if body := unavailable(err); body != nil {
				s.logger.WarnContext(r.Context(), "mcp authentication: database unavailable", "error", err)
				writeError(w, body.StatusCode, body.Message) // with Retry-After
				return
			}
			var eb *ErrorBody
			if !errors.As(err, &eb) {
				s.logger.ErrorContext(r.Context(), "mcp authentication", "error", err)
				writeError(w, http.StatusInternalServerError, "internal server error")
				return
			}
			challenge := `Bearer realm="pilot"`
			if r.Header.Get("Authorization") != "" {
				challenge += fmt.Sprintf(`, error="invalid_token", error_description=%q`, eb.Message)
			}
			w.Header().Set("WWW-Authenticate", challenge)
			writeError(w, eb.StatusCode, eb.Message)
			return
		}
		// A long request (the MCP session's event stream) ends with the session or token it came with.
		// The audit request is the guard's (auditRequest), for the tools' changes.
		req := s.auditRequest(r.RemoteAddr, r.Header.Get("X-Forwarded-For"), r.UserAgent())
		req.ActorID = p.User.ID
		ctx, stop := s.watch(audit.WithRequest(context.WithValue(r.Context(), principalKey, p), req), p)
		defer stop()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// tenancyArgs is implemented by tool inputs that name an organization, and maybe a workspace and a
// project (OrgArgs, WorkspaceArgs, ProjectArgs and what embeds them): the tool runs under the caller's
// access to them, resolved and checked by the guard's tenantAccess.
type tenancyArgs interface {
	tenancy() (org, ws, projectID string)
}

// OrgArgs names an organization.
type OrgArgs struct {
	Org string `json:"org" minLength:"1" maxLength:"100" doc:"The organization's slug (see list_organizations)"`
}

func (a OrgArgs) tenancy() (string, string, string) { return a.Org, "", "" }

// WorkspaceArgs names a workspace of an organization.
type WorkspaceArgs struct {
	Org       string `json:"org" minLength:"1" maxLength:"100" doc:"The organization's slug (see list_organizations)"`
	Workspace string `json:"workspace" minLength:"1" maxLength:"100" doc:"The workspace's slug (see list_workspaces)"`
}

func (a WorkspaceArgs) tenancy() (string, string, string) { return a.Org, a.Workspace, "" }

// ProjectArgs names a project of a workspace.
type ProjectArgs struct {
	WorkspaceArgs
	ProjectID string `json:"projectId" doc:"The project's id (see list_projects)"`
}

func (a ProjectArgs) tenancy() (string, string, string) { return a.Org, a.Workspace, a.ProjectID }

// CardArgs names a card of a project.
type CardArgs struct {
	ProjectArgs
	CardID string `json:"cardId" doc:"The card's id (see list_cards)"`
}

// addTool registers a tool: its name and description, the Requires it declares (the PAT scope and roles,
// declared as a REST operation declares them) and its handler, which reads the caller and access with
// principalFrom and accessFrom exactly as a REST handler does. Input and output JSON Schemas are derived
// from I and O with huma's rules, so the limits in struct tags (maxLength, enum, …) hold as over REST
// and invalid arguments are a tool error naming the field. Every refusal — scope, tenancy, role, a
// malformed id, the store's — is a tool error (isError), never a protocol error; a panic is one too.
func addTool[I, O any](s *Server, name, description string, a Requires, h func(context.Context, *I) (*O, error)) {
	if a.Scope == "" || !auth.ValidScope(a.Scope) || a.JWTOnly {
		panic(fmt.Sprintf("MCP tool %s must declare a valid PAT scope", name))
	}
	input, args := inputSchema[I]()
	s.mcp.args[name] = args
	tool := &mcp.Tool{
		Name:         name,
		Description:  strings.TrimSpace(description + "\n\nPersonal access tokens need the `" + a.Scope + "` scope."),
		InputSchema:  input,
		OutputSchema: allowNulls(toolSchema[O](), reflect.TypeFor[O]()),
	}
	if a.Scope == auth.ScopeProjectsRead || a.Scope == auth.ScopePilotageRead {
		tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	s.mcp.tools = append(s.mcp.tools, mcpToolInfo{Name: name, Access: a})
	// validateToolArgs (mcp_args.go) has validated the arguments against the input schema with huma's
	// messages, before the SDK's own check of the same schema; decoding them is ours, so that a value
	// the schema lets through but the Go type refuses (a malformed date) is still named.
	mcp.AddTool(s.mcp.srv, tool, func(ctx context.Context, req *mcp.CallToolRequest,
		raw json.RawMessage) (_ *mcp.CallToolResult, out *O, err error) {
		defer func() {
			if rec := recover(); rec != nil {
				s.logger.ErrorContext(ctx, "mcp tool panic", "tool", name, "panic", fmt.Sprint(rec))
				out, err = nil, errors.New("internal error")
			}
		}()
		var in I
		if err := decodeArgs(raw, &in); err != nil {
			return nil, nil, s.toolError(ctx, name, err)
		}
		ctx, err = s.toolAccess(ctx, req, a, &in)
		if err != nil {
			return nil, nil, s.toolError(ctx, name, err)
		}
		res, err := h(ctx, &in)
		if err != nil {
			return nil, nil, s.toolError(ctx, name, err)
		}
		if s.opts.AccessCache != nil && !a.KeepsTenancy && strings.HasSuffix(a.Scope, ":write") {
			s.opts.AccessCache.Flush()
		}
		return nil, res, nil
	})
}

// toolAccess is the guard for a tool call: the caller (authenticated by mcpAuth), the scope, well-formed
// ids, then the tenancy the arguments name and the roles a declares. The returned context carries the
// principal and access as the guard's does.
func (s *Server) toolAccess(ctx context.Context, req *mcp.CallToolRequest, a Requires,
	in any) (context.Context, error) {
	var p *Principal
	var from audit.Request
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		p, _ = req.Extra.TokenInfo.Extra[principalExtra].(*Principal)
		from, _ = req.Extra.TokenInfo.Extra[auditExtra].(audit.Request)
	}
	if p == nil {
		return ctx, errUnauthorized("authentication required")
	}
	if err := checkScope(p, a); err != nil {
		return ctx, err
	}
	if err := checkIDs(reflect.ValueOf(in)); err != nil {
		return ctx, err
	}
	ctx = audit.WithRequest(context.WithValue(ctx, principalKey, p), from)
	if t, ok := in.(tenancyArgs); ok {
		org, ws, project := t.tenancy()
		acc, err := s.tenantAccess(ctx, p, a, org, ws, project)
		if err != nil {
			return ctx, err
		}
		ctx = context.WithValue(ctx, accessCtxKey, acc)
	}
	return ctx, nil
}

// decodeArgs decodes a tool's arguments into dst; when that fails, it names the first argument whose
// value its field refuses.
func decodeArgs(raw json.RawMessage, dst any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	err := json.Unmarshal(raw, dst)
	if err == nil {
		return nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return errBadRequest("arguments: expected a JSON object")
	}
	fields := map[string]reflect.Type{}
	jsonFields(reflect.TypeOf(dst).Elem(), fields)
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		if t, ok := fields[name]; ok {
			if ferr := json.Unmarshal(args[name], reflect.New(t).Interface()); ferr != nil {
				return errBadRequest(fmt.Sprintf("%s: %v", name, ferr))
			}
		}
	}
	return errBadRequest("arguments: " + err.Error())
}

// jsonFields maps the JSON names of a struct's fields, embedded structs' included, to their types.
func jsonFields(t reflect.Type, out map[string]reflect.Type) {
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			jsonFields(f.Type, out)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name != "-" && f.IsExported() {
			out[name] = f.Type
		}
	}
}

// checkIDs refuses an argument named id or …Id that is not a UUID (every record id is one), naming it.
// A field tagged idOrWord:"w" also takes the word w.
func checkIDs(v reflect.Value) error {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if f.Anonymous {
			if err := checkIDs(fv); err != nil {
				return err
			}
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "id" && !strings.HasSuffix(name, "Id") {
			continue
		}
		var id string
		switch {
		case fv.Kind() == reflect.String:
			id = fv.String()
		case fv.Kind() == reflect.Pointer && !fv.IsNil() && fv.Elem().Kind() == reflect.String:
			id = fv.Elem().String()
		}
		if id != "" && id == f.Tag.Get("idOrWord") {
			continue // a word the field takes besides ids (list_documents' parentId: root)
		}
		if id != "" && !isUUID(id) {
			return errBadRequest(fmt.Sprintf("%s: %q is not an id (a UUID)", name, id))
		}
	}
	return nil
}

// toolError is the text of a tool error: the REST error's status name and message ("not found: card
// not found", "forbidden: this token lacks the \"projects:write\" scope", "service unavailable: the
// database is unavailable; try again shortly"). Anything else is a bug: it is
// logged and answered as an internal error, still a tool error.
func (s *Server) toolError(ctx context.Context, tool string, err error) error {
	var eb *ErrorBody
	if !errors.As(fail(err), &eb) || (eb.StatusCode >= 500 && eb.StatusCode != http.StatusServiceUnavailable) {
		s.logger.ErrorContext(ctx, "mcp tool failed", "tool", tool, "error", err)
		return errors.New("internal error")
	}
	msg := strings.ToLower(http.StatusText(eb.StatusCode)) + ": " + eb.Message
	for _, fe := range eb.Errors {
		msg += "; " + fe.Field + ": " + fe.Message
	}
	return errors.New(msg)
}

// toolSchema is T's JSON Schema as huma derives it for REST bodies (limits, enums, required fields,
// no extra properties), with the types it refers to under $defs.
func toolSchema[T any]() map[string]any {
	reg := toolRegistry()
	return schemaJSON(reg, reg.Schema(reflect.TypeFor[T](), false, ""), reflect.TypeFor[T]())
}

// schemaJSON is top, a schema of t in reg, as JSON, with the types it refers to under $defs.
func schemaJSON(reg huma.Registry, top *huma.Schema, t reflect.Type) map[string]any {
	var out map[string]any
	b, err := json.Marshal(top)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		panic(fmt.Sprintf("schema of %s: %v", t, err))
	}
	if defs := reg.Map(); len(defs) > 0 {
		var m map[string]any
		b, _ := json.Marshal(defs)
		_ = json.Unmarshal(b, &m)
		out["$defs"] = m
	}
	return out
}

// allowNulls makes an output schema admit the nulls encoding/json writes, which huma's schemas (written
// for documentation, never checked against responses) leave out but the SDK checks structured output
// against: a nullable scalar with an enum (huma types it [T, "null"] but leaves null out of the enum,
// UsageContextOut.intent), and a pointer to a struct without omitempty (huma cannot mark an object
// nullable, PilotageActionOut.result is null until applied), which becomes anyOf [the object, null].
// t is the Go type schema was derived from.
func allowNulls(schema map[string]any, t reflect.Type) map[string]any {
	nullInEnums(schema)
	defs, _ := schema["$defs"].(map[string]any)
	seen := map[reflect.Type]bool{}
	var walk func(obj map[string]any, t reflect.Type)
	walk = func(obj map[string]any, t reflect.Type) {
		t = elemType(t)
		if obj == nil || t.Kind() != reflect.Struct {
			return
		}
		props, _ := obj["properties"].(map[string]any)
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				walk(obj, f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			ps, _ := props[name].(map[string]any)
			if name == "-" || !f.IsExported() || ps == nil {
				continue
			}
			ref := refOf(ps)
			if ft := elemType(f.Type); ft.Kind() == reflect.Struct && ref != "" && !seen[ft] {
				seen[ft] = true
				def, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
				walk(def, ft)
			}
			if writesNullObject(f) && ps["$ref"] != nil {
				props[name] = map[string]any{"anyOf": []any{ps, map[string]any{"type": "null"}}}
			}
		}
	}
	seen[elemType(t)] = true
	walk(schema, t)
	return schema
}

// nullInEnums adds null to the enum of every schema in v whose type admits null.
func nullInEnums(v any) {
	switch v := v.(type) {
	case map[string]any:
		if types, ok := v["type"].([]any); ok && slices.Contains(types, any("null")) {
			if enum, ok := v["enum"].([]any); ok && !slices.Contains(enum, nil) {
				v["enum"] = append(enum, nil)
			}
		}
		for _, c := range v {
			nullInEnums(c)
		}
	case []any:
		for _, c := range v {
			nullInEnums(c)
		}
	}
}

// elemType is t without pointers, slices, arrays and maps around it.
func elemType(t reflect.Type) reflect.Type {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return t
		}
	}
}

// refOf is the $defs reference of a property's schema, of its items or of its values ("" if none).
func refOf(ps map[string]any) string {
	for _, m := range []any{ps, ps["items"], ps["additionalProperties"]} {
		if m, ok := m.(map[string]any); ok {
			if ref, ok := m["$ref"].(string); ok {
				return ref
			}
		}
	}
	return ""
}

package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/auth"
)

// sessionCookie carries the web app's session (a JWT). It is HttpOnly; writes authenticated by it need
// the X-CSRF-Token header.
const sessionCookie = "pilot_session"

// Requires is what an operation needs (credentials, a token scope, roles), declared once at
// registration; the guard enforces it. What a caller has is a tenancy.Access.
type Requires struct {
	// Public operations need no credentials.
	Public bool
	// Scope a personal access token must carry. Required unless JWTOnly.
	Scope string
	// JWTOnly refuses personal access tokens (token management, password, 2FA).
	JWTOnly bool
	// OrgRole is the least organization role needed on routes with {orgSlug}: member, admin or owner.
	OrgRole tenancy.OrgRole
	// WSRole is the least workspace role needed on routes with {wsSlug}: member or admin.
	WSRole tenancy.WorkspaceRole
	// PilotageRole is the least pilotage role needed: viewer, reviewer or owner.
	PilotageRole tenancy.PilotageRole
	// KeepsTenancy says the operation never changes users, organizations, workspaces, projects or
	// memberships, so its writes leave the guard's access cache as it is. Other writes empty it before
	// answering.
	KeepsTenancy bool
	// WhileArchived lets a write reach an archived project (restoring, deleting it); every other write
	// under an archived project answers 409.
	WhileArchived bool
	// AnyQuery lets a public operation take query parameters it does not declare (ignored): the redirect
	// back from an OpenID provider, which adds parameters of its own (session_state, iss, scope, …).
	AnyQuery bool
}

// register adds an operation with its access declaration. Every operation must say what it needs.
func register[I, O any](s *Server, op huma.Operation, a Requires, h func(context.Context, *I) (*O, error)) {
	if !a.Public && a.Scope == "" && !a.JWTOnly {
		panic(fmt.Sprintf("operation %s declares neither a scope nor JWTOnly", op.OperationID))
	}
	if a.Scope != "" && !auth.ValidScope(a.Scope) {
		panic(fmt.Sprintf("operation %s declares unknown scope %q", op.OperationID, a.Scope))
	}
	// The input and output types are kept for TestDomainValuesAreEnums, which finds every domain value type
	// an operation reads or answers and requires its enum in the document.
	op.Metadata = map[string]any{"access": a, "types": []reflect.Type{reflect.TypeFor[I](), reflect.TypeFor[O]()}}
	if a.Public {
		op.Security = []map[string][]string{} // "security: []": no credentials, said explicitly
	} else {
		op.Security = []map[string][]string{{"bearer": {}}}
		op.Errors = append(op.Errors, http.StatusUnauthorized, http.StatusForbidden)
	}
	// Every operation may find the database out of reach (503 with Retry-After, finishOpenAPI), and one
	// that reads a body may be sent one past the limit.
	op.Errors = append(op.Errors, http.StatusBadRequest, http.StatusServiceUnavailable)
	if t := reflect.TypeFor[I](); t.Kind() == reflect.Struct {
		if _, ok := t.FieldByName("Body"); ok {
			op.Errors = append(op.Errors, http.StatusRequestEntityTooLarge)
		}
	}
	if a.OrgRole != "" || a.WSRole != "" {
		op.Errors = append(op.Errors, http.StatusNotFound)
	}
	if refusedWhileArchived(a) && strings.Contains(op.Path, "{projectId}") {
		op.Errors = append(op.Errors, http.StatusConflict)
		op.Description = strings.TrimSpace(op.Description + "\n\nAn archived project is read-only: 409 until it is " +
			"restored.")
	}
	op.Description = pagedDescription(reflect.TypeFor[I](), op.Description)
	if a.Scope != "" {
		op.Description = strings.TrimSpace(op.Description + "\n\nPersonal access tokens need the `" + a.Scope + "` scope.")
	} else if a.JWTOnly {
		op.Description = strings.TrimSpace(op.Description + "\n\nAccepts a JWT or session only, never a personal access " +
			"token.")
	}
	huma.Register(s.api, op, h)
}

// Principal is the authenticated caller.
type Principal struct {
	User db.User
	// Scopes is set when the caller used a personal access token.
	Scopes    []string
	ViaPAT    bool
	TokenID   string
	ViaCookie bool
	// Session is the verified session JWT's claims (empty for a personal access token); its id and key
	// bind the CSRF token.
	Session auth.Claims
	// access was resolved together with the user (JWT callers on tenant routes); accessErr is its refusal.
	access    *tenancy.Access
	accessErr error
}

type ctxKey int

const (
	principalKey ctxKey = iota
	accessCtxKey
	requestKey
)

// rawRequest returns the HTTP request and response writer behind an operation, for the few handlers
// that stream (attachment upload and download) instead of letting huma read the body.
func rawRequest(ctx context.Context) (*http.Request, http.ResponseWriter) {
	rw, _ := ctx.Value(requestKey).(rawHTTP)
	return rw.r, rw.w
}

type rawHTTP struct {
	r *http.Request
	w http.ResponseWriter
}

func principalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey).(*Principal)
	return p
}

func accessFrom(ctx context.Context) tenancy.Access {
	a, _ := ctx.Value(accessCtxKey).(tenancy.Access)
	return a
}

// clientIPFrom is the caller's address, as the guard (or mcpAuth) put it in the audit request.
func clientIPFrom(ctx context.Context) string {
	return audit.RequestFrom(ctx).ClientIP
}

// guard is the one place credentials, scopes and tenancy are checked, always in this order: a valid
// bearer token, membership of the organization, membership of the workspace, then role and scope.
func (s *Server) guard(hctx huma.Context, next func(huma.Context)) {
	a, _ := hctx.Operation().Metadata["access"].(Requires)
	// The audit log records the client address and user agent of every change made in the request, and
	// its caller once authenticated (below). The request goes into the context once, with the principal:
	// authentication and refusals before it need neither.
	req := s.auditRequest(hctx.RemoteAddr(), hctx.Header("X-Forwarded-For"), hctx.Header("User-Agent"))
	if r, w := humachi.Unwrap(hctx); r != nil {
		hctx = huma.WithValue(hctx, requestKey, rawHTTP{r: r, w: w})
	}
	if a.Public {
		if name := unknownQueryParameter(hctx); name != "" && !a.AnyQuery {
			s.writeErr(hctx, errBadRequest("unknown query parameter: "+name))
			return
		}
		next(huma.WithContext(hctx, audit.WithRequest(hctx.Context(), req)))
		return
	}
	p, err := s.authenticate(hctx)
	if err != nil {
		s.writeErr(hctx, err)
		return
	}
	noteCaller(hctx.Context(), p) // the access log names the caller, even of a refusal below
	if err := checkScope(p, a); err != nil {
		s.writeErr(hctx, err)
		return
	}
	if p.ViaCookie && !safeMethod(hctx.Method()) && !s.signer.CheckCSRF(p.Session, hctx.Header("X-CSRF-Token")) {
		s.writeErr(hctx, errForbidden("missing or invalid X-CSRF-Token header"))
		return
	}
	if p.ViaPAT {
		// Recorded only for requests the token was good for.
		if err := s.identity.TouchAPIToken(hctx.Context(), p.TokenID); err != nil {
			s.writeErr(hctx, err)
			return
		}
	}
	if name := unknownQueryParameter(hctx); name != "" {
		s.writeErr(hctx, errBadRequest("unknown query parameter: "+name))
		return
	}
	req.ActorID = p.User.ID
	hctx = huma.WithContext(hctx, audit.WithRequest(context.WithValue(hctx.Context(), principalKey, p), req))
	if !s.pathParamsShaped(hctx) {
		return
	}

	if orgSlug := hctx.Param("orgSlug"); orgSlug != "" {
		acc, err := s.tenantAccess(hctx.Context(), p, a, orgSlug, hctx.Param("wsSlug"), hctx.Param("projectId"))
		if err != nil {
			s.writeErr(hctx, err)
			return
		}
		hctx = huma.WithValue(hctx, accessCtxKey, acc)
	}
	if s.opts.AccessCache != nil && !a.KeepsTenancy && !safeMethod(hctx.Method()) {
		hctx = &flushBeforeAnswer{operationContext: hctx, cache: s.opts.AccessCache}
		defer s.opts.AccessCache.Flush() // also when the operation wrote no status of its own
	}
	next(hctx)
}

// checkScope refuses a personal access token an operation does not accept (JWTOnly) or one without the
// scope it declares. The guard and the MCP tools (mcp.go) both check with it.
func checkScope(p *Principal, a Requires) error {
	switch {
	case p.ViaPAT && a.JWTOnly:
		return errForbidden("this endpoint does not accept personal access tokens; use a JWT")
	case p.ViaPAT && !slices.Contains(p.Scopes, a.Scope):
		return errForbidden(fmt.Sprintf("this token lacks the %q scope", a.Scope))
	}
	return nil
}

// tenantAccess resolves the caller's access to an organization, and a workspace and project when named,
// then checks the roles a declares: outside the tenancy is 404, a role too low 403. The guard uses it for
// routes with {orgSlug}; the MCP tools for the organization, workspace and project their arguments name.
func (s *Server) tenantAccess(ctx context.Context, p *Principal, a Requires, orgSlug, wsSlug,
	projectID string) (tenancy.Access, error) {
	var acc tenancy.Access
	var err error
	if p.access != nil || p.accessErr != nil {
		acc, err = derefAccess(p.access), p.accessErr
	} else {
		acc, err = s.tenancy.ResolveAccess(ctx, p.User.ID, tenancy.Target{OrgSlug: orgSlug, WsSlug: wsSlug,
			ProjectID: projectID})
	}
	if err != nil {
		var se *db.Error
		switch {
		case errors.As(err, &se):
			return acc, errNotFound(se.Msg)
		case errors.Is(err, db.ErrNotFound):
			return acc, errNotFound("organization not found")
		default:
			return acc, err
		}
	}
	switch {
	case a.OrgRole != "" && !tenancy.OrgRole(acc.OrgRole).AtLeast(a.OrgRole):
		return acc, errForbidden(fmt.Sprintf("this needs the organization %s role", a.OrgRole))
	case a.WSRole != "" && !tenancy.WorkspaceRole(acc.WorkspaceRole).AtLeast(a.WSRole):
		return acc, errForbidden(fmt.Sprintf("this needs the workspace %s role", a.WSRole))
	case a.PilotageRole != "" && !tenancy.PilotageRole(acc.WorkspacePilotageRole).AtLeast(a.PilotageRole):
		return acc, errForbidden(fmt.Sprintf("this needs the pilotage %s role", a.PilotageRole))
	case acc.ProjectArchived && refusedWhileArchived(a):
		return acc, newErrorBody(http.StatusConflict, "this project is archived: restore it to change it")
	}
	return acc, nil
}

// refusedWhileArchived says whether an operation writes (its scope is a write scope) and may not while
// its project is archived.
func refusedWhileArchived(a Requires) bool {
	return strings.HasSuffix(a.Scope, ":write") && !a.WhileArchived
}

// flushBeforeAnswer empties the access cache when the operation answers, before any byte reaches the
// client: the operation's change has committed by then, so the caller's next request reads it.
type flushBeforeAnswer struct {
	operationContext
	cache *accesscache.Cache
}

// operationContext names huma.Context for embedding (its field would otherwise clash with its Context
// method).
type operationContext = huma.Context

// Unwrap lets humachi.Unwrap reach the request and writer of streaming operations.
func (c *flushBeforeAnswer) Unwrap() huma.Context { return c.operationContext }

func (c *flushBeforeAnswer) SetStatus(code int) {
	c.cache.Flush()
	c.operationContext.SetStatus(code)
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

func (s *Server) writeErr(hctx huma.Context, err error) {
	var eb *ErrorBody
	if errors.As(err, &eb) {
		_ = huma.WriteErr(s.api, hctx, eb.StatusCode, eb.Message)
		return
	}
	_ = huma.WriteErr(s.api, hctx, http.StatusInternalServerError, "guard", err)
}

// authenticate resolves the caller: a bearer token first (a personal access token by its prefix, else a
// JWT), then the session cookie.
func (s *Server) authenticate(hctx huma.Context) (*Principal, error) {
	ctx := hctx.Context()
	if h := hctx.Header("Authorization"); h != "" {
		token, err := bearerToken(h)
		if err != nil {
			return nil, err
		}
		if auth.IsPAT(token) {
			return s.authenticatePAT(ctx, token)
		}
		return s.authenticateJWT(hctx, token, false)
	}
	if c, err := huma.ReadCookie(hctx, sessionCookie); err == nil && c.Value != "" {
		return s.authenticateJWT(hctx, c.Value, true)
	}
	return nil, errUnauthorized("authentication required")
}

// bearerToken reads the token of an Authorization header ("Bearer <token>").
func bearerToken(h string) (string, error) {
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		token, ok = strings.CutPrefix(h, "bearer ")
	}
	token = strings.TrimSpace(token)
	if !ok || token == "" {
		return "", errUnauthorized("malformed Authorization header; expected \"Bearer <token>\"")
	}
	return token, nil
}

// authenticateBearer resolves the caller of a plain HTTP route (/mcp) from its Authorization header, a
// personal access token or a session JWT, as authenticate does for operations. Cookies are not
// accepted there: such routes have no CSRF protection.
func (s *Server) authenticateBearer(ctx context.Context, header string) (p *Principal, err error) {
	defer func() {
		if err == nil {
			noteCaller(ctx, p) // the access log names the caller
		}
	}()
	if header == "" {
		return nil, errUnauthorized("authentication required")
	}
	token, err := bearerToken(header)
	if err != nil {
		return nil, err
	}
	if auth.IsPAT(token) {
		return s.authenticatePAT(ctx, token)
	}
	claims, err := s.signer.Verify(token, auth.TypeSession)
	if err != nil {
		return nil, errUnauthorized("invalid or expired token")
	}
	p = &Principal{Session: claims}
	if p.User, err = s.sessionUser(ctx, claims); err != nil {
		return nil, err
	}
	s.touchSession(ctx, claims.ID)
	return p, nil
}

// sessionUser loads the user of a session JWT's server-side session; a revoked or expired session, a
// deleted user or a session of an older version (a password changed since) is 401.
func (s *Server) sessionUser(ctx context.Context, claims auth.Claims) (db.User, error) {
	u, err := s.identity.SessionUser(ctx, claims.ID, claims.Subject)
	if errors.Is(err, db.ErrNotFound) || (err == nil && u.SessionVersion != claims.Version) {
		return u, errUnauthorized("invalid or expired token")
	}
	return u, err
}

// touchSession records, at most once a minute per session and process, that a session was used (its
// last seen time); a failure is logged, never the request's.
func (s *Server) touchSession(ctx context.Context, sessionID string) {
	now := time.Now()
	if last, ok := s.touched.Get(sessionID); ok && now.Sub(last) < time.Minute {
		return
	}
	s.touched.Add(sessionID, now)
	if err := s.identity.TouchSession(ctx, sessionID); err != nil {
		s.logger.WarnContext(ctx, "touch session", "error", err)
	}
}

// authenticateJWT verifies a session JWT and loads its user. On tenant routes ({orgSlug}) it resolves
// the caller's access in the same query, saving a round trip on the busiest routes.
func (s *Server) authenticateJWT(hctx huma.Context, token string, viaCookie bool) (*Principal, error) {
	ctx := hctx.Context()
	claims, err := s.signer.Verify(token, auth.TypeSession)
	if err != nil {
		return nil, errUnauthorized("invalid or expired token")
	}
	p := &Principal{ViaCookie: viaCookie, Session: claims}
	if !isUUID(claims.ID) || !isUUID(claims.Subject) {
		return nil, errUnauthorized("invalid or expired token") // a token of no server-side session
	}
	if orgSlug := hctx.Param("orgSlug"); orgSlug != "" && slugShaped(orgSlug) && slugShaped(hctx.Param("wsSlug")) {
		projectID := hctx.Param("projectId")
		if !isUUID(projectID) {
			projectID = "" // a malformed id is refused as not found before access is used
		}
		key := accesscache.Key{UserID: claims.Subject, SessionID: claims.ID, SessionVersion: claims.Version, OrgSlug: orgSlug,
			WsSlug: hctx.Param("wsSlug"), ProjectID: projectID}
		if u, acc, ok := s.opts.AccessCache.Get(key); ok {
			p.User, p.access = u, &acc
			s.touchSession(ctx, claims.ID)
			return p, nil // the cached user had this active session and version
		}
		gen := s.opts.AccessCache.Generation()
		var acc tenancy.Access
		p.User, acc, p.accessErr, err = s.tenancy.UserWithAccess(ctx, tenancy.SessionRef{SessionID: claims.ID,
			UserID: claims.Subject}, tenancy.Target{OrgSlug: orgSlug, WsSlug: key.WsSlug, ProjectID: projectID})
		if p.accessErr == nil {
			p.access = &acc
			if err == nil && p.User.SessionVersion == claims.Version {
				s.opts.AccessCache.Put(key, p.User, acc, gen)
			}
		}
	} else {
		// Off tenant routes the cache keeps the session's user alone (a key without organization): the
		// same notifications empty it, so an ended session or a changed user is read again.
		key := accesscache.Key{UserID: claims.Subject, SessionID: claims.ID, SessionVersion: claims.Version}
		if u, _, ok := s.opts.AccessCache.Get(key); ok {
			p.User = u
			s.touchSession(ctx, claims.ID)
			return p, nil // the cached user had this active session and version
		}
		gen := s.opts.AccessCache.Generation()
		p.User, err = s.identity.SessionUser(ctx, claims.ID, claims.Subject)
		if err == nil && p.User.SessionVersion == claims.Version {
			s.opts.AccessCache.Put(key, p.User, tenancy.Access{}, gen)
		}
	}
	if errors.Is(err, db.ErrNotFound) || (err == nil && p.User.SessionVersion != claims.Version) {
		return nil, errUnauthorized("invalid or expired token")
	}
	if err != nil {
		return nil, err
	}
	s.touchSession(ctx, claims.ID)
	return p, nil
}

func derefAccess(a *tenancy.Access) tenancy.Access {
	if a == nil {
		return tenancy.Access{}
	}
	return *a
}

func (s *Server) authenticatePAT(ctx context.Context, token string) (*Principal, error) {
	tok, err := s.identity.APITokenByHash(ctx, auth.HashSecret(token))
	if errors.Is(err, db.ErrNotFound) {
		return nil, errUnauthorized("invalid or revoked token")
	}
	if err != nil {
		return nil, err
	}
	if tok.ExpiresAt != nil && !time.Now().Before(*tok.ExpiresAt) {
		return nil, errUnauthorized("token expired")
	}
	u, err := s.identity.UserByID(ctx, tok.UserID)
	if err != nil {
		return nil, err
	}
	return &Principal{User: u, Scopes: tok.Scopes, ViaPAT: true, TokenID: tok.ID}, nil
}

// slugShaped reports whether s could be a slug: empty (no such parameter), or up to 100 lowercase
// letters, digits and hyphens. It is looser than the rule for new slugs, so no existing slug fails it.
func slugShaped(s string) bool {
	if len(s) > 100 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// isUUID reports whether s has the textual shape of a UUID.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
				return false
			}
		}
	}
	return true
}

// cardEdit names a card of the request's project and the caller, for the store's writes to a card.
func cardEdit(ctx context.Context, cardID string) db.CardEdit {
	return db.CardEdit{ProjectID: accessFrom(ctx).ProjectID, CardID: cardID, ActorID: principalFrom(ctx).User.ID}
}

// recordEdit names a record of the request's workspace and the caller, for the engines' writes.
func recordEdit(ctx context.Context, id string) db.RecordEdit {
	return db.RecordEdit{WorkspaceID: accessFrom(ctx).WorkspaceID, ID: id, ActorID: principalFrom(ctx).User.ID}
}

// The formats path parameters declare on their input types (`format:"…"`), which pathParamsShaped checks.
const (
	// formatSlug is an organization's or workspace's slug.
	formatSlug = "slug"
	// formatDeliveryID is a webhook delivery's id, its webhook-id header (msg_ and 32 hex digits).
	formatDeliveryID = "webhook-delivery-id"
)

// pathParamsShaped answers 404 for a path parameter that is not of the format its operation declares:
// a malformed id or slug names nothing (and a NUL, say, would be refused by the database). It reports
// whether the request may go on.
func (s *Server) pathParamsShaped(hctx huma.Context) bool {
	for _, prm := range hctx.Operation().Parameters {
		if prm.In != "path" || prm.Schema == nil {
			continue
		}
		v, msg := hctx.Param(prm.Name), "not found"
		var ok bool
		switch prm.Schema.Format {
		case "uuid":
			ok = isUUID(v)
		case formatDeliveryID:
			ok = webhook.IsDeliveryID(v)
		case formatSlug:
			ok, msg = slugShaped(v), strings.TrimSuffix(prm.Name, "Slug")+" not found"
		default:
			ok = true
		}
		if !ok {
			s.writeErr(hctx, errNotFound(msg))
			return false
		}
	}
	return true
}

// Package api is Pilot's HTTP layer: huma operations on chi, authentication and the tenancy guard, and
// the mapping between HTTP and the store. It holds no SQL and no domain rules of its own.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/calendar"
	"github.com/pilot-dev/pilot/db/document"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/imports"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/notification"
	"github.com/pilot-dev/pilot/db/pilotage"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/db/recurrence"
	"github.com/pilot-dev/pilot/db/roadmap"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/db/timetrack"
	"github.com/pilot-dev/pilot/db/transfer"
	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/oidc"
	"github.com/pilot-dev/pilot/internal/sessionwatch"
	"github.com/pilot-dev/pilot/internal/storage"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/telemetry"
	"github.com/pilot-dev/pilot/web"
)

// Options configure the HTTP layer.
type Options struct {
	Production bool
	PublicURL  string
	// NoDocs turns the docs page (/api/docs) off (API_DOCS=off); the OpenAPI document is served anyway.
	NoDocs            bool
	TrustProxyHeaders bool
	// LoginRateLimit is the number of login attempts allowed per minute per client address, and per
	// account from one client address (zero: 10).
	LoginRateLimit int
	// LoginAccountFailureLimit is how many failed sign-ins an hour an account takes from devices that
	// never signed in to it, from every address together, before it refuses them for an hour; and how
	// many one known device may fail before it is treated as unknown (LOGIN_ACCOUNT_FAILURE_LIMIT; zero: 10).
	LoginAccountFailureLimit int
	// LoginClock is the clock of those counts (nil: the database's, which every api process shares).
	// Tests set it to move time on without sleeping.
	LoginClock func() time.Time
	// RegisterRateLimit is the number of accounts one client address may create an hour (zero: 10).
	RegisterRateLimit int
	// Storage keeps attachment files. When nil, New uses a Local storage in the system's temporary
	// directory (os.TempDir()/pilot-attachments), which suits tests and trials only: the api process
	// passes the configured storage (ATTACHMENTS_DIR, or S3 when S3_BUCKET is set).
	Storage storage.Storage
	// Relay relays mission events to SSE subscribers (nil: a relay of the server's own, started lazily).
	Relay *stream.Relay
	// DraftWait is how long refine and generate-roadmap wait for their job before answering 202
	// (zero: DefaultDraftWait).
	DraftWait time.Duration
	// AccessCache keeps what the guard resolved for session callers (nil: resolved on every request).
	AccessCache *accesscache.Cache
	// Sessions ends the open streams of sessions that end (nil: they run until their client leaves).
	Sessions *sessionwatch.Watcher
	// McpClaimTimeout is how long an MCP client holding a mission may stay silent before the mission
	// returns to the queue (MCP_CLAIM_TIMEOUT; zero: 10 minutes).
	McpClaimTimeout time.Duration
	// McpSessionTimeout closes MCP sessions idle this long (zero: 30 minutes).
	McpSessionTimeout time.Duration
	// McpMaxSessionsPerUser is how many MCP sessions one user may hold on this process: opening one
	// more closes the user's session idle the longest (MCP_MAX_SESSIONS_PER_USER; zero: 20).
	McpMaxSessionsPerUser int
	// McpMaxSessions is how many MCP sessions this process holds at most: past it, a new session is
	// refused with 503 (MCP_MAX_SESSIONS; zero: 2000).
	McpMaxSessions int
	// Context's end closes every MCP session, so that a shutdown does not wait on their streams (nil:
	// sessions end when idle or closed by their clients).
	Context context.Context
	// Metrics counts and times requests by route pattern (nil: no metrics).
	Metrics *telemetry.Metrics
	// Tracing opens a span per request (nil: tracing off).
	Tracing *telemetry.Tracing
	// CORSOrigins are the browser origins allowed to call the API cross-origin, with credentials
	// (CORS_ORIGINS: exact origins such as https://app.example.com). Empty: no CORS headers at all.
	CORSOrigins []string
	// LanguageModel is the model agents' missions ask the OpenAI-compatible server for when an agent names
	// none (LLM_MODEL or llm's default); empty when no server is configured (LLM_API_KEY unset) and the
	// offline planner works them. The api only tells clients; the worker runs the missions.
	LanguageModel string
	// OIDC is the OpenID Connect providers people may sign in with (nil: none), built once by the
	// composition root.
	OIDC *oidc.Set
	// OIDCAllowedDomains are the only e-mail domains accounts are created for at a provider's first
	// sign-in (OIDC_ALLOWED_DOMAINS; empty: any).
	OIDCAllowedDomains []string
	// PasswordLoginOff refuses sign-in and registration with a password (PASSWORD_LOGIN=false); the
	// configuration refuses it without a provider.
	PasswordLoginOff bool
}

// Server holds what handlers need.
type Server struct {
	store *db.Store
	// The store's engines, built once by engines.New.
	board       *board.Engine
	transfer    *transfer.Engine
	imports     *imports.Engine
	automations *automation.Engine
	pilotage    *pilotage.Engine
	missions    *mission.Engine
	drafts      *draft.Engine
	pipelines   *pipeline.Engine
	identity    *identity.Engine
	tenancy     *tenancy.Engine
	documents   *document.Engine
	notices     *notification.Engine
	roadmaps    *roadmap.Engine
	webhooks    *webhook.Engine
	audit       *audit.Engine
	timeTrack   *timetrack.Engine
	calendars   *calendar.Engine
	recurrence  *recurrence.Engine
	signer      *auth.Signer
	billing     billing.Provider
	storage     storage.Storage
	logger      *slog.Logger
	opts        Options
	api         huma.API

	mcp *mcpServer
	// touched is when this process last recorded each session as seen (touchSession).
	touched *lru.Cache[string, time.Time]
	// ops are the operations by area (ops.go).
	ops ops
	// published is the OpenAPI document served (docs.go).
	published publishedDoc
}

// New builds the HTTP handler of the api process.
func New(eng *engines.Engines, signer *auth.Signer, billingProvider billing.Provider, logger *slog.Logger,
	opts Options) http.Handler {
	_, router := build(eng, signer, billingProvider, logger, opts)
	return router
}

// OpenAPIDocument is the OpenAPI document the api serves at /api/openapi.json (JSON), built without a
// database (`pilot openapi` prints it): publicURL is its server (empty: "/").
func OpenAPIDocument(publicURL string) ([]byte, error) {
	// Engines without a pool: building registers operations and touches no database.
	s, _ := build(engines.New(nil, nil, engines.Options{}), nil, nil, slog.New(slog.DiscardHandler),
		Options{PublicURL: publicURL, Storage: storage.NewLocal(os.TempDir())})
	return s.openAPIJSON()
}

// build builds the Server and its router; it touches neither the database nor the storage until a
// request comes.
func build(eng *engines.Engines, signer *auth.Signer, billingProvider billing.Provider, logger *slog.Logger,
	opts Options) (*Server, *chi.Mux) {
	if opts.LoginRateLimit <= 0 {
		opts.LoginRateLimit = 10
	}
	if opts.LoginAccountFailureLimit <= 0 {
		opts.LoginAccountFailureLimit = 10
	}
	if opts.RegisterRateLimit <= 0 {
		opts.RegisterRateLimit = 10
	}
	if opts.Storage == nil {
		opts.Storage = storage.NewLocal(filepath.Join(os.TempDir(), "pilot-attachments"))
	}
	if opts.Relay == nil {
		opts.Relay = stream.New(eng.Store, stream.Config{Logger: logger}) // started on the first subscription
	}
	if opts.DraftWait <= 0 {
		opts.DraftWait = DefaultDraftWait
	}
	// Every log line of a request carries its request id (and trace ids), whatever handler the caller
	// gave: handlers and middleware log with the request's context.
	logger = slog.New(telemetry.NewLogHandler(logger.Handler()))
	installErrors(logger)
	s := &Server{
		store: eng.Store, board: eng.Board, transfer: eng.Transfer, imports: eng.Imports, automations: eng.Automations,
		pilotage: eng.Pilotage,
		missions: eng.Missions, drafts: eng.Drafts, pipelines: eng.Pipelines, identity: eng.Identity, tenancy: eng.Tenancy,
		documents: eng.Documents, notices: eng.Notifications, roadmaps: eng.Roadmaps, webhooks: eng.Webhooks,
		audit: eng.Audit, calendars: eng.Calendars, recurrence: eng.Recurrence, timeTrack: eng.Time,
		signer: signer, billing: billingProvider, storage: opts.Storage, logger: logger, opts: opts,
	}
	s.touched, _ = lru.New[string, time.Time](16384)
	s.initOps()

	router := chi.NewRouter()
	// The security headers before everything else, so that every answer carries them (handlers may
	// replace them). Then the request id, so that every later middleware's log lines carry it; metrics
	// and the access log outside the recoverer, so that a panic is counted and logged as the 500 it
	// answers. A CORS preflight is answered before all of them: it is neither counted nor logged.
	router.Use(securityHeaders)
	if c := corsMiddleware(opts.CORSOrigins); c != nil {
		router.Use(c) // a preflight is answered here, before the routes and their authentication
	}
	router.Use(telemetry.RequestID, opts.Tracing.HTTP, opts.Metrics.HTTP, s.accessLog, s.recoverer)
	router.NotFound(func(w http.ResponseWriter, r *http.Request) {
		// A browser's navigation to a path nobody owns is the web app's (its own "not found" screen);
		// any other request gets the error shape.
		if web.WantsPage(r) {
			web.Page(w, r)
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s", r.Method, r.URL.Path))
	})
	router.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	router.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	router.Get("/readyz", s.ready)
	mountWeb(router)

	cfg := huma.DefaultConfig("Pilot API", "1.0.0")
	cfg.CreateHooks = nil
	cfg.Info.License = &huma.License{Name: "Apache-2.0", Identifier: "Apache-2.0"}
	cfg.Info.Description = "Work management with a strategic cockpit and AI agents. Authenticate with " +
		"`Authorization: Bearer <JWT or personal access token>`."
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "A JWT from /auth/login or a personal access token from " +
			"/api-tokens"},
	}
	// The OpenAPI document and the docs page are served by mountDocs (docs.go), in production too: the
	// document is what clients are generated from, the page needs no other origin.
	cfg.DocsPath, cfg.OpenAPIPath, cfg.SchemasPath = "", "", ""
	if !opts.Production {
		cfg.SchemasPath = "/api/schemas"
	}
	registerValues(cfg.Components.Schemas)
	cfg.Transformers = append(cfg.Transformers, logUnavailable(s.logger))
	s.api = humachi.New(router, cfg)
	s.mountDocs(router, !opts.NoDocs)
	s.api.UseMiddleware(s.guard)

	s.registerOperations(opts.Context, router)
	finishOpenAPI(s.api.OpenAPI(), opts.PublicURL)
	return s, router
}

// registerOperations is the route table: every area's operations, and /mcp.
func (s *Server) registerOperations(ctx context.Context, router *chi.Mux) {
	s.ops.account.registerAuth()
	s.ops.account.registerTwoFactor()
	s.ops.account.registerRecovery()
	s.ops.account.registerTokens()
	s.ops.account.registerSessions()
	s.ops.account.registerOIDC()
	s.ops.account.registerCalendarFeeds()
	s.ops.tenancy.registerOrganizations()
	s.ops.tenancy.registerAuditLog()
	s.ops.tenancy.registerOrganizationDomains()
	s.ops.tenancy.registerWorkspaces()
	s.ops.tenancy.registerInvitations()
	s.ops.tenancy.registerProjects()
	s.ops.board.registerCards()
	s.ops.board.registerMyCards()
	s.ops.board.registerScopes()
	s.ops.board.registerPortfolio()
	s.ops.board.registerCardParts()
	s.ops.board.registerRecurrence()
	s.ops.board.registerComments()
	s.ops.board.registerCardActivity()
	s.ops.board.registerAttachments()
	s.ops.board.registerImports()
	s.ops.board.registerTimeTracking()
	s.ops.account.registerNotifications()
	s.ops.workflow.registerAutomations()
	s.ops.agents.registerAgents()
	s.ops.agents.registerMissions()
	s.ops.agents.registerAgentUsage()
	s.ops.agents.registerEvents()
	s.mountMCP(ctx, router)
	s.ops.agents.registerDrafts()
	s.ops.workflow.registerPipelines()
	s.ops.workflow.registerWebhooks()
	s.ops.workflow.registerPlugins()
	s.ops.cockpit.registerPilotage()
	s.ops.docs.registerDocuments()
}

// mountWeb serves the web app: its files under web.AssetPrefix, its icon at /favicon.ico and its page on
// its own routes (GET and HEAD only, so the API's POST /invitations/{token}/accept stays the API's). The
// router's NotFound answers the page to a browser's navigation to any other unknown path.
func mountWeb(router chi.Router) {
	assets := web.Assets()
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		router.Method(m, web.AssetPrefix+"*", assets)
		for _, p := range web.Routes {
			router.MethodFunc(m, p, web.Page)
		}
		router.MethodFunc(m, "/favicon.ico", web.Favicon)
	}
}

// ready answers 200 when the database answers and every migration is applied.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		writeError(w, http.StatusServiceUnavailable, "database unreachable")
		return
	}
	pending, err := s.store.MigrationsPending(ctx)
	if err != nil || pending {
		writeError(w, http.StatusServiceUnavailable, "migrations not applied")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// recoverer turns a panic into a logged 500 in the error shape.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if rec := recover(); rec != nil {
				if err, ok := rec.(error); ok && errors.Is(err, http.ErrAbortHandler) {
					panic(rec)
				}
				s.logger.ErrorContext(r.Context(), "panic", "error", fmt.Sprint(rec), "stack", string(debug.Stack()))
				writeError(w, http.StatusInternalServerError, "internal server error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// clientIP is the caller's address: the socket peer, or X-Forwarded-For's first hop when the deployment
// says a trusted proxy sets it.
func (s *Server) clientIP(remoteAddr, forwardedFor string) string {
	if s.opts.TrustProxyHeaders && forwardedFor != "" {
		first, _, _ := strings.Cut(forwardedFor, ",")
		return httprate.CanonicalizeIP(strings.TrimSpace(first))
	}
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	return httprate.CanonicalizeIP(host)
}

// auditRequest is who calls from where, as the audit log records it: the client address (clientIP) and
// the user agent of a request with remoteAddr and headers X-Forwarded-For and User-Agent; the caller is
// added once known. The guard (REST) and mcpAuth (/mcp) both build it here.
func (s *Server) auditRequest(remoteAddr, forwardedFor, userAgent string) audit.Request {
	return audit.Request{ClientIP: s.clientIP(remoteAddr, forwardedFor), UserAgent: userAgent}
}

func jsonEncode(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = jsonEncode(w, v)
}

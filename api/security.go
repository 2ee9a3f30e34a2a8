package api

// This file holds the router's outermost middleware: the security headers every answer carries, and
// CORS for the browser origins the deployment lists.

import (
	"net/http"
	"strings"

	"github.com/rs/cors"
)

// Default security headers. Each is set before any handler runs, so a handler that needs another value
// replaces it: an attachment download sandboxes itself with a stricter Content-Security-Policy, the
// event streams answer Cache-Control: no-cache, and the web app's page and files set theirs (web.CSP).
const (
	// defaultCSP forbids framing our answers (clickjacking). It says nothing about scripts or styles:
	// JSON needs no more, and the HTML pages (API docs, the web app: web.CSP) set their own.
	defaultCSP = "frame-ancestors 'none'"
	// privateCacheControl keeps authenticated answers and every /auth answer out of every cache, shared
	// or the browser's own.
	privateCacheControl = "no-store"
)

// securityHeaders sets, on every answer (errors, 404s and the OpenAPI document included):
// X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer, Content-Security-Policy:
// frame-ancestors 'none' unless the handler sets its own, and Cache-Control: no-store on answers to
// authenticated requests (an Authorization header or the session cookie) and on every /auth answer,
// unless the handler sets its own (the event streams' no-cache).
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", defaultCSP)
		if private(r) {
			h.Set("Cache-Control", privateCacheControl)
		}
		next.ServeHTTP(w, r)
	})
}

// private reports whether a request's answer must not be cached: it carries credentials, or it is an
// /auth route (sessions, tokens, 2FA secrets).
func private(r *http.Request) bool {
	if r.Header.Get("Authorization") != "" || r.URL.Path == "/auth" || strings.HasPrefix(r.URL.Path, "/auth/") {
		return true
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && c.Value != ""
}

// corsPreflightMaxAge is how long browsers may keep a preflight's answer (seconds).
const corsPreflightMaxAge = 600

// corsMiddleware lets the browser origins listed (Options.CORSOrigins, exact origins such as
// https://app.example.com) call the API with credentials (the session cookie, an Authorization
// header): their requests are answered with Access-Control-Allow-Origin set to their own origin, never
// "*", and Access-Control-Allow-Credentials: true; a preflight (OPTIONS with
// Access-Control-Request-Method) is answered 204 without reaching the routes. Any other origin gets no
// CORS header, so browsers keep it out. With no origin listed there is no CORS middleware at all (nil).
func corsMiddleware(origins []string) func(http.Handler) http.Handler {
	if len(origins) == 0 {
		return nil
	}
	allowed := make(map[string]bool, len(origins))
	for _, o := range origins {
		allowed[strings.ToLower(o)] = true
	}
	c := cors.New(cors.Options{
		// A function rather than AllowedOrigins: an exact match only, whatever the list holds ("*" or
		// a wildcard would mean any origin to AllowedOrigins).
		AllowOriginFunc: func(origin string) bool { return allowed[strings.ToLower(origin)] },
		AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
			http.MethodDelete},
		// What the clients send: credentials, JSON, the CSRF token of cookie sessions, the event
		// streams' resume point, the request id, MCP's session and protocol version (/mcp), and a known
		// device's token on sign-in.
		AllowedHeaders: []string{"Accept", "Authorization", "Content-Type", "X-CSRF-Token", "Last-Event-ID",
			"X-Request-ID", "Mcp-Session-Id", "Mcp-Protocol-Version", "X-Pilot-Device"},
		// What the clients read: MCP's session id (answered to initialize), the 401 challenge, the
		// request id, an attachment's file name, and how long a 429 asks them to wait.
		ExposedHeaders: []string{"Mcp-Session-Id", "WWW-Authenticate", "X-Request-ID", "Content-Disposition",
			"Retry-After"},
		AllowCredentials: true,
		MaxAge:           corsPreflightMaxAge,
	})
	return c.Handler
}

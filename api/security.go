package api

// This file holds the router's outermost middleware: the security headers every answer carries.

import (
	"net/http"
	"strings"
)

// Default security headers. Each is set before any handler runs, so a handler that needs another value
// replaces it: an attachment download sandboxes itself with a stricter Content-Security-Policy, the
// event streams answer Cache-Control: no-cache, and a web app serving its own HTML will set its own CSP.
const (
	// defaultCSP forbids framing our answers (clickjacking). It says nothing about scripts or styles:
	// JSON needs no more, and the HTML pages (API docs, a later web app) set their own.
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

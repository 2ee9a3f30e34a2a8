package api

// This file puts the /mcp transport's own answers in the API's shape: the SDK answers what it refuses
// outside JSON-RPC (a malformed payload, an unknown session, a body too large, a wrong method or Accept
// header) with http.Error's plain text, and offers no hook to change it, so a response writer rewrites
// them.

import (
	"bytes"
	"net/http"
	"strings"
)

// mcpErrorBodyLimit bounds the SDK error text kept for the message (its texts are one short line).
const mcpErrorBodyLimit = 1024

// mcpErrorShape answers every error of the MCP transport in the error shape (ErrorBody, application/json)
// with the SDK's status and its text as the message. JSON-RPC answers (application/json, whatever their
// status) and event streams pass as they are. Answers that are not event streams are Cache-Control:
// no-store, as every authenticated answer (the SDK sets no-cache on all of its answers).
func mcpErrorShape(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ew := &mcpErrorWriter{ResponseWriter: w}
		defer ew.finish()
		next.ServeHTTP(ew, r)
	})
}

// mcpErrorWriter holds back a plain-text error answer and writes it in the error shape when the handler
// returns; any other answer goes through.
type mcpErrorWriter struct {
	http.ResponseWriter
	wroteHeader bool
	// status is the error being held back (0: the answer goes through).
	status int
	text   bytes.Buffer
}

func (w *mcpErrorWriter) WriteHeader(code int) {
	if w.wroteHeader {
		w.ResponseWriter.WriteHeader(code) // superfluous: net/http logs it as it would have
		return
	}
	w.wroteHeader = true
	h := w.Header()
	ct := h.Get("Content-Type")
	if code >= 400 && (ct == "" || strings.HasPrefix(ct, "text/plain")) {
		w.status = code
		return
	}
	if !strings.HasPrefix(ct, "text/event-stream") {
		h.Set("Cache-Control", privateCacheControl)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *mcpErrorWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.status != 0 {
		if room := mcpErrorBodyLimit - w.text.Len(); room > 0 {
			w.text.Write(b[:min(len(b), room)])
		}
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Flush flushes an answer that goes through (the SDK flushes event streams); a held-back error waits
// for finish.
func (w *mcpErrorWriter) Flush() {
	if w.status != 0 {
		return
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection (write deadlines).
func (w *mcpErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the held-back error in the error shape.
func (w *mcpErrorWriter) finish() {
	if w.status == 0 {
		return
	}
	msg := strings.TrimSpace(w.text.String())
	switch {
	case w.status == http.StatusNotFound && msg == "session not found":
		msg = "MCP session not found: it was closed or it expired; start a new one with initialize"
	case msg == "":
		msg = strings.ToLower(http.StatusText(w.status))
	}
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Cache-Control", privateCacheControl)
	writeError(w.ResponseWriter, w.status, msg)
}

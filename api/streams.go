package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/sessionwatch"
	"github.com/pilot-dev/pilot/internal/stream"
)

// unwrapStream returns the HTTP request and response writer of a streaming operation, the request's
// context also ending when the caller's credential ends (watch), so an open stream ends with its
// session or token; stop releases the watch once the stream is done.
func (s *Server) unwrapStream(hctx huma.Context) (r *http.Request, w http.ResponseWriter, stop func()) {
	r, w = humachi.Unwrap(hctx)
	ctx, stop := s.watch(r.Context(), principalFrom(hctx.Context()))
	return r.WithContext(ctx), w, stop
}

// watch returns a context derived from ctx that ends, with cause sessionwatch.ErrSessionEnded, when the
// credential p authenticated with ends in any api process: its session (revoked, or a password changed)
// or its personal access token (revoked). stop releases the watch.
func (s *Server) watch(ctx context.Context, p *Principal) (context.Context, func()) {
	if p == nil {
		return ctx, func() {}
	}
	c := sessionwatch.Credential{UserID: p.User.ID, SessionID: p.Session.ID}
	if p.ViaPAT {
		c = sessionwatch.Credential{UserID: p.User.ID, TokenID: p.TokenID}
	}
	return s.opts.Sessions.Watch(ctx, c)
}

// serveStream answers r with the server-sent event stream streamID of the given kind (db.StreamMission,
// draft.StreamDraft, pipeline.StreamRun): events after lastEventID replayed from the database, then live
// ones, until the event reporting the entity's final status (the kind's rule, the same for every kind;
// at once after the replay when the entity is already final) or the client goes away. The caller has
// checked access to the stream's entity. When lastEventID is 0, the request's Last-Event-ID header (a
// client's reconnect) applies.
func (s agentOps) serveStream(w http.ResponseWriter, r *http.Request, kind db.StreamKind, streamID string,
	lastEventID int64) {
	if lastEventID == 0 {
		lastEventID = stream.ParseLastEventID(r.Header.Get("Last-Event-ID"))
	}
	err := s.opts.Relay.Serve(w, r, kind, streamID, lastEventID)
	s.streamEnded(w, r, err, "kind", kind.Name, "streamId", streamID)
}

// streamEnded answers or logs how a stream of the relay ended: an error before its first byte (the
// database out of reach, the server shutting down) is answered in the error shape; one after is logged.
func (s *Server) streamEnded(w http.ResponseWriter, r *http.Request, err error, logArgs ...any) {
	switch {
	case err == nil, errors.Is(err, stream.ErrClosed) && !errors.Is(err, stream.ErrNotStarted):
	case errors.Is(err, stream.ErrNotStarted):
		if errors.Is(err, stream.ErrClosed) {
			writeError(w, http.StatusServiceUnavailable, "the server is shutting down")
			return
		}
		if body := unavailable(err); body != nil {
			s.logger.WarnContext(r.Context(), "start stream: database unavailable", append(logArgs, "error", err)...)
			writeError(w, body.StatusCode, body.Message) // with Retry-After
			return
		}
		s.logger.ErrorContext(r.Context(), "start stream", append(logArgs, "error", err)...)
		writeError(w, http.StatusInternalServerError, "internal server error")
	default:
		s.logger.WarnContext(r.Context(), "stream", append(logArgs, "error", err)...)
	}
}

// serveMissionStream answers r with a mission's event stream: it ends after the event reporting the
// mission completed or failed, and stays open through awaiting_approval (db.StreamMission).
func (s agentOps) serveMissionStream(w http.ResponseWriter, r *http.Request, missionID string, lastEventID int64) {
	s.serveStream(w, r, db.StreamMission, missionID, lastEventID)
}

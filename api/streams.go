package api

import (
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/stream"
)

// unwrapStream returns the HTTP request and response writer of a streaming operation, the request's
// context also ending when the caller's session ends (revoked, or a password changed), so an open
// stream ends with its session; stop releases the watch once the stream is done.
func (s *Server) unwrapStream(hctx huma.Context) (r *http.Request, w http.ResponseWriter, stop func()) {
	r, w = humachi.Unwrap(hctx)
	p := principalFrom(hctx.Context())
	if p == nil || p.ViaPAT || p.Session.ID == "" {
		return r, w, func() {}
	}
	ctx, stop := s.opts.Sessions.Watch(r.Context(), p.User.ID, p.Session.ID)
	return r.WithContext(ctx), w, stop
}

// serveStream answers r with the server-sent event stream streamID of the given kind (db.StreamMission,
// draft.StreamDraft...): events after lastEventID replayed from the database, then live ones, until a final
// event or the client goes away. The caller has checked access to the stream's entity. When lastEventID
// is 0, the request's Last-Event-ID header (a client's reconnect) applies.
func (s agentOps) serveStream(w http.ResponseWriter, r *http.Request, kind, streamID string, lastEventID int64) {
	s.serveStreamWith(w, r, stream.ServeOptions{Kind: kind, StreamID: streamID, After: lastEventID})
}

// serveStreamWith is serveStream with the relay's options (Follow).
func (s agentOps) serveStreamWith(w http.ResponseWriter, r *http.Request, o stream.ServeOptions) {
	kind, streamID := o.Kind, o.StreamID
	if o.After == 0 {
		o.After = stream.ParseLastEventID(r.Header.Get("Last-Event-ID"))
	}
	err := s.opts.Relay.ServeWith(w, r, o)
	switch {
	case err == nil, errors.Is(err, stream.ErrClosed) && !errors.Is(err, stream.ErrNotStarted):
	case errors.Is(err, stream.ErrNotStarted):
		if errors.Is(err, stream.ErrClosed) {
			writeError(w, http.StatusServiceUnavailable, "the server is shutting down")
			return
		}
		s.logger.ErrorContext(r.Context(), "start stream", "kind", kind, "streamId", streamID, "error", err)
		writeError(w, http.StatusInternalServerError, "internal server error")
	default:
		s.logger.WarnContext(r.Context(), "stream", "kind", kind, "streamId", streamID, "error", err)
	}
}

// serveMissionStream answers r with a mission's event stream: it ends when the mission is terminal
// (completed or failed) or awaiting approval (db.MissionStreamEnds).
func (s agentOps) serveMissionStream(w http.ResponseWriter, r *http.Request, missionID string, lastEventID int64) {
	s.serveStream(w, r, db.StreamMission, missionID, lastEventID)
}

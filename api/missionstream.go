package api

import (
	"errors"
	"net/http"

	"github.com/pilot-dev/pilot/internal/stream"
)

// serveMissionStream answers r with the server-sent event stream of a mission: events after
// lastEventID replayed from the database, then live ones, until the mission is terminal (completed or
// failed) or awaiting approval, or the client goes away. The caller has checked access to the mission.
// When lastEventID is 0, the request's Last-Event-ID header (a client's reconnect) applies.
func (s *Server) serveMissionStream(w http.ResponseWriter, r *http.Request, missionID string, lastEventID int64) {
	if lastEventID == 0 {
		lastEventID = stream.ParseLastEventID(r.Header.Get("Last-Event-ID"))
	}
	err := s.opts.Relay.Serve(w, r, missionID, lastEventID)
	switch {
	case err == nil, errors.Is(err, stream.ErrClosed) && !errors.Is(err, stream.ErrNotStarted):
	case errors.Is(err, stream.ErrNotStarted):
		if errors.Is(err, stream.ErrClosed) {
			writeError(w, http.StatusServiceUnavailable, "the server is shutting down")
			return
		}
		s.logger.ErrorContext(r.Context(), "start mission stream", "missionId", missionID, "error", err)
		writeError(w, http.StatusInternalServerError, "internal server error")
	default:
		s.logger.WarnContext(r.Context(), "mission stream", "missionId", missionID, "error", err)
	}
}

package api

import (
	"net/http"
)

// serveMissionStream answers r with the server-sent event stream of a mission: events after
// lastEventID replayed from the database, then live ones, until the mission is terminal (completed or
// failed) or awaiting approval, or the client goes away. The caller has checked access to the mission.
//
// Placeholder until the stream relay lands.
func (s *Server) serveMissionStream(w http.ResponseWriter, r *http.Request, missionID string, lastEventID int64) {
	writeError(w, http.StatusNotImplemented, "mission streams are not available yet")
}

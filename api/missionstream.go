package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/stream"
)

// MissionStreamInput addresses a mission's event stream.
type MissionStreamInput struct {
	WorkspacePath
	MissionID   string `path:"missionId" doc:"The mission's id"`
	LastEventID string `header:"Last-Event-ID" doc:"The last event id received: the stream replays the events after it"`
}

// registerMissionStreams adds the re-attach endpoint of mission progress streams. The relay is
// Options.Relay (the api process passes one started with its context, so that shutting down ends every
// stream); when nil, New's server gets its own relay, started on the first subscription.
func (s *Server) registerMissionStreams() {
	if s.opts.Relay == nil {
		s.opts.Relay = stream.New(s.store, stream.Config{Logger: s.logger})
	}
	register(s, huma.Operation{OperationID: "missions-events", Method: http.MethodGet, Path: pathWorkspace + "/missions/{missionId}/events",
		Summary: "Watch a mission's progress (server-sent events)", Tags: []string{"Agents"},
		Description: "A `text/event-stream` of the mission's events: each has `id` (the per-mission sequence), `event` " +
			"(status, step, proposal, token, done) and JSON `data` {missionId, seq, type, status, message, data, at}. " +
			"Events after `Last-Event-ID` are replayed first. The stream ends after an event whose status is completed, " +
			"failed or awaiting_approval (at once when the mission already is); comment lines are heartbeats.",
		Responses: map[string]*huma.Response{"200": {Description: "The event stream", Content: map[string]*huma.MediaType{"text/event-stream": {}}}}},
		Access{Scope: auth.ScopeProjectsRead, WSRole: "member"},
		func(ctx context.Context, in *MissionStreamInput) (*huma.StreamResponse, error) {
			m, err := s.store.MissionStream(ctx, in.MissionID)
			if errors.Is(err, db.ErrNotFound) || (err == nil && m.WorkspaceID != accessFrom(ctx).WorkspaceID) {
				return nil, errNotFound("mission not found")
			}
			if err != nil {
				return nil, fail(err)
			}
			last := stream.ParseLastEventID(in.LastEventID)
			return &huma.StreamResponse{Body: func(hctx huma.Context) {
				r, w := humachi.Unwrap(hctx)
				s.serveMissionStream(w, r, in.MissionID, last)
			}}, nil
		})
}

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

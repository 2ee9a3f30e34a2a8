package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/stream"
)

// maxFeedProjects bounds the projectId filters of one feed.
const maxFeedProjects = 100

func (s agentOps) registerEvents() {
	register(s.Server, huma.Operation{OperationID: "events-feed", Method: http.MethodGet, Path: pathWorkspace + "/events",
		Summary: "Follow the workspace's events (server-sent events)", Tags: []string{"Events"},
		Description: "A `text/event-stream` of everything that happens in the workspace that the caller may read: cards " +
			"(card_created, card_updated, card_moved, card_archived, card_deleted, card_assigned), comments, checklists, " +
			"labels, attachments, documents, projects and their members, missions, pipeline runs, pilotage records and " +
			"actions. Each event has `id` (its feed position, a cursor), `event` (the activity type) and JSON `data` {id, " +
			"type, workspaceId, projectId, cardId, documentId, actorId, meta, createdAt}; a move's meta has fromColumn and " +
			"toColumn. Events come in position order. Without `Last-Event-ID` the stream starts at the feed's end; with it, " +
			"at the event after it, replaying what was missed. A cursor older than the retention (EVENTS_RETENTION, 7 days by " +
			"default) is answered with one `reload` event (no id) and the stream ends: reload, then follow the feed from its " +
			"end. `projectId` (repeatable) keeps the events of those projects only. Each event is sent only while the caller " +
			"may read it: one who leaves the workspace gets nothing more, and the stream ends. Comment lines are heartbeats.",
		Errors: []int{http.StatusNotFound},
		Responses: map[string]*huma.Response{"200": {Description: "The event stream",
			Content: map[string]*huma.MediaType{"text/event-stream": {}}}}}, projectRead, s.watchEvents)
}

// EventsInput addresses a workspace's event feed.
type EventsInput struct {
	WorkspacePath
	ProjectIDs  []string `query:"projectId,explode" maxItems:"100" doc:"Keep the events of these projects only (repeatable); workspace-level events (documents, deleted projects) are left out"`
	LastEventID string   `header:"Last-Event-ID" doc:"The last event id received: the stream replays the events after it"`
}

// watchEvents answers the workspace's event feed, after checking the projects asked for.
func (s agentOps) watchEvents(ctx context.Context, in *EventsInput) (*huma.StreamResponse, error) {
	acc := accessFrom(ctx)
	var projects map[string]bool
	if len(in.ProjectIDs) > 0 {
		projects = make(map[string]bool, len(in.ProjectIDs))
		for _, id := range in.ProjectIDs {
			if !isUUID(id) {
				return nil, errNotFound("project not found")
			}
			if _, err := s.board.Project(ctx, acc.WorkspaceID, id); err != nil {
				return nil, fail(err)
			}
			projects[id] = true
		}
		if len(projects) > maxFeedProjects {
			return nil, errBadRequest(fmt.Sprintf("projectId: at most %d", maxFeedProjects))
		}
	}
	p := principalFrom(ctx)
	reader := &feedReader{s: s.Server, userID: p.User.ID, target: tenancy.Target{OrgSlug: acc.OrgSlug, WsSlug: in.WsSlug},
		workspaceID: acc.WorkspaceID, projects: projects, gen: s.opts.AccessCache.Generation(), at: time.Now()}
	last := stream.ParseLastEventID(in.LastEventID)
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w, stop := s.unwrapStream(hctx)
		defer stop()
		err := s.opts.Relay.ServeFeed(w, r, stream.Feed{WorkspaceID: acc.WorkspaceID, Allow: reader.allow}, last)
		if errors.Is(err, stream.ErrAccessLost) {
			return // the reader left the workspace: the stream just ends
		}
		s.streamEnded(w, r, err, "kind", "feed", "workspaceId", acc.WorkspaceID)
	}}, nil
}

// feedReader decides, for one reader of a workspace's feed, which events it may have as each is sent:
// those of the projects it asked for (every one when none), while it may read the workspace. Its access
// is the guard's (tenancy.Engine.ResolveAccess: reading a workspace's projects takes its membership or
// the organization's owner or admin role), resolved once when the stream opens and again before the
// next event whenever the access cache has heard of a change to memberships, users, organizations,
// workspaces or projects (the pilot_access notifications, or a write of this process) and at least every
// accesscache.TTL: checking an event is a map lookup and two atomic loads, and a reader removed from the
// workspace gets no event this process reads after it heard the removal. Losing access ends the stream
// (stream.ErrAccessLost). A known gap: the feed is polled (stream.Config.FeedPoll) while removals are heard
// on the access cache's own LISTEN connection, so under load a poll may deliver one event committed after
// the removal before the removal is heard (to close: an access epoch read in the poll's query).
type feedReader struct {
	s           *Server
	userID      string
	target      tenancy.Target
	workspaceID string
	projects    map[string]bool
	gen         uint64
	at          time.Time
}

func (f *feedReader) allow(ctx context.Context, ev *db.FeedEvent) (bool, error) {
	if f.projects != nil && (ev.ProjectID == nil || !f.projects[*ev.ProjectID]) {
		return false, nil
	}
	if f.s.opts.AccessCache.Current(f.gen, f.at) {
		return true, nil
	}
	gen, at := f.s.opts.AccessCache.Generation(), time.Now()
	acc, err := f.s.tenancy.ResolveAccess(ctx, f.userID, f.target)
	if errors.Is(err, db.ErrNotFound) || (err == nil && acc.WorkspaceID != f.workspaceID) {
		return false, stream.ErrAccessLost
	}
	if err != nil {
		return false, fmt.Errorf("resolve feed access: %w", err)
	}
	f.gen, f.at = gen, at
	return true, nil
}

// The workspace event feed: activities as the events a reader of a workspace is sent (GET WS/events,
// internal/stream) and that webhooks deliver. One shape, FeedEvent, and its loaders live here.

package db

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// The activity types recorded for the feed only (dbcore.RecordQuietActivities): they notify nobody.
const (
	ActivityProjectCreated         = dbcore.ActivityProjectCreated
	ActivityProjectUpdated         = dbcore.ActivityProjectUpdated
	ActivityCommentDeleted         = dbcore.ActivityCommentDeleted
	ActivityDocumentCreated        = dbcore.ActivityDocumentCreated
	ActivityDocumentUpdated        = dbcore.ActivityDocumentUpdated
	ActivityMissionStatusChanged   = dbcore.ActivityMissionStatusChanged
	ActivityPipelineRunFinished    = dbcore.ActivityPipelineRunFinished
	ActivityPilotageRecordCreated  = dbcore.ActivityPilotageRecordCreated
	ActivityPilotageRecordUpdated  = dbcore.ActivityPilotageRecordUpdated
	ActivityPilotageRecordDeleted  = dbcore.ActivityPilotageRecordDeleted
	ActivityPilotageActionProposed = dbcore.ActivityPilotageActionProposed
	ActivityPilotageActionReviewed = dbcore.ActivityPilotageActionReviewed
	ActivityPilotageActionApplied  = dbcore.ActivityPilotageActionApplied
)

// FeedOnlyActivityTypes lists the activity types recorded for the feed only: none notifies anyone.
var FeedOnlyActivityTypes = []string{ActivityProjectCreated, ActivityProjectUpdated, ActivityCommentDeleted,
	ActivityDocumentCreated, ActivityDocumentUpdated, ActivityMissionStatusChanged, ActivityPipelineRunFinished,
	ActivityPilotageRecordCreated, ActivityPilotageRecordUpdated, ActivityPilotageRecordDeleted,
	ActivityPilotageActionProposed, ActivityPilotageActionReviewed, ActivityPilotageActionApplied}

// FeedEvent is one activity as the workspace's event feed carries it: the JSON data of a feed event
// and of a webhook delivery. ID is its feed position (Seq) as a string, a cursor: the feed is ordered
// by it and a reader resumes after it. ProjectID is null for a workspace-level activity (a document's
// review, a deleted project); CardID, DocumentID and ActorID are null when the activity has none. Meta
// is the activity's own (a move's fromColumn and toColumn, say).
type FeedEvent struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	WorkspaceID string          `json:"workspaceId"`
	ProjectID   *string         `json:"projectId"`
	CardID      *string         `json:"cardId"`
	DocumentID  *string         `json:"documentId"`
	ActorID     *string         `json:"actorId"`
	Meta        json.RawMessage `json:"meta"`
	CreatedAt   time.Time       `json:"createdAt"`
	// ActorType is agent when an agent acted (through its service user, ActorID), person when a person
	// did, system when nobody did (a due date passing).
	ActorType ActorType `json:"actorType"`
	// Agent is the agent that acted (actorType agent), else null.
	Agent *AgentRef `json:"agent"`
	// OnBehalfOf is the person an agent acted for: who started its mission, or approved the proposal
	// applied; null otherwise.
	OnBehalfOf *PersonRef `json:"onBehalfOf"`
	// Seq is the feed position (ID as a number).
	Seq int64 `json:"-"`
	// ActivityID is the activity's own id (notifications and automation jobs name it).
	ActivityID string `json:"-"`
}

// FeedRow is an activity as every feed query reads it (their generated rows convert to it), and as a
// webhook delivery reads the activity it reports: Event makes the one event shape of both.
type FeedRow struct {
	Seq         int64
	ID          string
	WorkspaceID string
	ProjectID   *string
	CardID      *string
	DocumentID  *string
	ActorID     *string
	Type        string
	Meta        json.RawMessage
	CreatedAt   time.Time
	Actor       ActorColumns
}

// Event is the row as the feed and a webhook delivery's data show it.
func (r FeedRow) Event() FeedEvent {
	meta := r.Meta
	if len(meta) == 0 {
		meta = json.RawMessage("{}")
	}
	return FeedEvent{ID: strconv.FormatInt(r.Seq, 10), Type: r.Type, WorkspaceID: r.WorkspaceID, ProjectID: r.ProjectID,
		CardID: r.CardID, DocumentID: r.DocumentID, ActorID: r.ActorID, Meta: meta, CreatedAt: r.CreatedAt, Seq: r.Seq,
		ActivityID: r.ID, ActorType: r.Actor.Type(), Agent: r.Actor.AgentRef(), OnBehalfOf: r.Actor.PersonRef()}
}

// feedRow converts a generated feed row, whose columns are FeedRow's then the actor's.
func feedRow[R interface {
	dbsqlc.EventsAfterRow | dbsqlc.EventsPollRow | dbsqlc.EventsByActivityIDsRow
}](r R) FeedRow {
	x := dbsqlc.EventsPollRow(r)
	return FeedRow{Seq: x.Seq, ID: x.ID, WorkspaceID: x.WorkspaceID, ProjectID: x.ProjectID, CardID: x.CardID,
		DocumentID: x.DocumentID, ActorID: x.ActorID, Type: x.Type, Meta: x.Meta, CreatedAt: x.CreatedAt,
		Actor: ActorColumns{ActorType: x.ActorType, AgentID: x.AgentID, AgentName: x.AgentName, OnBehalfOf: x.OnBehalfOf,
			OnBehalfOfName: x.OnBehalfOfName}}
}

// EventsAfter reads a workspace's feed events with after < seq < before (before 0: no upper bound), in
// order, at most limit: the replay of a reader's cursor.
func (s *Store) EventsAfter(ctx context.Context, workspaceID string, after, before int64,
	limit int32) ([]FeedEvent, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := s.q.EventsAfter(ctx, dbsqlc.EventsAfterParams{WorkspaceID: workspaceID, After: after, Before: before,
		Lim: limit})
	return mapRows(rows, func(r dbsqlc.EventsAfterRow) FeedEvent { return feedRow(r).Event() }), wrap(err,
		"list feed events")
}

// EventsByActivityIDs reads activities as feed events, in feed order; ids that name nothing are left out.
func (s *Store) EventsByActivityIDs(ctx context.Context, ids []string) ([]FeedEvent, error) {
	rows, err := s.q.EventsByActivityIDs(ctx, ids)
	return mapRows(rows, func(r dbsqlc.EventsByActivityIDsRow) FeedEvent { return feedRow(r).Event() }), wrap(err,
		"list feed events")
}

// EventsPoll reads the feed events of every workspace after the position after, and at the earlier
// positions gaps, in order, at most limit (the api's poller, internal/stream).
func (s *Store) EventsPoll(ctx context.Context, after int64, gaps []int64, limit int32) ([]FeedEvent, error) {
	if gaps == nil {
		gaps = []int64{}
	}
	rows, err := s.q.EventsPoll(ctx, dbsqlc.EventsPollParams{After: after, Gaps: gaps, Lim: limit})
	return mapRows(rows, func(r dbsqlc.EventsPollRow) FeedEvent { return feedRow(r).Event() }), wrap(err,
		"poll feed events")
}

// EventsRecent lists the positions of the last limit activities, highest first.
func (s *Store) EventsRecent(ctx context.Context, limit int32) ([]int64, error) {
	seqs, err := s.q.EventsRecent(ctx, limit)
	return seqs, wrap(err, "list feed positions")
}

// EventsCursorTime is the time of the last activity at or before the position seq; ok is false when
// there is none (the cursor is older than every activity, or names none).
func (s *Store) EventsCursorTime(ctx context.Context, seq int64) (at time.Time, ok bool, err error) {
	at, err = s.q.EventsCursorTime(ctx, seq)
	if isNotFound(err) {
		return at, false, nil
	}
	return at, err == nil, wrap(err, "read feed cursor")
}

// TxHorizon is a snapshot's bounds: Xmin, the oldest transaction still running, and Xmax, the next
// transaction id. Every transaction with an id below Xmin has ended.
type TxHorizon struct{ Xmin, Xmax int64 }

// EventsHorizon reads the current snapshot's TxHorizon (the poller gives up a missing position once
// every transaction that was running when it went missing has ended).
func (s *Store) EventsHorizon(ctx context.Context) (TxHorizon, error) {
	row, err := s.q.EventsHorizon(ctx)
	return TxHorizon{Xmin: row.Xmin, Xmax: row.Xmax}, wrap(err, "read transaction horizon")
}

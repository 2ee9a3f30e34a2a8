// Streams: the durable event logs that api processes relay live over SSE (internal/stream). One table
// serves every kind of stream; a stream is keyed by the id of the entity it reports on.

package db

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// StreamEventsChannel is the PostgreSQL channel announcing new stream events of every kind. Its payload
// is "<streamId>:<seq>"; listeners read the rows from stream_events.
const StreamEventsChannel = "pilot_stream_events"

// StreamKind is a kind of stream: Name names the entity a stream reports on (the events' JSON carries
// the stream's id as "<Name>Id": missionId, draftId, runId), and Final lists the statuses of that entity
// that are final: once there, it changes no more. Every event carries its entity's status, so the one
// rule of every stream is Ends: a stream ends after the event reporting a final status, and a stream
// whose last event has one is over (a reader replays up to it and stops). Any other status, however
// long it may last (a mission awaiting approval, a draft whose questions wait for answers), keeps the
// stream open.
type StreamKind struct {
	Name  string
	Final []string
}

// Ends reports whether an event with this status is its stream's last: its entity reached a final status.
func (k StreamKind) Ends(status string) bool { return slices.Contains(k.Final, status) }

// StreamMission is the kind of mission streams: a mission is final once completed, failed, stopped or
// expired (MissionStatus.Final). awaiting_approval, awaiting_input and stale are not final: a decision,
// an answer or a resume moves the mission on, with more events.
var StreamMission = StreamKind{Name: "mission", Final: Strings(MissionFinalStatuses)}

// NewStreamEvent is one event to append to a stream. Status is its entity's status, which decides
// whether the event ends the stream (StreamKind.Ends).
type NewStreamEvent struct {
	Type    string
	Status  string
	Message string
	Data    map[string]any
}

// AppendStreamEventTx appends an event to the stream streamID of the given kind (creating the stream on
// its first event) and announces it with pg_notify, in the caller's transaction: listeners hear of it
// only if it commits, and in order (the stream's row lock serialises its writers until commit).
func (s *Store) AppendStreamEventTx(ctx context.Context, tx pgx.Tx, kind StreamKind, streamID string,
	ev NewStreamEvent) (StreamEvent, error) {
	q := queries(tx)
	data := ev.Data
	if data == nil {
		data = map[string]any{}
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return StreamEvent{}, fmt.Errorf("encode event data: %w", err)
	}
	row, err := q.StreamEventAppend(ctx, dbsqlc.StreamEventAppendParams{StreamID: streamID, Kind: kind.Name, Type: ev.Type,
		Status: ev.Status, Message: ev.Message, Data: raw, Final: kind.Ends(ev.Status)})
	if isNotFound(err) {
		return StreamEvent(row), conflict(fmt.Sprintf("stream %s is not a %s stream", streamID, kind.Name))
	}
	if err != nil {
		return StreamEvent(row), fmt.Errorf("append stream event: %w", err)
	}
	if err := q.StreamEventNotify(ctx, fmt.Sprintf("%s:%d", streamID, row.Seq)); err != nil {
		return StreamEvent(row), fmt.Errorf("notify stream event: %w", err)
	}
	return StreamEvent(row), nil
}

// AppendStreamEvent is AppendStreamEventTx in its own transaction (token events, say).
func (s *Store) AppendStreamEvent(ctx context.Context, kind StreamKind, streamID string,
	ev NewStreamEvent) (StreamEvent, error) {
	var row StreamEvent
	err := s.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		var err error
		row, err = s.AppendStreamEventTx(ctx, tx, kind, streamID, ev)
		return err
	})
	return row, err
}

// StreamEventsAfter reads a stream's events after seq, in order (replay for Last-Event-ID).
func (s *Store) StreamEventsAfter(ctx context.Context, streamID string, afterSeq int64,
	limit int32) ([]StreamEvent, error) {
	rows, err := s.q.StreamEventsAfter(ctx, dbsqlc.StreamEventsAfterParams{StreamID: streamID, AfterSeq: afterSeq,
		Lim: limit})
	return mapRows(rows, func(r dbsqlc.StreamEvent) StreamEvent { return StreamEvent(r) }), wrap(err, "list stream events")
}

// StreamState is a stream's highest committed event number (0 when it has none) and that event's
// status (which says, through its kind's Ends, whether the stream is over).
type StreamState struct {
	LastSeq    int64
	LastStatus string
}

// StreamState reads a stream's state; a stream with no event yet is {0, ""}.
func (s *Store) StreamState(ctx context.Context, streamID string) (StreamState, error) {
	row, err := s.q.StreamGet(ctx, streamID)
	if isNotFound(err) {
		return StreamState{}, nil
	}
	if err != nil {
		return StreamState{}, wrap(err, "get stream")
	}
	return StreamState{LastSeq: row.LastSeq, LastStatus: row.LastStatus}, nil
}

// StreamSegmentStart is the seq after which the stream's current (or latest) segment begins: its last
// event of type endType before its last event, 0 when there is none. A stream of several jobs (a
// draft's, each ending with a `done` event) starts a new client there rather than at its very first event.
func (s *Store) StreamSegmentStart(ctx context.Context, streamID, endType string) (int64, error) {
	seq, err := s.q.StreamSegmentStart(ctx, dbsqlc.StreamSegmentStartParams{StreamID: streamID, EndType: endType})
	return seq, wrap(err, "stream segment")
}

// StreamEventsBatchAfter reads the events of several streams, each after its own seq, in one query,
// ordered by stream then seq, at most limit rows. streamIDs and afterSeqs pair up by index.
func (s *Store) StreamEventsBatchAfter(ctx context.Context, streamIDs []string, afterSeqs []int64,
	limit int32) ([]StreamEvent, error) {
	rows, err := s.q.StreamEventsBatchAfter(ctx, dbsqlc.StreamEventsBatchAfterParams{StreamIds: streamIDs,
		AfterSeqs: afterSeqs, Lim: limit})
	return mapRows(rows, func(r dbsqlc.StreamEvent) StreamEvent { return StreamEvent(r) }), wrap(err, "list stream events")
}

// Mission streams.

// Mission event types (the SSE `event` names).
const (
	MissionEventStatus   = "status"
	MissionEventStep     = "step"
	MissionEventProposal = "proposal"
	MissionEventToken    = "token"
	MissionEventDone     = "done"
	// MissionEventAck: a worker picked the mission up, before its first model call (data.plan: the
	// model's plan when a resumed conversation has one, else empty).
	MissionEventAck = "ack"
	// MissionEventQuestion: the agent asked its requester a question (data.question, data.options).
	MissionEventQuestion = "question"
)

// NewMissionEvent is one event to append to a mission's stream. Status is the mission status it reports
// (the current one when empty).
type NewMissionEvent struct {
	Type    string
	Status  string
	Message string
	Data    map[string]any
}

// AppendMissionEventTx appends an event to a mission's stream in the caller's transaction; the event
// ends the stream when its status is final (StreamMission.Ends: completed, failed, stopped, expired).
func (s *Store) AppendMissionEventTx(ctx context.Context, tx pgx.Tx, missionID string,
	ev NewMissionEvent) (StreamEvent, error) {
	status := ev.Status
	if status == "" {
		var err error
		status, err = queries(tx).MissionStatusGet(ctx, missionID)
		if isNotFound(err) {
			return StreamEvent{}, notFound("mission not found")
		}
		if err != nil {
			return StreamEvent{}, fmt.Errorf("read mission status: %w", err)
		}
	}
	row, err := s.AppendStreamEventTx(ctx, tx, StreamMission, missionID, NewStreamEvent{Type: ev.Type, Status: status,
		Message: ev.Message, Data: ev.Data})
	if err != nil || (ev.Type != MissionEventStatus && ev.Type != MissionEventDone && ev.Type != MissionEventQuestion) {
		return row, err
	}
	// Every change of a mission's status appends a status, question or done event: the feed hears of it
	// here.
	return row, s.recordMissionStatus(ctx, tx, missionID, status)
}

// recordMissionStatus records mission_status_changed (meta: missionId, status) in the mission's project,
// or its workspace when it has none, the agent's user as the actor, for the member who started the mission.
func (s *Store) recordMissionStatus(ctx context.Context, tx pgx.Tx, missionID, status string) error {
	ref, err := queries(tx).EventsMissionRef(ctx, missionID)
	if err != nil {
		return fmt.Errorf("read mission for the feed: %w", err)
	}
	act := Activity{ActorID: ref.AgentUserID, AgentID: ref.AgentID, OnBehalfOf: ref.CreatedBy,
		Type: ActivityMissionStatusChanged,
		Meta: map[string]any{"missionId": missionID, "status": status}}
	if ref.ProjectID != nil {
		act.ProjectID = *ref.ProjectID
		if ref.CardID != nil {
			act.CardID = *ref.CardID
		}
	} else {
		act.WorkspaceID = ref.WorkspaceID
	}
	return s.core.RecordQuietActivities(ctx, tx, act)
}

// AppendMissionEvent is AppendMissionEventTx in its own transaction (token events, say).
func (s *Store) AppendMissionEvent(ctx context.Context, missionID string, ev NewMissionEvent) (StreamEvent, error) {
	var row StreamEvent
	err := s.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		var err error
		row, err = s.AppendMissionEventTx(ctx, tx, missionID, ev)
		return err
	})
	return row, err
}

// MissionStreamInfo is what a mission's event stream needs: its workspace (access) and status.
type MissionStreamInfo struct {
	ID          string
	WorkspaceID string
	Status      string
}

// MissionStream reads a mission's workspace and status; ErrNotFound when there is no such mission.
func (s *Store) MissionStream(ctx context.Context, missionID string) (MissionStreamInfo, error) {
	row, err := s.q.MissionStreamGet(ctx, missionID)
	if err != nil {
		return MissionStreamInfo{}, wrap(err, "get mission")
	}
	return MissionStreamInfo{ID: row.ID, WorkspaceID: row.WorkspaceID, Status: row.Status}, nil
}

// MissionStatus is where an agent's mission stands: queued (its job inserted), running, then
// awaiting_approval (proposals wait for a person), awaiting_input (its agent asked a question) or stale
// (its worker fell silent), and in the end completed, failed, stopped (by a person or its budget) or
// expired (its question went unanswered). docs/agents.md, "Lifecycle", has the transitions.
type MissionStatus string

// The mission statuses.
const (
	MissionQueued           MissionStatus = "queued"
	MissionRunning          MissionStatus = "running"
	MissionAwaitingApproval MissionStatus = "awaiting_approval"
	MissionAwaitingInput    MissionStatus = "awaiting_input"
	MissionStale            MissionStatus = "stale"
	MissionCompleted        MissionStatus = "completed"
	MissionFailed           MissionStatus = "failed"
	MissionStopped          MissionStatus = "stopped"
	MissionExpired          MissionStatus = "expired"
)

// MissionStatuses lists every mission status, in the order a mission goes through them.
var MissionStatuses = []MissionStatus{MissionQueued, MissionRunning, MissionAwaitingApproval, MissionAwaitingInput,
	MissionStale, MissionCompleted, MissionFailed, MissionStopped, MissionExpired}

// MissionFinalStatuses are the statuses a mission never leaves: its stream ends with one.
var MissionFinalStatuses = []MissionStatus{MissionCompleted, MissionFailed, MissionStopped, MissionExpired}

// Values lists the valid mission statuses (the OpenAPI document's enum).
func (MissionStatus) Values() []MissionStatus { return MissionStatuses }

// Valid says whether s is one of MissionStatuses.
func (s MissionStatus) Valid() bool { return slices.Contains(MissionStatuses, s) }

// Final says whether a mission in status s is over.
func (s MissionStatus) Final() bool { return slices.Contains(MissionFinalStatuses, s) }

// MissionStopReason says why a mission was stopped.
type MissionStopReason string

// The reasons a mission stops.
const (
	// StopPerson: a person stopped (or cancelled) it.
	StopPerson MissionStopReason = "person"
	// StopCreatorLeft: the member who started it left the workspace.
	StopCreatorLeft MissionStopReason = "creator_left"
	// StopBudget: it used up its budget.
	StopBudget MissionStopReason = "budget"
)

// MissionStopReasons lists every stop reason.
var MissionStopReasons = []MissionStopReason{StopPerson, StopCreatorLeft, StopBudget}

// Values lists the valid stop reasons (the OpenAPI document's enum).
func (MissionStopReason) Values() []MissionStopReason { return MissionStopReasons }

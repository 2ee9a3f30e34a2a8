package db

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// MissionEventsChannel is the PostgreSQL channel announcing new mission events. Its payload is
// "<missionId>:<seq>"; listeners read the rows from mission_events.
const MissionEventsChannel = "pilot_mission_events"

// Mission event types (the SSE `event` names).
const (
	MissionEventStatus   = "status"
	MissionEventStep     = "step"
	MissionEventProposal = "proposal"
	MissionEventToken    = "token"
	MissionEventDone     = "done"
)

// NewMissionEvent is one event to append to a mission's log. Status is the mission status it reports (the
// current one when empty).
type NewMissionEvent struct {
	Type    string
	Status  string
	Message string
	Data    map[string]any
}

// AppendMissionEventTx appends an event to a mission's log and announces it with pg_notify, in the
// caller's transaction: listeners hear of it only if it commits, and in order (the mission row lock
// serialises writers).
func (s *Store) AppendMissionEventTx(ctx context.Context, tx pgx.Tx, missionID string, ev NewMissionEvent) (MissionEvent, error) {
	q := queries(tx)
	next, err := q.MissionEventNextSeq(ctx, missionID)
	if isNotFound(err) {
		return MissionEvent{}, notFound("mission not found")
	}
	if err != nil {
		return MissionEvent{}, fmt.Errorf("next event seq: %w", err)
	}
	status := ev.Status
	if status == "" {
		status = next.Status
	}
	data := ev.Data
	if data == nil {
		data = map[string]any{}
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return MissionEvent{}, fmt.Errorf("encode event data: %w", err)
	}
	row, err := q.MissionEventInsert(ctx, dbsqlc.MissionEventInsertParams{MissionID: missionID, Seq: next.EventSeq, Type: ev.Type,
		Status: status, Message: ev.Message, Data: raw})
	if err != nil {
		return row, fmt.Errorf("insert mission event: %w", err)
	}
	if err := q.MissionEventNotify(ctx, fmt.Sprintf("%s:%d", missionID, next.EventSeq)); err != nil {
		return row, fmt.Errorf("notify mission event: %w", err)
	}
	return row, nil
}

// AppendMissionEvent is AppendMissionEventTx in its own transaction (token events, say).
func (s *Store) AppendMissionEvent(ctx context.Context, missionID string, ev NewMissionEvent) (MissionEvent, error) {
	var row MissionEvent
	err := s.inTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		var err error
		row, err = s.AppendMissionEventTx(ctx, tx, missionID, ev)
		return err
	})
	return row, err
}

// MissionEventsAfter reads a mission's events after seq, in order (replay for Last-Event-ID).
func (s *Store) MissionEventsAfter(ctx context.Context, missionID string, afterSeq int64, limit int32) ([]MissionEvent, error) {
	rows, err := s.q.MissionEventsAfter(ctx, dbsqlc.MissionEventsAfterParams{MissionID: missionID, AfterSeq: afterSeq, Lim: limit})
	return rows, wrap(err, "list mission events")
}

package db

import (
	"context"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// MissionStreamInfo is what a mission's event stream needs: its workspace (access) and status (whether
// the stream ends after replay).
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

// MissionEventsLastSeq is the highest committed event number of a mission, 0 when it has none.
func (s *Store) MissionEventsLastSeq(ctx context.Context, missionID string) (int64, error) {
	seq, err := s.q.MissionEventsLastSeq(ctx, missionID)
	return seq, wrap(err, "last mission event")
}

// MissionEventsBatchAfter reads the events of several missions, each after its own seq, in one query,
// ordered by mission then seq, at most limit rows. missionIDs and afterSeqs pair up by index.
func (s *Store) MissionEventsBatchAfter(ctx context.Context, missionIDs []string, afterSeqs []int64, limit int32) ([]MissionEvent, error) {
	rows, err := s.q.MissionEventsBatchAfter(ctx, dbsqlc.MissionEventsBatchAfterParams{MissionIds: missionIDs, AfterSeqs: afterSeqs, Lim: limit})
	return rows, wrap(err, "list mission events")
}

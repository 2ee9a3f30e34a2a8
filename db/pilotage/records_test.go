package pilotage

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
)

func TestCycleIsTheISOWeekInUTC(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		at    time.Time
		cycle string
		start time.Time
	}{
		{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), "2026-W48", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		{time.Date(2026, 11, 29, 23, 59, 0, 0, time.UTC), "2026-W48", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		// 1 January 2027 is a Friday: it belongs to the last week of 2026.
		{time.Date(2027, 1, 1, 9, 0, 0, 0, time.UTC), "2026-W53", time.Date(2026, 12, 28, 0, 0, 0, 0, time.UTC)},
		// Monday 00:30 in Paris is still Sunday in UTC.
		{time.Date(2026, 11, 30, 0, 30, 0, 0, time.FixedZone("CET", 3600)), "2026-W48", time.Date(2026, 11, 23, 0, 0, 0, 0,
			time.UTC)},
	} {
		require.Equal(t, tc.cycle, Cycle(tc.at), tc.at)
		require.Equal(t, tc.start, CycleStart(tc.at), tc.at)
	}
}

func TestHistoryChangesNameFieldsAsTheAPIDoes(t *testing.T) {
	t.Parallel()
	reason := "legal"
	before := db.PilotageTodo{ID: "t", Label: "a", Status: "todo"}
	mission := "m"
	after := db.PilotageTodo{ID: "t", Label: "a", Status: "done", MissionID: &mission, UpdatedBy: "someone"}
	require.Equal(t, map[string]any{"status": map[string]any{"from": "todo", "to": "done"},
		"missionId": map[string]any{"from": nil, "to": "m"}}, changes(before, after))
	require.Equal(t, map[string]any{"objective": "o", "module": "", "status": "blocked", "blockedReason": "legal"},
		recordFields(db.PilotageMission{ID: "x", Objective: "o", Status: "blocked", BlockedReason: &reason}))
}

package db

import (
	"strings"
	"time"
)

// MissionUsage is what a mission cost: model calls and their tokens, its wall time (start to finish, or
// to now while it runs) and the time it waited for people (awaiting approval or input, the wait in
// progress included), in seconds.
type MissionUsage struct {
	ModelTurns                     int32
	PromptTokens, CompletionTokens int64
	WallSeconds, WaitingSeconds    float64
}

// Usage is the mission's usage as of now.
func (m AgentMission) Usage(now time.Time) MissionUsage {
	u := MissionUsage{ModelTurns: m.ModelTurns, PromptTokens: m.PromptTokens, CompletionTokens: m.CompletionTokens,
		WaitingSeconds: float64(m.WaitingMs) / 1000}
	if m.StartedAt != nil {
		end := now
		if m.FinishedAt != nil {
			end = *m.FinishedAt
		}
		u.WallSeconds = max(end.Sub(*m.StartedAt).Seconds(), 0)
	}
	if strings.HasPrefix(m.Status, "awaiting") {
		since := m.CreatedAt
		if m.StatusChangedAt != nil {
			since = *m.StatusChangedAt
		}
		u.WaitingSeconds += max(now.Sub(since).Seconds(), 0)
	}
	return u
}

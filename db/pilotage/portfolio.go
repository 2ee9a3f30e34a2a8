package pilotage

import (
	"context"
	"math"
	"time"
)

// PortfolioProject is one project's summary in a workspace's portfolio. Archived cards count nowhere.
type PortfolioProject struct {
	ProjectID string
	Name      string
	Deadline  *time.Time
	// DaysLeft is the number of whole days until the deadline (negative once it has passed), nil
	// without a deadline.
	DaysLeft        *int
	CardCount       int
	CardsByColumn   []PortfolioColumn
	CardsByPriority map[string]int
	// Overdue counts cards due in the past that are not in the project's last column (taken as done).
	Overdue                       int
	ChecklistDone, ChecklistTotal int
	// ChecklistPercent is the share of checklist items done, rounded down; 0 without items.
	ChecklistPercent int
}

// PortfolioColumn is the number of active cards in one column.
type PortfolioColumn struct {
	ColumnID, Name string
	Count          int
}

// Portfolio summarises every project of a workspace in two queries of one snapshot (one pass over the
// workspace's cards), whatever the number of projects and cards. It is the cockpit's portfolio
// (CockpitPortfolio) without the cockpit's extra figures.
func (e *Engine) Portfolio(ctx context.Context, workspaceID string) ([]PortfolioProject, error) {
	ps, err := e.CockpitPortfolio(ctx, workspaceID, time.Now())
	if err != nil {
		return nil, err
	}
	out := make([]PortfolioProject, len(ps))
	for i, p := range ps {
		out[i] = p.PortfolioProject
	}
	return out, nil
}

// DaysUntil is the number of whole days from now until t, rounded down: 0 within the next 24 hours,
// negative once t has passed.
func DaysUntil(now, t time.Time) int {
	return int(math.Floor(t.Sub(now).Hours() / 24))
}

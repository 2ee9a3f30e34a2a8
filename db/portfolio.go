package db

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
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

// Portfolio summarises every project of a workspace in two queries, whatever the number of projects
// and cards. Both read one snapshot.
func (s *Store) Portfolio(ctx context.Context, workspaceID string) ([]PortfolioProject, error) {
	var (
		projects []dbsqlc.PortfolioProjectsRow
		columns  []dbsqlc.PortfolioColumnsRow
	)
	err := s.inSnapshot(ctx, func(q *dbsqlc.Queries) error {
		var err error
		if projects, err = q.PortfolioProjects(ctx, workspaceID); err != nil {
			return fmt.Errorf("aggregate projects: %w", err)
		}
		if columns, err = q.PortfolioColumns(ctx, workspaceID); err != nil {
			return fmt.Errorf("aggregate columns: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("portfolio: %w", err)
	}
	return portfolioFrom(projects, columns, time.Now()), nil
}

// portfolioFrom builds the portfolio from its two queries' rows.
func portfolioFrom(projects []dbsqlc.PortfolioProjectsRow, columns []dbsqlc.PortfolioColumnsRow, now time.Time) []PortfolioProject {
	byProject := make(map[string][]PortfolioColumn, len(projects))
	for _, c := range columns {
		byProject[c.ProjectID] = append(byProject[c.ProjectID], PortfolioColumn{ColumnID: c.ID, Name: c.Name, Count: int(c.CardCount)})
	}
	out := make([]PortfolioProject, len(projects))
	for i, p := range projects {
		pp := PortfolioProject{ProjectID: p.ID, Name: p.Name, Deadline: p.Deadline, CardCount: int(p.CardCount),
			CardsByColumn:   byProject[p.ID],
			CardsByPriority: map[string]int{"low": int(p.LowCount), "medium": int(p.MediumCount), "high": int(p.HighCount)},
			Overdue:         int(p.OverdueCount), ChecklistDone: int(p.ChecklistDone), ChecklistTotal: int(p.ChecklistTotal)}
		if pp.CardsByColumn == nil {
			pp.CardsByColumn = []PortfolioColumn{}
		}
		if p.Deadline != nil {
			d := DaysUntil(now, *p.Deadline)
			pp.DaysLeft = &d
		}
		if pp.ChecklistTotal > 0 {
			pp.ChecklistPercent = 100 * pp.ChecklistDone / pp.ChecklistTotal
		}
		out[i] = pp
	}
	return out
}

// DaysUntil is the number of whole days from now until t, rounded down: 0 within the next 24 hours,
// negative once t has passed.
func DaysUntil(now, t time.Time) int {
	return int(math.Floor(t.Sub(now).Hours() / 24))
}

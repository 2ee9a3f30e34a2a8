package roadmap

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Roadmap is a project's timeline: its scopes with their dated cards, and the dated cards outside any
// scope. A card is dated when it has a start or a due date; archived cards are left out.
type Roadmap struct {
	ProjectID string
	// Start and End are the earliest and latest dates over the scopes and dated cards, nil when there
	// are none.
	Start, End *time.Time
	Scopes     []RoadmapScope
	Unscoped   []RoadmapCard
}

// RoadmapScope is a scope on the roadmap with its dated cards, sorted by start.
type RoadmapScope struct {
	db.Scope
	Cards []RoadmapCard
}

// Roadmap builds a project's roadmap in two queries. Scopes are sorted by start (start date, else end
// date; undated ones last), cards by start (start date, else due date).
func (e *Engine) Roadmap(ctx context.Context, projectID string) (Roadmap, error) {
	var (
		scopes []db.Scope
		cards  []dbsqlc.RoadmapCardsRow
	)
	err := e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		var err error
		var scopesRows []dbsqlc.Scope
		if scopesRows, err = q.ScopeListByProject(ctx, projectID); err != nil {
			return fmt.Errorf("list scopes: %w", err)
		}
		scopes = dbcore.MapRows(scopesRows, func(r dbsqlc.Scope) db.Scope { return db.Scope(r) })
		if cards, err = q.RoadmapCards(ctx, projectID); err != nil {
			return fmt.Errorf("list dated cards: %w", err)
		}
		return nil
	})
	if err != nil {
		return Roadmap{}, fmt.Errorf("roadmap: %w", err)
	}

	rm := Roadmap{ProjectID: projectID, Scopes: make([]RoadmapScope, 0, len(scopes)), Unscoped: []RoadmapCard{}}
	widen := func(ts ...*time.Time) {
		for _, t := range ts {
			if t == nil {
				continue
			}
			if rm.Start == nil || t.Before(*rm.Start) {
				v := *t
				rm.Start = &v
			}
			if rm.End == nil || t.After(*rm.End) {
				v := *t
				rm.End = &v
			}
		}
	}
	slices.SortStableFunc(scopes, func(a, b db.Scope) int {
		return db.NilLast(roadmapFirstTime(a.StartDate, a.EndDate), roadmapFirstTime(b.StartDate, b.EndDate))
	})
	index := make(map[string]int, len(scopes))
	for i, sc := range scopes {
		index[sc.ID] = i
		rm.Scopes = append(rm.Scopes, RoadmapScope{Scope: sc, Cards: []RoadmapCard{}})
		widen(sc.StartDate, sc.EndDate)
	}
	// cards arrive sorted by start.
	for _, row := range cards {
		c := RoadmapCard(row)
		widen(c.StartDate, c.DueDate)
		if c.ScopeID != nil {
			if i, ok := index[*c.ScopeID]; ok {
				rm.Scopes[i].Cards = append(rm.Scopes[i].Cards, c)
				continue
			}
		}
		rm.Unscoped = append(rm.Unscoped, c)
	}
	return rm, nil
}

func roadmapFirstTime(ts ...*time.Time) *time.Time {
	for _, t := range ts {
		if t != nil {
			return t
		}
	}
	return nil
}

// RoadmapCard is a card as the roadmap shows it.
type RoadmapCard struct {
	ID        string
	Title     string
	ColumnID  string
	ScopeID   *string
	StartDate *time.Time
	DueDate   *time.Time
	Priority  string
}

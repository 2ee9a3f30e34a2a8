package pilotage

// The pilotage read models: the state (profile selects, intent orders and trims), the dashboard and
// the portfolio. Each reads one snapshot (a read-only REPEATABLE READ transaction) with a fixed number
// of queries, whatever the size of the workspace.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
)

// Pilotage profiles, intents and the contract version of the state read (docs/pilotage.md).
var (
	PilotageProfiles = []string{"pilotage", "execution", "revue"}
	PilotageIntents  = []string{"weekly_review", "daily_execution", "sprint_planning", "context_only"}
)

// PilotageContractVersion is the state's contractVersion; it only grows with breaking changes.
const PilotageContractVersion = 1

// Cycle is the ISO week of t (in UTC), e.g. "2026-W47".
func Cycle(t time.Time) string {
	y, w := t.UTC().ISOWeek()
	return fmt.Sprintf("%d-W%02d", y, w)
}

// CycleStart is the start of t's ISO week: Monday 00:00 UTC.
func CycleStart(t time.Time) time.Time {
	t = t.UTC()
	d := (int(t.Weekday()) + 6) % 7 // days since Monday
	y, m, day := t.AddDate(0, 0, -d).Date()
	return time.Date(y, m, day, 0, 0, 0, 0, time.UTC)
}

// PilotageState is the cockpit's records as a profile and an intent show them.
type PilotageState struct {
	Cycle            string
	Missions         []db.PilotageMission
	ActivePriorities []db.PilotagePriority
	Todos            []db.PilotageTodo
	Decisions        []db.PilotageDecision
	ActiveDocs       []db.PilotageDoc
}

// intentTrim is how many records of each array an intent keeps (0: all).
const (
	contextOnlyLimit = 10
	recentLimit      = 5
)

// StateFor reads the workspace's records in one snapshot, then selects them by profile
// (pilotage: everything; execution: missions in progress or blocked and open todos; revue: decisions
// of the cycle and missions and todos done this cycle) and orders and trims them by intent ("" keeps
// creation order, untrimmed). docs/pilotage.md has the rules. Concurrent calls for one workspace share
// reads as CockpitPortfolio's do: each answer is read after its call began.
func (e *Engine) StateFor(ctx context.Context, workspaceID, profile, intent string,
	now time.Time) (PilotageState, error) {
	if err := checkEnum("profile", profile, PilotageProfiles); err != nil {
		return PilotageState{}, err
	}
	if intent != "" {
		if err := checkEnum("intent", intent, PilotageIntents); err != nil {
			return PilotageState{}, err
		}
	}
	rows, _, err := e.stateReads.Do(ctx, workspaceID, func(ctx context.Context) (r PilotageState, err error) {
		err = e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
			var missionsRows []dbsqlc.PilotageMission
			if missionsRows, err = q.PilotageMissionList(ctx, workspaceID); err != nil {
				return fmt.Errorf("missions: %w", err)
			}
			r.Missions = dbcore.MapRows(missionsRows,
				func(r dbsqlc.PilotageMission) db.PilotageMission { return db.PilotageMission(r) })
			var activePrioritiesRows []dbsqlc.PilotagePriority
			if activePrioritiesRows, err = q.PilotagePriorityList(ctx, workspaceID); err != nil {
				return fmt.Errorf("priorities: %w", err)
			}
			r.ActivePriorities = dbcore.MapRows(activePrioritiesRows,
				func(r dbsqlc.PilotagePriority) db.PilotagePriority { return db.PilotagePriority(r) })
			var todosRows []dbsqlc.PilotageTodo
			if todosRows, err = q.PilotageTodoList(ctx, workspaceID); err != nil {
				return fmt.Errorf("todos: %w", err)
			}
			r.Todos = dbcore.MapRows(todosRows, func(r dbsqlc.PilotageTodo) db.PilotageTodo { return db.PilotageTodo(r) })
			var decisionsRows []dbsqlc.PilotageDecision
			if decisionsRows, err = q.PilotageDecisionList(ctx, workspaceID); err != nil {
				return fmt.Errorf("decisions: %w", err)
			}
			r.Decisions = dbcore.MapRows(decisionsRows,
				func(r dbsqlc.PilotageDecision) db.PilotageDecision { return db.PilotageDecision(r) })
			var activeDocsRows []dbsqlc.PilotageDoc
			if activeDocsRows, err = q.PilotageDocList(ctx, workspaceID); err != nil {
				return fmt.Errorf("docs: %w", err)
			}
			r.ActiveDocs = dbcore.MapRows(activeDocsRows, func(r dbsqlc.PilotageDoc) db.PilotageDoc { return db.PilotageDoc(r) })
			return nil
		})
		return r, err
	})
	if err != nil {
		return PilotageState{}, fmt.Errorf("pilotage state: %w", err)
	}
	// The read may be shared with other callers (as the portfolio's): select and order copies of it.
	st := PilotageState{Cycle: Cycle(now), Missions: slices.Clone(rows.Missions),
		ActivePriorities: slices.Clone(rows.ActivePriorities), Todos: slices.Clone(rows.Todos),
		Decisions: slices.Clone(rows.Decisions), ActiveDocs: slices.Clone(rows.ActiveDocs)}
	st.ActivePriorities = slices.DeleteFunc(st.ActivePriorities, func(p db.PilotagePriority) bool { return !p.Active })
	selectProfile(&st, profile, CycleStart(now))
	applyIntent(&st, intent, CycleStart(now))
	return st, nil
}

func selectProfile(st *PilotageState, profile string, cycleStart time.Time) {
	switch profile {
	case "execution":
		st.Missions = slices.DeleteFunc(st.Missions, func(m db.PilotageMission) bool {
			return m.Status != "in_progress" &&
				m.Status != "blocked"
		})
		st.Todos = slices.DeleteFunc(st.Todos, func(t db.PilotageTodo) bool { return t.Status == "done" })
		st.ActivePriorities, st.Decisions, st.ActiveDocs = []db.PilotagePriority{}, []db.PilotageDecision{},
			[]db.PilotageDoc{}
	case "revue":
		st.Missions = slices.DeleteFunc(st.Missions, func(m db.PilotageMission) bool {
			return m.Status != "done" ||
				m.UpdatedAt.Before(cycleStart)
		})
		st.Todos = slices.DeleteFunc(st.Todos, func(t db.PilotageTodo) bool {
			return t.Status != "done" ||
				t.UpdatedAt.Before(cycleStart)
		})
		st.Decisions = slices.DeleteFunc(st.Decisions,
			func(d db.PilotageDecision) bool { return d.CreatedAt.Before(cycleStart) })
		st.ActivePriorities, st.ActiveDocs = []db.PilotagePriority{}, []db.PilotageDoc{}
	}
}

// Urgency ranks: lower comes first.
var (
	missionUrgency = map[string]int{"blocked": 0, "in_progress": 1, "to_launch": 2, "done": 3}
	todoUrgency    = map[string]int{"blocked": 0, "in_progress": 1, "todo": 2, "done": 3}
)

func byRecent[T any](updated func(T) time.Time) func(a, b T) int {
	return func(a, b T) int { return updated(b).Compare(updated(a)) }
}

func applyIntent(st *PilotageState, intent string, cycleStart time.Time) {
	switch intent {
	case "daily_execution":
		// What to act on today: blocked first, then in progress; done work and old context dropped.
		st.Missions = slices.DeleteFunc(st.Missions, func(m db.PilotageMission) bool { return m.Status == "done" })
		slices.SortStableFunc(st.Missions, func(a, b db.PilotageMission) int {
			return cmp.Compare(missionUrgency[a.Status], missionUrgency[b.Status])
		})
		st.Todos = slices.DeleteFunc(st.Todos, func(t db.PilotageTodo) bool { return t.Status == "done" })
		slices.SortStableFunc(st.Todos, func(a, b db.PilotageTodo) int {
			return cmp.Or(cmp.Compare(todoUrgency[a.Status], todoUrgency[b.Status]), db.NilLast(a.DueDate, b.DueDate))
		})
		slices.SortStableFunc(st.Decisions, byRecent(func(d db.PilotageDecision) time.Time { return d.CreatedAt }))
		st.Decisions = st.Decisions[:min(len(st.Decisions), recentLimit)]
		st.ActiveDocs = []db.PilotageDoc{}
	case "weekly_review":
		// What moved this week, most recent first.
		st.Missions = slices.DeleteFunc(st.Missions,
			func(m db.PilotageMission) bool { return m.UpdatedAt.Before(cycleStart) })
		st.Todos = slices.DeleteFunc(st.Todos, func(t db.PilotageTodo) bool { return t.UpdatedAt.Before(cycleStart) })
		st.Decisions = slices.DeleteFunc(st.Decisions,
			func(d db.PilotageDecision) bool { return d.CreatedAt.Before(cycleStart) })
		st.ActiveDocs = slices.DeleteFunc(st.ActiveDocs,
			func(d db.PilotageDoc) bool { return d.UpdatedAt.Before(cycleStart) })
		slices.SortStableFunc(st.Missions, byRecent(func(m db.PilotageMission) time.Time { return m.UpdatedAt }))
		slices.SortStableFunc(st.Todos, byRecent(func(t db.PilotageTodo) time.Time { return t.UpdatedAt }))
		slices.SortStableFunc(st.Decisions, byRecent(func(d db.PilotageDecision) time.Time { return d.CreatedAt }))
		slices.SortStableFunc(st.ActiveDocs, byRecent(func(d db.PilotageDoc) time.Time { return d.UpdatedAt }))
	case "sprint_planning":
		// What to plan: work not done, missions to launch first, todos by due date; priorities lead.
		st.Missions = slices.DeleteFunc(st.Missions, func(m db.PilotageMission) bool { return m.Status == "done" })
		planOrder := map[string]int{"to_launch": 0, "blocked": 1, "in_progress": 2}
		slices.SortStableFunc(st.Missions, func(a, b db.PilotageMission) int {
			return cmp.Compare(planOrder[a.Status],
				planOrder[b.Status])
		})
		st.Todos = slices.DeleteFunc(st.Todos, func(t db.PilotageTodo) bool { return t.Status == "done" })
		slices.SortStableFunc(st.Todos, func(a, b db.PilotageTodo) int {
			hasPrio := func(t db.PilotageTodo) int {
				if t.PriorityID != nil {
					return 0
				}
				return 1
			}
			return cmp.Or(cmp.Compare(hasPrio(a), hasPrio(b)), db.NilLast(a.DueDate, b.DueDate))
		})
		slices.SortStableFunc(st.Decisions, byRecent(func(d db.PilotageDecision) time.Time { return d.CreatedAt }))
		st.Decisions = st.Decisions[:min(len(st.Decisions), recentLimit)]
	case "context_only":
		// Background for a reader (or a model): the latest of each, a few of each.
		slices.SortStableFunc(st.Missions, byRecent(func(m db.PilotageMission) time.Time { return m.UpdatedAt }))
		slices.SortStableFunc(st.Todos, byRecent(func(t db.PilotageTodo) time.Time { return t.UpdatedAt }))
		slices.SortStableFunc(st.Decisions, byRecent(func(d db.PilotageDecision) time.Time { return d.CreatedAt }))
		slices.SortStableFunc(st.ActiveDocs, byRecent(func(d db.PilotageDoc) time.Time { return d.UpdatedAt }))
		st.Missions = st.Missions[:min(len(st.Missions), contextOnlyLimit)]
		st.Todos = st.Todos[:min(len(st.Todos), contextOnlyLimit)]
		st.Decisions = st.Decisions[:min(len(st.Decisions), contextOnlyLimit)]
		st.ActiveDocs = st.ActiveDocs[:min(len(st.ActiveDocs), contextOnlyLimit)]
	}
}

// PilotageDashboard is the consolidated cockpit.
type PilotageDashboard struct {
	Cycle string
	// Counts are by kind (mission, todo, action) then status; todo also has "overdue".
	Counts          map[string]map[string]int
	BlockedMissions []db.PilotageMission
	// OpenTodos are the todos not done, soonest due first, at most DashboardListLimit.
	OpenTodos []db.PilotageTodo
	// PendingActions are suggested and approved actions, oldest first, at most DashboardListLimit.
	PendingActions []db.PilotageAction
	CycleDecisions []db.PilotageDecision
	CycleStartsAt  time.Time
	// OverdueTodos are the open todos due in the past (of OpenTodos).
	OverdueTodos []db.PilotageTodo
}

// DashboardListLimit bounds the dashboard's lists of open todos and pending actions (their counts are
// exact).
const DashboardListLimit = 100

// dashboardRows is one read of a workspace's dashboard.
type dashboardRows struct {
	counts         []dbsqlc.PilotageStatusCountsRow
	blocked        []db.PilotageMission
	openTodos      []db.PilotageTodo
	pendingActions []db.PilotageAction
	cycleDecisions []db.PilotageDecision
}

// dashboardKey names a dashboard read: the decisions listed are those of one cycle.
type dashboardKey struct {
	workspaceID string
	cycleStart  time.Time
}

// DashboardFor reads the dashboard in one snapshot of five queries. Concurrent calls for one
// workspace (in one cycle) share reads as CockpitPortfolio's do: each answer is read after its call
// began.
func (e *Engine) DashboardFor(ctx context.Context, workspaceID string, now time.Time) (PilotageDashboard, error) {
	d := PilotageDashboard{Cycle: Cycle(now), CycleStartsAt: CycleStart(now), OverdueTodos: []db.PilotageTodo{},
		Counts: map[string]map[string]int{
			"mission": zeroCounts(PilotageMissionStatuses), "todo": zeroCounts(append(slices.Clone(PilotageTodoStatuses),
				"overdue")), "action": zeroCounts(PilotageActionStatuses)}}
	key := dashboardKey{workspaceID: workspaceID, cycleStart: d.CycleStartsAt}
	rows, _, err := e.dashboardReads.Do(ctx, key, func(ctx context.Context) (r dashboardRows, err error) {
		err = e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
			if r.counts, err = q.PilotageStatusCounts(ctx, workspaceID); err != nil {
				return fmt.Errorf("counts: %w", err)
			}
			var blockedRows []dbsqlc.PilotageMission
			if blockedRows, err = q.PilotageMissionListBlocked(ctx, workspaceID); err != nil {
				return fmt.Errorf("blocked missions: %w", err)
			}
			r.blocked = dbcore.MapRows(blockedRows,
				func(r dbsqlc.PilotageMission) db.PilotageMission { return db.PilotageMission(r) })
			var openTodosRows []dbsqlc.PilotageTodo
			if openTodosRows, err = q.PilotageTodoListOpen(ctx, dbsqlc.PilotageTodoListOpenParams{WorkspaceID: workspaceID,
				Lim: DashboardListLimit}); err != nil {
				return fmt.Errorf("open todos: %w", err)
			}
			r.openTodos = dbcore.MapRows(openTodosRows,
				func(r dbsqlc.PilotageTodo) db.PilotageTodo { return db.PilotageTodo(r) })
			var pendingActionsRows []dbsqlc.PilotageAction
			if pendingActionsRows, err = q.PilotageActionListPending(ctx,
				dbsqlc.PilotageActionListPendingParams{WorkspaceID: workspaceID, Lim: DashboardListLimit}); err != nil {
				return fmt.Errorf("pending actions: %w", err)
			}
			r.pendingActions = dbcore.MapRows(pendingActionsRows,
				func(r dbsqlc.PilotageAction) db.PilotageAction { return db.PilotageAction(r) })
			var cycleDecisionsRows []dbsqlc.PilotageDecision
			if cycleDecisionsRows, err = q.PilotageDecisionListSince(ctx,
				dbsqlc.PilotageDecisionListSinceParams{WorkspaceID: workspaceID, Since: key.cycleStart}); err != nil {
				return fmt.Errorf("decisions: %w", err)
			}
			r.cycleDecisions = dbcore.MapRows(cycleDecisionsRows,
				func(r dbsqlc.PilotageDecision) db.PilotageDecision { return db.PilotageDecision(r) })
			return nil
		})
		return r, err
	})
	if err != nil {
		return PilotageDashboard{}, fmt.Errorf("pilotage dashboard: %w", err)
	}
	for _, c := range rows.counts {
		d.Counts[c.Kind][c.Status] = int(c.N)
	}
	d.BlockedMissions, d.OpenTodos, d.PendingActions, d.CycleDecisions = rows.blocked, rows.openTodos, rows.pendingActions,
		rows.cycleDecisions
	for _, t := range d.OpenTodos {
		if t.DueDate != nil && t.DueDate.Before(now) {
			d.OverdueTodos = append(d.OverdueTodos, t)
		}
	}
	return d, nil
}

func zeroCounts(keys []string) map[string]int {
	m := make(map[string]int, len(keys))
	for _, k := range keys {
		m[k] = 0
	}
	return m
}

// PilotagePortfolioProject is a project as the cockpit's portfolio shows it: the projects portfolio's
// summary, plus cards by status, progress and the last activity.
type PilotagePortfolioProject struct {
	PortfolioProject
	// ColumnTypes gives each of CardsByColumn's columns its type: todo (first), in_progress, done (last).
	ColumnTypes []string
	// CardsByStatus counts cards by the type of their column; archived cards count as archived only.
	CardsByStatus map[string]int
	// Progress is the share of active cards that are done, in percent, rounded down; 0 without cards.
	Progress       int
	LastActivityAt *time.Time
}

// portfolioRows is one read of a workspace's portfolio: its projects, and its columns with their
// figures.
type portfolioRows struct {
	projects []dbsqlc.PortfolioProjectListRow
	columns  []dbsqlc.PortfolioColumnStatsRow
}

// CockpitPortfolio summarises the workspace's projects for the cockpit in two queries of one snapshot:
// the projects with their last activity, and every column's counters and overdue cards. Per-project
// figures are sums over the project's columns.
//
// Concurrent calls for one workspace share reads (internal/coalesce): a call that finds a read running
// waits for the next one, which serves every call that arrived in the meantime, so each answer is
// still read after its call began (a caller sees its own writes) and a workspace costs at most one
// read at a time however many people watch it. See docs/pilotage.md "Shared reads".
func (e *Engine) CockpitPortfolio(ctx context.Context, workspaceID string,
	now time.Time) ([]PilotagePortfolioProject, error) {
	rows, _, err := e.portfolioReads.Do(ctx, workspaceID, func(ctx context.Context) (r portfolioRows, err error) {
		err = e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
			if r.projects, err = q.PortfolioProjectList(ctx, workspaceID); err != nil {
				return fmt.Errorf("list projects: %w", err)
			}
			if r.columns, err = q.PortfolioColumnStats(ctx, workspaceID); err != nil {
				return fmt.Errorf("read columns: %w", err)
			}
			return nil
		})
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("portfolio: %w", err)
	}
	byProject := make(map[string][]dbsqlc.PortfolioColumnStatsRow, len(rows.projects))
	for _, c := range rows.columns {
		byProject[c.ProjectID] = append(byProject[c.ProjectID], c)
	}
	out := make([]PilotagePortfolioProject, len(rows.projects))
	for i, p := range rows.projects {
		out[i] = portfolioProject(p, byProject[p.ID], now)
	}
	return out, nil
}

// portfolioProject sums a project's column figures (in column order) into its portfolio entry.
func portfolioProject(p dbsqlc.PortfolioProjectListRow, cols []dbsqlc.PortfolioColumnStatsRow,
	now time.Time) PilotagePortfolioProject {
	ids := make([]string, len(cols))
	for j, c := range cols {
		ids[j] = c.ID
	}
	pp := PilotagePortfolioProject{
		PortfolioProject: PortfolioProject{ProjectID: p.ID, Name: p.Name, Deadline: p.Deadline,
			CardsByColumn: make([]PortfolioColumn, len(cols)), CardsByPriority: map[string]int{"low": 0, "medium": 0,
				"high": 0}}, ColumnTypes: make([]string, len(cols)),
		CardsByStatus: map[string]int{"todo": 0, "in_progress": 0, "done": 0, "archived": 0},
	}
	for j, c := range cols {
		active := int(c.LowCount + c.MediumCount + c.HighCount)
		typ := string(board.StatusOf(ids, c.ID, false))
		pp.CardsByColumn[j] = PortfolioColumn{ColumnID: c.ID, Name: c.Name, Count: active}
		pp.ColumnTypes[j] = typ
		pp.CardCount += active
		pp.CardsByPriority["low"] += int(c.LowCount)
		pp.CardsByPriority["medium"] += int(c.MediumCount)
		pp.CardsByPriority["high"] += int(c.HighCount)
		pp.CardsByStatus[typ] += active
		pp.CardsByStatus["archived"] += int(c.ArchivedCount)
		if j < len(cols)-1 { // the last column counts as done: nothing there is overdue
			pp.Overdue += int(c.OverdueCount)
		}
		pp.ChecklistDone += int(c.ChecklistDone)
		pp.ChecklistTotal += int(c.ChecklistTotal)
	}
	if p.Deadline != nil {
		d := DaysUntil(now, *p.Deadline)
		pp.DaysLeft = &d
	}
	if pp.ChecklistTotal > 0 {
		pp.ChecklistPercent = 100 * pp.ChecklistDone / pp.ChecklistTotal
	}
	if pp.CardCount > 0 {
		pp.Progress = 100 * pp.CardsByStatus["done"] / pp.CardCount
	}
	if p.HasActivity {
		t := p.LastActivityAt
		pp.LastActivityAt = &t
	}
	return pp
}

package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/pilotage"
)

// ---- state, dashboard, portfolio, history

// PilotageStateInput is the request of pilotage-state.
type PilotageStateInput struct {
	WorkspacePath
	Profile     string `query:"profile" default:"pilotage" enum:"pilotage,execution,revue"`
	Intent      string `query:"intent" enum:"weekly_review,daily_execution,sprint_planning,context_only" doc:"Default: none (creation order, untrimmed)"`
	DetailLevel string `query:"detailLevel" default:"standard" enum:"minimal,standard,detailed"`
}

// UsageContextOut says how the state was read.
type UsageContextOut struct {
	Profile     string  `json:"profile" enum:"pilotage,execution,revue"`
	Role        string  `json:"role" enum:"viewer,reviewer,owner" doc:"The caller's pilotage role"`
	Intent      *string `json:"intent" nullable:"true" enum:"weekly_review,daily_execution,sprint_planning,context_only" doc:"The intent asked for; null when none was (creation order, nothing trimmed)"`
	DetailLevel string  `json:"detailLevel" enum:"minimal,standard,detailed"`
}

// PilotageStateOut is the cockpit's state: the cycle, the contract version, the records the profile and
// intent select and the usage context (docs/pilotage.md). Each record carries the fields its detailLevel
// sets.
type PilotageStateOut struct {
	Cycle            string           `json:"cycle" doc:"The ISO week, e.g. 2026-W47"`
	ContractVersion  int              `json:"contractVersion"`
	Missions         []map[string]any `json:"missions" doc:"Pilotage missions (fields of PilotageMissionOut)"`
	ActivePriorities []map[string]any `json:"activePriorities" doc:"Active priorities (fields of PilotagePriorityOut)"`
	Todos            []map[string]any `json:"todos" doc:"Todos (fields of PilotageTodoOut)"`
	Decisions        []map[string]any `json:"decisions" doc:"Decisions (fields of PilotageDecisionOut)"`
	ActiveDocs       []map[string]any `json:"activeDocs" doc:"Active documents (fields of PilotageDocOut)"`
	UsageContext     UsageContextOut  `json:"usageContext"`
}

// Fields of each record type at the minimal detail level; standard drops only the audit fields.
var (
	auditFields   = []string{"createdAt", "createdBy", "updatedAt", "updatedBy"}
	minimalFields = map[string][]string{
		"mission":  {"id", "objective", "status"},
		"priority": {"id", "label"},
		"todo":     {"id", "label", "status"},
		"decision": {"id", "title"},
		"doc":      {"id", "title"},
	}
)

// atDetail renders records with the fields level sets; fields renders a record as its output type's
// JSON fields.
func atDetail[T any](rows []T, fields func(T) map[string]any, kind, level string) []map[string]any {
	res := make([]map[string]any, len(rows))
	for i, r := range rows {
		m := fields(r)
		switch level {
		case "minimal":
			keep := make(map[string]any, len(minimalFields[kind]))
			for _, k := range minimalFields[kind] {
				keep[k] = m[k]
			}
			m = keep
		case "standard":
			for _, k := range auditFields {
				delete(m, k)
			}
		}
		res[i] = m
	}
	return res
}

func withAudit(m map[string]any, createdAt time.Time, createdBy string, updatedAt time.Time,
	updatedBy string) map[string]any {
	m["createdAt"], m["createdBy"], m["updatedAt"], m["updatedBy"] = createdAt, createdBy, updatedAt, updatedBy
	return m
}

// The state's records as maps of PilotageMissionOut's (…) fields.
func missionFields(m db.PilotageMission) map[string]any {
	return withAudit(map[string]any{"id": m.ID, "objective": m.Objective, "module": m.Module, "status": m.Status,
		"blockedReason": m.BlockedReason}, m.CreatedAt, m.CreatedBy, m.UpdatedAt, m.UpdatedBy)
}

func priorityFields(p db.PilotagePriority) map[string]any {
	return withAudit(map[string]any{"id": p.ID, "label": p.Label, "module": p.Module, "active": p.Active},
		p.CreatedAt, p.CreatedBy, p.UpdatedAt, p.UpdatedBy)
}

func todoFields(t db.PilotageTodo) map[string]any {
	return withAudit(map[string]any{"id": t.ID, "label": t.Label, "missionId": t.MissionID, "priorityId": t.PriorityID,
		"status": t.Status, "dueDate": t.DueDate}, t.CreatedAt, t.CreatedBy, t.UpdatedAt, t.UpdatedBy)
}

func decisionFields(d db.PilotageDecision) map[string]any {
	return withAudit(map[string]any{"id": d.ID, "title": d.Title, "impact": d.Impact}, d.CreatedAt, d.CreatedBy,
		d.UpdatedAt, d.UpdatedBy)
}

func docFields(d db.PilotageDoc) map[string]any {
	return withAudit(map[string]any{"id": d.ID, "title": d.Title, "owner": d.Owner, "sourceType": d.SourceType},
		d.CreatedAt, d.CreatedBy, d.UpdatedAt, d.UpdatedBy)
}

func (s pilotageOps) getPilotageState(ctx context.Context, in *PilotageStateInput) (*Output[PilotageStateOut], error) {
	a := accessFrom(ctx)
	st, err := s.pilotage.StateFor(ctx, a.WorkspaceID, in.Profile, in.Intent, time.Now())
	if err != nil {
		return nil, fail(err)
	}
	uc := UsageContextOut{Profile: in.Profile, Role: a.WorkspacePilotageRole, DetailLevel: in.DetailLevel}
	if in.Intent != "" {
		uc.Intent = &in.Intent
	}
	lvl := in.DetailLevel
	return &Output[PilotageStateOut]{Body: PilotageStateOut{Cycle: st.Cycle,
		ContractVersion: pilotage.PilotageContractVersion, Missions: atDetail(st.Missions, missionFields, "mission", lvl),
		ActivePriorities: atDetail(st.ActivePriorities, priorityFields, "priority", lvl),
		Todos:            atDetail(st.Todos, todoFields, "todo", lvl),
		Decisions:        atDetail(st.Decisions, decisionFields, "decision", lvl),
		ActiveDocs:       atDetail(st.ActiveDocs, docFields, "doc", lvl),
		UsageContext:     uc}}, nil
}

// MissionCountsOut counts missions by status.
type MissionCountsOut struct {
	ToLaunch   int `json:"to_launch"`
	InProgress int `json:"in_progress"`
	Blocked    int `json:"blocked"`
	Done       int `json:"done"`
}

// TodoCountsOut counts todos by status, and the overdue ones (due in the past, not done).
type TodoCountsOut struct {
	Todo       int `json:"todo"`
	InProgress int `json:"in_progress"`
	Blocked    int `json:"blocked"`
	Done       int `json:"done"`
	Overdue    int `json:"overdue"`
}

// ActionCountsOut counts proposed actions by status.
type ActionCountsOut struct {
	Suggested int `json:"suggested"`
	Approved  int `json:"approved"`
	Rejected  int `json:"rejected"`
	Applied   int `json:"applied"`
}

// DashboardCountsOut are the dashboard's counts.
type DashboardCountsOut struct {
	Missions MissionCountsOut `json:"missions"`
	Todos    TodoCountsOut    `json:"todos"`
	Actions  ActionCountsOut  `json:"actions"`
}

// PilotageDashboardOut is the consolidated cockpit.
type PilotageDashboardOut struct {
	Cycle           string                `json:"cycle"`
	CycleStartsAt   time.Time             `json:"cycleStartsAt" doc:"Monday 00:00 UTC of the cycle"`
	Counts          DashboardCountsOut    `json:"counts"`
	BlockedMissions []PilotageMissionOut  `json:"blockedMissions" doc:"With their blockedReason, most recently changed first"`
	OverdueTodos    []PilotageTodoOut     `json:"overdueTodos" doc:"Open todos due in the past, soonest due first"`
	OpenTodos       []PilotageTodoOut     `json:"openTodos" doc:"Todos not done, soonest due first (undated last), at most 100"`
	PendingActions  []PilotageActionOut   `json:"pendingActions" doc:"Suggested and approved actions, oldest first, at most 100"`
	Decisions       []PilotageDecisionOut `json:"decisions" doc:"Decisions of this cycle"`
}

func mapAll[T, O any](rows []T, f func(T) O) []O {
	out := make([]O, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}

func (s pilotageOps) getPilotageDashboard(ctx context.Context,
	_ *WorkspacePath) (*Output[PilotageDashboardOut], error) {
	d, err := s.pilotage.DashboardFor(ctx, accessFrom(ctx).WorkspaceID, time.Now())
	if err != nil {
		return nil, fail(err)
	}
	m, t, a := d.Counts["mission"], d.Counts["todo"], d.Counts["action"]
	return &Output[PilotageDashboardOut]{Body: PilotageDashboardOut{Cycle: d.Cycle, CycleStartsAt: d.CycleStartsAt,
		Counts: DashboardCountsOut{
			Missions: MissionCountsOut{ToLaunch: m["to_launch"], InProgress: m["in_progress"], Blocked: m["blocked"],
				Done: m["done"]}, Todos: TodoCountsOut{Todo: t["todo"], InProgress: t["in_progress"], Blocked: t["blocked"],
				Done: t["done"], Overdue: t["overdue"]}, Actions: ActionCountsOut{Suggested: a["suggested"],
				Approved: a["approved"], Rejected: a["rejected"], Applied: a["applied"]},
		},
		BlockedMissions: mapAll(d.BlockedMissions, pilotageMissionOut), OverdueTodos: mapAll(d.OverdueTodos, pilotageTodoOut),
		OpenTodos: mapAll(d.OpenTodos, pilotageTodoOut), PendingActions: mapAll(d.PendingActions, pilotageActionOut),
		Decisions: mapAll(d.CycleDecisions, pilotageDecisionOut)}}, nil
}

// PilotageColumnOut is a column of a project in the cockpit's portfolio.
type PilotageColumnOut struct {
	ColumnID string `json:"columnId"`
	Name     string `json:"name"`
	Type     string `json:"type" enum:"todo,in_progress,done" doc:"todo: the first column; done: the last; in_progress: the others"`
	Count    int    `json:"count" doc:"Active (non-archived) cards"`
}

// CardStatusCountsOut counts a project's cards by status.
type CardStatusCountsOut struct {
	Todo       int `json:"todo"`
	InProgress int `json:"in_progress"`
	Done       int `json:"done"`
	Archived   int `json:"archived"`
}

// PilotagePortfolioProjectOut is one project in the cockpit's portfolio.
type PilotagePortfolioProjectOut struct {
	ProjectID       string                    `json:"projectId"`
	Name            string                    `json:"name"`
	Deadline        *time.Time                `json:"deadline" nullable:"true"`
	DaysLeft        *int                      `json:"daysLeft" nullable:"true" doc:"Whole days until the deadline, negative once past; null without one"`
	CardCount       int                       `json:"cardCount" doc:"Active (non-archived) cards"`
	CardsByColumn   []PilotageColumnOut       `json:"cardsByColumn" doc:"In column order"`
	CardsByStatus   CardStatusCountsOut       `json:"cardsByStatus"`
	CardsByPriority PortfolioPriorityOut      `json:"cardsByPriority"`
	Overdue         int                       `json:"overdue" doc:"Active cards due in the past that are not in the last column"`
	Progress        int                       `json:"progress" doc:"Share of active cards in the done column, in percent, rounded down; 0 without cards"`
	Checklist       PortfolioChecklistSummary `json:"checklist"`
	LastActivityAt  *time.Time                `json:"lastActivityAt" nullable:"true" doc:"The project's latest activity; null without any"`
}

func pilotagePortfolioOut(p pilotage.PilotagePortfolioProject) PilotagePortfolioProjectOut {
	base := portfolioProjectOut(p.PortfolioProject)
	cols := make([]PilotageColumnOut, len(base.CardsByColumn))
	for i, c := range base.CardsByColumn {
		cols[i] = PilotageColumnOut{ColumnID: c.ColumnID, Name: c.Name, Type: p.ColumnTypes[i], Count: c.Count}
	}
	return PilotagePortfolioProjectOut{ProjectID: base.ProjectID, Name: base.Name, Deadline: base.Deadline,
		DaysLeft: base.DaysLeft, CardCount: base.CardCount, CardsByColumn: cols,
		CardsByStatus: CardStatusCountsOut{Todo: p.CardsByStatus["todo"], InProgress: p.CardsByStatus["in_progress"],
			Done: p.CardsByStatus["done"], Archived: p.CardsByStatus["archived"]},
		CardsByPriority: base.CardsByPriority, Overdue: base.Overdue, Progress: p.Progress, Checklist: base.Checklist,
		LastActivityAt: p.LastActivityAt}
}

func (s pilotageOps) getPilotagePortfolio(ctx context.Context,
	_ *WorkspacePath) (*Output[[]PilotagePortfolioProjectOut], error) {
	return listOf(pilotagePortfolioOut)(s.pilotage.CockpitPortfolio(ctx, accessFrom(ctx).WorkspaceID, time.Now()))
}

// PilotageHistoryInput is the request of pilotage-history.
type PilotageHistoryInput struct {
	WorkspacePath
	Limit      int       `query:"limit" default:"50" minimum:"1" maximum:"200"`
	Before     string    `query:"before" doc:"The nextCursor of the previous page"`
	RecordType string    `query:"recordType" enum:"mission,priority,todo,decision,doc,action"`
	Since      time.Time `query:"since" doc:"Only changes at or after this time (ISO 8601)"`
}

// HistoryEntryOut is one change of the cockpit.
type HistoryEntryOut struct {
	ID         string          `json:"id"`
	RecordType string          `json:"recordType" enum:"mission,priority,todo,decision,doc,action"`
	RecordID   string          `json:"recordId"`
	Change     string          `json:"change" enum:"created,updated,deleted,proposed,reviewed,applied"`
	ActorID    string          `json:"actorId"`
	Data       json.RawMessage `json:"data"`
	At         time.Time       `json:"at"`
}

// PilotageHistoryOut is a page of the history.
type PilotageHistoryOut struct {
	Items      []HistoryEntryOut `json:"items"`
	NextCursor *string           `json:"nextCursor" nullable:"true" doc:"Pass as before for the next page; null on the last page"`
}

func (s pilotageOps) getPilotageHistory(ctx context.Context,
	in *PilotageHistoryInput) (*Output[PilotageHistoryOut], error) {
	hq := pilotage.PilotageHistoryQuery{Limit: in.Limit + 1}
	if in.Before != "" {
		if !isUUID(in.Before) {
			return nil, errBadRequest("before: expected the nextCursor of a previous page")
		}
		hq.Before = &in.Before
	}
	if in.RecordType != "" {
		hq.RecordType = &in.RecordType
	}
	if !in.Since.IsZero() {
		hq.Since = &in.Since
	}
	rows, err := s.pilotage.History(ctx, accessFrom(ctx).WorkspaceID, hq)
	if err != nil {
		return nil, fail(err)
	}
	out := PilotageHistoryOut{Items: []HistoryEntryOut{}}
	if len(rows) > in.Limit {
		rows = rows[:in.Limit]
		next := rows[len(rows)-1].ID
		out.NextCursor = &next
	}
	for _, r := range rows {
		out.Items = append(out.Items, HistoryEntryOut{ID: r.ID, RecordType: r.RecordType, RecordID: r.RecordID,
			Change: r.Change, ActorID: r.ActorID, Data: r.Data, At: r.CreatedAt})
	}
	return &Output[PilotageHistoryOut]{Body: out}, nil
}

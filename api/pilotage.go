package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/pilotage"
	"github.com/pilot-dev/pilot/internal/auth"
)

const pathPilotage = pathWorkspace + "/pilotage"

// Pilotage access: viewers read, reviewers also propose and review actions,
// owners also write records and apply actions. Organization owners and admins act as pilotage owners.
// No pilotage operation changes tenancy.
var (
	pilotageRead   = Requires{Scope: auth.ScopePilotageRead, WSRole: "member", PilotageRole: "viewer", KeepsTenancy: true}
	pilotageReview = Requires{Scope: auth.ScopePilotageWrite, WSRole: "member", PilotageRole: "reviewer", KeepsTenancy: true}
	pilotageOwner  = Requires{Scope: auth.ScopePilotageWrite, WSRole: "member", PilotageRole: "owner", KeepsTenancy: true}
)

// PilotagePath names a pilotage record.
type PilotagePath struct {
	WorkspacePath
	ID string `path:"id"`
}

// Audit is who created and last changed a record, and when.
type Audit struct {
	CreatedAt time.Time `json:"createdAt"`
	CreatedBy string    `json:"createdBy"`
	UpdatedAt time.Time `json:"updatedAt"`
	UpdatedBy string    `json:"updatedBy"`
}

// PilotageMissionOut is a pilotage mission.
type PilotageMissionOut struct {
	ID            string  `json:"id"`
	Objective     string  `json:"objective"`
	Module        string  `json:"module"`
	Status        string  `json:"status" enum:"to_launch,in_progress,blocked,done"`
	BlockedReason *string `json:"blockedReason" nullable:"true" doc:"Set exactly while the mission is blocked"`
	Audit
}

func pilotageMissionOut(m db.PilotageMission) PilotageMissionOut {
	return PilotageMissionOut{ID: m.ID, Objective: m.Objective, Module: m.Module, Status: m.Status, BlockedReason: m.BlockedReason,
		Audit: Audit{CreatedAt: m.CreatedAt, CreatedBy: m.CreatedBy, UpdatedAt: m.UpdatedAt, UpdatedBy: m.UpdatedBy}}
}

// PilotagePriorityOut is a pilotage priority.
type PilotagePriorityOut struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Module string `json:"module"`
	Active bool   `json:"active" doc:"Only active priorities appear in the state's activePriorities"`
	Audit
}

func pilotagePriorityOut(p db.PilotagePriority) PilotagePriorityOut {
	return PilotagePriorityOut{ID: p.ID, Label: p.Label, Module: p.Module, Active: p.Active,
		Audit: Audit{CreatedAt: p.CreatedAt, CreatedBy: p.CreatedBy, UpdatedAt: p.UpdatedAt, UpdatedBy: p.UpdatedBy}}
}

// PilotageTodoOut is a pilotage todo.
type PilotageTodoOut struct {
	ID         string     `json:"id"`
	Label      string     `json:"label"`
	MissionID  *string    `json:"missionId" nullable:"true"`
	PriorityID *string    `json:"priorityId" nullable:"true"`
	Status     string     `json:"status" enum:"todo,in_progress,blocked,done"`
	DueDate    *time.Time `json:"dueDate" nullable:"true"`
	Audit
}

func pilotageTodoOut(t db.PilotageTodo) PilotageTodoOut {
	return PilotageTodoOut{ID: t.ID, Label: t.Label, MissionID: t.MissionID, PriorityID: t.PriorityID, Status: t.Status, DueDate: t.DueDate,
		Audit: Audit{CreatedAt: t.CreatedAt, CreatedBy: t.CreatedBy, UpdatedAt: t.UpdatedAt, UpdatedBy: t.UpdatedBy}}
}

// PilotageDecisionOut is a pilotage decision.
type PilotageDecisionOut struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Impact string `json:"impact"`
	Audit
}

func pilotageDecisionOut(d db.PilotageDecision) PilotageDecisionOut {
	return PilotageDecisionOut{ID: d.ID, Title: d.Title, Impact: d.Impact,
		Audit: Audit{CreatedAt: d.CreatedAt, CreatedBy: d.CreatedBy, UpdatedAt: d.UpdatedAt, UpdatedBy: d.UpdatedBy}}
}

// PilotageDocOut is an active document.
type PilotageDocOut struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Owner      string `json:"owner" doc:"The owner's name"`
	SourceType string `json:"sourceType" enum:"product,tech,sprint,ops"`
	Audit
}

func pilotageDocOut(d db.PilotageDoc) PilotageDocOut {
	return PilotageDocOut{ID: d.ID, Title: d.Title, Owner: d.Owner, SourceType: d.SourceType,
		Audit: Audit{CreatedAt: d.CreatedAt, CreatedBy: d.CreatedBy, UpdatedAt: d.UpdatedAt, UpdatedBy: d.UpdatedBy}}
}

// ActionResultOut says what applying an action did.
type ActionResultOut struct {
	Effect     bool   `json:"effect" doc:"False when the action type is not one apply knows: it was applied with no effect"`
	Message    string `json:"message"`
	RecordType string `json:"recordType,omitempty" doc:"The record the effect created or changed: todo, mission, decision or card"`
	RecordID   string `json:"recordId,omitempty"`
}

// PilotageActionOut is a proposed action.
type PilotageActionOut struct {
	ID             string           `json:"id"`
	ActionType     string           `json:"actionType"`
	Explanation    string           `json:"explanation"`
	Status         string           `json:"status" enum:"suggested,approved,rejected,applied"`
	Payload        json.RawMessage  `json:"payload" doc:"A JSON object"`
	ProposedBy     string           `json:"proposedBy" doc:"A person, or an agent's service user"`
	AgentMissionID *string          `json:"agentMissionId" nullable:"true" doc:"The agent mission that proposed it, if an agent did"`
	ReviewedBy     *string          `json:"reviewedBy" nullable:"true"`
	ReviewedAt     *time.Time       `json:"reviewedAt" nullable:"true"`
	ReviewReason   *string          `json:"reviewReason" nullable:"true"`
	AppliedBy      *string          `json:"appliedBy" nullable:"true"`
	AppliedAt      *time.Time       `json:"appliedAt" nullable:"true"`
	Result         *ActionResultOut `json:"result" doc:"What applying did; null until applied"`
	CreatedAt      time.Time        `json:"createdAt"`
	UpdatedAt      time.Time        `json:"updatedAt"`
}

func pilotageActionOut(a db.PilotageAction) PilotageActionOut {
	out := PilotageActionOut{ID: a.ID, ActionType: a.ActionType, Explanation: a.Explanation, Status: a.Status, Payload: a.Payload,
		ProposedBy: a.ProposedBy, AgentMissionID: a.AgentMissionID, ReviewedBy: a.ReviewedBy, ReviewedAt: a.ReviewedAt,
		ReviewReason: a.ReviewReason, AppliedBy: a.AppliedBy, AppliedAt: a.AppliedAt, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if len(a.Result) > 0 {
		var r ActionResultOut
		if json.Unmarshal(a.Result, &r) == nil {
			out.Result = &r
		}
	}
	return out
}

// registerPilotage registers the pilotage cockpit: records, history, read models and proposed actions.
func (s pilotageOps) registerPilotage() {
	tags := []string{"Pilotage"}
	type record struct {
		noun, plural, path string
		create, update     string // descriptions
	}

	register(s.Server, huma.Operation{OperationID: "pilotage-state", Method: http.MethodGet, Path: pathPilotage + "/state",
		Summary: "Read the cockpit's state", Tags: tags,
		Description: "One consistent snapshot of the workspace's missions, active priorities, todos, decisions and active documents. " +
			"`profile` selects (pilotage: everything; execution: missions in progress or blocked and open todos; revue: decisions of " +
			"this cycle and missions and todos done this cycle), `intent` orders and trims (see docs/pilotage.md), `detailLevel` " +
			"sets the fields (minimal: id, objective/label/title and status; standard: the record's fields; detailed: also createdAt, " +
			"createdBy, updatedAt, updatedBy). `cycle` is the ISO week."},
		pilotageRead, s.getPilotageState)

	register(s.Server, huma.Operation{OperationID: "pilotage-dashboard", Method: http.MethodGet, Path: pathPilotage + "/dashboard",
		Summary: "Read the consolidated cockpit", Tags: tags,
		Description: "Counts by status (missions, todos with overdue, actions), blocked missions with their reasons, overdue and open " +
			"todos (soonest due first, at most 100), pending actions (suggested and approved, oldest first, at most 100) and the " +
			"decisions of this cycle. Five queries in one snapshot, whatever the workspace's size."},
		pilotageRead, s.getPilotageDashboard)

	register(s.Server, huma.Operation{OperationID: "pilotage-portfolio", Method: http.MethodGet, Path: pathPilotage + "/portfolio",
		Summary: "Summarise the workspace's projects for the cockpit", Tags: tags,
		Description: "Per project, what GET …/projects/portfolio gives (cards by column and priority, overdue cards, checklist " +
			"progress, deadline) plus each column's type (todo: the first, done: the last, in_progress: the others), cards by " +
			"status (by column type; archived apart), progress (done cards among active ones, %) and the last activity. " +
			"Two queries in one snapshot (one pass over the cards), whatever the number of projects and cards."},
		pilotageRead, s.getPilotagePortfolio)

	register(s.Server, huma.Operation{OperationID: "pilotage-history", Method: http.MethodGet, Path: pathPilotage + "/history",
		Summary: "Page through the cockpit's history", Tags: tags,
		Description: "Every change of a pilotage record or proposed action, newest first: who (`actorId`), when (`at`), what " +
			"(`recordType`, `recordId`, `change`) and `data` (the created record's fields, an update's {field: {from, to}}, a review's " +
			"status and reason, an apply's result). Pass `nextCursor` as `before` for the next page; `since` and `recordType` filter."},
		pilotageRead, s.getPilotageHistory)

	records := []record{
		{noun: "mission", plural: "missions", path: "/missions",
			create: "`objective` required; `status` defaults to to_launch; `blockedReason` is required when the status is blocked and refused otherwise.",
			update: "Any subset of objective, module, status, blockedReason. A blocked mission needs a reason (at most 200 characters); " +
				"leaving blocked clears it. Transitions between statuses are free."},
		{noun: "priority", plural: "priorities", path: "/priorities",
			create: "`label` required; a priority is active unless `active` is false.",
			update: "Any subset of label, module, active."},
		{noun: "todo", plural: "todos", path: "/todos",
			create: "`label` required; `missionId` and `priorityId` must name records of this workspace (404 otherwise); `status` defaults to todo.",
			update: "Any subset of label, status, missionId, priorityId, dueDate; null clears missionId, priorityId and dueDate."},
		{noun: "decision", plural: "decisions", path: "/decisions", create: "`title` required.", update: "Any subset of title, impact."},
		{noun: "active document", plural: "active documents", path: "/docs", create: "`title` required; `sourceType` defaults to product.",
			update: "Any subset of title, owner, sourceType."},
	}
	id := func(r record, verb string) string {
		n := map[string]string{"/missions": "missions", "/priorities": "priorities", "/todos": "todos", "/decisions": "decisions", "/docs": "docs"}[r.path]
		return "pilotage-" + n + "-" + verb
	}
	for _, r := range records {
		createOp := huma.Operation{OperationID: id(r, "create"), Method: http.MethodPost, Path: pathPilotage + r.path,
			Summary: "Create a " + r.noun, Tags: tags, DefaultStatus: http.StatusCreated, Description: r.create + " Recorded in the history."}
		listOp := huma.Operation{OperationID: id(r, "list"), Method: http.MethodGet, Path: pathPilotage + r.path,
			Summary: "List the workspace's " + r.plural, Tags: tags, Description: "In creation order."}
		updateOp := huma.Operation{OperationID: id(r, "update"), Method: http.MethodPatch, Path: pathPilotage + r.path + "/{id}",
			Summary: "Update a " + r.noun, Tags: tags, Description: r.update + " Recorded in the history with the changed fields."}
		deleteOp := huma.Operation{OperationID: id(r, "delete"), Method: http.MethodDelete, Path: pathPilotage + r.path + "/{id}",
			Summary: "Delete a " + r.noun, Tags: tags, Description: "Recorded in the history with the deleted record's fields."}
		switch r.path {
		case "/missions":
			register(s.Server, createOp, pilotageOwner, s.createPilotageMission)
			register(s.Server, listOp, pilotageRead, s.listPilotageMissions)
			register(s.Server, updateOp, pilotageOwner, s.updatePilotageMission)
			deleteOp.Description += " Its todos stay, without mission."
			register(s.Server, deleteOp, pilotageOwner, s.deletePilotageMission)
		case "/priorities":
			register(s.Server, createOp, pilotageOwner, s.createPilotagePriority)
			register(s.Server, listOp, pilotageRead, s.listPilotagePriorities)
			register(s.Server, updateOp, pilotageOwner, s.updatePilotagePriority)
			deleteOp.Description += " Its todos stay, without priority."
			register(s.Server, deleteOp, pilotageOwner, s.deletePilotagePriority)
		case "/todos":
			register(s.Server, createOp, pilotageOwner, s.createPilotageTodo)
			register(s.Server, listOp, pilotageRead, s.listPilotageTodos)
			register(s.Server, updateOp, pilotageOwner, s.updatePilotageTodo)
			register(s.Server, deleteOp, pilotageOwner, s.deletePilotageTodo)
		case "/decisions":
			register(s.Server, createOp, pilotageOwner, s.createPilotageDecision)
			register(s.Server, listOp, pilotageRead, s.listPilotageDecisions)
			register(s.Server, updateOp, pilotageOwner, s.updatePilotageDecision)
			register(s.Server, deleteOp, pilotageOwner, s.deletePilotageDecision)
		case "/docs":
			register(s.Server, createOp, pilotageOwner, s.createPilotageDoc)
			register(s.Server, listOp, pilotageRead, s.listPilotageDocs)
			register(s.Server, updateOp, pilotageOwner, s.updatePilotageDoc)
			register(s.Server, deleteOp, pilotageOwner, s.deletePilotageDoc)
		}
	}

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-propose", Method: http.MethodPost, Path: pathPilotage + "/actions/propose",
		Summary: "Propose an action", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "Stored as `suggested`. Any `actionType` may be proposed; for the types apply knows (create_todo, " +
			"update_mission_status, create_decision, create_card, move_card) the payload is checked now (docs/pilotage.md lists " +
			"their fields). Agents propose through their `propose_pilotage_action` tool. Needs the pilotage reviewer role."},
		pilotageReview, s.proposePilotageAction)

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-list", Method: http.MethodGet, Path: pathPilotage + "/actions",
		Summary: "List proposed actions", Tags: tags, Description: "Newest first, of one `status` when given."},
		pilotageRead, s.listPilotageActions)

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-get", Method: http.MethodGet, Path: pathPilotage + "/actions/{id}",
		Summary: "Get a proposed action", Tags: tags},
		pilotageRead, s.getPilotageAction)

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-review", Method: http.MethodPost, Path: pathPilotage + "/actions/{id}/review",
		Summary: "Approve or reject a suggested action", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "`approved` true moves suggested -> approved, false suggested -> rejected; `reason` (at most 200 characters) " +
			"is stored. Only a suggested action can be reviewed: any other answers 409, so of concurrent reviews exactly one wins. " +
			"Needs the pilotage reviewer role."},
		pilotageReview, s.reviewPilotageAction)

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-apply", Method: http.MethodPost, Path: pathPilotage + "/actions/{id}/apply",
		Summary: "Apply an approved action", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "Moves approved -> applied and performs the action through the store in the same transaction (a card " +
			"created or moved records its activity and notifies as any other). Only an approved action can be applied: any other " +
			"answers 409, so of concurrent applies exactly one wins. An unknown action type is applied with no effect; `result.effect` " +
			"is then false. When the effect fails (its mission was deleted…) the action stays approved and the effect's error is " +
			"answered. Needs the pilotage owner role."},
		pilotageOwner, s.applyPilotageAction)
}

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
	Intent      *string `json:"intent" nullable:"true" enum:"weekly_review,daily_execution,sprint_planning,context_only"`
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

func withAudit(m map[string]any, createdAt time.Time, createdBy string, updatedAt time.Time, updatedBy string) map[string]any {
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
	return withAudit(map[string]any{"id": d.ID, "title": d.Title, "impact": d.Impact}, d.CreatedAt, d.CreatedBy, d.UpdatedAt, d.UpdatedBy)
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
	return &Output[PilotageStateOut]{Body: PilotageStateOut{Cycle: st.Cycle, ContractVersion: pilotage.PilotageContractVersion,
		Missions:         atDetail(st.Missions, missionFields, "mission", lvl),
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

func (s pilotageOps) getPilotageDashboard(ctx context.Context, _ *WorkspacePath) (*Output[PilotageDashboardOut], error) {
	d, err := s.pilotage.DashboardFor(ctx, accessFrom(ctx).WorkspaceID, time.Now())
	if err != nil {
		return nil, fail(err)
	}
	m, t, a := d.Counts["mission"], d.Counts["todo"], d.Counts["action"]
	return &Output[PilotageDashboardOut]{Body: PilotageDashboardOut{Cycle: d.Cycle, CycleStartsAt: d.CycleStartsAt,
		Counts: DashboardCountsOut{
			Missions: MissionCountsOut{ToLaunch: m["to_launch"], InProgress: m["in_progress"], Blocked: m["blocked"], Done: m["done"]},
			Todos:    TodoCountsOut{Todo: t["todo"], InProgress: t["in_progress"], Blocked: t["blocked"], Done: t["done"], Overdue: t["overdue"]},
			Actions:  ActionCountsOut{Suggested: a["suggested"], Approved: a["approved"], Rejected: a["rejected"], Applied: a["applied"]},
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
	return PilotagePortfolioProjectOut{ProjectID: base.ProjectID, Name: base.Name, Deadline: base.Deadline, DaysLeft: base.DaysLeft,
		CardCount: base.CardCount, CardsByColumn: cols,
		CardsByStatus: CardStatusCountsOut{Todo: p.CardsByStatus["todo"], InProgress: p.CardsByStatus["in_progress"],
			Done: p.CardsByStatus["done"], Archived: p.CardsByStatus["archived"]},
		CardsByPriority: base.CardsByPriority, Overdue: base.Overdue, Progress: p.Progress, Checklist: base.Checklist,
		LastActivityAt: p.LastActivityAt}
}

func (s pilotageOps) getPilotagePortfolio(ctx context.Context, _ *WorkspacePath) (*Output[[]PilotagePortfolioProjectOut], error) {
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

func (s pilotageOps) getPilotageHistory(ctx context.Context, in *PilotageHistoryInput) (*Output[PilotageHistoryOut], error) {
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
		out.Items = append(out.Items, HistoryEntryOut{ID: r.ID, RecordType: r.RecordType, RecordID: r.RecordID, Change: r.Change,
			ActorID: r.ActorID, Data: r.Data, At: r.CreatedAt})
	}
	return &Output[PilotageHistoryOut]{Body: out}, nil
}

// ---- missions

// CreatePilotageMissionInput is the request of pilotage-missions-create.
type CreatePilotageMissionInput struct {
	WorkspacePath
	Body CreatePilotageMissionInputBody
}

// CreatePilotageMissionInputBody is the body of a CreatePilotageMissionInput request.
type CreatePilotageMissionInputBody struct {
	Objective     string  `json:"objective" minLength:"1" maxLength:"500"`
	Module        string  `json:"module,omitempty" maxLength:"100"`
	Status        string  `json:"status,omitempty" enum:"to_launch,in_progress,blocked,done" doc:"Default: to_launch"`
	BlockedReason *string `json:"blockedReason,omitempty" maxLength:"200" doc:"Required when status is blocked"`
}

func (s pilotageOps) createPilotageMission(ctx context.Context, in *CreatePilotageMissionInput) (*Output[PilotageMissionOut], error) {
	b := in.Body
	return oneOf(pilotageMissionOut)(s.pilotage.CreateMission(ctx, pilotage.NewPilotageMission{WorkspaceID: accessFrom(ctx).WorkspaceID,
		ActorID: principalFrom(ctx).User.ID, Objective: b.Objective, Module: b.Module, Status: b.Status, BlockedReason: b.BlockedReason}))
}

func (s pilotageOps) listPilotageMissions(ctx context.Context, _ *WorkspacePath) (*Output[[]PilotageMissionOut], error) {
	return listOf(pilotageMissionOut)(s.pilotage.Missions(ctx, accessFrom(ctx).WorkspaceID))
}

// UpdatePilotageMissionInput is the request of pilotage-missions-update.
type UpdatePilotageMissionInput struct {
	PilotagePath
	Body UpdatePilotageMissionInputBody
}

// UpdatePilotageMissionInputBody is the body of a UpdatePilotageMissionInput request.
type UpdatePilotageMissionInputBody struct {
	Objective     *string          `json:"objective,omitempty" minLength:"1" maxLength:"500"`
	Module        *string          `json:"module,omitempty" maxLength:"100"`
	Status        *string          `json:"status,omitempty" enum:"to_launch,in_progress,blocked,done"`
	BlockedReason Nullable[string] `json:"blockedReason,omitempty" doc:"At most 200 characters, or null; required while blocked"`
}

func (s pilotageOps) updatePilotageMission(ctx context.Context, in *UpdatePilotageMissionInput) (*Output[PilotageMissionOut], error) {
	b := in.Body
	return oneOf(pilotageMissionOut)(s.pilotage.UpdateMission(ctx, recordEdit(ctx, in.ID),
		pilotage.PilotageMissionPatch{Objective: b.Objective, Module: b.Module, Status: b.Status, BlockedReason: b.BlockedReason.opt()}))
}

func (s pilotageOps) deletePilotageMission(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return done(s.pilotage.DeleteMission(ctx, recordEdit(ctx, in.ID)))
}

// ---- priorities

// CreatePilotagePriorityInput is the request of pilotage-priorities-create.
type CreatePilotagePriorityInput struct {
	WorkspacePath
	Body CreatePilotagePriorityInputBody
}

// CreatePilotagePriorityInputBody is the body of a CreatePilotagePriorityInput request.
type CreatePilotagePriorityInputBody struct {
	Label  string `json:"label" minLength:"1" maxLength:"500"`
	Module string `json:"module,omitempty" maxLength:"100"`
	Active *bool  `json:"active,omitempty" doc:"Default: true"`
}

func (s pilotageOps) createPilotagePriority(ctx context.Context, in *CreatePilotagePriorityInput) (*Output[PilotagePriorityOut], error) {
	b := in.Body
	return oneOf(pilotagePriorityOut)(s.pilotage.CreatePriority(ctx, pilotage.NewPilotagePriority{WorkspaceID: accessFrom(ctx).WorkspaceID,
		ActorID: principalFrom(ctx).User.ID, Label: b.Label, Module: b.Module, Active: b.Active}))
}

func (s pilotageOps) listPilotagePriorities(ctx context.Context, _ *WorkspacePath) (*Output[[]PilotagePriorityOut], error) {
	return listOf(pilotagePriorityOut)(s.pilotage.Priorities(ctx, accessFrom(ctx).WorkspaceID))
}

// UpdatePilotagePriorityInput is the request of pilotage-priorities-update.
type UpdatePilotagePriorityInput struct {
	PilotagePath
	Body UpdatePilotagePriorityInputBody
}

// UpdatePilotagePriorityInputBody is the body of a UpdatePilotagePriorityInput request.
type UpdatePilotagePriorityInputBody struct {
	Label  *string `json:"label,omitempty" minLength:"1" maxLength:"500"`
	Module *string `json:"module,omitempty" maxLength:"100"`
	Active *bool   `json:"active,omitempty"`
}

func (s pilotageOps) updatePilotagePriority(ctx context.Context, in *UpdatePilotagePriorityInput) (*Output[PilotagePriorityOut], error) {
	b := in.Body
	return oneOf(pilotagePriorityOut)(s.pilotage.UpdatePriority(ctx, recordEdit(ctx, in.ID),
		pilotage.PilotagePriorityPatch{Label: b.Label, Module: b.Module, Active: b.Active}))
}

func (s pilotageOps) deletePilotagePriority(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return done(s.pilotage.DeletePriority(ctx, recordEdit(ctx, in.ID)))
}

// ---- todos

// CreatePilotageTodoInput is the request of pilotage-todos-create.
type CreatePilotageTodoInput struct {
	WorkspacePath
	Body CreatePilotageTodoInputBody
}

// CreatePilotageTodoInputBody is the body of a CreatePilotageTodoInput request.
type CreatePilotageTodoInputBody struct {
	Label      string     `json:"label" minLength:"1" maxLength:"500"`
	MissionID  *string    `json:"missionId,omitempty" doc:"A pilotage mission of this workspace"`
	PriorityID *string    `json:"priorityId,omitempty" doc:"A priority of this workspace"`
	Status     string     `json:"status,omitempty" enum:"todo,in_progress,blocked,done" doc:"Default: todo"`
	DueDate    *time.Time `json:"dueDate,omitempty"`
}

func (s pilotageOps) createPilotageTodo(ctx context.Context, in *CreatePilotageTodoInput) (*Output[PilotageTodoOut], error) {
	b := in.Body
	return oneOf(pilotageTodoOut)(s.pilotage.CreateTodo(ctx, pilotage.NewPilotageTodo{WorkspaceID: accessFrom(ctx).WorkspaceID,
		ActorID: principalFrom(ctx).User.ID, Label: b.Label, MissionID: b.MissionID, PriorityID: b.PriorityID, Status: b.Status, DueDate: b.DueDate}))
}

func (s pilotageOps) listPilotageTodos(ctx context.Context, _ *WorkspacePath) (*Output[[]PilotageTodoOut], error) {
	return listOf(pilotageTodoOut)(s.pilotage.Todos(ctx, accessFrom(ctx).WorkspaceID))
}

// UpdatePilotageTodoInput is the request of pilotage-todos-update.
type UpdatePilotageTodoInput struct {
	PilotagePath
	Body UpdatePilotageTodoInputBody
}

// UpdatePilotageTodoInputBody is the body of a UpdatePilotageTodoInput request.
type UpdatePilotageTodoInputBody struct {
	Label      *string             `json:"label,omitempty" minLength:"1" maxLength:"500"`
	Status     *string             `json:"status,omitempty" enum:"todo,in_progress,blocked,done"`
	MissionID  Nullable[string]    `json:"missionId,omitempty"`
	PriorityID Nullable[string]    `json:"priorityId,omitempty"`
	DueDate    Nullable[time.Time] `json:"dueDate,omitempty"`
}

func (s pilotageOps) updatePilotageTodo(ctx context.Context, in *UpdatePilotageTodoInput) (*Output[PilotageTodoOut], error) {
	b := in.Body
	return oneOf(pilotageTodoOut)(s.pilotage.UpdateTodo(ctx, recordEdit(ctx, in.ID),
		pilotage.PilotageTodoPatch{Label: b.Label, Status: b.Status, MissionID: b.MissionID.opt(), PriorityID: b.PriorityID.opt(), DueDate: b.DueDate.opt()}))
}

func (s pilotageOps) deletePilotageTodo(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return done(s.pilotage.DeleteTodo(ctx, recordEdit(ctx, in.ID)))
}

// ---- decisions

// CreatePilotageDecisionInput is the request of pilotage-decisions-create.
type CreatePilotageDecisionInput struct {
	WorkspacePath
	Body CreatePilotageDecisionInputBody
}

// CreatePilotageDecisionInputBody is the body of a CreatePilotageDecisionInput request.
type CreatePilotageDecisionInputBody struct {
	Title  string `json:"title" minLength:"1" maxLength:"500"`
	Impact string `json:"impact,omitempty" maxLength:"2000"`
}

func (s pilotageOps) createPilotageDecision(ctx context.Context, in *CreatePilotageDecisionInput) (*Output[PilotageDecisionOut], error) {
	return oneOf(pilotageDecisionOut)(s.pilotage.CreateDecision(ctx, pilotage.NewPilotageDecision{WorkspaceID: accessFrom(ctx).WorkspaceID,
		ActorID: principalFrom(ctx).User.ID, Title: in.Body.Title, Impact: in.Body.Impact}))
}

func (s pilotageOps) listPilotageDecisions(ctx context.Context, _ *WorkspacePath) (*Output[[]PilotageDecisionOut], error) {
	return listOf(pilotageDecisionOut)(s.pilotage.Decisions(ctx, accessFrom(ctx).WorkspaceID))
}

// UpdatePilotageDecisionInput is the request of pilotage-decisions-update.
type UpdatePilotageDecisionInput struct {
	PilotagePath
	Body UpdatePilotageDecisionInputBody
}

// UpdatePilotageDecisionInputBody is the body of a UpdatePilotageDecisionInput request.
type UpdatePilotageDecisionInputBody struct {
	Title  *string `json:"title,omitempty" minLength:"1" maxLength:"500"`
	Impact *string `json:"impact,omitempty" maxLength:"2000"`
}

func (s pilotageOps) updatePilotageDecision(ctx context.Context, in *UpdatePilotageDecisionInput) (*Output[PilotageDecisionOut], error) {
	return oneOf(pilotageDecisionOut)(s.pilotage.UpdateDecision(ctx, recordEdit(ctx, in.ID),
		pilotage.PilotageDecisionPatch{Title: in.Body.Title, Impact: in.Body.Impact}))
}

func (s pilotageOps) deletePilotageDecision(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return done(s.pilotage.DeleteDecision(ctx, recordEdit(ctx, in.ID)))
}

// ---- active documents

// CreatePilotageDocInput is the request of pilotage-docs-create.
type CreatePilotageDocInput struct {
	WorkspacePath
	Body CreatePilotageDocInputBody
}

// CreatePilotageDocInputBody is the body of a CreatePilotageDocInput request.
type CreatePilotageDocInputBody struct {
	Title      string `json:"title" minLength:"1" maxLength:"500"`
	Owner      string `json:"owner,omitempty" maxLength:"200" doc:"The owner's name"`
	SourceType string `json:"sourceType,omitempty" enum:"product,tech,sprint,ops" doc:"Default: product"`
}

func (s pilotageOps) createPilotageDoc(ctx context.Context, in *CreatePilotageDocInput) (*Output[PilotageDocOut], error) {
	b := in.Body
	return oneOf(pilotageDocOut)(s.pilotage.CreateDoc(ctx, pilotage.NewPilotageDoc{WorkspaceID: accessFrom(ctx).WorkspaceID,
		ActorID: principalFrom(ctx).User.ID, Title: b.Title, Owner: b.Owner, SourceType: b.SourceType}))
}

func (s pilotageOps) listPilotageDocs(ctx context.Context, _ *WorkspacePath) (*Output[[]PilotageDocOut], error) {
	return listOf(pilotageDocOut)(s.pilotage.Docs(ctx, accessFrom(ctx).WorkspaceID))
}

// UpdatePilotageDocInput is the request of pilotage-docs-update.
type UpdatePilotageDocInput struct {
	PilotagePath
	Body UpdatePilotageDocInputBody
}

// UpdatePilotageDocInputBody is the body of a UpdatePilotageDocInput request.
type UpdatePilotageDocInputBody struct {
	Title      *string `json:"title,omitempty" minLength:"1" maxLength:"500"`
	Owner      *string `json:"owner,omitempty" maxLength:"200"`
	SourceType *string `json:"sourceType,omitempty" enum:"product,tech,sprint,ops"`
}

func (s pilotageOps) updatePilotageDoc(ctx context.Context, in *UpdatePilotageDocInput) (*Output[PilotageDocOut], error) {
	b := in.Body
	return oneOf(pilotageDocOut)(s.pilotage.UpdateDoc(ctx, recordEdit(ctx, in.ID),
		pilotage.PilotageDocPatch{Title: b.Title, Owner: b.Owner, SourceType: b.SourceType}))
}

func (s pilotageOps) deletePilotageDoc(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return done(s.pilotage.DeleteDoc(ctx, recordEdit(ctx, in.ID)))
}

// ---- proposed actions

// ProposePilotageActionInput is the request of pilotage-actions-propose.
type ProposePilotageActionInput struct {
	WorkspacePath
	Body ProposePilotageActionInputBody
}

// ProposePilotageActionInputBody is the body of a ProposePilotageActionInput request.
type ProposePilotageActionInputBody struct {
	ActionType  string         `json:"actionType" minLength:"1" maxLength:"100"`
	Explanation string         `json:"explanation" minLength:"1" maxLength:"500"`
	Payload     map[string]any `json:"payload,omitempty" doc:"A JSON object (default {}); checked for the action types apply knows"`
}

func (s pilotageOps) proposePilotageAction(ctx context.Context, in *ProposePilotageActionInput) (*Output[PilotageActionOut], error) {
	var payload json.RawMessage
	if in.Body.Payload != nil {
		var err error
		if payload, err = json.Marshal(in.Body.Payload); err != nil {
			return nil, errBadRequest("payload: expected a JSON object")
		}
	}
	return oneOf(pilotageActionOut)(s.pilotage.ProposeAction(ctx, pilotage.NewPilotageAction{WorkspaceID: accessFrom(ctx).WorkspaceID,
		ActorID: principalFrom(ctx).User.ID, ActionType: in.Body.ActionType, Explanation: in.Body.Explanation, Payload: payload}))
}

// ListPilotageActionsInput is the request of pilotage-actions-list.
type ListPilotageActionsInput struct {
	WorkspacePath
	Status string `query:"status" enum:"suggested,approved,rejected,applied"`
	Limit  int    `query:"limit" default:"100" minimum:"1" maximum:"500"`
}

func (s pilotageOps) listPilotageActions(ctx context.Context, in *ListPilotageActionsInput) (*Output[[]PilotageActionOut], error) {
	var status *string
	if in.Status != "" {
		status = &in.Status
	}
	return listOf(pilotageActionOut)(s.pilotage.Actions(ctx, accessFrom(ctx).WorkspaceID, status, in.Limit))
}

func (s pilotageOps) getPilotageAction(ctx context.Context, in *PilotagePath) (*Output[PilotageActionOut], error) {
	return oneOf(pilotageActionOut)(s.pilotage.Action(ctx, accessFrom(ctx).WorkspaceID, in.ID))
}

// ReviewPilotageActionInput is the request of pilotage-actions-review.
type ReviewPilotageActionInput struct {
	PilotagePath
	Body ReviewPilotageActionInputBody
}

// ReviewPilotageActionInputBody is the body of a ReviewPilotageActionInput request.
type ReviewPilotageActionInputBody struct {
	Approved *bool   `json:"approved" required:"true"`
	Reason   *string `json:"reason,omitempty" maxLength:"200"`
}

func (s pilotageOps) reviewPilotageAction(ctx context.Context, in *ReviewPilotageActionInput) (*Output[PilotageActionOut], error) {
	if in.Body.Approved == nil {
		return nil, errBadRequest("approved: required")
	}
	return oneOf(pilotageActionOut)(s.pilotage.ReviewAction(ctx, recordEdit(ctx, in.ID),
		*in.Body.Approved, in.Body.Reason))
}

func (s pilotageOps) applyPilotageAction(ctx context.Context, in *PilotagePath) (*Output[PilotageActionOut], error) {
	return oneOf(pilotageActionOut)(s.pilotage.ApplyAction(ctx, recordEdit(ctx, in.ID)))
}

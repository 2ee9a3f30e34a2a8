package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/auth"
)

const pathPilotage = pathWorkspace + "/pilotage"

// Pilotage access: viewers read, reviewers also propose and review actions,
// owners also write records and apply actions. Organization owners and admins act as pilotage owners.
// No pilotage operation changes tenancy.
var (
	pilotageRead   = Requires{Scope: auth.ScopePilotageRead, WSRole: "member", PilotageRole: "viewer", KeepsTenancy: true}
	pilotageReview = Requires{Scope: auth.ScopePilotageWrite, WSRole: "member", PilotageRole: "reviewer",
		KeepsTenancy: true}
	pilotageOwner = Requires{Scope: auth.ScopePilotageWrite, WSRole: "member", PilotageRole: "owner", KeepsTenancy: true}
)

// PilotagePath names a pilotage record.
type PilotagePath struct {
	WorkspacePath
	ID string `path:"id" format:"uuid"`
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
	return PilotageMissionOut{ID: m.ID, Objective: m.Objective, Module: m.Module, Status: m.Status,
		BlockedReason: m.BlockedReason, Audit: Audit{CreatedAt: m.CreatedAt, CreatedBy: m.CreatedBy, UpdatedAt: m.UpdatedAt,
			UpdatedBy: m.UpdatedBy}}
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
	return PilotageTodoOut{ID: t.ID, Label: t.Label, MissionID: t.MissionID, PriorityID: t.PriorityID, Status: t.Status,
		DueDate: t.DueDate, Audit: Audit{CreatedAt: t.CreatedAt, CreatedBy: t.CreatedBy, UpdatedAt: t.UpdatedAt,
			UpdatedBy: t.UpdatedBy}}
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
	out := PilotageActionOut{ID: a.ID, ActionType: a.ActionType, Explanation: a.Explanation, Status: a.Status,
		Payload: a.Payload, ProposedBy: a.ProposedBy, AgentMissionID: a.AgentMissionID, ReviewedBy: a.ReviewedBy,
		ReviewedAt: a.ReviewedAt, ReviewReason: a.ReviewReason, AppliedBy: a.AppliedBy, AppliedAt: a.AppliedAt,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
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
		Description: "One consistent snapshot of the workspace's missions, active priorities, todos, decisions and active " +
			"documents. `profile` selects (pilotage: everything; execution: missions in progress or blocked and open todos; " +
			"revue: decisions of this cycle and missions and todos done this cycle), `intent` orders and trims (see " +
			"docs/pilotage.md), `detailLevel` sets the fields (minimal: id, objective/label/title and status; standard: the " +
			"record's fields; detailed: also createdAt, createdBy, updatedAt, updatedBy). `cycle` is the ISO week."},
		pilotageRead, s.getPilotageState)

	register(s.Server, huma.Operation{OperationID: "pilotage-dashboard", Method: http.MethodGet,
		Path: pathPilotage + "/dashboard", Summary: "Read the consolidated cockpit", Tags: tags,
		Description: "Counts by status (missions, todos with overdue, actions), blocked missions with their reasons, " +
			"overdue and open todos (soonest due first, at most 100), pending actions (suggested and approved, oldest first, " +
			"at most 100) and the decisions of this cycle. Five queries in one snapshot, whatever the workspace's size."},
		pilotageRead, s.getPilotageDashboard)

	register(s.Server, huma.Operation{OperationID: "pilotage-portfolio", Method: http.MethodGet,
		Path: pathPilotage + "/portfolio", Summary: "Summarise the workspace's projects for the cockpit", Tags: tags,
		Description: "Per project, what GET …/projects/portfolio gives (cards by column and priority, overdue cards, " +
			"checklist progress, deadline) plus each column's type (todo: the first, done: the last, in_progress: the " +
			"others), cards by status (by column type; archived apart), progress (done cards among active ones, %) and the " +
			"last activity. Two queries in one snapshot (one pass over the cards), whatever the number of projects and cards."},
		pilotageRead, s.getPilotagePortfolio)

	register(s.Server, huma.Operation{OperationID: "pilotage-history", Method: http.MethodGet,
		Path: pathPilotage + "/history", Summary: "Page through the cockpit's history", Tags: tags,
		Description: "Every change of a pilotage record or proposed action, newest first: who (`actorId`), when (`at`), " +
			"what (`recordType`, `recordId`, `change`) and `data` (the created record's fields, an update's {field: {from, " +
			"to}}, a review's status and reason, an apply's result). Pass `nextCursor` as `before` for the next page; `since` " +
			"and `recordType` filter."},
		pilotageRead, s.getPilotageHistory)

	records := []record{
		{noun: "mission", plural: "missions", path: "/missions",
			create: "`objective` required; `status` defaults to to_launch; `blockedReason` is required when the status is " +
				"blocked and refused otherwise.",
			update: "Any subset of objective, module, status, blockedReason. A blocked mission needs a reason (at most 200 " +
				"characters); leaving blocked clears it. Transitions between statuses are free."},
		{noun: "priority", plural: "priorities", path: "/priorities",
			create: "`label` required; a priority is active unless `active` is false.",
			update: "Any subset of label, module, active."},
		{noun: "todo", plural: "todos", path: "/todos",
			create: "`label` required; `missionId` and `priorityId` must name records of this workspace (404 otherwise); " +
				"`status` defaults to todo.",
			update: "Any subset of label, status, missionId, priorityId, dueDate; null clears missionId, priorityId and " +
				"dueDate."},
		{noun: "decision", plural: "decisions", path: "/decisions", create: "`title` required.", update: "Any subset of " +
			"title, impact."},
		{noun: "active document", plural: "active documents", path: "/docs", create: "`title` required; `sourceType` " +
			"defaults to product.",
			update: "Any subset of title, owner, sourceType."},
	}
	id := func(r record, verb string) string {
		n := map[string]string{"/missions": "missions", "/priorities": "priorities", "/todos": "todos",
			"/decisions": "decisions", "/docs": "docs"}[r.path]
		return "pilotage-" + n + "-" + verb
	}
	for _, r := range records {
		createOp := huma.Operation{OperationID: id(r, "create"), Method: http.MethodPost, Path: pathPilotage + r.path,
			Summary: "Create a " + r.noun, Tags: tags, DefaultStatus: http.StatusCreated,
			Description: r.create + " Recorded in the history."}
		listOp := huma.Operation{OperationID: id(r, "list"), Method: http.MethodGet, Path: pathPilotage + r.path,
			Summary: "List the workspace's " + r.plural, Tags: tags, Description: "In creation order."}
		updateOp := huma.Operation{OperationID: id(r, "update"), Method: http.MethodPatch,
			Path: pathPilotage + r.path + "/{id}", Summary: "Update a " + r.noun, Tags: tags,
			Description: r.update + " Recorded in the history with the changed fields."}
		deleteOp := huma.Operation{OperationID: id(r, "delete"), Method: http.MethodDelete,
			Path: pathPilotage + r.path + "/{id}", Summary: "Delete a " + r.noun, Tags: tags, Description: "Recorded in the " +
				"history with the deleted record's fields."}
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

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-propose", Method: http.MethodPost,
		Path: pathPilotage + "/actions/propose", Summary: "Propose an action", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "Stored as `suggested`. Any `actionType` may be proposed; for the types apply knows (create_todo, " +
			"update_mission_status, create_decision, create_card, move_card) the payload is checked now (docs/pilotage.md " +
			"lists their fields). Agents propose through their `propose_pilotage_action` tool. Needs the pilotage reviewer " +
			"role."},
		pilotageReview, s.proposePilotageAction)

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-list", Method: http.MethodGet,
		Path:    pathPilotage + "/actions",
		Summary: "List proposed actions", Tags: tags, Description: "Newest first, of one `status` when given."},
		pilotageRead, s.listPilotageActions)

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-get", Method: http.MethodGet,
		Path: pathPilotage + "/actions/{id}", Summary: "Get a proposed action", Tags: tags},
		pilotageRead, s.getPilotageAction)

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-review", Method: http.MethodPost,
		Path: pathPilotage + "/actions/{id}/review", Summary: "Approve or reject a suggested action", Tags: tags,
		Errors: []int{http.StatusConflict},
		Description: "`approved` true moves suggested -> approved, false suggested -> rejected; `reason` (at most 200 " +
			"characters) is stored. Only a suggested action can be reviewed: any other answers 409, so of concurrent reviews " +
			"exactly one wins. Needs the pilotage reviewer role."},
		pilotageReview, s.reviewPilotageAction)

	register(s.Server, huma.Operation{OperationID: "pilotage-actions-apply", Method: http.MethodPost,
		Path: pathPilotage + "/actions/{id}/apply", Summary: "Apply an approved action", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: "Moves approved -> applied and performs the action through the " +
			"store in the same transaction (a card created or moved records its activity and notifies as any other). Only an " +
			"approved action can be applied: any other answers 409, so of concurrent applies exactly one wins. An unknown " +
			"action type is applied with no effect; `result.effect` is then false. When the effect fails (its mission was " +
			"deleted…) the action stays approved and the effect's error is answered. Needs the pilotage owner role."},
		pilotageOwner, s.applyPilotageAction)
}

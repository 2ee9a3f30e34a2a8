package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/pilotage"
)

// pilotageCreateInput is the request of a pilotage record's create: the record's fields in B.
type pilotageCreateInput[B any] struct {
	WorkspacePath
	Body B
}

// pilotageUpdateInput is the request of a pilotage record's update: the fields it changes in B.
type pilotageUpdateInput[B any] struct {
	PilotagePath
	Body B
}

// pilotageRecord is what the handlers of one kind of pilotage record (missions, priorities, todos,
// decisions, active documents) share: the engine's methods for it and its answer. R is its row, O its
// answer, N what creates one and P what changes one.
type pilotageRecord[R, O, N, P any] struct {
	out    func(R) O
	create func(*pilotage.Engine, context.Context, N) (R, error)
	list   func(*pilotage.Engine, context.Context, string, db.Page) (db.Paged[R], error)
	update func(*pilotage.Engine, context.Context, db.RecordEdit, P) (R, error)
	remove func(*pilotage.Engine, context.Context, db.RecordEdit) error
}

// pilotageRecordOf is the pilotageRecord answered by out and kept by the engine's methods create, list,
// update and remove.
func pilotageRecordOf[R, O, N, P any](out func(R) O, create func(*pilotage.Engine, context.Context, N) (R, error),
	list func(*pilotage.Engine, context.Context, string, db.Page) (db.Paged[R], error),
	update func(*pilotage.Engine, context.Context, db.RecordEdit, P) (R, error),
	remove func(*pilotage.Engine, context.Context, db.RecordEdit) error) pilotageRecord[R, O, N, P] {
	return pilotageRecord[R, O, N, P]{out: out, create: create, list: list, update: update, remove: remove}
}

// created creates the record n and answers it.
func (k pilotageRecord[R, O, N, P]) created(ctx context.Context, e *pilotage.Engine, n N) (*Output[O], error) {
	return oneOf(k.out)(k.create(e, ctx, n))
}

// listed answers a page of the records of the caller's workspace.
func (k pilotageRecord[R, O, N, P]) listed(
	ctx context.Context, e *pilotage.Engine, in *ListPilotageRecordsInput) (*PageOutput[O], error) {
	return pageOf(ctx, k.out)(k.list(e, ctx, accessFrom(ctx).WorkspaceID, in.page()))
}

// updated changes the record id of the caller's workspace by p, the caller being its editor, and answers it.
func (k pilotageRecord[R, O, N, P]) updated(
	ctx context.Context, e *pilotage.Engine, id string, p P) (*Output[O], error) {
	return oneOf(k.out)(k.update(e, ctx, recordEdit(ctx, id), p))
}

// deleted deletes the record in.ID of the caller's workspace.
func (k pilotageRecord[R, O, N, P]) deleted(
	ctx context.Context, e *pilotage.Engine, in *PilotagePath) (*OKOutput, error) {
	return done(k.remove(e, ctx, recordEdit(ctx, in.ID)))
}

// The five kinds of pilotage record.
var (
	pilotageMissions = pilotageRecordOf(pilotageMissionOut, (*pilotage.Engine).CreateMission,
		(*pilotage.Engine).Missions, (*pilotage.Engine).UpdateMission, (*pilotage.Engine).DeleteMission)
	pilotagePriorities = pilotageRecordOf(pilotagePriorityOut, (*pilotage.Engine).CreatePriority,
		(*pilotage.Engine).Priorities, (*pilotage.Engine).UpdatePriority, (*pilotage.Engine).DeletePriority)
	pilotageTodos = pilotageRecordOf(pilotageTodoOut, (*pilotage.Engine).CreateTodo,
		(*pilotage.Engine).Todos, (*pilotage.Engine).UpdateTodo, (*pilotage.Engine).DeleteTodo)
	pilotageDecisions = pilotageRecordOf(pilotageDecisionOut, (*pilotage.Engine).CreateDecision,
		(*pilotage.Engine).Decisions, (*pilotage.Engine).UpdateDecision, (*pilotage.Engine).DeleteDecision)
	pilotageDocs = pilotageRecordOf(pilotageDocOut, (*pilotage.Engine).CreateDoc,
		(*pilotage.Engine).Docs, (*pilotage.Engine).UpdateDoc, (*pilotage.Engine).DeleteDoc)
)

// ---- missions

// CreatePilotageMissionInput is the request of pilotage-missions-create.
type CreatePilotageMissionInput = pilotageCreateInput[CreatePilotageMissionInputBody]

// CreatePilotageMissionInputBody is the body of a CreatePilotageMissionInput request.
type CreatePilotageMissionInputBody struct {
	Objective     string  `json:"objective" minLength:"1" maxLength:"500"`
	Module        string  `json:"module,omitempty" maxLength:"100"`
	Status        string  `json:"status,omitempty" enum:"to_launch,in_progress,blocked,done" doc:"Default: to_launch"`
	BlockedReason *string `json:"blockedReason,omitempty" maxLength:"200" doc:"Required when status is blocked"`
}

func (s pilotageOps) createPilotageMission(ctx context.Context,
	in *CreatePilotageMissionInput) (*Output[PilotageMissionOut], error) {
	b := in.Body
	return pilotageMissions.created(ctx, s.pilotage, pilotage.NewPilotageMission{
		WorkspaceID: accessFrom(ctx).WorkspaceID, ActorID: principalFrom(ctx).User.ID,
		Objective: b.Objective, Module: b.Module, Status: b.Status, BlockedReason: b.BlockedReason})
}

func (s pilotageOps) listPilotageMissions(ctx context.Context,
	in *ListPilotageRecordsInput) (*PageOutput[PilotageMissionOut], error) {
	return pilotageMissions.listed(ctx, s.pilotage, in)
}

// UpdatePilotageMissionInput is the request of pilotage-missions-update.
type UpdatePilotageMissionInput = pilotageUpdateInput[UpdatePilotageMissionInputBody]

// UpdatePilotageMissionInputBody is the body of a UpdatePilotageMissionInput request.
type UpdatePilotageMissionInputBody struct {
	Objective     *string          `json:"objective,omitempty" minLength:"1" maxLength:"500"`
	Module        *string          `json:"module,omitempty" maxLength:"100"`
	Status        *string          `json:"status,omitempty" enum:"to_launch,in_progress,blocked,done"`
	BlockedReason Nullable[string] `json:"blockedReason,omitempty" doc:"At most 200 characters, or null; required while blocked"`
}

func (s pilotageOps) updatePilotageMission(ctx context.Context,
	in *UpdatePilotageMissionInput) (*Output[PilotageMissionOut], error) {
	b := in.Body
	return pilotageMissions.updated(ctx, s.pilotage, in.ID, pilotage.PilotageMissionPatch{
		Objective: b.Objective, Module: b.Module, Status: b.Status, BlockedReason: b.BlockedReason.opt()})
}

func (s pilotageOps) deletePilotageMission(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return pilotageMissions.deleted(ctx, s.pilotage, in)
}

// ---- priorities

// CreatePilotagePriorityInput is the request of pilotage-priorities-create.
type CreatePilotagePriorityInput = pilotageCreateInput[CreatePilotagePriorityInputBody]

// CreatePilotagePriorityInputBody is the body of a CreatePilotagePriorityInput request.
type CreatePilotagePriorityInputBody struct {
	Label  string `json:"label" minLength:"1" maxLength:"500"`
	Module string `json:"module,omitempty" maxLength:"100"`
	Active *bool  `json:"active,omitempty" doc:"Default: true"`
}

func (s pilotageOps) createPilotagePriority(ctx context.Context,
	in *CreatePilotagePriorityInput) (*Output[PilotagePriorityOut], error) {
	b := in.Body
	return pilotagePriorities.created(ctx, s.pilotage, pilotage.NewPilotagePriority{
		WorkspaceID: accessFrom(ctx).WorkspaceID, ActorID: principalFrom(ctx).User.ID,
		Label: b.Label, Module: b.Module, Active: b.Active})
}

func (s pilotageOps) listPilotagePriorities(ctx context.Context,
	in *ListPilotageRecordsInput) (*PageOutput[PilotagePriorityOut], error) {
	return pilotagePriorities.listed(ctx, s.pilotage, in)
}

// UpdatePilotagePriorityInput is the request of pilotage-priorities-update.
type UpdatePilotagePriorityInput = pilotageUpdateInput[UpdatePilotagePriorityInputBody]

// UpdatePilotagePriorityInputBody is the body of a UpdatePilotagePriorityInput request.
type UpdatePilotagePriorityInputBody struct {
	Label  *string `json:"label,omitempty" minLength:"1" maxLength:"500"`
	Module *string `json:"module,omitempty" maxLength:"100"`
	Active *bool   `json:"active,omitempty"`
}

func (s pilotageOps) updatePilotagePriority(ctx context.Context,
	in *UpdatePilotagePriorityInput) (*Output[PilotagePriorityOut], error) {
	b := in.Body
	return pilotagePriorities.updated(ctx, s.pilotage, in.ID, pilotage.PilotagePriorityPatch{
		Label: b.Label, Module: b.Module, Active: b.Active})
}

func (s pilotageOps) deletePilotagePriority(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return pilotagePriorities.deleted(ctx, s.pilotage, in)
}

// ---- todos

// CreatePilotageTodoInput is the request of pilotage-todos-create.
type CreatePilotageTodoInput = pilotageCreateInput[CreatePilotageTodoInputBody]

// CreatePilotageTodoInputBody is the body of a CreatePilotageTodoInput request.
type CreatePilotageTodoInputBody struct {
	Label      string     `json:"label" minLength:"1" maxLength:"500"`
	MissionID  *string    `json:"missionId,omitempty" doc:"A pilotage mission of this workspace"`
	PriorityID *string    `json:"priorityId,omitempty" doc:"A priority of this workspace"`
	Status     string     `json:"status,omitempty" enum:"todo,in_progress,blocked,done" doc:"Default: todo"`
	DueDate    *time.Time `json:"dueDate,omitempty"`
}

func (s pilotageOps) createPilotageTodo(ctx context.Context,
	in *CreatePilotageTodoInput) (*Output[PilotageTodoOut], error) {
	b := in.Body
	return pilotageTodos.created(ctx, s.pilotage, pilotage.NewPilotageTodo{
		WorkspaceID: accessFrom(ctx).WorkspaceID, ActorID: principalFrom(ctx).User.ID,
		Label: b.Label, MissionID: b.MissionID, PriorityID: b.PriorityID, Status: b.Status, DueDate: b.DueDate})
}

func (s pilotageOps) listPilotageTodos(ctx context.Context,
	in *ListPilotageRecordsInput) (*PageOutput[PilotageTodoOut], error) {
	return pilotageTodos.listed(ctx, s.pilotage, in)
}

// UpdatePilotageTodoInput is the request of pilotage-todos-update.
type UpdatePilotageTodoInput = pilotageUpdateInput[UpdatePilotageTodoInputBody]

// UpdatePilotageTodoInputBody is the body of a UpdatePilotageTodoInput request.
type UpdatePilotageTodoInputBody struct {
	Label      *string             `json:"label,omitempty" minLength:"1" maxLength:"500"`
	Status     *string             `json:"status,omitempty" enum:"todo,in_progress,blocked,done"`
	MissionID  Nullable[string]    `json:"missionId,omitempty"`
	PriorityID Nullable[string]    `json:"priorityId,omitempty"`
	DueDate    Nullable[time.Time] `json:"dueDate,omitempty"`
}

func (s pilotageOps) updatePilotageTodo(ctx context.Context,
	in *UpdatePilotageTodoInput) (*Output[PilotageTodoOut], error) {
	b := in.Body
	return pilotageTodos.updated(ctx, s.pilotage, in.ID, pilotage.PilotageTodoPatch{Label: b.Label, Status: b.Status,
		MissionID: b.MissionID.opt(), PriorityID: b.PriorityID.opt(), DueDate: b.DueDate.opt()})
}

func (s pilotageOps) deletePilotageTodo(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return pilotageTodos.deleted(ctx, s.pilotage, in)
}

// ---- decisions

// CreatePilotageDecisionInput is the request of pilotage-decisions-create.
type CreatePilotageDecisionInput = pilotageCreateInput[CreatePilotageDecisionInputBody]

// CreatePilotageDecisionInputBody is the body of a CreatePilotageDecisionInput request.
type CreatePilotageDecisionInputBody struct {
	Title  string `json:"title" minLength:"1" maxLength:"500"`
	Impact string `json:"impact,omitempty" maxLength:"2000"`
}

func (s pilotageOps) createPilotageDecision(ctx context.Context,
	in *CreatePilotageDecisionInput) (*Output[PilotageDecisionOut], error) {
	return pilotageDecisions.created(ctx, s.pilotage, pilotage.NewPilotageDecision{
		WorkspaceID: accessFrom(ctx).WorkspaceID, ActorID: principalFrom(ctx).User.ID,
		Title: in.Body.Title, Impact: in.Body.Impact})
}

func (s pilotageOps) listPilotageDecisions(ctx context.Context,
	in *ListPilotageRecordsInput) (*PageOutput[PilotageDecisionOut], error) {
	return pilotageDecisions.listed(ctx, s.pilotage, in)
}

// UpdatePilotageDecisionInput is the request of pilotage-decisions-update.
type UpdatePilotageDecisionInput = pilotageUpdateInput[UpdatePilotageDecisionInputBody]

// UpdatePilotageDecisionInputBody is the body of a UpdatePilotageDecisionInput request.
type UpdatePilotageDecisionInputBody struct {
	Title  *string `json:"title,omitempty" minLength:"1" maxLength:"500"`
	Impact *string `json:"impact,omitempty" maxLength:"2000"`
}

func (s pilotageOps) updatePilotageDecision(ctx context.Context,
	in *UpdatePilotageDecisionInput) (*Output[PilotageDecisionOut], error) {
	return pilotageDecisions.updated(ctx, s.pilotage, in.ID, pilotage.PilotageDecisionPatch{
		Title: in.Body.Title, Impact: in.Body.Impact})
}

func (s pilotageOps) deletePilotageDecision(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return pilotageDecisions.deleted(ctx, s.pilotage, in)
}

// ---- active documents

// CreatePilotageDocInput is the request of pilotage-docs-create.
type CreatePilotageDocInput = pilotageCreateInput[CreatePilotageDocInputBody]

// CreatePilotageDocInputBody is the body of a CreatePilotageDocInput request.
type CreatePilotageDocInputBody struct {
	Title      string `json:"title" minLength:"1" maxLength:"500"`
	Owner      string `json:"owner,omitempty" maxLength:"200" doc:"The owner's name"`
	SourceType string `json:"sourceType,omitempty" enum:"product,tech,sprint,ops" doc:"Default: product"`
}

func (s pilotageOps) createPilotageDoc(ctx context.Context,
	in *CreatePilotageDocInput) (*Output[PilotageDocOut], error) {
	b := in.Body
	return pilotageDocs.created(ctx, s.pilotage, pilotage.NewPilotageDoc{
		WorkspaceID: accessFrom(ctx).WorkspaceID, ActorID: principalFrom(ctx).User.ID,
		Title: b.Title, Owner: b.Owner, SourceType: b.SourceType})
}

func (s pilotageOps) listPilotageDocs(ctx context.Context,
	in *ListPilotageRecordsInput) (*PageOutput[PilotageDocOut], error) {
	return pilotageDocs.listed(ctx, s.pilotage, in)
}

// UpdatePilotageDocInput is the request of pilotage-docs-update.
type UpdatePilotageDocInput = pilotageUpdateInput[UpdatePilotageDocInputBody]

// UpdatePilotageDocInputBody is the body of a UpdatePilotageDocInput request.
type UpdatePilotageDocInputBody struct {
	Title      *string `json:"title,omitempty" minLength:"1" maxLength:"500"`
	Owner      *string `json:"owner,omitempty" maxLength:"200"`
	SourceType *string `json:"sourceType,omitempty" enum:"product,tech,sprint,ops"`
}

func (s pilotageOps) updatePilotageDoc(ctx context.Context,
	in *UpdatePilotageDocInput) (*Output[PilotageDocOut], error) {
	b := in.Body
	return pilotageDocs.updated(ctx, s.pilotage, in.ID, pilotage.PilotageDocPatch{
		Title: b.Title, Owner: b.Owner, SourceType: b.SourceType})
}

func (s pilotageOps) deletePilotageDoc(ctx context.Context, in *PilotagePath) (*OKOutput, error) {
	return pilotageDocs.deleted(ctx, s.pilotage, in)
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

func (s pilotageOps) proposePilotageAction(ctx context.Context,
	in *ProposePilotageActionInput) (*Output[PilotageActionOut], error) {
	var payload json.RawMessage
	if in.Body.Payload != nil {
		var err error
		if payload, err = json.Marshal(in.Body.Payload); err != nil {
			return nil, errBadRequest("payload: expected a JSON object")
		}
	}
	return oneOf(pilotageActionOut)(s.pilotage.ProposeAction(ctx,
		pilotage.NewPilotageAction{WorkspaceID: accessFrom(ctx).WorkspaceID, ActorID: principalFrom(ctx).User.ID,
			ActionType: in.Body.ActionType, Explanation: in.Body.Explanation, Payload: payload}))
}

// ListPilotageActionsInput is the request of pilotage-actions-list.
type ListPilotageActionsInput struct {
	WorkspacePath
	Status string `query:"status" enum:"suggested,approved,rejected,applied"`
	PageQuery
}

// ListPilotageRecordsInput is the request of the lists of pilotage records (missions, priorities,
// todos, decisions, active documents).
type ListPilotageRecordsInput struct {
	WorkspacePath
	PageQuery
}

func (s pilotageOps) listPilotageActions(ctx context.Context,
	in *ListPilotageActionsInput) (*PageOutput[PilotageActionOut], error) {
	var status *string
	if in.Status != "" {
		status = &in.Status
	}
	return pageOf(ctx, pilotageActionOut)(s.pilotage.Actions(ctx, accessFrom(ctx).WorkspaceID, status, in.page()))
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

func (s pilotageOps) reviewPilotageAction(ctx context.Context,
	in *ReviewPilotageActionInput) (*Output[PilotageActionOut], error) {
	if in.Body.Approved == nil {
		return nil, errBadRequest("approved: required")
	}
	return oneOf(pilotageActionOut)(s.pilotage.ReviewAction(ctx, recordEdit(ctx, in.ID),
		*in.Body.Approved, in.Body.Reason))
}

func (s pilotageOps) applyPilotageAction(ctx context.Context, in *PilotagePath) (*Output[PilotageActionOut], error) {
	return oneOf(pilotageActionOut)(s.pilotage.ApplyAction(ctx, recordEdit(ctx, in.ID)))
}

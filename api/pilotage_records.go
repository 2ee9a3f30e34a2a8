package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/pilot-dev/pilot/db/pilotage"
)

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

func (s pilotageOps) listPilotageMissions(ctx context.Context, in *ListPilotageRecordsInput) (*PageOutput[PilotageMissionOut], error) {
	return pageOf(ctx, pilotageMissionOut)(s.pilotage.Missions(ctx, accessFrom(ctx).WorkspaceID, in.page()))
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

func (s pilotageOps) listPilotagePriorities(ctx context.Context, in *ListPilotageRecordsInput) (*PageOutput[PilotagePriorityOut], error) {
	return pageOf(ctx, pilotagePriorityOut)(s.pilotage.Priorities(ctx, accessFrom(ctx).WorkspaceID, in.page()))
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

func (s pilotageOps) listPilotageTodos(ctx context.Context, in *ListPilotageRecordsInput) (*PageOutput[PilotageTodoOut], error) {
	return pageOf(ctx, pilotageTodoOut)(s.pilotage.Todos(ctx, accessFrom(ctx).WorkspaceID, in.page()))
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

func (s pilotageOps) listPilotageDecisions(ctx context.Context, in *ListPilotageRecordsInput) (*PageOutput[PilotageDecisionOut], error) {
	return pageOf(ctx, pilotageDecisionOut)(s.pilotage.Decisions(ctx, accessFrom(ctx).WorkspaceID, in.page()))
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

func (s pilotageOps) listPilotageDocs(ctx context.Context, in *ListPilotageRecordsInput) (*PageOutput[PilotageDocOut], error) {
	return pageOf(ctx, pilotageDocOut)(s.pilotage.Docs(ctx, accessFrom(ctx).WorkspaceID, in.page()))
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
	PageQuery
}

// ListPilotageRecordsInput is the request of the lists of pilotage records (missions, priorities,
// todos, decisions, active documents).
type ListPilotageRecordsInput struct {
	WorkspacePath
	PageQuery
}

func (s pilotageOps) listPilotageActions(ctx context.Context, in *ListPilotageActionsInput) (*PageOutput[PilotageActionOut], error) {
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

package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/internal/auth"
)

// RuleOut is an automation rule.
type RuleOut struct {
	ID         string          `json:"id"`
	ProjectID  string          `json:"projectId"`
	Name       string          `json:"name"`
	Trigger    db.Trigger      `json:"trigger"`
	Conditions json.RawMessage `json:"conditions"`
	Action     json.RawMessage `json:"action"`
	Enabled    bool            `json:"enabled"`
	CreatedBy  string          `json:"createdBy"`
	CreatedAt  time.Time       `json:"createdAt"`
	UpdatedAt  time.Time       `json:"updatedAt"`
}

func ruleOut(r db.AutomationRule) RuleOut {
	return RuleOut{ID: r.ID, ProjectID: r.ProjectID, Name: r.Name, Trigger: db.Trigger(r.Trigger),
		Conditions: r.Conditions, Action: r.Action, Enabled: r.Enabled, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt}
}

// TraceOut is one execution of a rule.
type TraceOut struct {
	ID        string     `json:"id"`
	RuleID    string     `json:"ruleId"`
	Actor     TraceRef   `json:"actor" doc:"Who acted: the rule"`
	Target    TraceRef   `json:"target" doc:"What it acted on: the card"`
	Trigger   db.Trigger `json:"trigger"`
	Depth     int32      `json:"depth" doc:"Automation steps that led to this event (0: a person's change)"`
	Result    string     `json:"result" enum:"applied,skipped,failed"`
	Reason    string     `json:"reason" doc:"Why it was skipped or how it failed"`
	Timestamp time.Time  `json:"timestamp"`
}

// TraceRef names the actor or target of a trace.
type TraceRef struct {
	Type string  `json:"type" enum:"automation,card"`
	ID   *string `json:"id"`
}

func traceOut(t db.AutomationTrace) TraceOut {
	ruleID := t.RuleID
	return TraceOut{ID: t.ID, RuleID: t.RuleID, Actor: TraceRef{Type: "automation", ID: &ruleID},
		Target: TraceRef{Type: "card", ID: t.CardID}, Trigger: db.Trigger(t.Trigger), Depth: t.Depth, Result: t.Result,
		Reason: t.Reason, Timestamp: t.CreatedAt}
}

// RulePath are the path parameters of a rule's routes.
type RulePath struct {
	ProjectPath
	RuleID string `path:"ruleId" format:"uuid"`
}

// ruleActionDoc describes actions and conditions once, for the OpenAPI document.
const ruleActionDoc = "Actions: `move_card {columnId}`, `set_status {status: todo|in_progress|done}` (first, second, " +
	"last column), `set_priority {priority}`, `assign_user {userId}` (a project member), `archive_card {}`, " +
	"`send_webhook {webhookId}` (a webhook of the workspace: the event's activity is delivered to it). Conditions (all " +
	"optional, all must hold): `fromColumnId`, `toColumnId` (task_moved only), `columnId`, `priority` (one or a list), " +
	"`labelId`, `assigneeId` (null: unassigned), `status` (todo|in_progress|done|archived). See docs/automations.md."

// registerAutomations registers a project's automation rules and their traces.
func (s workflowOps) registerAutomations() {
	tags := []string{"Automations"}
	read := Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}
	write := Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin"}
	base := pathProject + "/automations"

	register(s.Server, huma.Operation{OperationID: "automations-create", Method: http.MethodPost, Path: base,
		Summary: "Create an automation rule", Tags: tags, DefaultStatus: http.StatusCreated, Description: ruleActionDoc},
		write, s.createRule)

	register(s.Server, huma.Operation{OperationID: "automations-list", Method: http.MethodGet, Path: base,
		Summary: "List automation rules", Tags: tags},
		read, s.listRules)

	register(s.Server, huma.Operation{OperationID: "automations-get", Method: http.MethodGet, Path: base + "/{ruleId}",
		Summary: "Get an automation rule", Tags: tags},
		read, s.getRule)

	register(s.Server, huma.Operation{OperationID: "automations-update", Method: http.MethodPatch,
		Path: base + "/{ruleId}", Summary: "Update an automation rule", Tags: tags, Description: "Any subset of fields; " +
			"the result is validated as a whole. " + ruleActionDoc},
		write, s.updateRule)

	register(s.Server, huma.Operation{OperationID: "automations-delete", Method: http.MethodDelete,
		Path: base + "/{ruleId}", Summary: "Delete an automation rule", Tags: tags},
		write, s.deleteRule)

	register(s.Server, huma.Operation{OperationID: "automations-toggle", Method: http.MethodPatch,
		Path: base + "/{ruleId}/toggle", Summary: "Enable or disable an automation rule", Tags: tags},
		write, s.toggleRule)

	register(s.Server, huma.Operation{OperationID: "automations-traces", Method: http.MethodGet,
		Path: base + "/{ruleId}/traces", Summary: "List a rule's executions, newest first", Tags: tags},
		read, s.listRuleTraces)
}

// CreateRuleInput is the request of automations-create.
type CreateRuleInput struct {
	ProjectPath
	Body CreateRuleInputBody
}

// CreateRuleInputBody is the body of a CreateRuleInput request.
type CreateRuleInputBody struct {
	Name       string          `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Trigger    db.Trigger      `json:"trigger" required:"true"`
	Action     json.RawMessage `json:"action" required:"true" doc:"{type, …parameters}"`
	Conditions json.RawMessage `json:"conditions,omitempty" doc:"Condition object; absent or {} always holds"`
	Enabled    *bool           `json:"enabled,omitempty" doc:"Default true"`
}

func (s workflowOps) createRule(ctx context.Context, in *CreateRuleInput) (*Output[RuleOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	enabled := in.Body.Enabled == nil || *in.Body.Enabled
	return oneOf(ruleOut)(s.automations.CreateRule(ctx, accessFrom(ctx).ProjectID, principalFrom(ctx).User.ID,
		automation.NewRule{Name: name, Trigger: in.Body.Trigger, Conditions: in.Body.Conditions, Action: in.Body.Action,
			Enabled: enabled}))
}

func (s workflowOps) listRules(ctx context.Context, _ *ProjectPath) (*Output[[]RuleOut], error) {
	return listOf(ruleOut)(s.automations.Rules(ctx, accessFrom(ctx).ProjectID))
}

func (s workflowOps) getRule(ctx context.Context, in *RulePath) (*Output[RuleOut], error) {
	return oneOf(ruleOut)(s.automations.Rule(ctx, accessFrom(ctx).ProjectID, in.RuleID))
}

// UpdateRuleInput is the request of automations-update.
type UpdateRuleInput struct {
	RulePath
	Body UpdateRuleInputBody
}

// UpdateRuleInputBody is the body of a UpdateRuleInput request.
type UpdateRuleInputBody struct {
	Name       *string         `json:"name,omitempty" minLength:"1" maxLength:"200"`
	Trigger    *db.Trigger     `json:"trigger,omitempty"`
	Action     json.RawMessage `json:"action,omitempty"`
	Conditions json.RawMessage `json:"conditions,omitempty"`
	Enabled    *bool           `json:"enabled,omitempty"`
}

func (s workflowOps) updateRule(ctx context.Context, in *UpdateRuleInput) (*Output[RuleOut], error) {
	b := in.Body
	name, err := nonBlankOpt("name", b.Name)
	if err != nil {
		return nil, err
	}
	return oneOf(ruleOut)(s.automations.UpdateRule(ctx, accessFrom(ctx).ProjectID, in.RuleID, principalFrom(ctx).User.ID,
		func(cur automation.NewRule) automation.NewRule {
			if name != nil {
				cur.Name = *name
			}
			if b.Trigger != nil {
				cur.Trigger = *b.Trigger
			}
			if len(b.Action) > 0 {
				cur.Action = b.Action
			}
			if len(b.Conditions) > 0 {
				cur.Conditions = b.Conditions
			}
			if b.Enabled != nil {
				cur.Enabled = *b.Enabled
			}
			return cur
		}))
}

func (s workflowOps) deleteRule(ctx context.Context, in *RulePath) (*OKOutput, error) {
	return done(s.automations.DeleteRule(ctx, accessFrom(ctx).ProjectID, in.RuleID))
}

func (s workflowOps) toggleRule(ctx context.Context, in *RulePath) (*Output[RuleOut], error) {
	return oneOf(ruleOut)(s.automations.ToggleRule(ctx, accessFrom(ctx).ProjectID, in.RuleID,
		principalFrom(ctx).User.ID))
}

// ListRuleTracesInput is the request of automations-traces.
type ListRuleTracesInput struct {
	RulePath
	Limit int `query:"limit" minimum:"1" maximum:"500" default:"100"`
}

func (s workflowOps) listRuleTraces(ctx context.Context, in *ListRuleTracesInput) (*Output[[]TraceOut], error) {
	r, err := s.automations.Rule(ctx, accessFrom(ctx).ProjectID, in.RuleID)
	if err != nil {
		return nil, fail(err)
	}
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}
	return listOf(traceOut)(s.automations.RuleTraces(ctx, r.ID, int32(limit)))
}

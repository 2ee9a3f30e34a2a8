package automation

// This file holds automation rules as data: triggers, the condition language, actions, their
// validation against a project, and the rules' CRUD and trace listing. Running rules is the engine's
// work (automation_engine.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/stepgraph"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// ActionTypes lists every automation action.
var ActionTypes = []string{"move_card", "set_status", "set_priority", "assign_user", "archive_card", "send_webhook"}

// RuleConditions is the small condition language of automation rules: every given key must hold.
type RuleConditions struct {
	// FromColumnID and ToColumnID match the columns of a move (task_moved only).
	FromColumnID *string `json:"fromColumnId,omitempty"`
	ToColumnID   *string `json:"toColumnId,omitempty"`
	// ColumnID matches the card's current column.
	ColumnID *string `json:"columnId,omitempty"`
	// Priority matches one priority or any of a list.
	Priority json.RawMessage `json:"priority,omitempty"`
	// LabelID matches cards carrying the label.
	LabelID *string `json:"labelId,omitempty"`
	// AssigneeID matches the card's assignee; null matches unassigned cards.
	AssigneeID json.RawMessage `json:"assigneeId,omitempty"`
	// Status matches the card's status (todo, in_progress, done, archived).
	Status *board.Status `json:"status,omitempty"`
}

// RuleAction is what a rule does.
type RuleAction struct {
	Type     string          `json:"type"`
	ColumnID *string         `json:"columnId,omitempty"`
	Status   *board.Status   `json:"status,omitempty"`
	Priority *board.Priority `json:"priority,omitempty"`
	UserID   *string         `json:"userId,omitempty"`
	// WebhookID is send_webhook's webhook, of the project's workspace.
	WebhookID *string `json:"webhookId,omitempty"`
}

// NewRule is a rule to create or the full new state of a rule to update.
type NewRule struct {
	Name       string
	Trigger    db.Trigger
	Conditions json.RawMessage
	Action     json.RawMessage
	Enabled    bool
}

// triggerNames lists the triggers' names, for an error message.
func triggerNames() []string {
	names := make([]string, len(db.Triggers))
	for i, t := range db.Triggers {
		names[i] = string(t)
	}
	return names
}

func decodeStrict(raw json.RawMessage, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return dbcore.Invalid(fmt.Sprintf("%s: %s", what, strings.TrimPrefix(err.Error(), "json: ")))
	}
	return nil
}

// validateRule checks a rule against the project: triggers, condition keys and values, action type and
// parameters, and that every referenced column, label and user belongs to it. It returns the
// normalised conditions and action.
func validateRule(ctx context.Context, q *dbsqlc.Queries, projectID string,
	r NewRule) (json.RawMessage, json.RawMessage, error) {
	if !r.Trigger.Valid() {
		return nil, nil, dbcore.Invalid("trigger must be one of " + strings.Join(triggerNames(), ", "))
	}
	colIDs, err := q.ColumnIDsByProject(ctx, projectID)
	if err != nil {
		return nil, nil, fmt.Errorf("list columns: %w", err)
	}
	c, err := checkRuleConditions(ctx, q, projectID, r, colIDs)
	if err != nil {
		return nil, nil, err
	}
	a, err := checkRuleAction(ctx, q, projectID, r.Action, colIDs)
	if err != nil {
		return nil, nil, err
	}
	condJSON, _ := json.Marshal(c)
	actJSON, _ := json.Marshal(a)
	return condJSON, actJSON, nil
}

// isColumnOf says whether id names one of the project's columns.
func isColumnOf(colIDs []string, id *string) bool { return id != nil && slices.Contains(colIDs, *id) }

// checkRuleConditions decodes a rule's conditions (none when absent or null) and checks each against
// the trigger and the project.
func checkRuleConditions(ctx context.Context, q *dbsqlc.Queries, projectID string, r NewRule,
	colIDs []string) (RuleConditions, error) {
	var c RuleConditions
	if len(r.Conditions) > 0 && string(r.Conditions) != "null" {
		if err := decodeStrict(r.Conditions, &c, "conditions"); err != nil {
			return c, err
		}
	}
	if (c.FromColumnID != nil || c.ToColumnID != nil) && r.Trigger != db.TriggerTaskMoved {
		return c, dbcore.Invalid("conditions: fromColumnId and toColumnId apply to the task_moved trigger only")
	}
	for name, id := range map[string]*string{"fromColumnId": c.FromColumnID, "toColumnId": c.ToColumnID,
		"columnId": c.ColumnID} {
		if id != nil && !isColumnOf(colIDs, id) {
			return c, dbcore.Invalid(fmt.Sprintf("conditions: %s is not a column of this project", name))
		}
	}
	if err := checkPriorityCondition(c.Priority); err != nil {
		return c, err
	}
	if c.LabelID != nil {
		ok, err := q.LabelInProject(ctx, dbsqlc.LabelInProjectParams{ID: *c.LabelID, ProjectID: projectID})
		if (err != nil && !dbcore.IsNotFound(err)) || !ok {
			return c, dbcore.Invalid("conditions: labelId is not a label of this project")
		}
	}
	if err := checkAssigneeCondition(ctx, q, projectID, c.AssigneeID); err != nil {
		return c, err
	}
	if c.Status != nil && !c.Status.Valid() {
		return c, dbcore.Invalid("conditions: status must be one of todo, in_progress, done, archived")
	}
	return c, nil
}

// checkPriorityCondition checks a priority condition, when set: one priority or a non-empty list.
func checkPriorityCondition(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var one board.Priority
	var many []board.Priority
	if json.Unmarshal(raw, &one) == nil {
		many = []board.Priority{one}
	} else if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return dbcore.Invalid("conditions: priority must be a priority or a non-empty list of them")
	}
	for _, p := range many {
		if !p.Valid() {
			return dbcore.Invalid("conditions: priority must be low, medium or high")
		}
	}
	return nil
}

// checkAssigneeCondition checks an assignee condition, when set and not null: a member of the project.
func checkAssigneeCondition(ctx context.Context, q *dbsqlc.Queries, projectID string, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		return dbcore.Invalid("conditions: assigneeId must be a user id or null")
	}
	ok, err := q.ProjectMemberIsMember(ctx, dbsqlc.ProjectMemberIsMemberParams{ProjectID: projectID, UserID: id})
	if (err != nil && !dbcore.IsNotFound(err)) || !ok {
		return dbcore.Invalid("conditions: assigneeId is not a member of this project")
	}
	return nil
}

// checkRuleAction decodes a rule's action, checks the parameter its type needs against the project and
// refuses the parameters it does not take.
func checkRuleAction(ctx context.Context, q *dbsqlc.Queries, projectID string, raw json.RawMessage,
	colIDs []string) (RuleAction, error) {
	var a RuleAction
	if err := decodeStrict(raw, &a, "action"); err != nil {
		return a, err
	}
	want, err := checkActionParam(ctx, q, projectID, a, colIDs)
	if err != nil {
		return a, err
	}
	for name, set := range map[string]bool{"columnId": a.ColumnID != nil, "status": a.Status != nil,
		"priority": a.Priority != nil, "userId": a.UserID != nil, "webhookId": a.WebhookID != nil} {
		if set && !want[name] {
			return a, dbcore.Invalid(fmt.Sprintf("action: %s does not take %s", a.Type, name))
		}
	}
	return a, nil
}

// checkActionParam checks the parameter an action's type needs and answers the parameters it takes.
func checkActionParam(ctx context.Context, q *dbsqlc.Queries, projectID string, a RuleAction,
	colIDs []string) (map[string]bool, error) {
	want := map[string]bool{}
	switch a.Type {
	case "move_card":
		want["columnId"] = true
		if !isColumnOf(colIDs, a.ColumnID) {
			return nil, dbcore.Invalid("action: move_card needs columnId, a column of this project")
		}
	case "set_status":
		want["status"] = true
		if a.Status == nil || !slices.Contains([]board.Status{board.StatusTodo, board.StatusInProgress, board.StatusDone},
			*a.Status) {
			return nil, dbcore.Invalid("action: set_status needs status: todo, in_progress or done")
		}
	case "set_priority":
		want["priority"] = true
		if a.Priority == nil || !a.Priority.Valid() {
			return nil, dbcore.Invalid("action: set_priority needs priority: low, medium or high")
		}
	case "assign_user":
		want["userId"] = true
		if a.UserID == nil {
			return nil, dbcore.Invalid("action: assign_user needs userId, a member of this project")
		}
		ok, err := q.ProjectMemberIsMember(ctx, dbsqlc.ProjectMemberIsMemberParams{ProjectID: projectID, UserID: *a.UserID})
		if (err != nil && !dbcore.IsNotFound(err)) || !ok {
			return nil, dbcore.Invalid("action: assign_user needs userId, a member of this project")
		}
	case "archive_card":
	case "send_webhook":
		want["webhookId"] = true
		if a.WebhookID == nil || !stepgraph.IsUUID(*a.WebhookID) {
			return nil, dbcore.Invalid("action: send_webhook needs webhookId, a webhook of this project's workspace")
		}
		ws, err := q.ProjectWorkspace(ctx, projectID)
		if err != nil {
			return nil, fmt.Errorf("project workspace: %w", err)
		}
		if _, err := q.WebhookGet(ctx, dbsqlc.WebhookGetParams{ID: *a.WebhookID, WorkspaceID: ws}); dbcore.IsNotFound(err) {
			return nil, dbcore.Invalid("action: send_webhook needs webhookId, a webhook of this project's workspace")
		} else if err != nil {
			return nil, fmt.Errorf("check webhook: %w", err)
		}
	default:
		return nil, dbcore.Invalid("action: type must be one of " + strings.Join(ActionTypes, ", "))
	}
	return want, nil
}

// CreateRule validates and stores an automation rule.
func (e *Engine) CreateRule(ctx context.Context, projectID, userID string, r NewRule) (db.AutomationRule, error) {
	var out db.AutomationRule
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cond, act, err := validateRule(ctx, q, projectID, r)
		if err != nil {
			return err
		}
		var outRow dbsqlc.AutomationRule
		outRow, err = q.AutomationRuleInsert(ctx, dbsqlc.AutomationRuleInsertParams{ID: db.NewID(), ProjectID: projectID,
			Name: r.Name, Trigger: string(r.Trigger), Conditions: cond, Action: act, Enabled: r.Enabled, CreatedBy: userID})
		out = db.AutomationRule(outRow)
		if err != nil {
			return dbcore.Wrap(err, "insert rule")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditAutomationCreated, ProjectID: projectID,
			ActorID: userID, Target: ruleTarget(out), Changes: map[string]any{"after": ruleFields(out)}})
	})
	return out, err
}

// Rules lists a project's rules.
func (e *Engine) Rules(ctx context.Context, projectID string) ([]db.AutomationRule, error) {
	rules, err := e.core.Q.AutomationRuleList(ctx, projectID)
	return dbcore.MapRows(rules, func(r dbsqlc.AutomationRule) db.AutomationRule { return db.AutomationRule(r) }),
		dbcore.Wrap(err, "list rules")
}

// Rule reads one rule of a project.
func (e *Engine) Rule(ctx context.Context, projectID, ruleID string) (db.AutomationRule, error) {
	r, err := dbcore.OrNotFound(e.core.Q.AutomationRuleGet(ctx, dbsqlc.AutomationRuleGetParams{ID: ruleID,
		ProjectID: projectID}))("automation rule not found", "get rule")
	return db.AutomationRule(r), err
}

// UpdateRule replaces a rule's fields with update(current), validated like a new rule. A rule acts as
// its creator; one that actorID enables again after its creator left the workspace becomes actorID's.
func (e *Engine) UpdateRule(ctx context.Context, projectID, ruleID, actorID string,
	update func(NewRule) NewRule) (db.AutomationRule, error) {
	var out db.AutomationRule
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.AutomationRuleGet(ctx, dbsqlc.AutomationRuleGetParams{ID: ruleID, ProjectID: projectID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("automation rule not found")
		}
		if err != nil {
			return fmt.Errorf("get rule: %w", err)
		}
		next := update(NewRule{Name: cur.Name, Trigger: db.Trigger(cur.Trigger), Conditions: cur.Conditions,
			Action: cur.Action, Enabled: cur.Enabled})
		cond, act, err := validateRule(ctx, q, projectID, next)
		if err != nil {
			return err
		}
		var outRow dbsqlc.AutomationRule
		outRow, err = q.AutomationRuleUpdate(ctx, dbsqlc.AutomationRuleUpdateParams{ID: ruleID, ProjectID: projectID,
			Name: next.Name, Trigger: string(next.Trigger), Conditions: cond, Action: act, Enabled: next.Enabled,
			Actor: actorID})
		out = db.AutomationRule(outRow)
		if err != nil {
			return dbcore.Wrap(err, "update rule")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditAutomationChanged, ProjectID: projectID,
			ActorID: actorID, Target: ruleTarget(out), Changes: map[string]any{
				"before": ruleFields(db.AutomationRule(cur)), "after": ruleFields(out)}})
	})
	return out, err
}

// ToggleRule flips a rule between enabled and disabled. A rule that actorID enables again after its
// creator left the workspace becomes actorID's (it acts as its creator).
func (e *Engine) ToggleRule(ctx context.Context, projectID, ruleID, actorID string) (db.AutomationRule, error) {
	var out db.AutomationRule
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		r, err := dbcore.OrNotFound(q.AutomationRuleToggle(ctx, dbsqlc.AutomationRuleToggleParams{ID: ruleID,
			ProjectID: projectID, Actor: actorID}))("automation rule not found", "toggle rule")
		if err != nil {
			return err
		}
		out = db.AutomationRule(r)
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditAutomationChanged, ProjectID: projectID,
			ActorID: actorID, Target: ruleTarget(out), Changes: map[string]any{
				"before": map[string]bool{"enabled": !out.Enabled}, "after": map[string]bool{"enabled": out.Enabled}}})
	})
	return out, err
}

// DeleteRule deletes a rule and its traces.
func (e *Engine) DeleteRule(ctx context.Context, projectID, ruleID string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.AutomationRuleGet(ctx, dbsqlc.AutomationRuleGetParams{ID: ruleID,
			ProjectID: projectID}))("automation rule not found", "get rule")
		if err != nil {
			return err
		}
		n, err := q.AutomationRuleDelete(ctx, dbsqlc.AutomationRuleDeleteParams{ID: ruleID, ProjectID: projectID})
		if err != nil {
			return fmt.Errorf("delete rule: %w", err)
		}
		if n == 0 {
			return dbcore.NotFound("automation rule not found")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditAutomationDeleted, ProjectID: projectID,
			Target: ruleTarget(db.AutomationRule(cur)), Changes: map[string]any{"before": ruleFields(db.AutomationRule(cur))}})
	})
}

// ruleTarget names a rule in the audit log.
func ruleTarget(r db.AutomationRule) db.AuditTarget {
	return db.AuditTarget{Type: "automation_rule", ID: r.ID, Name: r.Name}
}

// ruleFields are a rule's fields as the audit log shows them.
func ruleFields(r db.AutomationRule) map[string]any {
	return map[string]any{"name": r.Name, "trigger": r.Trigger, "conditions": r.Conditions, "action": r.Action,
		"enabled": r.Enabled}
}

// RuleTraces lists a rule's executions, newest first.
func (e *Engine) RuleTraces(ctx context.Context, ruleID string, limit int32) ([]db.AutomationTrace, error) {
	t, err := e.core.Q.AutomationTraceList(ctx, dbsqlc.AutomationTraceListParams{RuleID: ruleID, Lim: limit})
	return dbcore.MapRows(t, func(r dbsqlc.AutomationTrace) db.AutomationTrace { return db.AutomationTrace(r) }),
		dbcore.Wrap(err, "list traces")
}

package db

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// Automation triggers (spec Part 6). See docs/automations.md for when each fires.
const (
	TriggerTaskMoved         = "task_moved"
	TriggerTaskCreated       = "task_created"
	TriggerChecklistComplete = "checklist_complete"
	TriggerDueDateReached    = "due_date_reached"
	TriggerTaskStatusChanged = "task_status_changed"
	TriggerTaskAssigned      = "task_assigned"
	TriggerTaskAddedToBoard  = "task_added_to_board"
)

// Triggers lists every trigger.
var Triggers = []string{TriggerTaskMoved, TriggerTaskCreated, TriggerChecklistComplete, TriggerDueDateReached,
	TriggerTaskStatusChanged, TriggerTaskAssigned, TriggerTaskAddedToBoard}

// ActionTypes lists every automation action.
var ActionTypes = []string{"move_card", "set_status", "set_priority", "assign_user", "archive_card"}

// Statuses a card can be in, derived from its column and archived flag (docs/automations.md).
var Statuses = []string{"todo", "in_progress", "done", "archived"}

// MaxAutomationDepth caps chains of automation-caused events: an event at this depth runs no rule.
const MaxAutomationDepth = 3

// ActivityDueDateReached is recorded when a card's due date passes (an addition to Part 6's types).
const ActivityDueDateReached = "due_date_reached"

type automationCtxKey struct{}

type automationCtx struct {
	depth  int
	ruleID string
}

// withAutomation marks changes made by a rule: their events carry depth and the rule's id.
func withAutomation(ctx context.Context, depth int, ruleID string) context.Context {
	return context.WithValue(ctx, automationCtxKey{}, automationCtx{depth: depth, ruleID: ruleID})
}

func automationFrom(ctx context.Context) automationCtx {
	a, _ := ctx.Value(automationCtxKey{}).(automationCtx)
	return a
}

// cardStatus derives a card's status: archived, else by column: first todo, last done, others in
// progress.
func cardStatus(columnIDs []string, columnID string, archived bool) string {
	switch {
	case archived:
		return "archived"
	case len(columnIDs) == 0 || columnIDs[0] == columnID:
		return "todo"
	case columnIDs[len(columnIDs)-1] == columnID:
		return "done"
	default:
		return "in_progress"
	}
}

// triggersFor maps an activity to the automation triggers it fires.
func triggersFor(a Activity) []string {
	fields, _ := a.Meta["fields"].([]string)
	switch a.Type {
	case ActivityCardCreated:
		return []string{TriggerTaskCreated, TriggerTaskAddedToBoard}
	case ActivityCardMoved:
		t := []string{TriggerTaskMoved}
		if a.Meta["fromStatus"] != a.Meta["toStatus"] {
			t = append(t, TriggerTaskStatusChanged)
		}
		return t
	case ActivityCardArchived:
		return []string{TriggerTaskStatusChanged}
	case ActivityCardAssigned:
		return []string{TriggerTaskAssigned}
	case ActivityDueDateReached:
		return []string{TriggerDueDateReached}
	case ActivityCardUpdated:
		var t []string
		if slices.Contains(fields, "archived") { // unarchived: back on the board
			t = append(t, TriggerTaskStatusChanged, TriggerTaskAddedToBoard)
		}
		if done, _ := a.Meta["checklistComplete"].(bool); done {
			t = append(t, TriggerChecklistComplete)
		}
		return t
	}
	return nil
}

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
	Status *string `json:"status,omitempty"`
}

// RuleAction is what a rule does.
type RuleAction struct {
	Type     string  `json:"type"`
	ColumnID *string `json:"columnId,omitempty"`
	Status   *string `json:"status,omitempty"`
	Priority *string `json:"priority,omitempty"`
	UserID   *string `json:"userId,omitempty"`
}

// NewRule is a rule to create or the full new state of a rule to update.
type NewRule struct {
	Name       string
	Trigger    string
	Conditions json.RawMessage
	Action     json.RawMessage
	Enabled    bool
}

func decodeStrict(raw json.RawMessage, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid(fmt.Sprintf("%s: %s", what, strings.TrimPrefix(err.Error(), "json: ")))
	}
	return nil
}

// validateRule checks a rule against the project: triggers, condition keys and values, action type and
// parameters, and that every referenced column, label and user belongs to it. It returns the
// normalised conditions and action.
func validateRule(ctx context.Context, q *dbsqlc.Queries, projectID string, r NewRule) (json.RawMessage, json.RawMessage, error) {
	if !slices.Contains(Triggers, r.Trigger) {
		return nil, nil, invalid("trigger must be one of " + strings.Join(Triggers, ", "))
	}
	colIDs, err := q.ColumnIDsByProject(ctx, projectID)
	if err != nil {
		return nil, nil, fmt.Errorf("list columns: %w", err)
	}
	isColumn := func(id *string) bool { return id != nil && slices.Contains(colIDs, *id) }

	var c RuleConditions
	if len(r.Conditions) > 0 && string(r.Conditions) != "null" {
		if err := decodeStrict(r.Conditions, &c, "conditions"); err != nil {
			return nil, nil, err
		}
	}
	if (c.FromColumnID != nil || c.ToColumnID != nil) && r.Trigger != TriggerTaskMoved {
		return nil, nil, invalid("conditions: fromColumnId and toColumnId apply to the task_moved trigger only")
	}
	for name, id := range map[string]*string{"fromColumnId": c.FromColumnID, "toColumnId": c.ToColumnID, "columnId": c.ColumnID} {
		if id != nil && !isColumn(id) {
			return nil, nil, invalid(fmt.Sprintf("conditions: %s is not a column of this project", name))
		}
	}
	if len(c.Priority) > 0 {
		var one string
		var many []string
		if json.Unmarshal(c.Priority, &one) == nil {
			many = []string{one}
		} else if err := json.Unmarshal(c.Priority, &many); err != nil || len(many) == 0 {
			return nil, nil, invalid("conditions: priority must be a priority or a non-empty list of them")
		}
		for _, p := range many {
			if !slices.Contains(Priorities, p) {
				return nil, nil, invalid("conditions: priority must be low, medium or high")
			}
		}
	}
	if c.LabelID != nil {
		ok, err := q.LabelInProject(ctx, dbsqlc.LabelInProjectParams{ID: *c.LabelID, ProjectID: projectID})
		if (err != nil && !isNotFound(err)) || !ok {
			return nil, nil, invalid("conditions: labelId is not a label of this project")
		}
	}
	if len(c.AssigneeID) > 0 && string(c.AssigneeID) != "null" {
		var id string
		if err := json.Unmarshal(c.AssigneeID, &id); err != nil {
			return nil, nil, invalid("conditions: assigneeId must be a user id or null")
		}
		ok, err := q.ProjectMemberIsMember(ctx, dbsqlc.ProjectMemberIsMemberParams{ProjectID: projectID, UserID: id})
		if (err != nil && !isNotFound(err)) || !ok {
			return nil, nil, invalid("conditions: assigneeId is not a member of this project")
		}
	}
	if c.Status != nil && !slices.Contains(Statuses, *c.Status) {
		return nil, nil, invalid("conditions: status must be one of " + strings.Join(Statuses, ", "))
	}

	var a RuleAction
	if err := decodeStrict(r.Action, &a, "action"); err != nil {
		return nil, nil, err
	}
	want := map[string]bool{}
	switch a.Type {
	case "move_card":
		want["columnId"] = true
		if !isColumn(a.ColumnID) {
			return nil, nil, invalid("action: move_card needs columnId, a column of this project")
		}
	case "set_status":
		want["status"] = true
		if a.Status == nil || !slices.Contains([]string{"todo", "in_progress", "done"}, *a.Status) {
			return nil, nil, invalid("action: set_status needs status: todo, in_progress or done")
		}
	case "set_priority":
		want["priority"] = true
		if a.Priority == nil || !slices.Contains(Priorities, *a.Priority) {
			return nil, nil, invalid("action: set_priority needs priority: low, medium or high")
		}
	case "assign_user":
		want["userId"] = true
		if a.UserID == nil {
			return nil, nil, invalid("action: assign_user needs userId, a member of this project")
		}
		ok, err := q.ProjectMemberIsMember(ctx, dbsqlc.ProjectMemberIsMemberParams{ProjectID: projectID, UserID: *a.UserID})
		if (err != nil && !isNotFound(err)) || !ok {
			return nil, nil, invalid("action: assign_user needs userId, a member of this project")
		}
	case "archive_card":
	default:
		return nil, nil, invalid("action: type must be one of " + strings.Join(ActionTypes, ", "))
	}
	for name, set := range map[string]bool{"columnId": a.ColumnID != nil, "status": a.Status != nil, "priority": a.Priority != nil, "userId": a.UserID != nil} {
		if set && !want[name] {
			return nil, nil, invalid(fmt.Sprintf("action: %s does not take %s", a.Type, name))
		}
	}
	condJSON, _ := json.Marshal(c)
	actJSON, _ := json.Marshal(a)
	return condJSON, actJSON, nil
}

// CreateRule validates and stores an automation rule.
func (s *Store) CreateRule(ctx context.Context, projectID, userID string, r NewRule) (AutomationRule, error) {
	var out AutomationRule
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cond, act, err := validateRule(ctx, q, projectID, r)
		if err != nil {
			return err
		}
		out, err = q.AutomationRuleInsert(ctx, dbsqlc.AutomationRuleInsertParams{ID: NewID(), ProjectID: projectID, Name: r.Name,
			Trigger: r.Trigger, Conditions: cond, Action: act, Enabled: r.Enabled, CreatedBy: userID})
		return wrap(err, "insert rule")
	})
	return out, err
}

// Rules lists a project's rules.
func (s *Store) Rules(ctx context.Context, projectID string) ([]AutomationRule, error) {
	rules, err := s.q.AutomationRuleList(ctx, projectID)
	return rules, wrap(err, "list rules")
}

// Rule reads one rule of a project.
func (s *Store) Rule(ctx context.Context, projectID, ruleID string) (AutomationRule, error) {
	r, err := s.q.AutomationRuleGet(ctx, dbsqlc.AutomationRuleGetParams{ID: ruleID, ProjectID: projectID})
	if isNotFound(err) {
		return r, notFound("automation rule not found")
	}
	return r, wrap(err, "get rule")
}

// UpdateRule replaces a rule's fields with update(current), validated like a new rule.
func (s *Store) UpdateRule(ctx context.Context, projectID, ruleID string, update func(NewRule) NewRule) (AutomationRule, error) {
	var out AutomationRule
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.AutomationRuleGet(ctx, dbsqlc.AutomationRuleGetParams{ID: ruleID, ProjectID: projectID})
		if isNotFound(err) {
			return notFound("automation rule not found")
		}
		if err != nil {
			return fmt.Errorf("get rule: %w", err)
		}
		next := update(NewRule{Name: cur.Name, Trigger: cur.Trigger, Conditions: cur.Conditions, Action: cur.Action, Enabled: cur.Enabled})
		cond, act, err := validateRule(ctx, q, projectID, next)
		if err != nil {
			return err
		}
		out, err = q.AutomationRuleUpdate(ctx, dbsqlc.AutomationRuleUpdateParams{ID: ruleID, ProjectID: projectID, Name: next.Name,
			Trigger: next.Trigger, Conditions: cond, Action: act, Enabled: next.Enabled})
		return wrap(err, "update rule")
	})
	return out, err
}

// ToggleRule flips a rule between enabled and disabled.
func (s *Store) ToggleRule(ctx context.Context, projectID, ruleID string) (AutomationRule, error) {
	r, err := s.q.AutomationRuleToggle(ctx, dbsqlc.AutomationRuleToggleParams{ID: ruleID, ProjectID: projectID})
	if isNotFound(err) {
		return r, notFound("automation rule not found")
	}
	return r, wrap(err, "toggle rule")
}

// DeleteRule deletes a rule and its traces.
func (s *Store) DeleteRule(ctx context.Context, projectID, ruleID string) error {
	n, err := s.q.AutomationRuleDelete(ctx, dbsqlc.AutomationRuleDeleteParams{ID: ruleID, ProjectID: projectID})
	if err != nil {
		return fmt.Errorf("delete rule: %w", err)
	}
	if n == 0 {
		return notFound("automation rule not found")
	}
	return nil
}

// RuleTraces lists a rule's executions, newest first.
func (s *Store) RuleTraces(ctx context.Context, ruleID string, limit int32) ([]AutomationTrace, error) {
	t, err := s.q.AutomationTraceList(ctx, dbsqlc.AutomationTraceListParams{RuleID: ruleID, Lim: limit})
	return t, wrap(err, "list traces")
}

// errAlreadyRan means a rule already ran for an event (the job is a retry).
var errAlreadyRan = errors.New("rule already ran for this event")

// RunAutomations runs the enabled rules of ev's trigger, each in its own transaction with its trace, so
// a retried job runs no rule twice. Actions go through the same store operations as people's requests.
func (s *Store) RunAutomations(ctx context.Context, ev jobs.AutomationEventArgs) error {
	rules, err := s.q.AutomationRulesForTrigger(ctx, dbsqlc.AutomationRulesForTriggerParams{ProjectID: ev.ProjectID, Trigger: ev.Trigger})
	if err != nil {
		return fmt.Errorf("rules for trigger: %w", err)
	}
	for _, rule := range rules {
		if err := s.runRule(ctx, rule, ev); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) runRule(ctx context.Context, rule AutomationRule, ev jobs.AutomationEventArgs) error {
	trace := func(q *dbsqlc.Queries, result, reason string) error {
		card := ev.CardID
		_, err := q.AutomationTraceInsert(ctx, dbsqlc.AutomationTraceInsertParams{ID: NewID(), RuleID: rule.ID, EventID: ev.EventID,
			CardID: &card, Trigger: ev.Trigger, Depth: int32(ev.Depth), Result: result, Reason: reason})
		if isNotFound(err) {
			return errAlreadyRan
		}
		return err
	}
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if ev.Depth >= MaxAutomationDepth {
			return trace(q, "skipped", fmt.Sprintf("automation depth cap (%d) reached: rules cannot loop", MaxAutomationDepth))
		}
		card, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: ev.CardID, ProjectID: ev.ProjectID})
		if isNotFound(err) {
			return trace(q, "skipped", "the card no longer exists")
		}
		if err != nil {
			return fmt.Errorf("get card: %w", err)
		}
		colIDs, err := q.ColumnIDsByProject(ctx, ev.ProjectID)
		if err != nil {
			return fmt.Errorf("list columns: %w", err)
		}
		if ok, reason, err := s.conditionsHold(ctx, q, rule, card, colIDs, ev); err != nil {
			return err
		} else if !ok {
			return trace(q, "skipped", "conditions not met: "+reason)
		}
		if err := s.applyAction(withAutomation(ctx, ev.Depth+1, rule.ID), tx, rule, card, colIDs); err != nil {
			return err
		}
		return trace(q, "applied", "")
	})
	switch {
	case err == nil, errors.Is(err, errAlreadyRan):
		return nil
	}
	var refusal *Error
	if errors.As(err, &refusal) || errors.Is(err, errRetryMove) {
		// The action could not apply (a refusal the rule cannot fix by retrying): trace the failure.
		ferr := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error { return trace(q, "failed", err.Error()) })
		if ferr != nil && !errors.Is(ferr, errAlreadyRan) {
			return ferr
		}
		return nil
	}
	return err
}

func (s *Store) conditionsHold(ctx context.Context, q *dbsqlc.Queries, rule AutomationRule, card dbsqlc.Card, colIDs []string, ev jobs.AutomationEventArgs) (bool, string, error) {
	var c RuleConditions
	if err := json.Unmarshal(rule.Conditions, &c); err != nil {
		return false, "", fmt.Errorf("decode conditions: %w", err)
	}
	metaStr := func(k string) string { v, _ := ev.Meta[k].(string); return v }
	switch {
	case c.FromColumnID != nil && metaStr("fromColumn") != *c.FromColumnID:
		return false, "moved from another column", nil
	case c.ToColumnID != nil && metaStr("toColumn") != *c.ToColumnID:
		return false, "moved to another column", nil
	case c.ColumnID != nil && card.ColumnID != *c.ColumnID:
		return false, "the card is in another column", nil
	case c.Status != nil && cardStatus(colIDs, card.ColumnID, card.Archived) != *c.Status:
		return false, "the card's status is " + cardStatus(colIDs, card.ColumnID, card.Archived), nil
	}
	if len(c.Priority) > 0 {
		var one string
		var many []string
		if json.Unmarshal(c.Priority, &one) == nil {
			many = []string{one}
		} else {
			_ = json.Unmarshal(c.Priority, &many)
		}
		if !slices.Contains(many, card.Priority) {
			return false, "the card's priority is " + card.Priority, nil
		}
	}
	if len(c.AssigneeID) > 0 {
		var want *string
		_ = json.Unmarshal(c.AssigneeID, &want)
		if !strEq(want, card.AssigneeID) {
			return false, "the card has another assignee", nil
		}
	}
	if c.LabelID != nil {
		has, err := q.CardHasLabel(ctx, dbsqlc.CardHasLabelParams{CardID: card.ID, LabelID: *c.LabelID})
		if err != nil {
			return false, "", fmt.Errorf("check label: %w", err)
		}
		if !has {
			return false, "the card does not carry the label", nil
		}
	}
	return true, "", nil
}

// applyAction performs a rule's action through UpdateCard's transaction body, as the rule's creator.
func (s *Store) applyAction(ctx context.Context, tx pgx.Tx, rule AutomationRule, card dbsqlc.Card, colIDs []string) error {
	var a RuleAction
	if err := json.Unmarshal(rule.Action, &a); err != nil {
		return fmt.Errorf("decode action: %w", err)
	}
	var p CardPatch
	switch a.Type {
	case "move_card":
		p.ColumnID = a.ColumnID
	case "set_status":
		if len(colIDs) == 0 {
			return invalid("the project has no columns")
		}
		target := colIDs[0]
		switch *a.Status {
		case "done":
			target = colIDs[len(colIDs)-1]
		case "in_progress":
			if len(colIDs) < 3 {
				return invalid("the project has no in-progress column (it needs at least three columns)")
			}
			target = colIDs[1]
		}
		p.ColumnID = &target
	case "set_priority":
		p.Priority = a.Priority
	case "assign_user":
		p.AssigneeID = Opt[string]{Set: true, Value: a.UserID}
	case "archive_card":
		archived := true
		p.Archived = &archived
	}
	ws, err := queries(tx).ProjectWorkspace(ctx, card.ProjectID)
	if err != nil {
		return fmt.Errorf("project workspace: %w", err)
	}
	_, err = s.updateCardTx(ctx, tx, ws, card.ProjectID, card.ID, rule.CreatedBy, p)
	return err
}

// ScanDueDates fires due_date_reached once for every card whose due date has passed (and not for a
// date already fired): it records the event and an activity notifying the assignee, and enqueues the
// automations, in one transaction. Any number of scanners may run: each (card, due date) is claimed once.
func (s *Store) ScanDueDates(ctx context.Context) (int, error) {
	var n int
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		claimed, err := q.DueDateClaim(ctx)
		if err != nil {
			return fmt.Errorf("claim due dates: %w", err)
		}
		if len(claimed) == 0 {
			return nil
		}
		ids := make([]string, len(claimed))
		for i, c := range claimed {
			ids[i] = c.CardID
		}
		cards, err := q.CardsForDueEvents(ctx, ids)
		if err != nil {
			return fmt.Errorf("load cards: %w", err)
		}
		acts := make([]Activity, 0, len(cards))
		for _, c := range cards {
			a := Activity{ProjectID: c.ProjectID, CardID: c.ID, Type: ActivityDueDateReached, OnlyRecipients: true,
				Meta: map[string]any{"title": c.Title, "dueDate": c.DueDate}}
			if c.AssigneeID != nil {
				a.Recipients = []string{*c.AssigneeID}
			}
			acts = append(acts, a)
		}
		n = len(acts)
		return s.recordActivities(ctx, tx, acts...)
	})
	return n, err
}

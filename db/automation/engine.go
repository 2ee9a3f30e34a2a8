package automation

// This file is the automation engine: which activities fire which triggers, running a trigger's rules
// (conditions, actions, traces, the depth cap) and the due-date scan. The rules themselves, their
// validation and their CRUD are in automation_rules.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// MaxAutomationDepth caps chains of automation-caused events: an event at this depth runs no rule.
const MaxAutomationDepth = 3

// errAlreadyRan means a rule already ran for an event (the job is a retry).
var errAlreadyRan = errors.New("rule already ran for this event")

// Run runs the enabled rules of ev's trigger, each in its own transaction with its trace, so
// a retried job runs no rule twice. Actions go through the same store operations as people's requests.
func (e *Engine) Run(ctx context.Context, ev jobs.AutomationEventArgs) error {
	rules, err := e.core.Q.AutomationRulesForTrigger(ctx, dbsqlc.AutomationRulesForTriggerParams{ProjectID: ev.ProjectID,
		Trigger: ev.Trigger})
	if err != nil {
		return fmt.Errorf("rules for trigger: %w", err)
	}
	for _, rule := range rules {
		if err := e.runRule(ctx, db.AutomationRule(rule), ev); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) runRule(ctx context.Context, rule db.AutomationRule, ev jobs.AutomationEventArgs) error {
	trace := func(q *dbsqlc.Queries, result, reason string) error {
		card := ev.CardID
		_, err := q.AutomationTraceInsert(ctx, dbsqlc.AutomationTraceInsertParams{ID: db.NewID(), RuleID: rule.ID,
			EventID: ev.EventID, CardID: &card, Trigger: ev.Trigger, Depth: dbcore.Int32(ev.Depth), Result: result,
			Reason: reason})
		if dbcore.IsNotFound(err) {
			return errAlreadyRan
		}
		return err
	}
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if ev.Depth >= MaxAutomationDepth {
			return trace(q, "skipped", fmt.Sprintf("automation depth cap (%d) reached: rules cannot loop", MaxAutomationDepth))
		}
		card, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: ev.CardID, ProjectID: ev.ProjectID})
		if dbcore.IsNotFound(err) {
			return trace(q, "skipped", "the card no longer exists")
		}
		if err != nil {
			return fmt.Errorf("get card: %w", err)
		}
		colIDs, err := q.ColumnIDsByProject(ctx, ev.ProjectID)
		if err != nil {
			return fmt.Errorf("list columns: %w", err)
		}
		if ok, reason, err := e.conditionsHold(ctx, q, rule, card, colIDs, ev); err != nil {
			return err
		} else if !ok {
			return trace(q, "skipped", "conditions not met: "+reason)
		}
		if err := e.applyAction(ctx, tx, rule, card, colIDs, ev); err != nil {
			return err
		}
		return trace(q, "applied", "")
	})
	switch {
	case err == nil, errors.Is(err, errAlreadyRan):
		return nil
	}
	var refusal *db.Error
	if errors.As(err, &refusal) || errors.Is(err, board.ErrRetryMove) {
		// The action could not apply (a refusal the rule cannot fix by retrying): trace the failure.
		ferr := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error { return trace(q, "failed", err.Error()) })
		if ferr != nil && !errors.Is(ferr, errAlreadyRan) {
			return ferr
		}
		return nil
	}
	return err
}

func (e *Engine) conditionsHold(ctx context.Context, q *dbsqlc.Queries, rule db.AutomationRule, card dbsqlc.Card,
	colIDs []string, ev jobs.AutomationEventArgs) (bool, string, error) {
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
	case c.Status != nil && board.StatusOf(colIDs, card.ColumnID, card.Archived) != *c.Status:
		return false, "the card's status is " + string(board.StatusOf(colIDs, card.ColumnID, card.Archived)), nil
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
		if (want == nil) != (card.AssigneeID == nil) || (want != nil && *want != *card.AssigneeID) {
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

// applyAction performs a rule's action through UpdateCard's transaction body, as the rule's creator; the
// events the change causes carry one more depth than ev. send_webhook delivers ev's activity to the
// webhook instead, through the webhook deliveries' own job.
func (e *Engine) applyAction(ctx context.Context, tx pgx.Tx, rule db.AutomationRule, card dbsqlc.Card, colIDs []string,
	ev jobs.AutomationEventArgs) error {
	var a RuleAction
	if err := json.Unmarshal(rule.Action, &a); err != nil {
		return fmt.Errorf("decode action: %w", err)
	}
	ws, err := dbcore.Queries(tx).ProjectWorkspace(ctx, card.ProjectID)
	if err != nil {
		return fmt.Errorf("project workspace: %w", err)
	}
	if a.Type == "send_webhook" {
		_, err := e.webhooks.EnqueueActivityTx(ctx, tx, ws, *a.WebhookID, ev.EventID, "automation:"+rule.ID)
		return err
	}
	var p board.CardPatch
	switch a.Type {
	case "move_card":
		p.ColumnID = a.ColumnID
	case "set_status":
		if len(colIDs) == 0 {
			return dbcore.Invalid("the project has no columns")
		}
		target := colIDs[0]
		switch *a.Status {
		case board.StatusDone:
			target = colIDs[len(colIDs)-1]
		case board.StatusInProgress:
			if len(colIDs) < 3 {
				return dbcore.Invalid("the project has no in-progress column (it needs at least three columns)")
			}
			target = colIDs[1]
		}
		p.ColumnID = &target
	case "set_priority":
		p.Priority = a.Priority
	case "assign_user":
		p.AssigneeID = db.Opt[string]{Set: true, Value: a.UserID}
	case "archive_card":
		archived := true
		p.Archived = &archived
	}
	_, err = e.board.UpdateCardTx(ctx, tx, board.CardUpdate{WorkspaceID: ws, ProjectID: card.ProjectID, CardID: card.ID,
		ActorID: rule.CreatedBy, Patch: p, Cause: db.RuleCause{RuleID: rule.ID, Depth: ev.Depth + 1}})
	return err
}

// ScanDueDates fires due_date_reached once for every card whose due date has passed (and not for a
// date already fired): it records the event and an activity notifying the assignee, and enqueues the
// automations, in one transaction. Any number of scanners may run: each (card, due date) is claimed once.
func (e *Engine) ScanDueDates(ctx context.Context) (int, error) {
	var n int
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
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
		acts := make([]db.Activity, 0, len(cards))
		for _, c := range cards {
			a := db.Activity{ProjectID: c.ProjectID, CardID: c.ID, Type: db.ActivityDueDateReached, OnlyRecipients: true,
				Meta: map[string]any{"title": c.Title, "dueDate": c.DueDate}}
			if c.AssigneeID != nil {
				a.Recipients = []string{*c.AssigneeID}
			}
			acts = append(acts, a)
		}
		n = len(acts)
		return e.core.RecordActivities(ctx, tx, acts...)
	})
	return n, err
}

package pilotage

// Proposed actions of the pilotage cockpit: proposed by people or agents (suggested), reviewed
// (approved or rejected), and applied (approved -> applied), each move a guarded UPDATE on status. Apply
// performs the action's effect through the store in the same transaction as the status change.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Action types apply knows. Any other type can be proposed and reviewed; applying it records applied
// with no effect.
const (
	ActionCreateTodo          = "create_todo"
	ActionUpdateMissionStatus = "update_mission_status"
	ActionCreateDecision      = "create_decision"
	ActionCreateCard          = "create_card"
	ActionMoveCard            = "move_card"
)

// KnownActionTypes lists the action types apply performs.
var KnownActionTypes = []string{ActionCreateTodo, ActionUpdateMissionStatus, ActionCreateDecision, ActionCreateCard,
	ActionMoveCard}

// NewPilotageAction is an action to propose. Payload must be a JSON object (nil: {}); for a known
// action type it must also be a valid payload of that type. AgentMissionID is set when an agent's
// mission proposes it.
type NewPilotageAction struct {
	WorkspaceID, ActorID    string
	ActionType, Explanation string
	Payload                 json.RawMessage
	AgentMissionID          *string
}

// ActionResult says what applying an action did.
type ActionResult struct {
	// Effect is false when the action type is unknown: the action is applied with no effect.
	Effect     bool   `json:"effect"`
	Message    string `json:"message"`
	RecordType string `json:"recordType,omitempty"`
	RecordID   string `json:"recordId,omitempty"`
}

// checkNewAction validates a proposal and normalises its payload.
func checkNewAction(in *NewPilotageAction) error {
	var err error
	if in.ActionType, err = checkText("actionType", in.ActionType, MaxPilotageActionType, true); err != nil {
		return err
	}
	if in.Explanation, err = checkText("explanation", in.Explanation, MaxPilotageExplanation, true); err != nil {
		return err
	}
	if len(bytes.TrimSpace(in.Payload)) == 0 {
		in.Payload = json.RawMessage(`{}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(in.Payload, &obj); err != nil || obj == nil {
		return dbcore.Invalid("payload: expected a JSON object")
	}
	if _, err := decodeActionPayload(in.ActionType, in.Payload); err != nil {
		return err
	}
	return nil
}

// ProposeAction stores a suggested action and records it in the history.
func (e *Engine) ProposeAction(ctx context.Context, in NewPilotageAction) (db.PilotageAction, error) {
	var out db.PilotageAction
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = e.proposePilotageActionTx(ctx, tx, in)
		return err
	})
	return out, err
}

func (e *Engine) proposePilotageActionTx(ctx context.Context, tx pgx.Tx,
	in NewPilotageAction) (db.PilotageAction, error) {
	q := dbcore.Queries(tx)
	if err := checkNewAction(&in); err != nil {
		return db.PilotageAction{}, err
	}
	row, err := q.PilotageActionInsert(ctx, dbsqlc.PilotageActionInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID,
		ActionType: in.ActionType, Explanation: in.Explanation, Payload: in.Payload, ProposedBy: in.ActorID,
		AgentMissionID: in.AgentMissionID})
	if err != nil {
		return db.PilotageAction(row), fmt.Errorf("insert pilotage action: %w", err)
	}
	data := map[string]any{"actionType": row.ActionType, "status": row.Status}
	if in.AgentMissionID != nil {
		data["agentMissionId"] = *in.AgentMissionID
	}
	return db.PilotageAction(row), e.recordPilotage(ctx, tx, in.WorkspaceID, PilotageRecordAction, row.ID,
		PilotageChangeProposed, in.ActorID, data)
}

// Actions is one page of a workspace's actions, newest first, of one status when status is set.
func (e *Engine) Actions(ctx context.Context, workspaceID string, status *string,
	p db.Page) (db.Paged[db.PilotageAction], error) {
	k, err := p.AfterTime("pilotage-actions", true)
	if err != nil {
		return db.Paged[db.PilotageAction]{}, err
	}
	rows, err := e.core.Q.PilotageActionList(ctx, dbsqlc.PilotageActionListParams{WorkspaceID: workspaceID, Status: status,
		BeforeAt: k.At, BeforeID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.PilotageAction]{}, dbcore.Wrap(err, "list pilotage actions")
	}
	return db.PageOf(p, "pilotage-actions", dbcore.MapRows(rows,
		func(r dbsqlc.PilotageAction) db.PilotageAction { return db.PilotageAction(r) }),
		func(r db.PilotageAction) any { return db.TimeKey{At: r.CreatedAt, ID: r.ID} }), nil
}

// Action reads one action of the workspace.
func (e *Engine) Action(ctx context.Context, workspaceID, id string) (db.PilotageAction, error) {
	r, err := dbcore.OrNotFound(e.core.Q.PilotageActionGet(ctx, dbsqlc.PilotageActionGetParams{ID: id,
		WorkspaceID: workspaceID}))("action not found", "get pilotage action")
	return db.PilotageAction(r), err
}

// lostRace explains why a guarded move found no row: the action does not exist (404) or is not in the
// status the move needs (409).
func lostRace(ctx context.Context, q *dbsqlc.Queries, workspaceID, id, need string) error {
	cur, err := q.PilotageActionGet(ctx, dbsqlc.PilotageActionGetParams{ID: id, WorkspaceID: workspaceID})
	if dbcore.IsNotFound(err) {
		return dbcore.NotFound("action not found")
	}
	if err != nil {
		return fmt.Errorf("get pilotage action: %w", err)
	}
	return dbcore.Conflict(fmt.Sprintf("the action is %s; only a %s action can be %s", cur.Status, need,
		map[string]string{"suggested": "reviewed", "approved": "applied"}[need]))
}

// ReviewAction is the guarded suggested -> approved | rejected move, with the reviewer and an
// optional reason. A second review (or one that lost a race) is a conflict.
func (e *Engine) ReviewAction(ctx context.Context, r db.RecordEdit, approve bool,
	reason *string) (db.PilotageAction, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	if reason != nil {
		r, err := checkText("reason", *reason, MaxPilotageReviewReason, false)
		if err != nil {
			return db.PilotageAction{}, err
		}
		reason = &r
		if r == "" {
			reason = nil
		}
	}
	status := "rejected"
	if approve {
		status = "approved"
	}
	var out db.PilotageAction
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		var outRow dbsqlc.PilotageAction
		outRow, err = q.PilotageActionReview(ctx, dbsqlc.PilotageActionReviewParams{ID: id, WorkspaceID: workspaceID,
			Status: status, ActorID: &actorID, Reason: reason})
		out = db.PilotageAction(outRow)
		if dbcore.IsNotFound(err) {
			return lostRace(ctx, q, workspaceID, id, "suggested")
		}
		if err != nil {
			return fmt.Errorf("review pilotage action: %w", err)
		}
		data := map[string]any{"status": status}
		if reason != nil {
			data["reason"] = *reason
		}
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordAction, id, PilotageChangeReviewed, actorID, data)
	})
	return out, err
}

// ApplyAction is the guarded approved -> applied move, and the action's effect performed
// through the store as actorID in the same transaction: either both commit or neither does, so an
// effect that fails (its mission was deleted, its card moved away) leaves the action approved and
// answers the effect's error. An unknown action type is applied with no effect, as its result says.
func (e *Engine) ApplyAction(ctx context.Context, r db.RecordEdit) (db.PilotageAction, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	for range 5 {
		var out db.PilotageAction
		err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
			a, err := q.PilotageActionApply(ctx, dbsqlc.PilotageActionApplyParams{ID: id, WorkspaceID: workspaceID,
				ActorID: &actorID})
			if dbcore.IsNotFound(err) {
				return lostRace(ctx, q, workspaceID, id, "approved")
			}
			if err != nil {
				return fmt.Errorf("apply pilotage action: %w", err)
			}
			res, err := e.performAction(ctx, tx, q, db.PilotageAction(a), actorID)
			if err != nil {
				return err
			}
			raw, err := json.Marshal(res)
			if err != nil {
				return fmt.Errorf("encode action result: %w", err)
			}
			var outRow dbsqlc.PilotageAction
			if outRow, err = q.PilotageActionSetResult(ctx, dbsqlc.PilotageActionSetResultParams{ID: id,
				Result: raw}); err != nil {
				return fmt.Errorf("store action result: %w", err)
			}
			out = db.PilotageAction(outRow)
			return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordAction, id, PilotageChangeApplied, actorID,
				map[string]any{"status": out.Status, "result": res})
		})
		if !errors.Is(err, board.ErrRetryMove) {
			return out, err
		}
	}
	return db.PilotageAction{}, dbcore.Conflict("the card is being moved by someone else; try again")
}

// Payloads of the known action types.
type (
	createTodoPayload struct {
		Label      string     `json:"label"`
		MissionID  *string    `json:"missionId"`
		PriorityID *string    `json:"priorityId"`
		Status     string     `json:"status"`
		DueDate    *time.Time `json:"dueDate"`
	}
	updateMissionStatusPayload struct {
		MissionID     string  `json:"missionId"`
		Status        string  `json:"status"`
		BlockedReason *string `json:"blockedReason"`
	}
	createDecisionPayload struct {
		Title  string `json:"title"`
		Impact string `json:"impact"`
	}
	createCardPayload struct {
		ProjectID   string         `json:"projectId"`
		ColumnID    string         `json:"columnId"`
		Title       string         `json:"title"`
		Description string         `json:"description"`
		Priority    board.Priority `json:"priority"`
		DueDate     *time.Time     `json:"dueDate"`
	}
	moveCardPayload struct {
		ProjectID string `json:"projectId"`
		CardID    string `json:"cardId"`
		ColumnID  string `json:"columnId"`
		Order     *int   `json:"order"`
	}
)

// decodeActionPayload checks a known action type's payload (unknown fields, missing or mistyped
// values, enums and lengths) and decodes it; an unknown type's payload is any object, and decodes to nil.
func decodeActionPayload(actionType string, raw json.RawMessage) (any, error) {
	switch actionType {
	case ActionCreateTodo:
		return decodeCreateTodoPayload(raw)
	case ActionUpdateMissionStatus:
		return decodeUpdateMissionStatusPayload(raw)
	case ActionCreateDecision:
		return decodeCreateDecisionPayload(raw)
	case ActionCreateCard:
		return decodeCreateCardPayload(raw)
	case ActionMoveCard:
		return decodeMoveCardPayload(raw)
	}
	return nil, nil
}

// decodePayloadStrict decodes a payload into v, refusing fields v does not have.
func decodePayloadStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return dbcore.Invalid("payload: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// requirePayloadField refuses a blank required field of a payload.
func requirePayloadField(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return dbcore.Invalid("payload." + field + ": required")
	}
	return nil
}

func decodeCreateTodoPayload(raw json.RawMessage) (any, error) {
	var p createTodoPayload
	if err := decodePayloadStrict(raw, &p); err != nil {
		return nil, err
	}
	if err := requirePayloadField("label", p.Label); err != nil {
		return nil, err
	}
	if p.Status != "" {
		if err := checkEnum("payload.status", p.Status, PilotageTodoStatuses); err != nil {
			return nil, err
		}
	}
	if _, err := checkText("payload.label", p.Label, MaxPilotageLabel, true); err != nil {
		return nil, err
	}
	return p, nil
}

func decodeUpdateMissionStatusPayload(raw json.RawMessage) (any, error) {
	var p updateMissionStatusPayload
	if err := decodePayloadStrict(raw, &p); err != nil {
		return nil, err
	}
	if err := requirePayloadField("missionId", p.MissionID); err != nil {
		return nil, err
	}
	if err := checkEnum("payload.status", p.Status, PilotageMissionStatuses); err != nil {
		return nil, err
	}
	if p.Status == "blocked" && (p.BlockedReason == nil || strings.TrimSpace(*p.BlockedReason) == "") {
		return nil, dbcore.Invalid("payload.blockedReason: required when status is blocked")
	}
	if p.BlockedReason != nil && utf8.RuneCountInString(*p.BlockedReason) > MaxPilotageBlockedReason {
		return nil, dbcore.Invalid(fmt.Sprintf("payload.blockedReason: expected length <= %d", MaxPilotageBlockedReason))
	}
	return p, nil
}

func decodeCreateDecisionPayload(raw json.RawMessage) (any, error) {
	var p createDecisionPayload
	if err := decodePayloadStrict(raw, &p); err != nil {
		return nil, err
	}
	if _, err := checkText("payload.title", p.Title, MaxPilotageLabel, true); err != nil {
		return nil, err
	}
	if _, err := checkText("payload.impact", p.Impact, MaxPilotageImpact, false); err != nil {
		return nil, err
	}
	return p, nil
}

func decodeCreateCardPayload(raw json.RawMessage) (any, error) {
	var p createCardPayload
	if err := decodePayloadStrict(raw, &p); err != nil {
		return nil, err
	}
	if err := requirePayloadField("projectId", p.ProjectID); err != nil {
		return nil, err
	}
	if _, err := checkText("payload.title", p.Title, 500, true); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(p.Description) > 5000 {
		return nil, dbcore.Invalid("payload.description: expected length <= 5000")
	}
	if p.Priority != "" {
		if err := checkEnum("payload.priority", p.Priority, board.Priorities); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func decodeMoveCardPayload(raw json.RawMessage) (any, error) {
	var p moveCardPayload
	if err := decodePayloadStrict(raw, &p); err != nil {
		return nil, err
	}
	for _, f := range [][2]string{{"projectId", p.ProjectID}, {"cardId", p.CardID}, {"columnId", p.ColumnID}} {
		if err := requirePayloadField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// performAction carries out an applied action's effect through the store's operations, in tx, as
// actorID. Card effects record their activities and enqueue their jobs as any card create or move does.
func (e *Engine) performAction(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, a db.PilotageAction,
	actorID string) (ActionResult, error) {
	payload, err := decodeActionPayload(a.ActionType, a.Payload)
	if err != nil {
		return ActionResult{}, err
	}
	ws := a.WorkspaceID
	switch p := payload.(type) {
	case createTodoPayload:
		t, err := e.createPilotageTodoTx(ctx, tx, NewPilotageTodo{WorkspaceID: ws, ActorID: actorID, Label: p.Label,
			Status: p.Status, MissionID: p.MissionID, PriorityID: p.PriorityID, DueDate: p.DueDate})
		if err != nil {
			return ActionResult{}, err
		}
		return ActionResult{Effect: true, Message: "todo created", RecordType: PilotageRecordTodo, RecordID: t.ID}, nil
	case updateMissionStatusPayload:
		m, err := e.updatePilotageMissionTx(ctx, tx, ws, p.MissionID, actorID, PilotageMissionPatch{Status: &p.Status,
			BlockedReason: db.Opt[string]{Set: true, Value: p.BlockedReason}})
		if err != nil {
			return ActionResult{}, err
		}
		return ActionResult{Effect: true, Message: "mission status set to " + m.Status, RecordType: PilotageRecordMission,
			RecordID: m.ID}, nil
	case createDecisionPayload:
		d, err := e.createPilotageDecisionTx(ctx, tx, NewPilotageDecision{WorkspaceID: ws, ActorID: actorID, Title: p.Title,
			Impact: p.Impact})
		if err != nil {
			return ActionResult{}, err
		}
		return ActionResult{Effect: true, Message: "decision recorded", RecordType: PilotageRecordDecision, RecordID: d.ID},
			nil
	case createCardPayload:
		if err := projectInWorkspace(ctx, q, ws, p.ProjectID); err != nil {
			return ActionResult{}, err
		}
		c, err := e.board.CreateCardTx(ctx, tx, board.NewCard{WorkspaceID: ws, ProjectID: p.ProjectID, ColumnID: p.ColumnID,
			ActorID: actorID, Title: strings.TrimSpace(p.Title), Description: p.Description, Priority: p.Priority,
			DueDate: p.DueDate})
		if err != nil {
			return ActionResult{}, err
		}
		return ActionResult{Effect: true, Message: "card created", RecordType: "card", RecordID: c.ID}, nil
	case moveCardPayload:
		if err := projectInWorkspace(ctx, q, ws, p.ProjectID); err != nil {
			return ActionResult{}, err
		}
		c, err := e.board.UpdateCardTx(ctx, tx, board.CardUpdate{WorkspaceID: ws, ProjectID: p.ProjectID, CardID: p.CardID,
			ActorID: actorID, Patch: board.CardPatch{ColumnID: &p.ColumnID, Order: p.Order}})
		if err != nil {
			return ActionResult{}, err
		}
		return ActionResult{Effect: true, Message: "card moved", RecordType: "card", RecordID: c.ID}, nil
	}
	return ActionResult{Effect: false, Message: fmt.Sprintf("action type %q is not one apply knows; recorded as applied "+
		"with no effect", a.ActionType)}, nil
}

// projectInWorkspace refuses a project id outside the workspace as not found.
func projectInWorkspace(ctx context.Context, q *dbsqlc.Queries, workspaceID, projectID string) error {
	_, err := dbcore.OrNotFound(q.ProjectGet(ctx, dbsqlc.ProjectGetParams{ID: projectID,
		WorkspaceID: workspaceID}))("payload.projectId: project not found", "get project")
	return err
}

// ProposeActionTx proposes an action in the caller's transaction (an agent's mission proposing one).
func (e *Engine) ProposeActionTx(ctx context.Context, tx pgx.Tx, in NewPilotageAction) (db.PilotageAction, error) {
	return e.proposePilotageActionTx(ctx, tx, in)
}

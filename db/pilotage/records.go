package pilotage

// This file holds the pilotage cockpit's records (missions, priorities, todos, decisions, active
// documents) and their history. Proposed actions are in pilotage_actions.go, the read models (state,
// dashboard, portfolio) in pilotage_read.go. See docs/pilotage.md.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Pilotage enums: mission, todo and action statuses, and active documents' source types.
var (
	PilotageMissionStatuses = []string{"to_launch", "in_progress", "blocked", "done"}
	PilotageTodoStatuses    = []string{"todo", "in_progress", "blocked", "done"}
	PilotageDocSourceTypes  = []string{"product", "tech", "sprint", "ops"}
	PilotageActionStatuses  = []string{"suggested", "approved", "rejected", "applied"}
)

// Pilotage limits, in characters. The api declares the same bounds in its schemas; the store enforces
// them for every caller (proposed actions and agents included).
const (
	MaxPilotageLabel         = 500 // mission objective, todo and priority label, decision and doc title
	MaxPilotageModule        = 100
	MaxPilotageBlockedReason = 200
	MaxPilotageImpact        = 2000
	MaxPilotageDocOwner      = 200
	MaxPilotageActionType    = 100
	MaxPilotageExplanation   = 500
	MaxPilotageReviewReason  = 200
)

// Record types of the pilotage history.
const (
	PilotageRecordMission  = "mission"
	PilotageRecordPriority = "priority"
	PilotageRecordTodo     = "todo"
	PilotageRecordDecision = "decision"
	PilotageRecordDoc      = "doc"
	PilotageRecordAction   = "action"
)

// PilotageRecordTypes lists the history's record types.
var PilotageRecordTypes = []string{PilotageRecordMission, PilotageRecordPriority, PilotageRecordTodo, PilotageRecordDecision,
	PilotageRecordDoc, PilotageRecordAction}

// Changes the pilotage history records.
const (
	PilotageChangeCreated  = "created"
	PilotageChangeUpdated  = "updated"
	PilotageChangeDeleted  = "deleted"
	PilotageChangeProposed = "proposed"
	PilotageChangeReviewed = "reviewed"
	PilotageChangeApplied  = "applied"
)

// checkText trims s and checks it holds 1 to maxLen characters (0 to maxLen when optional).
func checkText(field, s string, maxLen int, required bool) (string, error) {
	s = strings.TrimSpace(s)
	if required && s == "" {
		return "", dbcore.Invalid(field + ": must not be blank")
	}
	if utf8.RuneCountInString(s) > maxLen {
		return "", dbcore.Invalid(fmt.Sprintf("%s: expected length <= %d", field, maxLen))
	}
	return s, nil
}

func checkEnum(field, v string, allowed []string) error {
	if !slices.Contains(allowed, v) {
		return dbcore.Invalid(fmt.Sprintf("%s: expected one of %s", field, strings.Join(allowed, ", ")))
	}
	return nil
}

// recordPilotage appends an entry to the workspace's pilotage history in the caller's transaction.
func recordPilotage(ctx context.Context, q *dbsqlc.Queries, workspaceID, recordType, recordID, change, actorID string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode history: %w", err)
	}
	if err := q.PilotageHistoryInsert(ctx, dbsqlc.PilotageHistoryInsertParams{ID: db.NewID(), WorkspaceID: workspaceID,
		RecordType: recordType, RecordID: recordID, Change: change, ActorID: actorID, Data: raw}); err != nil {
		return fmt.Errorf("record pilotage history: %w", err)
	}
	return nil
}

// recordFields renders a record row as a JSON object keyed like the API's fields (objective,
// blockedReason, missionId), without its id, workspace and audit columns.
func recordFields(row any) map[string]any {
	raw, _ := json.Marshal(row) // rows are plain structs
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch k {
		case "ID", "WorkspaceID", "CreatedBy", "UpdatedBy", "CreatedAt", "UpdatedAt":
			continue
		}
		out[apiName(k)] = v
	}
	return out
}

// apiName turns a Go field name into the API's: BlockedReason -> blockedReason, MissionID -> missionId.
func apiName(k string) string {
	if strings.HasSuffix(k, "ID") {
		k = strings.TrimSuffix(k, "ID") + "Id"
	}
	r := []rune(k)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

// changes are the fields that differ between two renderings of a record: field -> {from, to}.
func changes(before, after any) map[string]any {
	b, a := recordFields(before), recordFields(after)
	out := map[string]any{}
	for k, v := range a {
		bv, _ := json.Marshal(b[k])
		av, _ := json.Marshal(v)
		if string(bv) != string(av) {
			out[k] = map[string]any{"from": b[k], "to": v}
		}
	}
	return out
}

// ---- missions

// NewPilotageMission is a pilotage mission to create. Status defaults to to_launch.
type NewPilotageMission struct {
	WorkspaceID, ActorID      string
	Objective, Module, Status string
	BlockedReason             *string
}

// PilotageMissionPatch changes a mission; nil fields stay. A mission's blockedReason is required
// while it is blocked and cleared when it leaves blocked.
type PilotageMissionPatch struct {
	Objective, Module, Status *string
	BlockedReason             db.Opt[string]
}

// checkMission validates a mission's fields as they would be stored.
func checkMission(m *dbsqlc.PilotageMission) error {
	var err error
	if m.Objective, err = checkText("objective", m.Objective, MaxPilotageLabel, true); err != nil {
		return err
	}
	if m.Module, err = checkText("module", m.Module, MaxPilotageModule, false); err != nil {
		return err
	}
	if err := checkEnum("status", m.Status, PilotageMissionStatuses); err != nil {
		return err
	}
	if m.BlockedReason != nil {
		r, err := checkText("blockedReason", *m.BlockedReason, MaxPilotageBlockedReason, true)
		if err != nil {
			return err
		}
		m.BlockedReason = &r
	}
	if m.Status == "blocked" && m.BlockedReason == nil {
		return dbcore.Invalid("blockedReason: required when status is blocked")
	}
	return nil
}

// CreateMission creates a mission and records it in the history.
func (e *Engine) CreateMission(ctx context.Context, in NewPilotageMission) (db.PilotageMission, error) {
	var out db.PilotageMission
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = createPilotageMissionTx(ctx, q, in)
		return err
	})
	return out, err
}

func createPilotageMissionTx(ctx context.Context, q *dbsqlc.Queries, in NewPilotageMission) (db.PilotageMission, error) {
	if in.Status == "" {
		in.Status = "to_launch"
	}
	m := dbsqlc.PilotageMission{Objective: in.Objective, Module: in.Module, Status: in.Status, BlockedReason: in.BlockedReason}
	if err := checkMission(&m); err != nil {
		return db.PilotageMission(m), err
	}
	if m.Status != "blocked" && m.BlockedReason != nil {
		return db.PilotageMission(m), dbcore.Invalid("blockedReason: only a blocked mission has a reason")
	}
	row, err := q.PilotageMissionInsert(ctx, dbsqlc.PilotageMissionInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID,
		Objective: m.Objective, Module: m.Module, Status: m.Status, BlockedReason: m.BlockedReason, ActorID: in.ActorID})
	if err != nil {
		return db.PilotageMission(row), fmt.Errorf("insert pilotage mission: %w", err)
	}
	return db.PilotageMission(row), recordPilotage(ctx, q, in.WorkspaceID, PilotageRecordMission, row.ID, PilotageChangeCreated, in.ActorID, recordFields(row))
}

// UpdateMission applies a patch to a mission and records the change.
func (e *Engine) UpdateMission(ctx context.Context, r db.RecordEdit, p PilotageMissionPatch) (db.PilotageMission, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotageMission
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = updatePilotageMissionTx(ctx, q, workspaceID, id, actorID, p)
		return err
	})
	return out, err
}

func updatePilotageMissionTx(ctx context.Context, q *dbsqlc.Queries, workspaceID, id, actorID string, p PilotageMissionPatch) (db.PilotageMission, error) {
	cur, err := dbcore.OrNotFound(q.PilotageMissionGetForUpdate(ctx, dbsqlc.PilotageMissionGetForUpdateParams{ID: id, WorkspaceID: workspaceID}))("mission not found", "lock pilotage mission")
	if err != nil {
		return db.PilotageMission(cur), err
	}
	next := cur
	if p.Objective != nil {
		next.Objective = *p.Objective
	}
	if p.Module != nil {
		next.Module = *p.Module
	}
	if p.Status != nil {
		next.Status = *p.Status
	}
	if p.BlockedReason.Set {
		next.BlockedReason = p.BlockedReason.Value
	}
	if next.Status != "blocked" {
		if p.BlockedReason.Set && p.BlockedReason.Value != nil {
			return db.PilotageMission(cur), dbcore.Invalid("blockedReason: only a blocked mission has a reason")
		}
		next.BlockedReason = nil // leaving blocked clears the reason
	}
	if err := checkMission(&next); err != nil {
		return db.PilotageMission(cur), err
	}
	row, err := q.PilotageMissionUpdate(ctx, dbsqlc.PilotageMissionUpdateParams{ID: id, Objective: next.Objective, Module: next.Module,
		Status: next.Status, BlockedReason: next.BlockedReason, ActorID: actorID})
	if err != nil {
		return db.PilotageMission(row), fmt.Errorf("update pilotage mission: %w", err)
	}
	return db.PilotageMission(row), recordPilotage(ctx, q, workspaceID, PilotageRecordMission, id, PilotageChangeUpdated, actorID, changes(cur, row))
}

// Missions lists a workspace's missions in creation order.
func (e *Engine) Missions(ctx context.Context, workspaceID string) ([]db.PilotageMission, error) {
	rows, err := e.core.Q.PilotageMissionList(ctx, workspaceID)
	return dbcore.MapRows(rows, func(r dbsqlc.PilotageMission) db.PilotageMission { return db.PilotageMission(r) }), dbcore.Wrap(err, "list pilotage missions")
}

// DeleteMission deletes a mission (its todos keep existing, without mission) and records it.
func (e *Engine) DeleteMission(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotageMissionDelete(ctx, dbsqlc.PilotageMissionDeleteParams{ID: id, WorkspaceID: workspaceID}))("mission not found", "delete pilotage mission")
		if err != nil {
			return err
		}
		return recordPilotage(ctx, q, workspaceID, PilotageRecordMission, id, PilotageChangeDeleted, actorID, recordFields(row))
	})
}

// ---- priorities

// NewPilotagePriority is a priority to create; it is active unless Active says otherwise.
type NewPilotagePriority struct {
	WorkspaceID, ActorID string
	Label, Module        string
	Active               *bool
}

// PilotagePriorityPatch changes a priority; nil fields stay.
type PilotagePriorityPatch struct {
	Label, Module *string
	Active        *bool
}

func checkPriority(p *dbsqlc.PilotagePriority) error {
	var err error
	if p.Label, err = checkText("label", p.Label, MaxPilotageLabel, true); err != nil {
		return err
	}
	p.Module, err = checkText("module", p.Module, MaxPilotageModule, false)
	return err
}

// CreatePriority creates a priority and records it.
func (e *Engine) CreatePriority(ctx context.Context, in NewPilotagePriority) (db.PilotagePriority, error) {
	p := dbsqlc.PilotagePriority{Label: in.Label, Module: in.Module, Active: in.Active == nil || *in.Active}
	if err := checkPriority(&p); err != nil {
		return db.PilotagePriority(p), err
	}
	var out db.PilotagePriority
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		var outRow dbsqlc.PilotagePriority
		outRow, err = q.PilotagePriorityInsert(ctx, dbsqlc.PilotagePriorityInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID,
			Label: p.Label, Module: p.Module, Active: p.Active, ActorID: in.ActorID})
		out = db.PilotagePriority(outRow)
		if err != nil {
			return fmt.Errorf("insert pilotage priority: %w", err)
		}
		return recordPilotage(ctx, q, in.WorkspaceID, PilotageRecordPriority, out.ID, PilotageChangeCreated, in.ActorID, recordFields(out))
	})
	return out, err
}

// UpdatePriority applies a patch to a priority and records the change.
func (e *Engine) UpdatePriority(ctx context.Context, r db.RecordEdit, p PilotagePriorityPatch) (db.PilotagePriority, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotagePriority
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.PilotagePriorityGetForUpdate(ctx, dbsqlc.PilotagePriorityGetForUpdateParams{ID: id, WorkspaceID: workspaceID}))("priority not found", "lock pilotage priority")
		if err != nil {
			return err
		}
		next := cur
		if p.Label != nil {
			next.Label = *p.Label
		}
		if p.Module != nil {
			next.Module = *p.Module
		}
		if p.Active != nil {
			next.Active = *p.Active
		}
		if err := checkPriority(&next); err != nil {
			return err
		}
		var outRow dbsqlc.PilotagePriority
		if outRow, err = q.PilotagePriorityUpdate(ctx, dbsqlc.PilotagePriorityUpdateParams{ID: id, Label: next.Label, Module: next.Module,
			Active: next.Active, ActorID: actorID}); err != nil {
			return fmt.Errorf("update pilotage priority: %w", err)
		}
		out = db.PilotagePriority(outRow)
		return recordPilotage(ctx, q, workspaceID, PilotageRecordPriority, id, PilotageChangeUpdated, actorID, changes(cur, out))
	})
	return out, err
}

// Priorities lists a workspace's priorities in creation order.
func (e *Engine) Priorities(ctx context.Context, workspaceID string) ([]db.PilotagePriority, error) {
	rows, err := e.core.Q.PilotagePriorityList(ctx, workspaceID)
	return dbcore.MapRows(rows, func(r dbsqlc.PilotagePriority) db.PilotagePriority { return db.PilotagePriority(r) }), dbcore.Wrap(err, "list pilotage priorities")
}

// DeletePriority deletes a priority (its todos keep existing, without priority) and records it.
func (e *Engine) DeletePriority(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotagePriorityDelete(ctx, dbsqlc.PilotagePriorityDeleteParams{ID: id, WorkspaceID: workspaceID}))("priority not found", "delete pilotage priority")
		if err != nil {
			return err
		}
		return recordPilotage(ctx, q, workspaceID, PilotageRecordPriority, id, PilotageChangeDeleted, actorID, recordFields(row))
	})
}

// ---- todos

// NewPilotageTodo is a todo to create. MissionID and PriorityID must name records of the same
// workspace. Status defaults to todo.
type NewPilotageTodo struct {
	WorkspaceID, ActorID  string
	Label, Status         string
	MissionID, PriorityID *string
	DueDate               *time.Time
}

// PilotageTodoPatch changes a todo; unset fields stay, set nil ones are cleared.
type PilotageTodoPatch struct {
	Label, Status         *string
	MissionID, PriorityID db.Opt[string]
	DueDate               db.Opt[time.Time]
}

func checkTodo(ctx context.Context, q *dbsqlc.Queries, workspaceID string, t *dbsqlc.PilotageTodo, refsChanged bool) error {
	var err error
	if t.Label, err = checkText("label", t.Label, MaxPilotageLabel, true); err != nil {
		return err
	}
	if err := checkEnum("status", t.Status, PilotageTodoStatuses); err != nil {
		return err
	}
	if !refsChanged {
		return nil
	}
	if t.MissionID != nil {
		ok, err := q.PilotageMissionExists(ctx, dbsqlc.PilotageMissionExistsParams{ID: *t.MissionID, WorkspaceID: workspaceID})
		if err != nil && !dbcore.IsNotFound(err) {
			return fmt.Errorf("check mission: %w", err)
		}
		if !ok {
			return dbcore.NotFound("missionId: mission not found")
		}
	}
	if t.PriorityID != nil {
		ok, err := q.PilotagePriorityExists(ctx, dbsqlc.PilotagePriorityExistsParams{ID: *t.PriorityID, WorkspaceID: workspaceID})
		if err != nil && !dbcore.IsNotFound(err) {
			return fmt.Errorf("check priority: %w", err)
		}
		if !ok {
			return dbcore.NotFound("priorityId: priority not found")
		}
	}
	return nil
}

// CreateTodo creates a todo and records it.
func (e *Engine) CreateTodo(ctx context.Context, in NewPilotageTodo) (db.PilotageTodo, error) {
	var out db.PilotageTodo
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = createPilotageTodoTx(ctx, q, in)
		return err
	})
	return out, err
}

func createPilotageTodoTx(ctx context.Context, q *dbsqlc.Queries, in NewPilotageTodo) (db.PilotageTodo, error) {
	if in.Status == "" {
		in.Status = "todo"
	}
	t := dbsqlc.PilotageTodo{Label: in.Label, Status: in.Status, MissionID: in.MissionID, PriorityID: in.PriorityID, DueDate: in.DueDate}
	if err := checkTodo(ctx, q, in.WorkspaceID, &t, true); err != nil {
		return db.PilotageTodo(t), err
	}
	row, err := q.PilotageTodoInsert(ctx, dbsqlc.PilotageTodoInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID, Label: t.Label,
		MissionID: t.MissionID, PriorityID: t.PriorityID, Status: t.Status, DueDate: t.DueDate, ActorID: in.ActorID})
	if err != nil {
		return db.PilotageTodo(row), fmt.Errorf("insert pilotage todo: %w", err)
	}
	return db.PilotageTodo(row), recordPilotage(ctx, q, in.WorkspaceID, PilotageRecordTodo, row.ID, PilotageChangeCreated, in.ActorID, recordFields(row))
}

// UpdateTodo applies a patch to a todo and records the change.
func (e *Engine) UpdateTodo(ctx context.Context, r db.RecordEdit, p PilotageTodoPatch) (db.PilotageTodo, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotageTodo
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.PilotageTodoGetForUpdate(ctx, dbsqlc.PilotageTodoGetForUpdateParams{ID: id, WorkspaceID: workspaceID}))("todo not found", "lock pilotage todo")
		if err != nil {
			return err
		}
		next := cur
		if p.Label != nil {
			next.Label = *p.Label
		}
		if p.Status != nil {
			next.Status = *p.Status
		}
		if p.MissionID.Set {
			next.MissionID = p.MissionID.Value
		}
		if p.PriorityID.Set {
			next.PriorityID = p.PriorityID.Value
		}
		if p.DueDate.Set {
			next.DueDate = p.DueDate.Value
		}
		if err := checkTodo(ctx, q, workspaceID, &next, p.MissionID.Set || p.PriorityID.Set); err != nil {
			return err
		}
		var outRow dbsqlc.PilotageTodo
		if outRow, err = q.PilotageTodoUpdate(ctx, dbsqlc.PilotageTodoUpdateParams{ID: id, Label: next.Label, MissionID: next.MissionID,
			PriorityID: next.PriorityID, Status: next.Status, DueDate: next.DueDate, ActorID: actorID}); err != nil {
			if dbcore.IsMissingRef(err) { // the mission or priority was deleted since the check
				return dbcore.NotFound("missionId or priorityId: not found")
			}
			return fmt.Errorf("update pilotage todo: %w", err)
		}
		out = db.PilotageTodo(outRow)
		return recordPilotage(ctx, q, workspaceID, PilotageRecordTodo, id, PilotageChangeUpdated, actorID, changes(cur, out))
	})
	return out, err
}

// Todos lists a workspace's todos in creation order.
func (e *Engine) Todos(ctx context.Context, workspaceID string) ([]db.PilotageTodo, error) {
	rows, err := e.core.Q.PilotageTodoList(ctx, workspaceID)
	return dbcore.MapRows(rows, func(r dbsqlc.PilotageTodo) db.PilotageTodo { return db.PilotageTodo(r) }), dbcore.Wrap(err, "list pilotage todos")
}

// DeleteTodo deletes a todo and records it.
func (e *Engine) DeleteTodo(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotageTodoDelete(ctx, dbsqlc.PilotageTodoDeleteParams{ID: id, WorkspaceID: workspaceID}))("todo not found", "delete pilotage todo")
		if err != nil {
			return err
		}
		return recordPilotage(ctx, q, workspaceID, PilotageRecordTodo, id, PilotageChangeDeleted, actorID, recordFields(row))
	})
}

// ---- decisions

// NewPilotageDecision is a decision to record.
type NewPilotageDecision struct {
	WorkspaceID, ActorID string
	Title, Impact        string
}

// PilotageDecisionPatch changes a decision; nil fields stay.
type PilotageDecisionPatch struct {
	Title, Impact *string
}

func checkDecision(d *dbsqlc.PilotageDecision) error {
	var err error
	if d.Title, err = checkText("title", d.Title, MaxPilotageLabel, true); err != nil {
		return err
	}
	d.Impact, err = checkText("impact", d.Impact, MaxPilotageImpact, false)
	return err
}

// CreateDecision records a decision.
func (e *Engine) CreateDecision(ctx context.Context, in NewPilotageDecision) (db.PilotageDecision, error) {
	var out db.PilotageDecision
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = createPilotageDecisionTx(ctx, q, in)
		return err
	})
	return out, err
}

func createPilotageDecisionTx(ctx context.Context, q *dbsqlc.Queries, in NewPilotageDecision) (db.PilotageDecision, error) {
	d := dbsqlc.PilotageDecision{Title: in.Title, Impact: in.Impact}
	if err := checkDecision(&d); err != nil {
		return db.PilotageDecision(d), err
	}
	row, err := q.PilotageDecisionInsert(ctx, dbsqlc.PilotageDecisionInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID,
		Title: d.Title, Impact: d.Impact, ActorID: in.ActorID})
	if err != nil {
		return db.PilotageDecision(row), fmt.Errorf("insert pilotage decision: %w", err)
	}
	return db.PilotageDecision(row), recordPilotage(ctx, q, in.WorkspaceID, PilotageRecordDecision, row.ID, PilotageChangeCreated, in.ActorID, recordFields(row))
}

// UpdateDecision applies a patch to a decision and records the change.
func (e *Engine) UpdateDecision(ctx context.Context, r db.RecordEdit, p PilotageDecisionPatch) (db.PilotageDecision, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotageDecision
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.PilotageDecisionGetForUpdate(ctx, dbsqlc.PilotageDecisionGetForUpdateParams{ID: id, WorkspaceID: workspaceID}))("decision not found", "lock pilotage decision")
		if err != nil {
			return err
		}
		next := cur
		if p.Title != nil {
			next.Title = *p.Title
		}
		if p.Impact != nil {
			next.Impact = *p.Impact
		}
		if err := checkDecision(&next); err != nil {
			return err
		}
		var outRow dbsqlc.PilotageDecision
		if outRow, err = q.PilotageDecisionUpdate(ctx, dbsqlc.PilotageDecisionUpdateParams{ID: id, Title: next.Title, Impact: next.Impact, ActorID: actorID}); err != nil {
			return fmt.Errorf("update pilotage decision: %w", err)
		}
		out = db.PilotageDecision(outRow)
		return recordPilotage(ctx, q, workspaceID, PilotageRecordDecision, id, PilotageChangeUpdated, actorID, changes(cur, out))
	})
	return out, err
}

// Decisions lists a workspace's decisions in creation order.
func (e *Engine) Decisions(ctx context.Context, workspaceID string) ([]db.PilotageDecision, error) {
	rows, err := e.core.Q.PilotageDecisionList(ctx, workspaceID)
	return dbcore.MapRows(rows, func(r dbsqlc.PilotageDecision) db.PilotageDecision { return db.PilotageDecision(r) }), dbcore.Wrap(err, "list pilotage decisions")
}

// DeleteDecision deletes a decision and records it.
func (e *Engine) DeleteDecision(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotageDecisionDelete(ctx, dbsqlc.PilotageDecisionDeleteParams{ID: id, WorkspaceID: workspaceID}))("decision not found", "delete pilotage decision")
		if err != nil {
			return err
		}
		return recordPilotage(ctx, q, workspaceID, PilotageRecordDecision, id, PilotageChangeDeleted, actorID, recordFields(row))
	})
}

// ---- active documents

// NewPilotageDoc is an active document to create. SourceType defaults to product.
type NewPilotageDoc struct {
	WorkspaceID, ActorID     string
	Title, Owner, SourceType string
}

// PilotageDocPatch changes an active document; nil fields stay.
type PilotageDocPatch struct {
	Title, Owner, SourceType *string
}

func checkDoc(d *dbsqlc.PilotageDoc) error {
	var err error
	if d.Title, err = checkText("title", d.Title, MaxPilotageLabel, true); err != nil {
		return err
	}
	if d.Owner, err = checkText("owner", d.Owner, MaxPilotageDocOwner, false); err != nil {
		return err
	}
	return checkEnum("sourceType", d.SourceType, PilotageDocSourceTypes)
}

// CreateDoc creates an active document and records it.
func (e *Engine) CreateDoc(ctx context.Context, in NewPilotageDoc) (db.PilotageDoc, error) {
	if in.SourceType == "" {
		in.SourceType = "product"
	}
	d := dbsqlc.PilotageDoc{Title: in.Title, Owner: in.Owner, SourceType: in.SourceType}
	if err := checkDoc(&d); err != nil {
		return db.PilotageDoc(d), err
	}
	var out db.PilotageDoc
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		var outRow dbsqlc.PilotageDoc
		if outRow, err = q.PilotageDocInsert(ctx, dbsqlc.PilotageDocInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID, Title: d.Title,
			Owner: d.Owner, SourceType: d.SourceType, ActorID: in.ActorID}); err != nil {
			return fmt.Errorf("insert pilotage doc: %w", err)
		}
		out = db.PilotageDoc(outRow)
		return recordPilotage(ctx, q, in.WorkspaceID, PilotageRecordDoc, out.ID, PilotageChangeCreated, in.ActorID, recordFields(out))
	})
	return out, err
}

// UpdateDoc applies a patch to an active document and records the change.
func (e *Engine) UpdateDoc(ctx context.Context, r db.RecordEdit, p PilotageDocPatch) (db.PilotageDoc, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotageDoc
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.PilotageDocGetForUpdate(ctx, dbsqlc.PilotageDocGetForUpdateParams{ID: id, WorkspaceID: workspaceID}))("document not found", "lock pilotage doc")
		if err != nil {
			return err
		}
		next := cur
		if p.Title != nil {
			next.Title = *p.Title
		}
		if p.Owner != nil {
			next.Owner = *p.Owner
		}
		if p.SourceType != nil {
			next.SourceType = *p.SourceType
		}
		if err := checkDoc(&next); err != nil {
			return err
		}
		var outRow dbsqlc.PilotageDoc
		if outRow, err = q.PilotageDocUpdate(ctx, dbsqlc.PilotageDocUpdateParams{ID: id, Title: next.Title, Owner: next.Owner,
			SourceType: next.SourceType, ActorID: actorID}); err != nil {
			return fmt.Errorf("update pilotage doc: %w", err)
		}
		out = db.PilotageDoc(outRow)
		return recordPilotage(ctx, q, workspaceID, PilotageRecordDoc, id, PilotageChangeUpdated, actorID, changes(cur, out))
	})
	return out, err
}

// Docs lists a workspace's active documents in creation order.
func (e *Engine) Docs(ctx context.Context, workspaceID string) ([]db.PilotageDoc, error) {
	rows, err := e.core.Q.PilotageDocList(ctx, workspaceID)
	return dbcore.MapRows(rows, func(r dbsqlc.PilotageDoc) db.PilotageDoc { return db.PilotageDoc(r) }), dbcore.Wrap(err, "list pilotage docs")
}

// DeleteDoc deletes an active document and records it.
func (e *Engine) DeleteDoc(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotageDocDelete(ctx, dbsqlc.PilotageDocDeleteParams{ID: id, WorkspaceID: workspaceID}))("document not found", "delete pilotage doc")
		if err != nil {
			return err
		}
		return recordPilotage(ctx, q, workspaceID, PilotageRecordDoc, id, PilotageChangeDeleted, actorID, recordFields(row))
	})
}

// ---- history

// PilotageHistoryQuery selects a page of the history: entries older than Before (an entry id), of
// RecordType, since Since, at most Limit.
type PilotageHistoryQuery struct {
	Before, RecordType *string
	Since              *time.Time
	Limit              int
}

// History pages through a workspace's pilotage history, newest first.
func (e *Engine) History(ctx context.Context, workspaceID string, hq PilotageHistoryQuery) ([]db.PilotageHistoryEntry, error) {
	rows, err := e.core.Q.PilotageHistoryList(ctx, dbsqlc.PilotageHistoryListParams{WorkspaceID: workspaceID, Before: hq.Before,
		RecordType: hq.RecordType, Since: hq.Since, Lim: dbcore.Int32(hq.Limit)})
	return dbcore.MapRows(rows, func(r dbsqlc.PilotageHistory) db.PilotageHistoryEntry { return db.PilotageHistoryEntry(r) }), dbcore.Wrap(err, "list pilotage history")
}

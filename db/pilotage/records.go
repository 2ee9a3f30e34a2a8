package pilotage

// This file holds the pilotage cockpit's records (missions, priorities, todos, decisions, active
// documents) and their history; todos are in todos.go, decisions and active documents in
// decisions.go. Proposed actions are in actions.go, the read models (state,
// dashboard, portfolio) in read.go. See docs/pilotage.md.

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
var PilotageRecordTypes = []string{PilotageRecordMission, PilotageRecordPriority, PilotageRecordTodo,
	PilotageRecordDecision, PilotageRecordDoc, PilotageRecordAction}

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

func checkEnum[T ~string](field string, v T, allowed []T) error {
	if !slices.Contains(allowed, v) {
		return dbcore.Invalid(fmt.Sprintf("%s: expected one of %v", field, allowed))
	}
	return nil
}

// recordPilotage appends an entry to the workspace's pilotage history in the caller's transaction.
func (e *Engine) recordPilotage(ctx context.Context, tx pgx.Tx, workspaceID, recordType, recordID, change,
	actorID string, data any) error {
	q := dbcore.Queries(tx)
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode history: %w", err)
	}
	if err := q.PilotageHistoryInsert(ctx, dbsqlc.PilotageHistoryInsertParams{ID: db.NewID(), WorkspaceID: workspaceID,
		RecordType: recordType, RecordID: recordID, Change: change, ActorID: actorID, Data: raw}); err != nil {
		return fmt.Errorf("record pilotage history: %w", err)
	}
	// Every change the history keeps is an event of the workspace's feed too.
	typ := "pilotage_record_" + change
	if recordType == PilotageRecordAction {
		typ = "pilotage_action_" + change
	}
	return e.core.RecordQuietActivities(ctx, tx, db.Activity{WorkspaceID: workspaceID, ActorID: actorID, Type: typ,
		Meta: map[string]any{"recordType": recordType, "recordId": recordID}})
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
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = e.createPilotageMissionTx(ctx, tx, in)
		return err
	})
	return out, err
}

func (e *Engine) createPilotageMissionTx(ctx context.Context, tx pgx.Tx,
	in NewPilotageMission) (db.PilotageMission, error) {
	q := dbcore.Queries(tx)
	if in.Status == "" {
		in.Status = "to_launch"
	}
	m := dbsqlc.PilotageMission{Objective: in.Objective, Module: in.Module, Status: in.Status,
		BlockedReason: in.BlockedReason}
	if err := checkMission(&m); err != nil {
		return db.PilotageMission(m), err
	}
	if m.Status != "blocked" && m.BlockedReason != nil {
		return db.PilotageMission(m), dbcore.Invalid("blockedReason: only a blocked mission has a reason")
	}
	row, err := q.PilotageMissionInsert(ctx, dbsqlc.PilotageMissionInsertParams{ID: db.NewID(),
		WorkspaceID: in.WorkspaceID, Objective: m.Objective, Module: m.Module, Status: m.Status,
		BlockedReason: m.BlockedReason, ActorID: in.ActorID})
	if err != nil {
		return db.PilotageMission(row), fmt.Errorf("insert pilotage mission: %w", err)
	}
	return db.PilotageMission(row), e.recordPilotage(ctx, tx, in.WorkspaceID, PilotageRecordMission, row.ID,
		PilotageChangeCreated, in.ActorID, recordFields(row))
}

// UpdateMission applies a patch to a mission and records the change.
func (e *Engine) UpdateMission(ctx context.Context, r db.RecordEdit,
	p PilotageMissionPatch) (db.PilotageMission, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotageMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = e.updatePilotageMissionTx(ctx, tx, workspaceID, id, actorID, p)
		return err
	})
	return out, err
}

func (e *Engine) updatePilotageMissionTx(ctx context.Context, tx pgx.Tx, workspaceID, id, actorID string,
	p PilotageMissionPatch) (db.PilotageMission, error) {
	q := dbcore.Queries(tx)
	cur, err := dbcore.OrNotFound(q.PilotageMissionGetForUpdate(ctx, dbsqlc.PilotageMissionGetForUpdateParams{ID: id,
		WorkspaceID: workspaceID}))("mission not found", "lock pilotage mission")
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
	row, err := q.PilotageMissionUpdate(ctx, dbsqlc.PilotageMissionUpdateParams{ID: id, Objective: next.Objective,
		Module: next.Module, Status: next.Status, BlockedReason: next.BlockedReason, ActorID: actorID})
	if err != nil {
		return db.PilotageMission(row), fmt.Errorf("update pilotage mission: %w", err)
	}
	return db.PilotageMission(row), e.recordPilotage(ctx, tx, workspaceID, PilotageRecordMission, id,
		PilotageChangeUpdated, actorID, changes(cur, row))
}

// Missions is one page of a workspace's missions in creation order.
func (e *Engine) Missions(ctx context.Context, workspaceID string, p db.Page) (db.Paged[db.PilotageMission], error) {
	k, err := p.AfterTime("pilotage-missions", false)
	if err != nil {
		return db.Paged[db.PilotageMission]{}, err
	}
	rows, err := e.core.Q.PilotageMissionPage(ctx, dbsqlc.PilotageMissionPageParams{WorkspaceID: workspaceID,
		AfterAt: k.At, AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.PilotageMission]{}, dbcore.Wrap(err, "list pilotage missions")
	}
	return db.PageOf(p, "pilotage-missions", dbcore.MapRows(rows,
		func(r dbsqlc.PilotageMission) db.PilotageMission { return db.PilotageMission(r) }),
		func(r db.PilotageMission) any { return db.TimeKey{At: r.CreatedAt, ID: r.ID} }), nil
}

// DeleteMission deletes a mission (its todos keep existing, without mission) and records it.
func (e *Engine) DeleteMission(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotageMissionDelete(ctx, dbsqlc.PilotageMissionDeleteParams{ID: id,
			WorkspaceID: workspaceID}))("mission not found", "delete pilotage mission")
		if err != nil {
			return err
		}
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordMission, id, PilotageChangeDeleted, actorID,
			recordFields(row))
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
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		var outRow dbsqlc.PilotagePriority
		outRow, err = q.PilotagePriorityInsert(ctx, dbsqlc.PilotagePriorityInsertParams{ID: db.NewID(),
			WorkspaceID: in.WorkspaceID, Label: p.Label, Module: p.Module, Active: p.Active, ActorID: in.ActorID})
		out = db.PilotagePriority(outRow)
		if err != nil {
			return fmt.Errorf("insert pilotage priority: %w", err)
		}
		return e.recordPilotage(ctx, tx, in.WorkspaceID, PilotageRecordPriority, out.ID, PilotageChangeCreated, in.ActorID,
			recordFields(out))
	})
	return out, err
}

// UpdatePriority applies a patch to a priority and records the change.
func (e *Engine) UpdatePriority(ctx context.Context, r db.RecordEdit,
	p PilotagePriorityPatch) (db.PilotagePriority, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotagePriority
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.PilotagePriorityGetForUpdate(ctx, dbsqlc.PilotagePriorityGetForUpdateParams{ID: id,
			WorkspaceID: workspaceID}))("priority not found", "lock pilotage priority")
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
		if outRow, err = q.PilotagePriorityUpdate(ctx, dbsqlc.PilotagePriorityUpdateParams{ID: id, Label: next.Label,
			Module: next.Module, Active: next.Active, ActorID: actorID}); err != nil {
			return fmt.Errorf("update pilotage priority: %w", err)
		}
		out = db.PilotagePriority(outRow)
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordPriority, id, PilotageChangeUpdated, actorID, changes(cur,
			out))
	})
	return out, err
}

// Priorities is one page of a workspace's priorities in creation order.
func (e *Engine) Priorities(ctx context.Context, workspaceID string, p db.Page) (db.Paged[db.PilotagePriority], error) {
	k, err := p.AfterTime("pilotage-priorities", false)
	if err != nil {
		return db.Paged[db.PilotagePriority]{}, err
	}
	rows, err := e.core.Q.PilotagePriorityPage(ctx, dbsqlc.PilotagePriorityPageParams{WorkspaceID: workspaceID,
		AfterAt: k.At, AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.PilotagePriority]{}, dbcore.Wrap(err, "list pilotage priorities")
	}
	return db.PageOf(p, "pilotage-priorities", dbcore.MapRows(rows,
		func(r dbsqlc.PilotagePriority) db.PilotagePriority { return db.PilotagePriority(r) }),
		func(r db.PilotagePriority) any { return db.TimeKey{At: r.CreatedAt, ID: r.ID} }), nil
}

// DeletePriority deletes a priority (its todos keep existing, without priority) and records it.
func (e *Engine) DeletePriority(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotagePriorityDelete(ctx, dbsqlc.PilotagePriorityDeleteParams{ID: id,
			WorkspaceID: workspaceID}))("priority not found", "delete pilotage priority")
		if err != nil {
			return err
		}
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordPriority, id, PilotageChangeDeleted, actorID,
			recordFields(row))
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
func (e *Engine) History(ctx context.Context, workspaceID string,
	hq PilotageHistoryQuery) ([]db.PilotageHistoryEntry, error) {
	rows, err := e.core.Q.PilotageHistoryList(ctx, dbsqlc.PilotageHistoryListParams{WorkspaceID: workspaceID,
		Before: hq.Before, RecordType: hq.RecordType, Since: hq.Since, Lim: dbcore.Int32(hq.Limit)})
	return dbcore.MapRows(rows,
			func(r dbsqlc.PilotageHistory) db.PilotageHistoryEntry { return db.PilotageHistoryEntry(r) }), dbcore.Wrap(err,
			"list pilotage history")
}

package pilotage

// Todos of the cockpit: optionally tied to a mission and a priority of the same workspace.

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

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

func checkTodo(ctx context.Context, q *dbsqlc.Queries, workspaceID string, t *dbsqlc.PilotageTodo,
	refsChanged bool) error {
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
		ok, err := q.PilotageMissionExists(ctx, dbsqlc.PilotageMissionExistsParams{ID: *t.MissionID,
			WorkspaceID: workspaceID})
		if err != nil && !dbcore.IsNotFound(err) {
			return fmt.Errorf("check mission: %w", err)
		}
		if !ok {
			return dbcore.NotFound("missionId: mission not found")
		}
	}
	if t.PriorityID != nil {
		ok, err := q.PilotagePriorityExists(ctx, dbsqlc.PilotagePriorityExistsParams{ID: *t.PriorityID,
			WorkspaceID: workspaceID})
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
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = e.createPilotageTodoTx(ctx, tx, in)
		return err
	})
	return out, err
}

func (e *Engine) createPilotageTodoTx(ctx context.Context, tx pgx.Tx, in NewPilotageTodo) (db.PilotageTodo, error) {
	q := dbcore.Queries(tx)
	if in.Status == "" {
		in.Status = "todo"
	}
	t := dbsqlc.PilotageTodo{Label: in.Label, Status: in.Status, MissionID: in.MissionID, PriorityID: in.PriorityID,
		DueDate: in.DueDate}
	if err := checkTodo(ctx, q, in.WorkspaceID, &t, true); err != nil {
		return db.PilotageTodo(t), err
	}
	row, err := q.PilotageTodoInsert(ctx, dbsqlc.PilotageTodoInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID,
		Label: t.Label, MissionID: t.MissionID, PriorityID: t.PriorityID, Status: t.Status, DueDate: t.DueDate,
		ActorID: in.ActorID})
	if err != nil {
		return db.PilotageTodo(row), fmt.Errorf("insert pilotage todo: %w", err)
	}
	return db.PilotageTodo(row), e.recordPilotage(ctx, tx, in.WorkspaceID, PilotageRecordTodo, row.ID,
		PilotageChangeCreated, in.ActorID, recordFields(row))
}

// UpdateTodo applies a patch to a todo and records the change.
func (e *Engine) UpdateTodo(ctx context.Context, r db.RecordEdit, p PilotageTodoPatch) (db.PilotageTodo, error) {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	var out db.PilotageTodo
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.PilotageTodoGetForUpdate(ctx, dbsqlc.PilotageTodoGetForUpdateParams{ID: id,
			WorkspaceID: workspaceID}))("todo not found", "lock pilotage todo")
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
		if outRow, err = q.PilotageTodoUpdate(ctx, dbsqlc.PilotageTodoUpdateParams{ID: id, Label: next.Label,
			MissionID: next.MissionID, PriorityID: next.PriorityID, Status: next.Status, DueDate: next.DueDate,
			ActorID: actorID}); err != nil {
			if dbcore.IsMissingRef(err) { // the mission or priority was deleted since the check
				return dbcore.NotFound("missionId or priorityId: not found")
			}
			return fmt.Errorf("update pilotage todo: %w", err)
		}
		out = db.PilotageTodo(outRow)
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordTodo, id, PilotageChangeUpdated, actorID, changes(cur,
			out))
	})
	return out, err
}

// Todos is one page of a workspace's todos in creation order.
func (e *Engine) Todos(ctx context.Context, workspaceID string, p db.Page) (db.Paged[db.PilotageTodo], error) {
	k, err := p.AfterTime("pilotage-todos", false)
	if err != nil {
		return db.Paged[db.PilotageTodo]{}, err
	}
	rows, err := e.core.Q.PilotageTodoPage(ctx, dbsqlc.PilotageTodoPageParams{WorkspaceID: workspaceID, AfterAt: k.At,
		AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.PilotageTodo]{}, dbcore.Wrap(err, "list pilotage todos")
	}
	return db.PageOf(p, "pilotage-todos", dbcore.MapRows(rows,
		func(r dbsqlc.PilotageTodo) db.PilotageTodo { return db.PilotageTodo(r) }),
		func(r db.PilotageTodo) any { return db.TimeKey{At: r.CreatedAt, ID: r.ID} }), nil
}

// DeleteTodo deletes a todo and records it.
func (e *Engine) DeleteTodo(ctx context.Context, r db.RecordEdit) error {
	workspaceID, id, actorID := r.WorkspaceID, r.ID, r.ActorID
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := dbcore.OrNotFound(q.PilotageTodoDelete(ctx, dbsqlc.PilotageTodoDeleteParams{ID: id,
			WorkspaceID: workspaceID}))("todo not found", "delete pilotage todo")
		if err != nil {
			return err
		}
		return e.recordPilotage(ctx, tx, workspaceID, PilotageRecordTodo, id, PilotageChangeDeleted, actorID,
			recordFields(row))
	})
}

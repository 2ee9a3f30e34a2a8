package board

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Columns lists a project's columns in order.
func (b *Engine) Columns(ctx context.Context, projectID string) ([]db.Column, error) {
	cols, err := b.q.ColumnListByProject(ctx, projectID)
	return dbcore.MapRows(cols, func(r dbsqlc.Column) db.Column { return db.Column(r) }), dbcore.Wrap(err, "list columns")
}

// CreateColumn appends a column to a project.
func (b *Engine) CreateColumn(ctx context.Context, projectID, name string) (db.Column, error) {
	var col db.Column
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := q.ProjectLock(ctx, projectID); err != nil {
			return dbcore.Wrap(err, "lock project")
		}
		var err error
		var colRow dbsqlc.Column
		colRow, err = q.ColumnInsert(ctx, dbsqlc.ColumnInsertParams{ID: db.NewID(), ProjectID: projectID, Name: name})
		col = db.Column(colRow)
		return dbcore.Wrap(err, "insert column")
	})
	return col, err
}

// UpdateColumn renames a column and/or moves it to a 0-based position (clamped to the ends).
func (b *Engine) UpdateColumn(ctx context.Context, projectID, columnID string, name *string,
	order *int) (db.Column, error) {
	var col db.Column
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := q.ProjectLock(ctx, projectID); err != nil {
			return dbcore.Wrap(err, "lock project")
		}
		cur, err := q.ColumnGet(ctx, dbsqlc.ColumnGetParams{ID: columnID, ProjectID: projectID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("column not found")
		}
		if err != nil {
			return fmt.Errorf("get column: %w", err)
		}
		if name != nil {
			if err := q.ColumnRename(ctx, dbsqlc.ColumnRenameParams{ID: columnID, Name: *name}); err != nil {
				return fmt.Errorf("rename column: %w", err)
			}
		}
		if order != nil {
			cols, err := q.ColumnListByProject(ctx, projectID)
			if err != nil {
				return fmt.Errorf("list columns: %w", err)
			}
			ids := make([]string, 0, len(cols))
			for _, c := range cols {
				if c.ID != columnID {
					ids = append(ids, c.ID)
				}
			}
			at := min(max(*order, 0), len(ids))
			ids = slices.Insert(ids, at, columnID)
			if err := setColumnPositions(ctx, q, ids); err != nil {
				return err
			}
		}
		var colRow dbsqlc.Column
		colRow, err = q.ColumnGet(ctx, dbsqlc.ColumnGetParams{ID: cur.ID, ProjectID: projectID})
		col = db.Column(colRow)
		return dbcore.Wrap(err, "get column")
	})
	return col, err
}

func setColumnPositions(ctx context.Context, q *dbsqlc.Queries, ids []string) error {
	pos := make([]int32, len(ids))
	for i := range ids {
		pos[i] = int32(i)
	}
	if err := q.ColumnSetPositions(ctx, dbsqlc.ColumnSetPositionsParams{Ids: ids, Positions: pos}); err != nil {
		return fmt.Errorf("set column positions: %w", err)
	}
	return nil
}

// DeleteColumn deletes a column with its cards and closes the gap in the order.
func (b *Engine) DeleteColumn(ctx context.Context, projectID, columnID string) error {
	return b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := q.ProjectLock(ctx, projectID); err != nil {
			return dbcore.Wrap(err, "lock project")
		}
		n, err := q.ColumnDelete(ctx, dbsqlc.ColumnDeleteParams{ID: columnID, ProjectID: projectID})
		if err != nil {
			return fmt.Errorf("delete column: %w", err)
		}
		if n == 0 {
			return dbcore.NotFound("column not found")
		}
		cols, err := q.ColumnListByProject(ctx, projectID)
		if err != nil {
			return fmt.Errorf("list columns: %w", err)
		}
		ids := make([]string, len(cols))
		for i, c := range cols {
			ids[i] = c.ID
		}
		return setColumnPositions(ctx, q, ids)
	})
}

package roadmap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// ScopeViews are the view types a scope can show, in the order the API lists them.
var ScopeViews = []string{"kanban", "list", "calendar", "roadmap", "stats"}

// MaxScopeSettingsBytes is the largest settings object a scope may hold, in bytes of JSON.
const MaxScopeSettingsBytes = 16 << 10

// NewScope is a scope to create. A nil Settings means an empty object.
type NewScope struct {
	ProjectID, Name, Description string
	StartDate, EndDate           *time.Time
	Settings                     json.RawMessage
}

// CreateScope creates a scope in a project.
func (e *Engine) CreateScope(ctx context.Context, in NewScope) (db.Scope, error) {
	if err := CheckScopeDates(in.StartDate, in.EndDate); err != nil {
		return db.Scope{}, err
	}
	settings, err := ScopeSettings(in.Settings)
	if err != nil {
		return db.Scope{}, err
	}
	sc, err := e.core.Q.ScopeInsert(ctx, dbsqlc.ScopeInsertParams{ID: dbcore.NewID(), ProjectID: in.ProjectID,
		Name: in.Name, Description: in.Description, StartDate: in.StartDate, EndDate: in.EndDate, Settings: settings})
	return db.Scope(sc), dbcore.Wrap(err, "insert scope")
}

// Scopes lists a project's scopes in creation order.
func (e *Engine) Scopes(ctx context.Context, projectID string) ([]db.Scope, error) {
	scopes, err := e.core.Q.ScopeListByProject(ctx, projectID)
	return dbcore.MapRows(scopes, func(r dbsqlc.Scope) db.Scope { return db.Scope(r) }), dbcore.Wrap(err, "list scopes")
}

// Scope reads a scope of a project; a scope of another project is not found.
func (e *Engine) Scope(ctx context.Context, projectID, scopeID string) (db.Scope, error) {
	r, err := dbcore.OrNotFound(e.core.Q.ScopeGet(ctx, dbsqlc.ScopeGetParams{ID: scopeID,
		ProjectID: projectID}))("scope not found", "get scope")
	return db.Scope(r), err
}

// ScopePatch is a change to a scope; zero fields are left alone. A non-nil Settings replaces the
// settings object as a whole.
type ScopePatch struct {
	Name, Description  *string
	StartDate, EndDate db.Opt[time.Time]
	Settings           json.RawMessage
}

// UpdateScope applies a patch. The dates are checked as they are after the change: an end before the
// start is refused.
func (e *Engine) UpdateScope(ctx context.Context, projectID, scopeID string, p ScopePatch) (db.Scope, error) {
	var out db.Scope
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.ScopeGetForUpdate(ctx, dbsqlc.ScopeGetForUpdateParams{ID: scopeID, ProjectID: projectID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("scope not found")
		}
		if err != nil {
			return fmt.Errorf("lock scope: %w", err)
		}
		next := dbsqlc.ScopeUpdateParams{ID: cur.ID, Name: cur.Name, Description: cur.Description,
			StartDate: cur.StartDate, EndDate: cur.EndDate, Settings: cur.Settings}
		if p.Name != nil {
			next.Name = *p.Name
		}
		if p.Description != nil {
			next.Description = *p.Description
		}
		if p.StartDate.Set {
			next.StartDate = p.StartDate.Value
		}
		if p.EndDate.Set {
			next.EndDate = p.EndDate.Value
		}
		if err := CheckScopeDates(next.StartDate, next.EndDate); err != nil {
			return err
		}
		if p.Settings != nil {
			if next.Settings, err = ScopeSettings(p.Settings); err != nil {
				return err
			}
		}
		var outRow dbsqlc.Scope
		outRow, err = q.ScopeUpdate(ctx, next)
		out = db.Scope(outRow)
		return dbcore.Wrap(err, "update scope")
	})
	return out, err
}

// SetScopeView changes the view a scope shows.
func (e *Engine) SetScopeView(ctx context.Context, projectID, scopeID, view string) (db.Scope, error) {
	if !slices.Contains(ScopeViews, view) {
		return db.Scope{}, dbcore.Invalid(fmt.Sprintf("activeView must be one of %v", ScopeViews))
	}
	r, err := dbcore.OrNotFound(e.core.Q.ScopeSetView(ctx, dbsqlc.ScopeSetViewParams{ID: scopeID, ProjectID: projectID,
		ActiveView: view}))("scope not found", "set scope view")
	return db.Scope(r), err
}

// DeleteScope deletes a scope with all its content: its cards go with it, and with them their
// checklists, comments, attachments, labels, custom values and relations.
func (e *Engine) DeleteScope(ctx context.Context, projectID, scopeID string) error {
	n, err := e.core.Q.ScopeDelete(ctx, dbsqlc.ScopeDeleteParams{ID: scopeID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return dbcore.NotFound("scope not found")
	}
	if err != nil {
		return fmt.Errorf("delete scope: %w", err)
	}
	if n == 0 {
		return dbcore.NotFound("scope not found")
	}
	return nil
}

// CheckScopeDates refuses a scope whose end date is before its start date.
func CheckScopeDates(start, end *time.Time) error {
	if start != nil && end != nil && end.Before(*start) {
		return dbcore.Invalid("endDate must not be before startDate")
	}
	return nil
}

// ScopeSettings checks that settings is a JSON object of at most MaxScopeSettingsBytes; nil or null is
// the empty object.
func ScopeSettings(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if len(raw) > MaxScopeSettingsBytes {
		return nil, dbcore.Invalid(fmt.Sprintf("settings must be at most %d bytes of JSON", MaxScopeSettingsBytes))
	}
	var obj map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil, dbcore.Invalid("settings must be a JSON object")
	}
	return raw, nil
}

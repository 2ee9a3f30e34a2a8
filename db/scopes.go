package db

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// ScopeViews are the view types a scope can show, in the order the API lists them (spec Part 2).
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
func (s *Store) CreateScope(ctx context.Context, in NewScope) (Scope, error) {
	if err := CheckScopeDates(in.StartDate, in.EndDate); err != nil {
		return Scope{}, err
	}
	settings, err := ScopeSettings(in.Settings)
	if err != nil {
		return Scope{}, err
	}
	sc, err := s.q.ScopeInsert(ctx, dbsqlc.ScopeInsertParams{ID: NewID(), ProjectID: in.ProjectID, Name: in.Name,
		Description: in.Description, StartDate: in.StartDate, EndDate: in.EndDate, Settings: settings})
	return sc, wrap(err, "insert scope")
}

// Scopes lists a project's scopes in creation order.
func (s *Store) Scopes(ctx context.Context, projectID string) ([]Scope, error) {
	scopes, err := s.q.ScopeListByProject(ctx, projectID)
	return scopes, wrap(err, "list scopes")
}

// Scope reads a scope of a project; a scope of another project is not found.
func (s *Store) Scope(ctx context.Context, projectID, scopeID string) (Scope, error) {
	return orNotFound(s.q.ScopeGet(ctx, dbsqlc.ScopeGetParams{ID: scopeID, ProjectID: projectID}))("scope not found", "get scope")
}

// ScopePatch is a change to a scope; zero fields are left alone. A non-nil Settings replaces the
// settings object as a whole.
type ScopePatch struct {
	Name, Description  *string
	StartDate, EndDate Opt[time.Time]
	Settings           json.RawMessage
}

// UpdateScope applies a patch. The dates are checked as they are after the change: an end before the
// start is refused.
func (s *Store) UpdateScope(ctx context.Context, projectID, scopeID string, p ScopePatch) (Scope, error) {
	var out Scope
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.ScopeGetForUpdate(ctx, dbsqlc.ScopeGetForUpdateParams{ID: scopeID, ProjectID: projectID})
		if isNotFound(err) {
			return notFound("scope not found")
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
		out, err = q.ScopeUpdate(ctx, next)
		return wrap(err, "update scope")
	})
	return out, err
}

// SetScopeView changes the view a scope shows.
func (s *Store) SetScopeView(ctx context.Context, projectID, scopeID, view string) (Scope, error) {
	if !slices.Contains(ScopeViews, view) {
		return Scope{}, invalid(fmt.Sprintf("activeView must be one of %v", ScopeViews))
	}
	return orNotFound(s.q.ScopeSetView(ctx, dbsqlc.ScopeSetViewParams{ID: scopeID, ProjectID: projectID, ActiveView: view}))("scope not found", "set scope view")
}

// DeleteScope deletes a scope with all its content: its cards go with it, and with them their
// checklists, comments, attachments, labels, custom values and relations.
func (s *Store) DeleteScope(ctx context.Context, projectID, scopeID string) error {
	n, err := s.q.ScopeDelete(ctx, dbsqlc.ScopeDeleteParams{ID: scopeID, ProjectID: projectID})
	if isNotFound(err) {
		return notFound("scope not found")
	}
	if err != nil {
		return fmt.Errorf("delete scope: %w", err)
	}
	if n == 0 {
		return notFound("scope not found")
	}
	return nil
}

// CheckScopeDates refuses a scope whose end date is before its start date.
func CheckScopeDates(start, end *time.Time) error {
	if start != nil && end != nil && end.Before(*start) {
		return invalid("endDate must not be before startDate")
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
		return nil, invalid(fmt.Sprintf("settings must be at most %d bytes of JSON", MaxScopeSettingsBytes))
	}
	var obj map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil, invalid("settings must be a JSON object")
	}
	return raw, nil
}

package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/roadmap"
)

// ScopePath are the path parameters of scope-scoped routes.
type ScopePath struct {
	ProjectPath
	ScopeID string `path:"scopeId" format:"uuid"`
}

// ScopeOut is a scope: a work package or phase of a project.
type ScopeOut struct {
	ID          string          `json:"id"`
	ProjectID   string          `json:"projectId"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	StartDate   *time.Time      `json:"startDate" nullable:"true"`
	EndDate     *time.Time      `json:"endDate" nullable:"true"`
	Settings    json.RawMessage `json:"settings" doc:"Free-form JSON object (at most 16 KB)"`
	ActiveView  string          `json:"activeView" enum:"kanban,list,calendar,roadmap,stats"`
	CreatedAt   time.Time       `json:"createdAt"`
	UpdatedAt   time.Time       `json:"updatedAt"`
}

func scopeOut(sc db.Scope) ScopeOut {
	return ScopeOut{ID: sc.ID, ProjectID: sc.ProjectID, Name: sc.Name, Description: sc.Description,
		StartDate: sc.StartDate, EndDate: sc.EndDate, Settings: sc.Settings, ActiveView: sc.ActiveView,
		CreatedAt: sc.CreatedAt, UpdatedAt: sc.UpdatedAt}
}

// ScopeViewsOut lists the views a scope offers and the one it shows.
type ScopeViewsOut struct {
	ActiveView string   `json:"activeView" enum:"kanban,list,calendar,roadmap,stats"`
	Views      []string `json:"views" doc:"Every view type, in display order"`
}

func scopeViewsOut(sc db.Scope) ScopeViewsOut {
	return ScopeViewsOut{ActiveView: sc.ActiveView, Views: roadmap.ScopeViews}
}

const maxScopeDescription = 5000

// registerScopes registers a project's scopes and their views.
func (s boardOps) registerScopes() {
	tags := []string{"Scopes"}

	register(s.Server, huma.Operation{OperationID: "scopes-create", Method: http.MethodPost, Path: pathProject + "/scopes",
		Summary: "Create a scope", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "A scope is a work package or phase of the project. `endDate` may not be before `startDate`; " +
			"`settings` is a free-form JSON object of at most 16 KB. A new scope shows the kanban view."},
		projectWrite, s.createScope)

	register(s.Server, huma.Operation{OperationID: "scopes-list", Method: http.MethodGet, Path: pathProject + "/scopes",
		Summary: "List the project's scopes", Tags: tags, Description: "In creation order, each with its active view."},
		projectRead, s.listScopes)

	register(s.Server, huma.Operation{OperationID: "scopes-get", Method: http.MethodGet,
		Path: pathProject + "/scopes/{scopeId}", Summary: "Get a scope", Tags: tags},
		projectRead, s.getScope)

	register(s.Server, huma.Operation{OperationID: "scopes-update", Method: http.MethodPatch,
		Path: pathProject + "/scopes/{scopeId}", Summary: "Update a scope", Tags: tags,
		Description: "Any subset of name, description, startDate, endDate, settings. Dates set to null are cleared; " +
			"description null empties it; settings replaces the whole object (null empties it). The end may not fall before " +
			"the start."},
		projectWrite, s.updateScope)

	register(s.Server, huma.Operation{OperationID: "scopes-delete", Method: http.MethodDelete,
		Path: pathProject + "/scopes/{scopeId}", Summary: "Delete a scope and all its content", Tags: tags,
		Description: "The scope's cards are deleted with it, with their checklists, comments, attachments, labels, values " +
			"and relations."},
		projectWrite, s.deleteScope)

	register(s.Server, huma.Operation{OperationID: "scopes-views-get", Method: http.MethodGet,
		Path: pathProject + "/scopes/{scopeId}/views", Summary: "List a scope's views and the active one", Tags: tags},
		projectRead, s.getScopeViews)

	register(s.Server, huma.Operation{OperationID: "scopes-views-update", Method: http.MethodPatch,
		Path: pathProject + "/scopes/{scopeId}/views", Summary: "Change a scope's active view", Tags: tags},
		projectWrite, s.setScopeView)
}

// CreateScopeInput is the request of scopes-create.
type CreateScopeInput struct {
	ProjectPath
	Body CreateScopeInputBody
}

// CreateScopeInputBody is the body of a CreateScopeInput request.
type CreateScopeInputBody struct {
	Name        string          `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Description string          `json:"description,omitempty" maxLength:"5000"`
	StartDate   *time.Time      `json:"startDate,omitempty" nullable:"true"`
	EndDate     *time.Time      `json:"endDate,omitempty" nullable:"true"`
	Settings    json.RawMessage `json:"settings,omitempty" doc:"Free-form JSON object (at most 16 KB)"`
}

func (s boardOps) createScope(ctx context.Context, in *CreateScopeInput) (*Output[ScopeOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	return oneOf(scopeOut)(s.roadmaps.CreateScope(ctx, roadmap.NewScope{ProjectID: accessFrom(ctx).ProjectID, Name: name,
		Description: in.Body.Description, StartDate: in.Body.StartDate, EndDate: in.Body.EndDate,
		Settings: in.Body.Settings}))
}

func (s boardOps) listScopes(ctx context.Context, _ *ProjectPath) (*Output[[]ScopeOut], error) {
	return listOf(scopeOut)(s.roadmaps.Scopes(ctx, accessFrom(ctx).ProjectID))
}

func (s boardOps) getScope(ctx context.Context, in *ScopePath) (*Output[ScopeOut], error) {
	return oneOf(scopeOut)(s.roadmaps.Scope(ctx, accessFrom(ctx).ProjectID, in.ScopeID))
}

// UpdateScopeInput is the request of scopes-update.
type UpdateScopeInput struct {
	ScopePath
	Body UpdateScopeInputBody
}

// UpdateScopeInputBody is the body of a UpdateScopeInput request.
type UpdateScopeInputBody struct {
	Name        Nullable[string]          `json:"name,omitempty" doc:"1 to 200 characters; not null"`
	Description Nullable[string]          `json:"description,omitempty"`
	StartDate   Nullable[time.Time]       `json:"startDate,omitempty"`
	EndDate     Nullable[time.Time]       `json:"endDate,omitempty"`
	Settings    Nullable[json.RawMessage] `json:"settings,omitempty" doc:"Free-form JSON object (at most 16 KB)"`
}

func (s boardOps) updateScope(ctx context.Context, in *UpdateScopeInput) (*Output[ScopeOut], error) {
	b := in.Body
	p := roadmap.ScopePatch{StartDate: b.StartDate.opt(), EndDate: b.EndDate.opt()}
	if b.Name.Set {
		if b.Name.Null {
			return nil, errBadRequest("name: a scope's name cannot be null")
		}
		name, err := nonBlank("name", b.Name.Value)
		if err != nil {
			return nil, err
		}
		if utf8.RuneCountInString(name) > 200 {
			return nil, errBadRequest("name: expected length <= 200")
		}
		p.Name = &name
	}
	if b.Description.Set {
		d := b.Description.Value // null empties it
		if utf8.RuneCountInString(d) > maxScopeDescription {
			return nil, errBadRequest("description: expected length <= 5000")
		}
		p.Description = &d
	}
	if b.Settings.Set {
		p.Settings = b.Settings.Value
		if b.Settings.Null {
			p.Settings = json.RawMessage(`null`) // the store empties it
		}
	}
	return oneOf(scopeOut)(s.roadmaps.UpdateScope(ctx, accessFrom(ctx).ProjectID, in.ScopeID, p))
}

func (s boardOps) deleteScope(ctx context.Context, in *ScopePath) (*OKOutput, error) {
	return done(s.roadmaps.DeleteScope(ctx, accessFrom(ctx).ProjectID, in.ScopeID))
}

func (s boardOps) getScopeViews(ctx context.Context, in *ScopePath) (*Output[ScopeViewsOut], error) {
	return oneOf(scopeViewsOut)(s.roadmaps.Scope(ctx, accessFrom(ctx).ProjectID, in.ScopeID))
}

// SetScopeViewInput is the request of scopes-views-update.
type SetScopeViewInput struct {
	ScopePath
	Body SetScopeViewInputBody
}

// SetScopeViewInputBody is the body of a SetScopeViewInput request.
type SetScopeViewInputBody struct {
	ActiveView string `json:"activeView" required:"true" enum:"kanban,list,calendar,roadmap,stats"`
}

func (s boardOps) setScopeView(ctx context.Context, in *SetScopeViewInput) (*Output[ScopeViewsOut], error) {
	return oneOf(scopeViewsOut)(s.roadmaps.SetScopeView(ctx, accessFrom(ctx).ProjectID, in.ScopeID, in.Body.ActiveView))
}

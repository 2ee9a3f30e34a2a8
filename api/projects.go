package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/auth"
)

// pathProject is the prefix of project-scoped routes.
const pathProject = pathWorkspace + "/projects/{projectId}"

// ProjectPath are the path parameters of project-scoped routes.
type ProjectPath struct {
	WorkspacePath
	ProjectID string `path:"projectId" format:"uuid"`
}

// ProjectOut is a project.
type ProjectOut struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Deadline    *time.Time `json:"deadline" nullable:"true"`
	WorkspaceID string     `json:"workspaceId"`
	TemplateID  *string    `json:"templateId" nullable:"true"`
	CreatedBy   string     `json:"createdBy"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	ArchivedAt  *time.Time `json:"archivedAt" nullable:"true" doc:"When the project was archived (read-only, left out of the default list); null while it is not"`
}

func projectOut(p db.Project) ProjectOut {
	return ProjectOut{ID: p.ID, Name: p.Name, Description: p.Description, Deadline: p.Deadline, WorkspaceID: p.WorkspaceID,
		TemplateID: p.TemplateID, CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		ArchivedAt: p.ArchivedAt}
}

// ProjectMemberOut is a member of a project.
type ProjectMemberOut struct {
	UserID  string    `json:"userId"`
	Email   string    `json:"email"`
	Name    string    `json:"name"`
	AddedAt time.Time `json:"addedAt"`
}

func projectMemberOut(m db.ProjectMember) ProjectMemberOut {
	return ProjectMemberOut{UserID: m.UserID, Email: m.Email, Name: m.Name, AddedAt: m.CreatedAt}
}

// ColumnOut is a kanban column.
type ColumnOut struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	ProjectID string    `json:"projectId"`
	Order     int32     `json:"order"`
	CreatedAt time.Time `json:"createdAt"`
}

func columnOut(c db.Column) ColumnOut {
	return ColumnOut{ID: c.ID, Name: c.Name, ProjectID: c.ProjectID, Order: c.Position, CreatedAt: c.CreatedAt}
}

var (
	projectRead  = Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}
	projectWrite = Requires{Scope: auth.ScopeProjectsWrite, WSRole: "member"}
	// cardWrite is projectWrite for card-level writes (cards and what is on them), which never change
	// tenancy.
	cardWrite = Requires{Scope: auth.ScopeProjectsWrite, WSRole: "member", KeepsTenancy: true}
	// projectAdmin is for what only a workspace admin may do to a project (delete it, archived or not).
	projectAdmin = Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin", WhileArchived: true}
	// projectArchiving is archiving and restoring a project, which its members may do.
	projectArchiving = Requires{Scope: auth.ScopeProjectsWrite, WSRole: "member", WhileArchived: true}
)

// nonBlank trims a required name and refuses it when nothing is left.
func nonBlank(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", errBadRequest(field + ": must not be blank")
	}
	return v, nil
}

// nonBlankOpt trims a given name and refuses it when nothing is left; nil stays nil.
func nonBlankOpt(field string, v *string) (*string, error) {
	if v == nil {
		return nil, nil
	}
	n, err := nonBlank(field, *v)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// registerProjects registers projects, their members and their columns.
func (s tenancyOps) registerProjects() {
	tags := []string{"Projects"}

	register(s.Server, huma.Operation{OperationID: "projects-create", Method: http.MethodPost,
		Path: pathWorkspace + "/projects", Summary: "Create a project", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "Columns (and labels) come from `templateId` (see the templates endpoint; default basic-kanban). The " +
			"creator becomes a project member."},
		projectWrite, s.createProject)

	register(s.Server, huma.Operation{OperationID: "projects-list", Method: http.MethodGet,
		Path: pathWorkspace + "/projects", Summary: "List the workspace's projects", Tags: tags},
		projectRead, s.listProjects)

	register(s.Server, huma.Operation{OperationID: "projects-templates", Method: http.MethodGet,
		Path: pathWorkspace + "/projects/templates", Summary: "List project templates", Tags: tags},
		projectRead, s.listProjectTemplates)

	register(s.Server, huma.Operation{OperationID: "projects-get", Method: http.MethodGet, Path: pathProject,
		Summary: "Get a project", Tags: tags},
		projectRead, s.getProject)

	register(s.Server, huma.Operation{OperationID: "projects-update", Method: http.MethodPatch, Path: pathProject,
		Summary: "Update a project", Tags: tags, Description: "Any subset of name, description, deadline; deadline null " +
			"clears it."},
		projectWrite, s.updateProject)

	register(s.Server, huma.Operation{OperationID: "projects-delete", Method: http.MethodDelete, Path: pathProject,
		Summary: "Delete a project and everything in it", Tags: tags,
		Description: "Workspace admins (organization owners and admins act as admins). Deletes, in one transaction, the " +
			"project's columns, cards (with their comments, attachments, checklists, relations and document links), labels, " +
			"custom fields, scopes, automation rules, activity and notifications, and its missions with their streams. " +
			"Pipeline steps waiting for one of its unsettled missions fail, and the missions' jobs are cancelled; pipelines " +
			"are not edited (a step that names the project meets a project not found). The files of its attachments are " +
			"removed from storage by the attachment sweep, enqueued at once. Its other members are notified by a " +
			"`project_deleted` activity of the workspace (meta has projectId and name). A draft that made it stays, its " +
			"projectId null."},
		projectAdmin, s.deleteProject)

	register(s.Server, huma.Operation{OperationID: "projects-archive", Method: http.MethodPost,
		Path: pathProject + "/archive", Summary: "Archive a project", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "The project stays readable (its board, cards, export) and can be restored, but leaves the default " +
			"projects list (`?archived=true` lists it) and is read-only: every other write under it answers 409 until " +
			"it is restored. Its members are told by a `project_updated` activity (meta.fields `[\"archivedAt\"]`). A " +
			"project already archived answers 409."},
		projectArchiving, s.archiveProject)

	register(s.Server, huma.Operation{OperationID: "projects-unarchive", Method: http.MethodPost,
		Path: pathProject + "/unarchive", Summary: "Restore an archived project", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: "The project is back in the default list and writable. A " +
			"project that is not archived answers 409."},
		projectArchiving, s.unarchiveProject)

	register(s.Server, huma.Operation{OperationID: "projects-members-list", Method: http.MethodGet,
		Path: pathProject + "/members", Summary: "List project members", Tags: tags},
		projectRead, s.listProjectMembers)

	register(s.Server, huma.Operation{OperationID: "projects-members-add", Method: http.MethodPost,
		Path: pathProject + "/members", Summary: "Add a workspace member to the project by e-mail", Tags: tags,
		DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict}, Description: "Someone who is not in the " +
			"workspace answers 400: invite them to the workspace first."},
		projectWrite, s.addProjectMember)

	register(s.Server, huma.Operation{OperationID: "projects-members-remove", Method: http.MethodDelete,
		Path: pathProject + "/members/{userId}", Summary: "Remove a project member", Tags: tags},
		projectWrite, s.removeProjectMember)

	ctags := []string{"Columns"}

	register(s.Server, huma.Operation{OperationID: "columns-create", Method: http.MethodPost,
		Path: pathProject + "/columns", Summary: "Add a column at the end", Tags: ctags, DefaultStatus: http.StatusCreated},
		projectWrite, s.createColumn)

	register(s.Server, huma.Operation{OperationID: "columns-list", Method: http.MethodGet, Path: pathProject + "/columns",
		Summary: "List columns by order", Tags: ctags},
		projectRead, s.listColumns)

	register(s.Server, huma.Operation{OperationID: "columns-update", Method: http.MethodPatch,
		Path:    pathProject + "/columns/{columnId}",
		Summary: "Rename or reorder a column", Tags: ctags, Description: "`order` is the 0-based place among the project's " +
			"columns; out-of-range values go to the ends."},
		projectWrite, s.updateColumn)

	register(s.Server, huma.Operation{OperationID: "columns-delete", Method: http.MethodDelete,
		Path: pathProject + "/columns/{columnId}", Summary: "Delete a column and its cards", Tags: ctags},
		projectWrite, s.deleteColumn)
}

// CreateProjectInput is the request of projects-create.
type CreateProjectInput struct {
	WorkspacePath
	Body CreateProjectInputBody
}

// CreateProjectInputBody is the body of a CreateProjectInput request.
type CreateProjectInputBody struct {
	Name        string     `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Description string     `json:"description,omitempty" maxLength:"20000"`
	Deadline    *time.Time `json:"deadline,omitempty" nullable:"true"`
	TemplateID  string     `json:"templateId,omitempty" maxLength:"100"`
}

func (s tenancyOps) createProject(ctx context.Context, in *CreateProjectInput) (*Output[ProjectOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	return oneOf(projectOut)(s.board.CreateProject(ctx, board.NewProject{WorkspaceID: accessFrom(ctx).WorkspaceID,
		Name: name, Description: in.Body.Description, Deadline: in.Body.Deadline, TemplateID: in.Body.TemplateID,
		CreatedBy: principalFrom(ctx).User.ID}))
}

// ListProjectsInput is the request of projects-list.
type ListProjectsInput struct {
	WorkspacePath
	PageQuery
	Archived string `query:"archived" enum:"false,true,all" default:"false" doc:"Which projects: those not archived (false, the default), the archived ones (true) or all"`
}

func (s tenancyOps) listProjects(ctx context.Context, in *ListProjectsInput) (*PageOutput[ProjectOut], error) {
	var archived *bool
	if in.Archived != "all" {
		a := in.Archived == "true"
		archived = &a
	}
	return pageOf(ctx, projectOut)(s.board.ProjectPage(ctx, accessFrom(ctx).WorkspaceID, archived, in.page()))
}

func (s tenancyOps) archiveProject(ctx context.Context, _ *ProjectPath) (*Output[ProjectOut], error) {
	return s.setArchived(ctx, true)
}

func (s tenancyOps) unarchiveProject(ctx context.Context, _ *ProjectPath) (*Output[ProjectOut], error) {
	return s.setArchived(ctx, false)
}

func (s tenancyOps) setArchived(ctx context.Context, archived bool) (*Output[ProjectOut], error) {
	a := accessFrom(ctx)
	return oneOf(projectOut)(s.board.SetProjectArchived(ctx, board.ProjectArchiving{WorkspaceID: a.WorkspaceID,
		ProjectID: a.ProjectID, ActorID: principalFrom(ctx).User.ID, Archived: archived}))
}

func (s tenancyOps) listProjectTemplates(ctx context.Context, _ *WorkspacePath) (*Output[[]board.Template], error) {
	return listOf(func(t board.Template) board.Template { return t })(s.board.ProjectTemplates(ctx,
		accessFrom(ctx).WorkspaceID))
}

func (s tenancyOps) getProject(ctx context.Context, _ *ProjectPath) (*Output[ProjectOut], error) {
	a := accessFrom(ctx)
	return oneOf(projectOut)(s.board.Project(ctx, a.WorkspaceID, a.ProjectID))
}

// UpdateProjectInput is the request of projects-update.
type UpdateProjectInput struct {
	ProjectPath
	Body UpdateProjectInputBody
}

// UpdateProjectInputBody is the body of a UpdateProjectInput request.
type UpdateProjectInputBody struct {
	Name        *string             `json:"name,omitempty" minLength:"1" maxLength:"200"`
	Description Nullable[string]    `json:"description,omitempty"`
	Deadline    Nullable[time.Time] `json:"deadline,omitempty"`
}

func (s tenancyOps) updateProject(ctx context.Context, in *UpdateProjectInput) (*Output[ProjectOut], error) {
	patch := board.ProjectPatch{SetDeadline: in.Body.Deadline.Set, ActorID: principalFrom(ctx).User.ID}
	if in.Body.Name != nil {
		name, err := nonBlank("name", *in.Body.Name)
		if err != nil {
			return nil, err
		}
		patch.Name = &name
	}
	if in.Body.Description.Set {
		d := in.Body.Description.Value
		if len(d) > 20000 {
			return nil, errBadRequest("description: expected length <= 20000")
		}
		patch.Description = &d
	}
	patch.Deadline = in.Body.Deadline.opt().Value
	return oneOf(projectOut)(s.board.UpdateProject(ctx, accessFrom(ctx).ProjectID, patch))
}

func (s tenancyOps) deleteProject(ctx context.Context, _ *ProjectPath) (*OKOutput, error) {
	a := accessFrom(ctx)
	return done(s.board.DeleteProject(ctx, board.ProjectDeletion{WorkspaceID: a.WorkspaceID, ProjectID: a.ProjectID,
		ActorID: principalFrom(ctx).User.ID}))
}

// ListProjectMembersInput is the request of projects-members-list.
type ListProjectMembersInput struct {
	ProjectPath
	PageQuery
}

func (s tenancyOps) listProjectMembers(ctx context.Context,
	in *ListProjectMembersInput) (*PageOutput[ProjectMemberOut], error) {
	return pageOf(ctx, projectMemberOut)(s.board.ProjectMembers(ctx, accessFrom(ctx).ProjectID, in.page()))
}

// AddProjectMemberInput is the request of projects-members-add.
type AddProjectMemberInput struct {
	ProjectPath
	Body AddProjectMemberInputBody
}

// AddProjectMemberInputBody is the body of a AddProjectMemberInput request.
type AddProjectMemberInputBody struct {
	Email string `json:"email" required:"true" format:"email" maxLength:"254"`
}

func (s tenancyOps) addProjectMember(ctx context.Context,
	in *AddProjectMemberInput) (*Output[ProjectMemberOut], error) {
	a := accessFrom(ctx)
	m, err := s.board.AddProjectMember(ctx, db.ProjectMemberAdd{WorkspaceID: a.WorkspaceID, ProjectID: a.ProjectID,
		ActorID: principalFrom(ctx).User.ID, Email: strings.TrimSpace(in.Body.Email)})
	if err != nil {
		return nil, fail(err)
	}
	return &Output[ProjectMemberOut]{Body: ProjectMemberOut{UserID: m.ID, Email: m.Email, Name: m.Name,
		AddedAt: time.Now().UTC()}}, nil
}

// ProjectMemberPath names a member of a project.
type ProjectMemberPath struct {
	ProjectPath
	UserID string `path:"userId" format:"uuid"`
}

func (s tenancyOps) removeProjectMember(ctx context.Context, in *ProjectMemberPath) (*OKOutput, error) {
	return done(s.board.RemoveProjectMember(ctx, db.ProjectMemberRemoval{ProjectID: accessFrom(ctx).ProjectID,
		ActorID: principalFrom(ctx).User.ID, UserID: in.UserID}))
}

// CreateColumnInput is the request of columns-create.
type CreateColumnInput struct {
	ProjectPath
	Body CreateColumnInputBody
}

// CreateColumnInputBody is the body of a CreateColumnInput request.
type CreateColumnInputBody struct {
	Name string `json:"name" required:"true" minLength:"1" maxLength:"100"`
}

func (s tenancyOps) createColumn(ctx context.Context, in *CreateColumnInput) (*Output[ColumnOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	return oneOf(columnOut)(s.board.CreateColumn(ctx, accessFrom(ctx).ProjectID, name))
}

func (s tenancyOps) listColumns(ctx context.Context, _ *ProjectPath) (*Output[[]ColumnOut], error) {
	return listOf(columnOut)(s.board.Columns(ctx, accessFrom(ctx).ProjectID))
}

// ColumnPath names a column.
type ColumnPath struct {
	ProjectPath
	ColumnID string `path:"columnId" format:"uuid"`
}

// UpdateColumnInput is the request of columns-update.
type UpdateColumnInput struct {
	ColumnPath
	Body UpdateColumnInputBody
}

// UpdateColumnInputBody is the body of a UpdateColumnInput request.
type UpdateColumnInputBody struct {
	Name  *string `json:"name,omitempty" minLength:"1" maxLength:"100"`
	Order *int    `json:"order,omitempty" minimum:"0" maximum:"100000"`
}

func (s tenancyOps) updateColumn(ctx context.Context, in *UpdateColumnInput) (*Output[ColumnOut], error) {
	name, err := nonBlankOpt("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	return oneOf(columnOut)(s.board.UpdateColumn(ctx, accessFrom(ctx).ProjectID, in.ColumnID, name, in.Body.Order))
}

func (s tenancyOps) deleteColumn(ctx context.Context, in *ColumnPath) (*OKOutput, error) {
	return done(s.board.DeleteColumn(ctx, accessFrom(ctx).ProjectID, in.ColumnID))
}

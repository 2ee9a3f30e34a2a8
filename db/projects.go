package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// Template is a built-in starting point for a project.
type Template struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Columns     []string        `json:"columns"`
	Labels      []TemplateLabel `json:"labels"`
}

// TemplateLabel is a label a template creates.
type TemplateLabel struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// DefaultTemplateID is used when a project is created without a template.
const DefaultTemplateID = "basic-kanban"

// Templates are the built-in project templates.
var Templates = []Template{
	{ID: "basic-kanban", Name: "Basic kanban", Description: "To do, in progress, done.",
		Columns: []string{"To Do", "In Progress", "Done"}},
	{ID: "scrum", Name: "Scrum", Description: "A backlog, a sprint and a review step.",
		Columns: []string{"Backlog", "Sprint Backlog", "In Progress", "In Review", "Done"},
		Labels:  []TemplateLabel{{"Bug", "#d73a4a"}, {"Story", "#0e8a16"}, {"Spike", "#5319e7"}}},
	{ID: "product-launch", Name: "Product launch", Description: "From idea to launch and what follows.",
		Columns: []string{"Ideas", "Planning", "Building", "Launch", "Post-launch"},
		Labels:  []TemplateLabel{{"Marketing", "#fbca04"}, {"Engineering", "#1d76db"}, {"Design", "#c5def5"}}},
	{ID: "empty", Name: "Empty", Description: "No columns; build your own board."},
}

// TemplateByID finds a built-in template.
func TemplateByID(id string) (Template, bool) {
	for _, t := range Templates {
		if t.ID == id {
			return t, true
		}
	}
	return Template{}, false
}

// NewProject is a project to create.
type NewProject struct {
	WorkspaceID, Name, Description, TemplateID, CreatedBy string
	Deadline                                              *time.Time
}

// CreateProject creates a project from a template (columns and labels); its creator becomes a member.
func (s *Store) CreateProject(ctx context.Context, in NewProject) (Project, error) {
	var p Project
	err := s.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		var err error
		p, err = s.CreateProjectTx(ctx, tx, in)
		return err
	})
	return p, err
}

// CreateProjectTx is CreateProject in the caller's transaction (a draft's execution).
func (s *Store) CreateProjectTx(ctx context.Context, tx pgx.Tx, in NewProject) (Project, error) {
	if in.TemplateID == "" {
		in.TemplateID = DefaultTemplateID
	}
	tmpl, err := s.projectTemplate(ctx, in.WorkspaceID, in.TemplateID)
	if err != nil {
		return Project{}, err
	}
	q := queries(tx)
	p, err := q.ProjectInsert(ctx, dbsqlc.ProjectInsertParams{ID: NewID(), WorkspaceID: in.WorkspaceID, Name: in.Name,
		Description: in.Description, Deadline: in.Deadline, TemplateID: &tmpl.ID, CreatedBy: in.CreatedBy})
	if err != nil {
		return Project(p), fmt.Errorf("insert project: %w", err)
	}
	if _, err := q.ProjectMemberAdd(ctx, dbsqlc.ProjectMemberAddParams{ProjectID: p.ID, UserID: in.CreatedBy}); err != nil {
		return Project(p), fmt.Errorf("add project creator: %w", err)
	}
	for _, name := range tmpl.Columns {
		if _, err := q.ColumnInsert(ctx, dbsqlc.ColumnInsertParams{ID: NewID(), ProjectID: p.ID, Name: name}); err != nil {
			return Project(p), fmt.Errorf("insert template column: %w", err)
		}
	}
	for _, l := range tmpl.Labels {
		if _, err := q.LabelInsert(ctx, dbsqlc.LabelInsertParams{ID: NewID(), ProjectID: p.ID, Name: l.Name, Color: l.Color}); err != nil {
			return Project(p), fmt.Errorf("insert template label: %w", err)
		}
	}
	return Project(p), nil
}

// Projects lists a workspace's projects.
func (s *Store) Projects(ctx context.Context, workspaceID string) ([]Project, error) {
	ps, err := s.q.ProjectListByWorkspace(ctx, workspaceID)
	return mapRows(ps, func(r dbsqlc.Project) Project { return Project(r) }), wrap(err, "list projects")
}

// ProjectPage is one page of a workspace's projects, oldest first.
func (s *Store) ProjectPage(ctx context.Context, workspaceID string, p Page) (Paged[Project], error) {
	k, err := p.AfterTime("projects", false)
	if err != nil {
		return Paged[Project]{}, err
	}
	ps, err := s.q.ProjectPageByWorkspace(ctx, dbsqlc.ProjectPageByWorkspaceParams{WorkspaceID: workspaceID, AfterAt: k.At, AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return Paged[Project]{}, wrap(err, "list projects")
	}
	return PageOf(p, "projects", mapRows(ps, func(r dbsqlc.Project) Project { return Project(r) }),
		func(r Project) any { return TimeKey{At: r.CreatedAt, ID: r.ID} }), nil
}

// Project reads a project of a workspace; a project of another workspace is not found.
func (s *Store) Project(ctx context.Context, workspaceID, projectID string) (Project, error) {
	r, err := orNotFound(s.q.ProjectGet(ctx, dbsqlc.ProjectGetParams{ID: projectID, WorkspaceID: workspaceID}))("project not found", "get project")
	return Project(r), err
}

// ProjectPatch lists the fields to change; nil leaves a field alone. SetDeadline with a nil Deadline
// clears it.
type ProjectPatch struct {
	Name, Description *string
	SetDeadline       bool
	Deadline          *time.Time
}

// UpdateProject changes a project's fields.
func (s *Store) UpdateProject(ctx context.Context, projectID string, p ProjectPatch) (Project, error) {
	out, err := s.q.ProjectUpdate(ctx, dbsqlc.ProjectUpdateParams{ID: projectID, Name: p.Name, Description: p.Description,
		SetDeadline: p.SetDeadline, Deadline: p.Deadline})
	return Project(out), wrap(err, "update project")
}

// ProjectMembers is one page of a project's members, by the time they were added.
func (s *Store) ProjectMembers(ctx context.Context, projectID string, p Page) (Paged[ProjectMember], error) {
	k, err := p.AfterMember("project-members")
	if err != nil {
		return Paged[ProjectMember]{}, err
	}
	rows, err := s.q.ProjectMemberList(ctx, dbsqlc.ProjectMemberListParams{ProjectID: projectID, AfterAt: k.At, AfterEmail: k.Email, Lim: p.Fetch()})
	if err != nil {
		return Paged[ProjectMember]{}, wrap(err, "list project members")
	}
	return PageOf(p, "project-members", mapRows(rows, func(r dbsqlc.ProjectMemberListRow) ProjectMember { return ProjectMember(r) }),
		func(m ProjectMember) any { return MemberKey{At: m.CreatedAt, Email: m.Email} }), nil
}

// AddProjectMember adds a workspace member, found by e-mail, to a project and records member_added.
func (s *Store) AddProjectMember(ctx context.Context, in ProjectMemberAdd) (UserRef, error) {
	var m UserRef
	err := s.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		var added bool
		var err error
		m, added, err = s.AddProjectMemberTx(ctx, tx, in)
		if err == nil && !added {
			return conflict("this user is already a member of the project")
		}
		return err
	})
	return m, err
}

// AddProjectMemberTx is AddProjectMember in the caller's transaction; added is false (and nothing is
// recorded) when the user already was a member. Someone who is not a workspace member is ErrInvalid.
func (s *Store) AddProjectMemberTx(ctx context.Context, tx pgx.Tx, in ProjectMemberAdd) (m UserRef, added bool, err error) {
	workspaceID, projectID, actorID, email := in.WorkspaceID, in.ProjectID, in.ActorID, in.Email
	q := queries(tx)
	row, err := q.WorkspaceMemberByEmail(ctx, dbsqlc.WorkspaceMemberByEmailParams{WorkspaceID: workspaceID, Email: email})
	if isNotFound(err) {
		return m, false, invalid("no workspace member has this e-mail; invite them to the workspace first")
	}
	if err != nil {
		return m, false, fmt.Errorf("find workspace member: %w", err)
	}
	m = UserRef(row)
	n, err := q.ProjectMemberAdd(ctx, dbsqlc.ProjectMemberAddParams{ProjectID: projectID, UserID: m.ID})
	if err != nil {
		return m, false, fmt.Errorf("add project member: %w", err)
	}
	if n == 0 {
		return m, false, nil
	}
	return m, true, s.core.RecordActivities(ctx, tx, Activity{ProjectID: projectID, ActorID: actorID, Type: ActivityMemberAdded,
		Meta: map[string]any{"userId": m.ID, "email": m.Email}, Recipients: []string{m.ID}})
}

// RemoveProjectMember removes a member from a project and records member_removed.
func (s *Store) RemoveProjectMember(ctx context.Context, m ProjectMemberRemoval) error {
	return s.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		removed, err := s.RemoveProjectMemberTx(ctx, tx, m)
		if err == nil && !removed {
			return notFound("project member not found")
		}
		return err
	})
}

// RemoveProjectMemberTx is RemoveProjectMember in the caller's transaction (a member leaving a
// workspace or an organization); removed is false (and nothing is recorded) when the user was no member.
func (s *Store) RemoveProjectMemberTx(ctx context.Context, tx pgx.Tx, m ProjectMemberRemoval) (removed bool, err error) {
	projectID, actorID, userID := m.ProjectID, m.ActorID, m.UserID
	n, err := queries(tx).ProjectMemberRemove(ctx, dbsqlc.ProjectMemberRemoveParams{ProjectID: projectID, UserID: userID})
	if err != nil {
		return false, fmt.Errorf("remove project member: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	return true, s.core.RecordActivities(ctx, tx, Activity{ProjectID: projectID, ActorID: actorID, Type: ActivityMemberRemoved,
		Meta: map[string]any{"userId": userID}, Recipients: []string{userID}})
}

// ProjectDeletion deletes ProjectID of WorkspaceID, as ActorID.
type ProjectDeletion struct{ WorkspaceID, ProjectID, ActorID string }

// DeleteProject deletes a project with everything in it, in one transaction (DeleteProjectTx).
func (s *Store) DeleteProject(ctx context.Context, d ProjectDeletion) error {
	return s.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error { return s.DeleteProjectTx(ctx, tx, d) })
}

// DeleteProjectTx deletes a project of a workspace in the caller's transaction; a project of another
// workspace is not found. Every table under the project cascades from it (columns, cards with their
// comments, attachments, checklists, relations and document links, labels, custom fields, scopes,
// automation rules, its activities and notifications, its missions with their streams). Besides:
//
//   - each of its missions that has not settled has its job cancelled, and the pipeline steps waiting
//     for it fail in this transaction ("the mission's project was deleted"), so no run waits forever;
//   - when its cards had attachments, an attachment sweep is enqueued: the files of the deleted
//     attachments (recorded by the attachments_file_orphaned trigger) leave storage without waiting
//     for the periodic sweep;
//   - its members but the actor are told by a workspace-level project_deleted activity (the project's
//     own activities go with it).
//
// A draft that made the project keeps existing (its projectId becomes null).
func (s *Store) DeleteProjectTx(ctx context.Context, tx pgx.Tx, d ProjectDeletion) error {
	q := queries(tx)
	if _, err := orNotFound(q.ProjectGet(ctx, dbsqlc.ProjectGetParams{ID: d.ProjectID, WorkspaceID: d.WorkspaceID}))("project not found", "get project"); err != nil {
		return err
	}
	members, err := q.ProjectMemberIDs(ctx, d.ProjectID)
	if err != nil {
		return fmt.Errorf("list project members: %w", err)
	}
	missions, err := q.MissionsUnfinishedByProject(ctx, &d.ProjectID)
	if err != nil {
		return fmt.Errorf("list unfinished missions: %w", err)
	}
	for _, m := range missions {
		if m.JobID != nil {
			if _, err := s.core.River.JobCancelTx(ctx, tx, *m.JobID); err != nil && !errors.Is(err, river.ErrNotFound) {
				return fmt.Errorf("cancel mission job: %w", err)
			}
		}
		if err := s.core.WaitFinishedTx(ctx, tx, "mission:"+m.ID, map[string]any{"status": "deleted"}, "the mission's project was deleted"); err != nil {
			return err
		}
	}
	files, err := q.AttachmentsExistInProject(ctx, d.ProjectID)
	if err != nil {
		return fmt.Errorf("check attachments: %w", err)
	}
	p, err := orNotFound(q.ProjectDelete(ctx, dbsqlc.ProjectDeleteParams{ID: d.ProjectID, WorkspaceID: d.WorkspaceID}))("project not found", "delete project")
	if err != nil {
		return err
	}
	if files {
		if err := s.core.Enqueue(ctx, tx, []river.InsertManyParams{{Args: jobs.AttachmentSweepArgs{}}}); err != nil {
			return err
		}
	}
	recipients := make([]string, 0, len(members))
	for _, m := range members {
		if m != d.ActorID {
			recipients = append(recipients, m)
		}
	}
	if len(recipients) == 0 {
		return nil
	}
	return s.core.RecordActivities(ctx, tx, Activity{WorkspaceID: d.WorkspaceID, ActorID: d.ActorID, Type: ActivityProjectDeleted,
		Meta: map[string]any{"projectId": p.ID, "name": p.Name}, Recipients: recipients, OnlyRecipients: true})
}

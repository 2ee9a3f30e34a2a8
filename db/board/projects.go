package board

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// NewProject is a project to create.
type NewProject struct {
	WorkspaceID, Name, Description, TemplateID, CreatedBy string
	Deadline                                              *time.Time
}

// CreateProject creates a project from a template (columns and labels); its creator becomes a member.
func (b *Engine) CreateProject(ctx context.Context, in NewProject) (db.Project, error) {
	var p db.Project
	err := b.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		var err error
		p, err = b.CreateProjectTx(ctx, tx, in)
		return err
	})
	return p, err
}

// CreateProjectTx is CreateProject in the caller's transaction (a draft's execution).
func (b *Engine) CreateProjectTx(ctx context.Context, tx pgx.Tx, in NewProject) (db.Project, error) {
	if in.TemplateID == "" {
		in.TemplateID = DefaultTemplateID
	}
	tmpl, err := b.projectTemplate(ctx, in.WorkspaceID, in.TemplateID)
	if err != nil {
		return db.Project{}, err
	}
	q := dbcore.Queries(tx)
	p, err := q.ProjectInsert(ctx, dbsqlc.ProjectInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID, Name: in.Name,
		Description: in.Description, Deadline: in.Deadline, TemplateID: &tmpl.ID, CreatedBy: in.CreatedBy})
	if err != nil {
		return db.Project(p), fmt.Errorf("insert project: %w", err)
	}
	if _, err := q.ProjectMemberAdd(ctx, dbsqlc.ProjectMemberAddParams{ProjectID: p.ID,
		UserID: in.CreatedBy}); err != nil {
		return db.Project(p), fmt.Errorf("add project creator: %w", err)
	}
	for _, name := range tmpl.Columns {
		if _, err := q.ColumnInsert(ctx, dbsqlc.ColumnInsertParams{ID: db.NewID(), ProjectID: p.ID, Name: name}); err != nil {
			return db.Project(p), fmt.Errorf("insert template column: %w", err)
		}
	}
	for _, l := range tmpl.Labels {
		if _, err := q.LabelInsert(ctx, dbsqlc.LabelInsertParams{ID: db.NewID(), ProjectID: p.ID, Name: l.Name,
			Color: l.Color}); err != nil {
			return db.Project(p), fmt.Errorf("insert template label: %w", err)
		}
	}
	return db.Project(p), b.core.RecordQuietActivities(ctx, tx, db.Activity{ProjectID: p.ID, ActorID: in.CreatedBy,
		Type: db.ActivityProjectCreated, Meta: map[string]any{"name": p.Name}})
}

// Projects lists a workspace's projects.
func (b *Engine) Projects(ctx context.Context, workspaceID string) ([]db.Project, error) {
	ps, err := b.q.ProjectListByWorkspace(ctx, workspaceID)
	return dbcore.MapRows(ps, func(r dbsqlc.Project) db.Project { return db.Project(r) }), dbcore.Wrap(err,
		"list projects")
}

// ProjectPage is one page of a workspace's projects, oldest first: all of them when archived is nil,
// else the archived ones (true) or the others (false).
func (b *Engine) ProjectPage(ctx context.Context, workspaceID string, archived *bool,
	p db.Page) (db.Paged[db.Project], error) {
	k, err := p.AfterTime("projects", false)
	if err != nil {
		return db.Paged[db.Project]{}, err
	}
	ps, err := b.q.ProjectPageByWorkspace(ctx, dbsqlc.ProjectPageByWorkspaceParams{WorkspaceID: workspaceID, AfterAt: k.At,
		AfterID: k.ID, Archived: archived, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.Project]{}, dbcore.Wrap(err, "list projects")
	}
	return db.PageOf(p, "projects", dbcore.MapRows(ps, func(r dbsqlc.Project) db.Project { return db.Project(r) }),
		func(r db.Project) any { return db.TimeKey{At: r.CreatedAt, ID: r.ID} }), nil
}

// Project reads a project of a workspace; a project of another workspace is not found.
func (b *Engine) Project(ctx context.Context, workspaceID, projectID string) (db.Project, error) {
	r, err := dbcore.OrNotFound(b.q.ProjectGet(ctx, dbsqlc.ProjectGetParams{ID: projectID,
		WorkspaceID: workspaceID}))("project not found", "get project")
	return db.Project(r), err
}

// ProjectPatch lists the fields to change; nil leaves a field alone. SetDeadline with a nil Deadline
// clears it. ActorID is who changes them (the project_updated activity's actor).
type ProjectPatch struct {
	Name, Description *string
	SetDeadline       bool
	Deadline          *time.Time
	ActorID           string
}

// UpdateProject changes a project's fields and records project_updated (meta.fields) for the feed.
func (b *Engine) UpdateProject(ctx context.Context, projectID string, p ProjectPatch) (db.Project, error) {
	var out dbsqlc.Project
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = q.ProjectUpdate(ctx, dbsqlc.ProjectUpdateParams{ID: projectID, Name: p.Name, Description: p.Description,
			SetDeadline: p.SetDeadline, Deadline: p.Deadline})
		if err != nil {
			return dbcore.Wrap(err, "update project")
		}
		var fields []string
		for name, set := range map[string]bool{"name": p.Name != nil, "description": p.Description != nil,
			"deadline": p.SetDeadline} {
			if set {
				fields = append(fields, name)
			}
		}
		slices.Sort(fields)
		return b.core.RecordQuietActivities(ctx, tx, db.Activity{ProjectID: projectID, ActorID: p.ActorID,
			Type: db.ActivityProjectUpdated, Meta: map[string]any{"fields": dbcore.OrEmpty(fields)}})
	})
	return db.Project(out), err
}

// ProjectArchiving archives a project or restores it (Archived false). ActorID is who does it.
type ProjectArchiving struct {
	WorkspaceID, ProjectID, ActorID string
	Archived                        bool
}

// SetProjectArchived archives a project (it stays readable and restorable; the api refuses writes to
// it while it is archived) or restores it, and records project_updated (meta.fields ["archivedAt"]). A
// project already in that state is a conflict, one of another workspace not found.
func (b *Engine) SetProjectArchived(ctx context.Context, in ProjectArchiving) (db.Project, error) {
	var out dbsqlc.Project
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = q.ProjectSetArchived(ctx, dbsqlc.ProjectSetArchivedParams{ID: in.ProjectID, WorkspaceID: in.WorkspaceID,
			Archived: in.Archived})
		if dbcore.IsNotFound(err) {
			if _, err := b.Project(ctx, in.WorkspaceID, in.ProjectID); err != nil {
				return err
			}
			if in.Archived {
				return dbcore.Conflict("this project is already archived")
			}
			return dbcore.Conflict("this project is not archived")
		}
		if err != nil {
			return dbcore.Wrap(err, "archive project")
		}
		return b.core.RecordQuietActivities(ctx, tx, db.Activity{ProjectID: in.ProjectID, ActorID: in.ActorID,
			Type: db.ActivityProjectUpdated, Meta: map[string]any{"fields": []string{"archivedAt"}}})
	})
	return db.Project(out), err
}

// ProjectMembers is one page of a project's members, by the time they were added.
func (b *Engine) ProjectMembers(ctx context.Context, projectID string, p db.Page) (db.Paged[db.ProjectMember], error) {
	k, err := p.AfterMember("project-members")
	if err != nil {
		return db.Paged[db.ProjectMember]{}, err
	}
	rows, err := b.q.ProjectMemberList(ctx, dbsqlc.ProjectMemberListParams{ProjectID: projectID, AfterAt: k.At,
		AfterEmail: k.Email, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.ProjectMember]{}, dbcore.Wrap(err, "list project members")
	}
	return db.PageOf(p, "project-members", dbcore.MapRows(rows,
		func(r dbsqlc.ProjectMemberListRow) db.ProjectMember { return db.ProjectMember(r) }),
		func(m db.ProjectMember) any { return db.MemberKey{At: m.CreatedAt, Email: m.Email} }), nil
}

// AddProjectMember adds a workspace member, found by e-mail, to a project and records member_added.
func (b *Engine) AddProjectMember(ctx context.Context, in db.ProjectMemberAdd) (db.UserRef, error) {
	var m db.UserRef
	err := b.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		var added bool
		var err error
		m, added, err = b.AddProjectMemberTx(ctx, tx, in)
		if err == nil && !added {
			return dbcore.Conflict("this user is already a member of the project")
		}
		return err
	})
	return m, err
}

// AddProjectMemberTx is AddProjectMember in the caller's transaction; added is false (and nothing is
// recorded) when the user already was a member. Someone who is not a workspace member is ErrInvalid.
func (b *Engine) AddProjectMemberTx(ctx context.Context, tx pgx.Tx,
	in db.ProjectMemberAdd) (m db.UserRef, added bool, err error) {
	workspaceID, projectID, actorID, email := in.WorkspaceID, in.ProjectID, in.ActorID, in.Email
	q := dbcore.Queries(tx)
	row, err := q.WorkspaceMemberByEmail(ctx, dbsqlc.WorkspaceMemberByEmailParams{WorkspaceID: workspaceID, Email: email})
	if dbcore.IsNotFound(err) {
		return m, false, dbcore.Invalid("no workspace member has this e-mail; invite them to the workspace first")
	}
	if err != nil {
		return m, false, fmt.Errorf("find workspace member: %w", err)
	}
	m = db.UserRef(row)
	n, err := q.ProjectMemberAdd(ctx, dbsqlc.ProjectMemberAddParams{ProjectID: projectID, UserID: m.ID})
	if err != nil {
		return m, false, fmt.Errorf("add project member: %w", err)
	}
	if n == 0 {
		return m, false, nil
	}
	return m, true, b.core.RecordActivities(ctx, tx, db.Activity{ProjectID: projectID, ActorID: actorID,
		Type: db.ActivityMemberAdded, Meta: map[string]any{"userId": m.ID, "email": m.Email}, Recipients: []string{m.ID}})
}

// RemoveProjectMember removes a member from a project and records member_removed.
func (b *Engine) RemoveProjectMember(ctx context.Context, m db.ProjectMemberRemoval) error {
	return b.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		removed, err := b.RemoveProjectMemberTx(ctx, tx, m)
		if err == nil && !removed {
			return dbcore.NotFound("project member not found")
		}
		return err
	})
}

// RemoveProjectMemberTx is RemoveProjectMember in the caller's transaction (a member leaving a
// workspace or an organization); removed is false (and nothing is recorded) when the user was no member.
func (b *Engine) RemoveProjectMemberTx(ctx context.Context, tx pgx.Tx,
	m db.ProjectMemberRemoval) (removed bool, err error) {
	projectID, actorID, userID := m.ProjectID, m.ActorID, m.UserID
	n, err := dbcore.Queries(tx).ProjectMemberRemove(ctx, dbsqlc.ProjectMemberRemoveParams{ProjectID: projectID,
		UserID: userID})
	if err != nil {
		return false, fmt.Errorf("remove project member: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	return true, b.core.RecordActivities(ctx, tx, db.Activity{ProjectID: projectID, ActorID: actorID,
		Type: db.ActivityMemberRemoved, Meta: map[string]any{"userId": userID}, Recipients: []string{userID}})
}

// ProjectDeletion deletes ProjectID of WorkspaceID, as ActorID.
type ProjectDeletion struct{ WorkspaceID, ProjectID, ActorID string }

// DeleteProject deletes a project with everything in it, in one transaction (DeleteProjectTx).
func (b *Engine) DeleteProject(ctx context.Context, d ProjectDeletion) error {
	return b.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error { return b.DeleteProjectTx(ctx, tx, d) })
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
func (b *Engine) DeleteProjectTx(ctx context.Context, tx pgx.Tx, d ProjectDeletion) error {
	q := dbcore.Queries(tx)
	if _, err := dbcore.OrNotFound(q.ProjectGet(ctx, dbsqlc.ProjectGetParams{ID: d.ProjectID,
		WorkspaceID: d.WorkspaceID}))("project not found", "get project"); err != nil {
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
			if _, err := b.core.River.JobCancelTx(ctx, tx, *m.JobID); err != nil && !errors.Is(err, river.ErrNotFound) {
				return fmt.Errorf("cancel mission job: %w", err)
			}
		}
		if err := b.waits.WaitFinishedTx(ctx, tx, "mission:"+m.ID, map[string]any{"status": "deleted"}, "the mission's "+
			"project was deleted"); err != nil {
			return err
		}
	}
	files, err := q.AttachmentsExistInProject(ctx, d.ProjectID)
	if err != nil {
		return fmt.Errorf("check attachments: %w", err)
	}
	p, err := dbcore.OrNotFound(q.ProjectDelete(ctx, dbsqlc.ProjectDeleteParams{ID: d.ProjectID,
		WorkspaceID: d.WorkspaceID}))("project not found", "delete project")
	if err != nil {
		return err
	}
	if files {
		if err := b.core.Enqueue(ctx, tx, []river.InsertManyParams{{Args: jobs.AttachmentSweepArgs{}}}); err != nil {
			return err
		}
	}
	if err := b.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditProjectDeleted, WorkspaceID: d.WorkspaceID,
		ActorID: d.ActorID, Target: db.AuditTarget{Type: "project", ID: p.ID, Name: p.Name},
		Changes: map[string]any{"before": map[string]any{"name": p.Name, "description": p.Description}}}); err != nil {
		return err
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
	return b.core.RecordActivities(ctx, tx, db.Activity{WorkspaceID: d.WorkspaceID, ActorID: d.ActorID,
		Type: db.ActivityProjectDeleted, Meta: map[string]any{"projectId": p.ID, "name": p.Name}, Recipients: recipients,
		OnlyRecipients: true})
}

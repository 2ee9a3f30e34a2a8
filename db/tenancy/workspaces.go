package tenancy

// This file changes and deletes workspaces (creating one is in tenancy.go).

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// WorkspacePatch is a change of a workspace: a nil field stays as it is.
type WorkspacePatch struct{ Name, Slug *string }

// UpdateWorkspace renames a workspace and/or changes its slug. A slug taken in the organization is a
// conflict (ErrConflict); a personal workspace keeps its slug (ErrForbidden: its URL is the one every
// user's own work lives at), though it may be renamed.
func (e *Engine) UpdateWorkspace(ctx context.Context, wsID string, p WorkspacePatch) (db.Workspace, error) {
	var out db.Workspace
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		ws, err := dbcore.OrNotFound(q.WorkspaceGetByID(ctx, wsID))("workspace not found", "get workspace")
		if err != nil {
			return err
		}
		if p.Slug != nil && *p.Slug != ws.Slug && ws.IsPersonal {
			return dbcore.Forbidden("a personal workspace's slug cannot change")
		}
		row, err := q.WorkspaceUpdate(ctx, dbsqlc.WorkspaceUpdateParams{ID: wsID, Name: p.Name, Slug: p.Slug})
		if dbcore.IsUnique(err, "") {
			return dbcore.Conflict(fmt.Sprintf("workspace slug %q is already taken in this organization", *p.Slug))
		}
		if err != nil {
			return fmt.Errorf("update workspace: %w", err)
		}
		out = db.Workspace(row)
		return nil
	})
	return out, err
}

// DeleteWorkspace removes a workspace and everything in it in one transaction: every table under it
// cascades (projects with all they hold, documents, agents and skills with their missions, pipelines
// and their runs, pilotage records, drafts, memberships, invitations, workspace activities and their
// streams). Besides:
//
//   - the e-mails of its pending invitations are cancelled: an invitation to a workspace that no
//     longer exists must not go out;
//   - the jobs of its unsettled missions and of its running runs' steps are cancelled (a job that
//     already started finds its row gone and stops);
//   - when its cards had attachments, an attachment sweep is enqueued to remove their files;
//   - its agents' service users lose their membership with it and stay, as when an agent is deleted
//     (the cards and comments they wrote elsewhere keep their author).
//
// A personal workspace cannot be deleted (ErrConflict), as its personal organization cannot.
func (e *Engine) DeleteWorkspace(ctx context.Context, wsID string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		ws, err := dbcore.OrNotFound(q.WorkspaceGetByID(ctx, wsID))("workspace not found", "get workspace")
		if err != nil {
			return err
		}
		if ws.IsPersonal {
			return dbcore.Conflict("a personal workspace cannot be deleted")
		}
		invitations, err := q.InvitationEmailJobsByWorkspace(ctx, wsID)
		if err != nil {
			return fmt.Errorf("list invitation e-mails: %w", err)
		}
		missions, err := q.MissionJobsUnfinishedByWorkspace(ctx, wsID)
		if err != nil {
			return fmt.Errorf("list mission jobs: %w", err)
		}
		steps, err := q.RunStepJobsRunningByWorkspace(ctx, wsID)
		if err != nil {
			return fmt.Errorf("list run step jobs: %w", err)
		}
		for _, id := range append(append(invitations, missions...), steps...) {
			if _, err := e.core.River.JobCancelTx(ctx, tx, id); err != nil && !errors.Is(err, river.ErrNotFound) {
				return fmt.Errorf("cancel job: %w", err)
			}
		}
		files, err := q.AttachmentsExistInWorkspace(ctx, wsID)
		if err != nil {
			return fmt.Errorf("check attachments: %w", err)
		}
		n, err := q.WorkspaceDelete(ctx, wsID)
		if err != nil {
			return fmt.Errorf("delete workspace: %w", err)
		}
		if n == 0 {
			return dbcore.NotFound("workspace not found")
		}
		if err := e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditWorkspaceDeleted, OrganizationID: ws.OrganizationID,
			WorkspaceID: wsID, Target: db.AuditTarget{Type: "workspace", ID: wsID, Name: ws.Name},
			Changes: map[string]any{"before": map[string]string{"name": ws.Name, "slug": ws.Slug}}}); err != nil {
			return err
		}
		if files {
			return e.core.Enqueue(ctx, tx, []river.InsertManyParams{{Args: jobs.AttachmentSweepArgs{}}})
		}
		return nil
	})
}

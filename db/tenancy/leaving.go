package tenancy

// This file is what leaving means: a member removed from an organization or a workspace keeps nothing
// there that acts or listens in their name. The agent missions they started there are cancelled, their
// automation rules in its projects disabled (its admins are told), their project memberships and card
// assignments in its projects go, the pipeline runs they started there are cancelled, and their open
// streams end, in the transaction that removes the membership (docs/decisions.md, "Leaving").

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/pipeline"
)

// OrgMemberRemoval removes UserID from an organization, as ActorID (an admin, or the member themselves).
type OrgMemberRemoval struct{ OrgID, UserID, ActorID string }

// WorkspaceMemberRemoval removes UserID from a workspace, as ActorID (an admin, or the member themselves).
type WorkspaceMemberRemoval struct{ WorkspaceID, UserID, ActorID string }

// RemoveWorkspaceMember removes a member from a workspace, with what leaving it means (leaveTx), in one
// transaction. The workspace owner cannot be removed (ErrForbidden); nor can an owner or admin of its
// organization (ErrConflict), who acts as admin in every workspace of it, member or not: removing the
// membership would leave them their access, so their organization role is what to change.
func (e *Engine) RemoveWorkspaceMember(ctx context.Context, m WorkspaceMemberRemoval) error {
	wsID, userID := m.WorkspaceID, m.UserID
	var missions []db.RecordEdit
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		ws, err := q.WorkspaceGetByID(ctx, wsID)
		if err != nil {
			return dbcore.Wrap(err, "get workspace")
		}
		member, err := q.WorkspaceMemberGet(ctx, dbsqlc.WorkspaceMemberGetParams{WorkspaceID: wsID, UserID: userID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("member not found")
		} else if err != nil {
			return fmt.Errorf("get workspace member: %w", err)
		}
		if ws.OwnerID == userID {
			return dbcore.Forbidden("the workspace owner cannot be removed from the workspace")
		}
		om, err := q.OrganizationMemberGet(ctx, dbsqlc.OrganizationMemberGetParams{OrganizationID: ws.OrganizationID,
			UserID: userID})
		if err != nil && !dbcore.IsNotFound(err) {
			return fmt.Errorf("get organization member: %w", err)
		}
		if err == nil && (om.Role == "owner" || om.Role == "admin") {
			return dbcore.Conflict("an organization " + om.Role + " acts as admin in every workspace of the organization; " +
				"change their organization role, or remove them from the organization")
		}
		if err := q.WorkspaceMemberRemove(ctx, dbsqlc.WorkspaceMemberRemoveParams{WorkspaceID: wsID,
			UserID: userID}); err != nil {
			return fmt.Errorf("delete workspace member: %w", err)
		}
		if err := e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditMemberRemoved, OrganizationID: ws.OrganizationID,
			WorkspaceID: wsID, ActorID: m.ActorID, Target: db.AuditTarget{Type: "user", ID: userID, Name: member.Email},
			Changes: map[string]any{"before": map[string]string{"role": member.Role}}}); err != nil {
			return err
		}
		missions, err = e.leaveTx(ctx, tx, leaving{WorkspaceIDs: []string{wsID}, UserID: userID, ActorID: m.ActorID})
		return err
	})
	if err != nil {
		return err
	}
	return e.afterLeaving(ctx, missions)
}

// leaving names a user who leaves some workspaces, and who removes them.
type leaving struct {
	WorkspaceIDs    []string
	UserID, ActorID string
}

// leaveTx applies, in the caller's transaction (the one that removed the membership), what leaving the
// workspaces means for the user:
//
//   - the agent missions they started there (queued, running or awaiting approval; not a pipeline's)
//     are cancelled through the mission engine's cancel, so their streams end with their final status;
//   - the automation rules they created in those workspaces' projects, which act as their creator, are
//     disabled, and each workspace's admins are told (an automation_rules_disabled activity);
//   - each card of their projects assigned to them is unassigned through the store's card update (a
//     card_assigned activity with a null assigneeId, its counters, triggers and automation jobs, as
//     when a person unassigns it);
//   - they leave each of their projects, with a member_removed activity, as the project's member
//     removal records;
//   - the pipeline runs they started there are cancelled (their steps would act in their name);
//   - their open streams are told to end (pilot_sessions, 'u:<user id>', at the commit): each client
//     reconnects and the guard checks its access again.
//
// Missions are locked before cards, the order a mission's steps take them, and cards before runs, the
// order a pipeline step takes them. It answers the missions the cancelled runs were waiting for, for
// afterLeaving.
func (e *Engine) leaveTx(ctx context.Context, tx pgx.Tx, l leaving) ([]db.RecordEdit, error) {
	q := dbcore.Queries(tx)
	if _, err := e.missions.CancelMissionsCreatedByTx(ctx, tx, mission.MissionsOf{WorkspaceIDs: l.WorkspaceIDs,
		CreatorID: l.UserID, ActorID: l.ActorID}); err != nil {
		return nil, err
	}
	if _, err := e.automations.DisableRulesCreatedByTx(ctx, tx, automation.RulesOf{WorkspaceIDs: l.WorkspaceIDs,
		CreatorID: l.UserID, ActorID: l.ActorID}); err != nil {
		return nil, err
	}
	cards, err := q.CardsAssignedInWorkspaces(ctx, dbsqlc.CardsAssignedInWorkspacesParams{WorkspaceIds: l.WorkspaceIDs,
		UserID: &l.UserID})
	if err != nil {
		return nil, fmt.Errorf("list assigned cards: %w", err)
	}
	for _, c := range cards {
		if _, err := e.board.UpdateCardTx(ctx, tx, board.CardUpdate{WorkspaceID: c.WorkspaceID, ProjectID: c.ProjectID,
			CardID: c.ID, ActorID: l.ActorID, Patch: board.CardPatch{AssigneeID: db.Opt[string]{Set: true}}}); err != nil {
			return nil, fmt.Errorf("unassign card: %w", err)
		}
	}
	projects, err := q.ProjectIDsOfMemberInWorkspaces(ctx,
		dbsqlc.ProjectIDsOfMemberInWorkspacesParams{WorkspaceIds: l.WorkspaceIDs, UserID: l.UserID})
	if err != nil {
		return nil, fmt.Errorf("list project memberships: %w", err)
	}
	for _, p := range projects {
		if _, err := e.board.RemoveProjectMemberTx(ctx, tx, db.ProjectMemberRemoval{ProjectID: p, ActorID: l.ActorID,
			UserID: l.UserID}); err != nil {
			return nil, err
		}
	}
	missions, err := e.pipelines.CancelRunsStartedByTx(ctx, tx, pipeline.RunsOf{WorkspaceIDs: l.WorkspaceIDs,
		StarterID: l.UserID, ActorID: l.ActorID})
	if err != nil {
		return nil, err
	}
	if err := q.UserStreamsEnd(ctx, l.UserID); err != nil {
		return nil, fmt.Errorf("end the user's streams: %w", err)
	}
	return missions, nil
}

// afterLeaving cancels, once the removal has committed, the missions the leaver's cancelled runs were
// waiting for (apart, as pipeline.Engine.CancelRun does: a mission's lock is taken before a run's).
func (e *Engine) afterLeaving(ctx context.Context, missions []db.RecordEdit) error {
	if err := e.pipelines.CancelMissions(ctx, missions); err != nil {
		return fmt.Errorf("the member was removed, but cancelling the missions of their runs failed: %w", err)
	}
	return nil
}

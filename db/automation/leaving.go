package automation

// This file is what a member's leaving means for automation rules: a rule acts as its creator, so the
// rules a member created in a workspace's projects are disabled when they leave it, and the workspace's
// admins are told which.

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// RulesOf names the rules a user created in the projects of some workspaces, and who disables them.
type RulesOf struct {
	WorkspaceIDs       []string
	CreatorID, ActorID string
}

// DisabledRule is a rule disabled because its creator left its workspace.
type DisabledRule struct {
	ID, Name, ProjectID, WorkspaceID string
}

// DisableRulesCreatedByTx disables, in the caller's transaction, every enabled rule r.CreatorID created
// in the projects of r.WorkspaceIDs: a member who leaves those workspaces must not have rules go on
// acting in their name. Each workspace where rules were disabled records an automation_rules_disabled
// activity (meta: userId, the leaver; removedBy, r.ActorID; rules, each {id, name, projectId}) whose
// recipients are its admins, who may enable them again. It answers the rules disabled, by workspace,
// project and name.
func (e *Engine) DisableRulesCreatedByTx(ctx context.Context, tx pgx.Tx, r RulesOf) ([]DisabledRule, error) {
	q := dbcore.Queries(tx)
	rows, err := q.AutomationRulesDisableByCreator(ctx, dbsqlc.AutomationRulesDisableByCreatorParams{
		CreatedBy: r.CreatorID, WorkspaceIds: r.WorkspaceIDs})
	if err != nil {
		return nil, fmt.Errorf("disable the user's automation rules: %w", err)
	}
	out := dbcore.MapRows(rows, func(row dbsqlc.AutomationRulesDisableByCreatorRow) DisabledRule {
		return DisabledRule{ID: row.ID, Name: row.Name, ProjectID: row.ProjectID, WorkspaceID: row.WorkspaceID}
	})
	slices.SortFunc(out, func(a, b DisabledRule) int {
		return cmp.Or(cmp.Compare(a.WorkspaceID, b.WorkspaceID), cmp.Compare(a.ProjectID, b.ProjectID),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	var acts []db.Activity
	for i := 0; i < len(out); {
		ws := out[i].WorkspaceID
		var rules []map[string]any
		for ; i < len(out) && out[i].WorkspaceID == ws; i++ {
			rules = append(rules, map[string]any{"id": out[i].ID, "name": out[i].Name, "projectId": out[i].ProjectID})
		}
		admins, err := q.WorkspaceAdminIDs(ctx, ws)
		if err != nil {
			return nil, dbcore.Wrap(err, "read workspace admins")
		}
		// No actor: the remover is told too, as every admin is (meta.removedBy says who removed them).
		acts = append(acts, db.Activity{WorkspaceID: ws, Type: db.ActivityAutomationRulesDisabled,
			Meta:       map[string]any{"userId": r.CreatorID, "removedBy": r.ActorID, "rules": rules},
			Recipients: admins, OnlyRecipients: true})
	}
	return out, e.core.RecordActivities(ctx, tx, acts...)
}

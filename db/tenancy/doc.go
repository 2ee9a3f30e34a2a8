// Package tenancy is the tenancy engine: organizations and their members, workspaces and their
// members, invitations, and the resolution of what a caller may reach (organization, workspace and
// project roles) that the api's guard asks on every request.
package tenancy

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/pipeline"
)

// Engine keeps tenants and resolves access.
type Engine struct {
	core  *dbcore.Core
	store *db.Store
	// The engines a member's leaving calls (leaving.go): board unassigns their cards and ends their
	// project memberships, pipelines cancels their runs, missions the missions they started, and
	// automations disables their rules.
	board       *board.Engine
	pipelines   *pipeline.Engine
	missions    *mission.Engine
	automations *automation.Engine
	// audit records members, invitations, roles and deletions in the audit log.
	audit db.Auditor
}

// New builds the tenancy engine on core and store, with the engines a member's leaving calls.
func New(core *dbcore.Core, store *db.Store, boards *board.Engine, pipelines *pipeline.Engine,
	missions *mission.Engine, automations *automation.Engine, auditor db.Auditor) *Engine {
	return &Engine{core: core, store: store, board: boards, pipelines: pipelines, missions: missions,
		automations: automations, audit: auditor}
}

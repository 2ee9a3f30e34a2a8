// Package tenancy is the tenancy engine: organizations and their members, workspaces and their
// members, invitations, and the resolution of what a caller may reach (organization, workspace and
// project roles) that the api's guard asks on every request.
package tenancy

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/pipeline"
)

// Engine keeps tenants and resolves access.
type Engine struct {
	core  *dbcore.Core
	store *db.Store
	// pipelines cancels the runs of a member who leaves (leaving.go).
	pipelines *pipeline.Engine
}

// New builds the tenancy engine on store.
func New(store *db.Store) *Engine {
	return &Engine{core: dbcore.Of(store), store: store, pipelines: pipeline.New(store)}
}

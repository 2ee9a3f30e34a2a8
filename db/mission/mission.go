// Package mission is the agents engine: agents (workspace service users with tools and limits), their
// missions from creation to settlement, the step executor that applies or proposes each tool call by
// the agent's autonomy, the proposals people approve or reject, and the claims external MCP clients
// hold on missions queued for them.
package mission

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/pilotage"
)

// Engine keeps agents and runs their missions.
type Engine struct {
	core     *dbcore.Core
	store    *db.Store
	pilotage *pilotage.Engine
}

// New builds the agents engine on store.
func New(store *db.Store) *Engine {
	return &Engine{core: dbcore.Of(store), store: store, pilotage: pilotage.New(store)}
}

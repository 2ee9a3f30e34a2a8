// Package mission is the agents engine: agents (workspace service users with tools and limits), their
// missions from creation to settlement, the step executor that applies or proposes each tool call by
// the agent's autonomy, the proposals people approve or reject, and the claims external MCP clients
// hold on missions queued for them.
package mission

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/pilotage"
)

// Engine keeps agents and runs their missions.
type Engine struct {
	core     *dbcore.Core
	store    *db.Store
	board    *board.Engine
	pilotage *pilotage.Engine
	// waits ends the pipeline steps that wait for a mission when it settles.
	waits db.StepWaiter
}

// New builds the agents engine on core and store; its tools write through boards and pilotage, and a
// settled mission ends the pipeline steps waiting for it through waits.
func New(core *dbcore.Core, store *db.Store, boards *board.Engine, pilotage *pilotage.Engine,
	waits db.StepWaiter) *Engine {
	return &Engine{core: core, store: store, board: boards, pilotage: pilotage, waits: waits}
}

// Package pilotage is the cockpit engine: a workspace's strategic records (missions, priorities,
// todos, decisions, documents) with their history, the proposed actions that people review and apply,
// and the reads that assemble them (state, dashboard, portfolio), shared between concurrent callers.
package pilotage

import (
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/internal/coalesce"
)

// Engine keeps and reads the cockpit.
type Engine struct {
	core  *dbcore.Core
	store *db.Store
	// board applies the card actions people approve.
	board *board.Engine
	// portfolioReads coalesces concurrent portfolio reads of one workspace (Portfolio).
	portfolioReads coalesce.Group[string, portfolioRows]
	// dashboardReads coalesces concurrent dashboard reads of one workspace (DashboardFor).
	dashboardReads coalesce.Group[dashboardKey, dashboardRows]
	// stateReads coalesces concurrent reads of one workspace's cockpit records (StateFor).
	stateReads coalesce.Group[string, PilotageState]
}

// sharedReadTimeout bounds a read shared by concurrent callers (it no longer ends with the caller that
// started it).
const sharedReadTimeout = 30 * time.Second

// New builds the cockpit engine on core and store; approved card actions write through boards. Build
// one per process: concurrent reads share its reads.
func New(core *dbcore.Core, store *db.Store, boards *board.Engine) *Engine {
	e := &Engine{core: core, store: store, board: boards}
	e.portfolioReads.Timeout, e.dashboardReads.Timeout, e.stateReads.Timeout = sharedReadTimeout, sharedReadTimeout,
		sharedReadTimeout
	return e
}

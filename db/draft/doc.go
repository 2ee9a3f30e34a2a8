// Package draft is the project drafts engine: a draft is framed, refined through rounds of questions,
// given a phased roadmap, and executed once into a project (phases as columns, deliverables as cards).
// Refinement and roadmap generation are jobs; the engine keeps the draft's state machine and events.
package draft

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Engine keeps project drafts.
type Engine struct {
	core  *dbcore.Core
	store *db.Store
	board *board.Engine
	// waits ends the pipeline steps that wait for a draft's roadmap.
	waits db.StepWaiter
}

// New builds the drafts engine on core and store; an execution creates its project through boards, and
// a roadmap's end ends the pipeline steps waiting for it through waits.
func New(core *dbcore.Core, store *db.Store, boards *board.Engine, waits db.StepWaiter) *Engine {
	return &Engine{core: core, store: store, board: boards, waits: waits}
}

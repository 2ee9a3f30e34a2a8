// Package draft is the project drafts engine: a draft is framed, refined through rounds of questions,
// given a phased roadmap, and executed once into a project (phases as columns, deliverables as cards).
// Refinement and roadmap generation are jobs; the engine keeps the draft's state machine and events.
package draft

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Engine keeps project drafts.
type Engine struct {
	core  *dbcore.Core
	store *db.Store
}

// New builds the drafts engine on store.
func New(store *db.Store) *Engine { return &Engine{core: dbcore.Of(store), store: store} }

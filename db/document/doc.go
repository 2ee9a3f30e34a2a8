// Package document is the knowledge-base engine: a workspace's documents in a tree, their review
// workflow (draft, pending review, approved or changes requested), their links to cards, and search
// across documents and cards.
package document

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Engine keeps documents and searches.
type Engine struct {
	core  *dbcore.Core
	store *db.Store
}

// New builds the documents engine on store.
func New(core *dbcore.Core, store *db.Store) *Engine { return &Engine{core: core, store: store} }

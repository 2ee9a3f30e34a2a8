// Package roadmap is the engine of a project's timeline: its scopes (named, dated parts of a project
// with the view they show) and the roadmap built from them and the project's dated cards.
package roadmap

import (
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Engine keeps scopes and builds roadmaps.
type Engine struct{ core *dbcore.Core }

// New builds the roadmap engine on store.
func New(core *dbcore.Core) *Engine { return &Engine{core: core} }

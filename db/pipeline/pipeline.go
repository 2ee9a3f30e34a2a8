// Package pipeline is the pipelines engine: a workspace's pipelines (validated step graphs), their runs,
// and the step executor, whose steps create cards and missions, generate draft roadmaps, notify and
// wait, each step a job, each run a stream of events.
package pipeline

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/webhook"
)

// Engine keeps pipelines and runs them.
type Engine struct {
	*Runner
	board    *board.Engine
	missions *mission.Engine
	drafts   *draft.Engine
	webhooks *webhook.Engine
	// audit records pipelines made, changed and deleted in the audit log.
	audit db.Auditor
}

// New builds the pipelines engine on runner, with the engines its steps call; auditor records the
// changes to pipelines.
func New(runner *Runner, boards *board.Engine, missions *mission.Engine, drafts *draft.Engine,
	webhooks *webhook.Engine, auditor db.Auditor) *Engine {
	return &Engine{Runner: runner, board: boards, missions: missions, drafts: drafts, webhooks: webhooks,
		audit: auditor}
}

// Runner moves runs forward: it settles a step, queues the steps it unblocks and ends the run. It needs
// only the database, so the engines whose work a step waits for (missions, drafts, webhooks, the
// board) are built with it as their db.StepWaiter before the engine that calls them.
type Runner struct {
	core  *dbcore.Core
	store *db.Store
}

// NewRunner builds the runner on core and store (whose stream events it appends).
func NewRunner(core *dbcore.Core, store *db.Store) *Runner { return &Runner{core: core, store: store} }

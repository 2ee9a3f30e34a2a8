// Package automation is the automation engine: project rules (a trigger, conditions, actions) as data,
// validated against their project, and running them when the activities that fire their triggers are
// recorded, through the store's card writes, with a trace per execution and a depth cap so rules
// cannot loop. It also scans for due dates reached.
package automation

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/webhook"
)

// Engine runs and keeps automation rules.
type Engine struct {
	core     *dbcore.Core
	store    *db.Store
	board    *board.Engine
	webhooks *webhook.Engine
	// audit records rules made, changed and deleted in the audit log.
	audit db.Auditor
}

// New builds the automation engine on core and store; its actions write through boards and webhooks,
// and auditor records the changes to rules.
func New(core *dbcore.Core, store *db.Store, boards *board.Engine, webhooks *webhook.Engine,
	auditor db.Auditor) *Engine {
	return &Engine{core: core, store: store, board: boards, webhooks: webhooks, audit: auditor}
}

// Package board is the board engine: projects and their members, columns, cards and their parts
// (checklists, labels, custom fields, relations, comments, attachments), and the column counts the
// board reads. Each write records its activities and enqueues their jobs in its transaction.
package board

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Engine keeps projects, their columns and their cards.
type Engine struct {
	core *dbcore.Core
	q    *dbsqlc.Queries
	// waits ends the pipeline steps that wait for the missions of a project being deleted.
	waits db.StepWaiter
	// audit records a project's deletion in the audit log.
	audit db.Auditor
}

// New builds the board engine on core. waits ends the pipeline steps waiting for what a project's
// deletion ends; auditor records the deletion.
func New(core *dbcore.Core, waits db.StepWaiter, auditor db.Auditor) *Engine {
	return &Engine{core: core, q: core.Q, waits: waits, audit: auditor}
}

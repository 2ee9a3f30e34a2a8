// Package engines is Pilot's composition root: it builds the store and each of its engines once, with
// their options, and hands every engine the others it calls. The api, the workers, the commands, the
// end-to-end tests and the test factory all take their engines from here; nothing else builds one.
package engines

import (
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/db/automation"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/calendar"
	"github.com/pilot-dev/pilot/db/document"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/imports"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/notification"
	"github.com/pilot-dev/pilot/db/pilotage"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/db/recurrence"
	"github.com/pilot-dev/pilot/db/roadmap"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/db/transfer"
	"github.com/pilot-dev/pilot/db/webhook"
)

// Options configure the engines that take options.
type Options struct {
	// Webhooks configure the webhook engine: address checks, sealing keys, retries and disabling. The
	// webhooks that automations and pipeline steps send are the same engine's.
	Webhooks webhook.Options
}

// Engines are the store and every engine, built on one pool and one River client.
type Engines struct {
	Store         *db.Store
	Board         *board.Engine
	Identity      *identity.Engine
	Tenancy       *tenancy.Engine
	Documents     *document.Engine
	Notifications *notification.Engine
	Pilotage      *pilotage.Engine
	Missions      *mission.Engine
	Drafts        *draft.Engine
	Roadmaps      *roadmap.Engine
	Pipelines     *pipeline.Engine
	Automations   *automation.Engine
	Webhooks      *webhook.Engine
	Transfer      *transfer.Engine
	Imports       *imports.Engine
	Audit         *audit.Engine
	Calendars     *calendar.Engine
	Recurrence    *recurrence.Engine
}

// New builds the store and its engines on dbPool. riverClient enqueues in their transactions: insert-only
// in the api, working in the worker, or nil for a process that never enqueues (`pilot keys rotate`, the
// OpenAPI document built without a database, where dbPool is nil too).
func New(dbPool *pgxpool.Pool, riverClient *river.Client[pgx.Tx], opts Options) *Engines {
	core := dbcore.New(dbPool, riverClient)
	// The audit log is handed to the store and every engine that records security and administration
	// events, which record them in the transactions of the changes they describe.
	audits := audit.New(core)
	store := db.NewStore(core, audits)
	// The runner ends the pipeline steps that wait for missions, drafts, webhook deliveries and deleted
	// projects: those engines are handed it, and the pipelines engine, which calls them, is built last.
	runner := pipeline.NewRunner(core, store)
	boards := board.New(core, runner, audits)
	webhooks := webhook.New(core, runner, audits, opts.Webhooks)
	pilot := pilotage.New(core, store, boards)
	missions := mission.New(core, store, boards, pilot, runner)
	drafts := draft.New(core, store, boards, runner)
	pipelines := pipeline.New(runner, boards, missions, drafts, webhooks, audits)
	automations := automation.New(core, store, boards, webhooks, audits)
	transfers := transfer.New(core, audits)
	return &Engines{
		Store:         store,
		Board:         boards,
		Identity:      identity.New(core, store, audits),
		Tenancy:       tenancy.New(core, store, boards, pipelines, missions, automations, audits),
		Documents:     document.New(core, store),
		Notifications: notification.New(core),
		Pilotage:      pilot,
		Missions:      missions,
		Drafts:        drafts,
		Roadmaps:      roadmap.New(core),
		Pipelines:     pipelines,
		Automations:   automations,
		Webhooks:      webhooks,
		Transfer:      transfers,
		Imports:       imports.New(core, store, transfers, boards),
		Audit:         audits,
		Calendars:     calendar.New(core, audits),
		Recurrence:    recurrence.New(core, boards),
	}
}

// Package pipeline is the pipelines engine: a workspace's pipelines (validated step graphs), their runs,
// and the step executor, whose steps create cards and missions, generate draft roadmaps, notify and
// wait, each step a job, each run a stream of events.
package pipeline

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/webhook"
)

// Engine keeps pipelines and runs them.
type Engine struct {
	core     *dbcore.Core
	store    *db.Store
	missions *mission.Engine
	drafts   *draft.Engine
	webhooks *webhook.Engine
}

// New builds the pipelines engine on store.
func New(store *db.Store) *Engine {
	return &Engine{core: dbcore.Of(store), store: store, missions: mission.New(store), drafts: draft.New(store),
		webhooks: webhook.New(store, webhook.Options{})}
}

func init() {
	// Missions and drafts end the steps that wait for them through this link (they cannot import the
	// engine that imports them).
	dbcore.SetWaitFinished(func(ctx context.Context, c *dbcore.Core, tx pgx.Tx, ref string, output map[string]any, errText string) error {
		return New(c.Store.(*db.Store)).WaitFinishedTx(ctx, tx, ref, output, errText)
	})
}

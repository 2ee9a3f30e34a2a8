package dbcore

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// WaitFinishedFunc ends what waits for ref ("mission:<id>", "draft:<id>") in the caller's transaction:
// completed with output merged into the waiter's, or failed with errText.
type WaitFinishedFunc func(ctx context.Context, c *Core, tx pgx.Tx, ref string, output map[string]any, errText string) error

// waitFinished is the pipeline engine's: pipeline steps wait for missions and drafts, which settle in
// packages the pipeline engine imports, so they reach it through this link rather than an import.
var waitFinished WaitFinishedFunc

// SetWaitFinished links the pipeline engine's waiting steps to the engines they wait for. db/pipeline
// calls it when it is loaded, as database/sql drivers register themselves.
func SetWaitFinished(f WaitFinishedFunc) { waitFinished = f }

// WaitFinishedTx ends the steps waiting for ref, in tx. Without the pipeline engine in the binary no
// step can exist to wait, and it does nothing.
func (c *Core) WaitFinishedTx(ctx context.Context, tx pgx.Tx, ref string, output map[string]any, errText string) error {
	if waitFinished == nil {
		return nil
	}
	return waitFinished(ctx, c, tx, ref, output, errText)
}

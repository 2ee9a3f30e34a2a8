package pipeline

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// MsgStarterLeft is the error of a step whose run's starter no longer holds the role starting a run
// needs; the step fails with it, and the run with "step <id> failed: <it>".
const MsgStarterLeft = "the run's starter is no longer an admin of this workspace"

// execStepAsStarter is execStep once the run's starter is found to still be an admin of the run's
// workspace (its member with the admin role, or an owner or admin of its organization): steps act in
// the starter's name, so a starter who was removed or demoted since the start (a wait of up to a week
// is enough) must not have a card created, a comment written or a mission started as them. A starter
// who left is a refusal: the step and the run fail. Removing a member also cancels their runs
// (CancelRunsStartedByTx); this catches the rest (a demotion, a removal racing a step).
func (e *Engine) execStepAsStarter(ctx context.Context, tx pgx.Tx, run db.PipelineRun, steps []db.PipelineRunStep,
	st *db.PipelineRunStep) (stepDone, error) {
	ok, err := dbcore.Queries(tx).PipelineRunStarterMayRun(ctx,
		dbsqlc.PipelineRunStarterMayRunParams{WorkspaceID: run.WorkspaceID, UserID: run.StartedBy})
	if err != nil {
		return stepDone{}, fmt.Errorf("check the run's starter: %w", err)
	}
	if !ok {
		return stepDone{}, dbcore.Forbidden(MsgStarterLeft)
	}
	return e.execStep(ctx, tx, run, steps, st)
}

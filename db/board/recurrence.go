package board

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// continueSeries enqueues, in the transaction of a move into the done column, the job that creates the
// next occurrence of the after-completion series whose occurrence the card is (db/recurrence). Only a
// move into the done column reads anything: one lookup by the card's id, no row for a card that does
// not repeat.
func (b *Engine) continueSeries(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, cardID string,
	acts []db.Activity) error {
	if len(acts) == 0 || acts[0].Type != db.ActivityCardMoved {
		return nil
	}
	if acts[0].Meta["toStatus"] != string(StatusDone) || acts[0].Meta["fromStatus"] == string(StatusDone) {
		return nil
	}
	seriesID, err := q.SeriesContinuedAfterCompletion(ctx, &cardID)
	if dbcore.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the card's series: %w", err)
	}
	return b.core.Enqueue(ctx, tx, []river.InsertManyParams{{Args: jobs.RecurrenceNextArgs{SeriesID: seriesID,
		CardID: cardID, CompletedAt: time.Now().UTC()}}})
}

package db

import (
	"context"
	"time"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// RateLimitHit counts one attempt for key and reports whether it takes the key past limit attempts per
// window. The count is shared by every process on the database. The estimate is a sliding window: the
// current window's attempts plus the previous window's, weighted by how much of it still lies within
// one window of now.
func (s *Store) RateLimitHit(ctx context.Context, key string, limit int, window time.Duration) (over bool, err error) {
	row, err := s.q.RateLimitHit(ctx, dbsqlc.RateLimitHitParams{Key: key, WindowSecs: window.Seconds()})
	if err != nil {
		return false, wrap(err, "count rate limit hit")
	}
	w := window.Seconds()
	weight := max(0, (w-row.ElapsedSecs)/w)
	estimate := float64(row.Hits) + float64(row.PreviousHits)*weight
	return estimate > float64(limit), nil
}

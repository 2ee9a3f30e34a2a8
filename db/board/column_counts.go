package board

import (
	"context"
	"fmt"
)

// columnCountsFoldBatch is how many columns one statement of FoldColumnCounts folds, and
// columnCountsFoldBatches how many statements one call runs at most (writers busy in more columns than
// that leave the rest to the next fold).
const (
	columnCountsFoldBatch   = 1000
	columnCountsFoldBatches = 100
)

// FoldColumnCounts folds every column's count rows (one per card-writing statement since the last
// fold, added by the triggers of migration 00019) into one row per column, batch by batch, and answers
// the number of columns folded. Reads add up a column's rows, so folding changes no figure; it keeps
// reads short. The fold periodic job calls it.
func (b *Engine) FoldColumnCounts(ctx context.Context) (int, error) {
	total := 0
	for range columnCountsFoldBatches {
		n, err := b.q.ColumnCountsFold(ctx, columnCountsFoldBatch)
		if err != nil {
			return total, fmt.Errorf("fold column counts: %w", err)
		}
		total += int(n)
		if n < columnCountsFoldBatch {
			break
		}
	}
	return total, nil
}

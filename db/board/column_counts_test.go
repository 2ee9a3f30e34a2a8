package board_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// countersSQL is every column's counters (the sums of its count rows), by column id.
const countersSQL = `SELECT col.id::text, coalesce(sum(n.low_count), 0), coalesce(sum(n.medium_count), 0),
       coalesce(sum(n.high_count), 0), coalesce(sum(n.archived_count), 0), coalesce(sum(n.checklist_total), 0),
       coalesce(sum(n.checklist_done), 0)
FROM columns col LEFT JOIN column_card_counts n ON n.column_id = col.id
GROUP BY col.id ORDER BY col.id`

// recountSQL is the same figures counted from the cards and checklist items themselves.
const recountSQL = `SELECT col.id::text,
       (SELECT count(*) FROM cards c WHERE c.column_id = col.id AND NOT c.archived AND c.priority = 'low'),
       (SELECT count(*) FROM cards c WHERE c.column_id = col.id AND NOT c.archived AND c.priority = 'medium'),
       (SELECT count(*) FROM cards c WHERE c.column_id = col.id AND NOT c.archived AND c.priority = 'high'),
       (SELECT count(*) FROM cards c WHERE c.column_id = col.id AND c.archived),
       (SELECT count(*) FROM checklist_items i JOIN cards c ON c.id = i.card_id
         WHERE c.column_id = col.id AND NOT c.archived),
       (SELECT count(*) FROM checklist_items i JOIN cards c ON c.id = i.card_id
         WHERE c.column_id = col.id AND NOT c.archived AND i.done)
FROM columns col ORDER BY col.id`

func columnFigures(t *testing.T, b *testBundle, sql string) []string {
	t.Helper()
	rows, err := b.Pool.Query(context.Background(), sql)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id string
		var n [6]int64
		err := r.Scan(&id, &n[0], &n[1], &n[2], &n[3], &n[4], &n[5])
		return fmt.Sprintf("%s low=%d medium=%d high=%d archived=%d checklist=%d/%d", id, n[0], n[1], n[2], n[3], n[5], n[4]),
			err
	})
	require.NoError(t, err)
	return out
}

// requireCountersTrue asserts that every column's counters equal a recount of its cards, and that no
// counter is left for a column that is gone.
func requireCountersTrue(t *testing.T, b *testBundle, step string) {
	t.Helper()
	require.Equal(t, columnFigures(t, b, recountSQL), columnFigures(t, b, countersSQL), "after %s", step)
	require.Zero(t, b.Count(t,
		`SELECT count(*) FROM column_card_counts n WHERE NOT EXISTS (SELECT 1 FROM columns c WHERE c.id = n.column_id)`))
}

// fold folds the count rows and checks that the figures did not change and that each column with rows
// now has exactly one.
func (b *testBundle) fold(t *testing.T) {
	t.Helper()
	before := columnFigures(t, b, countersSQL)
	_, err := b.Board.FoldColumnCounts(context.Background())
	require.NoError(t, err)
	require.Equal(t, before, columnFigures(t, b, countersSQL), "a fold changes no figure")
	require.Zero(t, b.Count(t, `SELECT count(*) FROM column_card_counts WHERE NOT folded`))
	require.Zero(t, b.Count(t,
		`SELECT count(*) FROM (SELECT column_id FROM column_card_counts GROUP BY column_id HAVING count(*) > 1) x`))
}

func (b *testBundle) checklistItemIDs(t *testing.T, cardID string) []string {
	t.Helper()
	rows, err := b.Pool.Query(context.Background(),
		`SELECT id::text FROM checklist_items WHERE card_id = $1 ORDER BY position, id`, cardID)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return ids
}

// TestColumnCountersFollowEveryCardWrite drives each path that writes cards or checklist items (create,
// edit, move, archive, delete, checklist changes, a column's and a project's cascades, an import) and
// checks the portfolio's counters against a recount after each.
func TestColumnCountersFollowEveryCardWrite(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	ws, actor := b.owner.Workspace.ID, b.owner.User.ID
	past := time.Now().Add(-48 * time.Hour)
	requireCountersTrue(t, b, "setup")

	var cards []board.Card
	for i, prio := range []board.Priority{"low", "medium", "high", "high", ""} {
		in := b.newCard(fmt.Sprintf("card %d", i))
		in.Priority = prio
		in.ColumnID = b.project.Columns[i%len(b.project.Columns)]
		if i%2 == 0 {
			in.Checklist = []board.ChecklistItemInput{{Title: "a", Done: true}, {Title: "b"}, {Title: "c"}}
			in.DueDate = &past
		}
		c, err := b.Board.CreateCard(ctx, in)
		require.NoError(t, err)
		cards = append(cards, c)
	}
	requireCountersTrue(t, b, "creates")

	update := func(step string, card board.Card, p board.CardPatch) {
		t.Helper()
		_, err := b.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: ws, ProjectID: b.project.ID, CardID: card.ID,
			ActorID: actor, Patch: p})
		require.NoError(t, err)
		requireCountersTrue(t, b, step)
	}
	ptr := func(s string) *string { return &s }
	yes, no := true, false
	update("a title edit", cards[0], board.CardPatch{Title: ptr("renamed")})
	update("a priority change", cards[0], board.CardPatch{Priority: testfactory.Ptr(board.PriorityHigh)})
	update("a move", cards[0], board.CardPatch{ColumnID: &b.project.Columns[2]})
	update("a reorder", cards[2], board.CardPatch{Order: new(int)})
	update("an archive", cards[2], board.CardPatch{Archived: &yes})
	update("a priority change of an archived card", cards[2],
		board.CardPatch{Priority: testfactory.Ptr(board.PriorityLow)})
	update("a move of an archived card", cards[2], board.CardPatch{ColumnID: &b.project.Columns[1]})
	update("an unarchive", cards[2], board.CardPatch{Archived: &no})

	items := b.checklistItemIDs(t, cards[4].ID)
	_, err := b.Board.AddChecklistItem(ctx, db.CardEdit{ProjectID: b.project.ID, CardID: cards[4].ID, ActorID: actor}, "d")
	require.NoError(t, err)
	requireCountersTrue(t, b, "a checklist item added")
	_, err = b.Board.UpdateChecklistItem(ctx, db.CardEdit{ProjectID: b.project.ID, CardID: cards[4].ID, ActorID: actor},
		items[1], board.ChecklistItemPatch{Done: &yes})
	require.NoError(t, err)
	requireCountersTrue(t, b, "a checklist item checked")
	_, err = b.Board.DeleteChecklistItem(ctx, db.CardEdit{ProjectID: b.project.ID, CardID: cards[4].ID, ActorID: actor},
		items[0])
	require.NoError(t, err)
	requireCountersTrue(t, b, "a checklist item deleted")
	b.fold(t)

	require.NoError(t, b.Board.DeleteCard(ctx, db.CardEdit{ProjectID: b.project.ID, CardID: cards[0].ID, ActorID: actor}))
	requireCountersTrue(t, b, "a card with a checklist deleted")

	col, err := b.Board.CreateColumn(ctx, b.project.ID, "Extra")
	require.NoError(t, err)
	in := b.newCard("in the extra column")
	in.ColumnID = col.ID
	in.Checklist = []board.ChecklistItemInput{{Title: "x", Done: true}}
	_, err = b.Board.CreateCard(ctx, in)
	require.NoError(t, err)
	requireCountersTrue(t, b, "a card in a new column")
	require.NoError(t, b.Board.DeleteColumn(ctx, b.project.ID, col.ID))
	requireCountersTrue(t, b, "a column's cascade")

	doc, err := b.Transfer.Export(ctx, ws, b.project.ID)
	require.NoError(t, err)
	imported, err := b.Transfer.Import(ctx, ws, actor, doc)
	require.NoError(t, err)
	requireCountersTrue(t, b, "an import")
	b.fold(t)
	requireCountersTrue(t, b, "a fold")
	require.Positive(t, b.Count(t,
		`SELECT count(*) FROM column_card_counts n JOIN columns c ON c.id = n.column_id WHERE c.project_id = $1`,
		imported.ID))

	_, err = b.Pool.Exec(ctx, `DELETE FROM projects WHERE id = $1`, b.project.ID)
	require.NoError(t, err)
	requireCountersTrue(t, b, "a project's cascade")
}

// TestColumnCountersUnderConcurrentWrites runs creates, moves, archives and checklist changes from eight
// goroutines at once, with columns made and deleted and two folds running in a loop meanwhile, and
// checks that nothing failed (no deadlock) and that the counters lost or doubled nothing.
func TestColumnCountersUnderConcurrentWrites(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	ws, actor := b.owner.Workspace.ID, b.owner.User.ID
	var mu sync.Mutex
	var cards []string
	stop := make(chan struct{})
	var folders sync.WaitGroup
	for range 2 {
		folders.Add(1)
		go func() {
			defer folders.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := b.Board.FoldColumnCounts(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var wg sync.WaitGroup
	// Columns made, filled and deleted meanwhile: their deletes race the folds.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 15 {
			col, err := b.Board.CreateColumn(ctx, b.project.ID, fmt.Sprintf("churn %d", i))
			if err != nil {
				t.Error(err)
				return
			}
			for range 3 {
				in := b.newCard("churned")
				in.ColumnID = col.ID
				in.Checklist = []board.ChecklistItemInput{{Title: "a", Done: true}}
				if _, err := b.Board.CreateCard(ctx, in); err != nil {
					t.Error(err)
					return
				}
			}
			if err := b.Board.DeleteColumn(ctx, b.project.ID, col.ID); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 25 {
				mu.Lock()
				n := len(cards)
				var pick string
				if n > 0 {
					pick = cards[r.IntN(n)]
				}
				mu.Unlock()
				var err error
				switch op := r.IntN(5); {
				case op == 0 || pick == "":
					in := b.newCard(fmt.Sprintf("g%d-%d", g, i))
					in.ColumnID = b.project.Columns[r.IntN(len(b.project.Columns))]
					in.Priority = board.Priorities[r.IntN(3)]
					in.Checklist = []board.ChecklistItemInput{{Title: "a", Done: r.IntN(2) == 0}}
					var c board.Card
					c, err = b.Board.CreateCard(ctx, in)
					if err == nil {
						mu.Lock()
						cards = append(cards, c.ID)
						mu.Unlock()
					}
				case op == 1:
					_, err = b.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: ws, ProjectID: b.project.ID, CardID: pick,
						ActorID: actor, Patch: board.CardPatch{ColumnID: &b.project.Columns[r.IntN(len(b.project.Columns))]}})
				case op == 2:
					archived := r.IntN(2) == 0
					_, err = b.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: ws, ProjectID: b.project.ID, CardID: pick,
						ActorID: actor, Patch: board.CardPatch{Archived: &archived}})
				case op == 3:
					_, err = b.Board.AddChecklistItem(ctx, db.CardEdit{ProjectID: b.project.ID, CardID: pick, ActorID: actor}, "more")
				default:
					prio := board.Priorities[r.IntN(3)]
					_, err = b.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: ws, ProjectID: b.project.ID, CardID: pick,
						ActorID: actor, Patch: board.CardPatch{Priority: &prio}})
				}
				if err != nil {
					t.Errorf("goroutine %d op %d: %v", g, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	folders.Wait()
	requireCountersTrue(t, b, "200 concurrent writes and folds")
	b.fold(t)
}

// TestCardCreatesInOneColumnDoNotWaitForEachOther holds one card create uncommitted and makes another in
// the same column, then folds: neither may wait for the held create.
func TestCardCreatesInOneColumnDoNotWaitForEachOther(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	first, err := b.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = first.Rollback(ctx) }() // after the Commit below it only answers ErrTxClosed
	_, err = b.Board.CreateCardTx(ctx, first, b.newCard("held"))
	require.NoError(t, err)

	second, err := b.Pool.Begin(ctx)
	require.NoError(t, err)
	_, err = second.Exec(ctx, `SET LOCAL lock_timeout = '5s'`)
	require.NoError(t, err)
	_, err = b.Board.CreateCardTx(ctx, second, b.newCard("not waiting"))
	require.NoError(t, err, "a create must not wait for another create of its column")
	require.NoError(t, second.Commit(ctx))

	// Were the fold to wait for the held create, it would wait for ever: bound it.
	foldCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = b.Board.FoldColumnCounts(foldCtx)
	require.NoError(t, err, "a fold must not wait for a create")
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM column_card_counts WHERE column_id = $1`, b.project.Columns[0]),
		"the held create's row is not folded yet")

	require.NoError(t, first.Commit(ctx))
	requireCountersTrue(t, b, "two creates in one column")
	b.fold(t)
}

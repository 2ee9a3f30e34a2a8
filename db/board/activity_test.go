package board_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// A card's history is what the board recorded about it, newest first, with who did it and the
// activity's meta; it pages by keyset, and a card of another project is not found.
func TestCardHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	c := testfactory.Card(t, b.Engines, b.project, &testfactory.CardOpts{Title: testfactory.Ptr("Plan")})
	other := testfactory.Card(t, b.Engines, b.project, &testfactory.CardOpts{Title: testfactory.Ptr("Other")})
	_, err := b.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: b.owner.Workspace.ID, ProjectID: b.project.ID,
		CardID: c.ID, ActorID: b.owner.User.ID, Patch: board.CardPatch{Title: testfactory.Ptr("Plan it")}})
	require.NoError(t, err)
	_, err = b.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: b.owner.Workspace.ID, ProjectID: b.project.ID,
		CardID: c.ID, ActorID: b.owner.User.ID, Patch: board.CardPatch{ColumnID: &b.project.Columns[1]}})
	require.NoError(t, err)

	page, err := b.Board.CardHistory(ctx, b.project.ID, c.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Empty(t, page.Next)
	types := make([]string, len(page.Items))
	for i, a := range page.Items {
		types[i] = a.Type
		require.NotNil(t, a.ActorID)
		require.Equal(t, b.owner.User.ID, *a.ActorID)
		require.Equal(t, b.owner.User.Name, a.ActorName)
	}
	require.Equal(t, []string{db.ActivityCardMoved, db.ActivityCardUpdated, db.ActivityCardCreated}, types)
	var moved map[string]any
	require.NoError(t, json.Unmarshal(page.Items[0].Meta, &moved))
	require.Equal(t, b.project.Columns[0], moved["fromColumn"])
	require.Equal(t, b.project.Columns[1], moved["toColumn"])
	var updated struct{ Fields []string }
	require.NoError(t, json.Unmarshal(page.Items[1].Meta, &updated))
	require.Equal(t, []string{"title"}, updated.Fields)

	// One at a time: the same three, in the same order, then no next page.
	var paged []string
	p := db.Page{Limit: 1}
	for range 4 {
		pg, err := b.Board.CardHistory(ctx, b.project.ID, c.ID, p)
		require.NoError(t, err)
		for _, a := range pg.Items {
			paged = append(paged, a.Type)
		}
		if pg.Next == "" {
			break
		}
		p.Cursor = pg.Next
	}
	require.Equal(t, types, paged)

	// The other card's history is its own.
	op, err := b.Board.CardHistory(ctx, b.project.ID, other.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Len(t, op.Items, 1)
	require.Equal(t, db.ActivityCardCreated, op.Items[0].Type)

	// A card read through another project is not found; a foreign cursor is refused.
	elsewhere := testfactory.NewProject(t, b.Engines, b.owner, &testfactory.ProjectOpts{Name: testfactory.Ptr("Else")})
	_, err = b.Board.CardHistory(ctx, elsewhere.ID, c.ID, db.Page{Limit: 50})
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = b.Board.CardHistory(ctx, b.project.ID, c.ID, db.Page{Limit: 1, Cursor: db.EncodeCursor("comments",
		db.TimeKey{At: c.CreatedAt, ID: c.ID})})
	require.ErrorIs(t, err, db.ErrInvalid)
}

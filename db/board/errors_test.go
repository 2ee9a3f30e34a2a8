package board_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
)

// The store's operations answer the translated kinds with messages for the caller.
func TestStoreErrorKinds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)

	_, err := b.Board.Card(ctx, b.project.ID, db.NewID())
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = b.Board.Card(ctx, b.project.ID, "not-a-uuid")
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = b.Board.Project(ctx, b.owner.Workspace.ID, "not-a-uuid")
	require.ErrorIs(t, err, db.ErrNotFound)

	_, err = b.Identity.Register(ctx, "Owner@Example.com", "Again", "not-a-real-hash")
	require.ErrorIs(t, err, db.ErrConflict)
	require.EqualError(t, err, "an account with this e-mail already exists")

	in := b.newCard("a\x00b")
	_, err = b.Board.CreateCard(ctx, in)
	require.ErrorIs(t, err, db.ErrInvalid)
	require.ErrorContains(t, err, "NUL")

	in = b.newCard("nowhere")
	in.ColumnID = db.NewID()
	_, err = b.Board.CreateCard(ctx, in)
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "column not found")
}

package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
)

// The store's operations answer the translated kinds with messages for the caller.
func TestStoreErrorKinds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)

	_, err := b.Store.Card(ctx, b.project.ID, db.NewID())
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = b.Store.Card(ctx, b.project.ID, "not-a-uuid")
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = b.Store.Project(ctx, b.owner.Workspace.ID, "not-a-uuid")
	require.ErrorIs(t, err, db.ErrNotFound)

	_, err = identity.New(b.Store).Register(ctx, "Owner@Example.com", "Again", "not-a-real-hash")
	require.ErrorIs(t, err, db.ErrConflict)
	require.EqualError(t, err, "an account with this e-mail already exists")

	in := b.newCard("a\x00b")
	_, err = b.Store.CreateCard(ctx, in)
	require.ErrorIs(t, err, db.ErrInvalid)
	require.ErrorContains(t, err, "NUL")

	in = b.newCard("nowhere")
	in.ColumnID = db.NewID()
	_, err = b.Store.CreateCard(ctx, in)
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "column not found")
}

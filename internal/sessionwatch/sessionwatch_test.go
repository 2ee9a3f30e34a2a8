package sessionwatch

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNotifyEndsTheSessionsAndUsersRequests(t *testing.T) {
	w := New(slog.Default())
	a1, stopA1 := w.Watch(context.Background(), "user-a", "session-1")
	defer stopA1()
	a2, stopA2 := w.Watch(context.Background(), "user-a", "session-2")
	defer stopA2()
	b, stopB := w.Watch(context.Background(), "user-b", "session-3")
	defer stopB()
	require.Equal(t, 3, w.Watching())

	w.Notify("s:session-1")
	require.ErrorIs(t, context.Cause(a1), ErrSessionEnded)
	require.NoError(t, a2.Err())
	require.NoError(t, b.Err())

	w.Notify("u:user-a")
	require.ErrorIs(t, context.Cause(a2), ErrSessionEnded)
	require.NoError(t, b.Err())

	w.Notify("garbage")
	w.Notify("s:unknown")
	require.NoError(t, b.Err())

	stopB()
	require.True(t, errors.Is(b.Err(), context.Canceled))
	require.NotErrorIs(t, context.Cause(b), ErrSessionEnded, "a released watch ends as canceled, not as an ended session")
	stopA1()
	stopA2()
	require.Equal(t, 0, w.Watching())
}

func TestEndAllEndsEveryWatchedRequest(t *testing.T) {
	w := New(slog.Default())
	a, stopA := w.Watch(context.Background(), "user-a", "session-1")
	defer stopA()
	b, stopB := w.Watch(context.Background(), "user-b", "session-2")
	defer stopB()
	w.endAll()
	require.ErrorIs(t, context.Cause(a), ErrSessionEnded)
	require.ErrorIs(t, context.Cause(b), ErrSessionEnded)
}

func TestNilWatcherWatchesNothing(t *testing.T) {
	var w *Watcher
	ctx, stop := w.Watch(context.Background(), "u", "s")
	require.NoError(t, ctx.Err())
	stop()
	require.Error(t, ctx.Err())
}

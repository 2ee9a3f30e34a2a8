package sessionwatch

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

// session and token are the credentials of a request with a session JWT and with a personal access token.
func session(user, id string) Credential { return Credential{UserID: user, SessionID: id} }
func token(user, id string) Credential   { return Credential{UserID: user, TokenID: id} }

func TestNotifyEndsTheSessionsAndUsersRequests(t *testing.T) {
	t.Parallel()
	w := New(slog.Default())
	a1, stopA1 := w.Watch(context.Background(), session("user-a", "session-1"))
	defer stopA1()
	a2, stopA2 := w.Watch(context.Background(), session("user-a", "session-2"))
	defer stopA2()
	b, stopB := w.Watch(context.Background(), session("user-b", "session-3"))
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

// A token's requests end when the token is revoked ('t:<id>'), and only then: a password change ('u:')
// ends sessions, not tokens, and a session and a token never share an announcement.
func TestNotifyEndsTheTokensRequests(t *testing.T) {
	t.Parallel()
	w := New(slog.Default())
	ci, stopCI := w.Watch(context.Background(), token("user-a", "tok-1"))
	defer stopCI()
	other, stopOther := w.Watch(context.Background(), token("user-a", "tok-2"))
	defer stopOther()
	sameID, stopSameID := w.Watch(context.Background(), session("user-a", "tok-1"))
	defer stopSameID()
	require.Equal(t, 3, w.Watching())

	w.Notify("u:user-a")
	require.NoError(t, ci.Err(), "a password change leaves tokens alone")
	require.ErrorIs(t, context.Cause(sameID), ErrSessionEnded)

	w.Notify("t:tok-1")
	require.ErrorIs(t, context.Cause(ci), ErrSessionEnded)
	require.NoError(t, other.Err())
	stopCI()
	stopOther()
	stopSameID()
	require.Equal(t, 0, w.Watching())
}

func TestEndAllEndsEveryWatchedRequest(t *testing.T) {
	t.Parallel()
	w := New(slog.Default())
	a, stopA := w.Watch(context.Background(), session("user-a", "session-1"))
	defer stopA()
	b, stopB := w.Watch(context.Background(), token("user-b", "tok-1"))
	defer stopB()
	w.endAll()
	require.ErrorIs(t, context.Cause(a), ErrMaybeEnded)
	require.ErrorIs(t, context.Cause(b), ErrMaybeEnded)
}

func TestNilWatcherWatchesNothing(t *testing.T) {
	t.Parallel()
	var w *Watcher
	ctx, stop := w.Watch(context.Background(), session("u", "s"))
	require.NoError(t, ctx.Err())
	stop()
	require.Error(t, ctx.Err())
}

func TestNoCredentialWatchesNothing(t *testing.T) {
	t.Parallel()
	w := New(slog.Default())
	ctx, stop := w.Watch(context.Background(), Credential{UserID: "u"})
	require.Zero(t, w.Watching())
	w.Notify("u:u")
	require.NoError(t, ctx.Err())
	stop()
	require.Error(t, ctx.Err())
}

package identity_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

func TestSessionsOpenListRevoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	e := b.Identity
	ada := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("ada@example.com")})
	bob := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("bob@example.com")})

	laptop, err := e.CreateSession(ctx, identity.NewSession{UserID: ada.User.ID, UserAgent: "Mozilla/5.0 (Macintosh; " +
		"Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
		ClientIP: "203.0.113.7", ExpiresAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	require.Equal(t, "Safari on macOS", laptop.Device)
	require.Equal(t, "203.0.113.7", laptop.ClientIP)
	phone, err := e.CreateSession(ctx, identity.NewSession{UserID: ada.User.ID, UserAgent: "curl/8.5.0",
		ExpiresAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, err = e.CreateSession(ctx, identity.NewSession{UserID: ada.User.ID, ExpiresAt: time.Now().Add(-time.Minute)})
	require.NoError(t, err)
	bobs, err := e.CreateSession(ctx, identity.NewSession{UserID: bob.User.ID, ExpiresAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)

	list, err := e.Sessions(ctx, ada.User.ID)
	require.NoError(t, err)
	require.Len(t, list, 2, "an expired session is not listed")
	require.Equal(t, phone.ID, list[0].ID, "newest first")

	u, err := e.SessionUser(ctx, laptop.ID, ada.User.ID)
	require.NoError(t, err)
	require.Equal(t, ada.User.ID, u.ID)
	_, err = e.SessionUser(ctx, bobs.ID, ada.User.ID)
	require.ErrorIs(t, err, db.ErrNotFound, "another user's session")

	require.ErrorIs(t, e.RevokeSession(ctx, ada.User.ID, bobs.ID), db.ErrNotFound)
	require.NoError(t, e.RevokeSession(ctx, ada.User.ID, laptop.ID))
	require.ErrorIs(t, e.RevokeSession(ctx, ada.User.ID, laptop.ID), db.ErrNotFound, "revoked once")
	_, err = e.SessionUser(ctx, laptop.ID, ada.User.ID)
	require.ErrorIs(t, err, db.ErrNotFound)

	again, err := e.CreateSession(ctx, identity.NewSession{UserID: ada.User.ID, ExpiresAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	n, err := e.RevokeOtherSessions(ctx, ada.User.ID, again.ID)
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "the phone")
	_, err = e.SessionUser(ctx, bobs.ID, bob.User.ID)
	require.NoError(t, err, "another user's sessions are left alone")

	// A password change ends every session.
	_, err = e.SetPassword(ctx, ada.User.ID, "new-hash")
	require.NoError(t, err)
	list, err = e.Sessions(ctx, ada.User.ID)
	require.NoError(t, err)
	require.Empty(t, list)

	deleted, err := e.DeleteEndedSessions(ctx, time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, int64(4), deleted, "ada's four ended sessions; bob's is active")
}

func TestDeviceLabel(t *testing.T) {
	t.Parallel()
	for ua, want := range map[string]string{
		"": "Unknown device",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 " +
			"Safari/537.36": "Chrome on Windows",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0 Safari/537.36 " +
			"Edg/128.0": "Edge on Windows",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 " +
			"Mobile/15E148 Safari/604.1": "Safari on iOS",
		"Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0 Mobile " +
			"Safari/537.36": "Chrome on Android",
		"python-requests/2.32": "Python requests",
		"my-script":            "my-script",
	} {
		require.Equal(t, want, identity.DeviceLabel(ua), ua)
	}
}

package accesscache

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// Without its LISTEN connection the cache keeps nothing: it cannot hear about changes then.
func TestIdleWithoutListener(t *testing.T) {
	t.Parallel()
	store := engines.New(pgtest.Pool(t), nil, engines.Options{}).Store
	ctx, cancel := context.WithCancel(context.Background())
	c := Start(ctx, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	<-c.Ready()
	k := Key{UserID: "u", OrgSlug: "o"}
	c.Put(k, db.User{}, tenancy.Access{}, c.Generation())
	_, _, ok := c.Get(k)
	require.True(t, ok)
	cancel()
	require.Eventually(t, func() bool { return !c.live.Load() }, 5*time.Second, 5*time.Millisecond)
	_, _, ok = c.Get(k)
	require.False(t, ok, "nothing is served while not listening")
	c.Put(k, db.User{}, tenancy.Access{}, c.Generation())
	_, _, ok = c.Get(k)
	require.False(t, ok, "nothing is kept while not listening")
}

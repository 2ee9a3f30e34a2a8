package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/accesscache"
)

// The guard's access cache serves repeated requests, and a change made through this process is seen by
// the very next request: a removed member is refused at once, and so is a session ended by a password
// change.
func TestAccessCacheServesRepeatsAndForgetsOwnChanges(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, _ := e.team()
	e.settleAccess()
	requireStatus(t, e.do("GET", prj+"/cards", member.Token, nil), http.StatusOK)
	hits := e.access.Hits()
	requireStatus(t, e.do("GET", prj+"/cards", member.Token, nil), http.StatusOK)
	require.Greater(t, e.access.Hits(), hits, "the second request was answered from the cache")

	// Card writes keep the cache: the next request is still served from it.
	requireStatus(t, e.do("GET", prj+"/cards", owner.Token, nil), http.StatusOK)
	e.card(owner, prj, decode[[]ColumnOut](t, e.do("GET", prj+"/columns", owner.Token, nil))[0].ID, "kept")
	hits = e.access.Hits()
	requireStatus(t, e.do("GET", prj+"/cards", owner.Token, nil), http.StatusOK)
	require.Greater(t, e.access.Hits(), hits)

	requireStatus(t, e.do("DELETE", "/organizations/"+owner.OrgSlug+"/members/"+member.ID, owner.Token, nil),
		http.StatusOK)
	requireStatus(t, e.do("GET", prj+"/cards", member.Token, nil), http.StatusNotFound)

	r := e.do("POST", "/auth/change-password", owner.Token, map[string]any{"currentPassword": "correct-horse",
		"newPassword": "a-brand-new-password"})
	requireStatus(t, r, http.StatusOK)
	requireStatus(t, e.do("GET", prj+"/cards", owner.Token, nil), http.StatusUnauthorized)
}

// A change committed by another process (here: SQL on the database) reaches the cache through its
// LISTEN connection, so a removed member is refused within moments without any request of this process.
func TestAccessCacheForgetsOtherProcessesChanges(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, member, prj, _ := e.team()
	e.settleAccess()
	requireStatus(t, e.do("GET", prj+"/cards", member.Token, nil), http.StatusOK)
	hits := e.access.Hits()
	requireStatus(t, e.do("GET", prj+"/cards", member.Token, nil), http.StatusOK)
	require.Greater(t, e.access.Hits(), hits)

	_, err := e.pool.Exec(context.Background(), `DELETE FROM workspace_members WHERE user_id = $1`, member.ID)
	require.NoError(t, err)
	deadline := time.Now().Add(5 * time.Second)
	for e.do("GET", prj+"/cards", member.Token, nil).Code != http.StatusNotFound {
		require.True(t, time.Now().Before(deadline), "the removed member still gets in")
		time.Sleep(5 * time.Millisecond)
	}
}

// settleAccess waits until the access cache has handled every change notification committed so far
// (notifications arrive in commit order, so a marker sent now arrives after them): a late one would
// otherwise empty the cache in the middle of a test.
func (e *testEnv) settleAccess() {
	e.t.Helper()
	marker := "settle-" + time.Now().Format(time.RFC3339Nano)
	_, err := e.pool.Exec(context.Background(), "SELECT pg_notify($1, $2)", accesscache.Channel, marker)
	require.NoError(e.t, err)
	require.Eventually(e.t, func() bool { return e.access.Heard() == marker }, 5*time.Second, time.Millisecond)
}

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/pgtest"
)

// feedData is the part of a feed event's JSON data this test reads.
type feedData struct {
	ID     string         `json:"id"`
	Type   string         `json:"type"`
	CardID *string        `json:"cardId"`
	Meta   map[string]any `json:"meta"`
}

// nextFeed reads the next event of a feed, failing after the context's end or the stream's.
func nextFeed(t *testing.T, ctx context.Context, evs <-chan rawEvent, what string) (rawEvent, feedData) {
	t.Helper()
	select {
	case ev, ok := <-evs:
		require.True(t, ok, "%s: the stream ended", what)
		var d feedData
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &d), ev.Data)
		require.Equal(t, ev.ID, d.ID)
		return ev, d
	case <-ctx.Done():
		t.Fatalf("%s: no event", what)
	}
	return rawEvent{}, feedData{}
}

// TestEventFeedAcrossProcesses writes through api A and reads the workspace's event feed from api B:
// each api process polls the activities table on its own, so a write anywhere reaches readers
// everywhere; a member removed through A stops getting events on B, and another tenant's reader on B
// gets none of them.
func TestEventFeedAcrossProcesses(t *testing.T) {
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	env := baseEnv(dbURL, "DATABASE_MAX_CONNS=5")
	apiA := start(t, "api", env)
	apiB := start(t, "api", env)

	ann, org, wsSlug := register(t, pool, apiA, "ann@example.com")
	ws := "/orgs/" + org + "/workspaces/" + wsSlug
	bob, _, _ := register(t, pool, apiA, "bob@example.com")
	eve, eveOrg, eveWs := register(t, pool, apiA, "eve@example.com")
	var inv struct {
		Token string `json:"token"`
	}
	code, raw := ann.do("POST", ws+"/members/invite", map[string]any{"email": "bob@example.com", "role": "member"}, &inv)
	require.Equal(t, http.StatusCreated, code, raw)
	var ok map[string]any
	code, raw = bob.do("POST", "/invitations/"+inv.Token+"/accept", nil, &ok)
	require.Equal(t, http.StatusOK, code, raw)
	var prj, card, me idOut
	code, raw = ann.do("POST", ws+"/projects", map[string]any{"name": "Launch"}, &prj)
	require.Equal(t, http.StatusCreated, code, raw)
	var cols []idOut
	code, raw = ann.do("GET", ws+"/projects/"+prj.ID+"/columns", nil, &cols)
	require.Equal(t, http.StatusOK, code, raw)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	annResp, annB := streamRaw(t, ctx, apiB.URL+ws+"/events", ann.token)
	defer annResp.Body.Close()
	bobResp, bobB := streamRaw(t, ctx, apiB.URL+ws+"/events", bob.token)
	defer bobResp.Body.Close()
	eveResp, eveB := streamRaw(t, ctx, apiB.URL+"/orgs/"+eveOrg+"/workspaces/"+eveWs+"/events", eve.token)
	defer eveResp.Body.Close()

	// Written through A, read on B.
	code, raw = ann.do("POST", ws+"/projects/"+prj.ID+"/cards", map[string]any{"title": "Ship"}, &card)
	require.Equal(t, http.StatusCreated, code, raw)
	var moved map[string]any
	code, raw = ann.do("PATCH", ws+"/projects/"+prj.ID+"/cards/"+card.ID, map[string]any{"columnId": cols[1].ID}, &moved)
	require.Equal(t, http.StatusOK, code, raw)
	for _, evs := range []<-chan rawEvent{annB, bobB} {
		ev, d := nextFeed(t, ctx, evs, "card created")
		require.Equal(t, "card_created", ev.Event)
		require.Equal(t, card.ID, *d.CardID)
		ev, d = nextFeed(t, ctx, evs, "card moved")
		require.Equal(t, "card_moved", ev.Event)
		require.Equal(t, cols[1].ID, d.Meta["toColumn"])
	}

	// Bob is removed through A: B's feed of his ends before the next write reaches it.
	code, raw = ann.do("DELETE", ws+"/members/"+userID(t, pool, "bob@example.com"), nil, &ok)
	require.Equal(t, http.StatusOK, code, raw)
	code, raw = ann.do("POST", ws+"/projects/"+prj.ID+"/cards", map[string]any{"title": "After"}, &card)
	require.Equal(t, http.StatusCreated, code, raw)
	for {
		_, d := nextFeed(t, ctx, annB, "card after the removal")
		if d.CardID != nil && *d.CardID == card.ID {
			break
		}
	}
	select {
	case ev, open := <-bobB:
		require.False(t, open, "bob got %+v after his removal", ev)
	case <-ctx.Done():
		t.Fatal("bob's feed is still open")
	}

	// Eve's first event is her own workspace's.
	code, raw = eve.do("POST", "/orgs/"+eveOrg+"/workspaces/"+eveWs+"/projects", map[string]any{"name": "Hers"}, &me)
	require.Equal(t, http.StatusCreated, code, raw)
	code, raw = eve.do("POST", "/orgs/"+eveOrg+"/workspaces/"+eveWs+"/projects/"+me.ID+"/cards",
		map[string]any{"title": "Hers"}, &card)
	require.Equal(t, http.StatusCreated, code, raw)
	for {
		_, d := nextFeed(t, ctx, eveB, "eve's card")
		require.NotEqual(t, "card_moved", d.Type, "eve got ann's move")
		if d.CardID != nil {
			require.Equal(t, card.ID, *d.CardID)
			break
		}
	}
}

func userID(t *testing.T, pool *pgxpool.Pool, email string) string {
	t.Helper()
	var id string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT id FROM users WHERE email = $1`, email).Scan(&id))
	return id
}

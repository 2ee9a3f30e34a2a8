package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/pgtest"
)

// TestMissionStopReachesItsWorker runs one api and two worker processes on one database. Each of a few
// missions runs on whichever worker takes it until its second model turn, which the fake model holds;
// `POST …/missions/{id}/stop` on the api then reaches that worker (River's job cancel, over PostgreSQL
// LISTEN/NOTIFY), which cancels the model call. The time from the stop's request to the model call being
// cut is logged for each, with the worst; the mission reads stopped, its applied actions kept, and its
// stream ends with the done event. The assertion on time is loose (10 s), for slow machines; the figure
// is what to read:
//
//	go test -count=1 -run TestMissionStopReachesItsWorker -v ./e2e/
func TestMissionStopReachesItsWorker(t *testing.T) {
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	llm, llmURL := newFakeLLM(t, true)
	llm.stalls, llm.cut = make(chan struct{}, 8), make(chan time.Time, 8)
	common := commonEnv(dbURL, llmURL, "WORKER_POLL_INTERVAL=200ms")
	api := start(t, "api", common)
	start(t, "worker", common)
	start(t, "worker", common)
	tn := newTenant(t, pool, api, "stop@example.com")
	c := tn.client

	const n = 5
	var worst time.Duration
	for i := range n {
		var m idOut
		code, raw := c.do("POST", tn.ws+"/agents/"+tn.agent+"/missions", map[string]any{"cardId": tn.card,
			"prompt": "Plan it"}, &m)
		require.Equal(t, http.StatusCreated, code, raw)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		resp, events := stream(t, ctx, "GET", api.URL+tn.ws+"/missions/"+m.ID+"/events", c.token, nil)
		select {
		case <-llm.stalls:
		case <-ctx.Done():
			t.Fatalf("mission %d never reached its second model turn", i)
		}
		var out missionOut
		stopped := time.Now() // the stop sent: its answer may come after its worker already stopped
		code, raw = c.do("POST", tn.ws+"/missions/"+m.ID+"/stop", nil, &out)
		require.Equal(t, http.StatusOK, code, raw)
		require.Equal(t, "stopped", out.Status)
		select {
		case at := <-llm.cut:
			d := at.Sub(stopped)
			worst = max(worst, d)
			t.Logf("mission %d: stop sent -> its worker's model call cut in %s", i, d)
		case <-ctx.Done():
			t.Fatalf("mission %d: the stop never reached its worker", i)
		}
		var last sseEvent
		for ev := range events {
			last = ev
		}
		require.Equal(t, "done", last.Event)
		require.Equal(t, "stopped", last.Data.Status)
		resp.Body.Close()
		cancel()
		require.Equal(t, "stopped", missionStatus(t, pool, m.ID))
	}
	// What the first turns applied stays: one comment per mission.
	require.Equal(t, n, count(t, pool, `SELECT count(*) FROM comments WHERE card_id = $1`, tn.card))
	workers := count(t, pool, `SELECT count(DISTINCT attempted_by[array_length(attempted_by, 1)]) FROM river_job
		WHERE kind = 'agent_mission'`)
	t.Logf("stop latency over %d missions on %d worker process(es): worst %s", n, workers, worst)
	require.Less(t, worst, 10*time.Second)
}

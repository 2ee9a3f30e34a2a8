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

// TestPipelineRunSurvivesWorkerSIGKILL kills the only worker in the middle of a step: its card is made
// but not yet committed, because the completion that would enqueue the next steps waits for a row lock
// the test holds. A fresh worker rescues the job; the run completes with every step done exactly once.
func TestPipelineRunSurvivesWorkerSIGKILL(t *testing.T) {
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	common := baseEnv(dbURL, "WORKER_RESCUE_AFTER=2s", "DATABASE_MAX_CONNS=10")
	api := start(t, "api", common)

	a, orgSlug, wsSlug := register(t, pool, api, "ann@example.com")
	ws := "/orgs/" + orgSlug + "/workspaces/" + wsSlug
	var prj, p, run idOut
	code, raw := a.do("POST", ws+"/projects", map[string]any{"name": "Launch"}, &prj)
	require.Equal(t, http.StatusCreated, code, raw)
	notify := func(id string, needs ...string) map[string]any {
		return map[string]any{"id": id, "type": "notify", "params": map[string]any{"projectId": prj.ID,
			"message": "step " + id}, "needs": needs}
	}
	code, raw = a.do("POST", ws+"/pipelines", map[string]any{"name": "Launch day", "steps": []map[string]any{
		{"id": "a", "type": "create_card", "params": map[string]any{"projectId": prj.ID, "title": "Made once"}},
		notify("b", "a"),
		{"id": "c", "type": "create_card", "params": map[string]any{"projectId": prj.ID, "title": "Follow-up of " +
			"{{steps.a.cardId}}"}, "needs": []string{"a"}},
		notify("d", "b", "c"),
	}}, &p)
	require.Equal(t, http.StatusCreated, code, raw)
	runs := ws + "/pipelines/" + p.ID + "/runs"
	code, raw = a.do("POST", runs, nil, &run)
	require.Equal(t, http.StatusCreated, code, raw)

	// Hold step b's row: step a's completion, which queues b, waits for it with a's card made.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lock, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = lock.Rollback(context.Background()) }()
	_, err = lock.Exec(ctx, `SELECT 1 FROM pipeline_run_steps WHERE run_id = $1 AND step_id = 'b' FOR UPDATE`, run.ID)
	require.NoError(t, err)

	w1 := start(t, "worker", common)
	deadline := time.Now().Add(30 * time.Second)
	for count(t, pool,
		`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pipeline_run_steps%'`) == 0 {
		require.True(t, time.Now().Before(deadline), "the worker never reached step a's completion")
		time.Sleep(20 * time.Millisecond)
	}
	w1.kill(t)
	require.NoError(t, lock.Rollback(ctx))
	require.Zero(t, count(t, pool, `SELECT count(*) FROM cards`), "the killed worker's step rolled back")

	start(t, "worker", common)
	resp, events := stream(t, ctx, "GET", api.URL+runs+"/"+run.ID+"/events", a.token, nil)
	defer resp.Body.Close()
	var last sseEvent
	for ev := range events {
		last = ev
		if ev.Event == "done" {
			break
		}
	}
	require.Equal(t, "done", last.Event, "the stream ended without a done event")
	require.EqualValues(t, "completed", last.Data.Status)

	var out struct {
		Status string `json:"status"`
		Steps  []struct {
			ID       string `json:"id"`
			Status   string `json:"status"`
			Attempts int    `json:"attempts"`
		} `json:"steps"`
	}
	code, raw = a.do("GET", runs+"/"+run.ID, nil, &out)
	require.Equal(t, http.StatusOK, code, raw)
	require.Equal(t, "completed", out.Status, raw)
	for _, st := range out.Steps {
		require.Equal(t, "completed", st.Status, raw)
		if st.ID == "a" {
			require.Equal(t, 2, st.Attempts, "step a was taken by the killed worker, then by the rescuer")
		}
	}
	// Every step's effect happened once.
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM cards WHERE title = 'Made once'`))
	require.Equal(t, 2, count(t, pool, `SELECT count(*) FROM cards`))
	require.Equal(t, 2, count(t, pool, `SELECT count(*) FROM activities WHERE type = 'card_created'`))
	require.Equal(t, 2, count(t, pool, `SELECT count(*) FROM activities WHERE type = 'pipeline_notice'`))
	require.Equal(t, 4, count(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_step'`),
		"no step enqueued twice")
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM stream_events WHERE stream_id = $1 AND type = 'done'`,
		run.ID))
}

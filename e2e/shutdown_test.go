package e2e

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/pgtest"
)

// TestAPIGracefulShutdown: on SIGTERM an api process stops accepting connections, ends its event
// streams at once so their clients resume elsewhere with Last-Event-ID, lets a request in flight (an
// upload still sending its body) finish, and exits cleanly within SHUTDOWN_GRACE_PERIOD. A client that
// resumes on another api process misses no event and sees none twice.
func TestAPIGracefulShutdown(t *testing.T) {
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	llm, llmURL := newFakeLLM(t, true)
	files := t.TempDir()
	env := commonEnv(dbURL, llmURL, "SHUTDOWN_GRACE_PERIOD=20s", "ATTACHMENTS_DIR="+files)
	apiA, apiB := start(t, "api", env), start(t, "api", env)
	start(t, "worker", env)
	tn := newTenant(t, pool, apiA, "ann@example.com")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	respA, evA := stream(t, ctx, "POST", apiA.URL+tn.ws+"/agent-runtime/card-mission", tn.token,
		map[string]any{"cardId": tn.card, "projectId": tn.prjID(), "agentId": tn.agent})
	defer respA.Body.Close()
	select {
	case <-llm.turn2Started: // the mission has written its first turn's events and waits on the model
	case <-ctx.Done():
		t.Fatal("the mission never reached its second model turn")
	}

	// An upload in flight: its headers and the start of its body are sent, the rest comes after SIGTERM.
	body, bodyW := io.Pipe()
	mw := multipart.NewWriter(bodyW)
	uploaded := make(chan int, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", apiA.URL+tn.prj+"/cards/"+tn.card+"/attachments", body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+tn.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Logf("upload: %v", err)
			uploaded <- -1
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		uploaded <- resp.StatusCode
	}()
	part, err := mw.CreateFormFile("file", "notes.txt")
	require.NoError(t, err)
	_, err = part.Write([]byte(strings.Repeat("first half\n", 100)))
	require.NoError(t, err)

	// The api is streaming the upload into storage (its temporary file exists) before it is told to stop:
	// a connection it had not yet accepted would be refused, not drained.
	require.Eventually(t, func() bool {
		found := false
		_ = filepath.WalkDir(files, func(_ string, d fs.DirEntry, _ error) error {
			found = found || (d != nil && strings.HasPrefix(d.Name(), ".put-"))
			return nil
		})
		return found
	}, 30*time.Second, 10*time.Millisecond, "the api never started reading the upload")
	require.NoError(t, apiA.cmd.Process.Signal(syscall.SIGTERM))
	// The listener closes: new connections are refused while the upload is still being sent.
	addr := strings.TrimPrefix(apiA.URL, "http://")
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return true
		}
		_ = c.Close()
		return false
	}, 15*time.Second, 20*time.Millisecond, "api A kept accepting connections after SIGTERM")

	// The stream on A ends (it does not hold the shutdown for the grace period).
	var seenA []string
	for ev := range evA {
		seenA = append(seenA, ev.ID)
	}
	require.NotEmpty(t, seenA)

	// The upload finishes and succeeds.
	_, err = part.Write([]byte(strings.Repeat("second half\n", 100)))
	if err != nil {
		t.Fatalf("the upload ended early (%v), answered %d", err, <-uploaded)
	}
	require.NoError(t, mw.Close())
	require.NoError(t, bodyW.Close())
	select {
	case code := <-uploaded:
		require.Equal(t, http.StatusCreated, code)
	case <-ctx.Done():
		t.Fatal("the upload never finished")
	}
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM attachments WHERE card_id = $1 AND size = $2`, tn.card,
		len(strings.Repeat("first half\n", 100))+len(strings.Repeat("second half\n", 100))))
	require.Equal(t, 0, apiA.exitCode(t, 30*time.Second), "api A did not shut down cleanly within its grace period")

	// The client resumes on api B after the last event it saw, and the mission goes on.
	missionID := lastMission(t, pool)
	req, _ := http.NewRequestWithContext(ctx, "GET", apiB.URL+tn.ws+"/missions/"+missionID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+tn.token)
	req.Header.Set("Last-Event-ID", seenA[len(seenA)-1])
	respB, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer respB.Body.Close()
	require.Equal(t, http.StatusOK, respB.StatusCode)
	evB := make(chan sseEvent, 256)
	go readEvents(respB.Body, evB)
	close(llm.release)
	seen := map[string]bool{}
	for _, id := range seenA {
		require.False(t, seen[id], "event %s twice on A", id)
		seen[id] = true
	}
	var last sseEvent
	for ev := range evB {
		require.False(t, seen[ev.ID], "event %s seen again after resuming", ev.ID)
		seen[ev.ID] = true
		last = ev
		if ev.Event == "done" {
			break
		}
	}
	require.EqualValues(t, "completed", last.Data.Status)
	n := count(t, pool, `SELECT count(*) FROM stream_events WHERE stream_id = $1`, missionID)
	require.Len(t, seen, n)
	for i := 1; i <= n; i++ {
		require.True(t, seen[fmt.Sprint(i)], "event %d missed", i)
	}
}

// TestWorkerGracefulShutdown: on SIGTERM a worker stops fetching and lets its running jobs finish; a
// job still running when SHUTDOWN_GRACE_PERIOD ends is cancelled and released for retry, and the process
// exits cleanly either way. Another worker then finishes that mission, once.
func TestWorkerGracefulShutdown(t *testing.T) {
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	llm1, llmURL1 := newFakeLLM(t, true)
	llm2, llmURL2 := newFakeLLM(t, true)
	api := start(t, "api", commonEnv(dbURL, llmURL1))
	w1 := start(t, "worker", commonEnv(dbURL, llmURL1, "SHUTDOWN_GRACE_PERIOD=30s"))
	tn := newTenant(t, pool, api, "ann@example.com")
	mission := func(cardID string) string {
		var m idOut
		code, raw := tn.do("POST", tn.ws+"/agents/"+tn.agent+"/missions", map[string]any{"cardId": cardID, "prompt": "Plan"},
			&m)
		require.Equal(t, http.StatusCreated, code, raw)
		return m.ID
	}
	var other idOut
	code, raw := tn.do("POST", tn.prj+"/cards", map[string]any{"title": "Write the notes"}, &other)
	require.Equal(t, http.StatusCreated, code, raw)

	// A mission is running on w1 when it is told to stop.
	first := mission(tn.card)
	select {
	case <-llm1.turn2Started:
	case <-time.After(60 * time.Second):
		t.Fatal("the first mission never reached its second model turn")
	}
	require.NoError(t, w1.cmd.Process.Signal(syscall.SIGTERM))
	// A mission queued now is not fetched by the stopping worker, and the running one finishes there.
	second := mission(other.ID)
	close(llm1.release)
	require.Equal(t, 0, w1.exitCode(t, 30*time.Second))
	require.Equal(t, "completed", missionStatus(t, pool, first))
	require.Equal(t, "queued", missionStatus(t, pool, second), "a stopping worker took a new job")

	// w2 takes the second mission and is stopped while the model stalls, past its 2s grace period: the
	// job is cancelled and released, the mission stays running, and the process exits cleanly.
	env2 := commonEnv(dbURL, llmURL2, "SHUTDOWN_GRACE_PERIOD=2s")
	w2 := start(t, "worker", env2)
	select {
	case <-llm2.turn2Started:
	case <-time.After(60 * time.Second):
		t.Fatal("the second mission never reached its second model turn")
	}
	require.Equal(t, 0, w2.terminate(t, 30*time.Second))
	require.Equal(t, "running", missionStatus(t, pool, second), "a worker shutting down leaves the mission to be resumed")

	// w3 resumes it; the first turn's actions are not applied twice.
	close(llm2.release)
	start(t, "worker", env2)
	require.Eventually(t, func() bool { return missionStatus(t, pool, second) == "completed" }, 60*time.Second,
		50*time.Millisecond)
	for _, card := range []string{tn.card, other.ID} {
		require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM comments WHERE card_id = $1`, card))
		require.Equal(t, 2, count(t, pool, `SELECT count(*) FROM checklist_items WHERE card_id = $1`, card))
	}
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM stream_events WHERE stream_id = $1 AND type = 'done'`,
		second))
}

// lastMission is the id of the newest mission.
func lastMission(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var id string
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT id FROM agent_missions ORDER BY created_at DESC LIMIT 1`).Scan(&id))
	return id
}

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/pgtest"
)

// fakeLLM is an OpenAI-compatible chat server speaking the streaming wire protocol. Turn 1 asks for two
// tool calls; turn 2 (after tool results) stalls while stall is set, until the calling worker gives up
// or release is closed, else answers a summary.
type fakeLLM struct {
	stall        atomic.Bool
	turn2Started chan struct{}
	release      chan struct{}
	// pace is the model's latency between two chunks of an answer (none when zero).
	pace  time.Duration
	once  sync.Once
	calls atomic.Int32
	// stalls, when set, hears of every stalled call as it starts; cut, of the time each one's caller
	// gave up on it (its request cancelled).
	stalls chan struct{}
	cut    chan time.Time
}

// newFakeLLM serves a fake model; it starts stalling when stall is true.
func newFakeLLM(t *testing.T, stall bool) (*fakeLLM, string) {
	t.Helper()
	f := &fakeLLM{turn2Started: make(chan struct{}), release: make(chan struct{})}
	f.stall.Store(stall)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

// commonEnv is the environment every process of a test shares.
func commonEnv(dbURL, llmURL string, extra ...string) []string {
	return baseEnv(dbURL, append([]string{"LLM_BASE_URL=" + llmURL + "/v1", "LLM_API_KEY=test-key", "LLM_MODEL=fake",
		"MISSION_TIMEOUT=30s", "WORKER_RESCUE_AFTER=3s", "DATABASE_MAX_CONNS=10"}, extra...)...)
}

// baseEnv is what every process needs: the database, a development environment and a JWT secret.
func baseEnv(dbURL string, extra ...string) []string {
	return append([]string{"DATABASE_URL=" + dbURL, "APP_ENV=development",
		"JWT_SECRET=e2e-secret-e2e-secret-e2e-secret-e2e"}, extra...)
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	turn2 := false
	for _, m := range req.Messages {
		if m.Role == "tool" {
			turn2 = true
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	send := func(chunk map[string]any) {
		if f.pace > 0 {
			select { // a slow model's latency, cut short when the caller gives up
			case <-time.After(f.pace):
			case <-r.Context().Done():
			}
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		flusher.Flush()
	}
	choice := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "fake",
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if turn2 {
		if f.stall.Load() {
			f.once.Do(func() { close(f.turn2Started) })
			if f.stalls != nil {
				f.stalls <- struct{}{}
			}
			select {
			case <-r.Context().Done(): // the worker holding this call died or gave up
				if f.cut != nil {
					f.cut <- time.Now()
				}
				return
			case <-f.release:
			}
		}
		for _, word := range []string{"Added ", "a plan ", "and two steps."} {
			send(choice(map[string]any{"role": "assistant", "content": word}, nil))
		}
		send(choice(map[string]any{}, "stop"))
	} else {
		send(choice(map[string]any{"role": "assistant", "tool_calls": []map[string]any{
			{"index": 0, "id": "call_1", "type": "function", "function": map[string]any{"name": "add_comment",
				"arguments": `{"content":"Plan: ship it"}`}},
			{"index": 1, "id": "call_2", "type": "function", "function": map[string]any{"name": "add_checklist_items",
				"arguments": `{"items":["write","review"]}`}},
		}}, nil))
		send(choice(map[string]any{}, "tool_calls"))
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	flusher.Flush()
}

type client struct {
	t     testing.TB
	base  string
	token string
}

// do sends a JSON request and, when it succeeds, decodes the JSON answer into out; it answers the status
// and the raw body, for failure messages.
func (c client) do(method, path string, body, out any) (int, string) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	if resp.StatusCode < 300 {
		require.NoError(c.t, json.Unmarshal(raw, out), "%s %s: %s", method, path, raw)
	}
	return resp.StatusCode, string(raw)
}

// The parts of the api's answers this test reads (package api's output types are not importable here).
type (
	// idOut is anything created: an agent, a project, a card.
	idOut struct {
		ID string `json:"id"`
	}
	missionOut struct {
		Status string `json:"status"`
	}
	// eventData is a mission event's JSON data.
	eventData struct {
		MissionID string `json:"missionId"`
		Status    string `json:"status"`
		Message   string `json:"message"`
	}
)

// sseEvent is one event read from a stream.
type sseEvent struct {
	ID, Event string
	Data      eventData
	hasData   bool
}

// readEvents reads a server-sent event stream, sending each event on out until the body ends.
func readEvents(body io.Reader, out chan<- sseEvent) {
	defer close(out)
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Event != "" || ev.hasData {
				out <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id:"):
			ev.ID = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "event:"):
			ev.Event = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:"):
			ev.hasData = json.Unmarshal([]byte(strings.TrimSpace(line[5:])), &ev.Data) == nil
		}
	}
}

func stream(t *testing.T, ctx context.Context, method, url, token string, body any) (*http.Response, chan sseEvent) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequestWithContext(ctx, method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/event-stream")
	events := make(chan sseEvent, 256)
	go readEvents(resp.Body, events)
	return resp, events
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// TestMissionAcrossProcesses runs two api and two worker processes on one database. A mission started
// on api A is watched from api B; the workers are SIGKILLed in the middle of it, a fresh worker rescues
// the job, and the mission finishes once with no card change applied twice.
func TestMissionAcrossProcesses(t *testing.T) {
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	llm, llmURL := newFakeLLM(t, true)
	common := commonEnv(dbURL, llmURL)
	apiA := start(t, "api", common)
	apiB := start(t, "api", common)
	w1 := start(t, "worker", common)
	w2 := start(t, "worker", common)

	tn := newTenant(t, pool, apiA, "ann@example.com")
	a, b := tn.client, tn.on(apiB)
	ws, prjID, cardID := tn.ws, tn.prjID(), tn.card

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Start the mission on api A: the answer is its event stream.
	respA, evA := stream(t, ctx, "POST", apiA.URL+ws+"/agent-runtime/card-mission", a.token,
		map[string]any{"cardId": cardID, "projectId": prjID, "agentId": tn.agent})
	defer respA.Body.Close()
	var first sseEvent
	select {
	case first = <-evA:
	case <-ctx.Done():
		t.Fatal("no first event on api A")
	}
	missionID := first.Data.MissionID
	require.NotEmpty(t, missionID, "first event: %+v", first)

	// Watch it from api B.
	respB, evB := stream(t, ctx, "GET", apiB.URL+ws+"/missions/"+missionID+"/events", a.token, nil)
	defer respB.Body.Close()

	// The first model turn's actions are applied; the second turn stalls. Kill every worker now.
	select {
	case <-llm.turn2Started:
	case <-time.After(60 * time.Second):
		t.Fatal("the mission never reached its second model turn")
	}
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM comments WHERE card_id = $1`, cardID))
	w1.kill(t)
	w2.kill(t)
	require.Equal(t, "running", missionStatus(t, pool, missionID))

	// A fresh worker rescues the orphaned job and the mission resumes where it stopped.
	llm.stall.Store(false)
	start(t, "worker", common)

	var last sseEvent
	seqs := map[string]bool{}
	prev := 0
	for ev := range evB {
		require.False(t, seqs[ev.ID], "event %s delivered twice on api B", ev.ID)
		var n int
		_, _ = fmt.Sscan(ev.ID, &n)
		require.Greater(t, n, prev, "events out of order on api B")
		prev = n
		seqs[ev.ID] = true
		last = ev
		if ev.Event == "done" {
			break
		}
	}
	require.Equal(t, "done", last.Event, "api B's stream ended without a done event")
	require.EqualValues(t, "completed", last.Data.Status)

	var m missionOut
	_, raw := b.do("GET", ws+"/missions/"+missionID, nil, &m)
	require.Equal(t, "completed", m.Status, raw)
	// Finished once, and no card change applied twice.
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM comments WHERE card_id = $1`, cardID))
	require.Equal(t, 2, count(t, pool, `SELECT count(*) FROM checklist_items WHERE card_id = $1`, cardID))
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM stream_events WHERE stream_id = $1 AND type = 'done'`,
		missionID))
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'comment_added'`,
		cardID))
	require.Equal(t, 2, count(t, pool, `SELECT count(*) FROM mission_steps WHERE mission_id = $1`, missionID))
	// api B relayed the mission's whole log, in order, without gaps.
	require.Equal(t, count(t, pool, `SELECT count(*) FROM stream_events WHERE stream_id = $1`, missionID), len(seqs))
	for i := 1; i <= len(seqs); i++ {
		require.True(t, seqs[fmt.Sprint(i)], "event %d missing on api B", i)
	}
}

func missionStatus(t *testing.T, pool *pgxpool.Pool, id string) string {
	t.Helper()
	var s string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT status FROM agent_missions WHERE id = $1`, id).Scan(&s))
	return s
}

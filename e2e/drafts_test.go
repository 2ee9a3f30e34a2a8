package e2e

import (
	"bufio"
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

// draftLLM is an OpenAI-compatible server answering draft roadmaps with structured output. While
// stall is set, it streams the start of a roadmap and then holds the call until its worker dies.
type draftLLM struct {
	stall   atomic.Bool
	stalled chan struct{}
	once    sync.Once
	calls   atomic.Int32
}

const e2eRoadmap = `{"phases":[` +
	`{"name":"Inventory","goal":"Know the data","deliverables":[{"title":"Source list","description":"Every table"}]},` +
	`{"name":"Cutover","goal":"Switch safely","deliverables":[` +
	`{"title":"Runbook","description":"Go/no-go points"},{"title":"Rollback","description":"Tested"}]}]}`

func (f *draftLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	send := func(content string) {
		b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "fake",
			"choices": []map[string]any{{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		flusher.Flush()
	}
	if f.stall.Load() {
		send(e2eRoadmap[:30])
		f.once.Do(func() { close(f.stalled) })
		<-r.Context().Done() // until the worker holding this call dies
		return
	}
	for i := 0; i < len(e2eRoadmap); i += 16 {
		send(e2eRoadmap[i:min(i+16, len(e2eRoadmap))])
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	flusher.Flush()
}

// draftEventData is a draft event's JSON data.
type draftEventData struct {
	DraftID string          `json:"draftId"`
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// TestDraftRoadmapRescuedAfterSIGKILL: a roadmap job is SIGKILLed mid-answer with every worker; a fresh
// worker rescues it and it finishes once. The draft was never half-written: generating until the
// rescued attempt wrote the whole roadmap, with one done event, watched live from another api process.
func TestDraftRoadmapRescuedAfterSIGKILL(t *testing.T) {
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	fake := &draftLLM{stalled: make(chan struct{})}
	fake.stall.Store(true)
	llmServer := httptest.NewServer(fake)
	t.Cleanup(llmServer.Close)

	common := commonEnv(dbURL, llmServer.URL, "DRAFT_TIMEOUT=30s", "DRAFT_WAIT=1s")
	apiA := start(t, "api", common)
	apiB := start(t, "api", common)
	w1 := start(t, "worker", common)

	a, orgSlug, wsSlug := register(t, pool, apiA, "ann@example.com")
	b := client{t: t, base: apiB.URL, token: a.token}
	drafts := "/orgs/" + orgSlug + "/workspaces/" + wsSlug + "/project-drafts"
	var d idOut
	code, raw := a.do("POST", drafts, map[string]any{"name": "Ledger move", "description": "Migrate the legacy ledger."},
		&d)
	require.Equal(t, http.StatusCreated, code, raw)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Watch from api B before anything runs: a draft without a job keeps its stream open.
	respB, evB := streamRaw(t, ctx, apiB.URL+drafts+"/"+d.ID+"/events", a.token)
	defer respB.Body.Close()

	var state struct {
		Status  string `json:"status"`
		Roadmap *struct {
			Phases []struct {
				Name string `json:"name"`
			} `json:"phases"`
		} `json:"roadmap"`
		ProjectID *string `json:"projectId"`
	}
	code, raw = a.do("POST", drafts+"/"+d.ID+"/generate-roadmap", nil, &state)
	require.Equal(t, http.StatusAccepted, code, raw)
	require.EqualValues(t, "generating", state.Status)
	select {
	case <-fake.stalled:
	case <-ctx.Done():
		t.Fatal("the roadmap job never called the model")
	}
	w1.kill(t)
	_, raw = b.do("GET", drafts+"/"+d.ID, nil, &state)
	require.Equal(t, "generating", state.Status, raw)
	require.Nil(t, state.Roadmap, "nothing half-written")

	// A fresh worker rescues the orphaned job; the second attempt answers in full.
	fake.stall.Store(false)
	start(t, "worker", common)

	var seen []draftEventData
	prev := 0
	for ev := range evB {
		var n int
		_, _ = fmt.Sscan(ev.ID, &n)
		require.Greater(t, n, prev, "events out of order or twice on api B")
		prev = n
		var data draftEventData
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &data))
		require.Equal(t, d.ID, data.DraftID)
		seen = append(seen, data)
		if ev.Event == "done" {
			break
		}
	}
	require.NotEmpty(t, seen)
	last := seen[len(seen)-1]
	require.EqualValues(t, "roadmap_ready", last.Status)
	var messages []string
	for _, ev := range seen {
		messages = append(messages, ev.Message)
	}
	require.Contains(t, messages, "roadmap generation started again (attempt 2)")

	_, raw = b.do("GET", drafts+"/"+d.ID, nil, &state)
	require.Equal(t, "roadmap_ready", state.Status, raw)
	require.Len(t, state.Roadmap.Phases, 2)
	require.Equal(t, "Cutover", state.Roadmap.Phases[1].Name)
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM stream_events WHERE stream_id = $1 AND type = 'done'`, d.ID))
	require.Equal(t, int32(2), fake.calls.Load(), "the killed call and the rescued one")

	// Execute through api B: three cards in two columns.
	var ex struct {
		Project struct {
			ID string `json:"id"`
		} `json:"project"`
	}
	code, raw = b.do("POST", drafts+"/"+d.ID+"/execute", nil, &ex)
	require.Equal(t, http.StatusCreated, code, raw)
	require.Equal(t, 2, count(t, pool, `SELECT count(*) FROM columns WHERE project_id = $1`, ex.Project.ID))
	require.Equal(t, 3, count(t, pool, `SELECT count(*) FROM cards WHERE project_id = $1`, ex.Project.ID))
	code, raw = a.do("POST", drafts+"/"+d.ID+"/execute", nil, &ex)
	require.Equal(t, http.StatusConflict, code, raw)
	// roadmap_ready was not final: api B's stream, open since the start, ends with the execution.
	ev, ok := <-evB
	require.True(t, ok, "api B's stream ended before the execution")
	require.Equal(t, "done", ev.Event)
	var data draftEventData
	require.NoError(t, json.Unmarshal([]byte(ev.Data), &data))
	require.EqualValues(t, "executed", data.Status)
	_, ok = <-evB
	require.False(t, ok, "api B's stream went on after the execution")
}

// rawEvent is one server-sent event with its data left as text.
type rawEvent struct{ ID, Event, Data string }

// streamRaw opens GET url as an event stream and sends its events on the channel until the body ends.
func streamRaw(t *testing.T, ctx context.Context, url, token string) (*http.Response, chan rawEvent) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	out := make(chan rawEvent, 1024)
	go func() {
		defer close(out)
		var ev rawEvent
		buf := make([]byte, 0, 1<<16)
		sc := newLineScanner(resp.Body, buf)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" {
					out <- ev
				}
				ev = rawEvent{}
			case len(line) > 3 && line[:3] == "id:":
				ev.ID = trimField(line[3:])
			case len(line) > 6 && line[:6] == "event:":
				ev.Event = trimField(line[6:])
			case len(line) > 5 && line[:5] == "data:":
				ev.Data = trimField(line[5:])
			}
		}
	}()
	return resp, out
}

func newLineScanner(r io.Reader, buf []byte) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(buf, 1<<20)
	return sc
}

func trimField(s string) string { return strings.TrimSpace(s) }

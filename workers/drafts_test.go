package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/llm"
)

// fakeOpenAI is an in-process OpenAI-compatible server: answer(n) handles the n-th request (1-based).
type fakeOpenAI struct {
	*httptest.Server
	requests atomic.Int32
}

func newFakeOpenAI(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int)) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			ResponseFormat struct {
				Type string `json:"type"`
			} `json:"response_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.ResponseFormat.Type != "json_schema" {
			t.Errorf("a draft request asks for structured output: %v %q", err, req.ResponseFormat.Type)
		}
		answer(w, r, int(f.requests.Add(1)))
	}))
	t.Cleanup(f.Close)
	return f
}

// streamContent answers a streamed completion whose content is text, in two chunks.
func streamContent(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, part := range []string{text[:len(text)/2], text[len(text)/2:]} {
		b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": part}}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (f *fakeOpenAI) provider(timeout time.Duration) llm.Provider {
	return llm.NewOpenAI(llm.OpenAIConfig{BaseURL: f.URL, APIKey: "k", Model: "m", Timeout: timeout, MaxRetries: 1,
		RetryBackoff: time.Millisecond, MaxRetryWait: 10 * time.Millisecond})
}

// roadmapJob creates a draft and starts its roadmap run; it answers the draft and the job inserted.
func (b *testBundle) roadmapJob(t *testing.T) (draft.Draft, *rivertype.JobRow) {
	t.Helper()
	ctx := context.Background()
	owner := testfactory.User(t, b.Engines, nil)
	d, err := b.Drafts.Create(ctx, draft.NewDraft{WorkspaceID: owner.Workspace.ID, ActorID: owner.User.ID,
		Name: "Ledger move", Description: "Migrate the legacy ledger database."})
	require.NoError(t, err)
	step, err := b.Drafts.GenerateRoadmap(ctx, owner.Workspace.ID, d.ID)
	require.NoError(t, err)
	require.True(t, step.Enqueued)
	res, err := b.River.JobList(ctx, river.NewJobListParams().Kinds(jobs.DraftRoadmapArgs{}.Kind()))
	require.NoError(t, err)
	require.Len(t, res.Jobs, 1)
	require.Equal(t, jobs.QueueDrafts, res.Jobs[0].Queue)
	return step.Draft, res.Jobs[0]
}

// workDraft works the job once with a roadmap worker on provider; it answers River's verdict.
func (b *testBundle) workDraft(t *testing.T, provider llm.Provider, job *rivertype.JobRow) river.EventKind {
	t.Helper()
	kind, _ := b.workDraftJob(t, provider, job)
	return kind
}

// workDraftJob is workDraft that also answers the job row as it is after the work.
func (b *testBundle) workDraftJob(t *testing.T, provider llm.Provider,
	job *rivertype.JobRow) (river.EventKind, *rivertype.JobRow) {
	t.Helper()
	deps := b.deps
	deps.LLM = provider
	var res *rivertest.WorkResult
	b.inTx(t, func(tx pgx.Tx) {
		// A failed attempt comes back as its error too; the result says what River made of it.
		res, _ = testWorker(t, b, NewDraftRoadmapWorker(deps)).WorkJob(context.Background(), t, tx, job)
		require.NotNil(t, res)
	})
	return res.EventKind, res.Job
}

func (b *testBundle) draftEvents(t *testing.T, id string) []db.StreamEvent {
	t.Helper()
	evs, err := b.Store.StreamEventsAfter(context.Background(), id, 0, 1000)
	require.NoError(t, err)
	return evs
}

func (b *testBundle) getDraft(t *testing.T, d draft.Draft) draft.Draft {
	t.Helper()
	got, err := b.Drafts.Get(context.Background(), d.WorkspaceID, d.ID)
	require.NoError(t, err)
	return got
}

// requireFailed asserts the draft failed with a reason containing want, told by a done event (not final:
// a failed draft may refine or generate again, so its stream goes on).
func (b *testBundle) requireFailed(t *testing.T, d draft.Draft, want string) {
	t.Helper()
	got := b.getDraft(t, d)
	require.Equal(t, draft.DraftFailed, got.Status)
	require.NotNil(t, got.Error)
	require.Contains(t, *got.Error, want)
	require.Nil(t, got.Roadmap)
	evs := b.draftEvents(t, d.ID)
	last := evs[len(evs)-1]
	require.Equal(t, draft.DraftEventDone, last.Type)
	require.Equal(t, draft.DraftFailed, last.Status)
	require.False(t, last.Final)
	require.Equal(t, *got.Error, last.Message)
}

// Malformed JSON from the model is asked for once more; a second malformed answer fails the draft with
// the reason, and River does not retry the job.
func TestDraftWorkerMalformedOutput(t *testing.T) {
	b := setup(t)
	d, job := b.roadmapJob(t)
	fake := newFakeOpenAI(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		streamContent(w, `{"phases": [{"name": "Plan", "goal": `)
	})
	require.Equal(t, river.EventKindJobCompleted, b.workDraft(t, fake.provider(5*time.Second), job))
	require.Equal(t, int32(2), fake.requests.Load())
	b.requireFailed(t, d, "unusable output")
	var retried bool
	for _, ev := range b.draftEvents(t, d.ID) {
		retried = retried || ev.Message == "the model's answer was unusable; asking once more"
	}
	require.True(t, retried)

	// A failed draft may generate again; a good answer then makes it ready.
	_, err := b.Drafts.GenerateRoadmap(context.Background(), d.WorkspaceID, d.ID)
	require.NoError(t, err)
	res, err := b.River.JobList(context.Background(),
		river.NewJobListParams().Kinds(jobs.DraftRoadmapArgs{}.Kind()).States(rivertype.JobStateAvailable))
	require.NoError(t, err)
	require.Len(t, res.Jobs, 1)
	good := newFakeOpenAI(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		streamContent(w,
			`{"phases":[{"name":"Plan","goal":"Agree","deliverables":[{"title":"Brief","description":"One page"}]}]}`)
	})
	require.Equal(t, river.EventKindJobCompleted, b.workDraft(t, good.provider(5*time.Second), res.Jobs[0]))
	got := b.getDraft(t, d)
	require.Equal(t, draft.DraftRoadmapReady, got.Status)
	require.Nil(t, got.Error)
	require.Equal(t, &draft.DraftRoadmap{Phases: []draft.DraftPhase{{Name: "Plan", Goal: "Agree",
		Deliverables: []draft.DraftDeliverable{{Title: "Brief", Description: "One page"}}}}}, got.Roadmap)
}

// A model that keeps answering 429, or does not answer in time, fails the draft with the reason.
func TestDraftWorkerRateLimitedAndTimeout(t *testing.T) {
	t.Run("429", func(t *testing.T) {
		b := setup(t)
		d, job := b.roadmapJob(t)
		fake := newFakeOpenAI(t, func(w http.ResponseWriter, _ *http.Request, n int) {
			w.Header().Set("Retry-After", "0")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
		})
		require.Equal(t, river.EventKindJobCompleted, b.workDraft(t, fake.provider(5*time.Second), job))
		require.Equal(t, int32(2), fake.requests.Load(), "one call and its one retry")
		b.requireFailed(t, d, "rate limited")
	})
	t.Run("timeout", func(t *testing.T) {
		b := setup(t)
		d, job := b.roadmapJob(t)
		fake := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})
		require.Equal(t, river.EventKindJobCompleted, b.workDraft(t, fake.provider(300*time.Millisecond), job))
		b.requireFailed(t, d, "did not answer in time")
	})
}

// flakyLLM fails its first call as a lost connection would, then answers as the offline planner.
type flakyLLM struct{ calls atomic.Int32 }

func (*flakyLLM) Name() string { return "flaky" }

func (f *flakyLLM) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if f.calls.Add(1) == 1 {
		return llm.Response{}, errors.New("connection reset by peer")
	}
	return llm.NewOffline().Chat(ctx, req)
}

// An attempt that dies mid-way leaves the draft generating, untouched; River's retry finishes it, once:
// another run of the same job (a rescued duplicate) writes nothing more.
func TestDraftWorkerRetryFinishesOnce(t *testing.T) {
	b := setup(t)
	d, job := b.roadmapJob(t)
	flaky := &flakyLLM{}
	kind, retry := b.workDraftJob(t, flaky, job)
	require.Equal(t, river.EventKindJobFailed, kind)
	require.Contains(t, []rivertype.JobState{rivertype.JobStateRetryable, rivertype.JobStateAvailable}, retry.State,
		"to be retried")
	require.Equal(t, 1, retry.Attempt)
	got := b.getDraft(t, d)
	require.Equal(t, draft.DraftGenerating, got.Status)
	require.Nil(t, got.Roadmap)

	require.Equal(t, river.EventKindJobCompleted, b.workDraft(t, flaky, retry))
	got = b.getDraft(t, d)
	require.Equal(t, draft.DraftRoadmapReady, got.Status)
	require.Equal(t, "Inventory and mapping", got.Roadmap.Phases[0].Name)

	before := b.draftEvents(t, d.ID)
	workNew(t, b, NewDraftRoadmapWorker(b.deps), jobs.DraftRoadmapArgs{DraftID: d.ID, Run: got.Run}, nil)
	require.Equal(t, before, b.draftEvents(t, d.ID), "a duplicate run writes nothing")
	done := 0
	for _, ev := range before {
		if ev.Type == draft.DraftEventDone {
			done++
		}
	}
	require.Equal(t, 1, done)
	var attempts []string
	for _, ev := range before {
		if ev.Type == draft.DraftEventStatus {
			attempts = append(attempts, ev.Message)
		}
	}
	require.Equal(t, []string{"roadmap generation queued", "roadmap generation started", "roadmap generation started " +
		"again (attempt 2)"}, attempts)
}

// A draft deleted while its job waits: the job does nothing, and its stream is not made again.
func TestDraftWorkerDraftDeleted(t *testing.T) {
	b := setup(t)
	d, job := b.roadmapJob(t)
	require.NoError(t, b.Drafts.Delete(context.Background(), d.WorkspaceID, d.ID))
	require.Equal(t, river.EventKindJobCompleted, b.workDraft(t, nil, job))
	require.Empty(t, b.draftEvents(t, d.ID))
	st, err := b.Store.StreamState(context.Background(), d.ID)
	require.NoError(t, err)
	require.Equal(t, db.StreamState{}, st)
	require.ErrorIs(t, b.Drafts.AppendEvent(context.Background(), d.ID, db.NewStreamEvent{Type: draft.DraftEventToken}),
		draft.ErrDraftStale)
}

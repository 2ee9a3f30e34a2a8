package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/llm"
	"github.com/pilot-dev/pilot/workers"
)

// draftServer is an api server over real HTTP with a worker process's River client working the jobs.
type draftServer struct {
	*streamServer
}

// newDraftServer starts an api server (refine and generate-roadmap wait `wait` for their job) and a
// started worker client on the same database; provider nil is the offline planner.
func newDraftServer(t *testing.T, wait time.Duration, provider llm.Provider) *draftServer {
	t.Helper()
	s := newStreamServerWith(t, nil, stream.Config{}, Options{DraftWait: wait})
	client, _, err := workers.NewClient(s.pool, workers.Config{Concurrency: 2,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), LLM: provider, FetchCooldown: 10 * time.Millisecond,
		PollInterval: 100 * time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, client.Start(ctx))
	t.Cleanup(func() {
		stopCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		_ = client.Stop(stopCtx)
		cancel()
	})
	return &draftServer{s}
}

func draftsPath(u user) string {
	return "/orgs/" + u.OrgSlug + "/workspaces/" + u.WsSlug + "/project-drafts"
}

func (s *draftServer) createDraft(u user, body map[string]any) DraftOut {
	s.t.Helper()
	r := s.do("POST", draftsPath(u), u.Token, body)
	requireStatus(s.t, r, http.StatusCreated)
	return decode[DraftOut](s.t, r)
}

func (s *draftServer) openDraft(u user, id string, header map[string]string) *ssetest.Stream {
	s.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + u.Token}
	for k, v := range header {
		h[k] = v
	}
	st := ssetest.Open(s.t, s.url+draftsPath(u)+"/"+id+"/events", h)
	require.Equal(s.t, http.StatusOK, st.Resp.StatusCode)
	require.Equal(s.t, "ok", st.Next(s.t, streamWait).Comment)
	return st
}

// draftEvent reads the next event and checks its frame against its data.
func draftEvent(t *testing.T, st *ssetest.Stream, draftID string) stream.Event {
	t.Helper()
	f := st.NextEvent(t, streamWait)
	ev := decodeJSON[stream.Event](t, []byte(f.Data))
	require.Equal(t, "draftId", ev.IDField)
	require.Equal(t, draftID, ev.StreamID)
	require.Equal(t, f.ID, strconv.FormatInt(ev.Seq, 10))
	require.Equal(t, f.Event, ev.Type)
	return ev
}

// The whole flow through a real worker with the offline planner: refine twice, generate the roadmap
// while watching it being written, execute into a project, and every step's 409 once it is done.
func TestDraftFlow(t *testing.T) {
	s := newDraftServer(t, 10*time.Second, nil)
	owner := s.register("ada@example.com")
	mate := s.register("bo@example.com")
	s.join(owner, mate, owner.OrgSlug, owner.WsSlug, "member")

	d := s.createDraft(owner, map[string]any{"name": "Field Notes",
		"description": "A mobile app for iOS and Android that lets inspectors take photos offline.",
		"contextDocuments": []map[string]any{{"title": "Inspection rules", "content": "Every photo needs a GPS position. " +
			"Reports go out within a day."}},
		"teamMembers": []map[string]any{{"name": "Bo", "role": "mobile developer", "email": "BO@example.com"},
			{"name": "Cy", "role": "UX designer", "email": "cy@example.com"}, {"name": "Di", "role": "tester"}}})
	require.Equal(t, draft.DraftFraming, d.Status)
	require.Empty(t, d.Questions)
	require.Nil(t, d.Roadmap)
	require.Nil(t, d.ProjectID)
	base := draftsPath(owner) + "/" + d.ID

	list := s.do("GET", draftsPath(owner), owner.Token, nil)
	requireStatus(t, list, http.StatusOK)
	require.Equal(t, []DraftOut{d}, decode[[]DraftOut](t, list))

	// Round 1: no answers yet; the job answers within the wait.
	r := s.do("POST", base+"/refine", owner.Token, map[string]any{})
	requireStatus(t, r, http.StatusOK)
	d = decode[DraftOut](t, r)
	require.Equal(t, draft.DraftRefined, d.Status)
	require.Equal(t, int32(1), d.Round)
	require.NotEmpty(t, d.Questions)
	require.LessOrEqual(t, len(d.Questions), 5)
	require.Contains(t, strings.Join(d.Questions, "\n"), "Field Notes")
	first := d.Questions

	// Round 2 with two answers: recorded, and neither question comes back.
	answers := []map[string]any{{"question": first[0], "answer": "Both, Android first because the inspectors use it"},
		{"question": first[1], "answer": "Yes, photos sync when back online"}}
	r = s.do("POST", base+"/refine", owner.Token, map[string]any{"answers": answers})
	requireStatus(t, r, http.StatusOK)
	d = decode[DraftOut](t, r)
	require.Equal(t, int32(2), d.Round)
	require.Len(t, d.Answers, 2)
	require.Equal(t, draft.DraftAnswer{Question: first[0], Answer: "Both, Android first because the inspectors use it"},
		d.Answers[0])
	require.NotContains(t, d.Questions, first[0])
	require.NotContains(t, d.Questions, first[1])

	// Watch the roadmap being written: a client of the idle draft waits for its next job and gets it
	// whole (status events, the model's tokens, done); roadmap_ready is not final (the draft may be
	// planned again or executed), so the stream stays open.
	st := s.openDraft(owner, d.ID, nil)
	r = s.do("POST", base+"/generate-roadmap", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	d = decode[DraftOut](t, r)
	require.Equal(t, draft.DraftRoadmapReady, d.Status)
	require.NotNil(t, d.Roadmap)
	require.Equal(t, "Discovery and UX", d.Roadmap.Phases[0].Name)
	var tokens strings.Builder
	var types []string
	var firstSeq, doneSeq int64
	for {
		ev := draftEvent(t, st, d.ID)
		if firstSeq == 0 {
			firstSeq = ev.Seq
		}
		types = append(types, ev.Type)
		if ev.Type == draft.DraftEventToken {
			tokens.WriteString(ev.Message)
		}
		if ev.Type == draft.DraftEventDone {
			require.Equal(t, draft.DraftRoadmapReady, ev.Status)
			require.Equal(t, map[string]any{"roadmap": decodeJSON[map[string]any](t, mustJSON(t, d.Roadmap))},
				decodeJSON[map[string]any](t, ev.Data))
			doneSeq = ev.Seq
			break
		}
	}
	require.Equal(t, "heartbeat", st.Next(t, streamWait).Comment, "roadmap_ready is not final: still open")
	watching := st
	require.Equal(t, []string{"status", "status"}, types[:2], "queued, started")
	require.Contains(t, types, "token")
	require.JSONEq(t, string(mustJSON(t, d.Roadmap)), tokens.String(), "the tokens are the roadmap as the model wrote it")
	require.Equal(t, int64(7), firstSeq, "the stream starts at the next job: two refinements took 3 events each")

	// Last-Event-ID replays from the table what follows it, across jobs and their done events (refined
	// is not final either), then follows live.
	st = s.openDraft(owner, d.ID, map[string]string{"Last-Event-ID": "1"})
	for seq := int64(2); seq <= doneSeq; seq++ {
		ev := draftEvent(t, st, d.ID)
		require.Equal(t, seq, ev.Seq)
		if seq == 3 {
			require.Equal(t, draft.DraftEventDone, ev.Type)
			require.Equal(t, draft.DraftRefined, ev.Status)
			require.Equal(t, first, decodeJSON[struct {
				Questions []string `json:"questions"`
				Round     int      `json:"round"`
			}](t, ev.Data).Questions)
		}
	}
	require.Equal(t, "heartbeat", st.Next(t, streamWait).Comment, "still open")
	st.Close()

	// Execute: columns are the phases, cards the deliverables, Bo (a workspace member, matched by
	// e-mail whatever its case) joins the project and is notified of each card.
	r = s.do("POST", base+"/execute", owner.Token, nil)
	requireStatus(t, r, http.StatusCreated)
	ex := decode[DraftExecutionOut](t, r)
	require.Equal(t, draft.DraftExecuted, ex.Draft.Status)
	require.Equal(t, &ex.Project.ID, ex.Draft.ProjectID)
	require.Equal(t, "Field Notes", ex.Project.Name)
	require.Equal(t, []string{"bo@example.com"}, ex.MembersAdded)
	require.Equal(t, []string{"Cy", "Di"}, ex.MembersSkipped)
	// Executed is the draft's final status: the client watching since the roadmap gets the execution's
	// event, then the end; a new client, with or without Last-Event-ID, gets the execution, then the end.
	ev := draftEvent(t, watching, d.ID)
	require.Equal(t, doneSeq+1, ev.Seq)
	require.Equal(t, draft.DraftEventDone, ev.Type)
	require.Equal(t, draft.DraftExecuted, ev.Status)
	require.Equal(t, map[string]any{"projectId": ex.Project.ID}, decodeJSON[map[string]any](t, ev.Data))
	watching.RequireEnd(t, streamWait)
	for _, h := range []map[string]string{nil, {"Last-Event-ID": strconv.FormatInt(doneSeq, 10)}} {
		st = s.openDraft(owner, d.ID, h)
		require.Equal(t, doneSeq+1, draftEvent(t, st, d.ID).Seq)
		st.RequireEnd(t, streamWait)
	}
	st = s.openDraft(owner, d.ID, map[string]string{"Last-Event-ID": strconv.FormatInt(doneSeq+1, 10)})
	st.RequireEnd(t, streamWait)
	prj := "/orgs/" + owner.OrgSlug + "/workspaces/" + owner.WsSlug + "/projects/" + ex.Project.ID
	cols := decode[[]ColumnOut](t, s.do("GET", prj+"/columns", owner.Token, nil))
	cards := decode[[]CardOut](t, s.do("GET", prj+"/cards", owner.Token, nil))
	wantCards := 0
	require.Len(t, cols, len(d.Roadmap.Phases))
	for i, ph := range d.Roadmap.Phases {
		require.Equal(t, ph.Name, cols[i].Name)
		n := 0
		for _, c := range cards {
			if c.ColumnID == cols[i].ID {
				require.Equal(t, ph.Deliverables[n].Title, c.Title)
				require.Equal(t, ph.Deliverables[n].Description, c.Description)
				n++
			}
		}
		require.Equal(t, len(ph.Deliverables), n)
		wantCards += n
	}
	require.Len(t, cards, wantCards)
	require.Equal(t, wantCards, s.count(`SELECT count(*) FROM activities WHERE project_id = $1 AND type = 'card_created'`,
		ex.Project.ID))
	waitFor(t, "Bo's notifications of every card", func() bool {
		return s.count(`SELECT count(*) FROM notifications n JOIN activities a ON a.id = n.activity_id
			WHERE n.user_id = $1 AND a.type = 'card_created' AND a.project_id = $2`, mate.ID, ex.Project.ID) == wantCards
	})
	members := decode[[]ProjectMemberOut](t, s.do("GET", prj+"/members", owner.Token, nil))
	require.Len(t, members, 2)

	// Once only; every other step is over too.
	r = s.do("POST", base+"/execute", owner.Token, nil)
	requireStatus(t, r, http.StatusConflict)
	require.Contains(t, decode[ErrorBody](t, r).Message, ex.Project.ID)
	requireStatus(t, s.do("POST", base+"/refine", owner.Token, nil), http.StatusConflict)
	requireStatus(t, s.do("POST", base+"/generate-roadmap", owner.Token, nil), http.StatusConflict)
	got := decode[DraftOut](t, s.do("GET", base, owner.Token, nil))
	require.Equal(t, &ex.Project.ID, got.ProjectID)
	require.Equal(t, 1, s.count(`SELECT count(*) FROM projects WHERE workspace_id = $1`, ex.Project.WorkspaceID)-
		s.count(`SELECT count(*) FROM projects WHERE workspace_id = $1 AND id <> $2`, ex.Project.WorkspaceID, ex.Project.ID))

	// Deleting the draft keeps the project and drops the stream.
	requireStatus(t, s.do("DELETE", base, owner.Token, nil), http.StatusOK)
	requireStatus(t, s.do("GET", base, owner.Token, nil), http.StatusNotFound)
	require.Zero(t, s.count(`SELECT count(*) FROM stream_events WHERE stream_id = $1`, d.ID))
	requireStatus(t, s.do("GET", prj, owner.Token, nil), http.StatusOK)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// gateLLM holds every model call until released, then answers as the offline planner.
type gateLLM struct {
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func newGate() *gateLLM {
	return &gateLLM{started: make(chan struct{}, 16), release: make(chan struct{})}
}

func (g *gateLLM) Name() string { return "gate" }

func (g *gateLLM) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	g.started <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	return llm.NewOffline().Chat(ctx, req)
}

func (g *gateLLM) open() { g.once.Do(func() { close(g.release) }) }

// While a job runs: the step answers 202 after the wait, a second refine or generate (even many at
// once) is 409 and nothing is enqueued twice, execute is 409; the job's end reaches a stream client.
func TestDraftJobRunning(t *testing.T) {
	gate := newGate()
	s := newDraftServer(t, 300*time.Millisecond, gate)
	defer gate.open()
	u := s.register("ada@example.com")
	d := s.createDraft(u, map[string]any{"name": "Ledger move", "description": "Migrate the legacy ledger database to " +
		"PostgreSQL."})
	base := draftsPath(u) + "/" + d.ID

	r := s.do("POST", base+"/generate-roadmap", u.Token, nil)
	requireStatus(t, r, http.StatusAccepted)
	require.Equal(t, draft.DraftGenerating, decode[DraftOut](t, r).Status)
	select {
	case <-gate.started:
	case <-time.After(streamWait):
		t.Fatal("the worker did not start the job")
	}

	var wg sync.WaitGroup
	codes := make([]int, 6)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := base + "/generate-roadmap"
			if i%2 == 1 {
				path = base + "/refine"
			}
			r := s.do("POST", path, u.Token, nil)
			codes[i] = r.Code
			if r.Code == http.StatusConflict {
				require.Contains(t, decode[ErrorBody](t, r).Message, "already running")
			}
		}()
	}
	wg.Wait()
	require.Equal(t, []int{409, 409, 409, 409, 409, 409}, codes)
	r = s.do("POST", base+"/execute", u.Token, nil)
	requireStatus(t, r, http.StatusConflict)
	// One job for one run, whatever the number of calls.
	job := rivertest.RequireManyInserted(context.Background(), t, riverpgxv5.New(s.pool),
		[]rivertest.ExpectedJob{{Args: jobs.DraftRoadmapArgs{},
			Opts: &rivertest.RequireInsertedOpts{Queue: jobs.QueueDrafts}}})
	require.JSONEq(t, fmt.Sprintf(`{"draftId":%q,"run":1}`, d.ID), string(job[0].EncodedArgs))

	st := s.openDraft(u, d.ID, nil)
	require.Equal(t, draft.DraftGenerating, draftEvent(t, st, d.ID).Status) // queued
	require.Equal(t, draft.DraftGenerating, draftEvent(t, st, d.ID).Status) // started
	gate.open()
	for {
		ev := draftEvent(t, st, d.ID)
		if ev.Type == draft.DraftEventDone {
			require.Equal(t, draft.DraftRoadmapReady, ev.Status)
			require.Contains(t, ev.Message, "roadmap ready")
			break
		}
		require.Equal(t, draft.DraftEventToken, ev.Type)
	}
	require.Equal(t, "heartbeat", st.Next(t, streamWait).Comment, "roadmap_ready is not final: the stream stays open")
	st.Close()
	got := decode[DraftOut](t, s.do("GET", base, u.Token, nil))
	require.Equal(t, draft.DraftRoadmapReady, got.Status)
	require.Equal(t, "Inventory and mapping", got.Roadmap.Phases[0].Name)

	// A new roadmap may replace a ready one; refining a ready draft is 409.
	requireStatus(t, s.do("POST", base+"/refine", u.Token, nil), http.StatusConflict)
	r = s.do("POST", base+"/generate-roadmap", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, draft.DraftRoadmapReady, decode[DraftOut](t, r).Status)
}

// Bad input is 400 in the error shape, another workspace's draft 404, and no input a 5xx.
func TestDraftBadInput(t *testing.T) {
	s := newDraftServer(t, 10*time.Second, nil)
	u := s.register("ada@example.com")
	other := s.register("eve@example.com")
	path := draftsPath(u)
	tooMany := make([]map[string]any, 11)
	for i := range tooMany {
		tooMany[i] = map[string]any{"title": fmt.Sprintf("doc %d", i), "content": "x"}
	}
	for name, body := range map[string]any{
		"no name":            map[string]any{"description": "x"},
		"blank name":         map[string]any{"name": "   "},
		"long name":          map[string]any{"name": strings.Repeat("n", 201)},
		"too many documents": map[string]any{"name": "x", "contextDocuments": tooMany},
		"document as an id": map[string]any{"name": "x",
			"contextDocuments": []any{"0193b3c0-0000-7000-8000-000000000000"}},
		"document without title": map[string]any{"name": "x", "contextDocuments": []any{map[string]any{"content": "c"}}},
		"document content too long": map[string]any{"name": "x", "contextDocuments": []any{map[string]any{"title": "t",
			"content": strings.Repeat("c", 50001)}}}, "member without name": map[string]any{"name": "x",
			"teamMembers": []any{map[string]any{"role": "dev"}}}, "member bad e-mail": map[string]any{"name": "x",
			"teamMembers": []any{map[string]any{"name": "Bo", "email": "bo"}}}, "unknown field": map[string]any{"name": "x",
			"budget": 3}, "not an object": "[]",
	} {
		t.Run(name, func(t *testing.T) {
			requireStatus(t, s.do("POST", path, u.Token, body), http.StatusBadRequest)
		})
	}
	d := s.createDraft(u, map[string]any{"name": "Field Notes", "description": "A mobile app."})
	base := path + "/" + d.ID
	// Answers before any question, answers that are not {question, answer} pairs.
	for name, body := range map[string]any{
		"answer to no question": map[string]any{"answers": []any{map[string]any{"question": "Why?", "answer": "Because"}}},
		"strings":               map[string]any{"answers": []any{"Android"}},
		"no answer":             map[string]any{"answers": []any{map[string]any{"question": "Why?"}}},
		"blank answer":          map[string]any{"answers": []any{map[string]any{"question": "Why?", "answer": " "}}},
		"answers not an array":  map[string]any{"answers": "yes"},
	} {
		t.Run(name, func(t *testing.T) {
			requireStatus(t, s.do("POST", base+"/refine", u.Token, body), http.StatusBadRequest)
		})
	}
	r := s.do("POST", base+"/refine", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	d = decode[DraftOut](t, r)
	r = s.do("POST", base+"/refine", u.Token,
		map[string]any{"answers": []any{map[string]any{"question": "Not one of yours?", "answer": "no"}}})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "answers[0].question")
	r = s.do("POST", base+"/refine", u.Token, map[string]any{"answers": []any{map[string]any{"question": d.Questions[0],
		"answer": "a"}, map[string]any{"question": strings.ToUpper(d.Questions[0]), "answer": "b"}}})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "answered twice")
	// Execute before a roadmap.
	requireStatus(t, s.do("POST", base+"/execute", u.Token, nil), http.StatusConflict)

	// Another workspace's draft, a malformed id, an unknown id: 404 everywhere.
	otherBase := draftsPath(other) + "/" + d.ID
	for _, p := range []string{"", "/refine", "/generate-roadmap", "/execute", "/events"} {
		method := "POST"
		if p == "" || p == "/events" {
			method = "GET"
		}
		requireStatus(t, s.do(method, otherBase+p, other.Token, nil), http.StatusNotFound)
		requireStatus(t, s.do(method, path+"/not-a-uuid"+p, u.Token, nil), http.StatusNotFound)
		requireStatus(t, s.do(method, path+"/"+db.NewID()+p, u.Token, nil), http.StatusNotFound)
	}
	requireStatus(t, s.do("DELETE", otherBase, other.Token, nil), http.StatusNotFound)
	// A token without projects:write may read but not write.
	ro := s.pat(u, []string{"projects:read"})
	requireStatus(t, s.do("GET", base, ro, nil), http.StatusOK)
	requireStatus(t, s.do("POST", base+"/generate-roadmap", ro, nil), http.StatusForbidden)
}

// After four rounds the answers of the last are recorded and no more questions come, at once.
func TestDraftRoundsEnd(t *testing.T) {
	s := newDraftServer(t, 10*time.Second, nil)
	u := s.register("ada@example.com")
	d := s.createDraft(u, map[string]any{"name": "Ledger move", "description": "Migrate the legacy ledger database."})
	base := draftsPath(u) + "/" + d.ID
	var body any
	asked := map[string]bool{}
	for round := 1; round <= 4; round++ {
		r := s.do("POST", base+"/refine", u.Token, body)
		requireStatus(t, r, http.StatusOK)
		d = decode[DraftOut](t, r)
		require.Equal(t, int32(round), d.Round)
		require.NotEmpty(t, d.Questions)
		var answers []any
		for _, q := range d.Questions {
			require.False(t, asked[llm.QuestionKey(q)], "asked again: %s", q)
			asked[llm.QuestionKey(q)] = true
			answers = append(answers, map[string]any{"question": q, "answer": "an answer of several words to " + q})
		}
		body = map[string]any{"answers": answers}
	}
	r := s.do("POST", base+"/refine", u.Token, body)
	requireStatus(t, r, http.StatusOK)
	d = decode[DraftOut](t, r)
	require.Equal(t, int32(4), d.Round)
	require.Empty(t, d.Questions)
	require.Len(t, d.Answers, len(asked))
	rivertest.RequireManyInserted(context.Background(), t, riverpgxv5.New(s.pool), []rivertest.ExpectedJob{
		{Args: jobs.DraftRefineArgs{}}, {Args: jobs.DraftRefineArgs{}}, {Args: jobs.DraftRefineArgs{}},
		{Args: jobs.DraftRefineArgs{}}})
}

// A context document may name a document of the workspace: its title and text are copied into the
// draft when it is created and feed the model (the offline planner reviews each document first, quoting
// its first sentence). Another workspace's document, or none, is 404; a malformed id, both forms at once
// or more than 10 in all are 400; and a later edit of the document leaves the draft as it was.
func TestDraftContextDocumentsFromTheWorkspace(t *testing.T) {
	s := newDraftServer(t, 10*time.Second, nil)
	u := s.register("ada@example.com")
	other := s.register("eve@example.com")
	rules := s.doc(u, "Invoicing rules", map[string]any{"content": "Every invoice carries the customer's VAT number. " +
		"Credit notes never delete an invoice."})
	tiptap := s.doc(u, "Archive policy", map[string]any{"contentFormat": "tiptap_json",
		"content": `{"type":"doc","content":[{"type":"paragraph",` +
			`"content":[{"type":"text","text":"Invoices are archived for ten years."}]}]}`})
	foreign := s.doc(other, "Eve's notes", map[string]any{"content": "Secret plans of another workspace."})

	d := s.createDraft(u, map[string]any{"name": "Billing migration",
		"description": "Migrate the legacy billing database.",
		"contextDocuments": []any{map[string]any{"documentId": rules.ID},
			map[string]any{"documentId": strings.ToUpper(tiptap.ID)}, map[string]any{"title": "Inline note",
				"content": "Keep the old system read-only for a month."}}})
	require.Equal(t, []draft.DraftDocument{
		{DocumentID: rules.ID, Title: "Invoicing rules", Content: "Every invoice carries the customer's VAT number. Credit " +
			"notes never delete an invoice."},
		{DocumentID: tiptap.ID, Title: "Archive policy", Content: "Invoices are archived for ten years."},
		{Title: "Inline note", Content: "Keep the old system read-only for a month."}}, d.ContextDocuments)

	// A later edit of the document does not change the draft: the snapshot is what the jobs read.
	requireStatus(t, s.do("PATCH", u.ws()+"/documents/"+rules.ID, u.Token, map[string]any{"content": "Rewritten."}),
		http.StatusOK)
	r := s.do("POST", draftsPath(u)+"/"+d.ID+"/generate-roadmap", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	d = decode[DraftOut](t, r)
	require.Equal(t, draft.DraftRoadmapReady, d.Status)
	roadmap, err := json.Marshal(d.Roadmap)
	require.NoError(t, err)
	require.Contains(t, string(roadmap), "Review “Invoicing rules”")
	require.Contains(t, string(roadmap), "VAT number")
	require.Contains(t, string(roadmap), "archived for ten years")
	require.NotContains(t, string(roadmap), "Rewritten")
	r = s.do("POST", draftsPath(u)+"/"+d.ID+"/refine", u.Token, nil)
	requireStatus(t, r, http.StatusConflict) // a roadmap is ready

	// Another workspace's document, an unknown one: 404 naming the entry, and no draft is made.
	before := s.count(`SELECT count(*) FROM project_drafts`)
	for _, id := range []string{foreign.ID, db.NewID()} {
		r := s.do("POST", draftsPath(u), u.Token, map[string]any{"name": "x",
			"contextDocuments": []any{map[string]any{"documentId": rules.ID}, map[string]any{"documentId": id}}})
		requireErrorShape(t, r, http.StatusNotFound)
		require.Contains(t, decode[ErrorBody](t, r).Message, "contextDocuments[1].documentId: context document not found")
	}
	// The other workspace's owner reads it fine.
	requireStatus(t, s.do("POST", draftsPath(other), other.Token, map[string]any{"name": "x",
		"contextDocuments": []any{map[string]any{"documentId": foreign.ID}}}), http.StatusCreated)
	require.Equal(t, before+1, s.count(`SELECT count(*) FROM project_drafts`))

	tooMany := make([]any, 11)
	for i := range tooMany {
		tooMany[i] = map[string]any{"documentId": rules.ID}
	}
	for name, docs := range map[string][]any{
		"too many":       tooMany,
		"malformed id":   {map[string]any{"documentId": "not-a-uuid"}},
		"both forms":     {map[string]any{"documentId": rules.ID, "title": "t", "content": "c"}},
		"id and content": {map[string]any{"documentId": rules.ID, "content": "c"}},
		"empty entry":    {map[string]any{}},
	} {
		t.Run(name, func(t *testing.T) {
			requireErrorShape(t, s.do("POST", draftsPath(u), u.Token, map[string]any{"name": "x", "contextDocuments": docs}),
				http.StatusBadRequest)
		})
	}
	require.Equal(t, before+1, s.count(`SELECT count(*) FROM project_drafts`))
}

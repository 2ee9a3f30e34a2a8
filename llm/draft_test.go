package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func mobileDraft() DraftContext {
	return DraftContext{Name: "Field Notes", Round: 1,
		Description: "A mobile app for iOS and Android that lets inspectors take photos offline and sync them later.",
		TeamMembers: []DraftMember{{Name: "Ana", Role: "UX designer"}, {Name: "Bo", Role: "mobile developer"}}}
}

func migrationDraft() DraftContext {
	return DraftContext{Name: "Ledger move", Round: 1,
		Description: "Migrate the legacy Oracle ledger database to PostgreSQL: 40 million records, cutover over a weekend.",
		Documents:   []DraftDocument{{Title: "Retention policy", Content: "Invoices are kept ten years. Audit logs five."}}}
}

func phaseNames(r Roadmap) []string {
	var out []string
	for _, p := range r.Phases {
		out = append(out, p.Name)
	}
	return out
}

// titles lists every deliverable's title, phase by phase.
func titles(r Roadmap) []string {
	var out []string
	for _, p := range r.Phases {
		for _, d := range p.Deliverables {
			out = append(out, d.Title)
		}
	}
	return out
}

// The offline planner's roadmap follows the draft: a mobile app and a data migration get different
// phases, each filled with the draft's own name, team and documents.
func TestOfflineRoadmapDerivedFromDraft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var tokens strings.Builder
	mobile, err := DraftRoadmap(ctx, NewOffline(), mobileDraft(),
		DraftOptions{OnToken: func(s string) { tokens.WriteString(s) }})
	require.NoError(t, err)
	migration, err := DraftRoadmap(ctx, NewOffline(), migrationDraft(), DraftOptions{})
	require.NoError(t, err)

	require.Equal(t, []string{"Discovery and UX", "App foundation", "Core features", "Beta and store release"},
		phaseNames(mobile))
	require.Equal(t, []string{"Inventory and mapping", "Migration tooling", "Trial migrations", "Cutover and " +
		"decommissioning"}, phaseNames(migration))
	for _, r := range []Roadmap{mobile, migration} {
		for _, p := range r.Phases {
			require.NotEmpty(t, p.Goal)
			require.NotEmpty(t, p.Deliverables)
		}
	}
	require.Contains(t, mobile.Phases[0].Goal, "Field Notes")
	require.Contains(t, mobile.Phases[0].Deliverables[0].Description, "Owner: Ana (UX designer)")
	require.Contains(t, migration.Phases[0].Deliverables[0].Title, "Retention policy")
	// The description's prose says what the project is: it picks the phases, it is no deliverable.
	require.NotContains(t, titles(migration), "Migrate the legacy Oracle ledger database to PostgreSQL: 40 million "+
		"records, cutover over a weekend")
	// Work the description lists itself does become deliverables of the building phase.
	listed := migrationDraft()
	listed.Description += "\n\n- Freeze the chart of accounts\n- Archive closed years"
	withList, err := DraftRoadmap(ctx, NewOffline(), listed, DraftOptions{})
	require.NoError(t, err)
	require.Subset(t, titles(Roadmap{Phases: withList.Phases[1:2]}), []string{"Freeze the chart of accounts",
		"Archive closed years"})
	// The streamed tokens are the roadmap's JSON.
	var again Roadmap
	require.NoError(t, decodeStrict(tokens.String(), &again))
	require.Equal(t, mobile, again)
}

// Refinement answers refine the roadmap: they become no deliverable, but the deliverable they speak
// of records the decision and comes first in its phase; an answer that speaks of none is recorded on
// the building phase's first deliverable. The roadmap has the same deliverables with or without them.
func TestOfflineRoadmapRefinedByAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	plain, err := DraftRoadmap(ctx, NewOffline(), mobileDraft(), DraftOptions{})
	require.NoError(t, err)
	d := mobileDraft()
	d.Round = 2
	d.Answers = []QA{
		{Question: "Which platforms must Field Notes support at launch: iOS, Android or both?", Answer: "Both; Android " +
			"first, the inspectors use it"},
		{Question: "Which device features does Field Notes rely on (camera, location, push notifications)?",
			Answer: "Camera and push notifications for new inspections."}, {Question: "Anything else?",
			Answer: "Budget is tight, keep it lean"},
	}
	refined, err := DraftRoadmap(ctx, NewOffline(), d, DraftOptions{})
	require.NoError(t, err)

	require.ElementsMatch(t, titles(plain), titles(refined), "answers add no deliverable")
	for _, title := range titles(refined) {
		require.NotContains(t, title, "Android first")
		require.NotContains(t, title, "inspectors")
	}
	require.Equal(t, phaseNames(plain), phaseNames(refined))

	// The platform answer refines the builds: recorded in their description, first in their phase.
	build := refined.Phases[1].Deliverables
	require.Equal(t, "Project skeleton and CI builds", build[0].Title)
	require.Contains(t, build[0].Description, "Decided in refinement: “Both; Android first, the inspectors use it”")
	// The device answer refines push notifications, which move ahead of the main screens.
	core := refined.Phases[2].Deliverables
	require.Equal(t, []string{"Push notifications", "Main screens"}, []string{core[0].Title, core[1].Title})
	require.Equal(t, []string{"Main screens", "Push notifications"}, []string{plain.Phases[2].Deliverables[0].Title,
		plain.Phases[2].Deliverables[1].Title})
	require.Contains(t, core[0].Description, "“Camera and push notifications for new inspections”")
	// The answer that speaks of no deliverable still informs the building phase.
	var all strings.Builder
	for _, dl := range build {
		all.WriteString(dl.Description)
	}
	require.Contains(t, all.String(), "“Budget is tight, keep it lean”")
	// The owner still closes each description.
	require.True(t, strings.HasSuffix(build[0].Description, "Owner: Bo (mobile developer)."), build[0].Description)
}

// Questions come from the draft, at most five a round, never one already answered, none after the
// fourth round.
func TestOfflineQuestions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := mobileDraft()
	qs, err := DraftQuestions(ctx, NewOffline(), d, DraftOptions{})
	require.NoError(t, err)
	require.Len(t, qs, MaxDraftQuestions)
	require.Contains(t, qs[0], "Field Notes")
	require.Contains(t, strings.Join(qs, "\n"), "iOS, Android")
	mig, err := DraftQuestions(ctx, NewOffline(), migrationDraft(), DraftOptions{})
	require.NoError(t, err)
	require.Contains(t, strings.Join(mig, "\n"), "downtime")
	require.NotEqual(t, qs, mig)

	asked := map[string]bool{}
	for round := 1; round <= MaxDraftRounds; round++ {
		d.Round = round
		qs, err := DraftQuestions(ctx, NewOffline(), d, DraftOptions{})
		require.NoError(t, err)
		require.NotEmpty(t, qs, "round %d", round)
		require.LessOrEqual(t, len(qs), MaxDraftQuestions)
		for _, q := range qs {
			require.False(t, asked[QuestionKey(q)], "round %d repeats an answered question: %s", round, q)
			asked[QuestionKey(q)] = true
			d.Answers = append(d.Answers, QA{Question: q, Answer: "We need it working for the inspectors of " + q[:10]})
		}
	}
	d.Round = MaxDraftRounds + 1
	qs, err = DraftQuestions(ctx, NewOffline(), d, DraftOptions{})
	require.NoError(t, err)
	require.Empty(t, qs)
}

const goodRoadmap = `{"phases":[{"name":"Plan","goal":"Agree scope",` +
	`"deliverables":[{"title":"Brief","description":"One page"}]}]}`

// The OpenAI-compatible path asks for structured output and streams the JSON's tokens.
func TestOpenAIDraftRoadmapStructuredOutput(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
		sseStream(w, contentChunk(goodRoadmap[:20]), contentChunk(goodRoadmap[20:]), finishChunk("stop"))
	})
	var tokens []string
	r, err := DraftRoadmap(context.Background(), newTestClient(fs, nil), migrationDraft(),
		DraftOptions{OnToken: func(s string) { tokens = append(tokens, s) }})
	require.NoError(t, err)
	require.Equal(t, Roadmap{Phases: []Phase{{Name: "Plan", Goal: "Agree scope",
		Deliverables: []Deliverable{{Title: "Brief", Description: "One page"}}}}}, r)
	require.Equal(t, []string{goodRoadmap[:20], goodRoadmap[20:]}, tokens)
	reqs, _ := fs.seen()
	require.Len(t, reqs, 1)
	require.NotNil(t, reqs[0].ResponseFormat)
	require.Equal(t, "json_schema", reqs[0].ResponseFormat.Type)
	require.Equal(t, "draft_roadmap", reqs[0].ResponseFormat.JSONSchema.Name)
	require.True(t, reqs[0].ResponseFormat.JSONSchema.Strict)
	require.Contains(t, reqs[0].Messages[1].Content, "Ledger move")
	require.Contains(t, reqs[0].Messages[1].Content, "Retention policy")
}

// Malformed JSON is asked for once more, with the reason; a second malformed answer fails with
// ErrMalformedOutput. A good second answer succeeds.
func TestOpenAIDraftMalformedRetriesOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		answers []string
		wantErr bool
	}{
		{"twice malformed", []string{`{"phases": [`, `not json at all`}, true},
		{"malformed then good", []string{`{"phases": [`, goodRoadmap}, false},
		{"schema violated then good", []string{`{"phases": []}`, goodRoadmap}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
				sseStream(w, contentChunk(tc.answers[n-1]), finishChunk("stop"))
			})
			retries := 0
			_, err := DraftRoadmap(context.Background(), newTestClient(fs, nil), mobileDraft(),
				DraftOptions{OnRetry: func(error) { retries++ }})
			reqs, _ := fs.seen()
			require.Len(t, reqs, 2)
			require.Equal(t, 1, retries)
			last := reqs[1].Messages[len(reqs[1].Messages)-1]
			require.Equal(t, "user", last.Role)
			require.Contains(t, last.Content, "could not be used")
			if tc.wantErr {
				require.ErrorIs(t, err, ErrMalformedOutput)
			} else {
				require.NoError(t, err)
			}
		})
	}
}

// A model that does not answer in time and one that keeps answering 429 fail with errors the worker
// recognises (DeadlineExceeded, ErrRateLimited), without the malformed-output retry.
func TestOpenAIDraftTimeoutAndRateLimit(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	slow := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
		sseStart(w)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	start := time.Now()
	_, err := DraftQuestions(context.Background(), newTestClient(slow,
		func(c *OpenAIConfig) { c.Timeout = 200 * time.Millisecond }), mobileDraft(), DraftOptions{})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 3*time.Second)
	reqs, _ := slow.seen()
	require.Len(t, reqs, 1)

	limited := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
		writeError(w, http.StatusTooManyRequests, "0")
	})
	_, err = DraftRoadmap(context.Background(), newTestClient(limited, func(c *OpenAIConfig) { c.MaxRetries = 2 }),
		mobileDraft(), DraftOptions{})
	require.ErrorIs(t, err, ErrRateLimited)
	require.False(t, errors.Is(err, ErrMalformedOutput))
	reqs, _ = limited.seen()
	require.Len(t, reqs, 3)
}

package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/llm"
)

// DefaultDraftTimeout bounds one attempt of a draft job: one or two model calls (a retry after
// unusable output), each bounded by the provider's own timeout.
const DefaultDraftTimeout = 5 * time.Minute

// DraftRefineWorker asks a draft's next refinement questions.
type DraftRefineWorker struct {
	river.WorkerDefaults[jobs.DraftRefineArgs]
	deps Deps
}

// DraftRoadmapWorker writes a draft's roadmap, streaming the model's tokens to the draft's stream.
type DraftRoadmapWorker struct {
	river.WorkerDefaults[jobs.DraftRoadmapArgs]
	deps Deps
}

// NewDraftRefineWorker returns the refinement worker (tests run its Work directly).
func NewDraftRefineWorker(deps Deps) *DraftRefineWorker { return &DraftRefineWorker{deps: deps} }

// NewDraftRoadmapWorker returns the roadmap worker (tests run its Work directly).
func NewDraftRoadmapWorker(deps Deps) *DraftRoadmapWorker { return &DraftRoadmapWorker{deps: deps} }

// Timeout implements river.Worker.
func (w *DraftRefineWorker) Timeout(*river.Job[jobs.DraftRefineArgs]) time.Duration {
	return draftTimeout(w.deps)
}

// Timeout implements river.Worker.
func (w *DraftRoadmapWorker) Timeout(*river.Job[jobs.DraftRoadmapArgs]) time.Duration {
	return draftTimeout(w.deps)
}

func draftTimeout(d Deps) time.Duration {
	if d.DraftTimeout > 0 {
		return d.DraftTimeout
	}
	return DefaultDraftTimeout
}

func provider(d Deps) llm.Provider {
	if d.LLM != nil {
		return d.LLM
	}
	return llm.NewOffline()
}

// Work implements river.Worker. A job whose run no longer owns the draft (finished by an earlier
// attempt, superseded, or the draft deleted) does nothing; the questions are written once, with the
// stream's final event, by a guarded update.
func (w *DraftRefineWorker) Work(ctx context.Context, job *river.Job[jobs.DraftRefineArgs]) error {
	a := job.Args
	return runDraftJob(ctx, w.deps, job.Attempt, job.MaxAttempts, a.DraftID, a.Run, draft.DraftRefining,
		"refinement", func(d draft.Draft) error {
			dc := draftContext(d)
			dc.Round = int(d.Rounds) + 1
			qs, err := llm.DraftQuestions(ctx, provider(w.deps), dc, llm.DraftOptions{OnRetry: retryNote(ctx, w.deps, d.ID,
				draft.DraftRefining)})
			if err != nil {
				return err
			}
			_, err = w.deps.Drafts.FinishRefine(ctx, d.ID, a.Run, qs)
			return err
		})
}

// Work implements river.Worker; see DraftRefineWorker.Work. The model's tokens become `token` events.
func (w *DraftRoadmapWorker) Work(ctx context.Context, job *river.Job[jobs.DraftRoadmapArgs]) error {
	a := job.Args
	return runDraftJob(ctx, w.deps, job.Attempt, job.MaxAttempts, a.DraftID, a.Run, draft.DraftGenerating,
		"roadmap generation", func(d draft.Draft) error {
			st := w.deps.Drafts
			tokens := &tokenBatcher{flush: func(text string) {
				if err := st.AppendEvent(context.WithoutCancel(ctx), d.ID, db.NewStreamEvent{Type: draft.DraftEventToken,
					Status: draft.DraftGenerating, Message: text}); err != nil {
					w.deps.Logger.WarnContext(ctx, "draft token event", "draft", d.ID, "error", err)
				}
			}}
			rm, err := llm.DraftRoadmap(ctx, provider(w.deps), draftContext(d), llm.DraftOptions{OnToken: tokens.add,
				OnRetry: func(reason error) { tokens.done(); retryNote(ctx, w.deps, d.ID, draft.DraftGenerating)(reason) }})
			tokens.done()
			if err != nil {
				return err
			}
			_, err = st.FinishRoadmap(ctx, d.ID, a.Run, rm)
			return err
		})
}

// runDraftJob starts a draft job (a status event saying which attempt runs), runs step, and on an error
// that will not go away (unusable model output, rate limiting, the model's timeout) or on the last
// attempt marks the draft failed with the reason. Other errors are retried by River.
func runDraftJob(ctx context.Context, deps Deps, attempt, maxAttempts int, draftID string, run int32, working,
	what string, step func(draft.Draft) error) error {
	st := deps.Drafts
	d, proceed, err := st.ForJob(ctx, draftID, run, working)
	if err != nil || !proceed {
		return err
	}
	msg := what + " started"
	if attempt > 1 {
		msg = fmt.Sprintf("%s started again (attempt %d)", what, attempt)
	}
	if err := st.AppendEvent(ctx, draftID, db.NewStreamEvent{Type: draft.DraftEventStatus, Status: working, Message: msg,
		Data: map[string]any{"run": run, "attempt": attempt}}); err != nil {
		if errors.Is(err, draft.ErrDraftStale) {
			return nil // deleted meanwhile
		}
		return err
	}
	err = step(d)
	if err == nil || errors.Is(err, draft.ErrDraftStale) {
		return nil
	}
	hopeless := errors.Is(err, llm.ErrMalformedOutput) || errors.Is(err, llm.ErrRateLimited) ||
		(errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil)
	if !hopeless && attempt < maxAttempts {
		return err
	}
	if _, ferr := st.Fail(context.WithoutCancel(ctx), draftID, run, draftErrorText(what,
		err)); ferr != nil && !errors.Is(ferr, draft.ErrDraftStale) {
		return ferr
	}
	return nil
}

func draftErrorText(what string, err error) string {
	switch {
	case errors.Is(err, llm.ErrMalformedOutput):
		return "the language model answered twice with unusable output: " + err.Error()
	case errors.Is(err, llm.ErrRateLimited):
		return "the language model kept refusing requests (rate limited); try again later"
	case errors.Is(err, context.DeadlineExceeded):
		return "the language model did not answer in time; try again"
	}
	return what + " failed: " + err.Error()
}

// retryNote tells the draft's stream that the model is asked again.
func retryNote(ctx context.Context, deps Deps, draftID, status string) func(error) {
	return func(reason error) {
		if err := deps.Drafts.AppendEvent(context.WithoutCancel(ctx), draftID, db.NewStreamEvent{Type: draft.DraftEventStatus,
			Status: status, Message: "the model's answer was unusable; asking once more",
			Data: map[string]any{"reason": reason.Error()}}); err != nil {
			deps.Logger.WarnContext(ctx, "draft retry event", "draft", draftID, "error", err)
		}
	}
}

func draftContext(d draft.Draft) llm.DraftContext {
	dc := llm.DraftContext{Name: d.Name, Description: d.Description}
	for _, m := range d.TeamMembers {
		dc.TeamMembers = append(dc.TeamMembers, llm.DraftMember{Name: m.Name, Role: m.Role})
	}
	for _, doc := range d.ContextDocuments {
		dc.Documents = append(dc.Documents, llm.DraftDocument{Title: doc.Title, Content: doc.Content})
	}
	for _, a := range d.Answers {
		dc.Answers = append(dc.Answers, llm.QA{Question: a.Question, Answer: a.Answer})
	}
	return dc
}

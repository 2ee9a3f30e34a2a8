package draft

// A draft's steps: refinement rounds and roadmap generation, enqueued here in the caller's transaction
// and finished (or failed) by their jobs through ForJob, FinishRefine, FinishRoadmap and Fail.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// DraftStep is the answer of a refine or generate-roadmap call: the draft, and whether a job was
// enqueued (false when the answers of the last round were only recorded).
type DraftStep struct {
	Draft    Draft
	Enqueued bool
}

// Refine records answers to the pending questions and enqueues a refinement job, in one
// transaction with the draft's `refining` status and its stream's status event. Refining is allowed
// from framing, refined and failed; after DraftMaxRounds rounds the answers are recorded and no job
// runs. An answer to a question the draft did not ask, or asked twice, is invalid.
func (e *Engine) Refine(ctx context.Context, workspaceID, draftID string, answers []DraftAnswer) (DraftStep, error) {
	var out DraftStep
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.DraftGetForUpdate(ctx, dbsqlc.DraftGetForUpdateParams{ID: draftID, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("draft not found")
		}
		if err != nil {
			return fmt.Errorf("lock draft: %w", err)
		}
		if row.Status != DraftFraming && row.Status != DraftRefined && row.Status != DraftFailed {
			return draftStateConflict(row, "be refined")
		}
		d, err := draftFromRow(row)
		if err != nil {
			return err
		}
		pending := map[string]bool{}
		for _, qn := range d.Questions {
			pending[questionKey(qn)] = true
		}
		seen := map[string]bool{}
		for i, a := range answers {
			k := questionKey(a.Question)
			if !pending[k] {
				return dbcore.Invalid(fmt.Sprintf("answers[%d].question: not a pending question of this draft (see its questions)",
					i))
			}
			if seen[k] {
				return dbcore.Invalid(fmt.Sprintf("answers[%d].question: answered twice", i))
			}
			seen[k] = true
		}
		all := slices.Concat(d.Answers, answers)
		if d.Rounds >= DraftMaxRounds && d.Status == DraftRefined {
			// Every round was asked: the last answers are kept, no more questions come.
			row, err = q.DraftRecordAnswers(ctx, dbsqlc.DraftRecordAnswersParams{ID: draftID, Answers: jsonOf(all)})
			if err != nil {
				return fmt.Errorf("record answers: %w", err)
			}
			out.Draft, err = draftFromRow(row)
			return err
		}
		row, err = q.DraftStartRefine(ctx, dbsqlc.DraftStartRefineParams{ID: draftID, Answers: jsonOf(all)})
		if err != nil {
			return fmt.Errorf("start refinement: %w", err)
		}
		if _, err := e.core.River.InsertTx(ctx, tx, jobs.DraftRefineArgs{DraftID: draftID, Run: row.Run},
			&river.InsertOpts{Queue: jobs.QueueDrafts, MaxAttempts: DraftMaxAttempts,
				UniqueOpts: river.UniqueOpts{ByArgs: true}}); err != nil {
			return fmt.Errorf("enqueue refinement: %w", err)
		}
		if _, err := e.store.AppendStreamEventTx(ctx, tx, StreamDraft, draftID, db.NewStreamEvent{Type: DraftEventStatus,
			Status: DraftRefining, Message: fmt.Sprintf("refinement round %d queued", row.Rounds+1),
			Data: map[string]any{"run": row.Run, "answers": len(answers)}}); err != nil {
			return err
		}
		out = DraftStep{Enqueued: true}
		out.Draft, err = draftFromRow(row)
		return err
	})
	return out, err
}

// GenerateRoadmap enqueues the roadmap job, in one transaction with the draft's `generating`
// status and its stream's status event. Allowed from framing, refined, roadmap_ready (a new roadmap
// replaces the old one) and failed.
func (e *Engine) GenerateRoadmap(ctx context.Context, workspaceID, draftID string) (DraftStep, error) {
	var out DraftStep
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = e.GenerateRoadmapTx(ctx, tx, q, workspaceID, draftID, "roadmap generation queued")
		return err
	})
	return out, err
}

// GenerateRoadmapTx is GenerateDraftRoadmap in the caller's transaction (a pipeline's
// generate_roadmap step starts it in the step's): the guarded move to `generating`, the roadmap job and
// the status event carrying message. A draft of another workspace is not found; one in a state that
// cannot generate is the 409 refusal naming why.
func (e *Engine) GenerateRoadmapTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, workspaceID, draftID,
	message string) (DraftStep, error) {
	if _, err := q.DraftGet(ctx, dbsqlc.DraftGetParams{ID: draftID, WorkspaceID: workspaceID}); err != nil {
		if dbcore.IsNotFound(err) {
			return DraftStep{}, dbcore.NotFound("draft not found")
		}
		return DraftStep{}, fmt.Errorf("get draft: %w", err)
	}
	row, err := q.DraftStartRoadmap(ctx, draftID)
	if dbcore.IsNotFound(err) {
		cur, err := q.DraftGetByID(ctx, draftID)
		if err != nil {
			return DraftStep{}, dbcore.Wrap(err, "get draft")
		}
		return DraftStep{}, draftStateConflict(cur, "generate a roadmap")
	}
	if err != nil {
		return DraftStep{}, fmt.Errorf("start roadmap: %w", err)
	}
	if _, err := e.core.River.InsertTx(ctx, tx, jobs.DraftRoadmapArgs{DraftID: draftID, Run: row.Run},
		&river.InsertOpts{Queue: jobs.QueueDrafts, MaxAttempts: DraftMaxAttempts,
			UniqueOpts: river.UniqueOpts{ByArgs: true}}); err != nil {
		return DraftStep{}, fmt.Errorf("enqueue roadmap: %w", err)
	}
	if _, err := e.store.AppendStreamEventTx(ctx, tx, StreamDraft, draftID, db.NewStreamEvent{Type: DraftEventStatus,
		Status: DraftGenerating, Message: message, Data: map[string]any{"run": row.Run}}); err != nil {
		return DraftStep{}, err
	}
	d, err := draftFromRow(row)
	return DraftStep{Draft: d, Enqueued: true}, err
}

// ForJob reads the draft a job works on. Proceed is false when the job has nothing to do: the
// draft is gone, or it is no longer in the job's working status with the job's run (another run
// finished it, or a newer run superseded it).
func (e *Engine) ForJob(ctx context.Context, draftID string, run int32,
	working string) (d Draft, proceed bool, err error) {
	row, err := e.core.Q.DraftGetByID(ctx, draftID)
	if dbcore.IsNotFound(err) {
		return Draft{}, false, nil
	}
	if err != nil {
		return Draft{}, false, dbcore.Wrap(err, "get draft")
	}
	if row.Status != working || row.Run != run {
		return Draft{}, false, nil
	}
	d, err = draftFromRow(row)
	return d, err == nil, err
}

// AppendEvent appends an event of a job's progress (status, tokens) to a draft's stream; ErrDraftStale
// when the draft was deleted (its stream went with it and is not made again).
func (e *Engine) AppendEvent(ctx context.Context, draftID string, ev db.NewStreamEvent) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := q.DraftLockKey(ctx, draftID); err != nil {
			if dbcore.IsNotFound(err) {
				return ErrDraftStale
			}
			return fmt.Errorf("lock draft: %w", err)
		}
		_, err := e.store.AppendStreamEventTx(ctx, tx, StreamDraft, draftID, ev)
		return err
	})
}

// ErrDraftStale says a job's result was not written: its run no longer owns the draft.
var ErrDraftStale = errors.New("draft run superseded or finished")

// finishDraft runs a guarded finishing update and, when it wrote, appends the job's done event in the
// same transaction; ErrDraftStale when the run no longer owns the draft.
//
// settle, when set, runs last in the transaction: the roadmap's end completes or fails the pipeline
// steps waiting for the draft there, so a step never misses its draft's end nor sees one that rolled
// back.
func (e *Engine) finishDraft(ctx context.Context, draftID string,
	update func(q *dbsqlc.Queries) (dbsqlc.ProjectDraft, error), event func(d Draft) db.NewStreamEvent,
	settle func(tx pgx.Tx, d Draft) error) (Draft, error) {
	var out Draft
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := update(q)
		if dbcore.IsNotFound(err) {
			return ErrDraftStale
		}
		if err != nil {
			return fmt.Errorf("finish draft: %w", err)
		}
		if out, err = draftFromRow(row); err != nil {
			return err
		}
		if _, err = e.store.AppendStreamEventTx(ctx, tx, StreamDraft, draftID, event(out)); err != nil || settle == nil {
			return err
		}
		return settle(tx, out)
	})
	return out, err
}

// FinishRefine stores a refinement run's questions (refined), once.
func (e *Engine) FinishRefine(ctx context.Context, draftID string, run int32, questions []string) (Draft, error) {
	if questions == nil {
		questions = []string{}
	}
	return e.finishDraft(ctx, draftID, func(q *dbsqlc.Queries) (dbsqlc.ProjectDraft, error) {
		return q.DraftFinishRefine(ctx, dbsqlc.DraftFinishRefineParams{ID: draftID, Run: run, Questions: jsonOf(questions),
			MaxRounds: DraftMaxRounds})
	}, func(d Draft) db.NewStreamEvent {
		msg := fmt.Sprintf("round %d: %s", d.Rounds, plural(len(questions), "question", "questions"))
		if len(questions) == 0 {
			msg = fmt.Sprintf("round %d: no more questions; generate the roadmap", d.Rounds)
		}
		return db.NewStreamEvent{Type: DraftEventDone, Status: DraftRefined, Message: msg,
			Data: map[string]any{"questions": questions, "round": d.Rounds}}
	}, nil)
}

// FinishRoadmap stores a roadmap run's roadmap (roadmap_ready), once. The roadmap must have
// phases with deliverables (the llm package guarantees it). In the same transaction, the pipeline
// steps waiting for the draft (generate_roadmap) complete with the roadmap's summary as their output.
func (e *Engine) FinishRoadmap(ctx context.Context, draftID string, run int32, roadmap DraftRoadmap) (Draft, error) {
	sum := roadmapSummary(roadmap)
	return e.finishDraft(ctx, draftID, func(q *dbsqlc.Queries) (dbsqlc.ProjectDraft, error) {
		return q.DraftFinishRoadmap(ctx, dbsqlc.DraftFinishRoadmapParams{ID: draftID, Run: run, Roadmap: jsonOf(roadmap)})
	}, func(d Draft) db.NewStreamEvent {
		return db.NewStreamEvent{Type: DraftEventDone, Status: DraftRoadmapReady, Message: sum["summary"].(string),
			Data: map[string]any{"roadmap": roadmap}}
	}, func(tx pgx.Tx, d Draft) error {
		out := map[string]any{"status": d.Status, "name": d.Name}
		for k, v := range sum {
			out[k] = v
		}
		return e.waits.WaitFinishedTx(ctx, tx, PipelineRef(draftID), out, "")
	})
}

// roadmapSummary is what a generate_roadmap step answers of a roadmap: its phases' names, how many
// phases and deliverables, and a line saying so.
func roadmapSummary(r DraftRoadmap) map[string]any {
	n := 0
	names := make([]any, 0, len(r.Phases))
	for _, p := range r.Phases {
		n += len(p.Deliverables)
		names = append(names, p.Name)
	}
	return map[string]any{"phases": len(r.Phases), "deliverables": n, "phaseNames": names,
		"summary": fmt.Sprintf("roadmap ready: %s, %s", plural(len(r.Phases), "phase", "phases"), plural(n, "deliverable",
			"deliverables"))}
}

// PipelineRef is the wait reference of a pipeline step waiting for a draft's roadmap.
func PipelineRef(draftID string) string { return "draft:" + draftID }

// Fail records why a run failed (failed), once; the pipeline steps waiting for the draft fail
// with the reason in the same transaction.
func (e *Engine) Fail(ctx context.Context, draftID string, run int32, reason string) (Draft, error) {
	return e.finishDraft(ctx, draftID, func(q *dbsqlc.Queries) (dbsqlc.ProjectDraft, error) {
		return q.DraftFail(ctx, dbsqlc.DraftFailParams{ID: draftID, Run: run, Error: &reason})
	}, func(Draft) db.NewStreamEvent {
		return db.NewStreamEvent{Type: DraftEventDone, Status: DraftFailed, Message: reason,
			Data: map[string]any{"error": reason}}
	}, func(tx pgx.Tx, d Draft) error {
		return e.waits.WaitFinishedTx(ctx, tx, PipelineRef(draftID), map[string]any{"status": d.Status, "error": reason},
			"the draft's roadmap failed: "+reason)
	})
}

// plural is n with the noun agreeing: "1 phase", "2 phases".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

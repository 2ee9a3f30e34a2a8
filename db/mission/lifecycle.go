package mission

// This file holds the moves of a mission's lifecycle besides starting, stepping and finishing it
// (executor.go) and stopping it (missions.go): asking its requester a question and resuming with the
// answer, expiring an unanswered question, marking a silent mission stale and resuming it.
// docs/agents.md, "Lifecycle", has the table of states and transitions.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// DefaultInputTimeout is how long a mission waits for the answer to its question before it expires
// (MISSION_INPUT_TIMEOUT overrides it).
const DefaultInputTimeout = 72 * time.Hour

// DefaultStaleAfter is how long a running mission may go without an event before it is marked stale
// (MISSION_STALE_AFTER overrides it).
const DefaultStaleAfter = 5 * time.Minute

// MaxAnswerLength bounds a person's answer to a mission's question, in characters.
const MaxAnswerLength = 4000

// Question is a mission's pending question, as kept on its row.
type Question struct {
	Question string    `json:"question"`
	Options  []string  `json:"options"`
	AskedAt  time.Time `json:"askedAt"`
	Deadline time.Time `json:"deadline"`
}

// PendingQuestion decodes a mission's pending question (nil when it has none).
func PendingQuestion(m db.AgentMission) *Question {
	if len(m.Question) == 0 {
		return nil
	}
	var q Question
	if json.Unmarshal(m.Question, &q) != nil || q.Question == "" {
		return nil
	}
	if q.Options == nil {
		q.Options = []string{}
	}
	return &q
}

// Conversation is what a mission that asked needs to resume where it stopped: the model turn reached,
// the model messages so far (the runner's, opaque here), the ask_user call waiting for its result and,
// once given, the answer.
type Conversation struct {
	Turn      int             `json:"turn"`
	Messages  json.RawMessage `json:"messages"`
	AskCallID string          `json:"askCallId"`
	Answer    *string         `json:"answer,omitempty"`
}

// Plan is the model's first words in the conversation (what it said it would do), empty when it said
// nothing yet or c is nil.
func (c *Conversation) Plan() string {
	if c == nil {
		return ""
	}
	var msgs []struct{ Role, Content string }
	_ = json.Unmarshal(c.Messages, &msgs)
	for _, m := range msgs {
		if m.Role == "assistant" && strings.TrimSpace(m.Content) != "" {
			return strings.TrimSpace(m.Content)
		}
	}
	return ""
}

// SavedConversation decodes a mission's saved conversation (nil when it has none).
func SavedConversation(m db.AgentMission) *Conversation {
	if len(m.Conversation) == 0 {
		return nil
	}
	var c Conversation
	if json.Unmarshal(m.Conversation, &c) != nil {
		return nil
	}
	return &c
}

// Ask is a question a running mission's model asks its requester.
type Ask struct {
	MissionID string
	Question  string
	Options   []string
	// Conversation is where the mission resumes from once answered.
	Conversation Conversation
	// Timeout is how long the question waits for its answer (zero: DefaultInputTimeout).
	Timeout time.Duration
}

// AskQuestion moves a running mission to awaiting_input in one transaction: the question, its deadline
// and the conversation kept on the row, a `question` event, a notification to the mission's requester
// and a River job scheduled at the deadline that expires the mission if nobody answered by then.
// ErrMissionStopped when the mission no longer runs (stopped meanwhile).
func (e *Engine) AskQuestion(ctx context.Context, in Ask) (db.AgentMission, error) {
	timeout := in.Timeout
	if timeout <= 0 {
		timeout = DefaultInputTimeout
	}
	var out db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		now := time.Now()
		deadline := now.Add(timeout)
		opts := in.Options
		if opts == nil {
			opts = []string{}
		}
		question, err := json.Marshal(Question{Question: in.Question, Options: opts, AskedAt: now, Deadline: deadline})
		if err != nil {
			return fmt.Errorf("encode question: %w", err)
		}
		conv, err := json.Marshal(in.Conversation)
		if err != nil {
			return fmt.Errorf("encode conversation: %w", err)
		}
		m, err := q.MissionAsk(ctx, dbsqlc.MissionAskParams{ID: in.MissionID, Question: question, InputDeadline: &deadline,
			Conversation: conv})
		if dbcore.IsNotFound(err) {
			return ErrMissionStopped
		}
		if err != nil {
			return fmt.Errorf("ask: %w", err)
		}
		out = db.AgentMission(m)
		if _, err := e.core.River.InsertTx(ctx, tx, jobs.MissionInputExpiryArgs{MissionID: m.ID},
			&river.InsertOpts{Queue: jobs.QueueDefault, ScheduledAt: deadline}); err != nil {
			return fmt.Errorf("enqueue question expiry: %w", err)
		}
		if _, err := e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: db.MissionEventQuestion,
			Status: string(db.MissionAwaitingInput), Message: in.Question,
			Data: map[string]any{"question": in.Question, "options": opts, "deadline": deadline}}); err != nil {
			return err
		}
		return e.notifyRequesterTx(ctx, tx, q, out, in.Question, opts)
	})
	return out, err
}

// notifyRequesterTx tells the mission's requester that its agent asked them something.
func (e *Engine) notifyRequesterTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, m db.AgentMission,
	question string, options []string) error {
	agent, err := q.AgentGetByID(ctx, m.AgentID)
	if err != nil {
		return fmt.Errorf("get agent: %w", err)
	}
	act := db.Activity{ActorID: agent.UserID, Type: db.ActivityMissionQuestion, Recipients: []string{m.CreatedBy},
		OnlyRecipients: true, Meta: map[string]any{"missionId": m.ID, "question": question, "options": options,
			"agentName": agent.Name, "title": question}}
	switch {
	case m.ProjectID != nil:
		act.ProjectID = *m.ProjectID
		if m.CardID != nil {
			act.CardID = *m.CardID
		}
	default:
		act.WorkspaceID = m.WorkspaceID
	}
	return e.core.RecordActivities(ctx, tx, act)
}

// ReplyMission answers a mission's pending question and resumes it where it stopped, in one
// transaction: the answer joins its saved conversation (the model gets it as the result of its
// ask_user call), the mission is running again under a new River job, with a `status` event carrying
// the answer. A mission not awaiting input is a conflict; another workspace's is not found.
func (e *Engine) ReplyMission(ctx context.Context, r db.RecordEdit, answer string) (db.AgentMission, error) {
	answer = strings.TrimSpace(answer)
	if answer == "" {
		return db.AgentMission{}, dbcore.Invalid("answer must not be blank")
	}
	if len([]rune(answer)) > MaxAnswerLength {
		return db.AgentMission{}, dbcore.Invalid(fmt.Sprintf("answer must be at most %d characters", MaxAnswerLength))
	}
	var out db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := e.lockMissionOfTx(ctx, q, r.WorkspaceID, r.ID)
		if err != nil {
			return err
		}
		if db.MissionStatus(m.Status) != db.MissionAwaitingInput {
			return dbcore.Conflict(fmt.Sprintf("the mission is %s, not waiting for an answer", inWords(m.Status)))
		}
		conv := SavedConversation(m)
		if conv == nil {
			return fmt.Errorf("mission %s awaits input without a saved conversation", m.ID)
		}
		conv.Answer = &answer
		raw, err := json.Marshal(conv)
		if err != nil {
			return fmt.Errorf("encode conversation: %w", err)
		}
		question := PendingQuestion(m)
		out, err = e.resumeTx(ctx, tx, q, m, db.MissionAwaitingInput, raw, db.NewMissionEvent{Type: db.MissionEventStatus,
			Status: string(db.MissionRunning), Message: "answer received; the mission goes on",
			Data: map[string]any{"answer": answer, "answeredBy": r.ActorID, "question": questionText(question)}})
		return err
	})
	return out, err
}

func questionText(q *Question) string {
	if q == nil {
		return ""
	}
	return q.Question
}

// ResumeMission resumes a stale mission (its worker fell silent) under a new River job: running again,
// with a `status` event; its old job, should its worker come back, is cancelled. A mission not stale is
// a conflict.
func (e *Engine) ResumeMission(ctx context.Context, r db.RecordEdit) (db.AgentMission, error) {
	var out db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := e.lockMissionOfTx(ctx, q, r.WorkspaceID, r.ID)
		if err != nil {
			return err
		}
		if db.MissionStatus(m.Status) != db.MissionStale {
			return dbcore.Conflict(fmt.Sprintf("the mission is %s, not stale", inWords(m.Status)))
		}
		if m.JobID != nil {
			if _, err := e.core.River.JobCancelTx(ctx, tx, *m.JobID); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
				return fmt.Errorf("cancel the stale job: %w", err)
			}
		}
		out, err = e.resumeTx(ctx, tx, q, m, db.MissionStale, nil, db.NewMissionEvent{Type: db.MissionEventStatus,
			Status: string(db.MissionRunning), Message: "mission resumed", Data: map[string]any{"resumedBy": r.ActorID}})
		return err
	})
	return out, err
}

// resumeTx puts a locked mission in status from back to running under a new River job (its saved
// conversation replaced by conv when set), with ev.
func (e *Engine) resumeTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, m db.AgentMission,
	from db.MissionStatus, conv []byte, ev db.NewMissionEvent) (db.AgentMission, error) {
	res, err := e.core.River.InsertTx(ctx, tx, jobs.MissionArgs{MissionID: m.ID},
		&river.InsertOpts{Queue: jobs.QueueMissions, MaxAttempts: MissionMaxAttempts})
	if err != nil {
		return m, fmt.Errorf("enqueue mission: %w", err)
	}
	row, err := q.MissionResume(ctx, dbsqlc.MissionResumeParams{ID: m.ID, FromStatus: string(from), Conversation: conv,
		JobID: &res.Job.ID})
	if err != nil {
		return m, fmt.Errorf("resume mission: %w", err)
	}
	if _, err := e.store.AppendMissionEventTx(ctx, tx, m.ID, ev); err != nil {
		return m, err
	}
	return db.AgentMission(row), nil
}

// lockMissionOfTx locks a mission of the workspace (another workspace's is not found).
func (e *Engine) lockMissionOfTx(ctx context.Context, q *dbsqlc.Queries, workspaceID,
	missionID string) (db.AgentMission, error) {
	row, err := q.MissionGetForUpdate(ctx, missionID)
	if dbcore.IsNotFound(err) || (err == nil && row.WorkspaceID != workspaceID) {
		return db.AgentMission{}, dbcore.NotFound("mission not found")
	}
	if err != nil {
		return db.AgentMission{}, fmt.Errorf("lock mission: %w", err)
	}
	return db.AgentMission(row), nil
}

// ExpireMissionInput is the question-expiry job's work: a mission still awaiting input past its
// question's deadline ends expired, its pending proposals rejected, with a done event. It answers
// whether it expired the mission; a mission answered meanwhile (or asking again, with a later deadline,
// whose own job expires it) is left alone.
func (e *Engine) ExpireMissionInput(ctx context.Context, missionID string) (bool, error) {
	expired := false
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := q.MissionExpireInput(ctx, missionID)
		if dbcore.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("expire mission: %w", err)
		}
		expired = true
		reason := "the question went unanswered"
		if err := q.ProposalsRejectPending(ctx, dbsqlc.ProposalsRejectPendingParams{MissionID: m.ID,
			Reason: &reason}); err != nil {
			return fmt.Errorf("reject pending proposals: %w", err)
		}
		question := PendingQuestion(db.AgentMission(m))
		if _, err := e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: db.MissionEventDone,
			Status: string(db.MissionExpired), Message: "mission expired: its question went unanswered",
			Data: map[string]any{"question": questionText(question)}}); err != nil {
			return err
		}
		return e.missionSettledTx(ctx, tx, db.AgentMission(m))
	})
	return expired, err
}

// MarkStaleMissions marks stale every running mission of an in-process agent without an event for
// staleAfter (its worker died or hangs), each with a `status` event, and answers them. A worker that
// comes back to one resumes it (reclaimStaleTx); a person may resume or stop it.
func (e *Engine) MarkStaleMissions(ctx context.Context, staleAfter time.Duration) ([]db.AgentMission, error) {
	if staleAfter <= 0 {
		staleAfter = DefaultStaleAfter
	}
	var out []db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		rows, err := q.MissionMarkStale(ctx, time.Now().Add(-staleAfter))
		if err != nil {
			return fmt.Errorf("mark stale missions: %w", err)
		}
		for _, m := range rows {
			if _, err := e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: db.MissionEventStatus,
				Status: string(db.MissionStale), Message: fmt.Sprintf("no news from the mission's worker for %s; the "+
					"mission is stale (resume or stop it)", staleAfter),
				Data: map[string]any{"staleAfter": staleAfter.String()}}); err != nil {
				return err
			}
			out = append(out, db.AgentMission(m))
		}
		return nil
	})
	return out, err
}

// reclaimStaleTx is a worker coming back to its mission after it was marked stale: running again, with
// a `status` event. It answers whether the mission was stale.
func (e *Engine) reclaimStaleTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, missionID string) (bool, error) {
	_, err := q.MissionReclaimStale(ctx, missionID)
	if dbcore.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reclaim stale mission: %w", err)
	}
	_, err = e.store.AppendMissionEventTx(ctx, tx, missionID, db.NewMissionEvent{Type: db.MissionEventStatus,
		Status: string(db.MissionRunning), Message: "the mission's worker is back; the mission goes on"})
	return true, err
}

// inWords is a status as a person reads it ("awaiting input").
func inWords(status string) string { return strings.ReplaceAll(status, "_", " ") }

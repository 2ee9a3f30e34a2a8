package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/agenttool"
	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/llm"
)

// DefaultMissionTimeout bounds one attempt of a mission job. River's default (one minute) is far too short
// for an agent loop: each of up to 50 model turns may take up to llm.DefaultTimeout (60 s, retries
// included). Ten minutes lets a normal mission finish in one attempt while still freeing the worker
// slot from a model that hangs; a mission that runs out of time is retried and resumes, since every
// recorded step is skipped on the next attempt.
const DefaultMissionTimeout = 10 * time.Minute

// Token batching: one `token` event per tokenBatchSize tokens or tokenFlushEvery, whichever comes
// first, so the event log stays small while the stream still feels live.
const (
	tokenBatchSize  = 20
	tokenFlushEvery = 100 * time.Millisecond
)

// MissionWorker runs an agent mission: model turns with the agent's tools, each tool call applied,
// proposed or refused through the store, until the model answers without tools or the step cap.
type MissionWorker struct {
	river.WorkerDefaults[jobs.MissionArgs]
	deps Deps
}

// NewMissionWorker returns the mission worker (tests run its Work directly).
func NewMissionWorker(deps Deps) *MissionWorker { return &MissionWorker{deps: deps} }

// Timeout implements river.Worker: see DefaultMissionTimeout (MISSION_TIMEOUT overrides it).
func (w *MissionWorker) Timeout(*river.Job[jobs.MissionArgs]) time.Duration {
	if w.deps.MissionTimeout > 0 {
		return w.deps.MissionTimeout
	}
	return DefaultMissionTimeout
}

func (w *MissionWorker) provider() llm.Provider {
	if w.deps.LLM != nil {
		return w.deps.LLM
	}
	return llm.NewOffline()
}

// Work implements river.Worker. It is safe to run again for the same mission (a retry, a rescued job,
// a second worker): a finished mission is left alone, and steps already recorded are not applied
// again; their stored results are given back to the model instead.
func (w *MissionWorker) Work(ctx context.Context, job *river.Job[jobs.MissionArgs]) error {
	st := w.deps.Missions
	id := job.Args.MissionID
	run, err := st.StartMission(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return nil // the mission (or its agent) was deleted
	}
	if err != nil {
		return err
	}
	if !run.Proceed {
		return nil
	}
	err = w.run(ctx, run)
	if err == nil || errors.Is(err, mission.ErrMissionStopped) {
		return nil
	}
	// Cancelled (the job's context ends) or finished elsewhere: nothing more to write.
	if status, serr := st.MissionStatus(context.WithoutCancel(ctx), id); serr == nil &&
		db.MissionStatus(status) != db.MissionRunning {
		return nil
	}
	// Still running: a transient failure (database, network, the attempt's timeout, a worker shutting
	// down) is retried by River and the mission resumes; unusable model output is not worth retrying,
	// and the last attempt records the failure.
	hopeless := errors.Is(err, llm.ErrMalformedOutput) || errors.Is(err, llm.ErrRateLimited)
	if !hopeless && job.Attempt < job.MaxAttempts {
		return err
	}
	_, ferr := st.FinishMission(context.WithoutCancel(ctx), id, "", missionErrorText(err))
	if ferr != nil {
		return ferr
	}
	return nil
}

func missionErrorText(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "the mission ran out of time"
	case errors.Is(err, llm.ErrRateLimited):
		return "the language model kept refusing requests (rate limited)"
	case errors.Is(err, llm.ErrMalformedOutput):
		return "the language model answered with unusable output: " + err.Error()
	}
	return "mission failed: " + err.Error()
}

func (w *MissionWorker) run(ctx context.Context, run mission.MissionRun) error {
	st := w.deps.Missions
	m, agent := run.Mission, run.Agent
	card, err := st.MissionCardSnapshot(ctx, m)
	if err != nil {
		return err
	}
	var mc *llm.CardContext
	if card != nil {
		mc = &llm.CardContext{ID: card.ID, Title: card.Title, Description: card.Description, Priority: card.Priority,
			Column: card.Column, DueDate: card.DueDate, Comments: card.Comments, Labels: card.Labels}
		for _, it := range card.Checklist {
			mc.Checklist = append(mc.Checklist, llm.ChecklistItem{Title: it.Title, Done: it.Done})
		}
	}
	tokens := &tokenBatcher{flush: func(text string) {
		if _, err := w.deps.Store.AppendMissionEvent(context.WithoutCancel(ctx), m.ID,
			db.NewMissionEvent{Type: db.MissionEventToken, Message: text}); err != nil {
			w.deps.Logger.WarnContext(ctx, "mission token event", "mission", m.ID, "error", err)
		}
	}}
	req := llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: systemPrompt(run)}},
		Tools:    llm.SelectTools(agent.Tools),
		Mission:  &llm.MissionContext{Objective: m.Objective, Card: mc},
		Model:    agent.Model, // empty: the server's default (LLM_MODEL)
		OnToken:  tokens.add,
	}
	first := 1
	if conv := run.Conversation; conv != nil && conv.Answer != nil {
		// Asked and answered: on from where the mission stopped, the answer as its question's result.
		var saved []llm.Message
		if err := json.Unmarshal(conv.Messages, &saved); err != nil {
			return fmt.Errorf("%w: the saved conversation: %w", llm.ErrMalformedOutput, err)
		}
		if len(saved) > 0 && saved[0].Role == llm.RoleSystem {
			saved = saved[1:]
		}
		req.Messages = append(req.Messages, saved...)
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: conv.AskCallID,
			Content: "The person answered: " + *conv.Answer})
		first = conv.Turn + 1
	}
	provider := w.provider()
	for turn := first; turn <= int(m.MaxSteps); turn++ {
		if err := st.MissionTurn(ctx, m.ID, turn); err != nil {
			return err
		}
		if over, err := st.BudgetExceeded(ctx, m.WorkspaceID); err != nil {
			return err
		} else if over {
			// The workspace's daily token budget is spent: the mission stops, reason budget.
			_, err := st.StopForBudget(ctx, m.ID)
			return err
		}
		tokens.newTurn()
		resp, err := provider.Chat(ctx, req)
		tokens.done()
		if err != nil {
			return fmt.Errorf("model turn %d: %w", turn, err)
		}
		if err := st.RecordModelTurn(ctx, m.ID, mission.TurnUsage{PromptTokens: resp.Usage.PromptTokens,
			CompletionTokens: resp.Usage.CompletionTokens}); err != nil {
			return err
		}
		if len(resp.ToolCalls) == 0 {
			_, err := st.FinishMission(ctx, m.ID, resp.Content, "")
			return err
		}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: resp.Content,
			ToolCalls: resp.ToolCalls})
		var ask *askCall
		for i, tc := range resp.ToolCalls {
			if err := ctx.Err(); err != nil {
				return err
			}
			if tc.Name == agenttool.AskUser {
				text, a := askOf(agent, tc, ask != nil)
				if a != nil {
					ask = a
					continue // answered once the person replies
				}
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: text})
				continue
			}
			out, err := st.RunMissionStep(ctx, mission.StepInput{MissionID: m.ID, StepKey: fmt.Sprintf("turn%d:%d", turn, i),
				Tool: tc.Name, Args: tc.Arguments, Explanation: resp.Content})
			if err != nil {
				return err
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: out.Text})
		}
		if ask != nil {
			// The mission waits for its requester's answer; the job ends here, and the answer starts another.
			msgs, err := json.Marshal(req.Messages)
			if err != nil {
				return fmt.Errorf("encode the conversation: %w", err)
			}
			_, err = st.AskQuestion(ctx, mission.Ask{MissionID: m.ID, Question: ask.args.Question, Options: ask.args.Options,
				Timeout: w.deps.MissionInputTimeout, Conversation: mission.Conversation{Turn: turn, Messages: msgs,
					AskCallID: ask.id}})
			return err
		}
	}
	_, err = st.FinishMission(ctx, m.ID, "", fmt.Sprintf("the mission reached its step limit (%d model turns) without a "+
		"final answer", m.MaxSteps))
	return err
}

// askCall is the ask_user call of a model turn the mission waits on.
type askCall struct {
	id   string
	args agenttool.AskUserArgs
}

// askOf works out an ask_user call: the question to wait on, or (nil) the error the model is told: the
// agent was not given the tool, the arguments are bad, or the turn already asked (one question at a time).
func askOf(agent db.Agent, tc llm.ToolCall, asked bool) (string, *askCall) {
	if !slices.Contains(agent.Tools, agenttool.AskUser) {
		return fmt.Sprintf("error: this agent may not use the tool %q", agenttool.AskUser), nil
	}
	if asked {
		return "error: one question at a time; ask this one after the answer to the first", nil
	}
	args, err := agenttool.Decode(agenttool.AskUser, tc.Arguments, agenttool.Limits{})
	if err != nil {
		return "error: " + err.Error(), nil
	}
	return "", &askCall{id: tc.ID, args: args.(agenttool.AskUserArgs)}
}

// systemPrompt tells the model who it is, how it may act and what its skills say.
func systemPrompt(run mission.MissionRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, an AI agent working in Pilot, a work-management tool.", run.Agent.Name)
	if d := strings.TrimSpace(run.Agent.Description); d != "" {
		fmt.Fprintf(&b, " %s", d)
	}
	b.WriteString("\nUse the tools to act on the card; each call is applied, or proposed to a person for approval, " +
		"and its result tells you which. When you are done, answer with a short summary and no tool call.")
	if slices.Contains(run.Agent.Tools, agenttool.AskUser) {
		b.WriteString(" When you cannot go on without the requester's answer, ask them with ask_user.")
	}
	for _, sk := range run.Skills {
		if ins := strings.TrimSpace(sk.Instructions); ins != "" {
			fmt.Fprintf(&b, "\n\nSkill %q:\n%s", sk.Name, ins)
		}
	}
	return b.String()
}

// tokenBatcher groups streamed tokens into few events. The text of each model turn after the first
// that said something starts with a blank line, so two turns' words never run together ("thoughts?" then
// "Mission on…") in the text a person reads, which is the tokens joined.
type tokenBatcher struct {
	mu    sync.Mutex
	buf   strings.Builder
	n     int
	last  time.Time
	flush func(string)
	// said: a token was streamed; gap: the next token starts a turn after one that said something.
	said, gap bool
}

// newTurn starts a model turn: its first token comes after a blank line when earlier turns said something.
func (t *tokenBatcher) newTurn() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gap = t.said
}

func (t *tokenBatcher) add(tok string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last.IsZero() {
		t.last = time.Now()
	}
	if t.gap {
		t.buf.WriteString("\n\n")
		t.gap = false
	}
	t.said = true
	t.buf.WriteString(tok)
	t.n++
	if t.n >= tokenBatchSize || time.Since(t.last) >= tokenFlushEvery {
		t.flushLocked()
	}
}

func (t *tokenBatcher) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
}

func (t *tokenBatcher) flushLocked() {
	if t.buf.Len() > 0 {
		t.flush(t.buf.String())
	}
	t.buf.Reset()
	t.n = 0
	t.last = time.Now()
}

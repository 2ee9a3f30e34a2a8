package mission

// This file is the mission executor: what a worker does with a queued mission (start or resume it, show
// the model its card, count its turns), each tool call decoded and applied as the agent's user or turned
// into a proposal, a person's decision on a proposal, and the mission's end. Missions as records (queue,
// read, list, cancel) are in missions.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/agenttool"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/pilotage"
)

// Step outcomes recorded in mission_steps.
const (
	StepApplied  = "applied"
	StepProposed = "proposed"
	StepRefused  = "refused"
)

// ErrMissionStopped tells the runner its mission is no longer running (cancelled, or finished by
// another attempt): it stops without writing anything more.
var ErrMissionStopped = errors.New("mission is no longer running")

// MissionRun is what a worker needs to run a mission.
type MissionRun struct {
	Mission db.AgentMission
	Agent   db.Agent
	Skills  []db.Skill
	// Proceed is false when there is nothing to run: the mission is finished, stopped, awaiting
	// approval or input, or belongs to an mcpOnly agent.
	Proceed bool
	// Conversation, when set, is where the mission resumes: it asked, and was answered.
	Conversation *Conversation
}

// StartMission takes a mission for a worker: the guarded queued -> running move with its status event.
// A mission already running (a retried or rescued job, or one resumed after an answer) is resumed as
// is, and a stale one (its worker came back) is running again. Either way an `ack` event says the job
// picked the mission up, before any model call: its data.plan is the model's first words when a saved
// conversation has them, else empty.
func (e *Engine) StartMission(ctx context.Context, missionID string) (MissionRun, error) {
	var run MissionRun
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := q.MissionGetForUpdate(ctx, missionID)
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("mission not found")
		}
		if err != nil {
			return fmt.Errorf("lock mission: %w", err)
		}
		agent, err := q.AgentGetByID(ctx, m.AgentID)
		if err != nil {
			return fmt.Errorf("get agent: %w", err)
		}
		run.Agent = db.Agent(agent)
		status := db.MissionStatus(m.Status)
		if agent.McpOnly || (status != db.MissionQueued && status != db.MissionRunning && status != db.MissionStale) {
			run.Mission = db.AgentMission(m)
			return nil
		}
		switch status {
		case db.MissionQueued:
			if m, err = q.MissionStart(ctx, missionID); err != nil {
				return fmt.Errorf("start mission: %w", err)
			}
			if _, err := e.store.AppendMissionEventTx(ctx, tx, missionID, db.NewMissionEvent{Type: db.MissionEventStatus,
				Status: string(db.MissionRunning), Message: "mission started"}); err != nil {
				return err
			}
		case db.MissionStale:
			if _, err := e.reclaimStaleTx(ctx, tx, q, missionID); err != nil {
				return err
			}
			m.Status = string(db.MissionRunning)
		}
		run.Mission, run.Proceed = db.AgentMission(m), true
		run.Conversation = SavedConversation(run.Mission)
		if _, err := e.store.AppendMissionEventTx(ctx, tx, missionID, db.NewMissionEvent{Type: db.MissionEventAck,
			Status: string(db.MissionRunning), Message: agent.Name + " picked up the mission",
			Data: map[string]any{"agentId": agent.ID, "plan": run.Conversation.Plan()}}); err != nil {
			return err
		}
		var skillsRows []dbsqlc.Skill
		skillsRows, err = q.SkillsByAgent(ctx, agent.ID)
		run.Skills = dbcore.MapRows(skillsRows, func(r dbsqlc.Skill) db.Skill { return db.Skill(r) })
		if err != nil {
			return fmt.Errorf("agent skills: %w", err)
		}
		return nil
	})
	return run, err
}

// MissionCard is a read-only snapshot of a mission's card for the model.
type MissionCard struct {
	ID, Title, Description, Priority, Column string
	DueDate                                  *time.Time
	Checklist                                []board.ChecklistItemInput
	Comments                                 []string
	Labels                                   []string
}

// MissionCardSnapshot reads the mission's card (nil when the mission has none or it was deleted), with
// its checklist, labels, column name and comments, in three queries.
func (e *Engine) MissionCardSnapshot(ctx context.Context, m db.AgentMission) (*MissionCard, error) {
	if m.CardID == nil || m.ProjectID == nil {
		return nil, nil
	}
	c, err := e.board.Card(ctx, *m.ProjectID, *m.CardID)
	if dbcore.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d := c.Card
	out := &MissionCard{ID: d.ID, Title: d.Title, Description: d.Description, Priority: d.Priority, DueDate: d.DueDate}
	var items []struct {
		Title string `json:"title"`
		Done  bool   `json:"done"`
	}
	_ = json.Unmarshal(d.PartsChecklist, &items)
	for _, it := range items {
		out.Checklist = append(out.Checklist, board.ChecklistItemInput{Title: it.Title, Done: it.Done})
	}
	var labels []struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(d.PartsLabels, &labels)
	for _, l := range labels {
		out.Labels = append(out.Labels, l.Name)
	}
	if out.Column, err = e.core.Q.MissionColumnName(ctx, d.ColumnID); err != nil && !dbcore.IsNotFound(err) {
		return nil, fmt.Errorf("card column: %w", err)
	}
	comments, err := e.core.Q.CommentListByCard(ctx, d.ID)
	if err != nil {
		return nil, fmt.Errorf("card comments: %w", err)
	}
	for _, c := range comments {
		out.Comments = append(out.Comments, c.Comment.Content)
	}
	return out, nil
}

// MissionTurn records that model turn n (1-based) starts; ErrMissionStopped when the mission no
// longer runs (it was stopped between turns, or asked). A mission marked stale meanwhile (this worker was
// silent a long while) is running again.
func (e *Engine) MissionTurn(ctx context.Context, missionID string, n int) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := e.reclaimStaleTx(ctx, tx, q, missionID); err != nil {
			return err
		}
		rows, err := q.MissionSetSteps(ctx, dbsqlc.MissionSetStepsParams{ID: missionID, Steps: dbcore.Int32(n)})
		if err != nil {
			return fmt.Errorf("mission turn: %w", err)
		}
		if rows == 0 {
			return ErrMissionStopped
		}
		return nil
	})
}

// MissionStatus reads a mission's current status (the runner checks it after an interrupted call).
func (e *Engine) MissionStatus(ctx context.Context, missionID string) (string, error) {
	m, err := e.core.Q.MissionGetByID(ctx, missionID)
	if err != nil {
		return "", dbcore.Wrap(err, "get mission")
	}
	return m.Status, nil
}

// StepInput is one tool call of a mission's model turn.
type StepInput struct {
	MissionID string
	// StepKey names the call within the mission ("turn<N>:<index>"): a call already recorded under
	// the key is never applied again.
	StepKey     string
	Tool        string
	Args        json.RawMessage
	Explanation string
	// Claim, for a mission an MCP client claimed (with WorkspaceID, its workspace), says who calls: the
	// mission must be claimed by Claim.UserID, the call pushes the claim's expiry back, and a tool
	// outside the agent's tools is refused.
	Claim       *MissionClaim
	WorkspaceID string
}

// StepOutcome is what became of a tool call.
type StepOutcome struct {
	Outcome string // applied, proposed or refused
	// Text is the tool result given back to the model; it starts with "error" when refused.
	Text       string
	ProposalID string
	// Replayed says the step was recorded by an earlier attempt and nothing was done now.
	Replayed bool
}

// RunMissionStep handles one tool call of a running mission in one transaction: under the mission's
// row lock it skips a step already recorded (returning its stored result), refuses past the agent's
// maxActionsPerMission, then applies the action through the store as the agent's service user or turns
// it into a pending proposal according to the agent's autonomy, records the step (ON CONFLICT DO
// NOTHING) and appends its `step` (and `proposal`) events. A failed action is recorded as refused with
// the reason, which the model is told.
func (e *Engine) RunMissionStep(ctx context.Context, in StepInput) (StepOutcome, error) {
	for range 5 {
		var out StepOutcome
		err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
			var err error
			out, err = e.runMissionStepTx(ctx, tx, q, in)
			return err
		})
		if !errors.Is(err, board.ErrRetryMove) {
			return out, err
		}
	}
	return StepOutcome{}, dbcore.Conflict("the card is being moved by someone else; try again")
}

// runMissionStepTx locks the mission, replays a step already recorded under its key, or works it out
// (refused, proposed or applied) and records it with its mission event.
func (e *Engine) runMissionStepTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries,
	in StepInput) (StepOutcome, error) {
	m, err := e.lockMissionForStepTx(ctx, tx, q, in)
	if err != nil {
		return StepOutcome{}, err
	}
	if prev, err := q.MissionStepGet(ctx, dbsqlc.MissionStepGetParams{MissionID: m.ID, StepKey: in.StepKey}); err == nil {
		var res stepResult
		_ = json.Unmarshal(prev.Result, &res)
		return StepOutcome{Outcome: prev.Outcome, Text: res.Text, ProposalID: res.ProposalID, Replayed: true}, nil
	} else if !dbcore.IsNotFound(err) {
		return StepOutcome{}, fmt.Errorf("get step: %w", err)
	}
	agent, err := q.AgentGetByID(ctx, m.AgentID)
	if err != nil {
		return StepOutcome{}, fmt.Errorf("get agent: %w", err)
	}
	outcome, res, err := e.workMissionStepTx(ctx, tx, q, m, agent, in)
	if err != nil {
		return StepOutcome{}, err
	}
	if err := e.recordMissionStepTx(ctx, tx, q, m, in, outcome, res); err != nil {
		return StepOutcome{}, err
	}
	return StepOutcome{Outcome: outcome, Text: res.Text, ProposalID: res.ProposalID}, nil
}

// lockMissionForStepTx locks the mission a step is for: through the caller's claim when it holds one,
// else as a running mission (ErrMissionStopped when it is not).
func (e *Engine) lockMissionForStepTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries,
	in StepInput) (db.AgentMission, error) {
	if in.Claim != nil {
		return e.holdClaimTx(ctx, q, in.WorkspaceID, in.MissionID, *in.Claim)
	}
	mRow, err := q.MissionGetForUpdate(ctx, in.MissionID)
	if err != nil {
		return db.AgentMission{}, dbcore.Wrap(err, "lock mission")
	}
	m := db.AgentMission(mRow)
	if db.MissionStatus(m.Status) == db.MissionStale {
		if _, err := e.reclaimStaleTx(ctx, tx, q, m.ID); err != nil {
			return db.AgentMission{}, err
		}
		m.Status = string(db.MissionRunning)
	}
	if db.MissionStatus(m.Status) != db.MissionRunning {
		return db.AgentMission{}, ErrMissionStopped
	}
	return m, nil
}

// workMissionStepTx decides what becomes of a tool call: refused (a tool the agent may not use, the
// mission's action limit reached, bad arguments), proposed for approval, or applied.
func (e *Engine) workMissionStepTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, m db.AgentMission,
	agent dbsqlc.Agent, in StepInput) (string, stepResult, error) {
	action, derr := decodeToolCall(in.Tool, in.Args)
	switch {
	case in.Claim != nil && !agentMayUse(db.Agent(agent), in.Tool):
		return StepRefused, stepResult{Text: fmt.Sprintf("error: the agent may not use %q; its tools are %s", in.Tool,
			strings.Join(agent.Tools, ", "))}, nil
	case m.Actions >= agent.MaxActionsPerMission:
		return StepRefused, stepResult{Text: fmt.Sprintf("error: this mission reached its limit of %d actions; do not call "+
			"more tools, give your final answer", agent.MaxActionsPerMission)}, nil
	case !slices.Contains(agent.Tools, in.Tool):
		return StepRefused, stepResult{Text: fmt.Sprintf("error: this agent may not use the tool %q", in.Tool)}, nil
	case derr != nil:
		return StepRefused, stepResult{Text: "error: " + derr.Error()}, nil
	case needsApproval(agent.AutonomyMode, in.Tool):
		// A proposal must be one that applies: the approver would otherwise meet the refusal, and the
		// proposal would stay pending. Checked now by the apply path itself, rolled back.
		if _, refusal, err := e.tryAgentActionTx(ctx, tx, m, agent.UserID, action, false); err != nil || refusal != nil {
			if err != nil {
				return "", stepResult{}, err
			}
			return StepRefused, stepResult{Text: "error: " + refusal.Msg}, nil
		}
		res, err := e.proposeMissionStepTx(ctx, tx, q, m, in)
		return StepProposed, res, err
	}
	return e.applyMissionStepTx(ctx, tx, m, agent, action)
}

// proposeMissionStepTx records the tool call as a proposal awaiting a person's approval.
func (e *Engine) proposeMissionStepTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, m db.AgentMission,
	in StepInput) (stepResult, error) {
	p, err := q.ProposalInsert(ctx, dbsqlc.ProposalInsertParams{ID: db.NewID(), MissionID: m.ID,
		WorkspaceID: m.WorkspaceID, StepKey: in.StepKey, Tool: in.Tool, Args: in.Args,
		Explanation: board.Excerpt(strings.TrimSpace(in.Explanation), 1000)})
	if err != nil {
		return stepResult{}, fmt.Errorf("insert proposal: %w", err)
	}
	res := stepResult{ProposalID: p.ID, Text: fmt.Sprintf("proposed for human approval (proposal %s); it applies once a "+
		"person approves it", p.ID)}
	if _, err := e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: db.MissionEventProposal,
		Message: "proposal awaiting approval: " + in.Tool, Data: map[string]any{"proposalId": p.ID, "tool": in.Tool,
			"args": in.Args, "stepKey": in.StepKey, "status": ProposalPending}}); err != nil {
		return stepResult{}, err
	}
	return res, nil
}

// applyMissionStepTx applies the tool call as the agent's user (tryAgentActionTx, kept): a refusal is a
// refused step, not an error.
func (e *Engine) applyMissionStepTx(ctx context.Context, tx pgx.Tx, m db.AgentMission, agent dbsqlc.Agent,
	action agenttool.Args) (string, stepResult, error) {
	text, refusal, err := e.tryAgentActionTx(ctx, tx, m, agent.UserID, action, true)
	switch {
	case err != nil:
		return "", stepResult{}, err
	case refusal != nil:
		return StepRefused, stepResult{Text: "error: " + refusal.Msg}, nil
	}
	return StepApplied, stepResult{Text: "ok: " + text}, nil
}

// tryAgentActionTx applies a decoded tool call as actorID (applyAgentAction) under a savepoint, which
// keeps a refused action from spoiling the caller's transaction. keep releases the savepoint (the action
// is applied); otherwise it is rolled back whatever happened: a dry run through every check applying
// makes (the store's tenancy, ids of the mission's project, limits, states), with nothing written, no
// activity, no job, no notification. The store's refusal (a *db.Error) is answered as refusal, anything
// else as err.
func (e *Engine) tryAgentActionTx(ctx context.Context, tx pgx.Tx, m db.AgentMission, actorID string,
	action agenttool.Args, keep bool) (text string, refusal *db.Error, err error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("savepoint: %w", err)
	}
	text, aerr := e.applyAgentAction(ctx, sp, m, actorID, action)
	if aerr == nil && keep {
		if err := sp.Commit(ctx); err != nil {
			return "", nil, fmt.Errorf("release savepoint: %w", err)
		}
		return text, nil, nil
	}
	if err := sp.Rollback(ctx); err != nil && aerr == nil {
		return "", nil, fmt.Errorf("roll back savepoint: %w", err)
	}
	if errors.As(aerr, &refusal) {
		return "", refusal, nil
	}
	return text, nil, aerr
}

// recordMissionStepTx records the step under its key, counts it as one of the mission's actions unless
// refused, and appends its mission event.
func (e *Engine) recordMissionStepTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, m db.AgentMission, in StepInput,
	outcome string, res stepResult) error {
	raw, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode step result: %w", err)
	}
	if _, err := q.MissionStepInsert(ctx, dbsqlc.MissionStepInsertParams{MissionID: m.ID, StepKey: in.StepKey,
		Tool: in.Tool, Args: in.Args, Outcome: outcome, Result: raw}); err != nil {
		return fmt.Errorf("insert step: %w", err)
	}
	if outcome != StepRefused {
		if err := q.MissionAddAction(ctx, m.ID); err != nil {
			return fmt.Errorf("count action: %w", err)
		}
	}
	data := map[string]any{"stepKey": in.StepKey, "tool": in.Tool, "args": in.Args, "outcome": outcome, "result": res.Text}
	if res.ProposalID != "" {
		data["proposalId"] = res.ProposalID
	}
	_, err = e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: db.MissionEventStep,
		Message: in.Tool + ": " + outcome, Data: data})
	return err
}

type stepResult struct {
	Text       string `json:"text"`
	ProposalID string `json:"proposalId,omitempty"`
}

// needsApproval says whether an agent of this autonomy must propose the tool's action rather than
// apply it: approval proposes everything, supervised applies comments and checklist additions only.
// propose_pilotage_action is never held back: what it does is store a suggestion a person reviews.
func needsApproval(mode, tool string) bool {
	if tool == agenttool.ProposePilotageAction {
		return false
	}
	switch mode {
	case AutonomyAutonomous:
		return false
	case AutonomySupervised:
		return tool != agenttool.AddComment && tool != agenttool.AddChecklistItems
	default:
		return true
	}
}

// agentToolLimits are the card limits tool calls are decoded against.
var agentToolLimits = agenttool.Limits{Priorities: db.Strings(board.Priorities),
	MaxChecklistItems: board.MaxChecklistItems, MaxCommentLength: board.MaxCommentLength}

// decodeToolCall decodes and validates a tool call's arguments (agenttool.Decode); a bad call is
// ErrInvalid.
func decodeToolCall(tool string, raw json.RawMessage) (agenttool.Args, error) {
	args, err := agenttool.Decode(tool, raw, agentToolLimits)
	if err != nil {
		return nil, dbcore.Invalid(err.Error())
	}
	return args, nil
}

// applyAgentAction performs a tool call through the store's card operations, as the agent's service user,
// in the caller's transaction (so they record activity and notify like anyone's change). It answers a
// short description of what it did. What it records names the agent and the person it acts for: the
// context's (a person approving) or else the member who started the mission.
func (e *Engine) applyAgentAction(ctx context.Context, tx pgx.Tx, m db.AgentMission, actorID string,
	args agenttool.Args) (string, error) {
	if _, ok := dbcore.ActingFrom(ctx); !ok {
		ctx = db.Acting(ctx, m.AgentID, m.CreatedBy)
	}
	if a, ok := args.(agenttool.ProposePilotageActionArgs); ok {
		act, err := e.pilotage.ProposeActionTx(ctx, tx, pilotage.NewPilotageAction{WorkspaceID: m.WorkspaceID,
			ActorID: actorID, ActionType: a.ActionType, Explanation: a.Explanation, Payload: a.Payload, AgentMissionID: &m.ID})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("cockpit action %s proposed (suggested); a person reviews it before it applies", act.ID), nil
	}
	if m.ProjectID == nil {
		return "", dbcore.Invalid("this mission has no project, so card tools cannot be used")
	}
	projectID := *m.ProjectID
	var cardID string
	if _, creates := args.(agenttool.CreateCardArgs); !creates { // every other tool acts on the mission's card
		if m.CardID == nil {
			return "", dbcore.Invalid("this mission has no card")
		}
		cardID = *m.CardID
	}
	switch a := args.(type) {
	case agenttool.UpdateCardArgs:
		p := board.CardPatch{Title: a.Title, Description: a.Description, Priority: (*board.Priority)(a.Priority),
			DueDate: db.Opt[time.Time]{Set: a.DueDate != nil, Value: a.DueDate}}
		if _, err := e.board.UpdateCardTx(ctx, tx, board.CardUpdate{WorkspaceID: m.WorkspaceID, ProjectID: projectID,
			CardID: cardID, ActorID: actorID, Patch: p}); err != nil {
			return "", err
		}
		return "card updated", nil
	case agenttool.MoveCardArgs:
		if _, err := e.board.UpdateCardTx(ctx, tx, board.CardUpdate{WorkspaceID: m.WorkspaceID, ProjectID: projectID,
			CardID: cardID, ActorID: actorID, Patch: board.CardPatch{ColumnID: &a.ColumnID}}); err != nil {
			return "", err
		}
		return "card moved", nil
	case agenttool.AddChecklistItemsArgs:
		if err := e.board.AddChecklistItemsTx(ctx, tx, db.CardEdit{ProjectID: projectID, CardID: cardID, ActorID: actorID},
			a.Items); err != nil {
			return "", err
		}
		return plural(len(a.Items), "checklist item", "checklist items") + " added", nil
	case agenttool.AddCommentArgs:
		if _, err := e.board.CreateCommentTx(ctx, tx, db.CardEdit{ProjectID: projectID, CardID: cardID, ActorID: actorID},
			a.Content); err != nil {
			return "", err
		}
		return "comment posted", nil
	case agenttool.CreateCardArgs:
		c, err := e.board.CreateCardTx(ctx, tx, board.NewCard{WorkspaceID: m.WorkspaceID, ProjectID: projectID,
			ActorID: actorID, Title: a.Title, Description: a.Description})
		if err != nil {
			return "", err
		}
		return "card created: " + c.ID, nil
	}
	return "", dbcore.Invalid(fmt.Sprintf("unknown tool %q", args.Tool()))
}

// FinishMission ends a running mission: failed with errText when set (+ done event); else
// awaiting_approval when proposals are pending (+ status event), else completed (+ done event) with the
// model's summary. A mission no longer running (cancelled) is left alone.
func (e *Engine) FinishMission(ctx context.Context, missionID, summary, errText string) (db.AgentMission, error) {
	var out db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := q.MissionGetForUpdate(ctx, missionID)
		if err != nil {
			return dbcore.Wrap(err, "lock mission")
		}
		out, err = e.finishMissionTx(ctx, tx, q, db.AgentMission(m), summary, errText)
		return err
	})
	return out, err
}

// finishMissionTx is FinishMission's work on a mission locked by the caller.
func (e *Engine) finishMissionTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, m db.AgentMission, summary,
	errText string) (db.AgentMission, error) {
	if db.MissionStatus(m.Status) != db.MissionRunning {
		return m, nil
	}
	status, evType, msg := db.MissionCompleted, db.MissionEventDone, summary
	var errPtr *string
	switch {
	case errText != "":
		status, evType, msg, errPtr = db.MissionFailed, db.MissionEventDone, errText, &errText
	default:
		n, err := q.ProposalPendingCount(ctx, m.ID)
		if err != nil {
			return m, fmt.Errorf("count proposals: %w", err)
		}
		if n > 0 {
			status, evType = db.MissionAwaitingApproval, db.MissionEventStatus
		}
	}
	out, err := q.MissionFinish(ctx, dbsqlc.MissionFinishParams{ID: m.ID, Status: string(status), Error: errPtr})
	if err != nil {
		return m, fmt.Errorf("finish mission: %w", err)
	}
	if msg == "" {
		msg = "mission " + strings.ReplaceAll(string(status), "_", " ")
	}
	if _, err = e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: evType, Status: string(status),
		Message: msg}); err != nil {
		return db.AgentMission(out), err
	}
	// A pipeline step waiting for the mission goes on in the same transaction.
	return db.AgentMission(out), e.missionSettledTx(ctx, tx, db.AgentMission(out))
}

// missionSettledTx advances the pipeline step that waits for a mission which just reached a final
// status (completed, failed, stopped, expired), in the mission's transaction.
func (e *Engine) missionSettledTx(ctx context.Context, tx pgx.Tx, m db.AgentMission) error {
	var msg string
	switch db.MissionStatus(m.Status) {
	case db.MissionCompleted:
	case db.MissionFailed:
		msg = "the mission failed"
		if m.Error != nil {
			msg += ": " + *m.Error
		}
	case db.MissionStopped:
		msg = "the mission was stopped"
	case db.MissionExpired:
		msg = "the mission expired: its question went unanswered"
	default:
		return nil
	}
	return e.waits.WaitFinishedTx(ctx, tx, "mission:"+m.ID, map[string]any{"status": m.Status}, msg)
}

// plural is n with the noun agreeing: "1 checklist item", "2 checklist items".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

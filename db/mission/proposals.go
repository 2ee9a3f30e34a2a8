package mission

// Deciding an agent's proposals: who may, and what approving or rejecting one does.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/agenttool"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Decider is who decides a proposal: a user, and whether they hold a pilotage role that reviews (reviewer
// or owner, which organization owners and admins act as).
type Decider struct {
	UserID   string
	Reviewer bool
}

// DecideProposal approves or rejects a pending proposal in one transaction: the guarded pending ->
// approved|rejected move, for an approval the action applied through the store as the agent's service
// user, a `proposal` event, and when the mission awaited approval and nothing is pending any more, its
// completion with a done event. Deciding twice is a conflict; an action that cannot apply any more is
// refused and the proposal stays pending. Only the mission's requester and reviewers may decide
// (ErrForbidden otherwise).
func (e *Engine) DecideProposal(ctx context.Context, workspaceID, proposalID string, by Decider, approve bool,
	reason string) (db.AgentProposal, error) {
	actorID := by.UserID
	for range 5 {
		var out db.AgentProposal
		err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
			p, err := q.ProposalGet(ctx, dbsqlc.ProposalGetParams{ID: proposalID, WorkspaceID: workspaceID})
			if dbcore.IsNotFound(err) {
				return dbcore.NotFound("proposal not found")
			}
			if err != nil {
				return fmt.Errorf("get proposal: %w", err)
			}
			m, err := q.MissionGetForUpdate(ctx, p.MissionID)
			if err != nil {
				return fmt.Errorf("lock mission: %w", err)
			}
			if !by.Reviewer && m.CreatedBy != by.UserID {
				return dbcore.Forbidden("only the mission's requester or a pilotage reviewer or owner may decide its proposals")
			}
			status := string(ProposalRejected)
			var reasonPtr *string
			if approve {
				status = string(ProposalApproved)
			} else if reason != "" {
				reasonPtr = &reason
			}
			var outRow dbsqlc.AgentProposal
			outRow, err = q.ProposalDecide(ctx, dbsqlc.ProposalDecideParams{ID: p.ID, Status: status, Reason: reasonPtr,
				DecidedBy: &actorID})
			out = db.AgentProposal(outRow)
			if dbcore.IsNotFound(err) {
				cur, _ := q.ProposalGet(ctx, dbsqlc.ProposalGetParams{ID: proposalID, WorkspaceID: workspaceID})
				return dbcore.Conflict(fmt.Sprintf("the proposal is already %s", cur.Status))
			}
			if err != nil {
				return fmt.Errorf("decide proposal: %w", err)
			}
			data := map[string]any{"proposalId": p.ID, "tool": p.Tool, "status": status, "decidedBy": actorID}
			msg := "proposal rejected: " + p.Tool
			if approve {
				agent, err := q.AgentGetByID(ctx, m.AgentID)
				if err != nil {
					return fmt.Errorf("get agent: %w", err)
				}
				action, err := decodeToolCall(p.Tool, p.Args)
				if err != nil {
					return err
				}
				// The agent acts for the person who approved.
				text, err := e.applyAgentAction(db.Acting(ctx, m.AgentID, actorID), tx, db.AgentMission(m), agent.UserID,
					action)
				if err != nil {
					return err
				}
				data["result"] = text
				msg = "proposal approved: " + p.Tool
			} else if reason != "" {
				data["reason"] = reason
			}
			if _, err := e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: db.MissionEventProposal,
				Message: msg, Data: data}); err != nil {
				return err
			}
			done, err := q.MissionCompleteIfSettled(ctx, m.ID)
			if dbcore.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("complete mission: %w", err)
			}
			outcome, err := missionOutcome(ctx, q, done.ID)
			if err != nil {
				return err
			}
			if _, err = e.store.AppendMissionEventTx(ctx, tx, done.ID, db.NewMissionEvent{Type: db.MissionEventDone,
				Status: string(db.MissionCompleted), Message: "Every proposal was decided; mission completed. " +
					outcome}); err != nil {
				return err
			}
			return e.missionSettledTx(ctx, tx, db.AgentMission(done))
		})
		if !errors.Is(err, board.ErrRetryMove) {
			return out, err
		}
	}
	return db.AgentProposal{}, dbcore.Conflict("the card is being moved by someone else; try again")
}

// missionOutcome says what became of a mission's actions, from its steps and proposals: what was
// applied (at once, or approved), what waits for approval, what was rejected and what was not applied
// (refused). The agent's own summary was written before anyone decided, so the mission says this.
func missionOutcome(ctx context.Context, q *dbsqlc.Queries, missionID string) (string, error) {
	steps, err := q.MissionStepList(ctx, missionID)
	if err != nil {
		return "", fmt.Errorf("list steps: %w", err)
	}
	proposals, err := q.ProposalListByMission(ctx, missionID)
	if err != nil {
		return "", fmt.Errorf("list proposals: %w", err)
	}
	status := map[string]string{} // a proposal's status by its step
	for _, p := range proposals {
		status[p.StepKey] = p.Status
	}
	var applied, waiting, rejected, refused []string
	for _, st := range steps { // in the order the agent called them
		outcome := st.Outcome
		if outcome == StepProposed {
			outcome = status[st.StepKey]
		}
		switch outcome {
		case StepApplied, string(ProposalApproved):
			applied = append(applied, toolInWords(st.Tool))
		case StepRefused:
			refused = append(refused, toolInWords(st.Tool))
		case string(ProposalPending):
			waiting = append(waiting, toolInWords(st.Tool))
		case string(ProposalRejected):
			rejected = append(rejected, toolInWords(st.Tool))
		}
	}
	return outcomeInWords(applied, waiting, rejected, refused), nil
}

// outcomeInWords lists the actions of each kind, in sentences.
func outcomeInWords(applied, waiting, rejected, refused []string) string {
	var parts []string
	for _, g := range []struct {
		label string
		what  []string
	}{{"Applied", applied}, {"Waiting for approval", waiting}, {"Rejected", rejected}, {"Not applied", refused}} {
		if len(g.what) > 0 {
			parts = append(parts, g.label+": "+strings.Join(g.what, "; ")+".")
		}
	}
	if len(parts) == 0 {
		return "Nothing was changed."
	}
	return strings.Join(parts, " ")
}

// toolInWords names what an agent tool does, for a person.
func toolInWords(tool string) string {
	switch tool {
	case agenttool.AddComment:
		return "post a comment"
	case agenttool.AddChecklistItems:
		return "add checklist items"
	case agenttool.UpdateCard:
		return "update the card"
	case agenttool.MoveCard:
		return "move the card"
	case agenttool.CreateCard:
		return "create a card"
	case agenttool.ProposePilotageAction:
		return "propose a cockpit action"
	}
	return strings.ReplaceAll(tool, "_", " ")
}

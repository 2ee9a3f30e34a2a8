package db

// This file holds the missions of mcpOnly agents as an external AI client works them through /mcp:
// listing the queued ones, claiming one (the guarded queued -> running move, with a River job that
// returns it to the queue when its client goes silent), progress reports, and the end of the claim.
// Proposals go through the executor's RunMissionStep and the end through FinishMission, exactly as an
// in-process mission's do.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// MissionClaim names who acts on a claimed mission and how long a silence its claim survives: every
// call of the holder pushes claim_expires_at to now + TTL.
type MissionClaim struct {
	UserID string
	TTL    time.Duration
}

// QueuedMcpMissions lists a workspace's queued missions of mcpOnly agents (of one agent when agentID
// is set), oldest first.
func (s *Store) QueuedMcpMissions(ctx context.Context, workspaceID string, agentID *string, limit int32) ([]AgentMission, error) {
	rows, err := s.q.MissionListQueuedMcp(ctx, dbsqlc.MissionListQueuedMcpParams{WorkspaceID: workspaceID, AgentID: agentID, Lim: limit})
	return rows, wrap(err, "list queued missions")
}

// ClaimMission takes a queued mission of an mcpOnly agent for an MCP client: the guarded queued ->
// running move (of two concurrent claims one wins; the other is a conflict), a `status` event, and a
// River job scheduled at the claim's expiry that puts the mission back in the queue if its holder
// stayed silent, in one transaction.
func (s *Store) ClaimMission(ctx context.Context, workspaceID, missionID string, claim MissionClaim) (AgentMission, error) {
	var out AgentMission
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		expires := time.Now().Add(claim.TTL)
		m, err := q.MissionClaim(ctx, dbsqlc.MissionClaimParams{ID: missionID, WorkspaceID: workspaceID, ClaimedBy: &claim.UserID, ClaimExpiresAt: &expires})
		if isNotFound(err) {
			cur, gerr := s.Mission(ctx, workspaceID, missionID)
			if gerr != nil {
				return gerr
			}
			agent, aerr := q.AgentGetByID(ctx, cur.AgentID)
			if aerr != nil {
				return fmt.Errorf("get agent: %w", aerr)
			}
			if !agent.McpOnly {
				return conflict("this mission's agent is not mcpOnly: a worker runs it, an MCP client cannot claim it")
			}
			return conflict(fmt.Sprintf("the mission is %s, not queued; it cannot be claimed", cur.Status))
		}
		if err != nil {
			return fmt.Errorf("claim mission: %w", err)
		}
		out = m
		if _, err := s.core.River.InsertTx(ctx, tx, jobs.MissionClaimExpiryArgs{MissionID: m.ID, ClaimSeq: m.ClaimSeq},
			&river.InsertOpts{Queue: jobs.QueueDefault, ScheduledAt: expires}); err != nil {
			return fmt.Errorf("enqueue claim expiry: %w", err)
		}
		_, err = s.AppendMissionEventTx(ctx, tx, m.ID, NewMissionEvent{Type: MissionEventStatus, Status: MissionRunning,
			Message: "mission claimed by an MCP client", Data: map[string]any{"claimedBy": claim.UserID, "claimExpiresAt": expires}})
		return err
	})
	return out, err
}

// holdClaimTx locks a mission of the workspace, checks that it is running under claim's holder and
// pushes its expiry back. Another tenant's mission is not found; one not claimed by the caller is a
// conflict.
func (s *Store) holdClaimTx(ctx context.Context, q *dbsqlc.Queries, workspaceID, missionID string, claim MissionClaim) (AgentMission, error) {
	m, err := q.MissionGetForUpdate(ctx, missionID)
	if isNotFound(err) || (err == nil && m.WorkspaceID != workspaceID) {
		return AgentMission{}, notFound("mission not found")
	}
	if err != nil {
		return AgentMission{}, fmt.Errorf("lock mission: %w", err)
	}
	if m.Status != MissionRunning || m.ClaimedBy == nil || *m.ClaimedBy != claim.UserID {
		if m.Status == MissionRunning && m.ClaimedBy != nil {
			return m, conflict("the mission is claimed by someone else")
		}
		return m, conflict(fmt.Sprintf("the mission is %s and not claimed by you; claim it first", m.Status))
	}
	expires := time.Now().Add(claim.TTL)
	if err := q.MissionClaimExtend(ctx, dbsqlc.MissionClaimExtendParams{ID: m.ID, ClaimExpiresAt: &expires}); err != nil {
		return m, fmt.Errorf("extend claim: %w", err)
	}
	m.ClaimExpiresAt = &expires
	return m, nil
}

// ReportMissionProgress appends a `step` event to a mission the caller holds (people watching its
// stream see it) and pushes its claim's expiry back.
func (s *Store) ReportMissionProgress(ctx context.Context, workspaceID, missionID string, claim MissionClaim, message string, data map[string]any) (StreamEvent, error) {
	var ev StreamEvent
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := s.holdClaimTx(ctx, q, workspaceID, missionID, claim); err != nil {
			return err
		}
		if data == nil {
			data = map[string]any{}
		}
		data["source"] = "mcp"
		var err error
		ev, err = s.AppendMissionEventTx(ctx, tx, missionID, NewMissionEvent{Type: MissionEventStep, Message: message, Data: data})
		return err
	})
	return ev, err
}

// SubmitMissionStep hands one action of a claimed mission to the executor (RunMissionStep): it is
// applied or proposed according to the agent's autonomy mode, as an in-process mission's tool call is.
// A tool outside the agent's tools is refused.
func (s *Store) SubmitMissionStep(ctx context.Context, workspaceID string, claim MissionClaim, in StepInput) (StepOutcome, error) {
	in.Claim = &claim
	in.WorkspaceID = workspaceID
	return s.RunMissionStep(ctx, in)
}

// EndClaimedMission ends a mission the caller holds, as FinishMission ends an in-process one: failed
// with errText when set; else awaiting_approval while proposals are pending, else completed.
func (s *Store) EndClaimedMission(ctx context.Context, workspaceID, missionID string, claim MissionClaim, summary, errText string) (AgentMission, error) {
	var out AgentMission
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := s.holdClaimTx(ctx, q, workspaceID, missionID, claim)
		if err != nil {
			return err
		}
		out, err = s.finishMissionTx(ctx, tx, q, m, summary, errText)
		return err
	})
	return out, err
}

// ReleaseExpiredClaim is the claim-expiry job's work: when the claim numbered seq still holds the
// mission and its holder has been silent past claim_expires_at, the mission goes back to queued with a
// `status` event saying so. When the holder spoke since, it answers the new expiry (the job waits until
// then); otherwise (finished, cancelled, claimed again) it does nothing.
func (s *Store) ReleaseExpiredClaim(ctx context.Context, missionID string, seq int32) (released bool, retryAt *time.Time, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := q.MissionGetForUpdate(ctx, missionID)
		if isNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("lock mission: %w", err)
		}
		if m.Status != MissionRunning || m.ClaimSeq != seq || m.ClaimExpiresAt == nil {
			return nil
		}
		if m.ClaimExpiresAt.After(time.Now()) {
			retryAt = m.ClaimExpiresAt
			return nil
		}
		if _, err := q.MissionClaimRelease(ctx, dbsqlc.MissionClaimReleaseParams{ID: m.ID, ClaimSeq: seq}); err != nil {
			return wrap(err, "release claim")
		}
		released = true
		_, err = s.AppendMissionEventTx(ctx, tx, m.ID, NewMissionEvent{Type: MissionEventStatus, Status: MissionQueued,
			Message: "the MCP client holding the mission went silent past its deadline; the mission is queued again",
			Data:    map[string]any{"claimedBy": m.ClaimedBy, "claimExpiredAt": m.ClaimExpiresAt}})
		return err
	})
	return released, retryAt, err
}

// agentMayUse says whether an agent's configured tools include tool.
func agentMayUse(a Agent, tool string) bool { return slices.Contains(a.Tools, tool) }

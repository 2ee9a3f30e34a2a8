package mission

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

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// MissionClaim names who acts on a claimed mission and how long a silence its claim survives: every
// call of the holder pushes claim_expires_at to now + TTL.
type MissionClaim struct {
	UserID string
	TTL    time.Duration
}

// QueuedMcpMissions lists a workspace's queued missions of mcpOnly agents (of one agent when agentID
// is set), oldest first.
func (e *Engine) QueuedMcpMissions(ctx context.Context, workspaceID string, agentID *string,
	limit int32) ([]db.AgentMission, error) {
	rows, err := e.core.Q.MissionListQueuedMcp(ctx, dbsqlc.MissionListQueuedMcpParams{WorkspaceID: workspaceID,
		AgentID: agentID, Lim: limit})
	return dbcore.MapRows(rows, func(r dbsqlc.AgentMission) db.AgentMission { return db.AgentMission(r) }),
		dbcore.Wrap(err, "list queued missions")
}

// ClaimMission takes a queued mission of an mcpOnly agent for an MCP client: the guarded queued ->
// running move (of two concurrent claims one wins; the other is a conflict), a `status` event, and a
// River job scheduled at the claim's expiry that puts the mission back in the queue if its holder
// stayed silent, in one transaction.
func (e *Engine) ClaimMission(ctx context.Context, workspaceID, missionID string,
	claim MissionClaim) (db.AgentMission, error) {
	var out db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		expires := time.Now().Add(claim.TTL)
		m, err := q.MissionClaim(ctx, dbsqlc.MissionClaimParams{ID: missionID, WorkspaceID: workspaceID,
			ClaimedBy: &claim.UserID, ClaimExpiresAt: &expires})
		if dbcore.IsNotFound(err) {
			cur, gerr := e.Mission(ctx, workspaceID, missionID)
			if gerr != nil {
				return gerr
			}
			agent, aerr := q.AgentGetByID(ctx, cur.AgentID)
			if aerr != nil {
				return fmt.Errorf("get agent: %w", aerr)
			}
			if !agent.McpOnly {
				return dbcore.Conflict("this mission's agent is not mcpOnly: a worker runs it, an MCP client cannot claim it")
			}
			return dbcore.Conflict(fmt.Sprintf("the mission is %s, not queued; it cannot be claimed", cur.Status))
		}
		if err != nil {
			return fmt.Errorf("claim mission: %w", err)
		}
		out = db.AgentMission(m)
		if _, err := e.core.River.InsertTx(ctx, tx, jobs.MissionClaimExpiryArgs{MissionID: m.ID, ClaimSeq: m.ClaimSeq},
			&river.InsertOpts{Queue: jobs.QueueDefault, ScheduledAt: expires}); err != nil {
			return fmt.Errorf("enqueue claim expiry: %w", err)
		}
		_, err = e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: db.MissionEventStatus,
			Status: string(db.MissionRunning), Message: "mission claimed by an MCP client",
			Data: map[string]any{"claimedBy": claim.UserID, "claimExpiresAt": expires}})
		return err
	})
	return out, err
}

// holdClaimTx locks a mission of the workspace, checks that it is running under claim's holder and
// pushes its expiry back. Another tenant's mission is not found; one not claimed by the caller is a
// conflict.
func (e *Engine) holdClaimTx(ctx context.Context, q *dbsqlc.Queries, workspaceID, missionID string,
	claim MissionClaim) (db.AgentMission, error) {
	m, err := q.MissionGetForUpdate(ctx, missionID)
	if dbcore.IsNotFound(err) || (err == nil && m.WorkspaceID != workspaceID) {
		return db.AgentMission{}, dbcore.NotFound("mission not found")
	}
	if err != nil {
		return db.AgentMission{}, fmt.Errorf("lock mission: %w", err)
	}
	if db.MissionStatus(m.Status) != db.MissionRunning || m.ClaimedBy == nil || *m.ClaimedBy != claim.UserID {
		if db.MissionStatus(m.Status) == db.MissionRunning && m.ClaimedBy != nil {
			return db.AgentMission(m), dbcore.Conflict("the mission is claimed by someone else")
		}
		return db.AgentMission(m), dbcore.Conflict(fmt.Sprintf("the mission is %s and not claimed by you; claim it first",
			m.Status))
	}
	expires := time.Now().Add(claim.TTL)
	if err := q.MissionClaimExtend(ctx, dbsqlc.MissionClaimExtendParams{ID: m.ID, ClaimExpiresAt: &expires}); err != nil {
		return db.AgentMission(m), fmt.Errorf("extend claim: %w", err)
	}
	m.ClaimExpiresAt = &expires
	return db.AgentMission(m), nil
}

// ReportMissionProgress appends a `step` event to a mission the caller holds (people watching its
// stream see it) and pushes its claim's expiry back.
func (e *Engine) ReportMissionProgress(ctx context.Context, workspaceID, missionID string, claim MissionClaim,
	message string, data map[string]any) (db.StreamEvent, error) {
	var ev db.StreamEvent
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := e.holdClaimTx(ctx, q, workspaceID, missionID, claim); err != nil {
			return err
		}
		if data == nil {
			data = map[string]any{}
		}
		data["source"] = "mcp"
		var err error
		ev, err = e.store.AppendMissionEventTx(ctx, tx, missionID, db.NewMissionEvent{Type: db.MissionEventStep,
			Message: message, Data: data})
		return err
	})
	return ev, err
}

// SubmitMissionStep hands one action of a claimed mission to the executor (RunMissionStep): it is
// applied or proposed according to the agent's autonomy mode, as an in-process mission's tool call is.
// A tool outside the agent's tools is refused.
func (e *Engine) SubmitMissionStep(ctx context.Context, workspaceID string, claim MissionClaim,
	in StepInput) (StepOutcome, error) {
	in.Claim = &claim
	in.WorkspaceID = workspaceID
	return e.RunMissionStep(ctx, in)
}

// EndClaimedMission ends a mission the caller holds, as FinishMission ends an in-process one: failed
// with errText when set; else awaiting_approval while proposals are pending, else completed.
func (e *Engine) EndClaimedMission(ctx context.Context, workspaceID, missionID string, claim MissionClaim, summary,
	errText string) (db.AgentMission, error) {
	var out db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := e.holdClaimTx(ctx, q, workspaceID, missionID, claim)
		if err != nil {
			return err
		}
		out, err = e.finishMissionTx(ctx, tx, q, m, summary, errText)
		return err
	})
	return out, err
}

// ReleaseExpiredClaim is the claim-expiry job's work: when the claim numbered seq still holds the
// mission and its holder has been silent past claim_expires_at, the mission goes back to queued with a
// `status` event saying so. When the holder spoke since, it answers the new expiry (the job waits until
// then); otherwise (finished, cancelled, claimed again) it does nothing.
func (e *Engine) ReleaseExpiredClaim(ctx context.Context, missionID string,
	seq int32) (released bool, retryAt *time.Time, err error) {
	err = e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := q.MissionGetForUpdate(ctx, missionID)
		if dbcore.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("lock mission: %w", err)
		}
		if db.MissionStatus(m.Status) != db.MissionRunning || m.ClaimSeq != seq || m.ClaimExpiresAt == nil {
			return nil
		}
		if m.ClaimExpiresAt.After(time.Now()) {
			retryAt = m.ClaimExpiresAt
			return nil
		}
		if _, err := q.MissionClaimRelease(ctx, dbsqlc.MissionClaimReleaseParams{ID: m.ID, ClaimSeq: seq}); err != nil {
			return dbcore.Wrap(err, "release claim")
		}
		released = true
		_, err = e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: db.MissionEventStatus,
			Status: string(db.MissionQueued), Message: "the MCP client holding the mission went silent past its deadline; the " +
				"mission is queued again",
			Data: map[string]any{"claimedBy": m.ClaimedBy, "claimExpiredAt": m.ClaimExpiresAt}})
		return err
	})
	return released, retryAt, err
}

// agentMayUse says whether an agent's configured tools include tool.
func agentMayUse(a db.Agent, tool string) bool { return slices.Contains(a.Tools, tool) }

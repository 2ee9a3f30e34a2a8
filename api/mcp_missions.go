package api

// The MCP tools an external AI client uses to work the missions of an mcpOnly agent. The caller is a
// person (a workspace member, with a JWT or a PAT): the claim records them, while every action of the
// mission is applied as the agent's service user, as an in-process mission's are (docs/mcp.md).

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/agenttool"
	"github.com/pilot-dev/pilot/internal/auth"
)

// registerMCPMissionTools registers the tools of MCP-only missions.
func (s *Server) registerMCPMissionTools() {
	read := Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}
	write := Requires{Scope: auth.ScopeProjectsWrite, WSRole: "member", KeepsTenancy: true}
	addTool(s, "list_queued_missions", "List the workspace's queued missions of mcpOnly agents (oldest first), "+
		"waiting for an external AI client to claim them.",
		read, s.mcpListQueuedMissions)
	addTool(s, "claim_mission", "Claim a queued mission of an mcpOnly agent: it becomes running and yours. Answers the "+
		"mission, its agent, its card and the tools the agent may use with submit_proposal. Of two clients claiming at "+
		"once, one wins; the other gets a conflict. A claim whose holder stays silent past its deadline (claimExpiresAt, "+
		"pushed back by each of your calls on the mission) returns the mission to the queue.",
		write, s.mcpClaimMission)
	addTool(s, "report_progress", "Report progress on a mission you claimed: people watching the mission's event "+
		"stream see the message. It also keeps your claim alive.",
		write, s.mcpReportProgress)
	addTool(s, "submit_proposal", "Submit one action of a mission you claimed (a tool of the agent's, with its "+
		"arguments). The agent's autonomy mode decides, as for in-process missions: applied at once (autonomous; "+
		"supervised for add_comment and add_checklist_items) or proposed for a person's approval.",
		write, s.mcpSubmitProposal)
	addTool(s, "complete_mission", "Finish a mission you claimed: completed, or awaiting_approval while proposals "+
		"are pending (it completes when people have decided them).",
		write, s.mcpCompleteMission)
	addTool(s, "fail_mission", "Give up a mission you claimed: it becomes failed with your reason.",
		write, s.mcpFailMission)
	addTool(s, "reply_mission", "Answer the question a mission's agent asked (the mission is awaiting_input; "+
		"its question and options are in the mission): the agent gets the answer and the mission runs again from "+
		"where it stopped. Any mission of the workspace, not only an mcpOnly agent's.",
		write, s.mcpReplyMission)
}

// ReplyMissionArgs is the input of reply_mission.
type ReplyMissionArgs struct {
	MissionArgs
	Answer string `json:"answer" minLength:"1" maxLength:"4000" doc:"The answer, in words or one of the question's options"`
}

func (s *Server) mcpReplyMission(ctx context.Context, in *ReplyMissionArgs) (*MissionOut, error) {
	return body(oneOf(missionOut)(s.missions.ReplyMission(ctx, recordEdit(ctx, in.MissionID), in.Answer)))
}

// claimOf is the caller's claim on missions, lasting the configured silence.
func (s *Server) claimOf(ctx context.Context) mission.MissionClaim {
	ttl := s.opts.McpClaimTimeout
	if ttl <= 0 {
		ttl = defaultMcpClaimTimeout
	}
	return mission.MissionClaim{UserID: principalFrom(ctx).User.ID, TTL: ttl}
}

// ListQueuedMissionsArgs is the input of list_queued_missions.
type ListQueuedMissionsArgs struct {
	WorkspaceArgs
	AgentID string `json:"agentId,omitempty" doc:"Only this agent's missions"`
	Limit   int32  `json:"limit,omitempty" minimum:"1" maximum:"100" doc:"At most this many (default 20)"`
}

// MissionsOut lists missions.
type MissionsOut struct {
	Missions []MissionOut `json:"missions"`
}

func (s *Server) mcpListQueuedMissions(ctx context.Context, in *ListQueuedMissionsArgs) (*MissionsOut, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	var agentID *string
	if in.AgentID != "" {
		agentID = &in.AgentID
	}
	res, err := listOf(missionOut)(s.missions.QueuedMcpMissions(ctx, accessFrom(ctx).WorkspaceID, agentID, limit))
	if err != nil {
		return nil, err
	}
	return &MissionsOut{Missions: res.Body}, nil
}

// MissionArgs names a mission of a workspace.
type MissionArgs struct {
	WorkspaceArgs
	MissionID string `json:"missionId" doc:"The mission's id (see list_queued_missions)"`
}

// AgentToolOut is a tool the agent may use with submit_proposal.
type AgentToolOut struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters" doc:"JSON Schema of the tool's arguments (submit_proposal's args)"`
}

// ClaimedMissionOut is what claim_mission answers.
type ClaimedMissionOut struct {
	Mission        MissionOut     `json:"mission"`
	ClaimExpiresAt time.Time      `json:"claimExpiresAt" doc:"Your claim lapses if you make no call on the mission by then"`
	Agent          AgentOut       `json:"agent"`
	Card           *CardOut       `json:"card,omitempty" doc:"The mission's card, when it has one"`
	Tools          []AgentToolOut `json:"tools" doc:"The tools the agent may use with submit_proposal"`
}

func (s *Server) mcpClaimMission(ctx context.Context, in *MissionArgs) (*ClaimedMissionOut, error) {
	wsID := accessFrom(ctx).WorkspaceID
	m, err := s.missions.ClaimMission(ctx, wsID, in.MissionID, s.claimOf(ctx))
	if err != nil {
		return nil, fail(err)
	}
	agent, err := s.missions.Agent(ctx, wsID, m.AgentID)
	if err != nil {
		return nil, fail(err)
	}
	out := &ClaimedMissionOut{Mission: missionOut(m), Agent: agentOut(agent), Tools: []AgentToolOut{}}
	if m.ClaimExpiresAt != nil {
		out.ClaimExpiresAt = *m.ClaimExpiresAt
	}
	if m.CardID != nil && m.ProjectID != nil {
		if c, err := s.board.Card(ctx, *m.ProjectID, *m.CardID); err == nil {
			co := cardOut(c)
			out.Card = &co
		}
	}
	for _, spec := range agenttool.Catalog() {
		// ask_user is the in-process runner's: an MCP client asks its person itself.
		if slices.Contains(agent.Tools, spec.Name) && spec.Name != agenttool.AskUser {
			out.Tools = append(out.Tools, AgentToolOut{Name: spec.Name, Description: spec.Description,
				Parameters: spec.Parameters})
		}
	}
	return out, nil
}

// ReportProgressArgs is the input of report_progress.
type ReportProgressArgs struct {
	MissionArgs
	Message string `json:"message" minLength:"1" maxLength:"2000" doc:"What you did or are doing, for the people watching"`
	Percent *int   `json:"percent,omitempty" minimum:"0" maximum:"100" doc:"How far along the mission is"`
}

// ProgressOut is what report_progress answers.
type ProgressOut struct {
	MissionID      string    `json:"missionId"`
	Seq            int64     `json:"seq" doc:"The event's number in the mission's stream"`
	ClaimExpiresAt time.Time `json:"claimExpiresAt"`
}

func (s *Server) mcpReportProgress(ctx context.Context, in *ReportProgressArgs) (*ProgressOut, error) {
	msg, err := nonBlank("message", in.Message)
	if err != nil {
		return nil, err
	}
	data := map[string]any{}
	if in.Percent != nil {
		data["percent"] = *in.Percent
	}
	claim := s.claimOf(ctx)
	ev, err := s.missions.ReportMissionProgress(ctx, accessFrom(ctx).WorkspaceID, in.MissionID, claim, msg, data)
	if err != nil {
		return nil, fail(err)
	}
	return &ProgressOut{MissionID: in.MissionID, Seq: ev.Seq, ClaimExpiresAt: ev.CreatedAt.Add(claim.TTL)}, nil
}

// SubmitProposalArgs is the input of submit_proposal.
type SubmitProposalArgs struct {
	MissionArgs
	Tool        string         `json:"tool" enum:"update_card,add_checklist_items,add_comment,move_card,create_card" doc:"One of the agent's tools (claim_mission lists them)"`
	Args        map[string]any `json:"args" doc:"The tool's arguments, as its parameters schema describes"`
	Explanation string         `json:"explanation,omitempty" maxLength:"1000" doc:"Why, for the person who approves it"`
	StepKey     string         `json:"stepKey,omitempty" minLength:"1" maxLength:"100" doc:"Your key for this action: a retry with the same key is not applied twice"`
}

// StepOut is what became of a submitted action.
type StepOut struct {
	Outcome    string `json:"outcome" enum:"applied,proposed" doc:"applied at once, or proposed for a person's approval"`
	Result     string `json:"result"`
	ProposalID string `json:"proposalId,omitempty" doc:"The pending proposal, when proposed"`
	StepKey    string `json:"stepKey"`
	Replayed   bool   `json:"replayed" doc:"The key was used before: nothing was done now"`
}

func (s *Server) mcpSubmitProposal(ctx context.Context, in *SubmitProposalArgs) (*StepOut, error) {
	raw, err := json.Marshal(in.Args)
	if err != nil {
		return nil, errBadRequest("args: " + err.Error())
	}
	key := in.StepKey
	if key == "" {
		key = db.NewID()
	}
	key = "mcp:" + key
	res, err := s.missions.SubmitMissionStep(ctx, accessFrom(ctx).WorkspaceID, s.claimOf(ctx),
		mission.StepInput{MissionID: in.MissionID, StepKey: key, Tool: in.Tool, Args: raw, Explanation: in.Explanation})
	if err != nil {
		return nil, fail(err)
	}
	if res.Outcome == mission.StepRefused {
		// The step's text is what a model is told ("error: <reason>"); a tool error says the reason.
		return nil, errBadRequest("refused: " + strings.TrimPrefix(res.Text, "error: "))
	}
	return &StepOut{Outcome: res.Outcome, Result: res.Text, ProposalID: res.ProposalID, StepKey: key,
		Replayed: res.Replayed}, nil
}

// CompleteMissionArgs is the input of complete_mission.
type CompleteMissionArgs struct {
	MissionArgs
	Summary string `json:"summary,omitempty" maxLength:"4000" doc:"What the mission did, for the people watching"`
}

func (s *Server) mcpCompleteMission(ctx context.Context, in *CompleteMissionArgs) (*MissionOut, error) {
	return body(oneOf(missionOut)(s.missions.EndClaimedMission(ctx, accessFrom(ctx).WorkspaceID, in.MissionID,
		s.claimOf(ctx), in.Summary, "")))
}

// FailMissionArgs is the input of fail_mission.
type FailMissionArgs struct {
	MissionArgs
	Reason string `json:"reason" minLength:"1" maxLength:"2000" doc:"Why the mission failed"`
}

func (s *Server) mcpFailMission(ctx context.Context, in *FailMissionArgs) (*MissionOut, error) {
	reason, err := nonBlank("reason", in.Reason)
	if err != nil {
		return nil, err
	}
	return body(oneOf(missionOut)(s.missions.EndClaimedMission(ctx, accessFrom(ctx).WorkspaceID, in.MissionID,
		s.claimOf(ctx), "", reason)))
}

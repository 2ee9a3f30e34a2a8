package api

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/stream"
)

// MissionOut is a mission with its progress.
type MissionOut struct {
	ID          string                `json:"id"`
	AgentID     string                `json:"agentId"`
	CardID      *string               `json:"cardId" nullable:"true"`
	ProjectID   *string               `json:"projectId" nullable:"true"`
	Source      string                `json:"source" enum:"agent,runtime,card_mission,pipeline"`
	Objective   string                `json:"objective"`
	Prompt      string                `json:"prompt" doc:"Same as objective"`
	Status      db.MissionStatus      `json:"status"`
	MaxSteps    int32                 `json:"maxSteps"`
	Steps       int32                 `json:"steps" doc:"Model turns taken"`
	Actions     int32                 `json:"actions" doc:"Tool calls applied or proposed"`
	CreatedAt   time.Time             `json:"createdAt"`
	StartedAt   *time.Time            `json:"startedAt" nullable:"true"`
	FinishedAt  *time.Time            `json:"finishedAt" nullable:"true"`
	CancelledAt *time.Time            `json:"cancelledAt" nullable:"true" doc:"When it was stopped"`
	Error       *string               `json:"error" nullable:"true"`
	StopReason  *db.MissionStopReason `json:"stopReason" nullable:"true" doc:"Why a stopped mission stopped"`
	Question    *MissionQuestionOut   `json:"question,omitempty" doc:"The question an awaiting_input mission waits on (absent otherwise)"`
	Usage       MissionUsageOut       `json:"usage" doc:"What the mission cost so far"`
}

// MissionQuestionOut is the question a mission's agent asked its requester.
type MissionQuestionOut struct {
	Question string    `json:"question"`
	Options  []string  `json:"options" doc:"Possible answers (any answer in words is taken too)"`
	AskedAt  time.Time `json:"askedAt"`
	Deadline time.Time `json:"deadline" doc:"Unanswered by then, the mission expires (MISSION_INPUT_TIMEOUT)"`
}

// MissionUsageOut is what a mission cost.
type MissionUsageOut struct {
	ModelTurns       int32   `json:"modelTurns" doc:"Model calls made (a retried attempt's calls count again: they were spent)"`
	PromptTokens     int64   `json:"promptTokens" doc:"Tokens the model read, as the server reported them (the offline planner estimates four characters a token)"`
	CompletionTokens int64   `json:"completionTokens" doc:"Tokens the model wrote"`
	TotalTokens      int64   `json:"totalTokens" doc:"promptTokens + completionTokens: what the workspace's daily budget counts"`
	WallSeconds      float64 `json:"wallSeconds" doc:"From start to finish, or to now while unfinished; 0 before it starts"`
	WaitingSeconds   float64 `json:"waitingSeconds" doc:"Time spent waiting for people (awaiting approval or input), the wait in progress included"`
}

func missionUsageOut(u db.MissionUsage) MissionUsageOut {
	return MissionUsageOut{ModelTurns: u.ModelTurns, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		TotalTokens: u.PromptTokens + u.CompletionTokens, WallSeconds: roundSeconds(u.WallSeconds),
		WaitingSeconds: roundSeconds(u.WaitingSeconds)}
}

// roundSeconds keeps a duration to the millisecond.
func roundSeconds(s float64) float64 { return math.Round(s*1000) / 1000 }

func missionOut(m db.AgentMission) MissionOut {
	out := MissionOut{ID: m.ID, AgentID: m.AgentID, CardID: m.CardID, ProjectID: m.ProjectID, Source: m.Source,
		Objective: m.Objective, Prompt: m.Objective, Status: db.MissionStatus(m.Status), MaxSteps: m.MaxSteps, Steps: m.Steps,
		Actions: m.Actions, CreatedAt: m.CreatedAt, StartedAt: m.StartedAt, FinishedAt: m.FinishedAt,
		CancelledAt: m.CancelledAt, Error: m.Error, StopReason: (*db.MissionStopReason)(m.StopReason),
		Usage: missionUsageOut(m.Usage(time.Now()))}
	if q := mission.PendingQuestion(m); q != nil && db.MissionStatus(m.Status) == db.MissionAwaitingInput {
		out.Question = &MissionQuestionOut{Question: q.Question, Options: q.Options, AskedAt: q.AskedAt, Deadline: q.Deadline}
	}
	return out
}

// ProposalOut is an action an agent proposed.
type ProposalOut struct {
	ID          string                 `json:"id"`
	MissionID   string                 `json:"missionId"`
	StepKey     string                 `json:"stepKey"`
	Tool        string                 `json:"tool"`
	Args        json.RawMessage        `json:"args"`
	Explanation string                 `json:"explanation"`
	Status      mission.ProposalStatus `json:"status"`
	Reason      *string                `json:"reason" nullable:"true"`
	DecidedBy   *string                `json:"decidedBy" nullable:"true"`
	DecidedAt   *time.Time             `json:"decidedAt" nullable:"true"`
	CreatedAt   time.Time              `json:"createdAt"`
}

func proposalOut(p db.AgentProposal) ProposalOut {
	return ProposalOut{ID: p.ID, MissionID: p.MissionID, StepKey: p.StepKey, Tool: p.Tool, Args: p.Args,
		Explanation: p.Explanation, Status: mission.ProposalStatus(p.Status), Reason: p.Reason, DecidedBy: p.DecidedBy,
		DecidedAt: p.DecidedAt, CreatedAt: p.CreatedAt}
}

// MissionPath names a mission.
type MissionPath struct {
	WorkspacePath
	MissionID string `path:"missionId" format:"uuid"`
}

// ProposalPath names a proposal.
type ProposalPath struct {
	WorkspacePath
	ProposalID string `path:"proposalId" format:"uuid"`
}

// missionFail maps a store error, with 429 for an agent over its missions-per-hour limit.
func missionFail(err error) error {
	var se *db.Error
	if errors.As(err, &se) && errors.Is(err, mission.ErrTooManyRequests) {
		return newErrorBody(http.StatusTooManyRequests, se.Msg)
	}
	return fail(err)
}

const missionsDoc = "A mission is queued (its job inserted with it), then running, then awaiting_approval when it " +
	"left proposals, awaiting_input while its agent waits for an answer, stale when its worker fell silent; it ends " +
	"completed, failed (error, step cap), stopped (a person, its budget) or expired (its question unanswered). An " +
	"agent past its maxMissionsPerHour, or a workspace whose agents used today's token budget " +
	"(agentSettings.maxTokensPerDay), is answered 429, a disabled agent 409. mcpOnly agents' missions stay queued for an external AI " +
	"client (/mcp)."

const stopDoc = "A queued, running, awaiting (approval or input) or stale mission becomes stopped " +
	"(stopReason person) with cancelledAt: what it applied stays, its pending proposals are rejected, and the " +
	"worker running it stops within a second (its model call is cancelled). Its stream ends with a done event. A " +
	"finished mission answers 409."

// queuedMission answers a mission just created, or the store's refusal (429 for an agent over its
// missions-per-hour limit).
func queuedMission(m db.AgentMission, err error) (*Output[MissionOut], error) {
	if err != nil {
		return nil, missionFail(err)
	}
	return &Output[MissionOut]{Body: missionOut(m)}, nil
}

// registerMissions registers an agent's missions, their proposals and progress streams, and the agent
// runtime.
func (s agentOps) registerMissions() {
	tags := []string{"Agents"}
	read := Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}
	write := Requires{Scope: auth.ScopeProjectsWrite, WSRole: "member"}

	register(s.Server, huma.Operation{OperationID: "missions-create", Method: http.MethodPost,
		Path: pathWorkspace + "/agents/{agentId}/missions", Summary: "Start a mission of an agent on a card", Tags: tags,
		DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict, http.StatusTooManyRequests},
		Description: missionsDoc}, write, s.createMission)

	register(s.Server, huma.Operation{OperationID: "missions-list", Method: http.MethodGet,
		Path: pathWorkspace + "/agents/{agentId}/missions", Summary: "List an agent's missions, newest first", Tags: tags},
		read, s.listMissions)

	register(s.Server, huma.Operation{OperationID: "missions-list-workspace", Method: http.MethodGet,
		Path: pathWorkspace + "/missions", Summary: "List the workspace's missions, newest first", Tags: tags,
		Description: "Every agent's missions, narrowed by the filters given (`status`, `agentId`, `cardId`, together)."},
		read, s.listWorkspaceMissions)

	register(s.Server, huma.Operation{OperationID: "missions-get", Method: http.MethodGet,
		Path: pathWorkspace + "/missions/{missionId}", Summary: "Get a mission's details and progress", Tags: tags},
		read, s.getMission)

	register(s.Server, huma.Operation{OperationID: "missions-stop", Method: http.MethodPost,
		Path: pathWorkspace + "/missions/{missionId}/stop", Summary: "Stop a mission", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: stopDoc},
		write, s.stopMission)

	register(s.Server, huma.Operation{OperationID: "missions-cancel", Method: http.MethodPost,
		Path: pathWorkspace + "/missions/{missionId}/cancel", Summary: "Cancel a mission (the same as stop)", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: "The stop operation under its former name. " + stopDoc},
		write, s.stopMission)

	register(s.Server, huma.Operation{OperationID: "missions-reply", Method: http.MethodPost,
		Path: pathWorkspace + "/missions/{missionId}/reply", Summary: "Answer a mission's question", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: "The mission's agent asked (ask_user; the mission is " +
			"awaiting_input, its `question` says what): the answer goes to the model as the question's result and the " +
			"mission runs again from where it stopped. A mission not awaiting input answers 409."},
		write, s.replyMission)

	register(s.Server, huma.Operation{OperationID: "missions-resume", Method: http.MethodPost,
		Path: pathWorkspace + "/missions/{missionId}/resume", Summary: "Resume a stale mission", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: "A stale mission (no event from its worker for " +
			"MISSION_STALE_AFTER) runs again under a new job, from its recorded steps. A mission not stale answers 409."},
		write, s.resumeMission)

	register(s.Server, huma.Operation{OperationID: "missions-proposals", Method: http.MethodGet,
		Path: pathWorkspace + "/missions/{missionId}/proposals", Summary: "List a mission's proposals", Tags: tags},
		read, s.listMissionProposals)

	register(s.Server, huma.Operation{OperationID: "proposals-approve", Method: http.MethodPost,
		Path: pathWorkspace + "/proposals/{proposalId}/approve", Summary: "Approve a proposal (applies its action)",
		Tags: tags, Errors: []int{http.StatusForbidden, http.StatusConflict}, Description: "Applies the action as the " +
			"agent, in one transaction with the decision. Deciding twice answers 409. When the mission awaits approval and " +
			"nothing is pending any more, it is completed. " + decideDoc},
		write, s.approveProposal)

	register(s.Server, huma.Operation{OperationID: "proposals-reject", Method: http.MethodPost,
		Path: pathWorkspace + "/proposals/{proposalId}/reject", Summary: "Reject a proposal", Tags: tags,
		Errors: []int{http.StatusForbidden, http.StatusConflict}, Description: decideDoc}, write, s.rejectProposal)

	register(s.Server, huma.Operation{OperationID: "agent-runtime-proposals", Method: http.MethodGet,
		Path: pathWorkspace + "/agent-runtime/proposals", Summary: "List the workspace's pending proposals", Tags: tags},
		read, s.listPendingProposals)

	register(s.Server, huma.Operation{OperationID: "agent-runtime-run", Method: http.MethodPost,
		Path: pathWorkspace + "/agent-runtime/run", Summary: "Run an agent on an objective", Tags: tags,
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusConflict, http.StatusTooManyRequests},
		Description: "`agentUserId` is the agent's service user id. " +
			missionsDoc}, write, s.runAgent)

	register(s.Server, huma.Operation{OperationID: "agent-runtime-card-mission", Method: http.MethodPost,
		Path: pathWorkspace + "/agent-runtime/card-mission", Summary: "Start a card mission", Tags: tags,
		Errors: []int{http.StatusConflict, http.StatusTooManyRequests},
		Description: "Body `{cardId, projectId, agentId?}` (default agent: the workspace's first enabled one). " +
			"For an mcpOnly agent " +
			"the mission is queued for an external AI client and the answer is 201 with the mission as JSON; for any other " +
			"agent the answer is the mission's server-sent event stream (text/event-stream), as `GET …/missions/{id}/events`.",
		Responses: map[string]*huma.Response{
			"200": {Description: "Any other agent: the mission's event stream",
				Content: map[string]*huma.MediaType{"text/event-stream": {}}}, "201": {Description: "mcpOnly agent: the queued " +
				"mission", Content: map[string]*huma.MediaType{"application/json": {
				Schema: s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(MissionOut{}), true, "")}}},
		}},
		write, s.startCardMission)

	register(s.Server, huma.Operation{OperationID: "missions-events", Method: http.MethodGet,
		Path: pathWorkspace + "/missions/{missionId}/events", Summary: "Watch a mission's progress (server-sent events)",
		Tags: tags,
		Description: "A `text/event-stream` of the mission's events: each has `id` (the per-mission sequence), `event` " +
			"(status, ack, step, proposal, question, token, done) and JSON `data` {missionId, seq, type, status, message, " +
			"data, at}. Without `Last-Event-ID` the stream starts at the mission's first event; with it, at the event after " +
			"it. The stream ends after the `done` event reporting the mission's final status, completed, failed, stopped or " +
			"expired (right after the replay when the mission already has one); until then it stays open, awaiting_approval, " +
			"awaiting_input and stale included (a decision, an answer or a resume moves the mission on). Comment lines are " +
			"heartbeats.",
		Responses: map[string]*huma.Response{"200": {Description: "The event stream",
			Content: map[string]*huma.MediaType{"text/event-stream": {}}}}}, read, s.watchMission)
}

// CreateMissionInput is the request of missions-create.
type CreateMissionInput struct {
	AgentPath
	Body CreateMissionInputBody
}

// CreateMissionInputBody is the body of a CreateMissionInput request.
type CreateMissionInputBody struct {
	CardID string `json:"cardId" required:"true" doc:"A card of a project of this workspace"`
	Prompt string `json:"prompt" required:"true" minLength:"1" maxLength:"4000"`
}

func (s agentOps) createMission(ctx context.Context, in *CreateMissionInput) (*Output[MissionOut], error) {
	prompt, err := nonBlank("prompt", in.Body.Prompt)
	if err != nil {
		return nil, err
	}
	wsID := accessFrom(ctx).WorkspaceID
	if _, err := s.missions.Agent(ctx, wsID, in.AgentID); err != nil {
		return nil, fail(err)
	}
	projectID, err := s.missions.MissionCardProject(ctx, wsID, in.Body.CardID)
	if err != nil {
		return nil, fail(err)
	}
	cardID := in.Body.CardID
	return queuedMission(s.missions.CreateMission(ctx, mission.NewMission{WorkspaceID: wsID, AgentID: in.AgentID,
		ActorID: principalFrom(ctx).User.ID, ProjectID: &projectID, CardID: &cardID, Source: mission.MissionSourceAgent,
		Objective: prompt}))
}

// ListMissionsInput is the request of missions-list.
type ListMissionsInput struct {
	AgentPath
	PageQuery
}

func (s agentOps) listMissions(ctx context.Context, in *ListMissionsInput) (*PageOutput[MissionOut], error) {
	return pageOf(ctx, missionOut)(s.missions.AgentMissions(ctx, accessFrom(ctx).WorkspaceID, in.AgentID, in.page()))
}

// ListWorkspaceMissionsInput is the request of missions-list-workspace.
type ListWorkspaceMissionsInput struct {
	WorkspacePath
	Status  db.MissionStatus `query:"status" doc:"Only missions in this status"`
	AgentID string           `query:"agentId" doc:"Only this agent's missions"`
	CardID  string           `query:"cardId" doc:"Only the missions on this card"`
	PageQuery
}

func (s agentOps) listWorkspaceMissions(ctx context.Context,
	in *ListWorkspaceMissionsInput) (*PageOutput[MissionOut], error) {
	if (in.AgentID != "" && !isUUID(in.AgentID)) || (in.CardID != "" && !isUUID(in.CardID)) {
		return &PageOutput[MissionOut]{Body: []MissionOut{}}, nil // names nothing
	}
	return pageOf(ctx, missionOut)(s.missions.WorkspaceMissions(ctx, mission.MissionFilter{
		WorkspaceID: accessFrom(ctx).WorkspaceID, Status: string(in.Status), AgentID: in.AgentID, CardID: in.CardID,
		Page: in.page()}))
}

func (s agentOps) getMission(ctx context.Context, in *MissionPath) (*Output[MissionOut], error) {
	return oneOf(missionOut)(s.missions.Mission(ctx, accessFrom(ctx).WorkspaceID, in.MissionID))
}

// stopMission serves both stop and its former name, cancel: one store operation.
func (s agentOps) stopMission(ctx context.Context, in *MissionPath) (*Output[MissionOut], error) {
	return oneOf(missionOut)(s.missions.StopMission(ctx, recordEdit(ctx, in.MissionID), db.StopPerson))
}

// ReplyMissionInput is the request of missions-reply.
type ReplyMissionInput struct {
	MissionPath
	Body ReplyMissionInputBody
}

// ReplyMissionInputBody is the body of a ReplyMissionInput request.
type ReplyMissionInputBody struct {
	Answer string `json:"answer" required:"true" minLength:"1" maxLength:"4000" doc:"The answer, in words or one of the options"`
}

func (s agentOps) replyMission(ctx context.Context, in *ReplyMissionInput) (*Output[MissionOut], error) {
	return oneOf(missionOut)(s.missions.ReplyMission(ctx, recordEdit(ctx, in.MissionID), in.Body.Answer))
}

func (s agentOps) resumeMission(ctx context.Context, in *MissionPath) (*Output[MissionOut], error) {
	return oneOf(missionOut)(s.missions.ResumeMission(ctx, recordEdit(ctx, in.MissionID)))
}

func (s agentOps) listMissionProposals(ctx context.Context, in *MissionPath) (*Output[[]ProposalOut], error) {
	return listOf(proposalOut)(s.missions.MissionProposals(ctx, accessFrom(ctx).WorkspaceID, in.MissionID))
}

func (s agentOps) approveProposal(ctx context.Context, in *ProposalPath) (*Output[ProposalOut], error) {
	return oneOf(proposalOut)(s.missions.DecideProposal(ctx, accessFrom(ctx).WorkspaceID, in.ProposalID, decider(ctx),
		true, ""))
}

const decideDoc = "Only the mission's requester and the workspace's pilotage reviewers and owners (organization " +
	"owners and admins act as owners) may decide a proposal; other members get 403."

// decider is the caller as the decider of a proposal: the mission's requester may decide its
// proposals, and so may the workspace's pilotage reviewers and owners (organization owners and admins
// count as owners); any other member may not.
func decider(ctx context.Context) mission.Decider {
	return mission.Decider{UserID: principalFrom(ctx).User.ID,
		Reviewer: tenancy.PilotageRole(accessFrom(ctx).WorkspacePilotageRole).AtLeast(tenancy.PilotageReviewer)}
}

// RejectProposalInput is the request of proposals-reject.
type RejectProposalInput struct {
	ProposalPath
	Body *struct {
		Reason string `json:"reason,omitempty" maxLength:"500"`
	}
}

func (s agentOps) rejectProposal(ctx context.Context, in *RejectProposalInput) (*Output[ProposalOut], error) {
	reason := ""
	if in.Body != nil {
		reason = strings.TrimSpace(in.Body.Reason)
	}
	return oneOf(proposalOut)(s.missions.DecideProposal(ctx, accessFrom(ctx).WorkspaceID, in.ProposalID, decider(ctx),
		false, reason))
}

// ListPendingProposalsInput is the request of agent-runtime-proposals.
type ListPendingProposalsInput struct {
	WorkspacePath
	Limit int32 `query:"limit" minimum:"1" maximum:"500" default:"100"`
}

func (s agentOps) listPendingProposals(ctx context.Context,
	in *ListPendingProposalsInput) (*Output[[]ProposalOut], error) {
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}
	return listOf(proposalOut)(s.missions.PendingProposals(ctx, accessFrom(ctx).WorkspaceID, limit))
}

// RunAgentInput is the request of agent-runtime-run.
type RunAgentInput struct {
	WorkspacePath
	Body RunAgentInputBody
}

// RunAgentInputBody is the body of a RunAgentInput request.
type RunAgentInputBody struct {
	AgentUserID string  `json:"agentUserId" required:"true"`
	Objective   string  `json:"objective" required:"true" minLength:"1" maxLength:"4000"`
	ProjectID   *string `json:"projectId,omitempty"`
	MaxSteps    *int32  `json:"maxSteps,omitempty" minimum:"1" maximum:"50" doc:"Runtime cap, at most the agent's maxSteps"`
}

func (s agentOps) runAgent(ctx context.Context, in *RunAgentInput) (*Output[MissionOut], error) {
	b := in.Body
	objective, err := nonBlank("objective", b.Objective)
	if err != nil {
		return nil, err
	}
	wsID := accessFrom(ctx).WorkspaceID
	agent, err := s.missions.AgentByUser(ctx, wsID, b.AgentUserID)
	if err != nil {
		return nil, fail(err)
	}
	if b.ProjectID != nil {
		if !isUUID(*b.ProjectID) {
			return nil, errNotFound("project not found")
		}
		if _, err := s.board.Project(ctx, wsID, *b.ProjectID); err != nil {
			return nil, fail(err)
		}
	}
	var maxSteps int32
	if b.MaxSteps != nil {
		maxSteps = *b.MaxSteps
	}
	return queuedMission(s.missions.CreateMission(ctx, mission.NewMission{WorkspaceID: wsID, AgentID: agent.ID,
		ActorID: principalFrom(ctx).User.ID, ProjectID: b.ProjectID, Source: mission.MissionSourceRuntime,
		Objective: objective, MaxSteps: maxSteps}))
}

// StartCardMissionInput is the request of agent-runtime-card-mission.
type StartCardMissionInput struct {
	WorkspacePath
	Body StartCardMissionInputBody
}

// StartCardMissionInputBody is the body of a StartCardMissionInput request.
type StartCardMissionInputBody struct {
	CardID    string  `json:"cardId" required:"true"`
	ProjectID string  `json:"projectId" required:"true"`
	AgentID   *string `json:"agentId,omitempty"`
}

// startCardMission queues a mission on a card and answers it as JSON (mcpOnly agents) or as its event
// stream.
func (s agentOps) startCardMission(ctx context.Context, in *StartCardMissionInput) (*huma.StreamResponse, error) {
	b := in.Body
	wsID := accessFrom(ctx).WorkspaceID
	if !isUUID(b.ProjectID) {
		return nil, errNotFound("project not found")
	}
	if _, err := s.board.Project(ctx, wsID, b.ProjectID); err != nil {
		return nil, fail(err)
	}
	card, err := s.missions.MissionCardProject(ctx, wsID, b.CardID)
	if err != nil {
		return nil, fail(err)
	}
	if card != b.ProjectID {
		return nil, errNotFound("card not found")
	}
	var agent db.Agent
	if b.AgentID != nil {
		agent, err = s.missions.Agent(ctx, wsID, *b.AgentID)
	} else {
		agent, err = s.missions.DefaultAgent(ctx, wsID)
	}
	if err != nil {
		return nil, fail(err)
	}
	projectID, cardID := b.ProjectID, b.CardID
	m, err := s.missions.CreateMission(ctx, mission.NewMission{WorkspaceID: wsID, AgentID: agent.ID,
		ActorID: principalFrom(ctx).User.ID, ProjectID: &projectID, CardID: &cardID, Source: mission.MissionSourceCardMission,
		Objective: "Work on this card: plan the next steps and make the progress you can."})
	if err != nil {
		return nil, missionFail(err)
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		if agent.McpOnly {
			hctx.SetHeader("Content-Type", "application/json")
			hctx.SetStatus(http.StatusCreated)
			_ = jsonEncode(hctx.BodyWriter(), missionOut(m))
			return
		}
		r, w, stop := s.unwrapStream(hctx)
		defer stop()
		s.serveMissionStream(w, r, m.ID, 0)
	}}, nil
}

// MissionStreamInput addresses a mission's event stream.
type MissionStreamInput struct {
	WorkspacePath
	MissionID   string `path:"missionId" format:"uuid" doc:"The mission's id"`
	LastEventID string `header:"Last-Event-ID" doc:"The last event id received: the stream replays the events after it"`
}

// watchMission answers the mission's event stream, after checking the mission is in the workspace.
func (s agentOps) watchMission(ctx context.Context, in *MissionStreamInput) (*huma.StreamResponse, error) {
	m, err := s.store.MissionStream(ctx, in.MissionID)
	if errors.Is(err, db.ErrNotFound) || (err == nil && m.WorkspaceID != accessFrom(ctx).WorkspaceID) {
		return nil, errNotFound("mission not found")
	}
	if err != nil {
		return nil, fail(err)
	}
	last := stream.ParseLastEventID(in.LastEventID)
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w, stop := s.unwrapStream(hctx)
		defer stop()
		s.serveMissionStream(w, r, in.MissionID, last)
	}}, nil
}

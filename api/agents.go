package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/jobs"
)

// Agent limits: defaults and ranges.
const (
	defaultAgentMaxSteps           = 10
	defaultAgentMaxActions         = 20
	defaultAgentMaxMissionsPerHour = 30
)

// AgentLimits caps what an agent's missions may do.
type AgentLimits struct {
	MaxSteps             int32 `json:"maxSteps" doc:"Model turns per mission"`
	MaxActionsPerMission int32 `json:"maxActionsPerMission" doc:"Tool calls applied or proposed per mission"`
	MaxMissionsPerHour   int32 `json:"maxMissionsPerHour" doc:"Missions the agent may start per rolling hour (429 past it)"`
}

// AgentLimitsIn are optional limits; absent ones keep their default (create) or current value (patch).
type AgentLimitsIn struct {
	MaxSteps             *int32 `json:"maxSteps,omitempty" minimum:"1" maximum:"50" doc:"Default 10"`
	MaxActionsPerMission *int32 `json:"maxActionsPerMission,omitempty" minimum:"1" maximum:"200" doc:"Default 20"`
	MaxMissionsPerHour   *int32 `json:"maxMissionsPerHour,omitempty" minimum:"1" maximum:"1000" doc:"Default 30"`
}

// AgentOut is an agent.
type AgentOut struct {
	ID           string      `json:"id"`
	WorkspaceID  string      `json:"workspaceId"`
	UserID       string      `json:"userId" doc:"The agent's service user: assignee and author of its changes"`
	Name         string      `json:"name"`
	Slug         string      `json:"slug"`
	Description  string      `json:"description"`
	AutonomyMode string      `json:"autonomyMode" enum:"autonomous,supervised,approval"`
	Tools        []string    `json:"tools"`
	McpOnly      bool        `json:"mcpOnly"`
	Limits       AgentLimits `json:"limits"`
	CreatedBy    string      `json:"createdBy"`
	CreatedAt    time.Time   `json:"createdAt"`
	UpdatedAt    time.Time   `json:"updatedAt"`
}

func agentOut(a db.Agent) AgentOut {
	tools := a.Tools
	if tools == nil {
		tools = []string{}
	}
	return AgentOut{ID: a.ID, WorkspaceID: a.WorkspaceID, UserID: a.UserID, Name: a.Name, Slug: a.Slug, Description: a.Description,
		AutonomyMode: a.AutonomyMode, Tools: tools, McpOnly: a.McpOnly,
		Limits:    AgentLimits{MaxSteps: a.MaxSteps, MaxActionsPerMission: a.MaxActionsPerMission, MaxMissionsPerHour: a.MaxMissionsPerHour},
		CreatedBy: a.CreatedBy, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

// SkillOut is a workspace skill.
type SkillOut struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	Instructions string    `json:"instructions"`
	CreatedBy    string    `json:"createdBy"`
	CreatedAt    time.Time `json:"createdAt"`
}

func skillOut(s db.Skill) SkillOut {
	return SkillOut{ID: s.ID, Name: s.Name, Description: s.Description, Instructions: s.Instructions, CreatedBy: s.CreatedBy, CreatedAt: s.CreatedAt}
}

// MissionOut is a mission with its progress.
type MissionOut struct {
	ID          string     `json:"id"`
	AgentID     string     `json:"agentId"`
	CardID      *string    `json:"cardId" nullable:"true"`
	ProjectID   *string    `json:"projectId" nullable:"true"`
	Source      string     `json:"source" enum:"agent,runtime,card_mission"`
	Objective   string     `json:"objective"`
	Prompt      string     `json:"prompt" doc:"Same as objective"`
	Status      string     `json:"status" enum:"queued,running,awaiting_approval,completed,failed"`
	MaxSteps    int32      `json:"maxSteps"`
	Steps       int32      `json:"steps" doc:"Model turns taken"`
	Actions     int32      `json:"actions" doc:"Tool calls applied or proposed"`
	CreatedAt   time.Time  `json:"createdAt"`
	StartedAt   *time.Time `json:"startedAt" nullable:"true"`
	FinishedAt  *time.Time `json:"finishedAt" nullable:"true"`
	CancelledAt *time.Time `json:"cancelledAt" nullable:"true"`
	Error       *string    `json:"error" nullable:"true"`
}

func missionOut(m db.AgentMission) MissionOut {
	return MissionOut{ID: m.ID, AgentID: m.AgentID, CardID: m.CardID, ProjectID: m.ProjectID, Source: m.Source, Objective: m.Objective,
		Prompt: m.Objective, Status: m.Status, MaxSteps: m.MaxSteps, Steps: m.Steps, Actions: m.Actions, CreatedAt: m.CreatedAt,
		StartedAt: m.StartedAt, FinishedAt: m.FinishedAt, CancelledAt: m.CancelledAt, Error: m.Error}
}

// ProposalOut is an action an agent proposed.
type ProposalOut struct {
	ID          string          `json:"id"`
	MissionID   string          `json:"missionId"`
	StepKey     string          `json:"stepKey"`
	Tool        string          `json:"tool"`
	Args        json.RawMessage `json:"args"`
	Explanation string          `json:"explanation"`
	Status      string          `json:"status" enum:"pending,approved,rejected"`
	Reason      *string         `json:"reason" nullable:"true"`
	DecidedBy   *string         `json:"decidedBy" nullable:"true"`
	DecidedAt   *time.Time      `json:"decidedAt" nullable:"true"`
	CreatedAt   time.Time       `json:"createdAt"`
}

func proposalOut(p db.AgentProposal) ProposalOut {
	return ProposalOut{ID: p.ID, MissionID: p.MissionID, StepKey: p.StepKey, Tool: p.Tool, Args: p.Args, Explanation: p.Explanation,
		Status: p.Status, Reason: p.Reason, DecidedBy: p.DecidedBy, DecidedAt: p.DecidedAt, CreatedAt: p.CreatedAt}
}

func proposalsOut(ps []db.AgentProposal) []ProposalOut {
	out := make([]ProposalOut, len(ps))
	for i, p := range ps {
		out[i] = proposalOut(p)
	}
	return out
}

// AgentPath names an agent.
type AgentPath struct {
	WorkspacePath
	AgentID string `path:"agentId"`
}

// MissionPath names a mission.
type MissionPath struct {
	WorkspacePath
	MissionID string `path:"missionId"`
}

// ProposalPath names a proposal.
type ProposalPath struct {
	WorkspacePath
	ProposalID string `path:"proposalId"`
}

// checkTools refuses names outside the tool catalog and drops duplicates; nil means every tool.
func checkTools(names []string) ([]string, error) {
	catalog := slices.Clone(jobs.AgentTools)
	if names == nil {
		return catalog, nil
	}
	out := []string{}
	for _, n := range names {
		if !slices.Contains(catalog, n) {
			return nil, errBadRequest(fmt.Sprintf("tools: unknown tool %q (known: %s)", n, strings.Join(catalog, ", ")))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// missionFail maps a store error, with 429 for an agent over its missions-per-hour limit.
func missionFail(err error) error {
	var se *db.Error
	if errors.As(err, &se) && errors.Is(err, db.ErrTooManyRequests) {
		return newErrorBody(http.StatusTooManyRequests, se.Msg)
	}
	return fail(err)
}

const agentsDoc = "An agent is a workspace-scoped service user (`userId`) that works on cards through missions. " +
	"`autonomyMode`: autonomous applies every action; supervised applies comments and checklist additions and " +
	"proposes the rest; approval proposes every action. `tools` (default: all) are names from the tool catalog: " +
	"update_card, add_checklist_items, add_comment, move_card, create_card. See docs/agents.md."

func (s *Server) registerAgents() {
	tags := []string{"Agents"}
	read := Access{Scope: auth.ScopeProjectsRead, WSRole: "member"}
	admin := Access{Scope: auth.ScopeProjectsWrite, WSRole: "admin"}
	write := Access{Scope: auth.ScopeProjectsWrite, WSRole: "member"}

	register(s, huma.Operation{OperationID: "agents-create", Method: http.MethodPost, Path: pathWorkspace + "/agents",
		Summary: "Create an agent", Tags: tags, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict},
		Description: "Workspace admins. " + agentsDoc}, admin,
		func(ctx context.Context, in *struct {
			WorkspacePath
			Body struct {
				Name         string         `json:"name" required:"true" minLength:"1" maxLength:"100"`
				Slug         Slug           `json:"slug" required:"true"`
				Description  string         `json:"description,omitempty" maxLength:"2000"`
				AutonomyMode string         `json:"autonomyMode,omitempty" enum:"autonomous,supervised,approval" doc:"Default supervised"`
				Tools        []string       `json:"tools,omitempty" maxItems:"20" doc:"Default: every tool"`
				McpOnly      bool           `json:"mcpOnly,omitempty" doc:"Missions are worked by an external AI client through /mcp"`
				Limits       *AgentLimitsIn `json:"limits,omitempty"`
			}
		}) (*struct{ Body AgentOut }, error) {
			b := in.Body
			name, err := nonBlank("name", b.Name)
			if err != nil {
				return nil, err
			}
			tools, err := checkTools(b.Tools)
			if err != nil {
				return nil, err
			}
			cfg := db.AgentConfig{Name: name, Slug: string(b.Slug), Description: b.Description, AutonomyMode: b.AutonomyMode, Tools: tools,
				McpOnly: b.McpOnly, MaxSteps: defaultAgentMaxSteps, MaxActionsPerMission: defaultAgentMaxActions,
				MaxMissionsPerHour: defaultAgentMaxMissionsPerHour}
			if cfg.AutonomyMode == "" {
				cfg.AutonomyMode = db.AutonomySupervised
			}
			applyLimits(&cfg, b.Limits)
			a, err := s.store.CreateAgent(ctx, accessFrom(ctx).WorkspaceID, principalFrom(ctx).User.ID, cfg)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body AgentOut }{Body: agentOut(a)}, nil
		})

	register(s, huma.Operation{OperationID: "agents-list", Method: http.MethodGet, Path: pathWorkspace + "/agents",
		Summary: "List agents", Tags: tags}, read,
		func(ctx context.Context, _ *WorkspacePath) (*struct{ Body []AgentOut }, error) {
			return listOf(agentOut)(s.store.Agents(ctx, accessFrom(ctx).WorkspaceID))
		})

	register(s, huma.Operation{OperationID: "agents-get", Method: http.MethodGet, Path: pathWorkspace + "/agents/{agentId}",
		Summary: "Get an agent", Tags: tags}, read,
		func(ctx context.Context, in *AgentPath) (*struct{ Body AgentOut }, error) {
			a, err := s.store.Agent(ctx, accessFrom(ctx).WorkspaceID, in.AgentID)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body AgentOut }{Body: agentOut(a)}, nil
		})

	register(s, huma.Operation{OperationID: "agents-update", Method: http.MethodPatch, Path: pathWorkspace + "/agents/{agentId}",
		Summary: "Update an agent's configuration", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "Workspace admins. Any subset of the creation fields; `limits` may be partial."}, admin,
		func(ctx context.Context, in *struct {
			AgentPath
			Body struct {
				Name         *string        `json:"name,omitempty" minLength:"1" maxLength:"100"`
				Slug         *Slug          `json:"slug,omitempty"`
				Description  *string        `json:"description,omitempty" maxLength:"2000"`
				AutonomyMode *string        `json:"autonomyMode,omitempty" enum:"autonomous,supervised,approval"`
				Tools        []string       `json:"tools,omitempty" maxItems:"20"`
				McpOnly      *bool          `json:"mcpOnly,omitempty"`
				Limits       *AgentLimitsIn `json:"limits,omitempty"`
			}
		}) (*struct{ Body AgentOut }, error) {
			b := in.Body
			var name *string
			if b.Name != nil {
				n, err := nonBlank("name", *b.Name)
				if err != nil {
					return nil, err
				}
				name = &n
			}
			var tools []string
			if b.Tools != nil {
				t, err := checkTools(b.Tools)
				if err != nil {
					return nil, err
				}
				tools = t
			}
			a, err := s.store.UpdateAgent(ctx, accessFrom(ctx).WorkspaceID, in.AgentID, func(c db.AgentConfig) db.AgentConfig {
				if name != nil {
					c.Name = *name
				}
				if b.Slug != nil {
					c.Slug = string(*b.Slug)
				}
				if b.Description != nil {
					c.Description = *b.Description
				}
				if b.AutonomyMode != nil {
					c.AutonomyMode = *b.AutonomyMode
				}
				if tools != nil {
					c.Tools = tools
				}
				if b.McpOnly != nil {
					c.McpOnly = *b.McpOnly
				}
				applyLimits(&c, b.Limits)
				return c
			}, nil)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body AgentOut }{Body: agentOut(a)}, nil
		})

	register(s, huma.Operation{OperationID: "agents-delete", Method: http.MethodDelete, Path: pathWorkspace + "/agents/{agentId}",
		Summary: "Delete an agent", Tags: tags, Description: "Workspace admins. Its missions are deleted with it; " +
			"the cards and comments it wrote keep their author."}, admin,
		func(ctx context.Context, in *AgentPath) (*OKOutput, error) {
			if err := s.store.DeleteAgent(ctx, accessFrom(ctx).WorkspaceID, in.AgentID); err != nil {
				return nil, fail(err)
			}
			return okOutput(), nil
		})

	// Skills.
	register(s, huma.Operation{OperationID: "skills-create", Method: http.MethodPost, Path: pathWorkspace + "/skills",
		Summary: "Create a skill", Tags: tags, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict},
		Description: "Workspace admins. A skill's instructions are added to the system prompt of the agents it is assigned to."}, admin,
		func(ctx context.Context, in *struct {
			WorkspacePath
			Body struct {
				Name         string `json:"name" required:"true" minLength:"1" maxLength:"100"`
				Description  string `json:"description,omitempty" maxLength:"2000"`
				Instructions string `json:"instructions,omitempty" maxLength:"20000"`
			}
		}) (*struct{ Body SkillOut }, error) {
			name, err := nonBlank("name", in.Body.Name)
			if err != nil {
				return nil, err
			}
			sk, err := s.store.CreateSkill(ctx, accessFrom(ctx).WorkspaceID, principalFrom(ctx).User.ID, name, in.Body.Description, in.Body.Instructions)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body SkillOut }{Body: skillOut(sk)}, nil
		})

	register(s, huma.Operation{OperationID: "skills-list", Method: http.MethodGet, Path: pathWorkspace + "/skills",
		Summary: "List skills", Tags: tags}, read,
		func(ctx context.Context, _ *WorkspacePath) (*struct{ Body []SkillOut }, error) {
			return listOf(skillOut)(s.store.Skills(ctx, accessFrom(ctx).WorkspaceID))
		})

	register(s, huma.Operation{OperationID: "agents-assign-skill", Method: http.MethodPost, Path: pathWorkspace + "/agents/{agentId}/skills/{skillId}",
		Summary: "Assign a skill to an agent", Tags: tags, Description: "Workspace admins. Assigning it again changes nothing."}, admin,
		func(ctx context.Context, in *struct {
			AgentPath
			SkillID string `path:"skillId"`
		}) (*struct{ Body AgentOut }, error) {
			a, err := s.store.AssignSkill(ctx, accessFrom(ctx).WorkspaceID, in.AgentID, in.SkillID)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body AgentOut }{Body: agentOut(a)}, nil
		})

	s.registerMissions(tags, read, write)
}

func applyLimits(c *db.AgentConfig, l *AgentLimitsIn) {
	if l == nil {
		return
	}
	if l.MaxSteps != nil {
		c.MaxSteps = *l.MaxSteps
	}
	if l.MaxActionsPerMission != nil {
		c.MaxActionsPerMission = *l.MaxActionsPerMission
	}
	if l.MaxMissionsPerHour != nil {
		c.MaxMissionsPerHour = *l.MaxMissionsPerHour
	}
}

const missionsDoc = "A mission is queued (its job inserted with it), then running, then awaiting_approval when it " +
	"left proposals, then completed; or failed (error, step cap, cancel). An agent past its maxMissionsPerHour is " +
	"answered 429. mcpOnly agents' missions stay queued for an external AI client (/mcp)."

func (s *Server) registerMissions(tags []string, read, write Access) {
	created := func(m db.AgentMission) *struct{ Body MissionOut } {
		return &struct{ Body MissionOut }{Body: missionOut(m)}
	}

	register(s, huma.Operation{OperationID: "missions-create", Method: http.MethodPost, Path: pathWorkspace + "/agents/{agentId}/missions",
		Summary: "Start a mission of an agent on a card", Tags: tags, DefaultStatus: http.StatusCreated,
		Errors: []int{http.StatusTooManyRequests}, Description: missionsDoc}, write,
		func(ctx context.Context, in *struct {
			AgentPath
			Body struct {
				CardID string `json:"cardId" required:"true" doc:"A card of a project of this workspace"`
				Prompt string `json:"prompt" required:"true" minLength:"1" maxLength:"4000"`
			}
		}) (*struct{ Body MissionOut }, error) {
			prompt, err := nonBlank("prompt", in.Body.Prompt)
			if err != nil {
				return nil, err
			}
			wsID := accessFrom(ctx).WorkspaceID
			if _, err := s.store.Agent(ctx, wsID, in.AgentID); err != nil {
				return nil, fail(err)
			}
			projectID, err := s.store.MissionCardProject(ctx, wsID, in.Body.CardID)
			if err != nil {
				return nil, fail(err)
			}
			cardID := in.Body.CardID
			m, err := s.store.CreateMission(ctx, db.NewMission{WorkspaceID: wsID, AgentID: in.AgentID, ActorID: principalFrom(ctx).User.ID,
				ProjectID: &projectID, CardID: &cardID, Source: db.MissionSourceAgent, Objective: prompt})
			if err != nil {
				return nil, missionFail(err)
			}
			return created(m), nil
		})

	register(s, huma.Operation{OperationID: "missions-list", Method: http.MethodGet, Path: pathWorkspace + "/agents/{agentId}/missions",
		Summary: "List an agent's missions, newest first", Tags: tags}, read,
		func(ctx context.Context, in *struct {
			AgentPath
			Limit int32 `query:"limit" minimum:"1" maximum:"200" default:"50"`
		}) (*struct{ Body []MissionOut }, error) {
			limit := in.Limit
			if limit == 0 {
				limit = 50
			}
			return listOf(missionOut)(s.store.AgentMissions(ctx, accessFrom(ctx).WorkspaceID, in.AgentID, limit))
		})

	register(s, huma.Operation{OperationID: "missions-get", Method: http.MethodGet, Path: pathWorkspace + "/missions/{missionId}",
		Summary: "Get a mission's details and progress", Tags: tags}, read,
		func(ctx context.Context, in *MissionPath) (*struct{ Body MissionOut }, error) {
			m, err := s.store.Mission(ctx, accessFrom(ctx).WorkspaceID, in.MissionID)
			if err != nil {
				return nil, fail(err)
			}
			return created(m), nil
		})

	register(s, huma.Operation{OperationID: "missions-cancel", Method: http.MethodPost, Path: pathWorkspace + "/missions/{missionId}/cancel",
		Summary: "Cancel a mission", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "A queued, running or awaiting mission becomes failed with cancelledAt; its pending proposals are " +
			"rejected and a running job stops at its next step. A finished mission answers 409."}, write,
		func(ctx context.Context, in *MissionPath) (*struct{ Body MissionOut }, error) {
			m, err := s.store.CancelMission(ctx, accessFrom(ctx).WorkspaceID, in.MissionID, principalFrom(ctx).User.ID)
			if err != nil {
				return nil, fail(err)
			}
			return created(m), nil
		})

	register(s, huma.Operation{OperationID: "missions-proposals", Method: http.MethodGet, Path: pathWorkspace + "/missions/{missionId}/proposals",
		Summary: "List a mission's proposals", Tags: tags}, read,
		func(ctx context.Context, in *MissionPath) (*struct{ Body []ProposalOut }, error) {
			ps, err := s.store.MissionProposals(ctx, accessFrom(ctx).WorkspaceID, in.MissionID)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body []ProposalOut }{Body: proposalsOut(ps)}, nil
		})

	register(s, huma.Operation{OperationID: "proposals-approve", Method: http.MethodPost, Path: pathWorkspace + "/proposals/{proposalId}/approve",
		Summary: "Approve a proposal (applies its action)", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "Applies the action as the agent, in one transaction with the decision. Deciding twice answers 409. " +
			"When the mission awaits approval and nothing is pending any more, it is completed."}, write,
		func(ctx context.Context, in *ProposalPath) (*struct{ Body ProposalOut }, error) {
			p, err := s.store.DecideProposal(ctx, accessFrom(ctx).WorkspaceID, in.ProposalID, principalFrom(ctx).User.ID, true, "")
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body ProposalOut }{Body: proposalOut(p)}, nil
		})

	register(s, huma.Operation{OperationID: "proposals-reject", Method: http.MethodPost, Path: pathWorkspace + "/proposals/{proposalId}/reject",
		Summary: "Reject a proposal", Tags: tags, Errors: []int{http.StatusConflict}}, write,
		func(ctx context.Context, in *struct {
			ProposalPath
			Body *struct {
				Reason string `json:"reason,omitempty" maxLength:"500"`
			}
		}) (*struct{ Body ProposalOut }, error) {
			reason := ""
			if in.Body != nil {
				reason = strings.TrimSpace(in.Body.Reason)
			}
			p, err := s.store.DecideProposal(ctx, accessFrom(ctx).WorkspaceID, in.ProposalID, principalFrom(ctx).User.ID, false, reason)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body ProposalOut }{Body: proposalOut(p)}, nil
		})

	register(s, huma.Operation{OperationID: "agent-runtime-proposals", Method: http.MethodGet, Path: pathWorkspace + "/agent-runtime/proposals",
		Summary: "List the workspace's pending proposals", Tags: tags}, read,
		func(ctx context.Context, in *struct {
			WorkspacePath
			Limit int32 `query:"limit" minimum:"1" maximum:"500" default:"100"`
		}) (*struct{ Body []ProposalOut }, error) {
			limit := in.Limit
			if limit == 0 {
				limit = 100
			}
			ps, err := s.store.PendingProposals(ctx, accessFrom(ctx).WorkspaceID, limit)
			if err != nil {
				return nil, fail(err)
			}
			return &struct{ Body []ProposalOut }{Body: proposalsOut(ps)}, nil
		})

	register(s, huma.Operation{OperationID: "agent-runtime-run", Method: http.MethodPost, Path: pathWorkspace + "/agent-runtime/run",
		Summary: "Run an agent on an objective", Tags: tags, DefaultStatus: http.StatusCreated,
		Errors: []int{http.StatusTooManyRequests}, Description: "`agentUserId` is the agent's service user id. " + missionsDoc}, write,
		func(ctx context.Context, in *struct {
			WorkspacePath
			Body struct {
				AgentUserID string  `json:"agentUserId" required:"true"`
				Objective   string  `json:"objective" required:"true" minLength:"1" maxLength:"4000"`
				ProjectID   *string `json:"projectId,omitempty"`
				MaxSteps    *int32  `json:"maxSteps,omitempty" minimum:"1" maximum:"50" doc:"Runtime cap, at most the agent's maxSteps"`
			}
		}) (*struct{ Body MissionOut }, error) {
			b := in.Body
			objective, err := nonBlank("objective", b.Objective)
			if err != nil {
				return nil, err
			}
			wsID := accessFrom(ctx).WorkspaceID
			agent, err := s.store.AgentByUser(ctx, wsID, b.AgentUserID)
			if err != nil {
				return nil, fail(err)
			}
			if b.ProjectID != nil {
				if !isUUID(*b.ProjectID) {
					return nil, errNotFound("project not found")
				}
				if _, err := s.store.Project(ctx, wsID, *b.ProjectID); err != nil {
					return nil, fail(err)
				}
			}
			var maxSteps int32
			if b.MaxSteps != nil {
				maxSteps = *b.MaxSteps
			}
			m, err := s.store.CreateMission(ctx, db.NewMission{WorkspaceID: wsID, AgentID: agent.ID, ActorID: principalFrom(ctx).User.ID,
				ProjectID: b.ProjectID, Source: db.MissionSourceRuntime, Objective: objective, MaxSteps: maxSteps})
			if err != nil {
				return nil, missionFail(err)
			}
			return created(m), nil
		})

	register(s, huma.Operation{OperationID: "agent-runtime-card-mission", Method: http.MethodPost, Path: pathWorkspace + "/agent-runtime/card-mission",
		Summary: "Start a card mission", Tags: tags, Errors: []int{http.StatusTooManyRequests},
		Description: "Body `{cardId, projectId, agentId?}` (default agent: the workspace's first). For an mcpOnly agent the " +
			"mission is queued for an external AI client and the answer is 201 with the mission as JSON; for any other " +
			"agent the answer is the mission's server-sent event stream (text/event-stream), as `GET …/missions/{id}/events`.",
		Responses: map[string]*huma.Response{
			"200": {Description: "Any other agent: the mission's event stream", Content: map[string]*huma.MediaType{"text/event-stream": {}}},
			"201": {Description: "mcpOnly agent: the queued mission", Content: map[string]*huma.MediaType{"application/json": {
				Schema: s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(MissionOut{}), true, "")}}},
		}}, write,
		func(ctx context.Context, in *struct {
			WorkspacePath
			Body struct {
				CardID    string  `json:"cardId" required:"true"`
				ProjectID string  `json:"projectId" required:"true"`
				AgentID   *string `json:"agentId,omitempty"`
			}
		}) (*huma.StreamResponse, error) {
			b := in.Body
			wsID := accessFrom(ctx).WorkspaceID
			if !isUUID(b.ProjectID) {
				return nil, errNotFound("project not found")
			}
			if _, err := s.store.Project(ctx, wsID, b.ProjectID); err != nil {
				return nil, fail(err)
			}
			card, err := s.store.MissionCardProject(ctx, wsID, b.CardID)
			if err != nil {
				return nil, fail(err)
			}
			if card != b.ProjectID {
				return nil, errNotFound("card not found")
			}
			var agent db.Agent
			if b.AgentID != nil {
				agent, err = s.store.Agent(ctx, wsID, *b.AgentID)
			} else {
				agent, err = s.store.DefaultAgent(ctx, wsID)
			}
			if err != nil {
				return nil, fail(err)
			}
			projectID, cardID := b.ProjectID, b.CardID
			m, err := s.store.CreateMission(ctx, db.NewMission{WorkspaceID: wsID, AgentID: agent.ID, ActorID: principalFrom(ctx).User.ID,
				ProjectID: &projectID, CardID: &cardID, Source: db.MissionSourceCardMission,
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
				r, w := humachi.Unwrap(hctx)
				s.serveMissionStream(w, r, m.ID, 0)
			}}, nil
		})
}

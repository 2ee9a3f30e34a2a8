package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/agenttool"
	"github.com/pilot-dev/pilot/internal/auth"
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
	Enabled      bool        `json:"enabled" doc:"A disabled agent is listed but its new missions are refused (409)"`
	Model        string      `json:"model" doc:"The model its missions ask the OpenAI-compatible server for; empty: the server's default (LLM_MODEL)"`
	CreatedBy    string      `json:"createdBy"`
	CreatedAt    time.Time   `json:"createdAt"`
	UpdatedAt    time.Time   `json:"updatedAt"`
}

func agentOut(a db.Agent) AgentOut {
	tools := a.Tools
	if tools == nil {
		tools = []string{}
	}
	return AgentOut{ID: a.ID, WorkspaceID: a.WorkspaceID, UserID: a.UserID, Name: a.Name, Slug: a.Slug,
		Description: a.Description, AutonomyMode: a.AutonomyMode, Tools: tools, McpOnly: a.McpOnly,
		Limits: AgentLimits{MaxSteps: a.MaxSteps, MaxActionsPerMission: a.MaxActionsPerMission,
			MaxMissionsPerHour: a.MaxMissionsPerHour}, Enabled: a.Enabled, Model: a.Model, CreatedBy: a.CreatedBy,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
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
	return SkillOut{ID: s.ID, Name: s.Name, Description: s.Description, Instructions: s.Instructions,
		CreatedBy: s.CreatedBy, CreatedAt: s.CreatedAt}
}

// AgentPath names an agent.
type AgentPath struct {
	WorkspacePath
	AgentID string `path:"agentId" format:"uuid"`
}

// checkTools refuses names outside the tool catalog and drops duplicates; nil means every tool.
func checkTools(names []string) ([]string, error) {
	catalog := slices.Clone(agenttool.Names)
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

const agentsDoc = "An agent is a workspace-scoped service user (`userId`) that works on cards through missions. " +
	"`autonomyMode`: autonomous applies every action; supervised applies comments and checklist additions and " +
	"proposes the rest; approval proposes every action. `tools` (default: all) are names from the tool catalog: " +
	"update_card, add_checklist_items, add_comment, move_card, create_card, propose_pilotage_action (suggests a cockpit " +
	"action that a person reviews; see docs/pilotage.md). See docs/agents.md."

// registerAgents registers a workspace's agents and skills.
func (s agentOps) registerAgents() {
	tags := []string{"Agents"}
	read := Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}
	admin := Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin"}

	register(s.Server, huma.Operation{OperationID: "agents-create", Method: http.MethodPost,
		Path: pathWorkspace + "/agents", Summary: "Create an agent", Tags: tags, DefaultStatus: http.StatusCreated,
		Errors: []int{http.StatusConflict}, Description: "Workspace admins. " + agentsDoc},
		admin, s.createAgent)

	register(s.Server, huma.Operation{OperationID: "agents-list", Method: http.MethodGet, Path: pathWorkspace + "/agents",
		Summary: "List agents", Tags: tags},
		read, s.listAgents)

	register(s.Server, huma.Operation{OperationID: "agents-get", Method: http.MethodGet,
		Path: pathWorkspace + "/agents/{agentId}", Summary: "Get an agent", Tags: tags},
		read, s.getAgent)

	register(s.Server, huma.Operation{OperationID: "agents-update", Method: http.MethodPatch,
		Path: pathWorkspace + "/agents/{agentId}", Summary: "Update an agent's configuration", Tags: tags,
		Errors:      []int{http.StatusConflict},
		Description: "Workspace admins. Any subset of the creation fields; `limits` may be partial."},
		admin, s.updateAgent)

	register(s.Server, huma.Operation{OperationID: "agents-delete", Method: http.MethodDelete,
		Path: pathWorkspace + "/agents/{agentId}", Summary: "Delete an agent", Tags: tags, Description: "Workspace admins. " +
			"Its missions are deleted with it; the cards and comments it wrote keep their author."},
		admin, s.deleteAgent)

	register(s.Server, huma.Operation{OperationID: "agents-tools", Method: http.MethodGet,
		Path: pathWorkspace + "/agent-tools", Summary: "List the tools an agent may be given", Tags: tags,
		Description: "The tool catalog, in order: each tool's name (the values of an agent's `tools`) and what it does."},
		read, s.listAgentTools)

	register(s.Server, huma.Operation{OperationID: "skills-create", Method: http.MethodPost,
		Path: pathWorkspace + "/skills", Summary: "Create a skill", Tags: tags, DefaultStatus: http.StatusCreated,
		Errors: []int{http.StatusConflict}, Description: "Workspace admins. A skill's instructions are added to the system " +
			"prompt of the agents it is assigned to."},
		admin, s.createSkill)

	register(s.Server, huma.Operation{OperationID: "skills-list", Method: http.MethodGet, Path: pathWorkspace + "/skills",
		Summary: "List skills", Tags: tags},
		read, s.listSkills)

	register(s.Server, huma.Operation{OperationID: "agents-assign-skill", Method: http.MethodPost,
		Path: pathWorkspace + "/agents/{agentId}/skills/{skillId}", Summary: "Assign a skill to an agent", Tags: tags,
		Description: "Workspace admins. Assigning it again changes nothing."}, admin, s.assignSkill)

	register(s.Server, huma.Operation{OperationID: "agents-unassign-skill", Method: http.MethodDelete,
		Path: pathWorkspace + "/agents/{agentId}/skills/{skillId}", Summary: "Take a skill from an agent", Tags: tags,
		Description: "Workspace admins. Answers the agent; a skill the agent does not have is not found (404)."},
		admin, s.unassignSkill)

	register(s.Server, huma.Operation{OperationID: "agents-skills", Method: http.MethodGet,
		Path: pathWorkspace + "/agents/{agentId}/skills", Summary: "List an agent's skills", Tags: tags,
		Description: "The skills assigned to the agent, by name."},
		read, s.listAgentSkills)

	register(s.Server, huma.Operation{OperationID: "agents-language-model", Method: http.MethodGet,
		Path: pathWorkspace + "/agent-runtime/model", Summary: "What works agents' missions", Tags: tags,
		Description: "Whether an OpenAI-compatible server is configured and the model it is asked for when an agent " +
			"names none. Without a server the built-in offline planner works missions."},
		read, s.languageModel)
}

// CreateAgentInput is the request of agents-create.
type CreateAgentInput struct {
	WorkspacePath
	Body CreateAgentInputBody
}

// CreateAgentInputBody is the body of a CreateAgentInput request.
type CreateAgentInputBody struct {
	Name         string         `json:"name" required:"true" minLength:"1" maxLength:"100"`
	Slug         Slug           `json:"slug" required:"true"`
	Description  string         `json:"description,omitempty" maxLength:"2000"`
	AutonomyMode string         `json:"autonomyMode,omitempty" enum:"autonomous,supervised,approval" doc:"Default supervised"`
	Tools        []string       `json:"tools,omitempty" maxItems:"20" doc:"Default: every tool"`
	McpOnly      bool           `json:"mcpOnly,omitempty" doc:"Missions are worked by an external AI client through /mcp"`
	Limits       *AgentLimitsIn `json:"limits,omitempty"`
	Enabled      *bool          `json:"enabled,omitempty" doc:"Default true; a disabled agent's new missions are refused (409)"`
	Model        string         `json:"model,omitempty" maxLength:"100" pattern:"^\\S*$" patternDescription:"a model name without spaces" doc:"The model name its missions use on the OpenAI-compatible server; empty: the server's default (LLM_MODEL)"`
}

func (s agentOps) createAgent(ctx context.Context, in *CreateAgentInput) (*Output[AgentOut], error) {
	b := in.Body
	name, err := nonBlank("name", b.Name)
	if err != nil {
		return nil, err
	}
	tools, err := checkTools(b.Tools)
	if err != nil {
		return nil, err
	}
	cfg := mission.AgentConfig{Name: name, Slug: string(b.Slug), Description: b.Description, AutonomyMode: b.AutonomyMode,
		Tools: tools, McpOnly: b.McpOnly, MaxSteps: defaultAgentMaxSteps, MaxActionsPerMission: defaultAgentMaxActions,
		MaxMissionsPerHour: defaultAgentMaxMissionsPerHour}
	if cfg.AutonomyMode == "" {
		cfg.AutonomyMode = mission.AutonomySupervised
	}
	if b.Enabled != nil {
		cfg.Disabled = !*b.Enabled
	}
	cfg.Model = b.Model
	applyLimits(&cfg, b.Limits)
	return oneOf(agentOut)(s.missions.CreateAgent(ctx, accessFrom(ctx).WorkspaceID, principalFrom(ctx).User.ID, cfg))
}

func (s agentOps) listAgents(ctx context.Context, _ *WorkspacePath) (*Output[[]AgentOut], error) {
	return listOf(agentOut)(s.missions.Agents(ctx, accessFrom(ctx).WorkspaceID))
}

func (s agentOps) getAgent(ctx context.Context, in *AgentPath) (*Output[AgentOut], error) {
	return oneOf(agentOut)(s.missions.Agent(ctx, accessFrom(ctx).WorkspaceID, in.AgentID))
}

// UpdateAgentInput is the request of agents-update.
type UpdateAgentInput struct {
	AgentPath
	Body UpdateAgentInputBody
}

// UpdateAgentInputBody is the body of a UpdateAgentInput request.
type UpdateAgentInputBody struct {
	Name         *string        `json:"name,omitempty" minLength:"1" maxLength:"100"`
	Slug         *Slug          `json:"slug,omitempty"`
	Description  *string        `json:"description,omitempty" maxLength:"2000"`
	AutonomyMode *string        `json:"autonomyMode,omitempty" enum:"autonomous,supervised,approval"`
	Tools        []string       `json:"tools,omitempty" maxItems:"20"`
	McpOnly      *bool          `json:"mcpOnly,omitempty"`
	Limits       *AgentLimitsIn `json:"limits,omitempty"`
	Enabled      *bool          `json:"enabled,omitempty" doc:"false turns the agent off: its new missions are refused (409)"`
	Model        *string        `json:"model,omitempty" maxLength:"100" pattern:"^\\S*$" patternDescription:"a model name without spaces" doc:"Empty: the server's default (LLM_MODEL)"`
}

func (s agentOps) updateAgent(ctx context.Context, in *UpdateAgentInput) (*Output[AgentOut], error) {
	b := in.Body
	name, err := nonBlankOpt("name", b.Name)
	if err != nil {
		return nil, err
	}
	var tools []string
	if b.Tools != nil {
		if tools, err = checkTools(b.Tools); err != nil {
			return nil, err
		}
	}
	return oneOf(agentOut)(s.missions.UpdateAgent(ctx, accessFrom(ctx).WorkspaceID, in.AgentID,
		func(c mission.AgentConfig) mission.AgentConfig {
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
			if b.Enabled != nil {
				c.Disabled = !*b.Enabled
			}
			if b.Model != nil {
				c.Model = *b.Model
			}
			applyLimits(&c, b.Limits)
			return c
		}, nil))
}

func (s agentOps) deleteAgent(ctx context.Context, in *AgentPath) (*OKOutput, error) {
	return done(s.missions.DeleteAgent(ctx, accessFrom(ctx).WorkspaceID, in.AgentID))
}

// ToolCatalogOut is a tool of the catalog an agent's tools are chosen from.
type ToolCatalogOut struct {
	Name        string `json:"name" doc:"The name an agent's tools list"`
	Description string `json:"description" doc:"What the tool does, as the model is told"`
}

func (s agentOps) listAgentTools(_ context.Context, _ *WorkspacePath) (*Output[[]ToolCatalogOut], error) {
	out := []ToolCatalogOut{}
	for _, t := range agenttool.Catalog() {
		out = append(out, ToolCatalogOut{Name: t.Name, Description: t.Description})
	}
	return &Output[[]ToolCatalogOut]{Body: out}, nil
}

// CreateSkillInput is the request of skills-create.
type CreateSkillInput struct {
	WorkspacePath
	Body CreateSkillInputBody
}

// CreateSkillInputBody is the body of a CreateSkillInput request.
type CreateSkillInputBody struct {
	Name         string `json:"name" required:"true" minLength:"1" maxLength:"100"`
	Description  string `json:"description,omitempty" maxLength:"2000"`
	Instructions string `json:"instructions,omitempty" maxLength:"20000"`
}

func (s agentOps) createSkill(ctx context.Context, in *CreateSkillInput) (*Output[SkillOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	return oneOf(skillOut)(s.missions.CreateSkill(ctx, accessFrom(ctx).WorkspaceID, principalFrom(ctx).User.ID, name,
		in.Body.Description, in.Body.Instructions))
}

func (s agentOps) listSkills(ctx context.Context, _ *WorkspacePath) (*Output[[]SkillOut], error) {
	return listOf(skillOut)(s.missions.Skills(ctx, accessFrom(ctx).WorkspaceID))
}

// AssignSkillInput is the request of agents-assign-skill.
type AssignSkillInput struct {
	AgentPath
	SkillID string `path:"skillId" format:"uuid"`
}

func (s agentOps) assignSkill(ctx context.Context, in *AssignSkillInput) (*Output[AgentOut], error) {
	return oneOf(agentOut)(s.missions.AssignSkill(ctx, mission.SkillAssignment{WorkspaceID: accessFrom(ctx).WorkspaceID,
		AgentID: in.AgentID, SkillID: in.SkillID}))
}

// UnassignSkillInput is the request of agents-unassign-skill.
type UnassignSkillInput struct {
	AgentPath
	SkillID string `path:"skillId" format:"uuid"`
}

func (s agentOps) unassignSkill(ctx context.Context, in *UnassignSkillInput) (*Output[AgentOut], error) {
	return oneOf(agentOut)(s.missions.UnassignSkill(ctx, mission.SkillAssignment{WorkspaceID: accessFrom(ctx).WorkspaceID,
		AgentID: in.AgentID, SkillID: in.SkillID}))
}

// AgentSkillsInput is the request of agents-skills.
type AgentSkillsInput struct{ AgentPath }

func (s agentOps) listAgentSkills(ctx context.Context, in *AgentSkillsInput) (*Output[[]SkillOut], error) {
	if _, err := s.missions.Agent(ctx, accessFrom(ctx).WorkspaceID, in.AgentID); err != nil {
		return nil, fail(err)
	}
	return listOf(skillOut)(s.missions.AgentSkills(ctx, in.AgentID))
}

// LanguageModelOut says what works agents' missions.
type LanguageModelOut struct {
	Server       bool   `json:"server" doc:"An OpenAI-compatible server is configured (LLM_API_KEY); when false the built-in offline planner works missions and agents' models are not used"`
	DefaultModel string `json:"defaultModel" doc:"The model asked for when an agent names none (LLM_MODEL); empty without a server"`
}

func (s agentOps) languageModel(_ context.Context, _ *WorkspacePath) (*Output[LanguageModelOut], error) {
	return &Output[LanguageModelOut]{Body: LanguageModelOut{Server: s.opts.LanguageModel != "",
		DefaultModel: s.opts.LanguageModel}}, nil
}

func applyLimits(c *mission.AgentConfig, l *AgentLimitsIn) {
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

package mission

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Autonomy modes of an agent.
const (
	AutonomyAutonomous = "autonomous"
	AutonomySupervised = "supervised"
	AutonomyApproval   = "approval"
)

// AgentEmailDomain is the domain of agents' service-user e-mail addresses (a reserved .invalid name:
// nothing is ever delivered there).
const AgentEmailDomain = "agents.pilot.invalid"

// AgentConfig is an agent's configuration, as created or after a patch. The api validates ranges and
// tool names; the store keeps them.
type AgentConfig struct {
	Name, Slug, Description, AutonomyMode string
	Tools                                 []string
	McpOnly                               bool
	MaxSteps, MaxActionsPerMission        int32
	MaxMissionsPerHour                    int32
	// Disabled: the agent is turned off and its new missions are refused (a conflict). The zero value is an
	// enabled agent.
	Disabled bool
	// Model is the model name its missions use (empty: the server's default).
	Model string
}

func agentConfigOf(a db.Agent) AgentConfig {
	return AgentConfig{Name: a.Name, Slug: a.Slug, Description: a.Description, AutonomyMode: a.AutonomyMode,
		Tools: a.Tools, McpOnly: a.McpOnly, MaxSteps: a.MaxSteps, MaxActionsPerMission: a.MaxActionsPerMission,
		MaxMissionsPerHour: a.MaxMissionsPerHour, Disabled: !a.Enabled, Model: a.Model}
}

// CreateAgent creates an agent with its service user (is_service, a password hash nothing verifies
// against) and makes that user a workspace member (member, pilotage viewer), so the agent can be an
// assignee and the author of its changes, in one transaction. A slug taken in the workspace is a
// conflict.
func (e *Engine) CreateAgent(ctx context.Context, workspaceID, actorID string, in AgentConfig) (db.Agent, error) {
	var out db.Agent
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		userID := db.NewID()
		short := make([]byte, 4)
		_, _ = rand.Read(short)
		email := fmt.Sprintf("agent-%s-%s@%s", in.Slug, hex.EncodeToString(short), AgentEmailDomain)
		if err := q.ServiceUserInsert(ctx, dbsqlc.ServiceUserInsertParams{ID: userID, Email: email, Name: in.Name,
			PasswordHash: "!service-account-no-login"}); err != nil {
			return fmt.Errorf("insert service user: %w", err)
		}
		if err := q.WorkspaceMemberUpsert(ctx, dbsqlc.WorkspaceMemberUpsertParams{WorkspaceID: workspaceID, UserID: userID,
			Role: "member", PilotageRole: "viewer"}); err != nil {
			return fmt.Errorf("add agent to workspace: %w", err)
		}
		var err error
		var outRow dbsqlc.Agent
		outRow, err = q.AgentInsert(ctx, dbsqlc.AgentInsertParams{ID: db.NewID(), WorkspaceID: workspaceID, UserID: userID,
			Name: in.Name, Slug: in.Slug, Description: in.Description, AutonomyMode: in.AutonomyMode, Tools: in.Tools,
			McpOnly: in.McpOnly, MaxSteps: in.MaxSteps, MaxActionsPerMission: in.MaxActionsPerMission,
			MaxMissionsPerHour: in.MaxMissionsPerHour, Enabled: !in.Disabled, Model: in.Model, CreatedBy: actorID})
		out = db.Agent(outRow)
		if dbcore.IsUnique(err, "") {
			return dbcore.Conflict(fmt.Sprintf("an agent with slug %q already exists in this workspace", in.Slug))
		}
		if err != nil {
			return fmt.Errorf("insert agent: %w", err)
		}
		return nil
	})
	return out, err
}

// Agents lists a workspace's agents by creation.
func (e *Engine) Agents(ctx context.Context, workspaceID string) ([]db.Agent, error) {
	rows, err := e.core.Q.AgentList(ctx, workspaceID)
	return dbcore.MapRows(rows, func(r dbsqlc.Agent) db.Agent { return db.Agent(r) }), dbcore.Wrap(err, "list agents")
}

// Agent reads one agent of a workspace.
func (e *Engine) Agent(ctx context.Context, workspaceID, agentID string) (db.Agent, error) {
	r, err := dbcore.OrNotFound(e.core.Q.AgentGet(ctx, dbsqlc.AgentGetParams{ID: agentID,
		WorkspaceID: workspaceID}))("agent not found", "get agent")
	return db.Agent(r), err
}

// UpdateAgent applies update to an agent's configuration under the agent's row lock; validate checks
// the merged result (nil: no check). A slug taken in the workspace is a conflict.
func (e *Engine) UpdateAgent(ctx context.Context, workspaceID, agentID string, update func(AgentConfig) AgentConfig,
	validate func(AgentConfig) error) (db.Agent, error) {
	var out db.Agent
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.AgentGetForUpdate(ctx, dbsqlc.AgentGetForUpdateParams{ID: agentID, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("agent not found")
		}
		if err != nil {
			return fmt.Errorf("lock agent: %w", err)
		}
		next := update(agentConfigOf(db.Agent(cur)))
		if validate != nil {
			if err := validate(next); err != nil {
				return err
			}
		}
		var outRow dbsqlc.Agent
		outRow, err = q.AgentUpdate(ctx, dbsqlc.AgentUpdateParams{ID: agentID, Name: next.Name, Slug: next.Slug,
			Description: next.Description, AutonomyMode: next.AutonomyMode, Tools: next.Tools, McpOnly: next.McpOnly,
			MaxSteps: next.MaxSteps, MaxActionsPerMission: next.MaxActionsPerMission,
			MaxMissionsPerHour: next.MaxMissionsPerHour, Enabled: !next.Disabled, Model: next.Model})
		out = db.Agent(outRow)
		if dbcore.IsUnique(err, "") {
			return dbcore.Conflict(fmt.Sprintf("an agent with slug %q already exists in this workspace", next.Slug))
		}
		if err != nil {
			return fmt.Errorf("update agent: %w", err)
		}
		return nil
	})
	return out, err
}

// DeleteAgent deletes an agent (its missions go with it) and removes its service user from the
// workspace. The user row stays: the cards and comments it wrote keep their author.
func (e *Engine) DeleteAgent(ctx context.Context, workspaceID, agentID string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		userID, err := q.AgentDelete(ctx, dbsqlc.AgentDeleteParams{ID: agentID, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("agent not found")
		}
		if err != nil {
			return fmt.Errorf("delete agent: %w", err)
		}
		if err := q.WorkspaceMemberRemove(ctx, dbsqlc.WorkspaceMemberRemoveParams{WorkspaceID: workspaceID,
			UserID: userID}); err != nil {
			return fmt.Errorf("remove agent member: %w", err)
		}
		return nil
	})
}

// CreateSkill creates a workspace skill; a name taken in the workspace is a conflict.
func (e *Engine) CreateSkill(ctx context.Context, workspaceID, actorID, name, description,
	instructions string) (db.Skill, error) {
	sk, err := e.core.Q.SkillInsert(ctx, dbsqlc.SkillInsertParams{ID: db.NewID(), WorkspaceID: workspaceID, Name: name,
		Description: description, Instructions: instructions, CreatedBy: actorID})
	if dbcore.IsUnique(err, "") {
		return db.Skill(sk), dbcore.Conflict(fmt.Sprintf("a skill named %q already exists in this workspace", name))
	}
	return db.Skill(sk), dbcore.Wrap(err, "insert skill")
}

// Skills lists a workspace's skills by name.
func (e *Engine) Skills(ctx context.Context, workspaceID string) ([]db.Skill, error) {
	rows, err := e.core.Q.SkillList(ctx, workspaceID)
	return dbcore.MapRows(rows, func(r dbsqlc.Skill) db.Skill { return db.Skill(r) }), dbcore.Wrap(err, "list skills")
}

// AssignSkill gives a skill to an agent of the same workspace; assigning it again changes nothing.
func (e *Engine) AssignSkill(ctx context.Context, a SkillAssignment) (db.Agent, error) {
	workspaceID, agentID, skillID := a.WorkspaceID, a.AgentID, a.SkillID
	var out db.Agent
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		var outRow dbsqlc.Agent
		outRow, err = q.AgentGet(ctx, dbsqlc.AgentGetParams{ID: agentID, WorkspaceID: workspaceID})
		out = db.Agent(outRow)
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("agent not found")
		}
		if err != nil {
			return fmt.Errorf("get agent: %w", err)
		}
		if _, err := q.SkillGet(ctx, dbsqlc.SkillGetParams{ID: skillID, WorkspaceID: workspaceID}); err != nil {
			if dbcore.IsNotFound(err) {
				return dbcore.NotFound("skill not found")
			}
			return fmt.Errorf("get skill: %w", err)
		}
		if err := q.AgentSkillAssign(ctx, dbsqlc.AgentSkillAssignParams{AgentID: agentID, SkillID: skillID}); err != nil {
			return fmt.Errorf("assign skill: %w", err)
		}
		return nil
	})
	return out, err
}

// UnassignSkill takes a skill from an agent of the workspace and answers the agent; a skill the agent does
// not have is not found.
func (e *Engine) UnassignSkill(ctx context.Context, a SkillAssignment) (db.Agent, error) {
	out, err := e.Agent(ctx, a.WorkspaceID, a.AgentID)
	if err != nil {
		return out, err
	}
	n, err := e.core.Q.AgentSkillUnassign(ctx, dbsqlc.AgentSkillUnassignParams{AgentID: a.AgentID, SkillID: a.SkillID})
	if err != nil {
		return out, fmt.Errorf("unassign skill: %w", err)
	}
	if n == 0 {
		return out, dbcore.NotFound("the agent does not have this skill")
	}
	return out, nil
}

// AgentSkills lists the skills assigned to an agent.
func (e *Engine) AgentSkills(ctx context.Context, agentID string) ([]db.Skill, error) {
	rows, err := e.core.Q.SkillsByAgent(ctx, agentID)
	return dbcore.MapRows(rows, func(r dbsqlc.Skill) db.Skill { return db.Skill(r) }), dbcore.Wrap(err,
		"list agent skills")
}

// SkillAssignment gives an agent of a workspace one of the workspace's skills.
type SkillAssignment struct{ WorkspaceID, AgentID, SkillID string }

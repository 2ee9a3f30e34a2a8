package mission_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// An agent comes with a service user that cannot log in and is a member (pilotage viewer) of the
// workspace; a slug taken in the workspace is a conflict that leaves no stray user behind, while the
// same slug in another workspace is free.
func TestCreateAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("planner")})
	require.Equal(t, "Agent planner", a.Name)
	require.Equal(t, e.ws(), a.WorkspaceID)
	require.Equal(t, e.team.Owner.User.ID, a.CreatedBy)

	var email, hash, role, pilotageRole string
	var isService bool
	require.NoError(t, e.Pool.QueryRow(ctx, `SELECT email, password_hash, is_service FROM users WHERE id = $1`,
		a.UserID).Scan(&email, &hash, &isService))
	require.True(t, isService)
	require.True(t, strings.HasPrefix(email, "agent-planner-") && strings.HasSuffix(email, "@"+mission.AgentEmailDomain),
		email)
	require.False(t, strings.HasPrefix(hash, "$"), "no password verifies against it")
	require.NoError(t, e.Pool.QueryRow(ctx,
		`SELECT role, pilotage_role FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, e.ws(),
		a.UserID).Scan(&role, &pilotageRole))
	require.Equal(t, "member", role)
	require.Equal(t, "viewer", pilotageRole)

	users := e.Count(t, `SELECT count(*) FROM users`)
	_, err := e.engine.CreateAgent(ctx, e.ws(), e.team.Owner.User.ID, mission.AgentConfig{Name: "Again", Slug: "planner",
		AutonomyMode: mission.AutonomySupervised, Tools: []string{"add_comment"}, MaxSteps: 1, MaxActionsPerMission: 1,
		MaxMissionsPerHour: 1})
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, `slug "planner"`)
	require.Equal(t, users, e.Count(t, `SELECT count(*) FROM users`), "the refused agent's service user is not kept")
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM agents`))

	theirs := testfactory.Agent(t, e.Engines, e.team.Member, &testfactory.AgentOpts{Slug: testfactory.Ptr("planner")})
	require.Equal(t, e.team.Member.Workspace.ID, theirs.WorkspaceID)
	list, err := e.engine.Agents(ctx, e.ws())
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, a.ID, list[0].ID)
}

// An update merges under the agent's lock and is checked by the caller's validation; a refused update
// changes nothing; a taken slug conflicts; another workspace's agent is not found.
func TestUpdateAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, nil)
	e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("taken")})
	noBigCaps := func(c mission.AgentConfig) error {
		if c.MaxSteps > 50 {
			return &db.Error{Kind: db.ErrInvalid, Msg: "maxSteps must be at most 50"}
		}
		return nil
	}

	got, err := e.engine.UpdateAgent(ctx, e.ws(), a.ID, func(c mission.AgentConfig) mission.AgentConfig {
		c.AutonomyMode, c.MaxSteps, c.Tools = mission.AutonomyAutonomous, 20, []string{"add_comment"}
		return c
	}, noBigCaps)
	require.NoError(t, err)
	require.Equal(t, mission.AutonomyAutonomous, got.AutonomyMode)
	require.Equal(t, int32(20), got.MaxSteps)
	require.Equal(t, []string{"add_comment"}, got.Tools)
	require.Equal(t, a.Slug, got.Slug, "what the update leaves is kept")

	_, err = e.engine.UpdateAgent(ctx, e.ws(), a.ID,
		func(c mission.AgentConfig) mission.AgentConfig { c.MaxSteps = 99; c.Name = "Renamed"; return c }, noBigCaps)
	require.ErrorIs(t, err, db.ErrInvalid)
	_, err = e.engine.UpdateAgent(ctx, e.ws(), a.ID,
		func(c mission.AgentConfig) mission.AgentConfig { c.Slug = "taken"; return c }, nil)
	require.ErrorIs(t, err, db.ErrConflict)
	_, err = e.engine.UpdateAgent(ctx, e.team.Member.Workspace.ID, a.ID,
		func(c mission.AgentConfig) mission.AgentConfig { c.Name = "Stolen"; return c }, nil)
	require.ErrorIs(t, err, db.ErrNotFound)

	now, err := e.engine.Agent(ctx, e.ws(), a.ID)
	require.NoError(t, err)
	require.Equal(t, "Agent planner", now.Name)
	require.Equal(t, int32(20), now.MaxSteps)
	require.Equal(t, "planner", now.Slug)
}

// Deleting an agent deletes its missions and removes its service user from the workspace, but keeps the
// user, the author of what it wrote; another workspace's agent is not found and stays.
func TestDeleteAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	m := e.running(t, a)
	e.step(t, m.ID, "turn1:0", "add_comment", map[string]any{"content": "mine"})

	require.ErrorIs(t, e.engine.DeleteAgent(ctx, e.team.Member.Workspace.ID, a.ID), db.ErrNotFound)
	_, err := e.engine.Agent(ctx, e.ws(), a.ID)
	require.NoError(t, err)

	require.NoError(t, e.engine.DeleteAgent(ctx, e.ws(), a.ID))
	_, err = e.engine.Agent(ctx, e.ws(), a.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.Mission(ctx, e.ws(), m.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	require.Equal(t, 0, e.Count(t, `SELECT count(*) FROM workspace_members WHERE user_id = $1`, a.UserID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM users WHERE id = $1`, a.UserID))
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM comments WHERE author_id = $1`, a.UserID))
	require.ErrorIs(t, e.engine.DeleteAgent(ctx, e.ws(), a.ID), db.ErrNotFound)
}

// Skills: a name is unique in a workspace; assigning one twice changes nothing; a skill or agent of
// another workspace is not found.
func TestSkills(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, nil)
	sk, err := e.engine.CreateSkill(ctx, e.ws(), e.team.Owner.User.ID, "triage", "Sorts cards", "Be brief.")
	require.NoError(t, err)
	_, err = e.engine.CreateSkill(ctx, e.ws(), e.team.Owner.User.ID, "triage", "", "")
	require.ErrorIs(t, err, db.ErrConflict)
	theirs, err := e.engine.CreateSkill(ctx, e.team.Member.Workspace.ID, e.team.Member.User.ID, "triage", "", "Theirs")
	require.NoError(t, err, "the name is free in another workspace")

	_, err = e.engine.AssignSkill(ctx, mission.SkillAssignment{WorkspaceID: e.ws(), AgentID: a.ID, SkillID: sk.ID})
	require.NoError(t, err)
	_, err = e.engine.AssignSkill(ctx, mission.SkillAssignment{WorkspaceID: e.ws(), AgentID: a.ID, SkillID: sk.ID})
	require.NoError(t, err)
	_, err = e.engine.AssignSkill(ctx, mission.SkillAssignment{WorkspaceID: e.ws(), AgentID: a.ID, SkillID: theirs.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "skill not found")
	_, err = e.engine.AssignSkill(ctx, mission.SkillAssignment{WorkspaceID: e.team.Member.Workspace.ID, AgentID: a.ID,
		SkillID: theirs.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "agent not found")

	skills, err := e.engine.AgentSkills(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, skills, 1)
	require.Equal(t, sk.ID, skills[0].ID)
	all, err := e.engine.Skills(ctx, e.ws())
	require.NoError(t, err)
	require.Len(t, all, 1)
}

// An agent is enabled with the server's default model when created; a disabled one is still listed, its new
// missions are refused as a conflict that writes nothing, the default agent is the first enabled one, and
// enabling it again lets it start missions. Its model is kept as set.
func TestDisabledAgentRefusesNewMissions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	first := e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("first")})
	second := e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("second")})
	require.True(t, first.Enabled)
	require.Empty(t, first.Model)

	off, err := e.engine.UpdateAgent(ctx, e.ws(), first.ID, func(c mission.AgentConfig) mission.AgentConfig {
		c.Disabled, c.Model = true, "llama3.1:8b"
		return c
	}, nil)
	require.NoError(t, err)
	require.False(t, off.Enabled)
	require.Equal(t, "llama3.1:8b", off.Model)
	list, err := e.engine.Agents(ctx, e.ws())
	require.NoError(t, err)
	require.Len(t, list, 2, "a disabled agent is still listed")
	require.False(t, list[0].Enabled)

	missions := e.Count(t, `SELECT count(*) FROM agent_missions`)
	_, err = e.engine.CreateMission(ctx, mission.NewMission{WorkspaceID: e.ws(), AgentID: first.ID,
		ActorID: e.team.Member.User.ID, ProjectID: &e.team.Project.ID, CardID: &e.card.ID,
		Source: mission.MissionSourceAgent, Objective: "Plan this card"})
	require.ErrorIs(t, err, db.ErrConflict)
	require.ErrorContains(t, err, "disabled")
	require.Equal(t, missions, e.Count(t, `SELECT count(*) FROM agent_missions`))

	def, err := e.engine.DefaultAgent(ctx, e.ws())
	require.NoError(t, err)
	require.Equal(t, second.ID, def.ID, "the default agent is the first enabled one")

	on, err := e.engine.UpdateAgent(ctx, e.ws(), first.ID, func(c mission.AgentConfig) mission.AgentConfig {
		c.Disabled = false
		return c
	}, nil)
	require.NoError(t, err)
	require.True(t, on.Enabled)
	require.Equal(t, "llama3.1:8b", on.Model, "a patch that does not name the model keeps it")
	e.cardMission(t, on)
	def, err = e.engine.DefaultAgent(ctx, e.ws())
	require.NoError(t, err)
	require.Equal(t, first.ID, def.ID)
}

// Unassigning takes the skill from the agent only; a skill it does not have, or another workspace's agent, is
// not found.
func TestUnassignSkill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, nil)
	other := e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("other")})
	sk, err := e.engine.CreateSkill(ctx, e.ws(), e.team.Owner.User.ID, "triage", "", "Sort the cards")
	require.NoError(t, err)
	for _, ag := range []db.Agent{a, other} {
		_, err = e.engine.AssignSkill(ctx, mission.SkillAssignment{WorkspaceID: e.ws(), AgentID: ag.ID, SkillID: sk.ID})
		require.NoError(t, err)
	}

	got, err := e.engine.UnassignSkill(ctx, mission.SkillAssignment{WorkspaceID: e.ws(), AgentID: a.ID, SkillID: sk.ID})
	require.NoError(t, err)
	require.Equal(t, a.ID, got.ID)
	skills, err := e.engine.AgentSkills(ctx, a.ID)
	require.NoError(t, err)
	require.Empty(t, skills)
	skills, err = e.engine.AgentSkills(ctx, other.ID)
	require.NoError(t, err)
	require.Len(t, skills, 1, "the other agent keeps it")

	_, err = e.engine.UnassignSkill(ctx, mission.SkillAssignment{WorkspaceID: e.ws(), AgentID: a.ID, SkillID: sk.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "does not have")
	_, err = e.engine.UnassignSkill(ctx, mission.SkillAssignment{WorkspaceID: e.team.Member.Workspace.ID,
		AgentID: other.ID, SkillID: sk.ID})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorContains(t, err, "agent not found")
}

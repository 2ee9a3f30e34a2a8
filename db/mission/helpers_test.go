package mission_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// env is a team (owner and member sharing a project) on a fresh database with the agents engine,
// and a card of the shared project that missions act on.
type env struct {
	testfactory.Bundle
	engine *mission.Engine
	team   testfactory.Team
	card   board.Card
}

func setup(t *testing.T) *env {
	t.Helper()
	b := testfactory.Store(t)
	e := &env{Bundle: *b, engine: b.Missions, team: testfactory.NewTeam(t, b.Engines)}
	e.card = testfactory.Card(t, b.Engines, e.team.Project,
		&testfactory.CardOpts{Title: testfactory.Ptr("Fix the outage")})
	return e
}

// ws is the team's workspace.
func (e *env) ws() string { return e.team.Owner.Workspace.ID }

// agent creates an agent in the team's workspace.
func (e *env) agent(t *testing.T, opts *testfactory.AgentOpts) db.Agent {
	t.Helper()
	return testfactory.Agent(t, e.Engines, e.team.Owner, opts)
}

// cardMission queues a mission of agent on the shared card, requested by the member.
func (e *env) cardMission(t *testing.T, a db.Agent) db.AgentMission {
	t.Helper()
	m, err := e.engine.CreateMission(context.Background(), mission.NewMission{WorkspaceID: e.ws(), AgentID: a.ID,
		ActorID: e.team.Member.User.ID, ProjectID: &e.team.Project.ID, CardID: &e.card.ID, Source: mission.MissionSourceAgent,
		Objective: "Plan this card"})
	require.NoError(t, err)
	return m
}

// running queues a mission of agent on the shared card and starts it as a worker does.
func (e *env) running(t *testing.T, a db.Agent) db.AgentMission {
	t.Helper()
	m := e.cardMission(t, a)
	run, err := e.engine.StartMission(context.Background(), m.ID)
	require.NoError(t, err)
	require.True(t, run.Proceed)
	return run.Mission
}

// step runs one tool call of a mission as the worker does.
func (e *env) step(t *testing.T, missionID, key, tool string, args any) mission.StepOutcome {
	t.Helper()
	out, err := e.engine.RunMissionStep(context.Background(), mission.StepInput{MissionID: missionID, StepKey: key,
		Tool: tool, Args: raw(t, args), Explanation: "because"})
	require.NoError(t, err)
	return out
}

func raw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// card reads the shared card.
func (e *env) readCard(t *testing.T) board.Card {
	t.Helper()
	c, err := e.Board.Card(context.Background(), e.team.Project.ID, e.card.ID)
	require.NoError(t, err)
	return c
}

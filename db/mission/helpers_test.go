package mission_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// env is a team (owner and member sharing a project) on a fresh database with the agents engine,
// and a card of the shared project that missions act on.
type env struct {
	testfactory.Bundle
	engine *mission.Engine
	team   testfactory.Team
	card   db.Card
}

func setup(t *testing.T) *env {
	t.Helper()
	b := testfactory.Store(t)
	e := &env{Bundle: *b, engine: mission.New(b.Store), team: testfactory.NewTeam(t, b.Store)}
	e.card = testfactory.Card(t, b.Store, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Fix the outage")})
	return e
}

// ws is the team's workspace.
func (e *env) ws() string { return e.team.Owner.Workspace.ID }

// agent creates an agent in the team's workspace.
func (e *env) agent(t *testing.T, opts *testfactory.AgentOpts) db.Agent {
	t.Helper()
	return testfactory.Agent(t, e.Store, e.team.Owner, opts)
}

// cardMission queues a mission of agent on the shared card, requested by the member.
func (e *env) cardMission(t *testing.T, a db.Agent) db.AgentMission {
	t.Helper()
	m, err := e.engine.CreateMission(context.Background(), mission.NewMission{WorkspaceID: e.ws(), AgentID: a.ID, ActorID: e.team.Member.User.ID,
		ProjectID: &e.team.Project.ID, CardID: &e.card.ID, Source: mission.MissionSourceAgent, Objective: "Plan this card"})
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
	out, err := e.engine.RunMissionStep(context.Background(), mission.StepInput{MissionID: missionID, StepKey: key, Tool: tool, Args: raw(t, args),
		Explanation: "because"})
	require.NoError(t, err)
	return out
}

func raw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// count runs a count query.
func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// events lists a stream's events as "type:status", in order.
func events(t *testing.T, pool *pgxpool.Pool, streamID string) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT type || ':' || status FROM stream_events WHERE stream_id = $1 ORDER BY seq`, streamID)
	require.NoError(t, err)
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

// lastEvent reads a stream's last event's message and data.
func lastEvent(t *testing.T, pool *pgxpool.Pool, streamID string) (string, map[string]any) {
	t.Helper()
	var msg string
	var data map[string]any
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT message, data FROM stream_events WHERE stream_id = $1 ORDER BY seq DESC LIMIT 1`,
		streamID).Scan(&msg, &data))
	return msg, data
}

// job is a River job row as the tests look at it.
type job struct {
	ID          int64
	Queue       string
	State       string
	Args        map[string]any
	ScheduledAt time.Time
	MaxAttempts int
}

// jobsOf lists the River jobs of a kind, by id.
func jobsOf(t *testing.T, pool *pgxpool.Pool, kind string) []job {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT id, queue, state::text, args, scheduled_at, max_attempts FROM river_job WHERE kind = $1 ORDER BY id`, kind)
	require.NoError(t, err)
	defer rows.Close()
	out := []job{}
	for rows.Next() {
		var j job
		require.NoError(t, rows.Scan(&j.ID, &j.Queue, &j.State, &j.Args, &j.ScheduledAt, &j.MaxAttempts))
		out = append(out, j)
	}
	require.NoError(t, rows.Err())
	return out
}

// card reads the shared card.
func (e *env) readCard(t *testing.T) db.Card {
	t.Helper()
	c, err := e.Store.Card(context.Background(), e.team.Project.ID, e.card.ID)
	require.NoError(t, err)
	return c
}

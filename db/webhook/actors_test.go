package webhook_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// A delivery's data says who acted: an agent, for the member who started its mission, or a person.
func TestWebhookPayloadSaysAnAgentActedForAPerson(t *testing.T) {
	b := setup(t, webhook.Options{})
	ctx := context.Background()
	rcv := newReceiver(t, http.StatusOK)
	w := b.create(t, rcv.URL, "comment_added")
	card := testfactory.Card(t, b.Engines, b.team.Project, nil)
	agent := testfactory.Agent(t, b.Engines, b.team.Owner, &testfactory.AgentOpts{Name: testfactory.Ptr("Planner"),
		AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	member := b.team.Member.User
	m, err := b.Missions.CreateMission(ctx, mission.NewMission{WorkspaceID: b.team.Owner.Workspace.ID,
		AgentID: agent.ID, ActorID: member.ID, ProjectID: &b.team.Project.ID, CardID: &card.ID,
		Source: mission.MissionSourceAgent, Objective: "Comment"})
	require.NoError(t, err)
	_, err = b.Missions.StartMission(ctx, m.ID)
	require.NoError(t, err)
	out, err := b.Missions.RunMissionStep(ctx, mission.StepInput{MissionID: m.ID, StepKey: "turn1:0",
		Tool: "add_comment", Args: json.RawMessage(`{"content":"Planned"}`)})
	require.NoError(t, err)
	require.Equal(t, mission.StepApplied, out.Outcome)
	_, err = b.Board.CreateComment(ctx, db.CardEdit{ProjectID: b.team.Project.ID, CardID: card.ID,
		ActorID: member.ID}, "Thanks")
	require.NoError(t, err)

	ds := b.deliveries(t, w.ID)
	require.Len(t, ds, 2)
	for _, d := range ds {
		_, err := b.eng.Attempt(ctx, d.ID)
		require.NoError(t, err)
	}
	got := rcv.requests()
	require.Len(t, got, 2)
	type payload struct {
		Data struct {
			ActorID    *string `json:"actorId"`
			ActorType  string  `json:"actorType"`
			Agent      *struct{ ID, Name string }
			OnBehalfOf *struct{ ID, Name string }
		}
	}
	var byAgent, byMember payload
	require.NoError(t, json.Unmarshal(got[0].body, &byAgent))
	require.NoError(t, json.Unmarshal(got[1].body, &byMember))
	require.Equal(t, agent.UserID, *byAgent.Data.ActorID, "actorId keeps its value: the agent's user")
	require.Equal(t, "agent", byAgent.Data.ActorType)
	require.Equal(t, &struct{ ID, Name string }{agent.ID, "Planner"}, byAgent.Data.Agent)
	require.Equal(t, &struct{ ID, Name string }{member.ID, member.Name}, byAgent.Data.OnBehalfOf)
	require.Equal(t, member.ID, *byMember.Data.ActorID)
	require.Equal(t, "person", byMember.Data.ActorType)
	require.Nil(t, byMember.Data.Agent)
	require.Nil(t, byMember.Data.OnBehalfOf)
	require.Contains(t, string(got[1].body), `"agent":null,"onBehalfOf":null`, "both fields are always there")
}

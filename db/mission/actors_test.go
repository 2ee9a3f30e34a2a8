package mission_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// What an agent does is recorded as the agent's, for the member who started the mission: its card's
// history, the feed, its comments; a proposal's action is for the person who approved it; a person's
// change stays a person's.
func TestAgentActsForAPerson(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	a := e.agent(t, &testfactory.AgentOpts{Name: testfactory.Ptr("Planner"),
		AutonomyMode: testfactory.Ptr(mission.AutonomyAutonomous)})
	m := e.running(t, a)
	require.Equal(t, mission.StepApplied, e.step(t, m.ID, "turn1:0", "add_comment",
		map[string]any{"content": "Done by the planner"}).Outcome)
	_, err := e.Board.CreateComment(ctx, db.CardEdit{ProjectID: e.team.Project.ID, CardID: e.card.ID,
		ActorID: e.team.Owner.User.ID}, "Thanks")
	require.NoError(t, err)

	member := e.team.Member.User
	comments, err := e.Board.Comments(ctx, e.team.Project.ID, e.card.ID, db.Page{Limit: 10})
	require.NoError(t, err)
	require.Len(t, comments.Items, 2)
	byAgent, byOwner := comments.Items[0], comments.Items[1]
	require.Equal(t, db.ActorAgent, byAgent.AuthorType())
	require.Equal(t, &member.ID, byAgent.OnBehalfOf)
	require.Equal(t, member.Name, byAgent.OnBehalfOfName)
	require.Equal(t, db.ActorPerson, byOwner.AuthorType())
	require.Nil(t, byOwner.OnBehalfOf)

	hist, err := e.Board.CardHistory(ctx, e.team.Project.ID, e.card.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	kinds := map[string]board.CardActivity{}
	for _, h := range hist.Items {
		if h.Type == db.ActivityCommentAdded && h.ActorID != nil && *h.ActorID == a.UserID {
			kinds["agent comment"] = h
		} else if h.Type == db.ActivityCommentAdded {
			kinds["owner comment"] = h
		}
	}
	got := kinds["agent comment"].Actor()
	require.Equal(t, db.ActorAgent, got.Type())
	require.Equal(t, &db.AgentRef{ID: &a.ID, Name: "Planner"}, got.AgentRef())
	require.Equal(t, &db.PersonRef{ID: member.ID, Name: member.Name}, got.PersonRef())
	got = kinds["owner comment"].Actor()
	require.Equal(t, db.ActorPerson, got.Type())
	require.Nil(t, got.AgentRef())
	require.Nil(t, got.PersonRef())

	// The feed (and so webhooks) carry the same: the mission's status changes too are the agent's.
	evs, err := e.Store.EventsAfter(ctx, e.ws(), 0, 0, 200)
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.ActorID == nil || *ev.ActorID != a.UserID {
			require.NotEqual(t, db.ActorAgent, ev.ActorType, ev.Type)
			continue
		}
		seen[ev.Type] = true
		require.Equal(t, db.ActorAgent, ev.ActorType, ev.Type)
		require.Equal(t, &db.AgentRef{ID: &a.ID, Name: "Planner"}, ev.Agent, ev.Type)
		require.Equal(t, &db.PersonRef{ID: member.ID, Name: member.Name}, ev.OnBehalfOf, ev.Type)
	}
	require.True(t, seen[db.ActivityCommentAdded])
	require.True(t, seen[db.ActivityMissionStatusChanged])
}

// An approved proposal is applied by the agent for the person who approved it.
func TestApprovedActionIsForTheApprover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	_, ids := approvalMission(t, e)
	owner := e.team.Owner.User
	_, err := e.engine.DecideProposal(ctx, e.ws(), ids["update_card"], mission.Decider{UserID: owner.ID, Reviewer: true},
		true, "")
	require.NoError(t, err)
	hist, err := e.Board.CardHistory(ctx, e.team.Project.ID, e.card.ID, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Equal(t, db.ActivityCardUpdated, hist.Items[0].Type)
	got := hist.Items[0].Actor()
	require.Equal(t, db.ActorAgent, got.Type())
	require.Equal(t, &db.PersonRef{ID: owner.ID, Name: owner.Name}, got.PersonRef())
}

package mission_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// relay starts a stream relay on the bundle's database: what api processes serve streams live from.
func (e *env) relay(t *testing.T) *stream.Relay {
	t.Helper()
	r := stream.Start(context.Background(), e.Store, stream.Config{})
	t.Cleanup(r.Close)
	<-r.Listening()
	return r
}

// ask makes a running mission of agent ask its requester, as the runner does.
func (e *env) ask(t *testing.T, m db.AgentMission, timeout time.Duration) db.AgentMission {
	t.Helper()
	msgs, err := json.Marshal([]map[string]any{{"Role": "system", "Content": "You are an agent."},
		{"Role": "assistant", "Content": "I will plan it once I know.", "ToolCalls": []map[string]any{{"ID": "call_1",
			"Name": "ask_user", "Arguments": map[string]any{"question": "Which first?"}}}}})
	require.NoError(t, err)
	out, err := e.engine.AskQuestion(context.Background(), mission.Ask{MissionID: m.ID, Question: "Which first?",
		Options: []string{"Tests", "Docs"}, Timeout: timeout,
		Conversation: mission.Conversation{Turn: 1, Messages: msgs, AskCallID: "call_1"}})
	require.NoError(t, err)
	return out
}

// age makes a mission's events (and start) look older by d, as if its worker had been silent that long.
func (e *env) age(t *testing.T, missionID string, d time.Duration) {
	t.Helper()
	_, err := e.Pool.Exec(context.Background(), `UPDATE stream_events SET created_at = created_at - $2::interval
		WHERE stream_id = $1`, missionID, d.String())
	require.NoError(t, err)
	_, err = e.Pool.Exec(context.Background(), `UPDATE agent_missions SET started_at = started_at - $2::interval
		WHERE id = $1`, missionID, d.String())
	require.NoError(t, err)
}

// Every decision that ends a mission appends the done event reporting its final status, in its own
// transaction: the last approval, the last rejection, a stop from each unfinished status, an unanswered
// question's expiry and a failure. A subscriber following the stream live receives that done event (and
// nothing after it), and a replay of the stream ends with it, so the stream is over.
func TestEveryEndAppendsItsDoneEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	r := e.relay(t)
	approval := func() (db.AgentMission, []db.AgentProposal) {
		m := e.running(t, e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("a-" + db.NewID()[24:]),
			AutonomyMode: testfactory.Ptr(mission.AutonomyApproval)}))
		e.step(t, m.ID, "turn1:0", "add_comment", map[string]any{"content": "Plan"})
		e.step(t, m.ID, "turn1:1", "update_card", map[string]any{"priority": "high"})
		m, err := e.engine.FinishMission(ctx, m.ID, "", "")
		require.NoError(t, err)
		require.EqualValues(t, db.MissionAwaitingApproval, m.Status)
		ps, err := e.engine.MissionProposals(ctx, e.ws(), m.ID)
		require.NoError(t, err)
		return m, ps
	}
	requester := mission.Decider{UserID: e.team.Member.User.ID}
	stop := func(m db.AgentMission) {
		_, err := e.engine.StopMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: m.ID, ActorID: e.team.Owner.User.ID},
			db.StopPerson)
		require.NoError(t, err)
	}
	fresh := func() db.AgentMission {
		return e.running(t, e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("r-" + db.NewID()[24:])}))
	}
	cases := []struct {
		name string
		// prepare brings a mission to the decision; end makes it.
		prepare func() db.AgentMission
		end     func(db.AgentMission)
		final   db.MissionStatus
	}{
		{"last approval", func() db.AgentMission {
			m, ps := approval()
			_, err := e.engine.DecideProposal(ctx, e.ws(), ps[0].ID, requester, false, "")
			require.NoError(t, err)
			return m
		}, func(m db.AgentMission) {
			ps, _ := e.engine.MissionProposals(ctx, e.ws(), m.ID)
			_, err := e.engine.DecideProposal(ctx, e.ws(), ps[1].ID, requester, true, "")
			require.NoError(t, err)
		}, db.MissionCompleted},
		{"last rejection", func() db.AgentMission {
			m, ps := approval()
			_, err := e.engine.DecideProposal(ctx, e.ws(), ps[0].ID, requester, true, "")
			require.NoError(t, err)
			return m
		}, func(m db.AgentMission) {
			ps, _ := e.engine.MissionProposals(ctx, e.ws(), m.ID)
			_, err := e.engine.DecideProposal(ctx, e.ws(), ps[1].ID, requester, false, "no")
			require.NoError(t, err)
		}, db.MissionCompleted},
		{"stop queued", func() db.AgentMission {
			return e.cardMission(t, e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("q-" + db.NewID()[24:])}))
		}, stop, db.MissionStopped},
		{"stop running", fresh, stop, db.MissionStopped},
		{"stop awaiting approval", func() db.AgentMission { m, _ := approval(); return m }, stop, db.MissionStopped},
		{"stop awaiting input", func() db.AgentMission { return e.ask(t, fresh(), time.Hour) }, stop, db.MissionStopped},
		{"stop stale", func() db.AgentMission {
			m := fresh()
			e.age(t, m.ID, time.Hour)
			_, err := e.engine.MarkStaleMissions(ctx, time.Minute)
			require.NoError(t, err)
			return m
		}, stop, db.MissionStopped},
		{"expiry", func() db.AgentMission { return e.ask(t, fresh(), time.Millisecond) }, func(m db.AgentMission) {
			expired, err := e.engine.ExpireMissionInput(ctx, m.ID)
			require.NoError(t, err)
			require.True(t, expired)
		}, db.MissionExpired},
		{"failure", fresh, func(m db.AgentMission) {
			_, err := e.engine.FinishMission(ctx, m.ID, "", "the model broke")
			require.NoError(t, err)
		}, db.MissionFailed},
	}
	for _, c := range cases {
		m := c.prepare()
		before, err := e.Store.StreamState(ctx, m.ID)
		require.NoError(t, err)
		require.False(t, db.StreamMission.Ends(before.LastStatus), "%s: the stream is open before", c.name)
		sub, err := r.Subscribe(ctx, m.ID)
		require.NoError(t, err)
		c.end(m)
		// Live: the events of the decision arrive, the last one the done event with the final status.
		var live *stream.Event
		for live == nil || live.Type != db.MissionEventDone {
			select {
			case ev := <-sub.C:
				require.False(t, db.StreamMission.Ends(ev.Status) && ev.Type != db.MissionEventDone,
					"%s: only the done event ends the stream: %+v", c.name, ev)
				live = ev
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: no done event on the live stream", c.name)
			}
		}
		sub.Close()
		require.EqualValues(t, c.final, live.Status, c.name)
		// Replayed: the stream ends with the same done event.
		evs, err := e.Store.StreamEventsAfter(ctx, m.ID, 0, 1000)
		require.NoError(t, err)
		last := evs[len(evs)-1]
		require.Equal(t, db.MissionEventDone, last.Type, c.name)
		require.EqualValues(t, c.final, last.Status, c.name)
		require.Equal(t, live.Seq, last.Seq, "%s: the live done event is the stream's last", c.name)
		require.True(t, last.Final, c.name)
		got, err := e.engine.Mission(ctx, e.ws(), m.ID)
		require.NoError(t, err)
		require.EqualValues(t, c.final, got.Status, c.name)
		require.True(t, db.MissionStatus(got.Status).Final(), c.name)
		require.NotNil(t, got.FinishedAt, c.name)
	}
}

// A stop keeps what the mission applied, rejects what it proposed, cancels its job and says why; the
// runner's next turn or step sees it stopped.
func TestStopKeepsAppliedAndRejectsPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m := e.running(t, e.agent(t, nil)) // supervised: comments apply, card updates are proposed
	require.Equal(t, mission.StepApplied, e.step(t, m.ID, "turn1:0", "add_comment",
		map[string]any{"content": "Started"}).Outcome)
	require.Equal(t, mission.StepProposed, e.step(t, m.ID, "turn1:1", "update_card",
		map[string]any{"priority": "high"}).Outcome)

	s, err := e.engine.StopMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: m.ID, ActorID: e.team.Member.User.ID},
		db.StopPerson)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionStopped, s.Status)
	require.Equal(t, testfactory.Ptr("person"), s.StopReason)
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM comments WHERE card_id = $1`, e.card.ID), "applied stays")
	ps, err := e.engine.MissionProposals(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.EqualValues(t, mission.ProposalRejected, ps[0].Status)
	require.NotEqual(t, "high", e.readCard(t).Priority)
	require.Equal(t, "cancelled", e.Jobs(t, jobs.MissionArgs{}.Kind())[0].State)
	require.ErrorIs(t, e.engine.MissionTurn(ctx, m.ID, 2), mission.ErrMissionStopped)
	_, err = e.engine.RunMissionStep(ctx, mission.StepInput{MissionID: m.ID, StepKey: "turn2:0", Tool: "add_comment",
		Args: raw(t, map[string]any{"content": "x"})})
	require.ErrorIs(t, err, mission.ErrMissionStopped)
	_, err = e.engine.AskQuestion(ctx, mission.Ask{MissionID: m.ID, Question: "?"})
	require.ErrorIs(t, err, mission.ErrMissionStopped)
}

// A question moves the running mission to awaiting_input with its question event, notifies the requester
// and schedules its expiry; the answer resumes it under a new job, the conversation saved with the
// answer for the model, and the worker picks it up from there.
func TestAskAndReply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m := e.running(t, e.agent(t, nil))
	before := time.Now()
	asked := e.ask(t, m, time.Hour)
	require.EqualValues(t, db.MissionAwaitingInput, asked.Status)
	q := mission.PendingQuestion(asked)
	require.NotNil(t, q)
	require.Equal(t, "Which first?", q.Question)
	require.Equal(t, []string{"Tests", "Docs"}, q.Options)
	require.WithinDuration(t, before.Add(time.Hour), q.Deadline, time.Minute)
	require.Equal(t, []string{"status:queued", "status:running", "ack:running", "question:awaiting_input"},
		e.Events(t, m.ID))
	msg, data := e.LastEvent(t, m.ID)
	require.Equal(t, "Which first?", msg)
	require.Equal(t, []any{"Tests", "Docs"}, data["options"])
	// The requester (the member) is notified: the activity names them alone.
	require.Equal(t, 1, e.Count(t, `SELECT count(*) FROM activities WHERE type = 'mission_question'
		AND $1::uuid = ANY(recipients) AND NOT notify_members AND meta->>'missionId' = $2`,
		e.team.Member.User.ID, m.ID))
	exp := e.Jobs(t, jobs.MissionInputExpiryArgs{}.Kind())
	require.Len(t, exp, 1)
	require.WithinDuration(t, q.Deadline, exp[0].ScheduledAt, time.Second)
	require.ErrorIs(t, e.engine.MissionTurn(ctx, m.ID, 2), mission.ErrMissionStopped, "the runner stops asking")
	run, err := e.engine.StartMission(ctx, m.ID)
	require.NoError(t, err)
	require.False(t, run.Proceed, "nothing to run while the question waits")

	edit := db.RecordEdit{WorkspaceID: e.ws(), ID: m.ID, ActorID: e.team.Member.User.ID}
	_, err = e.engine.ReplyMission(ctx, edit, "  ")
	require.ErrorIs(t, err, db.ErrInvalid)
	_, err = e.engine.ReplyMission(ctx, db.RecordEdit{WorkspaceID: e.team.Member.Workspace.ID, ID: m.ID,
		ActorID: e.team.Member.User.ID}, "Tests")
	require.ErrorIs(t, err, db.ErrNotFound, "another workspace's mission")

	got, err := e.engine.ReplyMission(ctx, edit, "Tests")
	require.NoError(t, err)
	require.EqualValues(t, db.MissionRunning, got.Status)
	require.Nil(t, mission.PendingQuestion(got))
	require.NotEqual(t, m.JobID, got.JobID, "a new job resumes it")
	js := e.Jobs(t, jobs.MissionArgs{}.Kind())
	require.Len(t, js, 2)
	require.Equal(t, *got.JobID, js[1].ID)
	msg, data = e.LastEvent(t, m.ID)
	require.Equal(t, "answer received; the mission goes on", msg)
	require.Equal(t, "Tests", data["answer"])
	_, err = e.engine.ReplyMission(ctx, edit, "Docs")
	require.ErrorIs(t, err, db.ErrConflict, "answered already")

	run, err = e.engine.StartMission(ctx, m.ID)
	require.NoError(t, err)
	require.True(t, run.Proceed)
	require.NotNil(t, run.Conversation)
	require.Equal(t, 1, run.Conversation.Turn)
	require.Equal(t, "call_1", run.Conversation.AskCallID)
	require.Equal(t, testfactory.Ptr("Tests"), run.Conversation.Answer)
	_, data = e.LastEvent(t, m.ID)
	require.Equal(t, "I will plan it once I know.", data["plan"], "the ack carries the model's plan")

	// The expiry job of the answered question finds nothing to do.
	expired, err := e.engine.ExpireMissionInput(ctx, m.ID)
	require.NoError(t, err)
	require.False(t, expired)
}

// An unanswered question expires the mission only past its deadline.
func TestExpireMissionInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	m := e.ask(t, e.running(t, e.agent(t, nil)), time.Hour)
	expired, err := e.engine.ExpireMissionInput(ctx, m.ID)
	require.NoError(t, err)
	require.False(t, expired, "before the deadline")
	_, err = e.Pool.Exec(ctx, `UPDATE agent_missions SET input_deadline = now() - interval '1 second' WHERE id = $1`, m.ID)
	require.NoError(t, err)
	expired, err = e.engine.ExpireMissionInput(ctx, m.ID)
	require.NoError(t, err)
	require.True(t, expired)
	got, err := e.engine.Mission(ctx, e.ws(), m.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionExpired, got.Status)
	msg, data := e.LastEvent(t, m.ID)
	require.Equal(t, "mission expired: its question went unanswered", msg)
	require.Equal(t, "Which first?", data["question"])
	_, err = e.engine.ReplyMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: m.ID, ActorID: e.team.Owner.User.ID}, "x")
	require.ErrorIs(t, err, db.ErrConflict)
}

// A running mission without an event past the threshold is marked stale (an MCP client's claimed one is
// not: its claim has its own expiry); a person resumes it under a new job, and a worker that comes back
// to one resumes it itself.
func TestStaleMissions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	silent := e.running(t, e.agent(t, nil))
	lively := e.running(t, e.agent(t, &testfactory.AgentOpts{Slug: testfactory.Ptr("lively")}))
	e.age(t, silent.ID, 10*time.Minute)
	stale, err := e.engine.MarkStaleMissions(ctx, 5*time.Minute)
	require.NoError(t, err)
	require.Len(t, stale, 1)
	require.Equal(t, silent.ID, stale[0].ID)
	got, err := e.engine.Mission(ctx, e.ws(), lively.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionRunning, got.Status)
	evs := e.Events(t, silent.ID)
	require.Equal(t, "status:stale", evs[len(evs)-1])

	_, err = e.engine.ResumeMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: lively.ID, ActorID: e.team.Owner.User.ID})
	require.ErrorIs(t, err, db.ErrConflict, "not stale")
	resumed, err := e.engine.ResumeMission(ctx, db.RecordEdit{WorkspaceID: e.ws(), ID: silent.ID,
		ActorID: e.team.Owner.User.ID})
	require.NoError(t, err)
	require.EqualValues(t, db.MissionRunning, resumed.Status)
	require.NotEqual(t, silent.JobID, resumed.JobID)
	states := map[int64]string{}
	for _, j := range e.Jobs(t, jobs.MissionArgs{}.Kind()) {
		states[j.ID] = j.State
	}
	require.Equal(t, "cancelled", states[*silent.JobID], "the silent worker's job is cancelled")
	require.Equal(t, "available", states[*resumed.JobID])

	// The worker comes back on its own: its next turn finds the mission stale and runs it again.
	e.age(t, silent.ID, 10*time.Minute)
	_, err = e.engine.MarkStaleMissions(ctx, 5*time.Minute)
	require.NoError(t, err)
	require.NoError(t, e.engine.MissionTurn(ctx, silent.ID, 2))
	got, err = e.engine.Mission(ctx, e.ws(), silent.ID)
	require.NoError(t, err)
	require.EqualValues(t, db.MissionRunning, got.Status)
	evs = e.Events(t, silent.ID)
	require.Equal(t, []string{"status:stale", "status:running"}, evs[len(evs)-2:])
	// A River retry of its job does the same through StartMission.
	e.age(t, silent.ID, 10*time.Minute)
	_, err = e.engine.MarkStaleMissions(ctx, 5*time.Minute)
	require.NoError(t, err)
	run, err := e.engine.StartMission(ctx, silent.ID)
	require.NoError(t, err)
	require.True(t, run.Proceed)
	require.EqualValues(t, db.MissionRunning, run.Mission.Status)
	evs = e.Events(t, silent.ID)
	require.Equal(t, []string{"status:stale", "status:running", "ack:running"}, evs[len(evs)-3:])
}

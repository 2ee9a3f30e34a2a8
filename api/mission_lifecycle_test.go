package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
)

// askingMission makes a running mission ask its requester, as the runner does when its model calls
// ask_user.
func (s *streamServer) askingMission(u user) string {
	s.t.Helper()
	m := s.newTestMission(u, "running")
	_, err := s.eng.Missions.AskQuestion(context.Background(), mission.Ask{MissionID: m, Question: "Which first?",
		Options: []string{"Tests", "Docs"}, Conversation: mission.Conversation{Turn: 1, Messages: json.RawMessage(`[]`),
			AskCallID: "call_1"}})
	require.NoError(s.t, err)
	return m
}

// untilDone reads a stream to its done event and answers it; the stream must end right after.
func untilDone(t *testing.T, st *ssetest.Stream) stream.Event {
	t.Helper()
	for {
		f := st.NextEvent(t, streamWait)
		ev := decodeJSON[stream.Event](t, []byte(f.Data))
		if f.Event == db.MissionEventDone {
			st.RequireEnd(t, streamWait)
			return ev
		}
		require.False(t, db.StreamMission.Ends(ev.Status), "only a done event ends the stream: %+v", ev)
	}
}

// Every way a mission ends through the API ends its stream, `GET …/missions/{id}/events`, with the done
// event of its final status: on the stream followed live while it happens, and on a stream opened after
// (replayed from the first event, then the end). stop and cancel are one operation; a stop of a stopped
// mission conflicts.
func TestMissionStreamsEndWithTheirFinalStatus(t *testing.T) {
	t.Parallel()
	s := newStreamServer(t, nil, stream.Config{})
	u := s.register("ada@example.com")
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		mission func() string
		end     func(id string)
		final   db.MissionStatus
	}{
		{"stop", func() string { return s.newTestMission(u, "running") }, func(id string) {
			requireStatus(t, s.do("POST", wsOf(u)+"/missions/"+id+"/stop", u.Token, nil), http.StatusOK)
		}, db.MissionStopped},
		{"cancel is stop", func() string { return s.newTestMission(u, "queued") }, func(id string) {
			r := s.do("POST", wsOf(u)+"/missions/"+id+"/cancel", u.Token, nil)
			requireStatus(t, r, http.StatusOK)
			require.EqualValues(t, "stopped", decode[MissionOut](t, r).Status)
		}, db.MissionStopped},
		{"stop awaiting input", func() string { return s.askingMission(u) }, func(id string) {
			requireStatus(t, s.do("POST", wsOf(u)+"/missions/"+id+"/stop", u.Token, nil), http.StatusOK)
		}, db.MissionStopped},
		{"stop awaiting approval", func() string { return s.newTestMission(u, "awaiting_approval") }, func(id string) {
			requireStatus(t, s.do("POST", wsOf(u)+"/missions/"+id+"/stop", u.Token, nil), http.StatusOK)
		}, db.MissionStopped},
		{"expiry", func() string { return s.askingMission(u) }, func(id string) {
			_, err := s.pool.Exec(ctx, `UPDATE agent_missions SET input_deadline = now() - interval '1 second'
				WHERE id = $1`, id)
			require.NoError(t, err)
			expired, err := s.eng.Missions.ExpireMissionInput(ctx, id)
			require.NoError(t, err)
			require.True(t, expired)
		}, db.MissionExpired},
		{"failure", func() string { return s.newTestMission(u, "running") }, func(id string) {
			_, err := s.eng.Missions.FinishMission(ctx, id, "", "the model broke")
			require.NoError(t, err)
		}, db.MissionFailed},
	} {
		id := c.mission()
		s.emit(id, "status", string(db.MissionRunning), "on it") // a stream with an event before the end
		st := s.open(u, id, nil)
		c.end(id)
		live := untilDone(t, st)
		require.EqualValues(t, c.final, live.Status, c.name)
		replay := untilDone(t, s.open(u, id, nil))
		require.Equal(t, live.Seq, replay.Seq, c.name)
		require.EqualValues(t, c.final, replay.Status, c.name)
		got := s.mission(u, id)
		require.EqualValues(t, c.final, got.Status, c.name)
		if c.final == db.MissionStopped {
			require.EqualValues(t, db.StopPerson, *got.StopReason, c.name)
			requireStatus(t, s.do("POST", wsOf(u)+"/missions/"+id+"/stop", u.Token, nil), http.StatusConflict)
		}
	}
}

// A question is shown on the mission (question, options, deadline); the answer through the API
// resumes it; the worker then completes it, and its stream, followed from the question, ends done.
func TestMissionReplyResumesIt(t *testing.T) {
	t.Parallel()
	s := newStreamServer(t, nil, stream.Config{})
	owner, _, prj, cols := s.team()
	a := s.agent(owner, "asker", map[string]any{"autonomyMode": "autonomous"})
	r := s.do("POST", prj+"/columns/"+cols[0]+"/cards", owner.Token, map[string]any{"title": "Pick a database?",
		"description": "- Compare options\n- Benchmark"})
	requireStatus(t, r, http.StatusCreated)
	card := decode[CardOut](t, r)
	m := s.startMission(owner, a.ID, card.ID)
	st := s.open(owner, m.ID, nil)
	s.startWorker()
	got := s.waitMission(owner, m.ID, "awaiting_input")
	require.NotNil(t, got.Question)
	require.Equal(t, `What should I focus on first for "Pick a database?"?`, got.Question.Question)
	require.Equal(t, []string{"Compare options", "Benchmark"}, got.Question.Options)
	require.WithinDuration(t, time.Now().Add(mission.DefaultInputTimeout), got.Question.Deadline, time.Minute)

	requireStatus(t, s.do("POST", wsOf(owner)+"/missions/"+m.ID+"/reply", owner.Token, map[string]any{"answer": ""}),
		http.StatusBadRequest)
	requireStatus(t, s.do("POST", wsOf(owner)+"/missions/"+m.ID+"/resume", owner.Token, nil), http.StatusConflict)
	r = s.do("POST", wsOf(owner)+"/missions/"+m.ID+"/reply", owner.Token, map[string]any{"answer": "Benchmark"})
	requireStatus(t, r, http.StatusOK)
	resumed := decode[MissionOut](t, r)
	require.EqualValues(t, "running", resumed.Status)
	require.Nil(t, resumed.Question)
	requireStatus(t, s.do("POST", wsOf(owner)+"/missions/"+m.ID+"/reply", owner.Token, map[string]any{"answer": "x"}),
		http.StatusConflict)
	done := untilDone(t, st)
	require.EqualValues(t, db.MissionCompleted, done.Status)
	require.Contains(t, s.fixtures().EventsButTokens(t, m.ID), "question:awaiting_input")
}

// A stale mission (no event for MISSION_STALE_AFTER) is resumed through the API under a new job.
func TestMissionResumeStale(t *testing.T) {
	t.Parallel()
	s := newStreamServer(t, nil, stream.Config{})
	u := s.register("ada@example.com")
	id := s.newTestMission(u, "running")
	s.emit(id, "status", "running", "on it")
	_, err := s.pool.Exec(context.Background(), `UPDATE stream_events SET created_at = now() - interval '1 hour'
		WHERE stream_id = $1`, id)
	require.NoError(t, err)
	stale, err := s.eng.Missions.MarkStaleMissions(context.Background(), time.Minute)
	require.NoError(t, err)
	require.Len(t, stale, 1)
	require.EqualValues(t, "stale", s.mission(u, id).Status)
	r := s.do("POST", wsOf(u)+"/missions/"+id+"/resume", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "running", decode[MissionOut](t, r).Status)
	requireStatus(t, s.do("POST", wsOf(u)+"/missions/"+id+"/resume", u.Token, nil), http.StatusConflict)
	requireStatus(t, s.do("POST", wsOf(u)+"/missions/"+db.NewID()+"/resume", u.Token, nil), http.StatusNotFound)
}

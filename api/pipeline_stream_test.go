package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
	"github.com/pilot-dev/pilot/workers"
)

// runEvent is the data of a run stream event.
type runEventData struct {
	StepID string         `json:"stepId"`
	Status string         `json:"status"`
	Output map[string]any `json:"output"`
	Error  string         `json:"error"`
}

func TestPipelineRunEventsThroughTheRelay(t *testing.T) {
	s := newStreamServer(t, nil, stream.Config{})
	client, _, err := workers.NewClient(s.pool, workers.Config{Concurrency: 4,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	require.NoError(t, client.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(ctx)
	})
	owner := s.register("owner@example.com")
	prj, _ := s.project(owner, "Shared")
	pid := path.Base(prj)
	p := s.createPipeline(owner, map[string]any{"name": "Diamond", "steps": []pstep{notifyStep("a", pid), notifyStep("b",
		pid, "a"), notifyStep("c", pid, "a"), notifyStep("d", pid, "b", "c")}})
	runs := wsOf(owner) + "/pipelines/" + p.ID + "/runs"
	r := s.do("POST", runs, owner.Token, nil)
	requireStatus(t, r, http.StatusCreated)
	run := decode[RunOut](t, r)

	open := func(header map[string]string) *ssetest.Stream {
		h := map[string]string{"Authorization": "Bearer " + owner.Token}
		for k, v := range header {
			h[k] = v
		}
		st := ssetest.Open(t, s.url+runs+"/"+run.ID+"/events", h)
		require.Equal(t, http.StatusOK, st.Resp.StatusCode)
		require.Equal(t, "ok", st.Next(t, streamWait).Comment)
		return st
	}
	st := open(nil)
	var order []string
	var last stream.Event
	for {
		f := st.NextEvent(t, streamWait)
		ev := decodeJSON[stream.Event](t, []byte(f.Data))
		require.Equal(t, run.ID, ev.StreamID)
		require.Equal(t, "runId", ev.IDField)
		require.Equal(t, f.Event, ev.Type)
		last = ev
		if ev.Type == "done" {
			break
		}
		if ev.Type == "step" {
			d := decodeJSON[runEventData](t, ev.Data)
			require.EqualValues(t, "completed", d.Status)
			require.Equal(t, float64(0), d.Output["recipients"]) // the owner is alone in the workspace
			order = append(order, d.StepID)
		} else {
			require.Equal(t, "status", ev.Type)
			require.EqualValues(t, "running", ev.Status)
		}
	}
	st.RequireEnd(t, streamWait)
	require.EqualValues(t, "completed", last.Status)
	require.Len(t, order, 4)
	require.Equal(t, "a", order[0])
	require.ElementsMatch(t, []string{"b", "c"}, order[1:3])
	require.Equal(t, "d", order[3])

	// A client that reconnects with Last-Event-ID gets what it missed, then the end.
	st = open(map[string]string{"Last-Event-ID": "4"})
	require.Equal(t, "step", st.NextEvent(t, streamWait).Event)
	require.Equal(t, "done", st.NextEvent(t, streamWait).Event)
	st.RequireEnd(t, streamWait)

	other := s.register("other@example.com")
	requireStatus(t, s.do("GET", wsOf(other)+"/pipelines/"+p.ID+"/runs/"+run.ID+"/events", other.Token, nil),
		http.StatusNotFound)
}

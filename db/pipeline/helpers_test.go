package pipeline_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// env is a team (owner and member sharing a project) on a fresh database with the pipelines engine.
type env struct {
	testfactory.Bundle
	engine *pipeline.Engine
	team   testfactory.Team
}

func setup(t *testing.T) *env {
	t.Helper()
	b := testfactory.Store(t)
	return &env{Bundle: *b, engine: b.Pipelines, team: testfactory.NewTeam(t, b.Engines)}
}

func (e *env) ws() string    { return e.team.Owner.Workspace.ID }
func (e *env) owner() string { return e.team.Owner.User.ID }

// step is a step of a test pipeline.
type step struct {
	ID     string         `json:"id"`
	Type   string         `json:"type"`
	Params map[string]any `json:"params,omitempty"`
	Needs  []string       `json:"needs,omitempty"`
}

func notify(id, projectID string, needs ...string) step {
	return step{ID: id, Type: "notify", Params: map[string]any{"projectId": projectID, "message": "step " + id},
		Needs: needs}
}

func jsonOf(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// pipeline creates an enabled pipeline of the team's workspace as its owner.
func (e *env) pipeline(t *testing.T, steps ...step) db.Pipeline {
	t.Helper()
	p, err := e.engine.CreatePipeline(context.Background(), e.ws(), e.owner(), pipeline.NewPipeline{Name: "Release",
		Steps: jsonOf(t, steps), Enabled: true})
	require.NoError(t, err)
	return p
}

// start starts a run of p as the owner.
func (e *env) start(t *testing.T, p db.Pipeline) pipeline.RunWithSteps {
	t.Helper()
	r, err := e.engine.StartRun(context.Background(), db.RecordEdit{WorkspaceID: e.ws(), ID: p.ID, ActorID: e.owner()})
	require.NoError(t, err)
	return r
}

func ref(r pipeline.RunWithSteps) pipeline.RunRef {
	return pipeline.RunRef{WorkspaceID: r.Run.WorkspaceID, PipelineID: r.Run.PipelineID, RunID: r.Run.ID}
}

// read reads a run again.
func (e *env) read(t *testing.T, r pipeline.RunWithSteps) pipeline.RunWithSteps {
	t.Helper()
	out, err := e.engine.Run(context.Background(), ref(r))
	require.NoError(t, err)
	return out
}

// drive works the run's queued steps as workers would, in step order, until none is queued (a step
// waiting for a mission or a draft stays waiting); it answers the run.
func (e *env) drive(t *testing.T, r pipeline.RunWithSteps) pipeline.RunWithSteps {
	t.Helper()
	for range 100 {
		cur := e.read(t, r)
		worked := false
		for _, st := range cur.Steps {
			if st.Status == pipeline.StepQueued {
				require.NoError(t, e.engine.RunStep(context.Background(), r.Run.ID, st.StepID))
				worked = true
			}
		}
		if !worked {
			return cur
		}
	}
	t.Fatal("the run never settled")
	return r
}

// statuses maps a run's step ids to their statuses.
func statuses(r pipeline.RunWithSteps) map[string]string {
	out := map[string]string{}
	for _, st := range r.Steps {
		out[st.StepID] = st.Status
	}
	return out
}

// stepOf finds a step of a run.
func stepOf(t *testing.T, r pipeline.RunWithSteps, id string) db.PipelineRunStep {
	t.Helper()
	for _, st := range r.Steps {
		if st.StepID == id {
			return st
		}
	}
	t.Fatalf("no step %s", id)
	return db.PipelineRunStep{}
}

// output decodes a step's output.
func output(t *testing.T, r pipeline.RunWithSteps, id string) map[string]any {
	t.Helper()
	out := map[string]any{}
	require.NoError(t, json.Unmarshal(stepOf(t, r, id).Output, &out))
	return out
}

package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/stepgraph"
	"github.com/pilot-dev/pilot/internal/stream"
)

// StepIn is a step of a pipeline's graph.
type StepIn struct {
	ID     string          `json:"id" doc:"Unique within the pipeline: 1 to 64 letters, digits, - or _"`
	Type   string          `json:"type" doc:"A step type of GET …/pipelines/step-types"`
	Params json.RawMessage `json:"params" required:"false" doc:"The type's parameters (object; default {})"`
	Needs  []string        `json:"needs" required:"false" doc:"Ids of the steps this one waits for (default none)"`
}

// PipelineOut is a pipeline with its step graph.
type PipelineOut struct {
	ID          string          `json:"id"`
	WorkspaceID string          `json:"workspaceId"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Steps       json.RawMessage `json:"steps" doc:"The step graph: [{id, type, params, needs}]"`
	Enabled     bool            `json:"enabled"`
	CreatedBy   string          `json:"createdBy"`
	CreatedAt   time.Time       `json:"createdAt"`
	UpdatedAt   time.Time       `json:"updatedAt"`
}

func pipelineOut(p db.Pipeline) PipelineOut {
	return PipelineOut{ID: p.ID, WorkspaceID: p.WorkspaceID, Name: p.Name, Description: p.Description, Steps: p.Steps,
		Enabled: p.Enabled, CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// RunOut is a pipeline run with the status of each step.
type RunOut struct {
	ID           string       `json:"id"`
	PipelineID   string       `json:"pipelineId"`
	PipelineName string       `json:"pipelineName"`
	Status       string       `json:"status" enum:"running,completed,failed,cancelled"`
	Error        *string      `json:"error" nullable:"true" doc:"Why the run failed: the step and its reason"`
	StartedBy    string       `json:"startedBy"`
	CreatedAt    time.Time    `json:"createdAt"`
	FinishedAt   *time.Time   `json:"finishedAt" nullable:"true"`
	CancelledAt  *time.Time   `json:"cancelledAt" nullable:"true"`
	Steps        []RunStepOut `json:"steps"`
}

// RunStepOut is a step of a run.
type RunStepOut struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Needs      []string        `json:"needs"`
	Status     string          `json:"status" enum:"pending,queued,running,waiting,completed,failed,skipped,cancelled"`
	Output     json.RawMessage `json:"output" nullable:"true" doc:"What the step made (cardId, missionId, result…), once done or waiting"`
	Error      *string         `json:"error" nullable:"true"`
	Attempts   int32           `json:"attempts" doc:"Times a worker took the step's job"`
	StartedAt  *time.Time      `json:"startedAt" nullable:"true"`
	FinishedAt *time.Time      `json:"finishedAt" nullable:"true"`
}

func runOut(r pipeline.RunWithSteps) RunOut {
	out := RunOut{ID: r.Run.ID, PipelineID: r.Run.PipelineID, PipelineName: r.Run.PipelineName, Status: r.Run.Status,
		Error: r.Run.Error, StartedBy: r.Run.StartedBy, CreatedAt: r.Run.CreatedAt, FinishedAt: r.Run.FinishedAt,
		CancelledAt: r.Run.CancelledAt, Steps: make([]RunStepOut, len(r.Steps))}
	for i, st := range r.Steps {
		var o json.RawMessage
		if len(st.Output) > 0 {
			o = st.Output
		}
		out.Steps[i] = RunStepOut{ID: st.StepID, Type: st.Type, Needs: st.Needs, Status: st.Status, Output: o,
			Error: st.Error, Attempts: st.Attempts, StartedAt: st.StartedAt, FinishedAt: st.FinishedAt}
	}
	return out
}

// PipelinePath names a pipeline.
type PipelinePath struct {
	WorkspacePath
	PipelineID string `path:"pipelineId" format:"uuid"`
}

// RunPath names a run of a pipeline.
type RunPath struct {
	PipelinePath
	RunID string `path:"runId" format:"uuid"`
}

const pipelinesDoc = "A pipeline is a graph of steps `{id, type, params, needs}` (at most 50). Each step runs as a " +
	"job once every step it needs has completed, so independent steps run in parallel. The graph is validated on write; " +
	"a refusal (400) names the step: unknown type, a plugin's type without the plugin installed, unknown or cyclic " +
	"needs, duplicate id, params that do not fit the type. Templates in text params: `{{steps.<id>.<field>}}` (a step " +
	"it needs), `{{run.id}}`, `{{pipeline.name}}`, `{{date}}`. See GET …/pipelines/step-types and docs/pipelines.md."

// registerPipelines registers pipelines and their runs.
func (s workflowOps) registerPipelines() {
	tags := []string{"Pipelines"}
	read := Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}
	admin := Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin", KeepsTenancy: true}
	base := pathWorkspace + "/pipelines"

	register(s.Server, huma.Operation{OperationID: "pipelines-create", Method: http.MethodPost, Path: base,
		Summary: "Create a pipeline", Tags: tags, DefaultStatus: http.StatusCreated, Description: pipelinesDoc},
		admin, s.createPipeline)

	register(s.Server, huma.Operation{OperationID: "pipelines-list", Method: http.MethodGet, Path: base,
		Summary: "List the workspace's pipelines", Tags: tags},
		read, s.listPipelines)

	register(s.Server, huma.Operation{OperationID: "pipelines-step-types", Method: http.MethodGet,
		Path: base + "/step-types", Summary: "List the step types this workspace's pipelines may use", Tags: tags,
		Description: "The built-in types and those of the plugins installed in the workspace."},
		read, s.listStepTypes)

	register(s.Server, huma.Operation{OperationID: "pipelines-get", Method: http.MethodGet, Path: base + "/{pipelineId}",
		Summary: "Get a pipeline", Tags: tags},
		read, s.getPipeline)

	register(s.Server, huma.Operation{OperationID: "pipelines-update", Method: http.MethodPatch,
		Path: base + "/{pipelineId}", Summary: "Update a pipeline", Tags: tags, Description: "Any subset of name, " +
			"description, steps, enabled; the result is validated as a whole. Runs already started keep the graph they " +
			"started with. " + pipelinesDoc},
		admin, s.updatePipeline)

	register(s.Server, huma.Operation{OperationID: "pipelines-delete", Method: http.MethodDelete,
		Path: base + "/{pipelineId}", Summary: "Delete a pipeline and its runs", Tags: tags},
		admin, s.deletePipeline)

	register(s.Server, huma.Operation{OperationID: "pipeline-runs-start", Method: http.MethodPost,
		Path: base + "/{pipelineId}/runs", Summary: "Start a run of the pipeline", Tags: tags,
		DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict}, Description: "The steps that need nothing " +
			"are queued at once. A disabled pipeline answers 409. Steps act as the caller."},
		admin, s.startRun)

	register(s.Server, huma.Operation{OperationID: "pipeline-runs-list", Method: http.MethodGet,
		Path: base + "/{pipelineId}/runs", Summary: "List the pipeline's runs, newest first", Tags: tags},
		read, s.listRuns)

	register(s.Server, huma.Operation{OperationID: "pipeline-runs-get", Method: http.MethodGet,
		Path: base + "/{pipelineId}/runs/{runId}", Summary: "Get a run with the status of each step", Tags: tags},
		read, s.getRun)

	register(s.Server, huma.Operation{OperationID: "pipeline-runs-cancel", Method: http.MethodPost,
		Path: base + "/{pipelineId}/runs/{runId}/cancel", Summary: "Cancel a running run", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: "Unfinished steps are cancelled with their jobs, and the missions " +
			"steps wait for are cancelled. A finished run answers 409."},
		admin, s.cancelRun)

	register(s.Server, huma.Operation{OperationID: "pipeline-runs-events", Method: http.MethodGet,
		Path: base + "/{pipelineId}/runs/{runId}/events", Summary: "Watch a run's progress (server-sent events)", Tags: tags,
		Description: "A `text/event-stream` of the run's events: each has `id` (the per-run sequence), `event` (status, " +
			"step, done) and JSON `data` {runId, seq, type, status, message, data, at}; every event's `status` is the run's, " +
			"and a step event's data names the step (stepId), its own status, output and error. Without `Last-Event-ID` the " +
			"stream starts at the run's first event; with it, at the event after it. The stream ends after the event " +
			"reporting the run's final status, completed, failed or cancelled (its done event; right after the replay when " +
			"the run is already over); comment lines are heartbeats.",
		Responses: map[string]*huma.Response{"200": {Description: "The event stream",
			Content: map[string]*huma.MediaType{"text/event-stream": {}}}}}, read, s.watchRun)
}

// RunStreamInput addresses a run's event stream.
type RunStreamInput struct {
	RunPath
	LastEventID string `header:"Last-Event-ID" doc:"The last event id received: the stream replays the events after it"`
}

// watchRun answers the run's event stream, after checking the run is the pipeline's, in the workspace.
func (s workflowOps) watchRun(ctx context.Context, in *RunStreamInput) (*huma.StreamResponse, error) {
	if err := s.pipelines.RunStream(ctx, pipeline.RunRef{WorkspaceID: accessFrom(ctx).WorkspaceID,
		PipelineID: in.PipelineID, RunID: in.RunID}); err != nil {
		return nil, fail(err)
	}
	last := stream.ParseLastEventID(in.LastEventID)
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w, stop := s.unwrapStream(hctx)
		defer stop()
		s.ops.agents.serveStream(w, r, pipeline.StreamRun, in.RunID, last)
	}}, nil
}

// PipelineBody are a pipeline's writable fields.
type PipelineBody struct {
	Name        string   `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Description string   `json:"description,omitempty" maxLength:"5000"`
	Steps       []StepIn `json:"steps" required:"true" maxItems:"50" doc:"The step graph (at most 50 steps)"`
	Enabled     *bool    `json:"enabled,omitempty" doc:"Default true"`
}

// CreatePipelineInput is the request of pipelines-create.
type CreatePipelineInput struct {
	WorkspacePath
	Body PipelineBody
}

func stepsJSON(steps []StepIn) (json.RawMessage, error) {
	if steps == nil {
		steps = []StepIn{}
	}
	return json.Marshal(steps)
}

func (s workflowOps) createPipeline(ctx context.Context, in *CreatePipelineInput) (*Output[PipelineOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	steps, err := stepsJSON(in.Body.Steps)
	if err != nil {
		return nil, errBadRequest("steps: " + err.Error())
	}
	return oneOf(pipelineOut)(s.pipelines.CreatePipeline(ctx, accessFrom(ctx).WorkspaceID, principalFrom(ctx).User.ID,
		pipeline.NewPipeline{
			Name: name, Description: in.Body.Description, Steps: steps, Enabled: in.Body.Enabled == nil || *in.Body.Enabled}))
}

func (s workflowOps) listPipelines(ctx context.Context, _ *WorkspacePath) (*Output[[]PipelineOut], error) {
	return listOf(pipelineOut)(s.pipelines.Pipelines(ctx, accessFrom(ctx).WorkspaceID))
}

func (s workflowOps) listStepTypes(ctx context.Context, _ *WorkspacePath) (*Output[[]stepgraph.TypeInfo], error) {
	return listOf(func(t stepgraph.TypeInfo) stepgraph.TypeInfo { return t })(s.store.StepTypes(ctx,
		accessFrom(ctx).WorkspaceID))
}

func (s workflowOps) getPipeline(ctx context.Context, in *PipelinePath) (*Output[PipelineOut], error) {
	return oneOf(pipelineOut)(s.pipelines.Pipeline(ctx, accessFrom(ctx).WorkspaceID, in.PipelineID))
}

// UpdatePipelineInput is the request of pipelines-update.
type UpdatePipelineInput struct {
	PipelinePath
	Body UpdatePipelineInputBody
}

// UpdatePipelineInputBody is the body of a UpdatePipelineInput request.
type UpdatePipelineInputBody struct {
	Name        *string   `json:"name,omitempty" minLength:"1" maxLength:"200"`
	Description *string   `json:"description,omitempty" maxLength:"5000"`
	Steps       *[]StepIn `json:"steps,omitempty" maxItems:"50"`
	Enabled     *bool     `json:"enabled,omitempty"`
}

func (s workflowOps) updatePipeline(ctx context.Context, in *UpdatePipelineInput) (*Output[PipelineOut], error) {
	b := in.Body
	name, err := nonBlankOpt("name", b.Name)
	if err != nil {
		return nil, err
	}
	var steps json.RawMessage
	if b.Steps != nil {
		if steps, err = stepsJSON(*b.Steps); err != nil {
			return nil, errBadRequest("steps: " + err.Error())
		}
	}
	return oneOf(pipelineOut)(s.pipelines.UpdatePipeline(ctx, accessFrom(ctx).WorkspaceID, in.PipelineID,
		func(cur pipeline.NewPipeline) pipeline.NewPipeline {
			if name != nil {
				cur.Name = *name
			}
			if b.Description != nil {
				cur.Description = *b.Description
			}
			if steps != nil {
				cur.Steps = steps
			}
			if b.Enabled != nil {
				cur.Enabled = *b.Enabled
			}
			return cur
		}))
}

func (s workflowOps) deletePipeline(ctx context.Context, in *PipelinePath) (*OKOutput, error) {
	return done(s.pipelines.DeletePipeline(ctx, accessFrom(ctx).WorkspaceID, in.PipelineID))
}

func (s workflowOps) startRun(ctx context.Context, in *PipelinePath) (*Output[RunOut], error) {
	return oneOf(runOut)(s.pipelines.StartRun(ctx, recordEdit(ctx, in.PipelineID)))
}

// ListRunsInput is the request of pipeline-runs-list.
type ListRunsInput struct {
	PipelinePath
	PageQuery
}

func (s workflowOps) listRuns(ctx context.Context, in *ListRunsInput) (*PageOutput[RunOut], error) {
	return pageOf(ctx, runOut)(s.pipelines.Runs(ctx, accessFrom(ctx).WorkspaceID, in.PipelineID, in.page()))
}

func (s workflowOps) getRun(ctx context.Context, in *RunPath) (*Output[RunOut], error) {
	return oneOf(runOut)(s.pipelines.Run(ctx, pipeline.RunRef{WorkspaceID: accessFrom(ctx).WorkspaceID,
		PipelineID: in.PipelineID, RunID: in.RunID}))
}

func (s workflowOps) cancelRun(ctx context.Context, in *RunPath) (*Output[RunOut], error) {
	return oneOf(runOut)(s.pipelines.CancelRun(ctx, pipeline.RunRef{WorkspaceID: accessFrom(ctx).WorkspaceID,
		PipelineID: in.PipelineID, RunID: in.RunID}, principalFrom(ctx).User.ID))
}

package pipeline

// This file holds pipelines as records: a workspace's validated step graphs (internal/stepgraph), with
// create, read, list, update and delete. Runs are in pipeline_runs.go, the step executor in
// pipeline_steps.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/stepgraph"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// NewPipeline is a pipeline to create, or a pipeline's fields after an update.
type NewPipeline struct {
	Name, Description string
	Steps             json.RawMessage
	Enabled           bool
}

// validateSteps checks a graph for a workspace: the graph's rules (internal/stepgraph), plugin step
// types only when the plugin is installed, and the projects, columns and agents the steps name
// belonging to the workspace. The refusal names the step. It answers the graph as stored.
func (e *Engine) validateSteps(ctx context.Context, q *dbsqlc.Queries, workspaceID string,
	raw json.RawMessage) (json.RawMessage, []stepgraph.Step, error) {
	steps, err := stepgraph.Parse(raw)
	if err != nil {
		return nil, nil, dbcore.Invalid(err.Error())
	}
	installed, err := db.InstalledPlugins(ctx, q, workspaceID)
	if err != nil {
		return nil, nil, err
	}
	if err := stepgraph.Validate(steps, db.StepTypeAllowed(installed)); err != nil {
		var pe *stepgraph.Error
		if errors.As(err, &pe) {
			return nil, nil, dbcore.Invalid(err.Error())
		}
		return nil, nil, err
	}
	for _, st := range steps {
		if err := e.checkStepRefs(ctx, q, workspaceID, st); err != nil {
			return nil, nil, err
		}
	}
	out, err := json.Marshal(steps)
	if err != nil {
		return nil, nil, fmt.Errorf("encode steps: %w", err)
	}
	return out, steps, nil
}

// checkStepRefs refuses a step naming a project, column, agent or project draft outside the workspace.
func (e *Engine) checkStepRefs(ctx context.Context, q *dbsqlc.Queries, workspaceID string, st stepgraph.Step) error {
	refuse := func(what string) error {
		return dbcore.Invalid(fmt.Sprintf("step %q: params.%s names nothing in this workspace", st.ID, what))
	}
	project := func(id string) error {
		_, err := q.ProjectGet(ctx, dbsqlc.ProjectGetParams{ID: id, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return refuse("projectId")
		}
		return dbcore.Wrap(err, "check project")
	}
	column := func(projectID, id string) error {
		if id == "" {
			return nil
		}
		_, err := q.ColumnGet(ctx, dbsqlc.ColumnGetParams{ID: id, ProjectID: projectID})
		if dbcore.IsNotFound(err) {
			return refuse("columnId")
		}
		return dbcore.Wrap(err, "check column")
	}
	var err error
	switch st.Type {
	case stepgraph.TypeCreateCard:
		var p stepgraph.CreateCardParams
		_ = json.Unmarshal(st.Params, &p)
		if err = project(p.ProjectID); err == nil {
			err = column(p.ProjectID, p.ColumnID)
		}
	case stepgraph.TypeNotify:
		var p stepgraph.NotifyParams
		_ = json.Unmarshal(st.Params, &p)
		err = project(p.ProjectID)
	case stepgraph.TypeAddComment:
		var p stepgraph.AddCommentParams
		_ = json.Unmarshal(st.Params, &p)
		err = project(p.ProjectID)
	case stepgraph.TypeWebhook:
		var p stepgraph.WebhookParams
		_ = json.Unmarshal(st.Params, &p)
		if _, err = q.WebhookGet(ctx, dbsqlc.WebhookGetParams{ID: p.WebhookID,
			WorkspaceID: workspaceID}); dbcore.IsNotFound(err) {
			return refuse("webhookId")
		}
		err = dbcore.Wrap(err, "check webhook")
	case stepgraph.TypeMoveCard:
		var p stepgraph.MoveCardParams
		_ = json.Unmarshal(st.Params, &p)
		if err = project(p.ProjectID); err == nil {
			err = column(p.ProjectID, p.ColumnID)
		}
	case stepgraph.TypeRunAgentMission:
		var p stepgraph.RunAgentMissionParams
		_ = json.Unmarshal(st.Params, &p)
		_, aerr := q.AgentGet(ctx, dbsqlc.AgentGetParams{ID: p.AgentID, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(aerr) {
			return refuse("agentId")
		}
		err = dbcore.Wrap(aerr, "check agent")
	case stepgraph.TypeGenerateRoadmap:
		var p stepgraph.GenerateRoadmapParams
		_ = json.Unmarshal(st.Params, &p)
		_, derr := q.DraftGet(ctx, dbsqlc.DraftGetParams{ID: p.DraftID, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(derr) {
			return refuse("draftId")
		}
		err = dbcore.Wrap(derr, "check draft")
	}
	return err
}

// CreatePipeline validates and stores a pipeline.
func (e *Engine) CreatePipeline(ctx context.Context, workspaceID, actorID string, in NewPipeline) (db.Pipeline, error) {
	steps, _, err := e.validateSteps(ctx, e.core.Q, workspaceID, in.Steps)
	if err != nil {
		return db.Pipeline{}, err
	}
	var out db.Pipeline
	err = e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.PipelineInsert(ctx, dbsqlc.PipelineInsertParams{ID: db.NewID(), WorkspaceID: workspaceID,
			Name: in.Name, Description: in.Description, Steps: steps, Enabled: in.Enabled, CreatedBy: actorID})
		if err != nil {
			return dbcore.Wrap(err, "insert pipeline")
		}
		out = db.Pipeline(row)
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditPipelineCreated, WorkspaceID: workspaceID,
			ActorID: actorID, Target: pipelineTarget(out), Changes: map[string]any{"after": pipelineFields(out)}})
	})
	return out, err
}

// pipelineTarget names a pipeline in the audit log.
func pipelineTarget(p db.Pipeline) db.AuditTarget {
	return db.AuditTarget{Type: "pipeline", ID: p.ID, Name: p.Name}
}

// pipelineFields are a pipeline's fields as the audit log shows them.
func pipelineFields(p db.Pipeline) map[string]any {
	return map[string]any{"name": p.Name, "description": p.Description, "steps": p.Steps, "enabled": p.Enabled}
}

// Pipelines lists a workspace's pipelines, oldest first.
func (e *Engine) Pipelines(ctx context.Context, workspaceID string) ([]db.Pipeline, error) {
	rows, err := e.core.Q.PipelineListByWorkspace(ctx, workspaceID)
	return dbcore.MapRows(rows, func(r dbsqlc.Pipeline) db.Pipeline { return db.Pipeline(r) }), dbcore.Wrap(err,
		"list pipelines")
}

// Pipeline reads a pipeline of a workspace.
func (e *Engine) Pipeline(ctx context.Context, workspaceID, pipelineID string) (db.Pipeline, error) {
	r, err := dbcore.OrNotFound(e.core.Q.PipelineGet(ctx, dbsqlc.PipelineGetParams{ID: pipelineID,
		WorkspaceID: workspaceID}))("pipeline not found", "get pipeline")
	return db.Pipeline(r), err
}

// UpdatePipeline changes a pipeline: change answers the new fields from the current ones, and the
// result is validated as a whole. Runs already started keep the graph they started with.
func (e *Engine) UpdatePipeline(ctx context.Context, workspaceID, pipelineID string,
	change func(NewPipeline) NewPipeline) (db.Pipeline, error) {
	var out db.Pipeline
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.PipelineGetForUpdate(ctx, dbsqlc.PipelineGetForUpdateParams{ID: pipelineID, WorkspaceID: workspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("pipeline not found")
		}
		if err != nil {
			return fmt.Errorf("lock pipeline: %w", err)
		}
		next := change(NewPipeline{Name: cur.Name, Description: cur.Description, Steps: cur.Steps, Enabled: cur.Enabled})
		steps, _, err := e.validateSteps(ctx, q, workspaceID, next.Steps)
		if err != nil {
			return err
		}
		var outRow dbsqlc.Pipeline
		outRow, err = q.PipelineUpdate(ctx, dbsqlc.PipelineUpdateParams{ID: pipelineID, WorkspaceID: workspaceID,
			Name: next.Name, Description: next.Description, Steps: steps, Enabled: next.Enabled})
		out = db.Pipeline(outRow)
		if err != nil {
			return dbcore.Wrap(err, "update pipeline")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditPipelineChanged, WorkspaceID: workspaceID,
			Target: pipelineTarget(out), Changes: map[string]any{"before": pipelineFields(db.Pipeline(cur)),
				"after": pipelineFields(out)}})
	})
	return out, err
}

// DeletePipeline deletes a pipeline with its runs; the jobs of its running steps find nothing to do.
func (e *Engine) DeletePipeline(ctx context.Context, workspaceID, pipelineID string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := dbcore.OrNotFound(q.PipelineGet(ctx, dbsqlc.PipelineGetParams{ID: pipelineID,
			WorkspaceID: workspaceID}))("pipeline not found", "get pipeline")
		if err != nil {
			return err
		}
		n, err := q.PipelineDelete(ctx, dbsqlc.PipelineDeleteParams{ID: pipelineID, WorkspaceID: workspaceID})
		if err != nil {
			return fmt.Errorf("delete pipeline: %w", err)
		}
		if n == 0 {
			return dbcore.NotFound("pipeline not found")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditPipelineDeleted, WorkspaceID: workspaceID,
			Target: pipelineTarget(db.Pipeline(cur)), Changes: map[string]any{"before": pipelineFields(db.Pipeline(cur))}})
	})
}

package pipeline

// What each type of step does: execStep dispatches to one method of stepExec per step type.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/plugin"
	"github.com/pilot-dev/pilot/internal/stepgraph"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/webhook"
)

// execStep does a step's work in tx as the run's starter and answers its output; a *Error is a
// refusal that fails the step. Each type of step has its own method of stepExec.
func (e *Engine) execStep(ctx context.Context, tx pgx.Tx, run db.PipelineRun, steps []db.PipelineRunStep,
	st *db.PipelineRunStep) (stepDone, error) {
	x := &stepExec{e: e, ctx: ctx, tx: tx, q: dbcore.Queries(tx), run: run, st: st, actor: run.StartedBy,
		tc: stepgraph.Context{RunID: run.ID, PipelineName: run.PipelineName, Now: time.Now(),
			Outputs: map[string]map[string]any{}}}
	for _, o := range steps {
		if o.Status == StepCompleted && len(o.Output) > 0 {
			m := map[string]any{}
			_ = json.Unmarshal(o.Output, &m)
			x.tc.Outputs[o.StepID] = m
		}
	}
	switch st.Type {
	case stepgraph.TypeCreateCard:
		return x.createCard()
	case stepgraph.TypeNotify:
		return x.notify()
	case stepgraph.TypeWait:
		return x.wait()
	case stepgraph.TypeCondition:
		return x.condition()
	case stepgraph.TypeWebhook:
		return x.webhook()
	case stepgraph.TypeRunAgentMission:
		return x.runAgentMission()
	case stepgraph.TypeGenerateRoadmap:
		return x.generateRoadmap()
	case stepgraph.TypeEmailDigest:
		return x.emailDigest()
	case stepgraph.TypeAddComment:
		return x.addComment()
	case stepgraph.TypeMoveCard:
		return x.moveCard()
	}
	return stepDone{}, dbcore.Invalid(fmt.Sprintf("unknown step type %q", st.Type))
}

// stepExec is one step being done in tx as the run's starter (actor), with the outputs of the run's
// completed steps to fill its templates from (tc).
type stepExec struct {
	e     *Engine
	ctx   context.Context
	tx    pgx.Tx
	q     *dbsqlc.Queries
	run   db.PipelineRun
	st    *db.PipelineRunStep
	tc    stepgraph.Context
	actor string
}

// fill fills a template of the step's params from the run's outputs.
func (x *stepExec) fill(t string) string { return strings.TrimSpace(stepgraph.Fill(t, x.tc)) }

// project refuses a project that is no longer in the run's workspace.
func (x *stepExec) project(id string) error {
	_, err := x.q.ProjectGet(x.ctx, dbsqlc.ProjectGetParams{ID: id, WorkspaceID: x.run.WorkspaceID})
	if dbcore.IsNotFound(err) {
		return dbcore.Invalid("the project no longer exists")
	}
	return dbcore.Wrap(err, "get project")
}

// cardRef fills a card id template and refuses what is not a card id.
func (x *stepExec) cardRef(t string) (string, error) {
	id := x.fill(t)
	if !stepgraph.IsUUID(id) {
		return "", dbcore.Invalid(fmt.Sprintf("cardId %q is not a card id", id))
	}
	return id, nil
}

// settings answers a plugin's settings in the run's workspace, refusing a plugin no longer installed.
func (x *stepExec) settings(pluginID string) (json.RawMessage, error) {
	row, err := x.q.WorkspacePluginGet(x.ctx, dbsqlc.WorkspacePluginGetParams{WorkspaceID: x.run.WorkspaceID,
		PluginID: pluginID})
	if dbcore.IsNotFound(err) {
		return nil, dbcore.Invalid("plugin " + pluginID + " is not installed in this workspace any more")
	}
	return row.Settings, dbcore.Wrap(err, "get plugin settings")
}

// createCard creates a card with the filled title and description.
func (x *stepExec) createCard() (stepDone, error) {
	var p stepgraph.CreateCardParams
	_ = json.Unmarshal(x.st.Params, &p)
	if err := x.project(p.ProjectID); err != nil {
		return stepDone{}, err
	}
	title := truncate(x.fill(p.Title), MaxCardTitle)
	if title == "" {
		return stepDone{}, dbcore.Invalid("the card title is empty once filled in")
	}
	c, err := x.e.board.CreateCardTx(x.ctx, x.tx, board.NewCard{WorkspaceID: x.run.WorkspaceID, ProjectID: p.ProjectID,
		ColumnID: p.ColumnID, ActorID: x.actor, Title: title, Description: truncate(x.fill(p.Description),
			MaxCardDescription)})
	if err != nil {
		return stepDone{}, err
	}
	return stepDone{output: map[string]any{"cardId": c.ID, "title": c.Title, "projectId": c.ProjectID,
		"columnId": c.ColumnID}}, nil
}

// notify records a pipeline notice that notifies every workspace member but the run's starter.
func (x *stepExec) notify() (stepDone, error) {
	var p stepgraph.NotifyParams
	_ = json.Unmarshal(x.st.Params, &p)
	if err := x.project(p.ProjectID); err != nil {
		return stepDone{}, err
	}
	members, err := x.q.WorkspaceMemberEmails(x.ctx, x.run.WorkspaceID)
	if err != nil {
		return stepDone{}, fmt.Errorf("workspace members: %w", err)
	}
	var to []string
	for _, m := range members {
		if m.ID != x.actor {
			to = append(to, m.ID)
		}
	}
	msg := x.fill(p.Message)
	run := x.run
	if err := x.e.core.RecordActivities(x.ctx, x.tx, db.Activity{ProjectID: p.ProjectID, ActorID: x.actor,
		Type: ActivityPipelineNotice, Meta: map[string]any{"message": msg, "pipelineId": run.PipelineID,
			"pipelineName": run.PipelineName, "runId": run.ID, "stepId": x.st.StepID}, Recipients: to,
		OnlyRecipients: true}); err != nil {
		return stepDone{}, err
	}
	return stepDone{output: map[string]any{"recipients": len(to), "message": msg}}, nil
}

// wait answers its duration: the wait itself is the job's schedule.
func (x *stepExec) wait() (stepDone, error) {
	var p stepgraph.WaitParams
	_ = json.Unmarshal(x.st.Params, &p)
	return stepDone{output: map[string]any{"waited": p.Duration}}, nil
}

// condition evaluates its test on the output of the step it names.
func (x *stepExec) condition() (stepDone, error) {
	var p stepgraph.ConditionParams
	_ = json.Unmarshal(x.st.Params, &p)
	return stepDone{output: map[string]any{"result": stepgraph.Evaluate(p, x.tc.Outputs[p.Step])}}, nil
}

// runAgentMission starts an agent mission, on a card of the workspace if it names one, and leaves the
// step waiting for it.
func (x *stepExec) runAgentMission() (stepDone, error) {
	var p stepgraph.RunAgentMissionParams
	_ = json.Unmarshal(x.st.Params, &p)
	run := x.run
	in := mission.NewMission{WorkspaceID: run.WorkspaceID, AgentID: p.AgentID, ActorID: x.actor,
		Source: mission.MissionSourcePipeline, Objective: x.fill(p.Objective)}
	if p.CardID != "" {
		cardID, err := x.cardRef(p.CardID)
		if err != nil {
			return stepDone{}, err
		}
		pid, err := x.q.CardExistsInWorkspace(x.ctx, dbsqlc.CardExistsInWorkspaceParams{ID: cardID,
			WorkspaceID: run.WorkspaceID})
		if dbcore.IsNotFound(err) {
			return stepDone{}, dbcore.Invalid("card not found")
		}
		if err != nil {
			return stepDone{}, fmt.Errorf("find card: %w", err)
		}
		in.CardID, in.ProjectID = &cardID, &pid
	}
	if in.Objective == "" {
		in.Objective = "Work on the card for pipeline " + run.PipelineName
	}
	m, err := x.e.missions.CreateMissionTx(x.ctx, x.tx, x.q, in)
	if err != nil {
		if errors.Is(err, mission.ErrTooManyRequests) || errors.Is(err, db.ErrConflict) { // over its rate, or disabled
			var e *db.Error
			errors.As(err, &e)
			return stepDone{}, dbcore.Invalid(e.Msg)
		}
		return stepDone{}, err
	}
	return stepDone{output: map[string]any{"missionId": m.ID}, waitRef: "mission:" + m.ID}, nil
}

// generateRoadmap starts a draft's roadmap job and leaves the step waiting for it.
func (x *stepExec) generateRoadmap() (stepDone, error) {
	var p stepgraph.GenerateRoadmapParams
	_ = json.Unmarshal(x.st.Params, &p)
	// The draft's roadmap job starts in the step's transaction; its end (draft.Engine
	// FinishRoadmap, Fail or Delete) completes or fails the step in its own (WaitFinishedTx).
	if _, err := x.e.drafts.GenerateRoadmapTx(x.ctx, x.tx, x.q, x.run.WorkspaceID, p.DraftID,
		fmt.Sprintf("roadmap generation queued by pipeline %q (run %s)", x.run.PipelineName, x.run.ID)); err != nil {
		return stepDone{}, err
	}
	return stepDone{output: map[string]any{"draftId": p.DraftID}, waitRef: draft.PipelineRef(p.DraftID)}, nil
}

// emailDigest e-mails each member their unread notifications, as the email-digest plugin's settings say.
func (x *stepExec) emailDigest() (stepDone, error) {
	var p stepgraph.EmailDigestParams
	_ = json.Unmarshal(x.st.Params, &p)
	raw, err := x.settings(plugin.EmailDigest)
	if err != nil {
		return stepDone{}, err
	}
	var set struct {
		SubjectPrefix string `json:"subjectPrefix"`
		MaxItems      int32  `json:"maxItems"`
		SkipEmpty     bool   `json:"skipEmpty"`
	}
	_ = json.Unmarshal(raw, &set)
	return x.e.emailDigests(x.ctx, x.tx, x.q, x.run, x.st, strings.TrimSpace(set.SubjectPrefix+" "+
		orDefault(x.fill(p.Subject), "Your unread notifications")), max(set.MaxItems, 1), set.SkipEmpty)
}

// addComment comments on a card, with the card-actions plugin's comment prefix.
func (x *stepExec) addComment() (stepDone, error) {
	var p stepgraph.AddCommentParams
	_ = json.Unmarshal(x.st.Params, &p)
	raw, err := x.settings(plugin.CardActions)
	if err != nil {
		return stepDone{}, err
	}
	var set struct {
		CommentPrefix string `json:"commentPrefix"`
	}
	_ = json.Unmarshal(raw, &set)
	if err := x.project(p.ProjectID); err != nil {
		return stepDone{}, err
	}
	cardID, err := x.cardRef(p.CardID)
	if err != nil {
		return stepDone{}, err
	}
	c, err := x.e.board.CreateCommentTx(x.ctx, x.tx, db.CardEdit{ProjectID: p.ProjectID, CardID: cardID, ActorID: x.actor},
		strings.TrimSpace(set.CommentPrefix+" "+x.fill(p.Content)))
	if err != nil {
		return stepDone{}, err
	}
	return stepDone{output: map[string]any{"commentId": c.ID, "cardId": cardID}}, nil
}

// moveCard moves a card to a column, if the card-actions plugin is installed.
func (x *stepExec) moveCard() (stepDone, error) {
	var p stepgraph.MoveCardParams
	_ = json.Unmarshal(x.st.Params, &p)
	if _, err := x.settings(plugin.CardActions); err != nil {
		return stepDone{}, err
	}
	if err := x.project(p.ProjectID); err != nil {
		return stepDone{}, err
	}
	cardID, err := x.cardRef(p.CardID)
	if err != nil {
		return stepDone{}, err
	}
	if _, err := x.e.board.UpdateCardTx(x.ctx, x.tx, board.CardUpdate{WorkspaceID: x.run.WorkspaceID,
		ProjectID: p.ProjectID, CardID: cardID, ActorID: x.actor,
		Patch: board.CardPatch{ColumnID: &p.ColumnID}}); err != nil {
		return stepDone{}, err
	}
	return stepDone{output: map[string]any{"cardId": cardID, "columnId": p.ColumnID}}, nil
}

// digestNamespace keys a digest e-mail per run, step and member, so a retried job reuses its outbox row.
var digestNamespace = uuid.MustParse("5b0d7f32-8c39-4f0a-9d1e-2f6a4c1b7e90")

// emailDigests enqueues, in tx, one e-mail per workspace member listing their unread notifications.

// webhook enqueues a delivery of the filled body to the step's URL, signed with the webhook's secret,
// and leaves the step waiting for it (the delivery's end completes or fails the step).
func (x *stepExec) webhook() (stepDone, error) {
	var p stepgraph.WebhookParams
	_ = json.Unmarshal(x.st.Params, &p)
	if _, err := x.q.WebhookGet(x.ctx, dbsqlc.WebhookGetParams{ID: p.WebhookID,
		WorkspaceID: x.run.WorkspaceID}); dbcore.IsNotFound(err) {
		return stepDone{}, dbcore.Invalid("the webhook no longer exists")
	} else if err != nil {
		return stepDone{}, dbcore.Wrap(err, "get webhook")
	}
	body, err := stepgraph.FillJSON(p.Body, x.tc)
	if err != nil {
		return stepDone{}, dbcore.Invalid("params.body: " + err.Error())
	}
	d, err := x.e.webhooks.EnqueueTx(x.ctx, x.tx, webhook.Message{WorkspaceID: x.run.WorkspaceID, WebhookID: p.WebhookID,
		URL: p.URL, Source: "pipeline:" + x.run.ID + "/" + x.st.StepID, Type: "pipeline_step", Body: body})
	if err != nil {
		return stepDone{}, err
	}
	return stepDone{output: map[string]any{"deliveryId": d.ID}, waitRef: webhook.WaitRef(d.ID)}, nil
}

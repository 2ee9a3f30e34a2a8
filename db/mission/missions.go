package mission

// This file holds missions as records: statuses and sources, queueing a mission with its River job,
// reading, listing and cancelling missions and listing proposals. Running a mission is the executor's
// work (mission_executor.go).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Mission sources: who asked for the mission.
const (
	MissionSourceAgent       = "agent"
	MissionSourceRuntime     = "runtime"
	MissionSourceCardMission = "card_mission"
	// MissionSourcePipeline: a pipeline's run_agent_mission step.
	MissionSourcePipeline = "pipeline"
)

// MissionMaxAttempts is how many times River tries a mission job. Steps already recorded are never
// applied again, so a retry resumes where the last attempt stopped.
const MissionMaxAttempts = 3

// ErrTooManyRequests classifies a refusal because of a rate (an agent's missions per hour).
var ErrTooManyRequests = errors.New("too many requests")

// NewMission is a mission to queue. MaxSteps 0 means the agent's own cap.
type NewMission struct {
	WorkspaceID, AgentID, ActorID string
	ProjectID, CardID             *string
	Source, Objective             string
	MaxSteps                      int32
}

// MissionCardProject answers the project of a card of the workspace, or "card not found".
func (e *Engine) MissionCardProject(ctx context.Context, workspaceID, cardID string) (string, error) {
	pid, err := e.core.Q.CardExistsInWorkspace(ctx, dbsqlc.CardExistsInWorkspaceParams{ID: cardID,
		WorkspaceID: workspaceID})
	if dbcore.IsNotFound(err) {
		return "", dbcore.NotFound("card not found")
	}
	return pid, dbcore.Wrap(err, "find card")
}

// AgentByUser finds the agent whose service user is userID in the workspace.
func (e *Engine) AgentByUser(ctx context.Context, workspaceID, userID string) (db.Agent, error) {
	r, err := dbcore.OrNotFound(e.core.Q.AgentByUser(ctx, dbsqlc.AgentByUserParams{UserID: userID,
		WorkspaceID: workspaceID}))("agent not found", "find agent")
	return db.Agent(r), err
}

// DefaultAgent is the workspace's first enabled agent by creation (its first agent when none is enabled, whose
// missions are then refused); a workspace without agents is refused.
func (e *Engine) DefaultAgent(ctx context.Context, workspaceID string) (db.Agent, error) {
	a, err := e.core.Q.AgentFirst(ctx, workspaceID)
	if dbcore.IsNotFound(err) {
		return db.Agent(a), dbcore.Invalid("the workspace has no agent yet; create one first or name agentId")
	}
	return db.Agent(a), dbcore.Wrap(err, "default agent")
}

// CreateMission queues a mission: the row (queued), its River job on the missions queue and its first
// status event, in one transaction. The agent's row lock serialises creations, so its missions-per-hour
// limit holds under concurrency (ErrTooManyRequests past it, and once the workspace's daily token budget
// is spent). An mcpOnly agent's mission gets no job: it stays queued for the external AI client that
// works it through /mcp.
func (e *Engine) CreateMission(ctx context.Context, in NewMission) (db.AgentMission, error) {
	var out db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = e.CreateMissionTx(ctx, tx, q, in)
		return err
	})
	return out, err
}

// CreateMissionTx is CreateMission in the caller's transaction (a pipeline step starts its mission
// in the transaction that records the step waiting for it).
func (e *Engine) CreateMissionTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries,
	in NewMission) (db.AgentMission, error) {
	var out db.AgentMission
	err := func() error {
		agent, err := q.AgentGetForUpdate(ctx, dbsqlc.AgentGetForUpdateParams{ID: in.AgentID, WorkspaceID: in.WorkspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("agent not found")
		}
		if err != nil {
			return fmt.Errorf("lock agent: %w", err)
		}
		if !agent.Enabled {
			return dbcore.Conflict(fmt.Sprintf("the agent %q is disabled: enable it to start missions", agent.Name))
		}
		if err := checkBudgetTx(ctx, q, in.WorkspaceID); err != nil {
			return err
		}
		if err := checkProjectWritableTx(ctx, q, in.WorkspaceID, in.ProjectID); err != nil {
			return err
		}
		n, err := q.MissionCountSince(ctx, dbsqlc.MissionCountSinceParams{AgentID: agent.ID,
			Since: time.Now().Add(-time.Hour)})
		if err != nil {
			return fmt.Errorf("count missions: %w", err)
		}
		if n >= agent.MaxMissionsPerHour {
			return &db.Error{Kind: ErrTooManyRequests, Msg: fmt.Sprintf("the agent already started %d missions in the last "+
				"hour (its limit is %d)", n, agent.MaxMissionsPerHour)}
		}
		maxSteps := in.MaxSteps
		if maxSteps <= 0 {
			maxSteps = agent.MaxSteps
		}
		if maxSteps > agent.MaxSteps {
			return dbcore.Invalid(fmt.Sprintf("maxSteps must be at most the agent's limit (%d)", agent.MaxSteps))
		}
		var outRow dbsqlc.AgentMission
		outRow, err = q.MissionInsert(ctx, dbsqlc.MissionInsertParams{ID: db.NewID(), WorkspaceID: in.WorkspaceID,
			AgentID: agent.ID, ProjectID: in.ProjectID, CardID: in.CardID, Source: in.Source, Objective: in.Objective,
			MaxSteps: maxSteps, CreatedBy: in.ActorID})
		out = db.AgentMission(outRow)
		if err != nil {
			return fmt.Errorf("insert mission: %w", err)
		}
		msg := "mission queued"
		if agent.McpOnly {
			msg = "mission queued for an MCP client"
		} else {
			res, err := e.core.River.InsertTx(ctx, tx, jobs.MissionArgs{MissionID: out.ID},
				&river.InsertOpts{Queue: jobs.QueueMissions, MaxAttempts: MissionMaxAttempts})
			if err != nil {
				return fmt.Errorf("enqueue mission: %w", err)
			}
			if err := q.MissionSetJob(ctx, dbsqlc.MissionSetJobParams{ID: out.ID, JobID: &res.Job.ID}); err != nil {
				return fmt.Errorf("store mission job: %w", err)
			}
			out.JobID = &res.Job.ID
		}
		_, err = e.store.AppendMissionEventTx(ctx, tx, out.ID, db.NewMissionEvent{Type: db.MissionEventStatus,
			Status: string(db.MissionQueued), Message: msg, Data: map[string]any{"agentId": agent.ID, "source": in.Source}})
		return err
	}()
	return out, err
}

// checkProjectWritableTx refuses a mission on an archived project (its card named in the body, so the
// api's guard, which refuses writes under an archived project's path, never saw the project): an archived
// project is read-only until it is restored. No project (a workspace-wide mission) is always writable.
func checkProjectWritableTx(ctx context.Context, q *dbsqlc.Queries, workspaceID string, projectID *string) error {
	if projectID == nil {
		return nil
	}
	p, err := q.ProjectGet(ctx, dbsqlc.ProjectGetParams{ID: *projectID, WorkspaceID: workspaceID})
	switch {
	case dbcore.IsNotFound(err):
		return dbcore.NotFound("project not found")
	case err != nil:
		return fmt.Errorf("read project: %w", err)
	case p.ArchivedAt != nil:
		return dbcore.Conflict(fmt.Sprintf("the project %q is archived: restore it to start missions on it", p.Name))
	}
	return nil
}

// Mission reads a mission of a workspace.
func (e *Engine) Mission(ctx context.Context, workspaceID, missionID string) (db.AgentMission, error) {
	r, err := dbcore.OrNotFound(e.core.Q.MissionGet(ctx, dbsqlc.MissionGetParams{ID: missionID,
		WorkspaceID: workspaceID}))("mission not found", "get mission")
	return db.AgentMission(r), err
}

// AgentMissions is one page of an agent's missions, newest first.
func (e *Engine) AgentMissions(ctx context.Context, workspaceID, agentID string,
	p db.Page) (db.Paged[db.AgentMission], error) {
	k, err := p.AfterTime("missions", true)
	if err != nil {
		return db.Paged[db.AgentMission]{}, err
	}
	if _, err := e.Agent(ctx, workspaceID, agentID); err != nil {
		return db.Paged[db.AgentMission]{}, err
	}
	rows, err := e.core.Q.MissionListByAgent(ctx, dbsqlc.MissionListByAgentParams{AgentID: agentID, BeforeAt: k.At,
		BeforeID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.AgentMission]{}, dbcore.Wrap(err, "list missions")
	}
	return db.PageOf(p, "missions", dbcore.MapRows(rows,
		func(r dbsqlc.AgentMission) db.AgentMission { return db.AgentMission(r) }),
		func(m db.AgentMission) any { return db.TimeKey{At: m.CreatedAt, ID: m.ID} }), nil
}

// MissionFilter selects a workspace's missions: the filters that are not empty (a status, an agent,
// a card) narrow the list.
type MissionFilter struct {
	WorkspaceID             string
	Status, AgentID, CardID string
	Page                    db.Page
}

// WorkspaceMissions is one page of a workspace's missions, newest first, narrowed by f.
func (e *Engine) WorkspaceMissions(ctx context.Context, f MissionFilter) (db.Paged[db.AgentMission], error) {
	k, err := f.Page.AfterTime("missions", true)
	if err != nil {
		return db.Paged[db.AgentMission]{}, err
	}
	rows, err := e.core.Q.MissionListByWorkspace(ctx, dbsqlc.MissionListByWorkspaceParams{WorkspaceID: f.WorkspaceID,
		Status: dbcore.Optional(f.Status), AgentID: dbcore.Optional(f.AgentID), CardID: dbcore.Optional(f.CardID),
		BeforeAt: k.At, BeforeID: k.ID, Lim: f.Page.Fetch()})
	if err != nil {
		return db.Paged[db.AgentMission]{}, dbcore.Wrap(err, "list missions")
	}
	return db.PageOf(f.Page, "missions", dbcore.MapRows(rows,
		func(r dbsqlc.AgentMission) db.AgentMission { return db.AgentMission(r) }),
		func(m db.AgentMission) any { return db.TimeKey{At: m.CreatedAt, ID: m.ID} }), nil
}

// MissionProposals lists the proposals of a mission of the workspace.
func (e *Engine) MissionProposals(ctx context.Context, workspaceID, missionID string) ([]db.AgentProposal, error) {
	if _, err := e.Mission(ctx, workspaceID, missionID); err != nil {
		return nil, err
	}
	rows, err := e.core.Q.ProposalListByMission(ctx, missionID)
	return dbcore.MapRows(rows, func(r dbsqlc.AgentProposal) db.AgentProposal { return db.AgentProposal(r) }),
		dbcore.Wrap(err, "list proposals")
}

// PendingProposals lists a workspace's proposals awaiting a decision, oldest first.
func (e *Engine) PendingProposals(ctx context.Context, workspaceID string, limit int32) ([]db.AgentProposal, error) {
	rows, err := e.core.Q.ProposalListPending(ctx, dbsqlc.ProposalListPendingParams{WorkspaceID: workspaceID, Lim: limit})
	return dbcore.MapRows(rows, func(r dbsqlc.AgentProposal) db.AgentProposal { return db.AgentProposal(r) }),
		dbcore.Wrap(err, "list pending proposals")
}

// CancelMission stops a mission at a person's request (the stop and cancel operations are this one):
// see StopMission, with reason person.
func (e *Engine) CancelMission(ctx context.Context, r db.RecordEdit) (db.AgentMission, error) {
	return e.StopMission(ctx, r, db.StopPerson)
}

// StopMission stops a queued, running, awaiting (approval or input) or stale mission: stopped with the
// reason and cancelledAt, what it applied kept, its pending proposals rejected, its River job cancelled
// (the worker running it hears of it through River's job-cancel notification, which ends the job's
// context and so its model call) and a done event, in one transaction. A finished mission is a conflict.
func (e *Engine) StopMission(ctx context.Context, r db.RecordEdit,
	reason db.MissionStopReason) (db.AgentMission, error) {
	var out db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = e.StopMissionTx(ctx, tx, r, StopEvent{Reason: reason, Message: "mission stopped",
			Data: map[string]any{"stoppedBy": r.ActorID}})
		return err
	})
	return out, err
}

// MissionsOf names the missions a user created in some workspaces, and who stops them.
type MissionsOf struct {
	WorkspaceIDs       []string
	CreatorID, ActorID string
}

// CancelMissionsCreatedByTx stops, in the caller's transaction, every unfinished mission (queued,
// running, awaiting approval or input, stale) that m.CreatorID started directly in m.WorkspaceIDs (not
// through a pipeline, whose runs are cancelled with their starter's), each as StopMission does: a member
// who leaves those workspaces must not have agents go on acting at their request. Each mission's done
// event says why (reason creator_left), so its stream ends with its final status. It answers the missions
// stopped. Missions are locked in id order, before anything else the caller locks after (cards, runs):
// the order a mission's own steps take.
func (e *Engine) CancelMissionsCreatedByTx(ctx context.Context, tx pgx.Tx, m MissionsOf) ([]db.AgentMission, error) {
	q := dbcore.Queries(tx)
	rows, err := q.MissionListActiveByCreator(ctx, dbsqlc.MissionListActiveByCreatorParams{CreatedBy: m.CreatorID,
		WorkspaceIds: m.WorkspaceIDs})
	if err != nil {
		return nil, fmt.Errorf("list the missions the user started: %w", err)
	}
	var out []db.AgentMission
	for _, row := range rows {
		c, err := e.StopMissionTx(ctx, tx, db.RecordEdit{WorkspaceID: row.WorkspaceID, ID: row.ID,
			ActorID: m.ActorID}, StopEvent{Reason: db.StopCreatorLeft,
			Message: "mission stopped: the member who started it left the workspace",
			Data:    map[string]any{"stoppedBy": m.ActorID}})
		if errors.Is(err, db.ErrConflict) {
			continue // finished meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// StopEvent is why a mission stops and what its done event says (data.reason is set to Reason).
type StopEvent struct {
	Reason  db.MissionStopReason
	Message string
	Data    map[string]any
	// OwnJob says the mission's own job stops it (its budget): the job ends by itself, it is not cancelled.
	OwnJob bool
}

// StopMissionTx is StopMission in the caller's transaction, its done event saying ev (a budget check
// stops a mission with reason budget through it).
func (e *Engine) StopMissionTx(ctx context.Context, tx pgx.Tx, r db.RecordEdit, ev StopEvent) (db.AgentMission, error) {
	q := dbcore.Queries(tx)
	workspaceID, missionID, actorID := r.WorkspaceID, r.ID, r.ActorID
	reason := string(ev.Reason)
	m, err := q.MissionStop(ctx, dbsqlc.MissionStopParams{ID: missionID, WorkspaceID: workspaceID, StopReason: &reason})
	if dbcore.IsNotFound(err) {
		cur, gerr := e.Mission(ctx, workspaceID, missionID)
		if gerr != nil {
			return db.AgentMission{}, gerr
		}
		return db.AgentMission{}, dbcore.Conflict(fmt.Sprintf("the mission is already %s",
			strings.ReplaceAll(cur.Status, "_", " ")))
	}
	if err != nil {
		return db.AgentMission{}, fmt.Errorf("stop mission: %w", err)
	}
	rejection := "mission stopped"
	var decidedBy *string
	if actorID != "" {
		decidedBy = &actorID
	}
	if err := q.ProposalsRejectPending(ctx, dbsqlc.ProposalsRejectPendingParams{MissionID: m.ID, Reason: &rejection,
		DecidedBy: decidedBy}); err != nil {
		return db.AgentMission{}, fmt.Errorf("reject pending proposals: %w", err)
	}
	if m.JobID != nil && !ev.OwnJob {
		if _, err := e.core.River.JobCancelTx(ctx, tx, *m.JobID); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
			return db.AgentMission{}, fmt.Errorf("cancel mission job: %w", err)
		}
	}
	data := map[string]any{}
	for k, v := range ev.Data {
		data[k] = v
	}
	data["reason"] = reason
	if _, err = e.store.AppendMissionEventTx(ctx, tx, m.ID, db.NewMissionEvent{Type: db.MissionEventDone,
		Status: string(db.MissionStopped), Message: ev.Message, Data: data}); err != nil {
		return db.AgentMission{}, err
	}
	return db.AgentMission(m), e.missionSettledTx(ctx, tx, db.AgentMission(m))
}

package dbcore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// Activity types: what changed, as recorded and as notifications and event feeds name it.
const (
	ActivityCardCreated   = "card_created"
	ActivityCardUpdated   = "card_updated"
	ActivityCardMoved     = "card_moved"
	ActivityCardArchived  = "card_archived"
	ActivityCardDeleted   = "card_deleted"
	ActivityCardAssigned  = "card_assigned"
	ActivityCommentAdded  = "comment_added"
	ActivityMemberAdded   = "member_added"
	ActivityMemberRemoved = "member_removed"
)

// Workspace-level activity types: a document's review concerns its workspace, not
// a project, so these name the workspace and notify their explicit recipients only.
const (
	// ActivityDocumentSubmitted notifies the workspace's pilotage reviewers and owners.
	ActivityDocumentSubmitted = "document_submitted"
	// ActivityDocumentReviewed notifies the document's author.
	ActivityDocumentReviewed = "document_reviewed"
	// ActivityProjectDeleted notifies a deleted project's members (the project and its own activities
	// are gone, so it names the workspace; meta has the project's id and name).
	ActivityProjectDeleted = "project_deleted"
	// ActivityAutomationRulesDisabled notifies a workspace's admins that the automation rules a member
	// created in its projects were disabled as the member left (rules act as their creator).
	ActivityAutomationRulesDisabled = "automation_rules_disabled"
)

// Activity is one change to record. A project activity sets ProjectID; a workspace-level activity
// (a document's review) sets WorkspaceID instead, with OnlyRecipients: a workspace has no followers.
type Activity struct {
	ProjectID   string
	WorkspaceID string // only for workspace-level activity
	CardID      string // empty for project-level activity
	DocumentID  string // set by document activities
	ActorID     string
	Type        string
	Meta        map[string]any
	// Recipients are notified besides the project's members (the assignee, an added or removed member).
	Recipients []string
	// OnlyRecipients leaves the project's members out (a due date concerns its assignee).
	OnlyRecipients bool
	// Cause is set when an automation rule made the change.
	Cause RuleCause
	// Quiet says nobody but the actor can hear of it (the cards of a project just imported, whose only
	// member is the importer), so no notification job is enqueued: it would notify no one.
	Quiet bool
	// AgentID and OnBehalfOf say an agent acted (ActorID is its service user) for a person. Left empty,
	// they are the context's Acting, if any; recording also finds the agent of a service user actor.
	AgentID, OnBehalfOf string
}

// RecordActivities stores activities and enqueues their notification fan-out (when someone other than
// the actor would hear of them) and the automation jobs they cause through River, in the caller's
// transaction: if the change rolls back, nobody is notified, and when it commits River's insert
// notification wakes a worker.
func (c *Core) RecordActivities(ctx context.Context, tx pgx.Tx, acts ...Activity) error {
	if len(acts) == 0 {
		return nil
	}
	rec, err := NewActivityRecord(ctx, acts)
	if err != nil {
		return err
	}
	listening, err := Queries(tx).ActivitiesRecord(ctx, rec.Params)
	if err != nil {
		return fmt.Errorf("record activities: %w", err)
	}
	return c.EnqueueActivityJobs(ctx, tx, rec, listening)
}

// ActivityRecord is what recording activities takes: the ActivitiesRecord statement (the activities,
// and the automation triggers they may fire) and the jobs to enqueue once the statement has said
// which of those triggers an enabled rule listens to.
type ActivityRecord struct {
	Params dbsqlc.ActivitiesRecordParams
	notify []jobs.NotifyActivityArgs
	auto   []jobs.AutomationEventArgs
}

// NewActivityRecord prepares the recording of acts (for a caller that sends the statement in a batch),
// made in ctx (its Acting names the agent and the person of the acts that name none).
func NewActivityRecord(ctx context.Context, acts []Activity) (ActivityRecord, error) {
	var r ActivityRecord
	p := &r.Params
	acting, _ := ActingFrom(ctx)
	for _, a := range acts {
		if a.AgentID == "" && a.OnBehalfOf == "" {
			a.AgentID, a.OnBehalfOf = acting.AgentID, acting.OnBehalfOf
		}
		p.AgentIds, p.OnBehalfOfs = append(p.AgentIds, a.AgentID), append(p.OnBehalfOfs, a.OnBehalfOf)
		meta := a.Meta
		if meta == nil {
			meta = map[string]any{}
		}
		if a.Cause.RuleID != "" {
			meta["automationRuleId"] = a.Cause.RuleID
		}
		metaJSON, err := json.Marshal(meta)
		if err != nil {
			return r, fmt.Errorf("encode activity meta: %w", err)
		}
		recipients, err := json.Marshal(OrEmpty(a.Recipients))
		if err != nil {
			return r, fmt.Errorf("encode activity recipients: %w", err)
		}
		id := NewID()
		p.Ids, p.ProjectIds, p.CardIds, p.ActorIds = append(p.Ids, id), append(p.ProjectIds, a.ProjectID), append(p.CardIds,
			a.CardID), append(p.ActorIds, a.ActorID)
		p.WorkspaceIds, p.DocumentIds = append(p.WorkspaceIds, a.WorkspaceID), append(p.DocumentIds, a.DocumentID)
		p.Types, p.Metas, p.Recipients = append(p.Types, a.Type), append(p.Metas, metaJSON), append(p.Recipients, recipients)
		p.NotifyMembers = append(p.NotifyMembers, !a.OnlyRecipients)
		if !a.Quiet {
			r.notify = append(r.notify, jobs.NotifyActivityArgs{ActivityID: id})
		}
		if a.CardID == "" || a.ProjectID == "" {
			continue
		}
		for _, t := range TriggersFor(a) {
			p.TriggerProjects, p.Triggers = append(p.TriggerProjects, a.ProjectID), append(p.Triggers, string(t))
			r.auto = append(r.auto, jobs.AutomationEventArgs{EventID: id, ProjectID: a.ProjectID, CardID: a.CardID,
				Trigger: string(t), Depth: a.Cause.Depth, Meta: a.Meta})
		}
	}
	return r, nil
}

// Jobs are the notification jobs of the activities someone other than their actor would hear of, and
// the automation jobs whose trigger an enabled rule of their project listens to. listening holds the keys
// ActivitiesRecord answers: "notify/<activity id>" and "project/trigger".
func (r ActivityRecord) Jobs(listening []string) []river.InsertManyParams {
	var out []river.InsertManyParams
	for _, n := range r.notify {
		if slices.Contains(listening, "notify/"+n.ActivityID) {
			out = append(out, river.InsertManyParams{Args: n})
		}
	}
	for _, a := range r.auto {
		if slices.Contains(listening, a.ProjectID+"/"+a.Trigger) {
			out = append(out, river.InsertManyParams{Args: a})
		}
	}
	return out
}

// OrEmpty is s, or an empty slice for nil (which JSON would write as null).
func OrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ActivityDueDateReached is recorded when a card's due date passes.
const ActivityDueDateReached = "due_date_reached"

// ActivityMissionQuestion is recorded when an agent's mission asks its requester a question; it notifies
// the requester only (meta: missionId, question, options).
const ActivityMissionQuestion = "mission_question"

// ActivityPipelineNotice is the activity a pipeline's notify step records; its notifications reach every
// workspace member but the run's starter.
const ActivityPipelineNotice = "pipeline_notice"

// ActivityTypes lists every activity type recorded, once: the event feed's event names and what a
// webhook may listen to (every activity of a workspace reaches its webhooks). A new activity type goes
// here too (TestActivityTypesListsEveryType fails until it does).
var ActivityTypes = []string{
	ActivityCardCreated, ActivityCardUpdated, ActivityCardMoved, ActivityCardArchived, ActivityCardDeleted,
	ActivityCardAssigned, ActivityCommentAdded, ActivityCommentDeleted, ActivityMemberAdded, ActivityMemberRemoved,
	ActivityDueDateReached, ActivityProjectCreated, ActivityProjectUpdated, ActivityProjectDeleted,
	ActivityDocumentCreated, ActivityDocumentUpdated, ActivityDocumentSubmitted, ActivityDocumentReviewed,
	ActivityMissionStatusChanged, ActivityMissionQuestion, ActivityPipelineRunFinished, ActivityPipelineNotice,
	ActivityPilotageRecordCreated, ActivityPilotageRecordUpdated, ActivityPilotageRecordDeleted,
	ActivityPilotageActionProposed, ActivityPilotageActionReviewed, ActivityPilotageActionApplied,
	ActivityWebhookDisabled, ActivityAutomationRulesDisabled,
}

// RuleCause marks a change an automation rule makes: the rule (recorded as meta.automationRuleId) and
// the depth its events carry, one more than the event that ran the rule. The zero value is a change by
// a person or an agent: no rule, depth 0.
type RuleCause struct {
	RuleID string
	Depth  int
}

// Trigger is what makes a project's automation rules run: a kind of change to a card. See
// docs/automations.md for when each fires.
type Trigger string

// The automation triggers.
const (
	TriggerTaskMoved         Trigger = "task_moved"
	TriggerTaskCreated       Trigger = "task_created"
	TriggerChecklistComplete Trigger = "checklist_complete"
	TriggerDueDateReached    Trigger = "due_date_reached"
	TriggerTaskStatusChanged Trigger = "task_status_changed"
	TriggerTaskAssigned      Trigger = "task_assigned"
	TriggerTaskAddedToBoard  Trigger = "task_added_to_board"
	TriggerTaskLabeled       Trigger = "task_labeled"
)

// Triggers lists every trigger.
var Triggers = []Trigger{TriggerTaskMoved, TriggerTaskCreated, TriggerChecklistComplete, TriggerDueDateReached,
	TriggerTaskStatusChanged, TriggerTaskAssigned, TriggerTaskAddedToBoard, TriggerTaskLabeled}

// Values lists the valid triggers (the OpenAPI document's enum).
func (Trigger) Values() []Trigger { return Triggers }

// Valid says whether t is one of Triggers.
func (t Trigger) Valid() bool { return slices.Contains(Triggers, t) }

// TriggersFor maps an activity to the automation triggers it fires.
func TriggersFor(a Activity) []Trigger {
	fields, _ := a.Meta["fields"].([]string)
	switch a.Type {
	case ActivityCardCreated:
		return []Trigger{TriggerTaskCreated, TriggerTaskAddedToBoard}
	case ActivityCardMoved:
		t := []Trigger{TriggerTaskMoved}
		if a.Meta["fromStatus"] != a.Meta["toStatus"] {
			t = append(t, TriggerTaskStatusChanged)
		}
		return t
	case ActivityCardArchived:
		return []Trigger{TriggerTaskStatusChanged}
	case ActivityCardAssigned:
		return []Trigger{TriggerTaskAssigned}
	case ActivityDueDateReached:
		return []Trigger{TriggerDueDateReached}
	case ActivityCardUpdated:
		var t []Trigger
		if slices.Contains(fields, "archived") { // unarchived: back on the board
			t = append(t, TriggerTaskStatusChanged, TriggerTaskAddedToBoard)
		}
		if done, _ := a.Meta["checklistComplete"].(bool); done {
			t = append(t, TriggerChecklistComplete)
		}
		if added, _ := a.Meta["labelAdded"].(string); added != "" {
			t = append(t, TriggerTaskLabeled)
		}
		return t
	}
	return nil
}

// Package jobs holds the River job argument types: the contract between the api, which enqueues jobs
// inside the transaction of the write that causes them, and the workers, which run them.
package jobs

import "time"

// Queue names. Workers subscribe to each with its own concurrency.
const (
	QueueDefault = "default"
	QueueEmail   = "email"
)

// SendEmailArgs sends one e-mail recorded for a domain event (an invitation, say). Topic and RefID make
// the send idempotent: a retried job reuses the outbox row instead of writing a second one.
type SendEmailArgs struct {
	Topic   string `json:"topic"`
	RefID   string `json:"refId"`
	To      string `json:"to"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
	// InvitationID names the invitation a resent invitation e-mail is for, whose RefID then names this
	// sending (the outbox keeps each); empty, an invitation e-mail's RefID is its invitation. The e-mail
	// goes out only while the invitation is pending.
	InvitationID string `json:"invitationId,omitempty"`
}

// Kind implements river.JobArgs.
func (SendEmailArgs) Kind() string { return "send_email" }

// NotifyActivityArgs fans one activity out to notifications for the users it concerns.
type NotifyActivityArgs struct {
	ActivityID string `json:"activityId"`
}

// Kind implements river.JobArgs.
func (NotifyActivityArgs) Kind() string { return "notify_activity" }

// AutomationEventArgs runs a project's enabled rules for one event (trigger) on one card. EventID is the
// activity (or due-date event) that caused it; with the rule it keys the execution, so a retried job
// runs no rule twice. Depth counts how many automation steps led here; past the cap rules are skipped.
type AutomationEventArgs struct {
	EventID   string         `json:"eventId"`
	ProjectID string         `json:"projectId"`
	CardID    string         `json:"cardId"`
	Trigger   string         `json:"trigger"`
	Depth     int            `json:"depth"`
	Meta      map[string]any `json:"meta,omitempty"`
}

// Kind implements river.JobArgs.
func (AutomationEventArgs) Kind() string { return "automation_event" }

// DueDateScanArgs is the periodic scan for cards whose due date has passed.
type DueDateScanArgs struct{}

// Kind implements river.JobArgs.
func (DueDateScanArgs) Kind() string { return "due_date_scan" }

// AttachmentSweepArgs is the periodic removal from storage of the files of deleted attachments (a card,
// project, workspace or organization deleted with its attachments leaves their keys to it).
type AttachmentSweepArgs struct{}

// Kind implements river.JobArgs.
func (AttachmentSweepArgs) Kind() string { return "attachment_sweep" }

// ColumnCountsFoldArgs is the periodic fold of the portfolio's per-column count rows (db.FoldColumnCounts).
type ColumnCountsFoldArgs struct{}

// Kind implements river.JobArgs.
func (ColumnCountsFoldArgs) Kind() string { return "column_counts_fold" }

// QueueMissions is the queue agent missions run on (slow LLM calls stay off the default queue).
const QueueMissions = "missions"

// MissionArgs runs one agent mission.
type MissionArgs struct {
	MissionID string `json:"missionId"`
}

// Kind implements river.JobArgs.
func (MissionArgs) Kind() string { return "agent_mission" }

// MissionClaimExpiryArgs returns an mcpOnly agent's claimed mission to the queue when the MCP client
// holding claim ClaimSeq stayed silent past the claim's deadline. It is scheduled at the deadline; a
// holder who spoke since pushed the deadline back, and the job waits until then.
type MissionClaimExpiryArgs struct {
	MissionID string `json:"missionId"`
	ClaimSeq  int32  `json:"claimSeq"`
}

// Kind implements river.JobArgs.
func (MissionClaimExpiryArgs) Kind() string { return "mission_claim_expiry" }

// MissionInputExpiryArgs ends a mission whose question went unanswered past its deadline (expired). It
// is scheduled at the deadline; a mission answered meanwhile is left alone.
type MissionInputExpiryArgs struct {
	MissionID string `json:"missionId"`
}

// Kind implements river.JobArgs.
func (MissionInputExpiryArgs) Kind() string { return "mission_input_expiry" }

// MissionStaleSweepArgs is the periodic sweep that marks stale the running missions without news.
type MissionStaleSweepArgs struct{}

// Kind implements river.JobArgs.
func (MissionStaleSweepArgs) Kind() string { return "mission_stale_sweep" }

// QueueDrafts is the queue project draft jobs run on (model calls stay off the default queue).
const QueueDrafts = "drafts"

// DraftRefineArgs asks one refinement round's questions for a draft. Run is the draft's run number the
// job was enqueued for: the job writes only while the draft is still refining with that run, so a
// retried, rescued or duplicated job writes once and a superseded one not at all.
type DraftRefineArgs struct {
	DraftID string `json:"draftId"`
	Run     int32  `json:"run"`
}

// Kind implements river.JobArgs.
func (DraftRefineArgs) Kind() string { return "draft_refine" }

// DraftRoadmapArgs writes a draft's roadmap; Run as in DraftRefineArgs.
type DraftRoadmapArgs struct {
	DraftID string `json:"draftId"`
	Run     int32  `json:"run"`
}

// Kind implements river.JobArgs.
func (DraftRoadmapArgs) Kind() string { return "draft_roadmap" }

// PipelineStepArgs runs one step of a pipeline run. The run and step ids are the step key: the step's
// effect commits with its completion, once, however many times the job runs.
type PipelineStepArgs struct {
	RunID  string `json:"runId"`
	StepID string `json:"stepId"`
}

// Kind implements river.JobArgs.
func (PipelineStepArgs) Kind() string { return "pipeline_step" }

// QueueWebhooks is the queue webhook deliveries run on: a slow receiver holds a slot for up to its
// timeout, and must not hold up notifications and automations.
const QueueWebhooks = "webhooks"

// WebhookDeliveryArgs makes one attempt of a webhook delivery (a webhook_deliveries row). The delivery
// keeps its id, the webhook-id header, across attempts; a failed attempt snoozes the job until the next.
type WebhookDeliveryArgs struct {
	DeliveryID string `json:"deliveryId"`
}

// Kind implements river.JobArgs.
func (WebhookDeliveryArgs) Kind() string { return "webhook_delivery" }

// AuditRetentionArgs is the periodic deletion of the audit log's entries older than their retention
// (AUDIT_RETENTION): the only deletes the log's append-only trigger lets through.
type AuditRetentionArgs struct{}

// Kind implements river.JobArgs.
func (AuditRetentionArgs) Kind() string { return "audit_retention" }

// WebhookDeliverySweepArgs is the periodic deletion of finished webhook deliveries older than their
// retention (WEBHOOK_DELIVERY_RETENTION).
type WebhookDeliverySweepArgs struct{}

// Kind implements river.JobArgs.
func (WebhookDeliverySweepArgs) Kind() string { return "webhook_delivery_sweep" }

// ImportArgs runs one import of another tool's export (an imports row). A project of the export is
// created with its report entry in one transaction, so a retried job skips those already made.
type ImportArgs struct {
	ImportID string `json:"importId"`
}

// Kind implements river.JobArgs.
func (ImportArgs) Kind() string { return "import" }

// RecurrenceScanArgs is the periodic creation of the occurrences of recurring cards (on-schedule series)
// whose date has come (docs/recurring.md).
type RecurrenceScanArgs struct{}

// Kind implements river.JobArgs.
func (RecurrenceScanArgs) Kind() string { return "recurrence_scan" }

// RecurrenceNextArgs creates the next occurrence of an after-completion series once its occurrence
// CardID was moved into the done column, at CompletedAt (the completing transaction's time): the next
// occurrence's date follows from it, so a retried job finds the same date already created.
type RecurrenceNextArgs struct {
	SeriesID    string    `json:"seriesId"`
	CardID      string    `json:"cardId"`
	CompletedAt time.Time `json:"completedAt"`
}

// Kind implements river.JobArgs.
func (RecurrenceNextArgs) Kind() string { return "recurrence_next" }

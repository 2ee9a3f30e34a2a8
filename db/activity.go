package db

import (
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// The activity types, the automation triggers and the activity record are the shared plumbing's.
const (
	ActivityCardCreated       = dbcore.ActivityCardCreated
	ActivityCardUpdated       = dbcore.ActivityCardUpdated
	ActivityCardMoved         = dbcore.ActivityCardMoved
	ActivityCardArchived      = dbcore.ActivityCardArchived
	ActivityCardDeleted       = dbcore.ActivityCardDeleted
	ActivityCardAssigned      = dbcore.ActivityCardAssigned
	ActivityCommentAdded      = dbcore.ActivityCommentAdded
	ActivityMemberAdded       = dbcore.ActivityMemberAdded
	ActivityMemberRemoved     = dbcore.ActivityMemberRemoved
	ActivityDocumentSubmitted = dbcore.ActivityDocumentSubmitted
	ActivityDocumentReviewed  = dbcore.ActivityDocumentReviewed
	ActivityDueDateReached    = dbcore.ActivityDueDateReached
	ActivityProjectDeleted    = dbcore.ActivityProjectDeleted
	ActivityPipelineNotice    = dbcore.ActivityPipelineNotice
	ActivityMissionQuestion   = dbcore.ActivityMissionQuestion
	ActivityWebhookDisabled   = dbcore.ActivityWebhookDisabled

	ActivityAutomationRulesDisabled = dbcore.ActivityAutomationRulesDisabled

	TriggerTaskMoved         = dbcore.TriggerTaskMoved
	TriggerTaskCreated       = dbcore.TriggerTaskCreated
	TriggerChecklistComplete = dbcore.TriggerChecklistComplete
	TriggerDueDateReached    = dbcore.TriggerDueDateReached
	TriggerTaskStatusChanged = dbcore.TriggerTaskStatusChanged
	TriggerTaskAssigned      = dbcore.TriggerTaskAssigned
	TriggerTaskAddedToBoard  = dbcore.TriggerTaskAddedToBoard
	TriggerTaskLabeled       = dbcore.TriggerTaskLabeled
)

// ActivityTypes lists every activity type recorded: the event feed's event names, and what webhooks
// listen to.
var ActivityTypes = dbcore.ActivityTypes

// Trigger is what makes a project's automation rules run (see dbcore.Trigger).
type Trigger = dbcore.Trigger

// Triggers lists every automation trigger.
var Triggers = dbcore.Triggers

// Activity is one change to record (see dbcore.Activity).
type Activity = dbcore.Activity

package dbcore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Activity types recorded for the workspace's event feed only: they notify nobody and fire no
// automation (RecordQuietActivities), so the writes that record them gain a statement, never a job.
const (
	ActivityProjectCreated       = "project_created"
	ActivityProjectUpdated       = "project_updated"
	ActivityCommentDeleted       = "comment_deleted"
	ActivityDocumentCreated      = "document_created"
	ActivityDocumentUpdated      = "document_updated"
	ActivityMissionStatusChanged = "mission_status_changed"
	ActivityPipelineRunFinished  = "pipeline_run_finished"
	// Pilotage records (missions, priorities, to-dos, decisions, documents; meta.recordType) and the
	// actions agents propose: the change is the type's suffix, as the pilotage history names it.
	ActivityPilotageRecordCreated  = "pilotage_record_created"
	ActivityPilotageRecordUpdated  = "pilotage_record_updated"
	ActivityPilotageRecordDeleted  = "pilotage_record_deleted"
	ActivityPilotageActionProposed = "pilotage_action_proposed"
	ActivityPilotageActionReviewed = "pilotage_action_reviewed"
	ActivityPilotageActionApplied  = "pilotage_action_applied"
)

// RecordQuietActivities records activities that notify nobody (each is made Quiet) and are of no
// automation trigger (none of these types is), in the caller's transaction: the event feed reads them,
// and a webhook that listens to their type gets its delivery job (RecordActivities); nothing else
// follows from them.
func (c *Core) RecordQuietActivities(ctx context.Context, tx pgx.Tx, acts ...Activity) error {
	for i := range acts {
		acts[i].Quiet = true
		if len(TriggersFor(acts[i])) > 0 {
			return fmt.Errorf("record quiet activity: %s fires automation triggers", acts[i].Type)
		}
	}
	return c.RecordActivities(ctx, tx, acts...)
}

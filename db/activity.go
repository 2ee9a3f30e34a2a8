package db

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

// Activity types (spec Part 6).
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

// Workspace-level activity types (additions to Part 6): a document's review concerns its workspace, not
// a project, so these name the workspace and notify their explicit recipients only.
const (
	// ActivityDocumentSubmitted notifies the workspace's pilotage reviewers and owners.
	ActivityDocumentSubmitted = "document_submitted"
	// ActivityDocumentReviewed notifies the document's author.
	ActivityDocumentReviewed = "document_reviewed"
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
	// cause is set when an automation rule made the change.
	cause ruleCause
	// quiet says nobody but the actor can hear of it (the cards of a project just imported, whose only
	// member is the importer), so no notification job is enqueued: it would notify no one.
	quiet bool
}

// recordActivities stores activities and enqueues their notification fan-out (and the automation
// jobs they cause) through River, in the caller's transaction: if the change rolls back, nobody is
// notified, and when it commits River's insert notification wakes a worker.
func (s *Store) recordActivities(ctx context.Context, tx pgx.Tx, acts ...Activity) error {
	if len(acts) == 0 {
		return nil
	}
	rec, err := newActivityRecord(acts)
	if err != nil {
		return err
	}
	listening, err := queries(tx).ActivitiesRecord(ctx, rec.params)
	if err != nil {
		return fmt.Errorf("record activities: %w", err)
	}
	return s.enqueue(ctx, tx, rec.jobs(listening))
}

// activityRecord is what recording activities takes: the ActivitiesRecord statement (the activities,
// and the automation triggers they may fire) and the jobs to enqueue once the statement has said
// which of those triggers an enabled rule listens to.
type activityRecord struct {
	params dbsqlc.ActivitiesRecordParams
	notify []river.InsertManyParams
	auto   []jobs.AutomationEventArgs
}

func newActivityRecord(acts []Activity) (activityRecord, error) {
	var r activityRecord
	p := &r.params
	for _, a := range acts {
		meta := a.Meta
		if meta == nil {
			meta = map[string]any{}
		}
		if a.cause.ruleID != "" {
			meta["automationRuleId"] = a.cause.ruleID
		}
		metaJSON, err := json.Marshal(meta)
		if err != nil {
			return r, fmt.Errorf("encode activity meta: %w", err)
		}
		recipients, err := json.Marshal(orEmpty(a.Recipients))
		if err != nil {
			return r, fmt.Errorf("encode activity recipients: %w", err)
		}
		id := NewID()
		p.Ids, p.ProjectIds, p.CardIds, p.ActorIds = append(p.Ids, id), append(p.ProjectIds, a.ProjectID), append(p.CardIds, a.CardID), append(p.ActorIds, a.ActorID)
		p.WorkspaceIds, p.DocumentIds = append(p.WorkspaceIds, a.WorkspaceID), append(p.DocumentIds, a.DocumentID)
		p.Types, p.Metas, p.Recipients = append(p.Types, a.Type), append(p.Metas, metaJSON), append(p.Recipients, recipients)
		p.NotifyMembers = append(p.NotifyMembers, !a.OnlyRecipients)
		if !a.quiet {
			r.notify = append(r.notify, river.InsertManyParams{Args: jobs.NotifyActivityArgs{ActivityID: id}})
		}
		if a.CardID == "" || a.ProjectID == "" {
			continue
		}
		for _, t := range triggersFor(a) {
			p.TriggerProjects, p.Triggers = append(p.TriggerProjects, a.ProjectID), append(p.Triggers, t)
			r.auto = append(r.auto, jobs.AutomationEventArgs{EventID: id, ProjectID: a.ProjectID, CardID: a.CardID, Trigger: t, Depth: a.cause.depth, Meta: a.Meta})
		}
	}
	return r, nil
}

// jobs are the notification jobs, and the automation jobs whose trigger an enabled rule of their
// project listens to (listening holds "project/trigger" keys, as ActivitiesRecord answers them).
func (r activityRecord) jobs(listening []string) []river.InsertManyParams {
	out := r.notify
	for _, a := range r.auto {
		if slices.Contains(listening, a.ProjectID+"/"+a.Trigger) {
			out = append(out, river.InsertManyParams{Args: a})
		}
	}
	return out
}

// enqueue inserts jobs through River in the caller's transaction: they become visible with the
// change, and River notifies the workers of their queues on commit.
func (s *Store) enqueue(ctx context.Context, tx pgx.Tx, params []river.InsertManyParams) error {
	if len(params) == 0 {
		return nil
	}
	if _, err := s.River.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue jobs: %w", err)
	}
	return nil
}

// orEmpty is s, or an empty slice for nil (which JSON would write as null).
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// FanOutNotifications creates the notifications of one activity; running it again creates none.
func (s *Store) FanOutNotifications(ctx context.Context, activityID string) (int64, error) {
	n, err := s.q.NotificationFanOut(ctx, activityID)
	if err != nil {
		return 0, fmt.Errorf("fan out notifications: %w", err)
	}
	return n, nil
}

// Notifications lists a user's notifications, newest first.
func (s *Store) Notifications(ctx context.Context, userID string, unreadOnly bool, limit int32) ([]Notification, error) {
	rows, err := s.q.NotificationList(ctx, dbsqlc.NotificationListParams{UserID: userID, UnreadOnly: unreadOnly, Lim: limit})
	return mapRows(rows, func(r dbsqlc.NotificationListRow) Notification { return Notification(r) }), wrap(err, "list notifications")
}

// UnreadNotificationCount counts a user's unread notifications.
func (s *Store) UnreadNotificationCount(ctx context.Context, userID string) (int32, error) {
	n, err := s.q.NotificationCountUnread(ctx, userID)
	return n, wrap(err, "count notifications")
}

// MarkNotificationRead marks one of the user's notifications read.
func (s *Store) MarkNotificationRead(ctx context.Context, userID, id string) (NotificationRead, error) {
	row, err := s.q.NotificationMarkRead(ctx, dbsqlc.NotificationMarkReadParams{ID: id, UserID: userID})
	if isNotFound(err) {
		return NotificationRead{}, notFound("notification not found")
	}
	return NotificationRead(row), wrap(err, "mark notification read")
}

// MarkAllNotificationsRead marks every unread notification of the user read.
func (s *Store) MarkAllNotificationsRead(ctx context.Context, userID string) (int64, error) {
	n, err := s.q.NotificationMarkAllRead(ctx, userID)
	if err != nil {
		return 0, fmt.Errorf("mark all notifications read: %w", err)
	}
	return n, nil
}

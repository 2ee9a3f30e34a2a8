package db

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/dbsqlc"
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

// Activity is one change to record.
type Activity struct {
	ProjectID string
	CardID    string // empty for project-level activity
	ActorID   string
	Type      string
	Meta      map[string]any
	// Recipients are notified besides the project's members (the assignee, an added or removed member).
	Recipients []string
	// OnlyRecipients leaves the project's members out (a due date concerns its assignee).
	OnlyRecipients bool
}

// recordActivities stores activities and enqueues their notification fan-out, in the caller's
// transaction: if the change rolls back, nobody is notified.
func (s *Store) recordActivities(ctx context.Context, tx pgx.Tx, acts ...Activity) error {
	if len(acts) == 0 {
		return nil
	}
	q := s.q.WithTx(tx)
	params := make([]river.InsertManyParams, 0, len(acts))
	for _, a := range acts {
		meta := a.Meta
		if meta == nil {
			meta = map[string]any{}
		}
		if ruleID := automationFrom(ctx).ruleID; ruleID != "" {
			meta["automationRuleId"] = ruleID
		}
		metaJSON, err := json.Marshal(meta)
		if err != nil {
			return fmt.Errorf("encode activity meta: %w", err)
		}
		var cardID *string
		if a.CardID != "" {
			cardID = &a.CardID
		}
		recipients := a.Recipients
		if recipients == nil {
			recipients = []string{}
		}
		var actorID *string
		if a.ActorID != "" {
			actorID = &a.ActorID
		}
		triggers := []string{}
		if a.CardID != "" {
			triggers = append(triggers, triggersFor(a)...)
		}
		row, err := q.ActivityInsert(ctx, dbsqlc.ActivityInsertParams{ID: NewID(), ProjectID: a.ProjectID, CardID: cardID,
			ActorID: actorID, Type: a.Type, Meta: metaJSON, Recipients: recipients, NotifyMembers: !a.OnlyRecipients, Triggers: triggers})
		if err != nil {
			return fmt.Errorf("insert activity: %w", err)
		}
		params = append(params, river.InsertManyParams{Args: jobs.NotifyActivityArgs{ActivityID: row.ID}})
		params = append(params, automationJobs(ctx, row.ID, a, row.Listening)...)
	}
	if _, err := s.River.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue notifications: %w", err)
	}
	return nil
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
func (s *Store) Notifications(ctx context.Context, userID string, unreadOnly bool, limit int32) ([]dbsqlc.NotificationListRow, error) {
	rows, err := s.q.NotificationList(ctx, dbsqlc.NotificationListParams{UserID: userID, UnreadOnly: unreadOnly, Lim: limit})
	return rows, translate(err, "list notifications")
}

// UnreadNotificationCount counts a user's unread notifications.
func (s *Store) UnreadNotificationCount(ctx context.Context, userID string) (int32, error) {
	n, err := s.q.NotificationCountUnread(ctx, userID)
	return n, translate(err, "count notifications")
}

// MarkNotificationRead marks one of the user's notifications read.
func (s *Store) MarkNotificationRead(ctx context.Context, userID, id string) (dbsqlc.NotificationMarkReadRow, error) {
	row, err := s.q.NotificationMarkRead(ctx, dbsqlc.NotificationMarkReadParams{ID: id, UserID: userID})
	if isNotFound(err) {
		return row, notFound("notification not found")
	}
	return row, translate(err, "mark notification read")
}

// MarkAllNotificationsRead marks every unread notification of the user read.
func (s *Store) MarkAllNotificationsRead(ctx context.Context, userID string) (int64, error) {
	n, err := s.q.NotificationMarkAllRead(ctx, userID)
	if err != nil {
		return 0, fmt.Errorf("mark all notifications read: %w", err)
	}
	return n, nil
}

package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
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

	TriggerTaskMoved         = dbcore.TriggerTaskMoved
	TriggerTaskCreated       = dbcore.TriggerTaskCreated
	TriggerChecklistComplete = dbcore.TriggerChecklistComplete
	TriggerDueDateReached    = dbcore.TriggerDueDateReached
	TriggerTaskStatusChanged = dbcore.TriggerTaskStatusChanged
	TriggerTaskAssigned      = dbcore.TriggerTaskAssigned
	TriggerTaskAddedToBoard  = dbcore.TriggerTaskAddedToBoard
)

// Triggers lists every automation trigger.
var Triggers = dbcore.Triggers

// Activity is one change to record (see dbcore.Activity).
type Activity = dbcore.Activity

// recordActivities stores activities and enqueues their jobs in the caller's transaction.
func (s *Store) recordActivities(ctx context.Context, tx pgx.Tx, acts ...Activity) error {
	return s.core.RecordActivities(ctx, tx, acts...)
}

// enqueue inserts jobs through River in the caller's transaction.
func (s *Store) enqueue(ctx context.Context, tx pgx.Tx, params []river.InsertManyParams) error {
	return s.core.Enqueue(ctx, tx, params)
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

package db

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

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

// recordActivities stores activities and enqueues their notification fan-out (and the automation
// jobs they cause), in the caller's transaction and in one statement: if the change rolls back,
// nobody is notified.
func (s *Store) recordActivities(ctx context.Context, tx pgx.Tx, acts ...Activity) error {
	if len(acts) == 0 {
		return nil
	}
	p, err := activitiesParams(ctx, acts)
	if err != nil {
		return err
	}
	if err := s.q.WithTx(tx).ActivitiesRecord(ctx, p); err != nil {
		return fmt.Errorf("record activities: %w", err)
	}
	return nil
}

// activitiesParams builds the ActivitiesRecord statement for acts: the activities, and for each its
// notification fan-out job and one automation job per trigger it fires (inserted only when an enabled
// rule listens to that trigger).
func activitiesParams(ctx context.Context, acts []Activity) (dbsqlc.ActivitiesRecordParams, error) {
	var p dbsqlc.ActivitiesRecordParams
	auto := automationFrom(ctx)
	addJob := func(args river.JobArgs, projectID, trigger string) error {
		j, err := jobRowOf(args)
		if err != nil {
			return err
		}
		p.JobArgs, p.JobKinds, p.JobQueues = append(p.JobArgs, j.args), append(p.JobKinds, j.kind), append(p.JobQueues, j.queue)
		p.JobPriorities, p.JobMaxAttempts = append(p.JobPriorities, j.priority), append(p.JobMaxAttempts, j.maxAttempts)
		p.JobProjects, p.JobTriggers = append(p.JobProjects, projectID), append(p.JobTriggers, trigger)
		return nil
	}
	for _, a := range acts {
		meta := a.Meta
		if meta == nil {
			meta = map[string]any{}
		}
		if auto.ruleID != "" {
			meta["automationRuleId"] = auto.ruleID
		}
		metaJSON, err := json.Marshal(meta)
		if err != nil {
			return p, fmt.Errorf("encode activity meta: %w", err)
		}
		recipients, err := json.Marshal(orEmpty(a.Recipients))
		if err != nil {
			return p, fmt.Errorf("encode activity recipients: %w", err)
		}
		id := NewID()
		p.Ids, p.ProjectIds, p.CardIds, p.ActorIds = append(p.Ids, id), append(p.ProjectIds, a.ProjectID), append(p.CardIds, a.CardID), append(p.ActorIds, a.ActorID)
		p.Types, p.Metas, p.Recipients = append(p.Types, a.Type), append(p.Metas, metaJSON), append(p.Recipients, recipients)
		p.NotifyMembers = append(p.NotifyMembers, !a.OnlyRecipients)
		if err := addJob(jobs.NotifyActivityArgs{ActivityID: id}, a.ProjectID, ""); err != nil {
			return p, err
		}
		if a.CardID == "" {
			continue
		}
		for _, t := range triggersFor(a) {
			args := jobs.AutomationEventArgs{EventID: id, ProjectID: a.ProjectID, CardID: a.CardID, Trigger: t, Depth: auto.depth, Meta: a.Meta}
			if err := addJob(args, a.ProjectID, t); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}

// orEmpty is s, or an empty slice for nil (which JSON would write as null).
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// jobRow is a River job as SQL writes it next to the change that causes it.
type jobRow struct {
	kind, queue           string
	args                  []byte
	priority, maxAttempts int16
}

// jobRowOf encodes args as River's client would insert them: its kind, its JSON, and the queue,
// priority and attempts of its InsertOpts (River's defaults otherwise). Options that need River's
// own insert path (uniqueness, scheduling, tags, metadata) are refused.
func jobRowOf(args river.JobArgs) (jobRow, error) {
	var opts river.InsertOpts
	if a, ok := args.(river.JobArgsWithInsertOpts); ok {
		opts = a.InsertOpts()
	}
	if !opts.ScheduledAt.IsZero() || len(opts.Tags) > 0 || len(opts.Metadata) > 0 || !reflect.ValueOf(opts.UniqueOpts).IsZero() || opts.Pending {
		return jobRow{}, fmt.Errorf("job %s: insert options beyond queue, priority and attempts need River's insert", args.Kind())
	}
	b, err := json.Marshal(args)
	if err != nil {
		return jobRow{}, fmt.Errorf("encode job %s: %w", args.Kind(), err)
	}
	return jobRow{kind: args.Kind(), args: b, queue: cmp.Or(opts.Queue, river.QueueDefault),
		priority: int16(cmp.Or(opts.Priority, river.PriorityDefault)), maxAttempts: int16(cmp.Or(opts.MaxAttempts, river.MaxAttemptsDefault))}, nil
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

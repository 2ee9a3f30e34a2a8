// Package notification is the engine of what reaches people: the notifications an activity fans out
// to a project's members, their read state, and the outbox of e-mails the workers send.
package notification

import (
	"context"
	"fmt"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Engine keeps notifications and the e-mail outbox.
type Engine struct{ core *dbcore.Core }

// New builds the notification engine on store.
func New(core *dbcore.Core) *Engine { return &Engine{core: core} }

// FanOutNotifications creates the notifications of one activity; running it again creates none.
func (e *Engine) FanOutNotifications(ctx context.Context, activityID string) (int64, error) {
	n, err := e.core.Q.NotificationFanOut(ctx, activityID)
	if err != nil {
		return 0, fmt.Errorf("fan out notifications: %w", err)
	}
	return n, nil
}

// Notifications is one page of a user's notifications, newest first. A cursor keeps its place in the
// unread-only list and in the whole one alike (both are in the same order).
func (e *Engine) Notifications(ctx context.Context, userID string, unreadOnly bool,
	p db.Page) (db.Paged[db.Notification], error) {
	k, err := p.AfterTime("notifications", true)
	if err != nil {
		return db.Paged[db.Notification]{}, err
	}
	rows, err := e.core.Q.NotificationPage(ctx, dbsqlc.NotificationPageParams{UserID: userID, UnreadOnly: unreadOnly,
		BeforeAt: k.At, BeforeID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.Notification]{}, dbcore.Wrap(err, "list notifications")
	}
	return db.PageOf(p, "notifications", dbcore.MapRows(rows,
		func(r dbsqlc.NotificationPageRow) db.Notification {
			n := db.Notification{ID: r.ID, UserID: r.UserID, ReadAt: r.ReadAt, CreatedAt: r.CreatedAt, Type: r.Type,
				ActorID: r.ActorID, Meta: r.Meta, CardID: r.CardID, ProjectID: r.ProjectID,
				ActivityCreatedAt: r.ActivityCreatedAt, WorkspaceID: r.WorkspaceID, DocumentID: r.DocumentID,
				ActorName: r.ActorName, SubjectTitle: r.SubjectTitle, ActorType: r.ActorType, AgentID: r.AgentID,
				AgentName: r.AgentName, OnBehalfOf: r.OnBehalfOf, OnBehalfOfName: r.OnBehalfOfName}
			if n.WorkspaceID == nil { // a project's activity records only its project
				n.WorkspaceID = r.ProjectWorkspaceID
			}
			return n
		}),
		func(n db.Notification) any { return db.TimeKey{At: n.CreatedAt, ID: n.ID} }), nil
}

// UnreadNotificationCount counts a user's unread notifications.
func (e *Engine) UnreadNotificationCount(ctx context.Context, userID string) (int32, error) {
	n, err := e.core.Q.NotificationCountUnread(ctx, userID)
	return n, dbcore.Wrap(err, "count notifications")
}

// MarkNotificationRead marks one of the user's notifications read.
func (e *Engine) MarkNotificationRead(ctx context.Context, userID, id string) (db.NotificationRead, error) {
	row, err := e.core.Q.NotificationMarkRead(ctx, dbsqlc.NotificationMarkReadParams{ID: id, UserID: userID})
	if dbcore.IsNotFound(err) {
		return db.NotificationRead{}, dbcore.NotFound("notification not found")
	}
	return db.NotificationRead(row), dbcore.Wrap(err, "mark notification read")
}

// MarkAllNotificationsRead marks every unread notification of the user read.
func (e *Engine) MarkAllNotificationsRead(ctx context.Context, userID string) (int64, error) {
	n, err := e.core.Q.NotificationMarkAllRead(ctx, userID)
	if err != nil {
		return 0, fmt.Errorf("mark all notifications read: %w", err)
	}
	return n, nil
}

// Email is an e-mail to record in the outbox. Topic and RefID name what it is about (an invitation
// and its id, say); Transport is "smtp" or "outbox" (kept, not sent).
type Email struct {
	Topic, RefID      string
	To, Subject, Body string
	Transport         string
}

// RecordEmail records an e-mail in the outbox once per (topic, ref); a retried job gets the same row.
func (e *Engine) RecordEmail(ctx context.Context, m Email) (db.EmailOutbox, error) {
	var ref *string
	if m.RefID != "" {
		ref = &m.RefID
	}
	row, err := e.core.Q.EmailOutboxInsert(ctx, dbsqlc.EmailOutboxInsertParams{ID: dbcore.NewID(), ToAddress: m.To,
		Subject: m.Subject, Body: m.Body, Kind: m.Topic, RefID: ref, Transport: m.Transport})
	if err != nil {
		return db.EmailOutbox(row), fmt.Errorf("record email: %w", err)
	}
	return db.EmailOutbox(row), nil
}

// MarkEmailSent records that the SMTP server accepted an outbox e-mail.
func (e *Engine) MarkEmailSent(ctx context.Context, id string) error {
	return dbcore.Wrap(e.core.Q.EmailOutboxMarkSent(ctx, id), "mark email sent")
}

// Outbox lists every recorded e-mail, oldest first.
func (e *Engine) Outbox(ctx context.Context) ([]db.EmailOutbox, error) {
	rows, err := e.core.Q.EmailOutboxList(ctx)
	return dbcore.MapRows(rows, func(r dbsqlc.EmailOutbox) db.EmailOutbox { return db.EmailOutbox(r) }), dbcore.Wrap(err,
		"list outbox")
}

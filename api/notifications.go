package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/auth"
)

// ActivityOut is what a notification is about.
type ActivityOut struct {
	Type        string          `json:"type" enum:"card_created,card_updated,card_moved,card_archived,card_deleted,card_assigned,comment_added,member_added,member_removed,due_date_reached,document_submitted,document_reviewed,project_deleted,webhook_disabled,automation_rules_disabled,pipeline_notice,mission_question" doc:"What changed: card_created, card_updated, card_moved, card_archived, card_deleted, card_assigned, comment_added, member_added, member_removed and due_date_reached on a project, plus document_submitted (a document was submitted for review; notifies the workspace's pilotage reviewers and owners) and document_reviewed (a review was given; notifies the author, meta has status and notes), project_deleted (a project was deleted; notifies its other members, meta has projectId and name), webhook_disabled (deliveries disabled a webhook; notifies the workspace's admins, meta has webhookId, url and reason), automation_rules_disabled (a member left the workspace and the automation rules they created, which act as them, were disabled; notifies the workspace's admins, meta has userId, removedBy and rules [{id, name, projectId}]) and pipeline_notice (a pipeline's notify step; notifies the workspace's members, meta has message, pipelineId, pipelineName, runId and stepId) and mission_question (an agent asked its mission's requester a question; notifies the requester, meta has missionId, question, options and agentName)"`
	ActorID     *string         `json:"actorId" nullable:"true" doc:"null for system events (a due date passing)"`
	ProjectID   *string         `json:"projectId" nullable:"true" doc:"null for workspace-level activities (document_submitted, document_reviewed, project_deleted)"`
	WorkspaceID *string         `json:"workspaceId,omitempty" doc:"The workspace it happened in (absent when its project is gone)"`
	CardID      *string         `json:"cardId" nullable:"true"`
	DocumentID  *string         `json:"documentId,omitempty" doc:"Set for document activities"`
	Meta        json.RawMessage `json:"meta" doc:"For card activities: title; for card_updated: fields (what changed); for card_moved: fromColumn and toColumn (ids), fromColumnName and toColumnName (recorded since they exist), fromStatus and toStatus; for comment_added: excerpt; for document activities: title, and for document_reviewed also status and notes"`
	ActorName   string          `json:"actorName" doc:"Who acted, by their name now; empty for system events"`
	Title       string          `json:"title" doc:"The card's or document's title: as the activity recorded it, else as it is now; empty when it names neither"`
	CreatedAt   time.Time       `json:"createdAt"`
	ActorFields
}

// NotificationOut is one notification of the caller.
type NotificationOut struct {
	ID        string      `json:"id"`
	UserID    string      `json:"userId"`
	ReadAt    *time.Time  `json:"readAt" nullable:"true"`
	CreatedAt time.Time   `json:"createdAt"`
	Activity  ActivityOut `json:"activity"`
}

func notificationOut(n db.Notification) NotificationOut {
	return NotificationOut{ID: n.ID, UserID: n.UserID, ReadAt: n.ReadAt, CreatedAt: n.CreatedAt, Activity: ActivityOut{
		Type: n.Type, ActorID: n.ActorID, ProjectID: n.ProjectID, WorkspaceID: n.WorkspaceID, CardID: n.CardID,
		DocumentID: n.DocumentID, Meta: n.Meta, ActorName: n.ActorName, Title: n.SubjectTitle,
		CreatedAt: n.ActivityCreatedAt, ActorFields: actorFields(n.Actor())}}
}

// UnreadCountOut is the number of the caller's unread notifications.
type UnreadCountOut struct {
	Count int32 `json:"count"`
}

// ReadAllOut says how many notifications were marked read.
type ReadAllOut struct {
	OK      bool  `json:"ok"`
	Updated int64 `json:"updated"`
}

// NotificationReadOut is a notification marked read.
type NotificationReadOut struct {
	ID     string     `json:"id"`
	ReadAt *time.Time `json:"readAt"`
}

// registerNotifications registers the caller's notifications.
func (s accountOps) registerNotifications() {
	tags := []string{"Notifications"}
	acc := Requires{Scope: auth.ScopeNotificationsRead}

	register(s.Server, huma.Operation{OperationID: "notifications-list", Method: http.MethodGet, Path: "/notifications",
		Summary: "List my notifications, newest first", Tags: tags},
		acc, s.listNotifications)

	register(s.Server, huma.Operation{OperationID: "notifications-count", Method: http.MethodGet,
		Path: "/notifications/count", Summary: "Count my unread notifications", Tags: tags},
		acc, s.countUnreadNotifications)

	register(s.Server, huma.Operation{OperationID: "notifications-read-all", Method: http.MethodPatch,
		Path: "/notifications/read-all", Summary: "Mark all my notifications read", Tags: tags},
		acc, s.markAllNotificationsRead)

	register(s.Server, huma.Operation{OperationID: "notifications-read", Method: http.MethodPatch,
		Path: "/notifications/{id}/read", Summary: "Mark one notification read", Tags: tags,
		Errors: []int{http.StatusNotFound}}, acc, s.markNotificationRead)
}

// ListNotificationsInput is the request of notifications-list.
type ListNotificationsInput struct {
	PageQuery
	UnreadOnly string `query:"unreadOnly" enum:"true,1,false,0" doc:"true or 1: unread only"`
}

func (s accountOps) listNotifications(ctx context.Context,
	in *ListNotificationsInput) (*PageOutput[NotificationOut], error) {
	unreadOnly := in.UnreadOnly == "true" || in.UnreadOnly == "1"
	return pageOf(ctx, notificationOut)(s.notices.Notifications(ctx, principalFrom(ctx).User.ID, unreadOnly, in.page()))
}

func (s accountOps) countUnreadNotifications(ctx context.Context, _ *struct{}) (*Output[UnreadCountOut], error) {
	n, err := s.notices.UnreadNotificationCount(ctx, principalFrom(ctx).User.ID)
	if err != nil {
		return nil, fail(err)
	}
	return &Output[UnreadCountOut]{Body: UnreadCountOut{Count: n}}, nil
}

func (s accountOps) markAllNotificationsRead(ctx context.Context, _ *struct{}) (*Output[ReadAllOut], error) {
	n, err := s.notices.MarkAllNotificationsRead(ctx, principalFrom(ctx).User.ID)
	if err != nil {
		return nil, fail(err)
	}
	return &Output[ReadAllOut]{Body: ReadAllOut{OK: true, Updated: n}}, nil
}

// MarkNotificationReadInput is the request of notifications-read.
type MarkNotificationReadInput struct {
	ID string `path:"id" format:"uuid"`
}

func (s accountOps) markNotificationRead(ctx context.Context,
	in *MarkNotificationReadInput) (*Output[NotificationReadOut], error) {
	return oneOf(func(n db.NotificationRead) NotificationReadOut {
		return NotificationReadOut{ID: n.ID, ReadAt: n.ReadAt}
	})(s.notices.MarkNotificationRead(ctx, principalFrom(ctx).User.ID, in.ID))
}

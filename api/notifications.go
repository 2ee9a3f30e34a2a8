package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/internal/auth"
)

// ActivityOut is what a notification is about.
type ActivityOut struct {
	Type      string          `json:"type"`
	ActorID   *string         `json:"actorId" nullable:"true" doc:"null for system events (a due date passing)"`
	ProjectID string          `json:"projectId"`
	CardID    *string         `json:"cardId" nullable:"true"`
	Meta      json.RawMessage `json:"meta" doc:"For card_moved: fromColumn and toColumn"`
	CreatedAt time.Time       `json:"createdAt"`
}

// NotificationOut is one notification of the caller.
type NotificationOut struct {
	ID        string      `json:"id"`
	UserID    string      `json:"userId"`
	ReadAt    *time.Time  `json:"readAt" nullable:"true"`
	CreatedAt time.Time   `json:"createdAt"`
	Activity  ActivityOut `json:"activity"`
}

func (s *Server) registerNotifications() {
	tags := []string{"Notifications"}
	acc := Access{Scope: auth.ScopeNotificationsRead}

	register(s, huma.Operation{OperationID: "notifications-list", Method: http.MethodGet, Path: "/notifications",
		Summary: "List my notifications, newest first", Tags: tags}, acc,
		func(ctx context.Context, in *struct {
			Limit      int    `query:"limit" minimum:"1" maximum:"200" default:"50"`
			UnreadOnly string `query:"unreadOnly" enum:"true,1,false,0" doc:"true or 1: unread only"`
		}) (*struct{ Body []NotificationOut }, error) {
			limit := in.Limit
			if limit == 0 {
				limit = 50
			}
			rows, err := s.store.Notifications(ctx, principalFrom(ctx).User.ID, in.UnreadOnly == "true" || in.UnreadOnly == "1", int32(limit))
			if err != nil {
				return nil, fail(err)
			}
			out := make([]NotificationOut, len(rows))
			for i, r := range rows {
				out[i] = NotificationOut{ID: r.ID, UserID: r.UserID, ReadAt: r.ReadAt, CreatedAt: r.CreatedAt, Activity: ActivityOut{
					Type: r.Type, ActorID: r.ActorID, ProjectID: r.ProjectID, CardID: r.CardID, Meta: r.Meta, CreatedAt: r.ActivityCreatedAt}}
			}
			return &struct{ Body []NotificationOut }{Body: out}, nil
		})

	register(s, huma.Operation{OperationID: "notifications-count", Method: http.MethodGet, Path: "/notifications/count",
		Summary: "Count my unread notifications", Tags: tags}, acc,
		func(ctx context.Context, _ *struct{}) (*struct {
			Body struct {
				Count int32 `json:"count"`
			}
		}, error) {
			n, err := s.store.UnreadNotificationCount(ctx, principalFrom(ctx).User.ID)
			if err != nil {
				return nil, fail(err)
			}
			out := &struct {
				Body struct {
					Count int32 `json:"count"`
				}
			}{}
			out.Body.Count = n
			return out, nil
		})

	register(s, huma.Operation{OperationID: "notifications-read-all", Method: http.MethodPatch, Path: "/notifications/read-all",
		Summary: "Mark all my notifications read", Tags: tags}, acc,
		func(ctx context.Context, _ *struct{}) (*struct {
			Body struct {
				OK      bool  `json:"ok"`
				Updated int64 `json:"updated"`
			}
		}, error) {
			n, err := s.store.MarkAllNotificationsRead(ctx, principalFrom(ctx).User.ID)
			if err != nil {
				return nil, fail(err)
			}
			out := &struct {
				Body struct {
					OK      bool  `json:"ok"`
					Updated int64 `json:"updated"`
				}
			}{}
			out.Body.OK, out.Body.Updated = true, n
			return out, nil
		})

	register(s, huma.Operation{OperationID: "notifications-read", Method: http.MethodPatch, Path: "/notifications/{id}/read",
		Summary: "Mark one notification read", Tags: tags, Errors: []int{http.StatusNotFound}}, acc,
		func(ctx context.Context, in *struct {
			ID string `path:"id"`
		}) (*struct {
			Body struct {
				ID     string     `json:"id"`
				ReadAt *time.Time `json:"readAt"`
			}
		}, error) {
			row, err := s.store.MarkNotificationRead(ctx, principalFrom(ctx).User.ID, in.ID)
			if err != nil {
				return nil, fail(err)
			}
			out := &struct {
				Body struct {
					ID     string     `json:"id"`
					ReadAt *time.Time `json:"readAt"`
				}
			}{}
			out.Body.ID, out.Body.ReadAt = row.ID, row.ReadAt
			return out, nil
		})
}

package api

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/internal/auth"
)

// AuditEntryOut is an entry of the audit log: an event, who did it from where, its target and what
// changed.
type AuditEntryOut struct {
	ID             string         `json:"id"`
	At             time.Time      `json:"at"`
	Kind           db.AuditKind   `json:"kind"`
	OrganizationID *string        `json:"organizationId" doc:"Null for an account event (a sign-in, a password change)"`
	WorkspaceID    *string        `json:"workspaceId"`
	ActorID        *string        `json:"actorId" doc:"The user who acted; null for a failed sign-in"`
	ActorEmail     string         `json:"actorEmail" doc:"The address tried, for a failed sign-in"`
	ClientIP       string         `json:"clientIp"`
	UserAgent      string         `json:"userAgent"`
	TargetType     string         `json:"targetType" example:"webhook"`
	TargetID       string         `json:"targetId"`
	TargetName     string         `json:"targetName"`
	Changes        map[string]any `json:"changes" doc:"What changed: before and after, or the fields the event names; never a secret"`
}

func auditEntryOut(r db.AuditLog) AuditEntryOut {
	changes := map[string]any{}
	_ = json.Unmarshal(r.Changes, &changes) // an object written by json.Marshal (db/audit)
	return AuditEntryOut{ID: r.ID, At: r.At, Kind: db.AuditKind(r.Kind), OrganizationID: r.OrganizationID,
		WorkspaceID: r.WorkspaceID, ActorID: r.ActorID, ActorEmail: r.ActorEmail, ClientIP: r.ClientIP,
		UserAgent: r.UserAgent, TargetType: r.TargetType, TargetID: r.TargetID, TargetName: r.TargetName,
		Changes: changes}
}

// AuditFilterQuery filters an audit log: by actor, kinds and time.
type AuditFilterQuery struct {
	Actor string         `query:"actor" format:"uuid" doc:"Only the entries of this user"`
	Kind  []db.AuditKind `query:"kind,explode" maxItems:"50" doc:"Only entries of these kinds (repeat the parameter)"`
	Since time.Time      `query:"since" doc:"Only entries at or after this time (RFC 3339)"`
	Until time.Time      `query:"until" doc:"Only entries before this time (RFC 3339)"`
}

func (q AuditFilterQuery) filter() (audit.Filter, error) {
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Until.After(q.Since) {
		return audit.Filter{}, errBadRequest("until must be after since")
	}
	return audit.Filter{ActorID: q.Actor, Kinds: q.Kind, Since: q.Since, Until: q.Until}, nil
}

// AuditLogInput is the request of organizations-audit-log.
type AuditLogInput struct {
	OrgPath
	AuditFilterQuery
	PageQuery
}

// AuditLogExportInput is the request of organizations-audit-log-export.
type AuditLogExportInput struct {
	OrgPath
	AuditFilterQuery
	Format audit.Format `query:"format" default:"jsonl" doc:"jsonl: one JSON object per line; csv: a header row, then one row per entry"`
}

// AccountAuditLogInput is the request of auth-audit-log.
type AccountAuditLogInput struct {
	Kind  []db.AuditKind `query:"kind,explode" maxItems:"50" doc:"Only entries of these kinds (repeat the parameter)"`
	Since time.Time      `query:"since" doc:"Only entries at or after this time (RFC 3339)"`
	Until time.Time      `query:"until" doc:"Only entries before this time (RFC 3339)"`
	PageQuery
}

// registerAuditLog registers the organization's audit log, its export, and the account's.
func (s tenancyOps) registerAuditLog() {
	tags := []string{"Audit log"}
	// Owners and admins only: the log names every member's sign-in address and client.
	orgAudit := Requires{Scope: auth.ScopeProjectsRead, OrgRole: "admin", KeepsTenancy: true}
	entry := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[AuditEntryOut](), true, "")
	register(s.Server, huma.Operation{OperationID: "organizations-audit-log", Method: http.MethodGet,
		Path: pathOrganization + "/audit-log", Summary: "List the organization's audit log", Tags: tags,
		Description: "Security and administration events of the organization (members, invitations, roles, webhooks, " +
			"automations, pipelines, exports and imports, deletions, plugins), newest first, with who acted, from " +
			"which address and client, the target and what changed. Organization owners and admins only. Entries " +
			"are never changed nor deleted, but by the retention (AUDIT_RETENTION)."},
		orgAudit, s.listAuditLog)
	register(s.Server, huma.Operation{OperationID: "organizations-audit-log-export", Method: http.MethodGet,
		Path: pathOrganization + "/audit-log/export", Summary: "Export the organization's audit log", Tags: tags,
		Description: "Every entry matching the filters, newest first, as a download: JSON lines (one entry per line, " +
			"as the list shows it, \"\" for an absent id) or CSV (a header row, then the same fields; changes as JSON).",
		Responses: map[string]*huma.Response{"200": {
			Description: "The entries",
			Headers: map[string]*huma.Param{"Content-Disposition": {Description: "attachment; filename=\"audit-log.…\"",
				Schema: &huma.Schema{Type: huma.TypeString}}},
			Content: map[string]*huma.MediaType{
				"application/x-ndjson": {Schema: entry},
				"text/csv":             {Schema: &huma.Schema{Type: huma.TypeString}},
			}}}},
		orgAudit, s.exportAuditLog)
	register(s.Server, huma.Operation{OperationID: "auth-audit-log", Method: http.MethodGet,
		Path: "/auth/audit-log", Summary: "List the caller's account audit log", Tags: tags,
		Description: "The account's own security events, which belong to no organization: sign-ins (and failed " +
			"ones to this account), password and second-factor changes, sessions ended, tokens created and revoked, " +
			"single sign-on links. Newest first."},
		Requires{Scope: auth.ScopeAccountRead, KeepsTenancy: true}, s.listAccountAuditLog)
}

func (s tenancyOps) listAuditLog(ctx context.Context, in *AuditLogInput) (*PageOutput[AuditEntryOut], error) {
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	return pageOf(ctx, auditEntryOut)(s.audit.List(ctx, accessFrom(ctx).OrgID, f, in.page()))
}

func (s tenancyOps) exportAuditLog(ctx context.Context, in *AuditLogExportInput) (*huma.StreamResponse, error) {
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	format := in.Format
	if format == "" {
		format = audit.JSONLines
	}
	orgID := accessFrom(ctx).OrgID
	contentType, name := "application/x-ndjson", "audit-log.jsonl"
	if format == audit.CSV {
		contentType, name = "text/csv; charset=utf-8", "audit-log.csv"
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		hctx.SetHeader("Content-Type", contentType)
		hctx.SetHeader("Content-Disposition", contentDisposition(name))
		hctx.SetHeader("Cache-Control", privateCacheControl)
		hctx.SetStatus(http.StatusOK)
		if err := s.audit.Export(ctx, orgID, f, format, hctx.BodyWriter()); err != nil {
			// The status is sent: a cut export ends short, and the log says why.
			s.logger.WarnContext(ctx, "export audit log", "error", err)
		}
	}}, nil
}

func (s tenancyOps) listAccountAuditLog(ctx context.Context,
	in *AccountAuditLogInput) (*PageOutput[AuditEntryOut], error) {
	f, err := AuditFilterQuery{Kind: in.Kind, Since: in.Since, Until: in.Until}.filter()
	if err != nil {
		return nil, err
	}
	return pageOf(ctx, auditEntryOut)(s.audit.ListAccount(ctx, principalFrom(ctx).User.ID, f, in.page()))
}

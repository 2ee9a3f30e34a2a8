package db

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
)

// AuditKind is the kind of an audit log entry: a security or administration event (docs/audit.md).
type AuditKind string

// The audit kinds. Account events (sign-ins, passwords, the second factor, sessions, tokens, single
// sign-on links) belong to no organization; the others to the organization they happened in.
const (
	AuditSignIn               AuditKind = "sign_in"
	AuditSignInFailed         AuditKind = "sign_in_failed"
	AuditPasswordChanged      AuditKind = "password_changed"
	AuditPasswordReset        AuditKind = "password_reset"
	AuditTwoFactorEnabled     AuditKind = "two_factor_enabled"
	AuditTwoFactorDisabled    AuditKind = "two_factor_disabled"
	AuditSessionEnded         AuditKind = "session_ended"
	AuditTokenCreated         AuditKind = "token_created"
	AuditTokenRevoked         AuditKind = "token_revoked"
	AuditSSOLinked            AuditKind = "sso_linked"
	AuditSSOUnlinked          AuditKind = "sso_unlinked"
	AuditMemberInvited        AuditKind = "member_invited"
	AuditInvitationRevoked    AuditKind = "invitation_revoked"
	AuditMemberAdded          AuditKind = "member_added"
	AuditMemberChanged        AuditKind = "member_changed"
	AuditMemberRemoved        AuditKind = "member_removed"
	AuditWebhookCreated       AuditKind = "webhook_created"
	AuditWebhookChanged       AuditKind = "webhook_changed"
	AuditWebhookDeleted       AuditKind = "webhook_deleted"
	AuditAutomationCreated    AuditKind = "automation_created"
	AuditAutomationChanged    AuditKind = "automation_changed"
	AuditAutomationDeleted    AuditKind = "automation_deleted"
	AuditPipelineCreated      AuditKind = "pipeline_created"
	AuditPipelineChanged      AuditKind = "pipeline_changed"
	AuditPipelineDeleted      AuditKind = "pipeline_deleted"
	AuditProjectExported      AuditKind = "project_exported"
	AuditProjectImported      AuditKind = "project_imported"
	AuditOrganizationDeleted  AuditKind = "organization_deleted"
	AuditWorkspaceDeleted     AuditKind = "workspace_deleted"
	AuditProjectDeleted       AuditKind = "project_deleted"
	AuditPluginInstalled      AuditKind = "plugin_installed"
	AuditPluginUninstalled    AuditKind = "plugin_uninstalled"
	AuditPluginSettingsChange AuditKind = "plugin_settings_changed"
)

// AuditKinds lists every audit kind.
var AuditKinds = []AuditKind{AuditSignIn, AuditSignInFailed, AuditPasswordChanged, AuditPasswordReset,
	AuditTwoFactorEnabled, AuditTwoFactorDisabled, AuditSessionEnded, AuditTokenCreated, AuditTokenRevoked,
	AuditSSOLinked, AuditSSOUnlinked, AuditMemberInvited, AuditInvitationRevoked, AuditMemberAdded,
	AuditMemberChanged, AuditMemberRemoved, AuditWebhookCreated, AuditWebhookChanged, AuditWebhookDeleted,
	AuditAutomationCreated, AuditAutomationChanged, AuditAutomationDeleted, AuditPipelineCreated,
	AuditPipelineChanged, AuditPipelineDeleted, AuditProjectExported, AuditProjectImported,
	AuditOrganizationDeleted, AuditWorkspaceDeleted, AuditProjectDeleted, AuditPluginInstalled,
	AuditPluginUninstalled, AuditPluginSettingsChange}

// Values lists the audit kinds (the OpenAPI document's enum).
func (AuditKind) Values() []AuditKind { return AuditKinds }

// Valid says whether k is one of AuditKinds.
func (k AuditKind) Valid() bool { return slices.Contains(AuditKinds, k) }

// AuditTarget names what an event acted on: its type ("user", "workspace", "webhook", …), id and name
// as they were at the time.
type AuditTarget struct {
	Type, ID, Name string
}

// AuditEntry is an event to record. Its organization is OrganizationID, or else WorkspaceID's, or else
// ProjectID's; none of them for an account event. ActorID is the user who acted ("" takes the request's
// caller, see audit.WithRequest; still "" for a failed sign-in, whose ActorEmail is the address tried).
// Changes is marshalled as JSON ({"before": …, "after": …} or the fields the event names): never a
// secret, a password hash or a token.
type AuditEntry struct {
	Kind                                   AuditKind
	OrganizationID, WorkspaceID, ProjectID string
	ActorID, ActorEmail                    string
	Target                                 AuditTarget
	Changes                                any
}

// Auditor records an audit entry in the caller's transaction, so the change and its entry commit
// together or not at all. db/audit's engine implements it; the store and the engines that record are
// handed it when they are built (db/engines).
type Auditor interface {
	RecordTx(ctx context.Context, tx pgx.Tx, e AuditEntry) error
}

package db

import (
	"encoding/json"
	"time"
)

// The rows the store answers, one struct per table. Each has its table's columns in the schema's
// order, the fields the generated row has, so the store converts a generated row into it with a plain
// conversion (Agent(row)) that copies nothing more than the struct; a column added to the schema is
// added here too, or that conversion stops compiling.

// APIToken is a personal access token (its hash, scopes and expiry, never the token).
type APIToken struct {
	ID         string
	UserID     string
	Name       string
	Prefix     string
	SecretHash []byte
	Scopes     []string
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	CreatedAt  time.Time
}

// AuditLog is an entry of the audit log (db/audit): an event, who did it from where, its target and what
// changed. Entries are never changed (migration 00044).
type AuditLog struct {
	ID             string
	OrganizationID *string
	WorkspaceID    *string
	At             time.Time
	Kind           string
	ActorID        *string
	ActorEmail     string
	ClientIP       string
	UserAgent      string
	TargetType     string
	TargetID       string
	TargetName     string
	Changes        json.RawMessage
}

// Agent is an AI agent of a workspace, with its limits and the tools it may use.
type Agent struct {
	ID                   string
	WorkspaceID          string
	UserID               string
	Name                 string
	Slug                 string
	Description          string
	AutonomyMode         string
	Tools                []string
	McpOnly              bool
	MaxSteps             int32
	MaxActionsPerMission int32
	MaxMissionsPerHour   int32
	CreatedBy            string
	CreatedAt            time.Time
	UpdatedAt            time.Time
	// Enabled is false for an agent turned off: its new missions are refused.
	Enabled bool
	// Model is the model its missions ask the OpenAI-compatible server for (empty: the server's default).
	Model string
}

// AgentMission is a mission given to an agent on a card, with its status and progress.
type AgentMission struct {
	ID             string
	WorkspaceID    string
	AgentID        string
	ProjectID      *string
	CardID         *string
	Source         string
	Objective      string
	Status         string
	MaxSteps       int32
	Steps          int32
	Actions        int32
	JobID          *int64
	CreatedBy      string
	CreatedAt      time.Time
	StartedAt      *time.Time
	FinishedAt     *time.Time
	CancelledAt    *time.Time
	Error          *string
	ClaimedBy      *string
	ClaimExpiresAt *time.Time
	ClaimSeq       int32
	// The lifecycle (migration 00040): why a stopped mission stopped, the pending question of one awaiting
	// input, when that question expires, and the conversation it resumes from.
	StopReason    *string
	Question      []byte
	InputDeadline *time.Time
	Conversation  []byte
	// The mission's accounting (migration 00041): model calls made, the tokens they used, the time spent
	// waiting for people (awaiting_*: the wait in progress is not in WaitingMs yet) and when the status
	// last changed.
	ModelTurns       int32
	PromptTokens     int64
	CompletionTokens int64
	WaitingMs        int64
	StatusChangedAt  *time.Time
}

// AgentProposal is a change an agent proposes during a mission, waiting for a person to decide.
type AgentProposal struct {
	ID          string
	MissionID   string
	WorkspaceID string
	StepKey     string
	Tool        string
	Args        json.RawMessage
	Explanation string
	Status      string
	Reason      *string
	DecidedBy   *string
	DecidedAt   *time.Time
	CreatedAt   time.Time
}

// Attachment is a file attached to a card.
type Attachment struct {
	ID           string
	CardID       string
	UploadedBy   string
	OriginalName string
	MimeType     string
	Size         int64
	StorageKey   string
	CreatedAt    time.Time
}

// AutomationRule is an automation rule of a project: a trigger, conditions and actions.
type AutomationRule struct {
	ID         string
	ProjectID  string
	Name       string
	Trigger    string
	Conditions json.RawMessage
	Action     json.RawMessage
	Enabled    bool
	CreatedBy  string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// AutomationTrace is one run of an automation rule: what triggered it and what it did.
type AutomationTrace struct {
	ID        string
	RuleID    string
	EventID   string
	CardID    *string
	Trigger   string
	Depth     int32
	Result    string
	Reason    string
	CreatedAt time.Time
}

// BillingCheckout is a checkout session opened with the billing provider for an organization.
type BillingCheckout struct {
	ID             string
	OrganizationID string
	Provider       string
	ExternalID     string
	URL            string
	Status         string
	CreatedBy      string
	CreatedAt      time.Time
}

// CardRelation is a relation between two cards (blocks, relates to, duplicates).
type CardRelation struct {
	ID           string
	ProjectID    string
	CardID       string
	TargetCardID string
	Type         string
	CreatedBy    string
	CreatedAt    time.Time
}

// Column is a column of a project's board.
type Column struct {
	ID        string
	ProjectID string
	Name      string
	Position  int32
	CreatedAt time.Time
}

// CustomField is a custom field defined on a project.
type CustomField struct {
	ID        string
	ProjectID string
	Name      string
	Type      string
	Options   []string
	CreatedAt time.Time
}

// EmailOutbox is an e-mail recorded in the outbox, sent or kept.
type EmailOutbox struct {
	ID        string
	ToAddress string
	Subject   string
	Body      string
	Kind      string
	RefID     *string
	Transport string
	SentAt    *time.Time
	CreatedAt time.Time
}

// Label is a label of a project.
type Label struct {
	ID        string
	ProjectID string
	Name      string
	Color     string
	CreatedAt time.Time
}

// Organization is an organization, the tenant that holds workspaces.
type Organization struct {
	ID         string
	Name       string
	Slug       string
	OwnerID    string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	IsPersonal bool
}

// OrganizationDomain is an e-mail domain of an organization: people whose verified address has it join
// the organization as members (db/tenancy/domains.go).
type OrganizationDomain struct {
	ID             string
	OrganizationID string
	Domain         string
	CreatedBy      *string
	CreatedAt      time.Time
}

// OrganizationInvitation is an invitation to join an organization with a role.
type OrganizationInvitation struct {
	ID             string
	OrganizationID string
	Email          string
	Role           string
	TokenHash      []byte
	InvitedBy      string
	ExpiresAt      time.Time
	AcceptedAt     *time.Time
	AcceptedBy     *string
	EmailJobID     *int64
	CreatedAt      time.Time
}

// PilotageAction is an action proposed to the cockpit, reviewed and applied by a person.
type PilotageAction struct {
	ID             string
	WorkspaceID    string
	ActionType     string
	Explanation    string
	Payload        json.RawMessage
	Status         string
	ProposedBy     string
	AgentMissionID *string
	ReviewedBy     *string
	ReviewedAt     *time.Time
	ReviewReason   *string
	AppliedBy      *string
	AppliedAt      *time.Time
	Result         json.RawMessage
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// PilotageDecision is a decision recorded in the cockpit.
type PilotageDecision struct {
	ID          string
	WorkspaceID string
	Title       string
	Impact      string
	CreatedBy   string
	UpdatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// PilotageDoc is a document tracked by the cockpit.
type PilotageDoc struct {
	ID          string
	WorkspaceID string
	Title       string
	Owner       string
	SourceType  string
	CreatedBy   string
	UpdatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// PilotageHistoryEntry is one entry of the cockpit's history.
type PilotageHistoryEntry struct {
	ID          string
	WorkspaceID string
	RecordType  string
	RecordID    string
	Change      string
	ActorID     string
	Data        json.RawMessage
	CreatedAt   time.Time
}

// PilotageMission is a strategic mission of the cockpit (not an agent's mission).
type PilotageMission struct {
	ID            string
	WorkspaceID   string
	Objective     string
	Module        string
	Status        string
	BlockedReason *string
	CreatedBy     string
	UpdatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// PilotagePriority is a priority of the cockpit.
type PilotagePriority struct {
	ID          string
	WorkspaceID string
	Label       string
	Module      string
	Active      bool
	CreatedBy   string
	UpdatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// PilotageTodo is a to-do of the cockpit.
type PilotageTodo struct {
	ID          string
	WorkspaceID string
	Label       string
	MissionID   *string
	PriorityID  *string
	Status      string
	DueDate     *time.Time
	CreatedBy   string
	UpdatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Pipeline is a pipeline of a workspace: a graph of steps.
type Pipeline struct {
	ID          string
	WorkspaceID string
	Name        string
	Description string
	Steps       json.RawMessage
	Enabled     bool
	CreatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// PipelineRun is one run of a pipeline.
type PipelineRun struct {
	ID           string
	PipelineID   string
	WorkspaceID  string
	PipelineName string
	Status       string
	Error        *string
	StartedBy    string
	CreatedAt    time.Time
	FinishedAt   *time.Time
	CancelledAt  *time.Time
}

// PipelineRunStep is one step of a pipeline run, with its state and output.
type PipelineRunStep struct {
	RunID      string
	StepID     string
	Position   int32
	Type       string
	Params     json.RawMessage
	Needs      []string
	Status     string
	Output     []byte
	Error      *string
	JobID      *int64
	WaitRef    *string
	Attempts   int32
	StartedAt  *time.Time
	FinishedAt *time.Time
}

// Project is a project of a workspace.
type Project struct {
	ID          string
	WorkspaceID string
	Name        string
	Description string
	Deadline    *time.Time
	TemplateID  *string
	CreatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// ArchivedAt is when the project was archived (nil while it is not): readable and restorable, its
	// cards read-only.
	ArchivedAt *time.Time
}

// Scope is a scope of a project: a named, dated part with the view it shows.
type Scope struct {
	ID          string
	ProjectID   string
	Name        string
	Description string
	StartDate   *time.Time
	EndDate     *time.Time
	Settings    json.RawMessage
	ActiveView  string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Session is a server-side session: the row a session JWT names (its jti).
type Session struct {
	ID         string
	UserID     string
	Device     string
	UserAgent  string
	ClientIP   string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	RevokedAt  *time.Time
}

// Skill is a skill of a workspace that agents can be given.
type Skill struct {
	ID           string
	WorkspaceID  string
	Name         string
	Description  string
	Instructions string
	CreatedBy    string
	CreatedAt    time.Time
}

// StreamEvent is one event of a live stream (a mission's, a draft's or a run's).
type StreamEvent struct {
	StreamID  string
	Seq       int64
	Type      string
	Status    string
	Message   string
	Data      json.RawMessage
	Final     bool
	CreatedAt time.Time
}

// User is a user account (with the password hash and second-factor secret).
type User struct {
	ID             string
	Email          string
	Name           string
	JobTitle       string
	PasswordHash   string
	EmailVerified  bool
	PilotageRole   string
	SessionVersion int32
	TotpSecret     *string
	TotpEnabled    bool
	TotpLastStep   int64
	IsService      bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// UserIdentity links an OpenID Connect provider's subject to an account (db/identity/external.go).
type UserIdentity struct {
	ID         string
	UserID     string
	Provider   string
	Subject    string
	Email      string
	CreatedAt  time.Time
	LastUsedAt time.Time
}

// Workspace is a workspace of an organization.
type Workspace struct {
	ID             string
	OrganizationID string
	Name           string
	Slug           string
	OwnerID        string
	IsPersonal     bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// WorkspaceInvitation is an invitation to join a workspace.
type WorkspaceInvitation struct {
	ID          string
	WorkspaceID string
	Email       string
	Role        string
	TokenHash   []byte
	InvitedBy   string
	ExpiresAt   time.Time
	AcceptedAt  *time.Time
	AcceptedBy  *string
	CreatedAt   time.Time
	EmailJobID  *int64
}

// WorkspacePlugin is a plugin installed in a workspace, with its settings.
type WorkspacePlugin struct {
	WorkspaceID string
	PluginID    string
	Settings    json.RawMessage
	InstalledBy string
	InstalledAt time.Time
	UpdatedAt   time.Time
}

package db

import (
	"encoding/json"
	"time"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// The store's types. A table's row type is the one sqlc generates from the schema, named here so that
// nothing outside db imports the generated package: the schema is the single definition of its
// fields. A query that reads something other than one table's row answers one of the structs below,
// which the store converts the generated row into, so that the api sees one type per concept however
// many queries read it.
//
//nolint:revive // exported: one comment documents the group of sqlc row aliases; each is its table's row
type (
	Agent                = dbsqlc.Agent
	AgentMission         = dbsqlc.AgentMission
	AgentProposal        = dbsqlc.AgentProposal
	APIToken             = dbsqlc.ApiToken
	Attachment           = dbsqlc.Attachment
	AutomationRule       = dbsqlc.AutomationRule
	AutomationTrace      = dbsqlc.AutomationTrace
	BillingCheckout      = dbsqlc.BillingCheckout
	CardRelation         = dbsqlc.CardRelation
	Column               = dbsqlc.Column
	CustomField          = dbsqlc.CustomField
	EmailOutbox          = dbsqlc.EmailOutbox
	Label                = dbsqlc.Label
	Organization         = dbsqlc.Organization
	PilotageAction       = dbsqlc.PilotageAction
	PilotageDecision     = dbsqlc.PilotageDecision
	PilotageDoc          = dbsqlc.PilotageDoc
	PilotageHistoryEntry = dbsqlc.PilotageHistory
	PilotageMission      = dbsqlc.PilotageMission
	PilotagePriority     = dbsqlc.PilotagePriority
	PilotageTodo         = dbsqlc.PilotageTodo
	Project              = dbsqlc.Project
	Scope                = dbsqlc.Scope
	Skill                = dbsqlc.Skill
	StreamEvent          = dbsqlc.StreamEvent
	User                 = dbsqlc.User
	Workspace            = dbsqlc.Workspace
	WorkspaceInvitation  = dbsqlc.WorkspaceInvitation
)

// Notification is one of a user's notifications with the activity it tells of.
type Notification struct {
	ID                string
	UserID            string
	ReadAt            *time.Time
	CreatedAt         time.Time
	Type              string
	ActorID           *string
	Meta              json.RawMessage
	CardID            *string
	ProjectID         *string // nil for workspace-level activities (document reviews)
	ActivityCreatedAt time.Time
	WorkspaceID       *string // set for workspace-level activities only
	DocumentID        *string
}

// NotificationRead is a notification marked read.
type NotificationRead struct {
	ID     string
	ReadAt *time.Time
}

// MyOrganization is an organization with the caller's role in it.
type MyOrganization struct {
	ID         string
	Name       string
	Slug       string
	OwnerID    string
	CreatedAt  time.Time
	MyRole     string
	IsPersonal bool
}

// OrganizationMember is a member of an organization with their role.
type OrganizationMember struct {
	UserID    string
	Role      string
	Email     string
	Name      string
	CreatedAt time.Time
}

// WorkspaceMember is a member of a workspace with their roles.
type WorkspaceMember struct {
	UserID       string
	Role         string
	PilotageRole string
	Email        string
	Name         string
	CreatedAt    time.Time
}

// ProjectMember is a member of a project.
type ProjectMember struct {
	UserID    string
	Email     string
	Name      string
	CreatedAt time.Time
}

// UserRef is a user as a member list names them.
type UserRef struct {
	ID    string
	Email string
	Name  string
}

// AccessibleWorkspace is a workspace the caller may see, with their roles in it (nil when they see it
// as an organization owner or admin without being a member).
type AccessibleWorkspace struct {
	ID                 string
	OrganizationID     string
	Name               string
	Slug               string
	OwnerID            string
	IsPersonal         bool
	CreatedAt          time.Time
	UpdatedAt          time.Time
	MemberRole         *string
	MemberPilotageRole *string
}

// RoadmapCard is a card as the roadmap shows it.
type RoadmapCard struct {
	ID        string
	Title     string
	ColumnID  string
	ScopeID   *string
	StartDate *time.Time
	DueDate   *time.Time
	Priority  string
}

// NewCheckout is a billing checkout session to record.
type NewCheckout struct {
	OrganizationID string
	Provider       string
	ExternalID     string
	URL            string
	Status         string
	CreatedBy      string
}

// mapRows converts generated rows into the store's type.
func mapRows[R, T any](rows []R, f func(R) T) []T { return dbcore.MapRows(rows, f) }

// Pipeline, run and plugin rows (migration 00016).
//
//nolint:revive // exported: one comment documents the group of sqlc row aliases; each is its table's row
type (
	Pipeline        = dbsqlc.Pipeline
	PipelineRun     = dbsqlc.PipelineRun
	PipelineRunStep = dbsqlc.PipelineRunStep
	WorkspacePlugin = dbsqlc.WorkspacePlugin
)

// Document is a document of the knowledge base, with its content.
type Document struct {
	ID            string
	WorkspaceID   string
	ParentID      *string
	Title         string
	Content       string
	ContentFormat string
	DocType       string
	ContextType   string
	ContextID     string
	Tags          []string
	Metadata      json.RawMessage
	Status        string
	AuthorID      string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// DocumentSummary is a document without its content, as lists show it.
type DocumentSummary struct {
	ID            string
	WorkspaceID   string
	ParentID      *string
	Title         string
	ContentFormat string
	DocType       string
	ContextType   string
	ContextID     string
	Tags          []string
	Metadata      json.RawMessage
	Status        string
	AuthorID      string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// DocumentNode is a document of the tree with its children.
type DocumentNode struct {
	DocumentSummary
	Children []DocumentNode
}

// DocumentReview is one review of a document.
type DocumentReview struct {
	ID           string
	DocumentID   string
	ReviewerID   string
	ReviewerName string
	Status       string
	Notes        string
	CreatedAt    time.Time
}

// DocumentWithReviews is a document with every review it received, oldest first.
type DocumentWithReviews struct {
	Document
	Reviews []DocumentReview
}

// SearchResult is a document or card matching a search. ProjectID is set for cards; DocType and
// Status for documents.
type SearchResult struct {
	Kind      string
	ID        string
	ProjectID *string
	Title     string
	Rank      float32
	Snippet   string
	DocType   *string
	Status    *string
	UpdatedAt time.Time
}

package db

import (
	"encoding/json"
	"time"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// The store's types beside its rows (rows.go): a query that reads something other than one table's
// row answers one of the structs below, which the store converts the generated row into, so that the
// api sees one type per concept however many queries read it and nothing outside db sees the
// generated package.

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
	WorkspaceID       *string // the workspace it happened in (nil when its project is gone)
	DocumentID        *string
	ActorName         string // who acted, by name now; empty for the system (a due date passing)
	SubjectTitle      string // the card's or document's title (as recorded, else as it is now)
	// Who acted, as ActorColumns says: agent, person or system; the agent, and the person it acted for.
	ActorType      string
	AgentID        *string
	AgentName      string
	OnBehalfOf     *string
	OnBehalfOfName string
}

// Actor is who made the change the notification tells of.
func (n Notification) Actor() ActorColumns {
	return ActorColumns{ActorType: n.ActorType, AgentID: n.AgentID, AgentName: n.AgentName, OnBehalfOf: n.OnBehalfOf,
		OnBehalfOfName: n.OnBehalfOfName}
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
	MatchedIn string // content (a title, a description, a document's text) or comment (a card's comment)
}

// Opt is a nullable field of a patch: Set says the field was given, a nil Value clears it.
type Opt[T any] struct {
	Set   bool
	Value *T
}

// RuleCause marks a change an automation rule makes (the rule and the depth of its events).
type RuleCause = dbcore.RuleCause

// Strings is a list of domain values (priorities, statuses, roles) as plain strings.
func Strings[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// Package calendar is the engine of calendar feeds: secret URLs a person subscribes to in a calendar
// application (docs/calendar.md). A feed is found by the hash of its token, never by the token, which is
// shown once; a personal feed reads the cards assigned to its owner that have dates across every
// workspace the owner can still open, a project feed a project's dated cards while its owner can still
// read the project, checked at every fetch.
package calendar

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Kind is what a feed holds: the cards assigned to its owner, or a project's.
type Kind string

// The kinds of feed.
const (
	KindPersonal Kind = "personal"
	KindProject  Kind = "project"
)

// Values lists the kinds (the OpenAPI document's enum).
func (Kind) Values() []Kind { return []Kind{KindPersonal, KindProject} }

// MaxFeedsPerUser is how many feeds one person may hold; revoking one frees its place.
const MaxFeedsPerUser = 20

// MaxEvents is how many cards one feed answers at most (the earliest by date): a calendar is not an
// export, and the answer's size stays bounded.
const MaxEvents = 5000

// Engine keeps calendar feeds and reads their cards.
type Engine struct {
	core  *dbcore.Core
	audit db.Auditor
}

// New builds the engine; audits records feeds created and revoked in their transactions.
func New(core *dbcore.Core, audits db.Auditor) *Engine { return &Engine{core: core, audit: audits} }

// Feed is a calendar feed as its owner lists it (never its token).
type Feed struct {
	ID, UserID, Name string
	Kind             Kind
	// Project is set for a project feed: the project and where it lives.
	Project       *ProjectRef
	Prefix        string
	CreatedAt     time.Time
	LastFetchedAt *time.Time
}

// ProjectRef names a project and the organization and workspace it belongs to.
type ProjectRef struct {
	ID, Name, OrganizationSlug, WorkspaceSlug, WorkspaceName string
}

// NewFeed is a feed to create; SecretHash is the hash of its token (the token itself is never stored).
type NewFeed struct {
	// Name is the feed's name; empty: "My cards" for a personal feed, the project's name for a project's.
	UserID, Name string
	Kind         Kind
	// ProjectID names a project feed's project, which the owner must be able to read (else ErrNotFound).
	ProjectID  string
	Prefix     string
	SecretHash []byte
}

// Create stores a feed, refused (conflict) past MaxFeedsPerUser.
func (e *Engine) Create(ctx context.Context, in NewFeed) (Feed, error) {
	var out Feed
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if err := q.CalendarFeedLockOwner(ctx, in.UserID); err != nil {
			return dbcore.Wrap(err, "lock calendar feeds")
		}
		var ref *ProjectRef
		switch {
		case in.Kind == KindProject:
			p, err := projectReadable(ctx, q, in.UserID, in.ProjectID)
			if err != nil {
				return err
			}
			ref = &p
			if in.Name == "" {
				in.Name = p.Name
			}
		case in.ProjectID != "":
			return dbcore.Invalid("a personal feed has no project")
		case in.Name == "":
			in.Name = "My cards"
		}
		row, err := q.CalendarFeedInsert(ctx, dbsqlc.CalendarFeedInsertParams{ID: dbcore.NewID(), UserID: in.UserID,
			Name: in.Name, Kind: string(in.Kind), ProjectID: dbcore.Optional(in.ProjectID), Prefix: in.Prefix,
			SecretHash: in.SecretHash, MaxFeeds: MaxFeedsPerUser})
		if dbcore.IsNotFound(err) {
			return dbcore.Conflict(fmt.Sprintf("you have %d calendar feeds, the most one person may hold: revoke one "+
				"first", MaxFeedsPerUser))
		}
		if dbcore.IsMissingRef(err) {
			return dbcore.NotFound("project not found")
		}
		if err != nil {
			return dbcore.Wrap(err, "insert calendar feed")
		}
		out = feedOf(row, ref)
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditTokenCreated, ActorID: in.UserID,
			ProjectID: in.ProjectID, Target: db.AuditTarget{Type: "calendar_feed", ID: row.ID, Name: row.Name},
			Changes: map[string]any{"after": map[string]any{"prefix": row.Prefix, "kind": row.Kind}}})
	})
	return out, err
}

// List is one page of a person's feeds, newest first.
func (e *Engine) List(ctx context.Context, userID string, p db.Page) (db.Paged[Feed], error) {
	k, err := p.AfterTime("calendar-feeds", true)
	if err != nil {
		return db.Paged[Feed]{}, err
	}
	rows, err := e.core.Q.CalendarFeedListByUser(ctx, dbsqlc.CalendarFeedListByUserParams{UserID: userID,
		AfterAt: k.At, AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[Feed]{}, dbcore.Wrap(err, "list calendar feeds")
	}
	feeds := dbcore.MapRows(rows, func(r dbsqlc.CalendarFeedListByUserRow) Feed {
		var ref *ProjectRef
		if r.CalendarFeed.ProjectID != nil && r.ProjectName != nil {
			ref = &ProjectRef{ID: *r.CalendarFeed.ProjectID, Name: *r.ProjectName, OrganizationSlug: deref(r.OrganizationSlug),
				WorkspaceSlug: deref(r.WorkspaceSlug), WorkspaceName: deref(r.WorkspaceName)}
		}
		return feedOf(r.CalendarFeed, ref)
	})
	return db.PageOf(p, "calendar-feeds", feeds, func(f Feed) any { return db.TimeKey{At: f.CreatedAt, ID: f.ID} }), nil
}

// Revoke deletes one of a person's feeds for good: its URL answers 404 from then on.
func (e *Engine) Revoke(ctx context.Context, userID, id string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.CalendarFeedDelete(ctx, dbsqlc.CalendarFeedDeleteParams{ID: id, UserID: userID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("calendar feed not found")
		}
		if err != nil {
			return fmt.Errorf("delete calendar feed: %w", err)
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditTokenRevoked, ActorID: userID,
			ProjectID: deref(row.ProjectID), Target: db.AuditTarget{Type: "calendar_feed", ID: row.ID, Name: row.Name},
			Changes: map[string]any{"before": map[string]any{"prefix": row.Prefix, "kind": row.Kind}}})
	})
}

// Event is a dated card as a feed shows it, with where it lives (for its link).
type Event struct {
	CardID, Title, Description string
	StartDate, DueDate         *time.Time
	CreatedAt, UpdatedAt       time.Time
	Project                    ProjectRef
}

// Contents is what a fetch reads: the feed (its name, its last answer's hash and when that changed) and
// its events, by date.
type Contents struct {
	Feed   Feed
	Events []Event
	// ContentHash and ContentChangedAt are the last answer's, as Fetched recorded them (nil before the
	// first fetch).
	ContentHash      []byte
	ContentChangedAt *time.Time
}

// Fetch reads the feed whose token hashes to secretHash and its events, in one snapshot. A token of no
// feed, and a project feed whose owner may no longer read the project, are ErrNotFound alike: a caller
// cannot tell a revoked feed from one that never was.
func (e *Engine) Fetch(ctx context.Context, secretHash []byte) (Contents, error) {
	var c Contents
	err := e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		row, err := q.CalendarFeedGetByHash(ctx, secretHash)
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("calendar feed not found")
		}
		if err != nil {
			return dbcore.Wrap(err, "get calendar feed")
		}
		c.ContentHash, c.ContentChangedAt = row.ContentHash, row.ContentChangedAt
		if Kind(row.Kind) == KindPersonal {
			c.Feed = feedOf(row, nil)
			rows, err := q.CalendarCardsAssigned(ctx, dbsqlc.CalendarCardsAssignedParams{UserID: row.UserID, Lim: MaxEvents})
			c.Events = dbcore.MapRows(rows, func(r dbsqlc.CalendarCardsAssignedRow) Event {
				return eventOf(dbsqlc.CalendarCardsOfProjectRow(r))
			})
			return dbcore.Wrap(err, "read a personal feed's cards")
		}
		p, err := projectReadable(ctx, q, row.UserID, deref(row.ProjectID))
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("calendar feed not found") // as a revoked feed: nothing tells them apart
		}
		if err != nil {
			return err
		}
		c.Feed = feedOf(row, &p)
		rows, err := q.CalendarCardsOfProject(ctx, dbsqlc.CalendarCardsOfProjectParams{ProjectID: p.ID, Lim: MaxEvents})
		c.Events = dbcore.MapRows(rows, eventOf)
		return dbcore.Wrap(err, "read a project feed's cards")
	})
	return c, err
}

// ProjectReadable reports whether userID may read the project (to offer a feed of it): ErrNotFound when
// not.
func (e *Engine) ProjectReadable(ctx context.Context, userID, projectID string) (ProjectRef, error) {
	return projectReadable(ctx, e.core.Q, userID, projectID)
}

func projectReadable(ctx context.Context, q *dbsqlc.Queries, userID, projectID string) (ProjectRef, error) {
	p, err := q.CalendarProjectReadable(ctx, dbsqlc.CalendarProjectReadableParams{UserID: userID,
		ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return ProjectRef{}, dbcore.NotFound("project not found")
	}
	if err != nil {
		return ProjectRef{}, dbcore.Wrap(err, "check project access")
	}
	return ProjectRef{ID: p.ID, Name: p.Name, OrganizationSlug: p.OrganizationSlug, WorkspaceSlug: p.WorkspaceSlug,
		WorkspaceName: p.WorkspaceName}, nil
}

// Fetched records that the feed was fetched and answered content of hash contentHash, and answers when
// that content last changed (its Last-Modified): now when it differs from the last answer's. It writes
// at most once a minute for a feed whose content is the same.
func (e *Engine) Fetched(ctx context.Context, c Contents, contentHash []byte) (time.Time, error) {
	changed, err := e.core.Q.CalendarFeedFetched(ctx, dbsqlc.CalendarFeedFetchedParams{ID: c.Feed.ID,
		ContentHash: contentHash})
	switch {
	case dbcore.IsNotFound(err) && c.ContentChangedAt != nil:
		return *c.ContentChangedAt, nil // the same content, fetched less than a minute ago
	case dbcore.IsNotFound(err):
		return time.Time{}, dbcore.NotFound("calendar feed not found") // revoked meanwhile
	case err != nil:
		return time.Time{}, dbcore.Wrap(err, "record a calendar feed's fetch")
	case changed == nil:
		return time.Time{}, fmt.Errorf("record a calendar feed's fetch: no change time")
	}
	return *changed, nil
}

func feedOf(r dbsqlc.CalendarFeed, p *ProjectRef) Feed {
	return Feed{ID: r.ID, UserID: r.UserID, Name: r.Name, Kind: Kind(r.Kind), Project: p, Prefix: r.Prefix,
		CreatedAt: r.CreatedAt, LastFetchedAt: r.LastFetchedAt}
}

func eventOf(r dbsqlc.CalendarCardsOfProjectRow) Event {
	return Event{CardID: r.ID, Title: r.Title, Description: r.Description, StartDate: r.StartDate, DueDate: r.DueDate,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Project: ProjectRef{ID: r.ProjectID, Name: r.ProjectName,
			OrganizationSlug: r.OrganizationSlug, WorkspaceSlug: r.WorkspaceSlug}}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

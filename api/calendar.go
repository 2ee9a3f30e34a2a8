package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db/calendar"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/icalfeed"
)

// calendarTokenPrefix marks calendar feed tokens, so one pasted where it does not belong is recognised.
const calendarTokenPrefix = "pilot_cal_"

// calendarPath is the feed's route; chi matches the token up to ".ics" (a parameter followed by a
// suffix in the same segment).
const calendarPath = "/calendar/{token}.ics"

// CalendarFeedOut is a calendar feed as listed; its token is never shown again.
type CalendarFeedOut struct {
	ID   string        `json:"id" format:"uuid"`
	Name string        `json:"name"`
	Kind calendar.Kind `json:"kind" doc:"personal: the cards assigned to you that have dates, in every workspace you can open; project: a project's dated cards"`
	// Project is the scope of a project feed.
	Project       *CalendarFeedProjectOut `json:"project,omitempty" doc:"A project feed's project; absent for a personal feed"`
	Prefix        string                  `json:"prefix" doc:"First characters of the token, to recognise the feed"`
	CreatedAt     time.Time               `json:"createdAt"`
	LastFetchedAt *time.Time              `json:"lastFetchedAt" nullable:"true" doc:"When a calendar application last fetched the feed (recorded at most once a minute while it does not change); null if never"`
}

// CalendarFeedProjectOut names a project feed's project and where it lives.
type CalendarFeedProjectOut struct {
	ID               string `json:"id" format:"uuid"`
	Name             string `json:"name"`
	OrganizationSlug string `json:"organizationSlug"`
	WorkspaceSlug    string `json:"workspaceSlug"`
	WorkspaceName    string `json:"workspaceName"`
}

// CreatedCalendarFeedOut adds the feed's secret URL, shown only in the creation answer.
type CreatedCalendarFeedOut struct {
	CalendarFeedOut
	URL   string `json:"url" doc:"The feed's secret URL (GET, no credentials): subscribe to it in a calendar application. Shown only once"`
	Token string `json:"token" doc:"The secret in the URL; shown only once"`
}

func calendarFeedOut(f calendar.Feed) CalendarFeedOut {
	out := CalendarFeedOut{ID: f.ID, Name: f.Name, Kind: f.Kind, Prefix: f.Prefix, CreatedAt: f.CreatedAt,
		LastFetchedAt: f.LastFetchedAt}
	if p := f.Project; p != nil {
		out.Project = &CalendarFeedProjectOut{ID: p.ID, Name: p.Name, OrganizationSlug: p.OrganizationSlug,
			WorkspaceSlug: p.WorkspaceSlug, WorkspaceName: p.WorkspaceName}
	}
	return out
}

// registerCalendarFeeds registers the caller's calendar feeds and the feeds' own route.
func (s accountOps) registerCalendarFeeds() {
	tags := []string{"Calendar feeds"}
	feeds := Requires{JWTOnly: true, KeepsTenancy: true}
	register(s.Server, huma.Operation{OperationID: "calendar-feeds-create", Method: http.MethodPost,
		Path: "/calendar-feeds", Summary: "Create a calendar feed", Tags: tags, DefaultStatus: http.StatusCreated,
		Errors: []int{http.StatusNotFound, http.StatusConflict},
		Description: "A secret URL to subscribe to in a calendar application (docs/calendar.md): `personal`, the " +
			"cards assigned to you that have dates in every workspace you can open; `project`, the dated cards of a " +
			"project you can read (`projectId`). The URL is in this answer only. At most 20 feeds a person (409)."},
		feeds, s.createCalendarFeed)
	register(s.Server, huma.Operation{OperationID: "calendar-feeds-list", Method: http.MethodGet,
		Path: "/calendar-feeds", Summary: "List my calendar feeds", Tags: tags,
		Description: "Newest first, without their URLs."},
		feeds, s.listCalendarFeeds)
	register(s.Server, huma.Operation{OperationID: "calendar-feeds-revoke", Method: http.MethodDelete,
		Path: "/calendar-feeds/{id}", Summary: "Revoke a calendar feed", Tags: tags, Errors: []int{http.StatusNotFound},
		Description: "Its URL answers 404 from then on."},
		feeds, s.revokeCalendarFeed)

	register(s.Server, huma.Operation{OperationID: "calendar-feed-get", Method: http.MethodGet, Path: calendarPath,
		Summary: "Read a calendar feed (iCalendar)", Tags: tags, Errors: []int{http.StatusNotFound},
		Description: "The feed's events as RFC 5545 iCalendar: one event per dated card (an all-day event for a " +
			"day, a timed one otherwise), its UID stable across fetches, its URL the card's page. Authenticated " +
			"by the token in the path alone: a token of no feed, a revoked one and a project feed whose owner can " +
			"no longer read the project all answer 404. Answers 304 to `If-None-Match` with the current `ETag`, or " +
			"to `If-Modified-Since` at or after `Last-Modified`.",
		Responses: map[string]*huma.Response{
			"200": {Description: "The feed", Headers: map[string]*huma.Param{
				"ETag":          {Description: "The feed's version", Schema: &huma.Schema{Type: huma.TypeString}},
				"Last-Modified": {Description: "When the feed last changed", Schema: &huma.Schema{Type: huma.TypeString}},
			}, Content: map[string]*huma.MediaType{"text/calendar": {Schema: &huma.Schema{Type: huma.TypeString}}}},
			"304": {Description: "Not modified since the version the client holds"},
		}},
		Requires{Public: true}, s.getCalendarFeed)
}

// CreateCalendarFeedInput is the request of calendar-feeds-create.
type CreateCalendarFeedInput struct {
	Body CreateCalendarFeedBody
}

// CreateCalendarFeedBody is the body of a CreateCalendarFeedInput request.
type CreateCalendarFeedBody struct {
	Kind      calendar.Kind `json:"kind" required:"true"`
	ProjectID string        `json:"projectId,omitempty" format:"uuid" doc:"The project of a project feed; required for one, refused for a personal feed"`
	Name      string        `json:"name,omitempty" maxLength:"100" doc:"Default: \"My cards\", or the project's name"`
}

func (s accountOps) createCalendarFeed(ctx context.Context,
	in *CreateCalendarFeedInput) (*Output[CreatedCalendarFeedOut], error) {
	user := principalFrom(ctx).User
	switch {
	case in.Body.Kind == calendar.KindPersonal && in.Body.ProjectID != "":
		return nil, errBadRequest("projectId is for a project feed; a personal feed has none")
	case in.Body.Kind == calendar.KindProject && in.Body.ProjectID == "":
		return nil, errBadRequest("projectId is required for a project feed")
	}
	token := calendarTokenPrefix + auth.RandomString(24)
	base := s.publicBase(ctx)
	return oneOf(func(f calendar.Feed) CreatedCalendarFeedOut {
		return CreatedCalendarFeedOut{CalendarFeedOut: calendarFeedOut(f), Token: token,
			URL: base + "/calendar/" + token + ".ics"}
	})(s.calendars.Create(ctx, calendar.NewFeed{UserID: user.ID, Name: strings.TrimSpace(in.Body.Name), Kind: in.Body.Kind,
		ProjectID: in.Body.ProjectID, Prefix: token[:len(calendarTokenPrefix)+6], SecretHash: auth.HashSecret(token)}))
}

// ListCalendarFeedsInput is the request of calendar-feeds-list.
type ListCalendarFeedsInput struct {
	PageQuery
}

func (s accountOps) listCalendarFeeds(ctx context.Context, in *ListCalendarFeedsInput) (*PageOutput[CalendarFeedOut],
	error) {
	return pageOf(ctx, calendarFeedOut)(s.calendars.List(ctx, principalFrom(ctx).User.ID, in.page()))
}

// RevokeCalendarFeedInput is the request of calendar-feeds-revoke.
type RevokeCalendarFeedInput struct {
	ID string `path:"id" format:"uuid"`
}

func (s accountOps) revokeCalendarFeed(ctx context.Context, in *RevokeCalendarFeedInput) (*OKOutput, error) {
	return done(s.calendars.Revoke(ctx, principalFrom(ctx).User.ID, in.ID))
}

// GetCalendarFeedInput is the request of calendar-feed-get. The token is free-form: any other string is a
// feed that does not exist (404), never a validation error that would tell the shape of a good one.
type GetCalendarFeedInput struct {
	Token       string `path:"token" doc:"The feed's secret token"`
	IfNoneMatch string `header:"If-None-Match" doc:"The ETag of the version the client holds"`
	IfModSince  string `header:"If-Modified-Since" doc:"The Last-Modified of the version the client holds"`
}

func (s accountOps) getCalendarFeed(ctx context.Context, in *GetCalendarFeedInput) (*huma.StreamResponse, error) {
	// The feed is found by the hash of its token, through the hash's unique index: the time taken does
	// not depend on how much of a token matches one that exists.
	c, err := s.calendars.Fetch(ctx, auth.HashSecret(in.Token))
	if err != nil {
		return nil, fail(err)
	}
	var body bytes.Buffer
	if err := icalfeed.Write(&body, s.icalCalendar(ctx, c)); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body.Bytes())
	changed, err := s.calendars.Fetched(ctx, c, sum[:])
	if err != nil {
		return nil, fail(err)
	}
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	lastModified := changed.UTC().Truncate(time.Second)
	notModified := notModifiedSince(in.IfNoneMatch, in.IfModSince, etag, lastModified)
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		hctx.SetHeader("ETag", etag)
		hctx.SetHeader("Last-Modified", lastModified.Format(http.TimeFormat))
		// Clients may keep the feed but ask again each time (conditionally, answered 304); only the
		// subscriber's own client keeps it.
		hctx.SetHeader("Cache-Control", "private, no-cache")
		if notModified {
			hctx.SetStatus(http.StatusNotModified)
			return
		}
		hctx.SetHeader("Content-Type", "text/calendar; charset=utf-8")
		hctx.SetStatus(http.StatusOK)
		_, _ = hctx.BodyWriter().Write(body.Bytes())
	}}, nil
}

// notModifiedSince applies RFC 9110's conditional GET: If-None-Match when present (a list of entity
// tags or *, compared weakly), else If-Modified-Since.
func notModifiedSince(ifNoneMatch, ifModifiedSince, etag string, lastModified time.Time) bool {
	if ifNoneMatch != "" {
		for t := range strings.SplitSeq(ifNoneMatch, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == "*" || t == etag {
				return true
			}
		}
		return false
	}
	if ifModifiedSince == "" {
		return false
	}
	since, err := http.ParseTime(ifModifiedSince)
	return err == nil && !lastModified.After(since)
}

// icalCalendar is a fetched feed as the calendar to write: its events link to the cards' pages.
func (s accountOps) icalCalendar(ctx context.Context, c calendar.Contents) icalfeed.Calendar {
	base := s.publicBase(ctx)
	host := "pilot"
	if u, err := url.Parse(base); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	// The calendar's name says where it comes from: a project feed named otherwise keeps its project's name.
	name := "Pilot: " + c.Feed.Name
	if p := c.Feed.Project; p != nil && p.Name != c.Feed.Name {
		name = "Pilot: " + p.Name + " (" + c.Feed.Name + ")"
	}
	cal := icalfeed.Calendar{Name: name, Host: host, Events: make([]icalfeed.Event, 0, len(c.Events))}
	for _, e := range c.Events {
		p := e.Project
		cal.Events = append(cal.Events, icalfeed.Event{ID: e.CardID, Title: e.Title, Description: e.Description,
			URL: base + "/w/" + url.PathEscape(p.OrganizationSlug) + "/" + url.PathEscape(p.WorkspaceSlug) + "/p/" +
				p.ID + "?card=" + e.CardID,
			StartDate: e.StartDate, DueDate: e.DueDate, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt})
	}
	return cal
}

// publicBase is where people reach the server: PUBLIC_URL, or else the request's own scheme and host.
func (s *Server) publicBase(ctx context.Context) string {
	if s.opts.PublicURL != "" {
		return s.opts.PublicURL
	}
	if r, _ := rawRequest(ctx); r != nil && r.Host != "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		return scheme + "://" + r.Host
	}
	return ""
}

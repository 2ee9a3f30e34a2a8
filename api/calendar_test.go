package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// icalParsed is what api/testdata/icaljs/parse.mjs prints: a feed as ical.js, an independent parser,
// reads it.
type icalParsed struct {
	Version, Prodid, Name string
	Events                []icalParsedEvent
}

type icalParsedEvent struct {
	UID, Summary string
	Description  *string
	URL          *string
	Dtstamp      string
	Start, End   *icalTime
}

type icalTime struct {
	Value  string
	IsDate bool
	Unix   *int64
}

// parseICal parses an iCalendar text with ical.js (scripts/ical-parse.sh installs the version pinned in
// api/testdata/icaljs/package-lock.json with npm ci).
func parseICal(t *testing.T, body []byte) icalParsed {
	t.Helper()
	f := filepath.Join(t.TempDir(), "feed.ics")
	require.NoError(t, os.WriteFile(f, body, 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "../scripts/ical-parse.sh", f)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "ical.js failed: %s", stderr.String())
	var p icalParsed
	require.NoError(t, json.Unmarshal(out, &p), "output: %s", out)
	return p
}

// requireContentLines asserts RFC 5545's line rules: every line ends with CRLF and is at most 75 octets.
func requireContentLines(t *testing.T, body []byte) {
	t.Helper()
	require.True(t, bytes.HasSuffix(body, []byte("\r\n")))
	for i, line := range strings.Split(strings.TrimSuffix(string(body), "\r\n"), "\r\n") {
		require.NotContains(t, line, "\n", "line %d has a bare LF", i+1)
		require.LessOrEqual(t, len(line), 75, "line %d is longer than 75 octets: %q", i+1, line)
	}
}

// feedPath is the path of a feed URL the creation answered.
func feedPath(t *testing.T, feedURL string) string {
	t.Helper()
	path, ok := strings.CutPrefix(feedURL, "http://pilot.test")
	require.True(t, ok, feedURL)
	return path
}

// TestCalendarFeeds: a person's feed has the cards assigned to them that have dates, as RFC 5545 events
// that ical.js reads back as the cards (all-day for a day, timed otherwise, escaped and folded text,
// stable UIDs, the card's link); the URL alone authenticates it; conditional requests answer 304 until a
// card changes; a project feed follows its owner's access; revoked or unknown tokens answer 404.
func TestCalendarFeeds(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	projectID := prj[strings.LastIndex(prj, "/")+1:]
	patch := func(c CardOut, body map[string]any) CardOut {
		r := e.do("PATCH", prj+"/cards/"+c.ID, owner.Token, body)
		requireStatus(t, r, http.StatusOK)
		return decode[CardOut](t, r)
	}
	longText := "Bring the keys; the badges, and the signs.\nAsk Zoé at the café about the room on the " +
		"second floor — it has a projector, chairs and a whiteboard, which we need."
	allDay := patch(e.card(owner, prj, cols[0], "Book the hall, main; room"), map[string]any{
		"assigneeId": member.ID, "dueDate": "2030-01-02T00:00:00Z", "description": longText})
	timed := patch(e.card(owner, prj, cols[1], "Call the printer"), map[string]any{"assigneeId": member.ID,
		"startDate": "2030-01-05T14:00:00Z", "dueDate": "2030-01-05T15:30:00Z"})
	days := patch(e.card(owner, prj, cols[2], "Festival"), map[string]any{"assigneeId": member.ID,
		"startDate": "2030-02-01T00:00:00Z", "dueDate": "2030-02-03T00:00:00Z"})
	patch(e.card(owner, prj, cols[0], "No date"), map[string]any{"assigneeId": member.ID})
	archived := patch(e.card(owner, prj, cols[0], "Archived"), map[string]any{"assigneeId": member.ID,
		"dueDate": "2030-01-03T00:00:00Z"})
	patch(archived, map[string]any{"archived": true})
	ownersCard := patch(e.card(owner, prj, cols[0], "Owner's"), map[string]any{"assigneeId": owner.ID,
		"dueDate": "2030-01-04T00:00:00Z"})

	// A personal feed; its URL is in the creation answer only.
	r := e.do("POST", "/calendar-feeds", member.Token, map[string]any{"kind": "personal"})
	requireStatus(t, r, http.StatusCreated)
	personal := decode[CreatedCalendarFeedOut](t, r)
	require.Equal(t, "My cards", personal.Name)
	require.Regexp(t, `^http://pilot\.test/calendar/pilot_cal_[0-9a-f]{48}\.ics$`, personal.URL)
	require.True(t, strings.HasPrefix(personal.Token, personal.Prefix))
	path := feedPath(t, personal.URL)

	// No credentials: the token in the path is enough.
	r = e.do("GET", path, "", nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "text/calendar; charset=utf-8", r.Header.Get("Content-Type"))
	etag, lastModified := r.Header.Get("ETag"), r.Header.Get("Last-Modified")
	require.Regexp(t, `^"[A-Za-z0-9_-]+"$`, etag)
	_, err := http.ParseTime(lastModified)
	require.NoError(t, err)
	requireContentLines(t, r.Body)
	require.Contains(t, string(r.Body), "SUMMARY:Book the hall\\, main\\; room\r\n", "commas and semicolons escaped")

	cal := parseICal(t, r.Body)
	require.Equal(t, "2.0", cal.Version)
	require.Equal(t, "Pilot: My cards", cal.Name)
	link := func(c CardOut) *string {
		s := "http://pilot.test/w/" + owner.OrgSlug + "/" + owner.WsSlug + "/p/" + projectID + "?card=" + c.ID
		return &s
	}
	stamp := func(c CardOut) string { return c.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z") }
	unix := func(s string) *int64 {
		tm, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		u := tm.Unix()
		return &u
	}
	require.Equal(t, []icalParsedEvent{
		{UID: allDay.ID + "@pilot.test", Summary: "Book the hall, main; room", Description: &longText, URL: link(allDay),
			Dtstamp: stamp(allDay), Start: &icalTime{Value: "2030-01-02", IsDate: true},
			End: &icalTime{Value: "2030-01-03", IsDate: true}},
		{UID: timed.ID + "@pilot.test", Summary: "Call the printer", URL: link(timed), Dtstamp: stamp(timed),
			Start: &icalTime{Value: "2030-01-05T14:00:00Z", Unix: unix("2030-01-05T14:00:00Z")},
			End:   &icalTime{Value: "2030-01-05T15:30:00Z", Unix: unix("2030-01-05T15:30:00Z")}},
		{UID: days.ID + "@pilot.test", Summary: "Festival", URL: link(days), Dtstamp: stamp(days),
			Start: &icalTime{Value: "2030-02-01", IsDate: true}, End: &icalTime{Value: "2030-02-04", IsDate: true}},
	}, cal.Events, "the member's dated active cards, by date; not the undated, the archived or the owner's")

	// Conditional requests: the same version answers 304 without a body.
	r = e.send(req{Method: "GET", Path: path, Header: map[string]string{"If-None-Match": etag}})
	require.Equal(t, http.StatusNotModified, r.Code)
	require.Empty(t, r.Body)
	require.Equal(t, etag, r.Header.Get("ETag"))
	r = e.send(req{Method: "GET", Path: path, Header: map[string]string{"If-None-Match": `"other", W/` + etag}})
	require.Equal(t, http.StatusNotModified, r.Code)
	r = e.send(req{Method: "GET", Path: path, Header: map[string]string{"If-Modified-Since": lastModified}})
	require.Equal(t, http.StatusNotModified, r.Code)
	r = e.send(req{Method: "GET", Path: path, Header: map[string]string{"If-None-Match": `"other"`}})
	requireStatus(t, r, http.StatusOK)
	r = e.send(req{Method: "GET", Path: path, Header: map[string]string{
		"If-Modified-Since": time.Now().Add(-24 * time.Hour).UTC().Format(http.TimeFormat)}})
	requireStatus(t, r, http.StatusOK)

	// A card changes: a new version, the same UID.
	patch(timed, map[string]any{"title": "Call the printer again"})
	r = e.send(req{Method: "GET", Path: path, Header: map[string]string{"If-None-Match": etag}})
	requireStatus(t, r, http.StatusOK)
	require.NotEqual(t, etag, r.Header.Get("ETag"))
	cal = parseICal(t, r.Body)
	require.Equal(t, timed.ID+"@pilot.test", cal.Events[1].UID)
	require.Equal(t, "Call the printer again", cal.Events[1].Summary)

	// A project feed has the project's dated cards, whoever they are assigned to.
	r = e.do("POST", "/calendar-feeds", member.Token, map[string]any{"kind": "project", "projectId": projectID})
	requireStatus(t, r, http.StatusCreated)
	projectFeed := decode[CreatedCalendarFeedOut](t, r)
	require.Equal(t, "Shared", projectFeed.Name)
	require.Equal(t, &CalendarFeedProjectOut{ID: projectID, Name: "Shared", OrganizationSlug: owner.OrgSlug,
		WorkspaceSlug: owner.WsSlug, WorkspaceName: "Personal"}, projectFeed.Project)
	r = e.do("GET", feedPath(t, projectFeed.URL), "", nil)
	requireStatus(t, r, http.StatusOK)
	var uids []string
	for _, ev := range parseICal(t, r.Body).Events {
		uids = append(uids, ev.UID)
	}
	require.Equal(t, []string{allDay.ID + "@pilot.test", ownersCard.ID + "@pilot.test", timed.ID + "@pilot.test",
		days.ID + "@pilot.test"}, uids)

	// The list: names, kinds, scopes, when fetched; never the token or URL.
	r = e.do("GET", "/calendar-feeds", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	list := decode[[]CalendarFeedOut](t, r)
	require.Len(t, list, 2)
	require.Equal(t, projectFeed.ID, list[0].ID)
	require.Equal(t, personal.ID, list[1].ID)
	require.NotNil(t, list[1].LastFetchedAt)
	require.Nil(t, list[1].Project)
	require.NotContains(t, string(r.Body), personal.Token)
	requireStatus(t, e.do("GET", "/calendar-feeds", owner.Token, nil), http.StatusOK)
	require.Empty(t, decode[[]CalendarFeedOut](t, e.do("GET", "/calendar-feeds", owner.Token, nil)))

	// Someone who cannot read the project cannot make a feed of it; a personal feed takes no project.
	stranger := e.register("stranger@example.com")
	requireStatus(t, e.do("POST", "/calendar-feeds", stranger.Token, map[string]any{"kind": "project",
		"projectId": projectID}), http.StatusNotFound)
	requireStatus(t, e.do("POST", "/calendar-feeds", stranger.Token, map[string]any{"kind": "personal",
		"projectId": projectID}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", "/calendar-feeds", stranger.Token, map[string]any{"kind": "project"}),
		http.StatusBadRequest)
	// Feeds are managed with a session, not a personal access token.
	requireStatus(t, e.do("GET", "/calendar-feeds", e.pat(member, nil), nil), http.StatusForbidden)
	// Nobody revokes another's feed.
	requireStatus(t, e.do("DELETE", "/calendar-feeds/"+personal.ID, owner.Token, nil), http.StatusNotFound)

	// The member leaves the workspace: the project feed answers 404, the personal one loses its cards.
	requireStatus(t, e.do("DELETE", wsOf(owner)+"/members/"+member.ID, owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", feedPath(t, projectFeed.URL), "", nil), http.StatusNotFound)
	r = e.do("GET", path, "", nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, parseICal(t, r.Body).Events)

	// Revoked, unknown and malformed tokens all answer the same 404.
	requireStatus(t, e.do("DELETE", "/calendar-feeds/"+personal.ID, member.Token, nil), http.StatusOK)
	revoked := e.do("GET", path, "", nil)
	requireStatus(t, revoked, http.StatusNotFound)
	unknown := e.do("GET", "/calendar/pilot_cal_"+strings.Repeat("0", 48)+".ics", "", nil)
	requireStatus(t, unknown, http.StatusNotFound)
	require.Equal(t, revoked.Body, unknown.Body)
	requireStatus(t, e.do("GET", "/calendar/x.ics", "", nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", "/calendar-feeds/"+personal.ID, member.Token, nil), http.StatusNotFound)
}

// TestCalendarFeedLimit: a person holds at most 20 feeds; revoking one frees its place.
func TestCalendarFeedLimit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("many@example.com")
	var last CreatedCalendarFeedOut
	for range 20 {
		r := e.do("POST", "/calendar-feeds", u.Token, map[string]any{"kind": "personal", "name": "Phone"})
		requireStatus(t, r, http.StatusCreated)
		last = decode[CreatedCalendarFeedOut](t, r)
	}
	requireStatus(t, e.do("POST", "/calendar-feeds", u.Token, map[string]any{"kind": "personal"}), http.StatusConflict)
	requireStatus(t, e.do("DELETE", "/calendar-feeds/"+last.ID, u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("POST", "/calendar-feeds", u.Token, map[string]any{"kind": "personal"}), http.StatusCreated)
}

// TestCalendarFeedRoute: chi matches /calendar/{token}.ics with the token alone as the parameter; a path
// without the suffix, or with another, is no route.
func TestCalendarFeedRoute(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("route@example.com")
	r := e.do("POST", "/calendar-feeds", u.Token, map[string]any{"kind": "personal"})
	requireStatus(t, r, http.StatusCreated)
	feed := decode[CreatedCalendarFeedOut](t, r)
	requireStatus(t, e.do("GET", "/calendar/"+feed.Token+".ics", "", nil), http.StatusOK)
	for _, p := range []string{"/calendar/" + feed.Token, "/calendar/" + feed.Token + ".ics.ics",
		"/calendar/" + feed.Token + ".json"} {
		r := e.undocumented("GET", p, "")
		require.Equal(t, http.StatusNotFound, r.Code, p)
		require.NotContains(t, r.Header.Get("Content-Type"), "text/calendar", p)
	}
}

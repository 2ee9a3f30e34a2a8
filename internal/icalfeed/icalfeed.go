// Package icalfeed writes dated cards as an RFC 5545 iCalendar feed with github.com/arran4/golang-ical:
// one VEVENT per card, a UID stable across fetches (the card's id at the server's host), all-day events
// for the days the web app writes (midnight UTC), timed events otherwise. The answer depends only on the
// cards, so an unchanged feed writes the same bytes (its ETag).
package icalfeed

import (
	"io"
	"strings"
	"time"
	"unicode"

	ics "github.com/arran4/golang-ical"
)

// Calendar is a feed to write.
type Calendar struct {
	// Name is the calendar's name, shown by calendar applications (X-WR-CALNAME, NAME).
	Name string
	// Host is the server's host name, the right side of every UID ("<card id>@<host>").
	Host   string
	Events []Event
}

// Event is a dated card.
type Event struct {
	// ID is the card's id, the left side of the event's UID.
	ID, Title, Description string
	// URL is the card's page in the web app.
	URL string
	// StartDate and DueDate are the card's dates; at least one is set. A date at midnight UTC is a day
	// (the web app writes a day so): an all-day event.
	StartDate, DueDate   *time.Time
	CreatedAt, UpdatedAt time.Time
}

// Write writes the calendar to w.
func Write(w io.Writer, c Calendar) error {
	cal := ics.NewCalendarFor("Pilot")
	cal.SetProductId("-//Pilot//Calendar feed//EN")
	cal.SetCalscale("GREGORIAN")
	cal.SetName(text(c.Name))
	cal.SetXWRCalName(text(c.Name))
	// Calendar clients that read them poll hourly rather than at their own default.
	cal.SetRefreshInterval("PT1H", ics.WithValue("DURATION"))
	cal.SetXPublishedTTL("PT1H")
	for _, e := range c.Events {
		start, end, allDay, ok := span(e.StartDate, e.DueDate)
		if !ok {
			continue
		}
		ev := cal.AddEvent(e.ID + "@" + c.Host)
		// DTSTAMP is when the card last changed, not the time of the fetch: the same card writes the same
		// bytes, so the feed's ETag changes only when a card does (RFC 5545 3.8.7.2 allows it for a
		// calendar published without a METHOD).
		ev.SetDtStampTime(e.UpdatedAt)
		ev.SetCreatedTime(e.CreatedAt)
		ev.SetModifiedAt(e.UpdatedAt)
		if allDay {
			ev.SetAllDayStartAt(start)
			ev.SetAllDayEndAt(end)
		} else {
			ev.SetStartAt(start)
			if end.After(start) {
				ev.SetEndAt(end)
			}
		}
		ev.SetSummary(text(e.Title))
		if d := text(e.Description); d != "" {
			ev.SetDescription(d)
		}
		if e.URL != "" {
			ev.SetURL(e.URL)
		}
		ev.SetProperty(ics.ComponentPropertyTransp, "TRANSPARENT") // a due date does not make its owner busy
	}
	// RFC 5545 ends lines with CRLF; the library's default is the platform's line end.
	return cal.SerializeTo(w, ics.WithNewLineWindows)
}

// span is an event's start and end from a card's dates. An all-day event starts on the first day and ends
// (exclusive, RFC 5545 3.6.1) the day after the last; a timed one ends at the due date, or is an instant.
// A start after the due date is ignored: the due date alone is the event.
func span(startDate, dueDate *time.Time) (start, end time.Time, allDay, ok bool) {
	switch {
	case dueDate == nil && startDate == nil:
		return start, end, false, false
	case dueDate == nil:
		start, end = *startDate, *startDate
	case startDate == nil || startDate.After(*dueDate):
		start, end = *dueDate, *dueDate
	default:
		start, end = *startDate, *dueDate
	}
	start, end = start.UTC(), end.UTC()
	if IsDay(start) && IsDay(end) {
		return start, end.AddDate(0, 0, 1), true, true
	}
	return start, end, false, true
}

// IsDay reports whether t is a day as the web app writes one: midnight UTC.
func IsDay(t time.Time) bool {
	t = t.UTC()
	return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
}

// text makes a card's text fit a TEXT value: line ends as \n (the library escapes \n, commas,
// semicolons and backslashes, and folds lines at 75 octets), and no other control character, which RFC
// 5545 does not allow in TEXT.
func text(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return '\n'
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

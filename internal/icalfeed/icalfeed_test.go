package icalfeed

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// TestWrite: CRLF line ends, lines folded at 75 octets without splitting a character, TEXT escaped, a day
// as an all-day event ending the next day, a timed event in UTC, the UID from the card and the host, and
// the same bytes for the same cards.
func TestWrite(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é, ünïcode; ", 20) + "\r\nend"
	c := Calendar{Name: "Pilot: a, b", Host: "pilot.example", Events: []Event{
		{ID: "c1", Title: "Day; one, two", Description: long, URL: "https://pilot.example/w/o/w/p/p?card=c1",
			DueDate: at("2030-03-01T00:00:00Z"), CreatedAt: *at("2029-01-01T10:00:00Z"),
			UpdatedAt: *at("2029-01-02T10:00:00Z")},
		{ID: "c2", Title: "Timed\x07", StartDate: at("2030-03-02T09:00:00+02:00"), DueDate: at("2030-03-02T10:00:00+02:00"),
			CreatedAt: *at("2029-01-01T10:00:00Z"), UpdatedAt: *at("2029-01-02T10:00:00Z")},
		{ID: "c3", Title: "Start after due", StartDate: at("2030-04-09T00:00:00Z"), DueDate: at("2030-04-02T00:00:00Z"),
			CreatedAt: *at("2029-01-01T10:00:00Z"), UpdatedAt: *at("2029-01-02T10:00:00Z")},
		{ID: "c4", Title: "No date", CreatedAt: *at("2029-01-01T10:00:00Z"), UpdatedAt: *at("2029-01-02T10:00:00Z")},
	}}
	var a, b bytes.Buffer
	require.NoError(t, Write(&a, c))
	require.NoError(t, Write(&b, c))
	require.Equal(t, a.String(), b.String(), "the same cards write the same bytes")
	out := a.String()
	require.True(t, strings.HasSuffix(out, "END:VCALENDAR\r\n"))
	lines := strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n")
	for _, l := range lines {
		require.NotContains(t, l, "\n")
		require.LessOrEqual(t, len(l), 75, l)
		require.True(t, strings.ToValidUTF8(l, "?") == l, "a fold split a character: %q", l)
	}
	unfolded := strings.ReplaceAll(out, "\r\n ", "")
	require.Contains(t, unfolded, "UID:c1@pilot.example\r\n")
	require.Contains(t, unfolded, "SUMMARY:Day\\; one\\, two\r\n")
	require.Contains(t, unfolded, "DESCRIPTION:"+strings.Repeat("é\\, ünïcode\\; ", 20)+"\\nend\r\n")
	require.Contains(t, unfolded, "DTSTART;VALUE=DATE:20300301\r\nDTEND;VALUE=DATE:20300302\r\n")
	require.Contains(t, unfolded, "DTSTAMP:20290102T100000Z\r\n")
	require.Contains(t, unfolded, "DTSTART:20300302T070000Z\r\nDTEND:20300302T080000Z\r\n")
	require.Contains(t, unfolded, "SUMMARY:Timed\r\n", "control characters dropped")
	require.Contains(t, unfolded, "DTSTART;VALUE=DATE:20300402\r\nDTEND;VALUE=DATE:20300403\r\n")
	require.NotContains(t, unfolded, "No date")
	require.Contains(t, unfolded, "URL:https://pilot.example/w/o/w/p/p?card=c1\r\n")
	require.Contains(t, unfolded, "X-WR-CALNAME:Pilot: a\\, b\r\n")
}

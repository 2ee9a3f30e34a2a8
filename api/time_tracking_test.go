package api

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/timetrack"
	"github.com/pilot-dev/pilot/internal/csvcell"
)

// TestTimeTrackingThroughHTTP drives estimates, the timer, entries, the card list's totals and refusals.
func TestTimeTrackingThroughHTTP(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := commentSetup(t, e) // owner (workspace admin), member, other; a card
	other := e.card(w.owner, w.prj, w.cols[0], "=HYPERLINK(\"x\")")
	otherCard := w.prj + "/cards/" + other.ID

	// The estimate is a card field: set, read in the list, cleared; out of range is a 400.
	r := e.do("PATCH", w.card, w.member.Token, map[string]any{"estimateSeconds": 7200})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, int32(7200), *decode[CardOut](t, r).EstimateSeconds)
	requireErrorShape(t, e.do("PATCH", w.card, w.member.Token, map[string]any{"estimateSeconds": -1}),
		http.StatusBadRequest)

	// No timer yet.
	r = e.do("GET", "/timer", w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Nil(t, decode[TimerOut](t, r).Running)

	// Start on the card, then on the other card: the first stops.
	r = e.do("POST", w.card+"/timer", w.member.Token, map[string]any{"timeZone": "America/New_York"})
	requireStatus(t, r, http.StatusCreated)
	first := decode[TimerStartOut](t, r)
	require.True(t, first.Running.Running)
	require.Nil(t, first.Stopped)
	require.Equal(t, timetrack.SourceTimer, first.Running.Source)
	r = e.do("POST", otherCard+"/timer", w.member.Token, nil)
	requireStatus(t, r, http.StatusCreated)
	second := decode[TimerStartOut](t, r)
	require.NotNil(t, second.Stopped)
	require.Equal(t, first.Running.ID, second.Stopped.ID)
	require.False(t, second.Stopped.Running)

	r = e.do("GET", "/timer", w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	running := decode[TimerOut](t, r).Running
	require.NotNil(t, running)
	require.Equal(t, other.ID, running.Entry.CardID)
	require.Equal(t, other.Title, running.CardTitle)
	require.Equal(t, w.owner.OrgSlug, running.OrgSlug)

	r = e.do("POST", "/timer/stop", w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, second.Running.ID, decode[TimerStopOut](t, r).Stopped.ID)
	r = e.do("POST", "/timer/stop", w.member.Token, nil) // from another device, already stopped
	requireStatus(t, r, http.StatusOK)
	require.Nil(t, decode[TimerStopOut](t, r).Stopped)

	// Manual entries move the card's total, read in the card list from the card's row.
	r = e.do("POST", w.card+"/time-entries", w.member.Token, map[string]any{"durationSeconds": 1800,
		"date": "2026-03-02", "note": "draft"})
	requireStatus(t, r, http.StatusCreated)
	mine := decode[TimeEntryOut](t, r)
	require.Equal(t, "2026-03-02", mine.Date)
	require.Equal(t, "member", mine.UserName)
	total := func(cardID string) int64 {
		r := e.do("GET", w.prj+"/cards", w.owner.Token, nil)
		requireStatus(t, r, http.StatusOK)
		for _, c := range decode[[]CardOut](t, r) {
			if c.ID == cardID {
				return c.TimeSpentSeconds
			}
		}
		t.Fatalf("card %s not listed", cardID)
		return 0
	}
	firstTimer := int64(second.Stopped.DurationSeconds)
	require.Equal(t, firstTimer+1800, total(w.cardID))

	entry := w.card + "/time-entries/" + mine.ID
	r = e.do("PATCH", entry, w.member.Token, map[string]any{"durationSeconds": 600})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, int32(600), decode[TimeEntryOut](t, r).DurationSeconds)
	require.Equal(t, firstTimer+600, total(w.cardID))

	// Another member may neither change nor delete it; the workspace admin may.
	requireErrorShape(t, e.do("PATCH", entry, w.other.Token, map[string]any{"note": "x"}), http.StatusForbidden)
	requireErrorShape(t, e.do("DELETE", entry, w.other.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", entry, w.owner.Token, map[string]any{"note": "checked"}), http.StatusOK)

	r = e.do("GET", w.card+"/time-entries", w.other.Token, nil)
	requireStatus(t, r, http.StatusOK)
	list := decode[[]TimeEntryOut](t, r)
	require.Len(t, list, 2)
	require.Equal(t, mine.ID, list[0].ID, "newest first")
	require.Equal(t, "checked", list[0].Note)

	requireStatus(t, e.do("DELETE", entry, w.member.Token, nil), http.StatusOK)
	require.Equal(t, firstTimer, total(w.cardID))

	// Bad input: 4xx in the error shape, nothing logged.
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for name, c := range map[string]struct {
		path   string
		body   map[string]any
		status int
	}{
		"negative":   {w.card, map[string]any{"durationSeconds": -60}, http.StatusBadRequest},
		"over a day": {w.card, map[string]any{"durationSeconds": 90000}, http.StatusBadRequest},
		"end before": {w.card, map[string]any{"startedAt": start, "endedAt": start.Add(-time.Hour)},
			http.StatusBadRequest},
		"span over day": {w.card, map[string]any{"startedAt": start, "endedAt": start.Add(25 * time.Hour)},
			http.StatusBadRequest},
		"no duration":    {w.card, map[string]any{"note": "hm"}, http.StatusBadRequest},
		"bad date":       {w.card, map[string]any{"durationSeconds": 60, "date": "2026-02-30"}, http.StatusBadRequest},
		"unknown field":  {w.card, map[string]any{"durationSeconds": 60, "hours": 1}, http.StatusBadRequest},
		"unknown card":   {w.prj + "/cards/" + db.NewID(), map[string]any{"durationSeconds": 60}, http.StatusNotFound},
		"not a uuid":     {w.prj + "/cards/nope", map[string]any{"durationSeconds": 60}, http.StatusNotFound},
		"outside tenant": {w.card, map[string]any{"durationSeconds": 60}, http.StatusNotFound},
	} {
		token := w.member.Token
		if name == "outside tenant" {
			token = e.register("stranger@example.com").Token
		}
		t.Run(name, func(t *testing.T) {
			requireErrorShape(t, e.do("POST", c.path+"/time-entries", token, c.body), c.status)
		})
	}
	requireErrorShape(t, e.do("POST", w.card+"/timer", w.member.Token, map[string]any{"timeZone": "Nowhere/Land"}),
		http.StatusBadRequest)
	requireErrorShape(t, e.do("POST", w.prj+"/cards/"+db.NewID()+"/timer", w.member.Token, nil), http.StatusNotFound)
	requireErrorShape(t, e.do("DELETE", w.card+"/time-entries/"+db.NewID(), w.member.Token, nil), http.StatusNotFound)
	require.Equal(t, firstTimer, total(w.cardID))
}

// TestTimeReportJSONAndCSV compares the CSV download with the JSON report, and checks filters and refusals.
func TestTimeReportJSONAndCSV(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := commentSetup(t, e)
	other := e.card(w.owner, w.prj, w.cols[0], "@risky")
	for _, x := range []struct {
		u    user
		card string
		secs int
		date string
	}{
		{w.member, w.cardID, 3600, "2026-03-02"}, {w.member, w.cardID, 1200, "2026-03-02"},
		{w.other, other.ID, 5400, "2026-03-03"}, {w.owner, other.ID, 60, "2026-04-10"},
	} {
		requireStatus(t, e.do("POST", w.prj+"/cards/"+x.card+"/time-entries", x.u.Token,
			map[string]any{"durationSeconds": x.secs, "date": x.date}), http.StatusCreated)
	}
	ws := wsOf(w.owner)
	q := "?from=2026-03-01&to=2026-03-31"
	r := e.do("GET", ws+"/time-report"+q, w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	rep := decode[TimeReportOut](t, r)
	require.Equal(t, int64(3600+1200+5400), rep.TotalSeconds)
	require.Len(t, rep.Rows, 2)
	require.Equal(t, int32(2), rep.Rows[0].Entries)
	require.Equal(t, "other", rep.ByPerson[0].Name)

	r = e.do("GET", ws+"/time-report/export"+q, w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "text/csv; charset=utf-8", r.Header.Get("Content-Type"))
	require.Contains(t, r.Header.Get("Content-Disposition"), "time-report.csv")
	records, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, timetrack.CSVHeader, records[0])
	require.Len(t, records, len(rep.Rows)+1)
	for i, row := range rep.Rows {
		rec := records[i+1]
		require.Equal(t, []string{row.Date, row.UserID, row.ProjectID, row.CardID, strconv.FormatInt(row.Seconds, 10),
			strconv.Itoa(int(row.Entries))}, []string{rec[0], rec[1], rec[4], rec[6], rec[8], rec[10]})
		require.Equal(t, csvcell.Safe(row.CardTitle), rec[7])
	}
	require.Equal(t, "'@risky", records[2][7], "a formula-like title is text in a spreadsheet")

	// One person's; one project's; another project's is empty.
	r = e.do("GET", ws+"/time-report"+q+"&userId="+w.other.ID, w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, int64(5400), decode[TimeReportOut](t, r).TotalSeconds)
	r = e.do("GET", ws+"/time-report"+q+"&projectId="+db.NewID(), w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[TimeReportOut](t, r).Rows)

	for _, bad := range []string{"?from=2026-03-31&to=2026-03-01", "?from=2020-01-01&to=2026-01-01", "?from=March",
		"?userId=nope"} {
		requireErrorShape(t, e.do("GET", ws+"/time-report"+bad, w.member.Token, nil), http.StatusBadRequest)
		requireErrorShape(t, e.do("GET", ws+"/time-report/export"+bad, w.member.Token, nil), http.StatusBadRequest)
	}
	stranger := e.register("stranger@example.com")
	requireErrorShape(t, e.do("GET", ws+"/time-report"+q, stranger.Token, nil), http.StatusNotFound)
}

package timetrack_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/timetrack"
	"github.com/pilot-dev/pilot/internal/csvcell"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

type fixture struct {
	b           *testfactory.Bundle
	team        testfactory.Team
	cardA       string
	cardB       string
	annWho      timetrack.Who
	ctx         context.Context
	eng         *timetrack.Engine
	projectID   string
	workspaceID string
}

func setup(t *testing.T) fixture {
	t.Helper()
	b := testfactory.Store(t)
	team := testfactory.NewTeam(t, b.Engines)
	a := testfactory.Card(t, b.Engines, team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Alpha")})
	c := testfactory.Card(t, b.Engines, team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("=Beta")})
	return fixture{b: b, team: team, cardA: a.ID, cardB: c.ID, ctx: context.Background(), eng: b.Time,
		projectID: team.Project.ID, workspaceID: team.Project.WorkspaceID,
		annWho: timetrack.Who{WorkspaceID: team.Project.WorkspaceID, ProjectID: team.Project.ID, CardID: a.ID,
			UserID: team.Owner.User.ID}}
}

func (f fixture) on(cardID, userID string) timetrack.Who {
	return timetrack.Who{WorkspaceID: f.workspaceID, ProjectID: f.projectID, CardID: cardID, UserID: userID}
}

func (f fixture) spent(t *testing.T, cardID string) int64 {
	t.Helper()
	c, err := f.eng.CardTime(f.ctx, f.projectID, cardID)
	require.NoError(t, err)
	return c.TimeSpentSeconds
}

// TestConcurrentStartsLeaveOneRunning starts a person's timer on two cards from two sessions at once,
// many times: each time exactly one timer runs and the other is stopped with its entry, never two.
func TestConcurrentStartsLeaveOneRunning(t *testing.T) {
	t.Parallel()
	f := setup(t)
	user := f.team.Owner.User.ID
	for round := range 10 {
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2)
		for i, card := range []string{f.cardA, f.cardB} {
			wg.Go(func() {
				<-start
				_, errs[i] = f.eng.StartTimer(f.ctx, f.on(card, user), "Europe/Paris")
			})
		}
		close(start)
		wg.Wait()
		require.NoError(t, errs[0], "round %d", round)
		require.NoError(t, errs[1], "round %d", round)
		require.Equal(t, 1, f.b.Count(t, `SELECT count(*) FROM time_entries WHERE user_id = $1 AND running`, user))
		// Every start made an entry; all but the running one are stopped with an end.
		require.Equal(t, 2*(round+1), f.b.Count(t, `SELECT count(*) FROM time_entries WHERE user_id = $1`, user))
		require.Equal(t, 2*(round+1)-1, f.b.Count(t,
			`SELECT count(*) FROM time_entries WHERE user_id = $1 AND NOT running AND ended_at IS NOT NULL`, user))
	}
	running, err := f.eng.RunningTimer(f.ctx, user)
	require.NoError(t, err)
	require.Contains(t, []string{"Alpha", "=Beta"}, running.CardTitle)
	require.Equal(t, f.team.Project.Name, running.ProjectName)

	// The cards' totals are the sums of their stopped entries.
	stopped, err := f.eng.StopTimer(f.ctx, user)
	require.NoError(t, err)
	require.NotNil(t, stopped)
	require.False(t, stopped.Running)
	for _, c := range []string{f.cardA, f.cardB} {
		require.Equal(t, f.b.Count(t, `SELECT coalesce(sum(duration_seconds), 0) FROM time_entries WHERE card_id = $1`, c),
			int(f.spent(t, c)))
	}
	// Stopping again stops nothing, without error (another device stopped it first).
	again, err := f.eng.StopTimer(f.ctx, user)
	require.NoError(t, err)
	require.Nil(t, again)
	_, err = f.eng.RunningTimer(f.ctx, user)
	require.ErrorIs(t, err, db.ErrNotFound)
}

// TestStartingAnotherStopsTheFirst: a start on another card stops the running timer and adds its time.
func TestStartingAnotherStopsTheFirst(t *testing.T) {
	t.Parallel()
	f := setup(t)
	first, err := f.eng.StartTimer(f.ctx, f.annWho, "")
	require.NoError(t, err)
	require.Nil(t, first.Stopped)
	require.True(t, first.Running.Running)
	// The timer ran 90 seconds (moved back in time rather than waited for).
	_, err = f.b.Pool.Exec(f.ctx, `UPDATE time_entries SET started_at = now() - interval '90 seconds' WHERE id = $1`,
		first.Running.ID)
	require.NoError(t, err)
	second, err := f.eng.StartTimer(f.ctx, f.on(f.cardB, f.team.Owner.User.ID), "")
	require.NoError(t, err)
	require.NotNil(t, second.Stopped)
	require.Equal(t, first.Running.ID, second.Stopped.ID)
	require.InDelta(t, 90, second.Stopped.DurationSeconds, 2)
	require.Equal(t, int64(second.Stopped.DurationSeconds), f.spent(t, f.cardA))
	require.Equal(t, int64(0), f.spent(t, f.cardB)) // running time counts once stopped

	// A timer forgotten for two days counts for a day.
	_, err = f.b.Pool.Exec(f.ctx, `UPDATE time_entries SET started_at = now() - interval '2 days' WHERE id = $1`,
		second.Running.ID)
	require.NoError(t, err)
	stopped, err := f.eng.StopTimer(f.ctx, f.team.Owner.User.ID)
	require.NoError(t, err)
	require.Equal(t, int32(timetrack.MaxEntrySeconds), stopped.DurationSeconds)

	_, err = f.eng.StartTimer(f.ctx, f.annWho, "Mars/Olympus")
	require.ErrorIs(t, err, db.ErrInvalid)
	_, err = f.eng.StartTimer(f.ctx, f.on(db.NewID(), f.team.Owner.User.ID), "")
	require.ErrorIs(t, err, db.ErrNotFound)
}

// TestTotalsFollowAddEditDelete keeps a card's total equal to its entries through every change, and
// refuses what an entry may not hold.
func TestTotalsFollowAddEditDelete(t *testing.T) {
	t.Parallel()
	f := setup(t)
	d := func(n int32) *int32 { return &n }
	e1, err := f.eng.AddEntry(f.ctx, f.annWho, timetrack.NewEntry{Seconds: d(1800), Date: "2026-03-02", Note: "review"})
	require.NoError(t, err)
	require.Equal(t, "2026-03-02", e1.Date())
	require.Equal(t, f.team.Owner.User.Name, e1.UserName)
	start := time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)
	end := start.Add(45 * time.Minute)
	e2, err := f.eng.AddEntry(f.ctx, f.annWho, timetrack.NewEntry{StartedAt: &start, EndedAt: &end})
	require.NoError(t, err)
	require.Equal(t, int32(2700), e2.DurationSeconds)
	require.Equal(t, "2026-03-03", e2.Date())
	require.Equal(t, int64(4500), f.spent(t, f.cardA))

	e1, err = f.eng.UpdateEntry(f.ctx, f.annWho, e1.ID, timetrack.EntryPatch{Seconds: d(600)})
	require.NoError(t, err)
	require.Equal(t, int32(600), e1.DurationSeconds)
	require.Equal(t, "review", e1.Note)
	require.Equal(t, int64(3300), f.spent(t, f.cardA))

	// Someone else may not change Ann's entry; a workspace admin may.
	bob := f.on(f.cardA, f.team.Member.User.ID)
	_, err = f.eng.UpdateEntry(f.ctx, bob, e1.ID, timetrack.EntryPatch{Seconds: d(1)})
	require.ErrorIs(t, err, db.ErrForbidden)
	require.ErrorIs(t, f.eng.DeleteEntry(f.ctx, bob, e1.ID), db.ErrForbidden)
	bob.AsAdmin = true
	_, err = f.eng.UpdateEntry(f.ctx, bob, e1.ID, timetrack.EntryPatch{Note: testfactory.Ptr("checked")})
	require.NoError(t, err)
	// The entry is found only under its own card.
	_, err = f.eng.UpdateEntry(f.ctx, f.on(f.cardB, f.team.Owner.User.ID), e1.ID, timetrack.EntryPatch{Seconds: d(5)})
	require.ErrorIs(t, err, db.ErrNotFound)

	require.NoError(t, f.eng.DeleteEntry(f.ctx, f.annWho, e2.ID))
	require.Equal(t, int64(600), f.spent(t, f.cardA))
	require.ErrorIs(t, f.eng.DeleteEntry(f.ctx, f.annWho, e2.ID), db.ErrNotFound)

	for name, n := range map[string]timetrack.NewEntry{
		"negative":      {Seconds: d(-1)},
		"over a day":    {Seconds: d(86401)},
		"end<start":     {StartedAt: &end, EndedAt: &start},
		"start only":    {StartedAt: &start},
		"nothing":       {},
		"bad date":      {Seconds: d(5), Date: "03/02/2026"},
		"inconsistent":  {Seconds: d(5), StartedAt: &start, EndedAt: &end},
		"span over day": {StartedAt: &start, EndedAt: new(start.Add(25 * time.Hour))},
	} {
		_, err := f.eng.AddEntry(f.ctx, f.annWho, n)
		require.ErrorIs(t, err, db.ErrInvalid, name)
	}
	_, err = f.eng.AddEntry(f.ctx, f.on(db.NewID(), f.team.Owner.User.ID), timetrack.NewEntry{Seconds: d(5)})
	require.ErrorIs(t, err, db.ErrNotFound)
	require.Equal(t, int64(600), f.spent(t, f.cardA))

	// A running timer's note may change, not its times; deleting it discards it.
	run, err := f.eng.StartTimer(f.ctx, f.annWho, "")
	require.NoError(t, err)
	_, err = f.eng.UpdateEntry(f.ctx, f.annWho, run.Running.ID, timetrack.EntryPatch{Seconds: d(5)})
	require.ErrorIs(t, err, db.ErrConflict)
	r, err := f.eng.UpdateEntry(f.ctx, f.annWho, run.Running.ID, timetrack.EntryPatch{Note: testfactory.Ptr("focus")})
	require.NoError(t, err)
	require.True(t, r.Running)
	require.Equal(t, "focus", r.Note)
	require.NoError(t, f.eng.DeleteEntry(f.ctx, f.annWho, run.Running.ID))
	require.Equal(t, int64(600), f.spent(t, f.cardA))

	page, err := f.eng.Entries(f.ctx, f.projectID, f.cardA, db.Page{Limit: 50})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	require.Equal(t, "checked", page.Items[0].Note)

	// The estimate is a card field, set through the board's card update (which records card_updated);
	// out of range is refused. The total stays.
	estimate := func(v *int32) (*int32, error) {
		c, err := f.b.Board.UpdateCard(f.ctx, board.CardUpdate{WorkspaceID: f.workspaceID, ProjectID: f.projectID,
			CardID: f.cardA, ActorID: f.team.Owner.User.ID, Patch: board.CardPatch{EstimateSeconds: db.Opt[int32]{Set: true,
				Value: v}}})
		return c.EstimateSeconds, err
	}
	e, err := estimate(d(7200))
	require.NoError(t, err)
	require.Equal(t, int32(7200), *e)
	c, err := f.eng.CardTime(f.ctx, f.projectID, f.cardA)
	require.NoError(t, err)
	require.Equal(t, int32(7200), *c.EstimateSeconds)
	require.Equal(t, int64(600), c.TimeSpentSeconds)
	_, err = estimate(d(-5))
	require.ErrorIs(t, err, db.ErrInvalid)
	e, err = estimate(nil)
	require.NoError(t, err)
	require.Nil(t, e)
}

// TestEntriesPage pages a card's entries newest first.
func TestEntriesPage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i := range 5 {
		_, err := f.eng.AddEntry(f.ctx, f.annWho, timetrack.NewEntry{Seconds: new(int32(60 * (i + 1)))})
		require.NoError(t, err)
	}
	var got []int32
	p := db.Page{Limit: 2}
	for {
		page, err := f.eng.Entries(f.ctx, f.projectID, f.cardA, p)
		require.NoError(t, err)
		for _, e := range page.Items {
			got = append(got, e.DurationSeconds)
		}
		if page.Next == "" {
			break
		}
		p.Cursor = page.Next
	}
	require.Equal(t, []int32{300, 240, 180, 120, 60}, got)
}

// TestReportCSVMatchesJSON reads a report's CSV back with encoding/csv and compares it with the report's
// rows, and checks the filters, the totals and the spreadsheet-safe cells.
func TestReportCSVMatchesJSON(t *testing.T) {
	t.Parallel()
	f := setup(t)
	d := func(n int32) *int32 { return &n }
	bob := f.on(f.cardB, f.team.Member.User.ID)
	for _, x := range []struct {
		who  timetrack.Who
		secs int32
		date string
	}{
		{f.annWho, 3600, "2026-03-02"}, {f.annWho, 1800, "2026-03-02"}, {f.annWho, 900, "2026-03-04"},
		{bob, 7200, "2026-03-02"}, {bob, 60, "2026-02-27"}, // outside the period
	} {
		_, err := f.eng.AddEntry(f.ctx, x.who, timetrack.NewEntry{Seconds: d(x.secs), Date: x.date})
		require.NoError(t, err)
	}
	from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	filter := timetrack.ReportFilter{WorkspaceID: f.workspaceID, From: from, To: to}
	rep, err := f.eng.Report(f.ctx, filter)
	require.NoError(t, err)
	require.Len(t, rep.Rows, 3) // Ann's two entries of the 2nd are one row
	require.Equal(t, int64(3600+1800+900+7200), rep.TotalSeconds)
	require.Equal(t, int64(7200), rep.ByCard[0].Seconds)
	require.Equal(t, "=Beta", rep.ByCard[0].Name)
	entries := int32(0)
	for _, r := range rep.Rows {
		entries += r.Entries
	}
	require.Equal(t, int32(4), entries)

	var buf bytes.Buffer
	require.NoError(t, f.eng.WriteCSV(f.ctx, filter, &buf))
	records, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Equal(t, timetrack.CSVHeader, records[0])
	require.Len(t, records, len(rep.Rows)+1)
	for i, r := range rep.Rows {
		rec := records[i+1]
		require.Equal(t, r.Date, rec[0])
		require.Equal(t, r.UserID, rec[1])
		require.Equal(t, csvcell.Safe(r.UserName), rec[2])
		require.Equal(t, r.ProjectID, rec[4])
		require.Equal(t, r.CardID, rec[6])
		require.Equal(t, strconv.FormatInt(r.Seconds, 10), rec[8])
		require.Equal(t, strconv.FormatFloat(float64(r.Seconds)/3600, 'f', 2, 64), rec[9])
		require.Equal(t, strconv.Itoa(int(r.Entries)), rec[10])
		if r.CardTitle == "=Beta" {
			require.Equal(t, "'=Beta", rec[7]) // a spreadsheet shows it as text, never runs it
		} else {
			require.Equal(t, r.CardTitle, rec[7])
		}
	}

	// One person's, one project's.
	filter.UserID = f.team.Member.User.ID
	rep, err = f.eng.Report(f.ctx, filter)
	require.NoError(t, err)
	require.Len(t, rep.Rows, 1)
	require.Equal(t, int64(7200), rep.TotalSeconds)
	filter.UserID, filter.ProjectID = "", db.NewID()
	rep, err = f.eng.Report(f.ctx, filter)
	require.NoError(t, err)
	require.Empty(t, rep.Rows)

	_, err = f.eng.Report(f.ctx, timetrack.ReportFilter{WorkspaceID: f.workspaceID, From: to, To: from})
	require.ErrorIs(t, err, db.ErrInvalid)
	_, err = f.eng.Report(f.ctx, timetrack.ReportFilter{WorkspaceID: f.workspaceID, From: from,
		To: from.AddDate(2, 0, 0)})
	require.ErrorIs(t, err, db.ErrInvalid)
}

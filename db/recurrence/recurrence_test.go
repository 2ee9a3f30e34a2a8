package recurrence_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/recurrence"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

type env struct {
	*testfactory.Bundle
	team testfactory.Team
}

func setup(t testing.TB) *env {
	t.Helper()
	b := testfactory.Store(t)
	return &env{Bundle: b, team: testfactory.NewTeam(t, b.Engines)}
}

func (e *env) edit(cardID string) db.CardEdit {
	return db.CardEdit{ProjectID: e.team.Project.ID, CardID: cardID, ActorID: e.team.Owner.User.ID}
}

// card creates a card due at due, with a checklist item done, a label and the member as assignee.
func (e *env) card(t *testing.T, due time.Time) board.Card {
	t.Helper()
	c := testfactory.Card(t, e.Engines, e.team.Project, &testfactory.CardOpts{Title: testfactory.Ptr("Water the plants"),
		In: board.NewCard{Description: "All of them", DueDate: &due, AssigneeID: &e.team.Member.User.ID,
			Checklist: []board.ChecklistItemInput{{Title: "Ferns", Done: true}, {Title: "Cactus"}}}})
	l, err := e.Board.CreateLabel(context.Background(), e.team.Project.ID, "home", "#00aa00")
	require.NoError(t, err)
	_, err = e.Board.AddCardLabel(context.Background(), e.edit(c.ID), l.ID)
	require.NoError(t, err)
	return c
}

// occurrences are a series' cards' ids and dates, oldest first.
func (e *env) occurrences(t *testing.T, seriesID string) ([]string, []time.Time) {
	t.Helper()
	rows, err := e.Pool.Query(context.Background(),
		`SELECT card_id::text, occurs_at FROM card_occurrences WHERE series_id = $1 ORDER BY occurs_at`, seriesID)
	require.NoError(t, err)
	defer rows.Close()
	var ids []string
	var at []time.Time
	for rows.Next() {
		var id string
		var t0 time.Time
		require.NoError(t, rows.Scan(&id, &t0))
		ids, at = append(ids, id), append(at, t0)
	}
	require.NoError(t, rows.Err())
	return ids, at
}

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

func TestSetRefusesBadRules(t *testing.T) {
	t.Parallel()
	e := setup(t)
	c := e.card(t, time.Now().Add(time.Hour))
	for _, tc := range []struct{ rule, tz, mode, start, says string }{
		{"FREQ=SOMETIMES", "Europe/Paris", "on_schedule", "", "rule"},
		{"BYDAY=MO", "Europe/Paris", "on_schedule", "", "rule"},
		{"", "Europe/Paris", "on_schedule", "", "rule is empty"},
		{"FREQ=WEEKLY;BYDAY=XX", "Europe/Paris", "on_schedule", "", "rule"},
		{"DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY", "Europe/Paris", "on_schedule", "", "RRULE part only"},
		{"FREQ=MINUTELY;INTERVAL=90", "Europe/Paris", "on_schedule", "", "more often than hourly"},
		{"FREQ=HOURLY;BYMINUTE=0,30", "Europe/Paris", "on_schedule", "", "less than an hour apart"},
		{"FREQ=DAILY;COUNT=1", "Europe/Paris", "on_schedule", "", "no occurrence after the first"},
		{"FREQ=DAILY", "Mars/Olympus", "on_schedule", "", "IANA"},
		{"FREQ=DAILY", "Local", "on_schedule", "", "IANA"},
		{"FREQ=DAILY", "Europe/Paris", "sometimes", "", "mode"},
		{"FREQ=DAILY", "Europe/Paris", "on_schedule", "tomorrow", "start"},
	} {
		_, err := e.Recurrence.Set(context.Background(), e.edit(c.ID), recurrence.Spec{Rule: tc.rule, TimeZone: tc.tz,
			Mode: recurrence.Mode(tc.mode), Start: tc.start})
		require.ErrorIs(t, err, dbcore.ErrInvalid, "%+v", tc)
		require.ErrorContains(t, err, tc.says, "%+v", tc)
	}
	_, err := e.Recurrence.OfCard(context.Background(), e.team.Project.ID, c.ID)
	require.ErrorIs(t, err, dbcore.ErrNotFound, "nothing refused was kept")
	require.Zero(t, e.Count(t, `SELECT count(*) FROM card_series`))
}

// TestOnScheduleOccurrenceCopiesTheCard sets a daily series on a card whose first occurrence has passed:
// the scan creates today's occurrence once, a copy of the card, and then nothing until tomorrow.
func TestOnScheduleOccurrenceCopiesTheCard(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	paris := mustLoc(t, "Europe/Paris")
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, paris)
	c := e.card(t, start.Add(8*time.Hour)) // due at 17:00 the same day
	s, err := e.Recurrence.Set(ctx, e.edit(c.ID), recurrence.Spec{Rule: "FREQ=DAILY", TimeZone: "Europe/Paris",
		Mode: recurrence.ModeOnSchedule, Start: "2026-05-04T09:00"})
	require.NoError(t, err)
	require.True(t, s.StartsAt.Equal(start))
	require.True(t, s.OccursAt.Equal(start), "the card is the first occurrence")
	require.NotNil(t, s.NextOn)
	require.True(t, s.NextOn.Equal(start.AddDate(0, 0, 1)))

	now := time.Date(2026, 5, 6, 10, 0, 0, 0, paris) // two days later: 5 May's was missed, 6 May's is due
	n, err := e.Recurrence.RunDue(ctx, now, nil)
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the latest due occurrence is created")
	ids, at := e.occurrences(t, s.ID)
	require.Len(t, ids, 2)
	require.True(t, at[1].Equal(time.Date(2026, 5, 6, 9, 0, 0, 0, paris)))
	occ, err := e.Board.Card(ctx, e.team.Project.ID, ids[1])
	require.NoError(t, err)
	require.Equal(t, "Water the plants", occ.Title)
	require.Equal(t, "All of them", occ.Description)
	require.Equal(t, e.team.Member.User.ID, *occ.AssigneeID)
	require.True(t, occ.DueDate.Equal(time.Date(2026, 5, 6, 17, 0, 0, 0, paris)), "due shifted: %v", occ.DueDate)
	require.JSONEq(t, `["home"]`, string(jsonNames(t, occ.PartsLabels)))
	require.Equal(t, int32(0), occ.PartsProgress, "the checklist is copied unchecked")
	require.Equal(t, e.team.Project.Columns[0], occ.ColumnID)
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM checklist_items WHERE card_id = $1 AND NOT done`, ids[1]))

	n, err = e.Recurrence.RunDue(ctx, now.Add(time.Hour), nil)
	require.NoError(t, err)
	require.Zero(t, n, "nothing more until the next date")

	// The occurrence shows its series: its own date, and the next.
	cs, err := e.Recurrence.OfCard(ctx, e.team.Project.ID, ids[1])
	require.NoError(t, err)
	require.Equal(t, s.ID, cs.ID)
	require.True(t, cs.OccursAt.Equal(at[1]))
	require.True(t, cs.NextOn.Equal(time.Date(2026, 5, 7, 9, 0, 0, 0, paris)))
}

func jsonNames(t *testing.T, labels []byte) []byte {
	t.Helper()
	var ls []struct {
		Name string `json:"name"`
	}
	require.NoError(t, json.Unmarshal(labels, &ls))
	names := []string{}
	for _, l := range ls {
		names = append(names, l.Name)
	}
	b, err := json.Marshal(names)
	require.NoError(t, err)
	return b
}

// TestOccurrenceCreatedOnceWhenScansRace runs two scans at once, then one that sees the series as it was
// before (a retried job whose first attempt committed): the occurrence's key keeps it to one card.
func TestOccurrenceCreatedOnceWhenScansRace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	now := time.Now()
	c := e.card(t, now.Add(-49*time.Hour))
	s, err := e.Recurrence.Set(ctx, e.edit(c.ID), recurrence.Spec{Rule: "FREQ=DAILY", TimeZone: "UTC",
		Mode: recurrence.ModeOnSchedule})
	require.NoError(t, err)
	created := race(t, func() (int, error) { return e.Recurrence.RunDue(ctx, now, nil) })
	require.Equal(t, 1, created)
	ids, _ := e.occurrences(t, s.ID)
	require.Len(t, ids, 2)

	// A retried job (or a second worker) that finds the series' next date where it was.
	_, err = e.Pool.Exec(ctx, `UPDATE card_series SET next_at = $2 WHERE id = $1`, s.ID, *s.NextOn)
	require.NoError(t, err)
	n, err := e.Recurrence.RunDue(ctx, now, nil)
	require.NoError(t, err)
	require.Zero(t, n, "the occurrence was created already")
	ids, _ = e.occurrences(t, s.ID)
	require.Len(t, ids, 2)
	require.Equal(t, 2, e.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, e.team.Project.ID))
}

// race runs fn twice at once and answers the sum of what they created.
func race(t *testing.T, fn func() (int, error)) int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	start := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			<-start
			n, err := fn()
			assert.NoError(t, err)
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return total
}

// TestDaylightSaving follows weekly 09:00 rules in two time zones across the spring and autumn changes:
// every occurrence, and its due date, stays at 09:00 local.
func TestDaylightSaving(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		zone, start string
		weeks       int
	}{
		{"Europe/Paris", "2026-03-16T09:00", 4},     // summer time from 29 March
		{"Europe/Paris", "2026-10-12T09:00", 4},     // winter time from 25 October
		{"America/New_York", "2026-02-23T09:00", 4}, // daylight time from 8 March
		{"America/New_York", "2026-10-19T09:00", 4}, // standard time from 1 November
	} {
		t.Run(tc.zone+"_"+tc.start[:7], func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			ctx := context.Background()
			loc := mustLoc(t, tc.zone)
			start, err := time.ParseInLocation("2006-01-02T15:04", tc.start, loc)
			require.NoError(t, err)
			c := e.card(t, start)
			s, err := e.Recurrence.Set(ctx, e.edit(c.ID), recurrence.Spec{Rule: "FREQ=WEEKLY;BYDAY=MO",
				TimeZone: tc.zone, Mode: recurrence.ModeOnSchedule, Start: tc.start})
			require.NoError(t, err)
			for w := 1; w <= tc.weeks; w++ {
				_, err := e.Recurrence.RunDue(ctx, start.AddDate(0, 0, 7*w).Add(time.Minute), nil)
				require.NoError(t, err)
			}
			ids, at := e.occurrences(t, s.ID)
			require.Len(t, ids, tc.weeks+1)
			offsets := map[int]bool{}
			for i, a := range at {
				l := a.In(loc)
				require.Equal(t, time.Monday, l.Weekday())
				require.Equal(t, 9, l.Hour(), "occurrence %d at %s", i, l)
				require.Equal(t, 0, l.Minute())
				card, err := e.Board.Card(ctx, e.team.Project.ID, ids[i])
				require.NoError(t, err)
				require.Equal(t, 9, card.DueDate.In(loc).Hour(), "due date of occurrence %d: %s", i, card.DueDate.In(loc))
				require.True(t, card.DueDate.Equal(a))
				_, off := l.Zone()
				offsets[off] = true
			}
			require.Len(t, offsets, 2, "the weeks cross a daylight-saving change")
		})
	}
}

// TestAfterCompletion: moving the latest occurrence into the done column enqueues the job, in the same
// transaction; the job creates the next occurrence once, after the completion.
func TestAfterCompletion(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	start := time.Now().Add(-72 * time.Hour).Truncate(time.Minute)
	c := e.card(t, start)
	s, err := e.Recurrence.Set(ctx, e.edit(c.ID), recurrence.Spec{Rule: "FREQ=DAILY", TimeZone: "UTC",
		Mode: recurrence.ModeAfterCompletion})
	require.NoError(t, err)
	require.Nil(t, s.NextAt, "after completion, the scan has nothing to do")
	n, err := e.Recurrence.RunDue(ctx, time.Now(), nil)
	require.NoError(t, err)
	require.Zero(t, n)

	// A move that does not complete it enqueues nothing.
	cols := e.team.Project.Columns
	move := func(cardID string, col int) {
		_, err := e.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: e.team.Project.WorkspaceID,
			ProjectID: e.team.Project.ID, CardID: cardID, ActorID: e.team.Owner.User.ID,
			Patch: board.CardPatch{ColumnID: &cols[col]}})
		require.NoError(t, err)
	}
	move(c.ID, 1)
	require.Empty(t, e.Jobs(t, jobs.RecurrenceNextArgs{}.Kind()))
	before := time.Now()
	move(c.ID, len(cols)-1)
	js := e.Jobs(t, jobs.RecurrenceNextArgs{}.Kind())
	require.Len(t, js, 1, "the job committed with the completion")
	completedAt, err := time.Parse(time.RFC3339Nano, js[0].Args["completedAt"].(string))
	require.NoError(t, err)
	args := jobs.RecurrenceNextArgs{SeriesID: js[0].Args["seriesId"].(string), CardID: c.ID, CompletedAt: completedAt}
	require.Equal(t, s.ID, args.SeriesID)

	ok, err := e.Recurrence.Continue(ctx, args)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = e.Recurrence.Continue(ctx, args)
	require.NoError(t, err)
	require.False(t, ok, "a retried job creates nothing")
	ids, at := e.occurrences(t, s.ID)
	require.Len(t, ids, 2)
	require.True(t, at[1].After(before), "the next occurrence follows the completion, not the missed dates")
	require.True(t, at[1].Before(before.Add(25*time.Hour)))

	// The completed card moved back and completed again: it is no longer the latest, nothing more.
	move(c.ID, 0)
	move(c.ID, len(cols)-1)
	js = e.Jobs(t, jobs.RecurrenceNextArgs{}.Kind())
	require.Len(t, js, 2)
	ok, err = e.Recurrence.Continue(ctx, jobs.RecurrenceNextArgs{SeriesID: s.ID, CardID: c.ID, CompletedAt: time.Now()})
	require.NoError(t, err)
	require.False(t, ok)
	ids, _ = e.occurrences(t, s.ID)
	require.Len(t, ids, 2)
}

// TestEditAndStop changes a series' rule from one of its occurrences, then stops it.
func TestEditAndStop(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	utc := time.UTC
	start := time.Date(2026, 6, 1, 8, 0, 0, 0, utc) // a Monday
	c := e.card(t, start)
	s, err := e.Recurrence.Set(ctx, e.edit(c.ID), recurrence.Spec{Rule: "FREQ=DAILY", TimeZone: "UTC",
		Mode: recurrence.ModeOnSchedule})
	require.NoError(t, err)
	require.True(t, s.StartsAt.Equal(start), "the start defaults to the card's due date")
	_, err = e.Recurrence.RunDue(ctx, start.Add(25*time.Hour), nil)
	require.NoError(t, err)
	ids, _ := e.occurrences(t, s.ID)
	require.Len(t, ids, 2)

	// Edited from the second occurrence: weekly on Thursdays from now on.
	s2, err := e.Recurrence.Set(ctx, e.edit(ids[1]), recurrence.Spec{Rule: "FREQ=WEEKLY;BYDAY=TH",
		TimeZone: "UTC", Mode: recurrence.ModeOnSchedule})
	require.NoError(t, err)
	require.Equal(t, s.ID, s2.ID, "the same series")
	require.Equal(t, "FREQ=WEEKLY;BYDAY=TH", s2.Rule)
	require.True(t, s2.NextAt.Equal(time.Date(2026, 6, 4, 8, 0, 0, 0, utc)), "next: %v", s2.NextAt)
	n, err := e.Recurrence.RunDue(ctx, time.Date(2026, 6, 3, 9, 0, 0, 0, utc), nil)
	require.NoError(t, err)
	require.Zero(t, n, "no more daily occurrences")

	// An ordinary edit of one occurrence leaves the others.
	title := "Water the ferns only"
	_, err = e.Board.UpdateCard(ctx, board.CardUpdate{WorkspaceID: e.team.Project.WorkspaceID,
		ProjectID: e.team.Project.ID, CardID: ids[1], ActorID: e.team.Owner.User.ID, Patch: board.CardPatch{Title: &title}})
	require.NoError(t, err)
	first, err := e.Board.Card(ctx, e.team.Project.ID, c.ID)
	require.NoError(t, err)
	require.Equal(t, "Water the plants", first.Title)

	stopped, err := e.Recurrence.Stop(ctx, e.edit(c.ID))
	require.NoError(t, err)
	require.NotNil(t, stopped.StoppedAt)
	require.Nil(t, stopped.NextOn)
	n, err = e.Recurrence.RunDue(ctx, time.Date(2026, 7, 1, 0, 0, 0, 0, utc), nil)
	require.NoError(t, err)
	require.Zero(t, n, "a stopped series creates nothing")
	_, err = e.Recurrence.Stop(ctx, e.edit(c.ID))
	require.NoError(t, err, "stopping twice changes nothing")
	_, err = e.Recurrence.Stop(ctx, e.edit(testfactory.Card(t, e.Engines, e.team.Project, nil).ID))
	require.ErrorIs(t, err, dbcore.ErrNotFound)

	// Setting it again resumes it.
	s3, err := e.Recurrence.Set(ctx, e.edit(c.ID), recurrence.Spec{Rule: "FREQ=WEEKLY;BYDAY=TH", TimeZone: "UTC",
		Mode: recurrence.ModeOnSchedule})
	require.NoError(t, err)
	require.Nil(t, s3.StoppedAt)
	require.Equal(t, s.ID, s3.ID)

	// The project's running series list their cards.
	page, err := e.Recurrence.ProjectSeries(ctx, e.team.Project.ID, db.Page{Limit: 10})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	require.Equal(t, ids, page.Items[0].CardIDs)
}

// TestOccurrenceCreationUnderLoad creates the occurrences of 1,000 series due at once with two scans
// racing: exactly 1,000 cards, each once (docs/recurring.md gives the figure).
func TestOccurrenceCreationUnderLoad(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	const series = 1000
	start := time.Now().Add(-25 * time.Hour).Truncate(time.Minute)
	c := e.card(t, start)
	_, err := e.Recurrence.Set(ctx, e.edit(c.ID), recurrence.Spec{Rule: "FREQ=DAILY", TimeZone: "Europe/Paris",
		Mode: recurrence.ModeOnSchedule})
	require.NoError(t, err)
	// 999 more series like the first, each with its own first card, written in one statement each.
	_, err = e.Pool.Exec(ctx, `
		WITH src AS (SELECT * FROM cards WHERE id = $1), n AS (SELECT g, gen_random_uuid() AS card, gen_random_uuid() AS s
			FROM generate_series(2, $2) g)
		INSERT INTO cards (id, project_id, column_id, title, description, due_date, created_by)
		SELECT n.card, src.project_id, src.column_id, src.title || ' ' || g, src.description, src.due_date, src.created_by
		FROM n, src`, c.ID, series)
	require.NoError(t, err)
	_, err = e.Pool.Exec(ctx, `
		WITH s0 AS (SELECT * FROM card_series LIMIT 1), k AS (SELECT id, gen_random_uuid() AS s FROM cards
			WHERE project_id = $1 AND id <> $2)
		, ins AS (INSERT INTO card_series (id, project_id, template_card_id, rule, timezone, mode, starts_at, next_at,
			created_by) SELECT k.s, s0.project_id, k.id, s0.rule, s0.timezone, s0.mode, s0.starts_at, s0.next_at,
			s0.created_by FROM k, s0 RETURNING id, template_card_id, starts_at)
		INSERT INTO card_occurrences (series_id, occurs_at, card_id) SELECT id, starts_at, template_card_id FROM ins`,
		e.team.Project.ID, c.ID)
	require.NoError(t, err)
	require.Equal(t, series, e.Count(t, `SELECT count(*) FROM card_series WHERE next_at <= now()`))

	began := time.Now()
	created := race(t, func() (int, error) { return e.Recurrence.RunDue(ctx, time.Now(), nil) })
	elapsed := time.Since(began)
	t.Logf("%d series due: %d occurrences created by two racing scans in %s", series, created, elapsed)
	require.Equal(t, series, created)
	require.Equal(t, series, e.Count(t, `SELECT count(*) FROM card_occurrences o JOIN card_series s ON s.id = o.series_id
		WHERE o.occurs_at > s.starts_at AND o.card_id IS NOT NULL`))
	require.Equal(t, 2*series, e.Count(t, `SELECT count(*) FROM cards WHERE project_id = $1`, e.team.Project.ID))
}

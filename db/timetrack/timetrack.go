// Package timetrack is the time tracking engine: a timer per person (one running at a
// time), entries logged by hand, each card's total of logged time, and reports of a workspace's logged time
// per project, person and period as JSON or CSV. A card carries its estimate and its total as columns of
// its row, which every change of an entry moves in its own transaction, so card reads never add up
// entries. A card's estimate is a card field, set through the board engine's card update.
// docs/time-tracking.md says what is decided and why.
package timetrack

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Limits of what an entry and an estimate may hold.
const (
	// MaxEntrySeconds is the longest entry: a day. Longer is a forgotten timer or a typo.
	MaxEntrySeconds = 24 * 60 * 60
	// MaxNoteLength is the longest note of an entry, in characters.
	MaxNoteLength = 1000
)

// Source is how an entry was logged.
type Source string

// The sources of entries.
const (
	SourceTimer  Source = "timer"
	SourceManual Source = "manual"
)

// Sources lists the sources of entries.
var Sources = []Source{SourceTimer, SourceManual}

// Values lists the sources (the OpenAPI document's enum).
func (Source) Values() []Source { return Sources }

// Engine keeps estimates, timers and time entries.
type Engine struct {
	core *dbcore.Core
	q    *dbsqlc.Queries
}

// New builds the time tracking engine on core.
func New(core *dbcore.Core) *Engine { return &Engine{core: core, q: core.Q} }

// Entry is a time entry as reads show it: its row, its person's name, and its work date as a day.
type Entry struct {
	dbsqlc.TimeEntry
	UserName string
}

// Date is the entry's work date, "2006-01-02".
func (e Entry) Date() string { return formatDate(e.WorkDate) }

// Card is a card's time figures: its estimate (nil: none) and its total of logged time.
type Card struct {
	ID               string
	EstimateSeconds  *int32
	TimeSpentSeconds int64
}

// Running is a person's running timer and where its card is.
type Running struct {
	Entry
	CardTitle, ProjectName, WorkspaceSlug, OrgSlug string
}

// Who is the person acting on a card of a project of a workspace; AsAdmin says they are a workspace
// admin, who may change and delete anyone's entries.
type Who struct {
	WorkspaceID, ProjectID, CardID, UserID string
	AsAdmin                                bool
}

// CardTime answers a card's estimate and total of logged time.
func (e *Engine) CardTime(ctx context.Context, projectID, cardID string) (Card, error) {
	return card(ctx, e.q, projectID, cardID)
}

func card(ctx context.Context, q *dbsqlc.Queries, projectID, cardID string) (Card, error) {
	r, err := q.TimeCardGet(ctx, dbsqlc.TimeCardGetParams{ID: cardID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return Card{}, dbcore.NotFound("card not found")
	}
	if err != nil {
		return Card{}, fmt.Errorf("get card: %w", err)
	}
	return Card{ID: r.ID, EstimateSeconds: r.EstimateSeconds, TimeSpentSeconds: r.TimeSpentSeconds}, nil
}

// Started is what starting a timer did: the timer now running, and the one it stopped (nil: none ran).
type Started struct {
	Running Entry
	Stopped *Entry
}

// startAttempts bounds the retries of a start that met another start of the same person's.
const startAttempts = 5

// StartTimer starts w.UserID's timer on w.CardID now, its work date today in timeZone (an IANA name;
// "": UTC). A timer of the person's that is running, on this card or another, from this device or
// another, is stopped in the same transaction, its time added to its card. Two starts at once never
// leave two running: the database's one-running index refuses the later insert, which is tried again
// and then stops the earlier one.
func (e *Engine) StartTimer(ctx context.Context, w Who, timeZone string) (Started, error) {
	if timeZone == "" {
		timeZone = "UTC"
	}
	loc, err := time.LoadLocation(timeZone)
	if err != nil || strings.EqualFold(timeZone, "local") {
		return Started{}, dbcore.Invalid("timeZone: not a known IANA time zone (e.g. Europe/Paris)")
	}
	for range startAttempts {
		var out Started
		err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
			if _, err := card(ctx, q, w.ProjectID, w.CardID); err != nil {
				return err
			}
			stopped, err := stopRunning(ctx, q, w.UserID)
			if err != nil {
				return err
			}
			out.Stopped = stopped
			row, err := q.TimeEntryStartTimer(ctx, dbsqlc.TimeEntryStartTimerParams{ID: db.NewID(),
				WorkspaceID: w.WorkspaceID, ProjectID: w.ProjectID, CardID: w.CardID, UserID: w.UserID,
				WorkDate: dayOf(time.Now().In(loc))})
			if err != nil {
				return fmt.Errorf("start timer: %w", err)
			}
			out.Running, err = withName(ctx, q, row.ID)
			return err
		})
		if dbcore.IsUnique(err, "time_entries_one_running") {
			continue // another start of this person's committed first: stop it, then start
		}
		return out, err
	}
	return Started{}, dbcore.Conflict("the timer is being started from elsewhere; try again")
}

// StopTimer stops userID's running timer and adds its time to its card, answering the stopped entry, or
// nil when no timer was running (stopped already, from another device say).
func (e *Engine) StopTimer(ctx context.Context, userID string) (*Entry, error) {
	var out *Entry
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = stopRunning(ctx, q, userID)
		return err
	})
	return out, err
}

// stopRunning stops userID's running timer, if any, and adds its duration to its card's total.
func stopRunning(ctx context.Context, q *dbsqlc.Queries, userID string) (*Entry, error) {
	row, err := q.TimeEntryStopRunning(ctx, userID)
	if dbcore.IsNotFound(err) {
		return nil, nil //nolint:nilnil // no timer was running: nothing stopped, which is no error
	}
	if err != nil {
		return nil, fmt.Errorf("stop timer: %w", err)
	}
	if err := addSpent(ctx, q, row.CardID, int64(row.DurationSeconds)); err != nil {
		return nil, err
	}
	entry, err := withName(ctx, q, row.ID)
	if err != nil {
		return nil, err
	}
	return &entry, nil
}

// RunningTimer answers userID's running timer with where its card is; ErrNotFound when none runs.
func (e *Engine) RunningTimer(ctx context.Context, userID string) (Running, error) {
	r, err := e.q.TimeEntryRunning(ctx, userID)
	if dbcore.IsNotFound(err) {
		return Running{}, dbcore.NotFound("no timer is running")
	}
	if err != nil {
		return Running{}, fmt.Errorf("running timer: %w", err)
	}
	return Running{Entry: Entry{TimeEntry: r.TimeEntry}, CardTitle: r.CardTitle, ProjectName: r.ProjectName,
		WorkspaceSlug: r.WorkspaceSlug, OrgSlug: r.OrgSlug}, nil
}

// NewEntry is time logged by hand: a duration (Seconds) or a start and an end (from which the duration
// comes), the day it counts for (Date, "2006-01-02"; empty: the start's day in UTC, or today's), and a
// note.
type NewEntry struct {
	Seconds            *int32
	StartedAt, EndedAt *time.Time
	Date               string
	Note               string
}

// span is an entry's checked times: its duration, its start and end when given, and its work date.
type span struct {
	seconds            int32
	startedAt, endedAt *time.Time
	date               pgtype.Date
	note               string
}

// check refuses what an entry may not hold and fills in its duration and date.
func (n NewEntry) check(now time.Time) (span, error) {
	s := span{startedAt: n.StartedAt, endedAt: n.EndedAt}
	if (n.StartedAt == nil) != (n.EndedAt == nil) {
		return s, dbcore.Invalid("startedAt and endedAt: give both or neither")
	}
	switch {
	case n.StartedAt != nil:
		if n.EndedAt.Before(*n.StartedAt) {
			return s, dbcore.Invalid("endedAt: must not be before startedAt")
		}
		d := n.EndedAt.Sub(*n.StartedAt)
		if d > MaxEntrySeconds*time.Second {
			return s, dbcore.Invalid("an entry is at most 24 hours: split longer work into one entry per day")
		}
		s.seconds = int32(d / time.Second) //nolint:gosec // at most MaxEntrySeconds, checked above
		if n.Seconds != nil && *n.Seconds != s.seconds {
			return s, dbcore.Invalid("durationSeconds: differs from endedAt - startedAt; give one or the other")
		}
	case n.Seconds != nil:
		s.seconds = *n.Seconds
	default:
		return s, dbcore.Invalid("give durationSeconds, or startedAt and endedAt")
	}
	if s.seconds < 0 {
		return s, dbcore.Invalid("durationSeconds: must not be negative")
	}
	if s.seconds > MaxEntrySeconds {
		return s, dbcore.Invalid("durationSeconds: an entry is at most 24 hours (86400 seconds)")
	}
	day := now.UTC()
	if n.StartedAt != nil {
		day = n.StartedAt.UTC()
	}
	if n.Date != "" {
		d, err := ParseDate("date", n.Date)
		if err != nil {
			return s, err
		}
		day = d
	}
	s.date = dayOf(day)
	note, err := checkNote(n.Note)
	s.note = note
	return s, err
}

// dayOf is t's calendar day as a date.
func dayOf(t time.Time) pgtype.Date {
	return pgtype.Date{Time: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), Valid: true}
}

func checkNote(note string) (string, error) {
	note = strings.TrimSpace(note)
	if utf8.RuneCountInString(note) > MaxNoteLength {
		return "", dbcore.Invalid(fmt.Sprintf("note: at most %d characters", MaxNoteLength))
	}
	if strings.ContainsRune(note, 0) {
		return "", dbcore.Invalid("note: may not contain the NUL character")
	}
	return note, nil
}

// ParseDate reads a day "2006-01-02" given as field, refusing other forms and days outside 1970–9999.
func ParseDate(field, s string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil || d.Year() < 1970 {
		return time.Time{}, dbcore.Invalid(field + ": expected a day as YYYY-MM-DD (1970 or later)")
	}
	return d, nil
}

func formatDate(d pgtype.Date) string {
	if !d.Valid {
		return ""
	}
	return d.Time.Format(time.DateOnly)
}

// AddEntry logs time by hand on w.CardID as w.UserID and adds it to the card's total, in one transaction.
func (e *Engine) AddEntry(ctx context.Context, w Who, n NewEntry) (Entry, error) {
	s, err := n.check(time.Now())
	if err != nil {
		return Entry{}, err
	}
	var out Entry
	err = e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := card(ctx, q, w.ProjectID, w.CardID); err != nil {
			return err
		}
		row, err := q.TimeEntryInsert(ctx, dbsqlc.TimeEntryInsertParams{ID: db.NewID(), WorkspaceID: w.WorkspaceID,
			ProjectID: w.ProjectID, CardID: w.CardID, UserID: w.UserID, Source: string(SourceManual),
			StartedAt: s.startedAt, EndedAt: s.endedAt, DurationSeconds: s.seconds, WorkDate: s.date, Note: s.note})
		if err != nil {
			return fmt.Errorf("insert time entry: %w", err)
		}
		if err := addSpent(ctx, q, w.CardID, int64(s.seconds)); err != nil {
			return err
		}
		out, err = withName(ctx, q, row.ID)
		return err
	})
	return out, err
}

// EntryPatch changes an entry: any of its duration (or its start and end), its date and its note.
type EntryPatch struct {
	Seconds            *int32
	StartedAt, EndedAt *time.Time
	Date               *string
	Note               *string
}

// UpdateEntry changes an entry of w.CardID and moves the card's total by the change of its duration, in
// one transaction. Only the entry's person may, or a workspace admin (w.AsAdmin). A running timer's
// note may change, not its times (stop it first).
func (e *Engine) UpdateEntry(ctx context.Context, w Who, entryID string, p EntryPatch) (Entry, error) {
	var out Entry
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := ownEntry(ctx, q, w, entryID)
		if err != nil {
			return err
		}
		timed := p.Seconds != nil || p.StartedAt != nil || p.EndedAt != nil || p.Date != nil
		if cur.Running && timed {
			return dbcore.Conflict("the timer is running: stop it before changing its times")
		}
		n := NewEntry{Seconds: &cur.DurationSeconds, Date: formatDate(cur.WorkDate), Note: cur.Note}
		switch {
		case p.StartedAt != nil || p.EndedAt != nil:
			n.StartedAt, n.EndedAt, n.Seconds = p.StartedAt, p.EndedAt, p.Seconds
		case p.Seconds != nil:
			n.Seconds = p.Seconds // a new duration: the start and end no longer say it
		default:
			n.StartedAt, n.EndedAt = cur.StartedAt, cur.EndedAt
		}
		if p.Date != nil {
			n.Date = *p.Date
		}
		if p.Note != nil {
			n.Note = *p.Note
		}
		var s span
		if cur.Running {
			s = span{startedAt: cur.StartedAt, date: cur.WorkDate}
			if s.note, err = checkNote(n.Note); err != nil {
				return err
			}
		} else if s, err = n.check(time.Now()); err != nil {
			return err
		}
		row, err := q.TimeEntryUpdate(ctx, dbsqlc.TimeEntryUpdateParams{ID: cur.ID, StartedAt: s.startedAt,
			EndedAt: s.endedAt, DurationSeconds: s.seconds, WorkDate: s.date, Note: s.note})
		if err != nil {
			return fmt.Errorf("update time entry: %w", err)
		}
		if err := addSpent(ctx, q, cur.CardID, int64(row.DurationSeconds)-int64(cur.DurationSeconds)); err != nil {
			return err
		}
		out, err = withName(ctx, q, row.ID)
		return err
	})
	return out, err
}

// DeleteEntry deletes an entry of w.CardID and takes its time off the card's total, in one transaction.
// Only the entry's person may, or a workspace admin (w.AsAdmin). Deleting a running timer discards it.
func (e *Engine) DeleteEntry(ctx context.Context, w Who, entryID string) error {
	return e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := ownEntry(ctx, q, w, entryID)
		if err != nil {
			return err
		}
		if err := q.TimeEntryDelete(ctx, cur.ID); err != nil {
			return fmt.Errorf("delete time entry: %w", err)
		}
		return addSpent(ctx, q, cur.CardID, -int64(cur.DurationSeconds))
	})
}

// ownEntry locks an entry of w's card and project, refusing it to anyone but its person and admins.
func ownEntry(ctx context.Context, q *dbsqlc.Queries, w Who, entryID string) (dbsqlc.TimeEntry, error) {
	cur, err := q.TimeEntryGetForUpdate(ctx, dbsqlc.TimeEntryGetForUpdateParams{ID: entryID, CardID: w.CardID,
		ProjectID: w.ProjectID})
	if dbcore.IsNotFound(err) {
		return cur, dbcore.NotFound("time entry not found")
	}
	if err != nil {
		return cur, fmt.Errorf("get time entry: %w", err)
	}
	if cur.UserID != w.UserID && !w.AsAdmin {
		return cur, dbcore.Forbidden("only the entry's author or a workspace admin may change it")
	}
	return cur, nil
}

// Entries is one page of a card's entries, newest first, running timers included.
func (e *Engine) Entries(ctx context.Context, projectID, cardID string, p db.Page) (db.Paged[Entry], error) {
	k, err := p.AfterTime(entryList, true)
	if err != nil {
		return db.Paged[Entry]{}, err
	}
	if _, err := card(ctx, e.q, projectID, cardID); err != nil {
		return db.Paged[Entry]{}, err
	}
	rows, err := e.q.TimeEntryPageByCard(ctx, dbsqlc.TimeEntryPageByCardParams{CardID: cardID, AfterAt: k.At,
		AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[Entry]{}, fmt.Errorf("list time entries: %w", err)
	}
	out := dbcore.MapRows(rows, func(r dbsqlc.TimeEntryPageByCardRow) Entry {
		return Entry{TimeEntry: r.TimeEntry, UserName: r.UserName}
	})
	return db.PageOf(p, entryList, out, func(x Entry) any { return db.TimeKey{At: x.CreatedAt, ID: x.ID} }), nil
}

// entryList names the card's entry list's cursors.
const entryList = "time-entries"

func withName(ctx context.Context, q *dbsqlc.Queries, id string) (Entry, error) {
	r, err := q.TimeEntryWithNames(ctx, id)
	if err != nil {
		return Entry{}, fmt.Errorf("read time entry: %w", err)
	}
	return Entry{TimeEntry: r.TimeEntry, UserName: r.UserName}, nil
}

// addSpent moves a card's total by delta seconds (nothing to do for 0).
func addSpent(ctx context.Context, q *dbsqlc.Queries, cardID string, delta int64) error {
	if delta == 0 {
		return nil
	}
	if _, err := q.CardTimeSpentAdd(ctx, dbsqlc.CardTimeSpentAddParams{Delta: delta, ID: cardID}); err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return dbcore.NotFound("card not found")
		}
		return fmt.Errorf("add time to card: %w", err)
	}
	return nil
}

package recurrence

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// RunDue creates the occurrences of the on-schedule series due at now, a batch of series per
// transaction, each series locked (those another scan holds are skipped: it creates theirs). A series
// several occurrences behind (the workers were down) gets only its latest due one; its next is the rule's
// first after now. It answers how many cards it created. A series whose occurrence fails moves past it
// (logged), so that it does not hold the others back.
func (e *Engine) RunDue(ctx context.Context, now time.Time, logger *slog.Logger) (int, error) {
	total := 0
	for {
		n, created, err := e.runBatch(ctx, now, logger)
		total += created
		if err != nil || n < scanBatch {
			return total, err
		}
	}
}

// runBatch handles one batch of due series: how many it took and how many cards it created.
func (e *Engine) runBatch(ctx context.Context, now time.Time, logger *slog.Logger) (taken, created int, err error) {
	err = e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		rows, err := q.SeriesDueLock(ctx, dbsqlc.SeriesDueLockParams{Now: now, Lim: scanBatch})
		if err != nil {
			return fmt.Errorf("lock due series: %w", err)
		}
		taken, created = len(rows), 0
		for _, s := range rows {
			ok, err := e.runSeries(ctx, tx, s, now)
			if err != nil {
				if logger != nil {
					logger.WarnContext(ctx, "recurring card not created", "seriesId", s.ID, "error", err)
				}
				if err := dbcore.Queries(tx).SeriesSetNext(ctx, dbsqlc.SeriesSetNextParams{ID: s.ID,
					NextAt: e.nextAfter(s, now)}); err != nil {
					return fmt.Errorf("move series on: %w", err)
				}
				continue
			}
			if ok {
				created++
			}
		}
		return nil
	})
	return taken, created, err
}

// nextAfter is an on-schedule series' first occurrence after now (nil when its rule has no more).
func (e *Engine) nextAfter(s dbsqlc.CardSeries, now time.Time) *time.Time {
	r, _, err := Compile(s.Rule, s.Timezone, s.StartsAt)
	if err != nil {
		return nil
	}
	return orNil(r.After(now, false))
}

// runSeries creates a locked due series' occurrence, in a savepoint of tx, and moves its next date on.
func (e *Engine) runSeries(ctx context.Context, tx pgx.Tx, s dbsqlc.CardSeries, now time.Time) (bool, error) {
	r, _, err := Compile(s.Rule, s.Timezone, s.StartsAt)
	if err != nil {
		return false, err
	}
	occ := r.Before(now, true) // the latest due occurrence: missed ones are not created
	if occ.IsZero() || occ.Before(*s.NextAt) {
		occ = *s.NextAt
	}
	var created bool
	err = pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error { // a savepoint: a failure leaves the batch's others
		var err error
		created, err = e.createOccurrence(ctx, sp, s, occ)
		return err
	})
	if err != nil {
		return false, err
	}
	if err := dbcore.Queries(tx).SeriesSetNext(ctx, dbsqlc.SeriesSetNextParams{ID: s.ID,
		NextAt: orNil(r.After(now, false))}); err != nil {
		return false, fmt.Errorf("move series on: %w", err)
	}
	return created, nil
}

// Continue creates the next occurrence of an after-completion series once its occurrence cardID was
// completed at completedAt (the job the completing move enqueued): at the rule's first date after both
// the completion and the occurrence's own date. Only the series' latest occurrence continues it: a card
// completed again, an older one completed, or a retried job creates nothing.
func (e *Engine) Continue(ctx context.Context, a jobs.RecurrenceNextArgs) (bool, error) {
	var created bool
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		s, err := q.SeriesGetForUpdate(ctx, a.SeriesID)
		if dbcore.IsNotFound(err) {
			return nil // deleted with its project
		}
		if err != nil {
			return fmt.Errorf("lock series: %w", err)
		}
		if s.StoppedAt != nil || s.Mode != string(ModeAfterCompletion) {
			return nil
		}
		latest, err := q.OccurrenceLatest(ctx, s.ID)
		if err != nil {
			return fmt.Errorf("latest occurrence: %w", err)
		}
		if latest.CardID == nil || *latest.CardID != a.CardID {
			return nil
		}
		r, _, err := Compile(s.Rule, s.Timezone, s.StartsAt)
		if err != nil {
			return err
		}
		after := latest.OccursAt
		if a.CompletedAt.After(after) {
			after = a.CompletedAt
		}
		occ := r.After(after, false)
		if occ.IsZero() {
			return nil // the rule has no more
		}
		created, err = e.createOccurrence(ctx, tx, s, occ)
		return err
	})
	return created, err
}

// createOccurrence claims the series' occurrence at occ and creates its card, a copy of the series'
// template (title, description, priority, scope, assignee, checklist unchecked, labels, dates shifted
// to the occurrence) in the project's first column, in tx. It answers false when the occurrence was
// already created.
func (e *Engine) createOccurrence(ctx context.Context, tx pgx.Tx, s dbsqlc.CardSeries, occ time.Time) (bool, error) {
	q := dbcore.Queries(tx)
	n, err := q.OccurrenceInsert(ctx, dbsqlc.OccurrenceInsertParams{SeriesID: s.ID, OccursAt: occ})
	if err != nil {
		return false, fmt.Errorf("claim occurrence: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	tmpl, tmplAt, err := template(ctx, q, s)
	if err != nil {
		return false, err
	}
	loc, err := location(s.Timezone)
	if err != nil {
		return false, err
	}
	titles, err := q.ChecklistTitlesByCard(ctx, tmpl.ID)
	if err != nil {
		return false, fmt.Errorf("read checklist: %w", err)
	}
	items := make([]board.ChecklistItemInput, len(titles))
	for i, t := range titles {
		items[i] = board.ChecklistItemInput{Title: t}
	}
	wsID, err := q.ProjectWorkspace(ctx, s.ProjectID)
	if err != nil {
		return false, fmt.Errorf("read project: %w", err)
	}
	in := board.NewCard{WorkspaceID: wsID, ProjectID: s.ProjectID, ActorID: s.CreatedBy, Title: tmpl.Title,
		Description: tmpl.Description, Priority: board.Priority(tmpl.Priority), ScopeID: tmpl.ScopeID,
		AssigneeID: tmpl.AssigneeID, StartDate: shift(tmpl.StartDate, tmplAt, occ, loc),
		DueDate: shift(tmpl.DueDate, tmplAt, occ, loc), Checklist: items}
	card, err := e.board.CreateCardTx(ctx, tx, in)
	if errors.Is(err, dbcore.ErrInvalid) && (in.AssigneeID != nil || in.ScopeID != nil) {
		// The assignee left the workspace, or the scope went: the occurrence is created without them.
		in.AssigneeID, in.ScopeID = nil, nil
		card, err = e.board.CreateCardTx(ctx, tx, in)
	}
	if err != nil {
		return false, fmt.Errorf("create occurrence card: %w", err)
	}
	if err := q.CardLabelsCopy(ctx, dbsqlc.CardLabelsCopyParams{ToCardID: card.ID, FromCardID: tmpl.ID}); err != nil {
		return false, fmt.Errorf("copy labels: %w", err)
	}
	if err := q.OccurrenceSetCard(ctx, dbsqlc.OccurrenceSetCardParams{CardID: &card.ID, SeriesID: s.ID,
		OccursAt: occ}); err != nil {
		return false, fmt.Errorf("link occurrence: %w", err)
	}
	return true, nil
}

// errNoTemplate: every card of the series was deleted, so there is nothing to copy.
var errNoTemplate = errors.New("every card of the series was deleted: nothing to copy")

// template reads the card a series' occurrences copy, with its own occurrence date: the series'
// template card, else its latest occurrence that still has its card.
func template(ctx context.Context, q *dbsqlc.Queries, s dbsqlc.CardSeries) (dbsqlc.Card, time.Time, error) {
	if s.TemplateCardID != nil {
		row, err := q.SeriesOfCard(ctx, dbsqlc.SeriesOfCardParams{CardID: s.TemplateCardID, ProjectID: s.ProjectID})
		if err == nil {
			card, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: *s.TemplateCardID, ProjectID: s.ProjectID})
			if err == nil {
				return card, row.OccursAt, nil
			}
		}
		if err != nil && !dbcore.IsNotFound(err) {
			return dbsqlc.Card{}, time.Time{}, fmt.Errorf("read template: %w", err)
		}
	}
	o, err := q.OccurrenceLatestWithCard(ctx, s.ID)
	if dbcore.IsNotFound(err) {
		return dbsqlc.Card{}, time.Time{}, errNoTemplate
	}
	if err != nil {
		return dbsqlc.Card{}, time.Time{}, fmt.Errorf("read latest occurrence: %w", err)
	}
	card, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: *o.CardID, ProjectID: s.ProjectID})
	if err != nil {
		return dbsqlc.Card{}, time.Time{}, fmt.Errorf("read latest occurrence's card: %w", err)
	}
	return card, o.OccursAt, nil
}

// shift moves a template's date (due, start) to an occurrence: as many calendar days from the
// occurrence as it was from the template's own, at the same local time of day in loc, so that a due
// date stays at its local hour across daylight-saving changes.
func shift(d *time.Time, from, to time.Time, loc *time.Location) *time.Time {
	if d == nil {
		return nil
	}
	dl, fl, tl := d.In(loc), from.In(loc), to.In(loc)
	days := civil(dl).Sub(civil(fl)) / (24 * time.Hour)
	out := time.Date(tl.Year(), tl.Month(), tl.Day()+int(days), dl.Hour(), dl.Minute(), dl.Second(), 0, loc).UTC()
	return &out
}

// civil is t's calendar date as a UTC midnight, for counting days between two dates.
func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

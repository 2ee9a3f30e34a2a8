// Package recurrence is the engine of recurring cards (docs/recurring.md): a card's series, an RFC 5545
// rule (parsed and expanded by rrule-go, never by hand) read in an IANA time zone from the series' first
// occurrence, either on schedule (the leader worker's scan creates each occurrence at its date) or after
// completion (the move of an occurrence into the done column enqueues the job that creates the next).
// Each occurrence is claimed once by its (series, date) key before its card is created, in the same
// transaction, so two workers or a retried job never create it twice.
package recurrence

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/teambition/rrule-go"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Mode is when a series' next occurrence appears.
type Mode string

// The modes.
const (
	// ModeOnSchedule: the next occurrence appears at its date, even when this one is still open.
	ModeOnSchedule Mode = "on_schedule"
	// ModeAfterCompletion: the next occurrence appears when this one is moved into the done column, at
	// the rule's first date after that moment.
	ModeAfterCompletion Mode = "after_completion"
)

// Modes lists every mode.
var Modes = []Mode{ModeOnSchedule, ModeAfterCompletion}

// Values lists the valid modes (the OpenAPI document's enum).
func (Mode) Values() []Mode { return Modes }

// Valid says whether m is one of Modes.
func (m Mode) Valid() bool { return slices.Contains(Modes, m) }

// MinInterval is the shortest time a rule may leave between two occurrences (checked on its first
// checkedOccurrences): more often than hourly is refused.
const MinInterval = time.Hour

// checkedOccurrences is how many of a rule's first occurrences MinInterval is checked on.
const checkedOccurrences = 500

// MaxRuleLength bounds a rule's text.
const MaxRuleLength = 500

// scanBatch is how many due series one transaction of the scan takes.
const scanBatch = 100

// Engine keeps card series and creates their occurrences.
type Engine struct {
	core  *dbcore.Core
	q     *dbsqlc.Queries
	board *board.Engine
}

// New builds the recurrence engine; boards creates the occurrences' cards.
func New(core *dbcore.Core, boards *board.Engine) *Engine {
	return &Engine{core: core, q: core.Q, board: boards}
}

// Series is a card series.
type Series struct {
	ID, ProjectID string
	// TemplateCardID is the card each occurrence copies (nil once deleted: the latest occurrence then).
	TemplateCardID *string
	Rule           string
	TimeZone       string
	Mode           Mode
	// StartsAt is the first occurrence's date (the card the recurrence was set on).
	StartsAt time.Time
	// NextAt is when the scan creates the next occurrence (on schedule; nil after completion, stopped or
	// ended).
	NextAt    *time.Time
	StoppedAt *time.Time
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
}

func seriesOf(r dbsqlc.CardSeries) Series {
	return Series{ID: r.ID, ProjectID: r.ProjectID, TemplateCardID: r.TemplateCardID, Rule: r.Rule, TimeZone: r.Timezone,
		Mode: Mode(r.Mode), StartsAt: r.StartsAt, NextAt: r.NextAt, StoppedAt: r.StoppedAt, CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// CardSeries is a card's series as the card shows it: the series, the card's own occurrence date and the
// date of the occurrence after it (nil when the series is stopped or its rule has no more).
type CardSeries struct {
	Series
	OccursAt time.Time
	NextOn   *time.Time
}

// Spec is a series as a person sets it.
type Spec struct {
	Rule     string
	TimeZone string
	Mode     Mode
	// Start is the local date and time, in TimeZone, of the first occurrence (this card): empty keeps a
	// series' start, or, for a new series, takes the card's due date, else the current minute.
	Start string
}

// localLayouts are the forms of Spec.Start.
var localLayouts = []string{"2006-01-02T15:04:05", "2006-01-02T15:04"}

var ruleWord = regexp.MustCompile(`^[A-Z]+=`)

// rule parses a series' rule from its first occurrence start, in loc. Every error is the caller's.
func rule(text string, loc *time.Location, start time.Time) (r *rrule.RRule, err error) {
	defer func() { // rrule-go must not take the process down on a rule it did not foresee
		if p := recover(); p != nil {
			r, err = nil, dbcore.Invalid(fmt.Sprintf("rule: %v", p))
		}
	}()
	text = strings.TrimPrefix(strings.TrimSpace(text), "RRULE:")
	if text == "" {
		return nil, dbcore.Invalid("rule is empty: give an RFC 5545 rule such as FREQ=WEEKLY;BYDAY=MO")
	}
	if len(text) > MaxRuleLength {
		return nil, dbcore.Invalid(fmt.Sprintf("rule is longer than %d characters", MaxRuleLength))
	}
	if strings.ContainsAny(text, "\r\n") || strings.Contains(strings.ToUpper(text), "DTSTART") {
		return nil, dbcore.Invalid("rule: give the RRULE part only; its start is the card's (start)")
	}
	for part := range strings.SplitSeq(text, ";") {
		if !ruleWord.MatchString(part) {
			return nil, dbcore.Invalid(fmt.Sprintf("rule: %q is not NAME=VALUE", part))
		}
	}
	opt, err := rrule.StrToROptionInLocation(text, loc)
	if err != nil {
		return nil, dbcore.Invalid("rule: " + err.Error())
	}
	if opt.Freq == rrule.SECONDLY || opt.Freq == rrule.MINUTELY {
		return nil, dbcore.Invalid("rule: FREQ=SECONDLY and FREQ=MINUTELY repeat more often than hourly")
	}
	opt.Dtstart = start.In(loc)
	r, err = rrule.NewRRule(*opt)
	if err != nil {
		return nil, dbcore.Invalid("rule: " + err.Error())
	}
	return r, nil
}

// checkFrequency refuses a rule with two occurrences closer than MinInterval among its first ones, and
// one with no occurrence after its first.
func checkFrequency(r *rrule.RRule, start time.Time) error {
	next := r.Iterator()
	prev := start
	for i := range checkedOccurrences {
		t, ok := next()
		if !ok {
			if i == 0 || (i == 1 && t.IsZero() && !prev.After(start)) {
				return dbcore.Invalid("rule: it has no occurrence after the first")
			}
			return nil
		}
		if i > 0 && t.Sub(prev) < MinInterval {
			return dbcore.Invalid(fmt.Sprintf("rule: occurrences %s and %s are less than an hour apart; a card repeats "+
				"at most hourly", prev.Format(time.RFC3339), t.Format(time.RFC3339)))
		}
		prev = t
	}
	return nil
}

// location loads an IANA time zone.
func location(name string) (*time.Location, error) {
	if name == "" || name == "Local" || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return nil, dbcore.Invalid(fmt.Sprintf("timeZone %q is not an IANA time zone name (such as Europe/Paris)", name))
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, dbcore.Invalid(fmt.Sprintf("timeZone %q is not an IANA time zone name (such as Europe/Paris)", name))
	}
	return loc, nil
}

// parseStart reads a local date and time in loc.
func parseStart(s string, loc *time.Location) (time.Time, error) {
	for _, layout := range localLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, dbcore.Invalid(fmt.Sprintf("start %q is not a local date and time (2026-03-02T09:00)", s))
}

// Compile parses and checks a series (its rule from its start, in its time zone): what the card's
// recurrence write refuses is refused here, with the reason.
func Compile(ruleText, timeZone string, start time.Time) (*rrule.RRule, *time.Location, error) {
	loc, err := location(timeZone)
	if err != nil {
		return nil, nil, err
	}
	r, err := rule(ruleText, loc, start.Truncate(time.Second))
	if err != nil {
		return nil, nil, err
	}
	if err := checkFrequency(r, start.Truncate(time.Second)); err != nil {
		return nil, nil, err
	}
	return r, loc, nil
}

// Set makes a card repeat, or changes the series it is an occurrence of (rule, time zone, mode, start),
// resuming it if it was stopped. An on-schedule series' next occurrence is the rule's first after the
// series' latest occurrence.
func (e *Engine) Set(ctx context.Context, edit db.CardEdit, spec Spec) (CardSeries, error) {
	if !spec.Mode.Valid() {
		return CardSeries{}, dbcore.Invalid(fmt.Sprintf("mode must be one of %v", Modes))
	}
	loc, err := location(spec.TimeZone)
	if err != nil {
		return CardSeries{}, err
	}
	var out CardSeries
	err = e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		card, err := q.CardGetForUpdate(ctx, dbsqlc.CardGetForUpdateParams{ID: edit.CardID, ProjectID: edit.ProjectID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("card not found")
		}
		if err != nil {
			return fmt.Errorf("lock card: %w", err)
		}
		cur, err := q.SeriesOfCard(ctx, dbsqlc.SeriesOfCardParams{CardID: &edit.CardID, ProjectID: edit.ProjectID})
		existing := err == nil
		if err != nil && !dbcore.IsNotFound(err) {
			return fmt.Errorf("read the card's series: %w", err)
		}
		var start time.Time
		switch {
		case spec.Start != "":
			if start, err = parseStart(spec.Start, loc); err != nil {
				return err
			}
		case existing:
			start = cur.CardSeries.StartsAt
		case card.DueDate != nil:
			start = *card.DueDate
		default:
			start = time.Now().Truncate(time.Minute)
		}
		start = start.Truncate(time.Second)
		r, _, err := Compile(spec.Rule, spec.TimeZone, start)
		if err != nil {
			return err
		}
		ruleText := strings.TrimPrefix(strings.TrimSpace(spec.Rule), "RRULE:")
		if !existing {
			return e.create(ctx, q, edit, spec, ruleText, start, r, &out)
		}
		if _, err := q.SeriesGetForUpdate(ctx, cur.CardSeries.ID); err != nil {
			return fmt.Errorf("lock series: %w", err)
		}
		latest, err := q.OccurrenceLatest(ctx, cur.CardSeries.ID)
		if err != nil {
			return fmt.Errorf("latest occurrence: %w", err)
		}
		row, err := q.SeriesUpdate(ctx, dbsqlc.SeriesUpdateParams{ID: cur.CardSeries.ID, Rule: ruleText,
			Timezone: spec.TimeZone, Mode: string(spec.Mode), StartsAt: start,
			NextAt: scheduled(spec.Mode, r, latest.OccursAt)})
		if err != nil {
			return fmt.Errorf("update series: %w", err)
		}
		out = cardSeries(row, cur.OccursAt, time.Now())
		return nil
	})
	return out, err
}

// create makes the card the first occurrence of a new series.
func (e *Engine) create(ctx context.Context, q *dbsqlc.Queries, edit db.CardEdit, spec Spec, ruleText string,
	start time.Time, r *rrule.RRule, out *CardSeries) error {
	row, err := q.SeriesInsert(ctx, dbsqlc.SeriesInsertParams{ID: db.NewID(), ProjectID: edit.ProjectID,
		TemplateCardID: &edit.CardID, Rule: ruleText, Timezone: spec.TimeZone, Mode: string(spec.Mode), StartsAt: start,
		NextAt: scheduled(spec.Mode, r, start), CreatedBy: edit.ActorID})
	if err != nil {
		return fmt.Errorf("insert series: %w", err)
	}
	if _, err := q.OccurrenceInsert(ctx, dbsqlc.OccurrenceInsertParams{SeriesID: row.ID, OccursAt: start,
		CardID: &edit.CardID}); err != nil {
		return fmt.Errorf("insert occurrence: %w", err)
	}
	*out = cardSeries(row, start, time.Now())
	return nil
}

// scheduled is an on-schedule series' next occurrence after the occurrence at latest (nil after
// completion, or when the rule has no more).
func scheduled(m Mode, r *rrule.RRule, latest time.Time) *time.Time {
	if m != ModeOnSchedule {
		return nil
	}
	return orNil(r.After(latest, false))
}

func orNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// cardSeries is a series as the card at occursAt shows it, now.
func cardSeries(row dbsqlc.CardSeries, occursAt, now time.Time) CardSeries {
	out := CardSeries{Series: seriesOf(row), OccursAt: occursAt}
	if row.StoppedAt != nil {
		return out
	}
	r, _, err := Compile(row.Rule, row.Timezone, row.StartsAt)
	if err != nil {
		return out // a rule written before a stricter check: shown, not expanded
	}
	after := occursAt
	if row.Mode == string(ModeAfterCompletion) && now.After(after) {
		after = now // the earliest the next can be: completed now
	}
	out.NextOn = orNil(r.After(after, false))
	return out
}

// OfCard reads the series a card is an occurrence of (not found when it does not repeat).
func (e *Engine) OfCard(ctx context.Context, projectID, cardID string) (CardSeries, error) {
	row, err := e.q.SeriesOfCard(ctx, dbsqlc.SeriesOfCardParams{CardID: &cardID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return CardSeries{}, dbcore.NotFound("the card does not repeat")
	}
	if err != nil {
		return CardSeries{}, fmt.Errorf("read the card's series: %w", err)
	}
	return cardSeries(row.CardSeries, row.OccursAt, time.Now()), nil
}

// Stop ends the series a card is an occurrence of: no occurrence is created after it; the cards made
// stay. Stopping a stopped series changes nothing.
func (e *Engine) Stop(ctx context.Context, edit db.CardEdit) (CardSeries, error) {
	var out CardSeries
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.SeriesOfCard(ctx, dbsqlc.SeriesOfCardParams{CardID: &edit.CardID, ProjectID: edit.ProjectID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("the card does not repeat")
		}
		if err != nil {
			return fmt.Errorf("read the card's series: %w", err)
		}
		if err := q.SeriesStop(ctx, cur.CardSeries.ID); err != nil {
			return fmt.Errorf("stop series: %w", err)
		}
		row, err := q.SeriesGetForUpdate(ctx, cur.CardSeries.ID)
		if err != nil {
			return fmt.Errorf("read series: %w", err)
		}
		out = cardSeries(row, cur.OccursAt, time.Now())
		return nil
	})
	return out, err
}

// RecurringCard is a card that is an occurrence of a running series.
type RecurringCard struct {
	SeriesID, CardID string
}

// ProjectSeries is one page of a project's running series, oldest first, with the cards of each.
func (e *Engine) ProjectSeries(ctx context.Context, projectID string, p db.Page) (db.Paged[CardSeriesCards], error) {
	k, err := p.AfterTime("card-series", false)
	if err != nil {
		return db.Paged[CardSeriesCards]{}, err
	}
	rows, err := e.q.SeriesPageByProject(ctx, dbsqlc.SeriesPageByProjectParams{ProjectID: projectID, AfterAt: k.At,
		AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[CardSeriesCards]{}, dbcore.Wrap(err, "list series")
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	cards, err := e.q.OccurrenceCardIDs(ctx, ids)
	if err != nil {
		return db.Paged[CardSeriesCards]{}, dbcore.Wrap(err, "list occurrences")
	}
	byID := map[string][]string{}
	for _, c := range cards {
		byID[c.SeriesID] = append(byID[c.SeriesID], c.CardID)
	}
	out := make([]CardSeriesCards, len(rows))
	for i, r := range rows {
		out[i] = CardSeriesCards{Series: seriesOf(r), CardIDs: byID[r.ID]}
		if out[i].CardIDs == nil {
			out[i].CardIDs = []string{}
		}
	}
	return db.PageOf(p, "card-series", out, func(s CardSeriesCards) any {
		return db.TimeKey{At: s.CreatedAt, ID: s.ID}
	}), nil
}

// CardSeriesCards is a series with its occurrences' cards, oldest first.
type CardSeriesCards struct {
	Series
	CardIDs []string
}

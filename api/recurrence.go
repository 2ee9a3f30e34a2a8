package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db/recurrence"
)

// CardSeriesOut is a recurring card's series as one of its occurrences shows it.
type CardSeriesOut struct {
	ID       string          `json:"id"`
	Rule     string          `json:"rule" doc:"RFC 5545 recurrence rule (the RRULE part), e.g. FREQ=WEEKLY;BYDAY=MO,TH"`
	TimeZone string          `json:"timeZone" doc:"IANA time zone the rule is read in, e.g. Europe/Paris"`
	Mode     recurrence.Mode `json:"mode" doc:"on_schedule: the next occurrence appears at its date, even while this one is open; after_completion: it appears when this one is moved into the done column"`
	StartsAt time.Time       `json:"startsAt" doc:"The series' first occurrence"`
	OccursAt time.Time       `json:"occursAt" doc:"This card's occurrence date"`
	NextAt   *time.Time      `json:"nextAt" nullable:"true" doc:"The occurrence after this one (after completion: the earliest, were it completed now); null when stopped or the rule has no more"`
	Stopped  bool            `json:"stopped"`
	// StoppedAt is when the series was stopped.
	StoppedAt *time.Time `json:"stoppedAt" nullable:"true"`
	CreatedBy string     `json:"createdBy"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

func cardSeriesOut(s recurrence.CardSeries) CardSeriesOut {
	return CardSeriesOut{ID: s.ID, Rule: s.Rule, TimeZone: s.TimeZone, Mode: s.Mode, StartsAt: s.StartsAt,
		OccursAt: s.OccursAt, NextAt: s.NextOn, Stopped: s.StoppedAt != nil, StoppedAt: s.StoppedAt,
		CreatedBy: s.CreatedBy, UpdatedAt: s.UpdatedAt}
}

// SeriesOut is a running series of a project with its occurrences' cards.
type SeriesOut struct {
	ID       string          `json:"id"`
	Rule     string          `json:"rule"`
	TimeZone string          `json:"timeZone"`
	Mode     recurrence.Mode `json:"mode"`
	StartsAt time.Time       `json:"startsAt"`
	NextAt   *time.Time      `json:"nextAt" nullable:"true" doc:"When the scan creates the next occurrence (on schedule only)"`
	CardIDs  []string        `json:"cardIds" doc:"The occurrences' cards, oldest first (deleted ones left out)"`
}

func seriesOut(s recurrence.CardSeriesCards) SeriesOut {
	return SeriesOut{ID: s.ID, Rule: s.Rule, TimeZone: s.TimeZone, Mode: s.Mode, StartsAt: s.StartsAt, NextAt: s.NextAt,
		CardIDs: s.CardIDs}
}

func (s boardOps) registerRecurrence() {
	tags := []string{"Recurring cards"}
	register(s.Server, huma.Operation{OperationID: "card-recurrence-set", Method: http.MethodPut,
		Path: pathCard + "/recurrence", Summary: "Make a card repeat, or change its series", Tags: tags,
		Description: "The card becomes the first occurrence of a series (or, when it already is an occurrence, its " +
			"series changes: rule, time zone, mode, start; a stopped series resumes). Each occurrence is a copy of the " +
			"card (title, description, priority, assignee, labels, checklist unchecked, dates shifted) in the project's " +
			"first column. A rule that is not RFC 5545, an unknown time zone, or occurrences less than an hour apart " +
			"are refused with 400 in the error shape."},
		cardWrite, s.setRecurrence)
	register(s.Server, huma.Operation{OperationID: "card-recurrence-get", Method: http.MethodGet,
		Path: pathCard + "/recurrence", Summary: "Get the series a card is an occurrence of", Tags: tags,
		Description: "404 when the card does not repeat.", Errors: []int{http.StatusNotFound}},
		projectRead, s.getRecurrence)
	register(s.Server, huma.Operation{OperationID: "card-recurrence-stop", Method: http.MethodDelete,
		Path: pathCard + "/recurrence", Summary: "Stop a card's series", Tags: tags,
		Description: "No occurrence is created after this; the cards already created stay. Answers the stopped series. " +
			"404 when the card does not repeat.", Errors: []int{http.StatusNotFound}},
		cardWrite, s.stopRecurrence)
	register(s.Server, huma.Operation{OperationID: "card-series-list", Method: http.MethodGet,
		Path: pathProject + "/card-series", Summary: "List a project's running recurring series", Tags: tags,
		Description: "Oldest first, each with its occurrences' cards (what the board marks as recurring)."},
		projectRead, s.listSeries)
}

// SetRecurrenceInput is the request of card-recurrence-set.
type SetRecurrenceInput struct {
	CardPath
	Body SetRecurrenceInputBody
}

// SetRecurrenceInputBody is the body of card-recurrence-set (and the MCP set_card_recurrence tool).
type SetRecurrenceInputBody struct {
	Rule     string          `json:"rule" required:"true" minLength:"1" maxLength:"500" doc:"RFC 5545 recurrence rule (the RRULE part), e.g. FREQ=WEEKLY;BYDAY=MO,TH; at most hourly"`
	TimeZone string          `json:"timeZone" required:"true" minLength:"1" maxLength:"64" doc:"IANA time zone, e.g. Europe/Paris"`
	Mode     recurrence.Mode `json:"mode,omitempty" doc:"Default on_schedule"`
	Start    string          `json:"start,omitempty" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?$" patternDescription:"local date and time, 2026-03-02T09:00" doc:"Local date and time, in timeZone, of the first occurrence (this card); default: the series' start, else the card's due date, else now"`
}

func (s boardOps) setRecurrence(ctx context.Context, in *SetRecurrenceInput) (*Output[CardSeriesOut], error) {
	mode := in.Body.Mode
	if mode == "" {
		mode = recurrence.ModeOnSchedule
	}
	return oneOf(cardSeriesOut)(s.recurrence.Set(ctx, cardEdit(ctx, in.CardID), recurrence.Spec{Rule: in.Body.Rule,
		TimeZone: in.Body.TimeZone, Mode: mode, Start: in.Body.Start}))
}

func (s boardOps) getRecurrence(ctx context.Context, in *CardPath) (*Output[CardSeriesOut], error) {
	return oneOf(cardSeriesOut)(s.recurrence.OfCard(ctx, accessFrom(ctx).ProjectID, in.CardID))
}

func (s boardOps) stopRecurrence(ctx context.Context, in *CardPath) (*Output[CardSeriesOut], error) {
	return oneOf(cardSeriesOut)(s.recurrence.Stop(ctx, cardEdit(ctx, in.CardID)))
}

// ListSeriesInput is the request of card-series-list.
type ListSeriesInput struct {
	ProjectPath
	PageQuery
}

func (s boardOps) listSeries(ctx context.Context, in *ListSeriesInput) (*PageOutput[SeriesOut], error) {
	return pageOf(ctx, seriesOut)(s.recurrence.ProjectSeries(ctx, accessFrom(ctx).ProjectID, in.page()))
}

// SetCardRecurrenceArgs is the input of the MCP tool set_card_recurrence.
type SetCardRecurrenceArgs struct {
	CardArgs
	SetRecurrenceInputBody
}

func (s *Server) mcpSetCardRecurrence(ctx context.Context, in *SetCardRecurrenceArgs) (*CardSeriesOut, error) {
	return body(s.ops.board.setRecurrence(ctx, &SetRecurrenceInput{CardPath: CardPath{CardID: in.CardID},
		Body: in.SetRecurrenceInputBody}))
}

func (s *Server) mcpStopCardRecurrence(ctx context.Context, in *CardArgs) (*CardSeriesOut, error) {
	return body(s.ops.board.stopRecurrence(ctx, &CardPath{CardID: in.CardID}))
}

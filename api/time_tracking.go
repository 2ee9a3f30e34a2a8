package api

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/timetrack"
	"github.com/pilot-dev/pilot/internal/auth"
)

// TimeEntryOut is time logged on a card: a timer (running, or stopped with its start and end) or an
// entry made by hand.
type TimeEntryOut struct {
	ID              string           `json:"id"`
	CardID          string           `json:"cardId"`
	ProjectID       string           `json:"projectId"`
	WorkspaceID     string           `json:"workspaceId"`
	UserID          string           `json:"userId" doc:"The person who logged it"`
	UserName        string           `json:"userName"`
	Source          timetrack.Source `json:"source" doc:"timer: started and stopped; manual: entered by hand"`
	Running         bool             `json:"running" doc:"A running timer: its time counts once stopped"`
	StartedAt       *time.Time       `json:"startedAt" nullable:"true"`
	EndedAt         *time.Time       `json:"endedAt" nullable:"true"`
	DurationSeconds int32            `json:"durationSeconds" doc:"0 while running"`
	Date            string           `json:"date" format:"date" doc:"The day the time counts for (YYYY-MM-DD)"`
	Note            string           `json:"note"`
	CreatedAt       time.Time        `json:"createdAt"`
	UpdatedAt       time.Time        `json:"updatedAt"`
}

func timeEntryOut(e timetrack.Entry) TimeEntryOut {
	return TimeEntryOut{ID: e.ID, CardID: e.CardID, ProjectID: e.ProjectID, WorkspaceID: e.WorkspaceID,
		UserID: e.UserID, UserName: e.UserName, Source: timetrack.Source(e.Source), Running: e.Running,
		StartedAt: e.StartedAt, EndedAt: e.EndedAt, DurationSeconds: e.DurationSeconds, Date: e.Date(), Note: e.Note,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

func timeEntryPtr(e *timetrack.Entry) *TimeEntryOut {
	if e == nil {
		return nil
	}
	out := timeEntryOut(*e)
	return &out
}

// RunningTimerOut is the caller's running timer and where its card is (for a link to it).
type RunningTimerOut struct {
	Entry         TimeEntryOut `json:"entry"`
	CardTitle     string       `json:"cardTitle"`
	ProjectName   string       `json:"projectName"`
	OrgSlug       string       `json:"orgSlug"`
	WorkspaceSlug string       `json:"workspaceSlug"`
}

// TimerOut is the caller's timer: the running one, or null.
type TimerOut struct {
	Running *RunningTimerOut `json:"running" doc:"The running timer; null when none runs"`
}

// TimerStopOut is what stopping the caller's timer did.
type TimerStopOut struct {
	Stopped *TimeEntryOut `json:"stopped" doc:"The entry the timer became; null when none was running"`
}

// TimerStartOut is what starting a timer did.
type TimerStartOut struct {
	Running TimeEntryOut  `json:"running"`
	Stopped *TimeEntryOut `json:"stopped" doc:"The caller's timer this start stopped (one runs at a time); null when none ran"`
}

// TimeEntryPath are the path parameters of one time entry.
type TimeEntryPath struct {
	CardPath
	EntryID string `path:"entryId" format:"uuid"`
}

// registerTimeTracking registers estimates' reads, timers, time entries and time reports.
func (s boardOps) registerTimeTracking() {
	tags := []string{"Time tracking"}
	timerRead := Requires{Scope: auth.ScopeProjectsRead, KeepsTenancy: true}
	timerWrite := Requires{Scope: auth.ScopeProjectsWrite, KeepsTenancy: true}

	register(s.Server, huma.Operation{OperationID: "timer-get", Method: http.MethodGet, Path: "/timer",
		Summary: "Get my running timer", Tags: tags,
		Description: "The caller's running timer with its card's title and where it is, or null. A person has at most " +
			"one running timer, whatever device started it."},
		timerRead, s.getTimer)
	register(s.Server, huma.Operation{OperationID: "timer-stop", Method: http.MethodPost, Path: "/timer/stop",
		Summary: "Stop my running timer", Tags: tags,
		Description: "Stops the caller's running timer: its entry gets its end and duration (at most 24 hours) and the " +
			"card's total grows by it. Answers the entry, or null when no timer was running (stopped from another " +
			"device, say)."},
		timerWrite, s.stopTimer)
	register(s.Server, huma.Operation{OperationID: "timer-start", Method: http.MethodPost, Path: pathCard + "/timer",
		Summary: "Start my timer on a card", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "Starts the caller's timer on the card now. A timer of the caller's already running, on this card " +
			"or another, from any device, is stopped in the same transaction (answered as `stopped`): one runs at a time."},
		cardWrite, s.startTimer)

	register(s.Server, huma.Operation{OperationID: "time-entries-list", Method: http.MethodGet,
		Path: pathCard + "/time-entries", Summary: "List a card's time entries", Tags: tags,
		Description: "Everyone's entries on the card, newest first, running timers included."},
		projectRead, s.listTimeEntries)
	register(s.Server, huma.Operation{OperationID: "time-entries-create", Method: http.MethodPost,
		Path: pathCard + "/time-entries", Summary: "Log time on a card", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "Time entered by hand: `durationSeconds`, or `startedAt` and `endedAt` (not before it); at most 24 " +
			"hours per entry. `date` is the day it counts for (default: the start's day in UTC, or today). The card's " +
			"total grows by it."},
		cardWrite, s.createTimeEntry)
	register(s.Server, huma.Operation{OperationID: "time-entries-update", Method: http.MethodPatch,
		Path: pathCard + "/time-entries/{entryId}", Summary: "Change a time entry", Tags: tags,
		Description: "Any of the duration (or start and end), the date and the note. Only the entry's author or a " +
			"workspace admin may. A running timer's note may change, not its times (409). The card's total follows."},
		cardWrite, s.updateTimeEntry)
	register(s.Server, huma.Operation{OperationID: "time-entries-delete", Method: http.MethodDelete,
		Path: pathCard + "/time-entries/{entryId}", Summary: "Delete a time entry", Tags: tags,
		Description: "Only the entry's author or a workspace admin may. Its time is taken off the card's total; " +
			"deleting a running timer discards it."},
		cardWrite, s.deleteTimeEntry)

	register(s.Server, huma.Operation{OperationID: "time-report", Method: http.MethodGet,
		Path: pathWorkspace + "/time-report", Summary: "Report the time logged in the workspace", Tags: tags,
		Description: "The time logged on work dates `from` to `to` (inclusive, at most 366 days; default: the last 30 " +
			"days), of one project and one person when given: one row per day, person and card, with totals per person " +
			"and per card. Running timers count once stopped. At most 5000 rows (`truncated` says when there were " +
			"more; the CSV download has them all)."},
		projectRead, s.timeReport)
	register(s.Server, huma.Operation{OperationID: "time-report-export", Method: http.MethodGet,
		Path: pathWorkspace + "/time-report/export", Summary: "Download the time report as CSV", Tags: tags,
		Description: "The report's rows as CSV (RFC 4180): a header row (" + csvHeaderDoc() + "), then one row per day, " +
			"person and card. Text a person typed that a spreadsheet would read as a formula (starting with =, +, -, @) " +
			"starts with an apostrophe.",
		Responses: map[string]*huma.Response{"200": {
			Description: "The report as CSV",
			Headers: map[string]*huma.Param{"Content-Disposition": {Description: "attachment; filename=\"time-report.csv\"",
				Schema: &huma.Schema{Type: huma.TypeString}}},
			Content: map[string]*huma.MediaType{"text/csv": {Schema: &huma.Schema{Type: huma.TypeString}}}}}},
		projectRead, s.exportTimeReport)
}

func csvHeaderDoc() string {
	var b bytes.Buffer
	for i, h := range timetrack.CSVHeader {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`" + h + "`")
	}
	return b.String()
}

// TimerInput is the request of timer-get and timer-stop.
type TimerInput struct{}

func (s boardOps) getTimer(ctx context.Context, _ *TimerInput) (*Output[TimerOut], error) {
	r, err := s.timeTrack.RunningTimer(ctx, principalFrom(ctx).User.ID)
	if errors.Is(err, db.ErrNotFound) {
		return &Output[TimerOut]{}, nil
	}
	if err != nil {
		return nil, fail(err)
	}
	return &Output[TimerOut]{Body: TimerOut{Running: &RunningTimerOut{Entry: timeEntryOut(r.Entry),
		CardTitle: r.CardTitle, ProjectName: r.ProjectName, OrgSlug: r.OrgSlug, WorkspaceSlug: r.WorkspaceSlug}}}, nil
}

func (s boardOps) stopTimer(ctx context.Context, _ *TimerInput) (*Output[TimerStopOut], error) {
	e, err := s.timeTrack.StopTimer(ctx, principalFrom(ctx).User.ID)
	if err != nil {
		return nil, fail(err)
	}
	return &Output[TimerStopOut]{Body: TimerStopOut{Stopped: timeEntryPtr(e)}}, nil
}

// StartTimerInput is the request of timer-start.
type StartTimerInput struct {
	CardPath
	Body *StartTimerInputBody `required:"false"`
}

// StartTimerInputBody is the optional body of timer-start.
type StartTimerInputBody struct {
	TimeZone string `json:"timeZone,omitempty" maxLength:"64" example:"Europe/Paris" doc:"The IANA time zone whose today the entry counts for (default UTC)"`
}

func (s boardOps) startTimer(ctx context.Context, in *StartTimerInput) (*Output[TimerStartOut], error) {
	tz := ""
	if in.Body != nil {
		tz = in.Body.TimeZone
	}
	st, err := s.timeTrack.StartTimer(ctx, timeWho(ctx, in.CardID), tz)
	if err != nil {
		return nil, fail(err)
	}
	return &Output[TimerStartOut]{Body: TimerStartOut{Running: timeEntryOut(st.Running),
		Stopped: timeEntryPtr(st.Stopped)}}, nil
}

// timeWho is the caller acting on a card of the request's project.
func timeWho(ctx context.Context, cardID string) timetrack.Who {
	a := accessFrom(ctx)
	return timetrack.Who{WorkspaceID: a.WorkspaceID, ProjectID: a.ProjectID, CardID: cardID,
		UserID: principalFrom(ctx).User.ID, AsAdmin: a.WorkspaceRole == "admin"}
}

// ListTimeEntriesInput is the request of time-entries-list.
type ListTimeEntriesInput struct {
	CardPath
	PageQuery
}

func (s boardOps) listTimeEntries(ctx context.Context, in *ListTimeEntriesInput) (*PageOutput[TimeEntryOut], error) {
	return pageOf(ctx, timeEntryOut)(s.timeTrack.Entries(ctx, accessFrom(ctx).ProjectID, in.CardID, in.page()))
}

// CreateTimeEntryInput is the request of time-entries-create.
type CreateTimeEntryInput struct {
	CardPath
	Body TimeEntryInputBody
}

// TimeEntryInputBody is time entered by hand (and the fields of a change to an entry).
type TimeEntryInputBody struct {
	DurationSeconds *int32     `json:"durationSeconds,omitempty" doc:"The time spent, 0 to 86400 seconds"`
	StartedAt       *time.Time `json:"startedAt,omitempty" doc:"With endedAt, instead of durationSeconds"`
	EndedAt         *time.Time `json:"endedAt,omitempty" doc:"Not before startedAt, at most 24 hours after it"`
	Date            *string    `json:"date,omitempty" format:"date" doc:"The day the time counts for (YYYY-MM-DD)"`
	Note            *string    `json:"note,omitempty" maxLength:"1000"`
}

func (s boardOps) createTimeEntry(ctx context.Context, in *CreateTimeEntryInput) (*Output[TimeEntryOut], error) {
	b := in.Body
	n := timetrack.NewEntry{Seconds: b.DurationSeconds, StartedAt: b.StartedAt, EndedAt: b.EndedAt}
	if b.Date != nil {
		n.Date = *b.Date
	}
	if b.Note != nil {
		n.Note = *b.Note
	}
	return oneOf(timeEntryOut)(s.timeTrack.AddEntry(ctx, timeWho(ctx, in.CardID), n))
}

// UpdateTimeEntryInput is the request of time-entries-update.
type UpdateTimeEntryInput struct {
	TimeEntryPath
	Body TimeEntryInputBody
}

func (s boardOps) updateTimeEntry(ctx context.Context, in *UpdateTimeEntryInput) (*Output[TimeEntryOut], error) {
	b := in.Body
	return oneOf(timeEntryOut)(s.timeTrack.UpdateEntry(ctx, timeWho(ctx, in.CardID), in.EntryID,
		timetrack.EntryPatch{Seconds: b.DurationSeconds, StartedAt: b.StartedAt, EndedAt: b.EndedAt, Date: b.Date,
			Note: b.Note}))
}

func (s boardOps) deleteTimeEntry(ctx context.Context, in *TimeEntryPath) (*OKOutput, error) {
	return done(s.timeTrack.DeleteEntry(ctx, timeWho(ctx, in.CardID), in.EntryID))
}

// TimeReportQuery is what a time report covers.
type TimeReportQuery struct {
	From      string `query:"from" format:"date" doc:"The first day (YYYY-MM-DD); default 29 days before to"`
	To        string `query:"to" format:"date" doc:"The last day (YYYY-MM-DD), inclusive; default today (UTC)"`
	ProjectID string `query:"projectId" format:"uuid" doc:"Only this project's time"`
	UserID    string `query:"userId" format:"uuid" doc:"Only this person's time"`
}

func (q TimeReportQuery) filter(ctx context.Context) (timetrack.ReportFilter, error) {
	f := timetrack.ReportFilter{WorkspaceID: accessFrom(ctx).WorkspaceID, ProjectID: q.ProjectID, UserID: q.UserID}
	now := time.Now().UTC()
	f.To = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	var err error
	if q.To != "" {
		if f.To, err = timetrack.ParseDate("to", q.To); err != nil {
			return f, fail(err)
		}
	}
	f.From = f.To.AddDate(0, 0, -29)
	if q.From != "" {
		if f.From, err = timetrack.ParseDate("from", q.From); err != nil {
			return f, fail(err)
		}
	}
	if err := f.Check(); err != nil {
		return f, fail(err)
	}
	return f, nil
}

// TimeReportInput is the request of time-report.
type TimeReportInput struct {
	WorkspacePath
	TimeReportQuery
}

// TimeReportRowOut is the time one person logged on one card on one day.
type TimeReportRowOut struct {
	Date        string `json:"date" format:"date"`
	UserID      string `json:"userId"`
	UserName    string `json:"userName"`
	ProjectID   string `json:"projectId"`
	ProjectName string `json:"projectName"`
	CardID      string `json:"cardId"`
	CardTitle   string `json:"cardTitle"`
	Seconds     int64  `json:"seconds"`
	Entries     int32  `json:"entries" doc:"How many entries the row adds up"`
}

// TimeTotalOut is the time of one person or one card over the report's period.
type TimeTotalOut struct {
	ID      string `json:"id"`
	Name    string `json:"name" doc:"The person's name or the card's title"`
	Seconds int64  `json:"seconds"`
}

// TimeReportOut is a period's logged time.
type TimeReportOut struct {
	From         string             `json:"from" format:"date"`
	To           string             `json:"to" format:"date"`
	TotalSeconds int64              `json:"totalSeconds"`
	Truncated    bool               `json:"truncated" doc:"More than 5000 rows: the rows and totals are of the first 5000"`
	Rows         []TimeReportRowOut `json:"rows" doc:"By day, then person, then project and card"`
	ByPerson     []TimeTotalOut     `json:"byPerson" doc:"Largest first"`
	ByCard       []TimeTotalOut     `json:"byCard" doc:"Largest first"`
}

func totalsOut(ts []timetrack.Total) []TimeTotalOut {
	out := make([]TimeTotalOut, len(ts))
	for i, t := range ts {
		out[i] = TimeTotalOut{ID: t.ID, Name: t.Name, Seconds: t.Seconds}
	}
	return out
}

func (s boardOps) timeReport(ctx context.Context, in *TimeReportInput) (*Output[TimeReportOut], error) {
	f, err := in.filter(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.timeTrack.Report(ctx, f)
	if err != nil {
		return nil, fail(err)
	}
	out := TimeReportOut{From: f.From.Format(time.DateOnly), To: f.To.Format(time.DateOnly),
		TotalSeconds: r.TotalSeconds, Truncated: r.Truncated, Rows: make([]TimeReportRowOut, len(r.Rows)),
		ByPerson: totalsOut(r.ByPerson), ByCard: totalsOut(r.ByCard)}
	for i, x := range r.Rows {
		out.Rows[i] = TimeReportRowOut{Date: x.Date, UserID: x.UserID, UserName: x.UserName, ProjectID: x.ProjectID,
			ProjectName: x.ProjectName, CardID: x.CardID, CardTitle: x.CardTitle, Seconds: x.Seconds, Entries: x.Entries}
	}
	return &Output[TimeReportOut]{Body: out}, nil
}

func (s boardOps) exportTimeReport(ctx context.Context, in *TimeReportInput) (*huma.StreamResponse, error) {
	f, err := in.filter(ctx)
	if err != nil {
		return nil, err
	}
	// Written whole before answering, so that a failure is an error answer rather than a cut file.
	var buf bytes.Buffer
	if err := s.timeTrack.WriteCSV(ctx, f, &buf); err != nil {
		return nil, fail(err)
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		hctx.SetHeader("Content-Type", "text/csv; charset=utf-8")
		hctx.SetHeader("Content-Disposition", contentDisposition("time-report.csv"))
		hctx.SetHeader("Cache-Control", privateCacheControl)
		hctx.SetHeader("Content-Length", strconv.Itoa(buf.Len()))
		hctx.SetStatus(http.StatusOK)
		_, _ = hctx.BodyWriter().Write(buf.Bytes())
	}}, nil
}

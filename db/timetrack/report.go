package timetrack

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/csvcell"
)

// Report limits: a report covers at most MaxReportDays days and holds at most MaxReportRows rows (a
// larger one says it is truncated; its CSV download has every row).
const (
	MaxReportDays = 366
	MaxReportRows = 5000
)

// ReportFilter is what a report covers: a workspace's logged time on work dates From to To (inclusive),
// of one project and of one person when set.
type ReportFilter struct {
	WorkspaceID, ProjectID, UserID string
	From, To                       time.Time
}

// Check refuses a period that ends before it starts or is longer than MaxReportDays.
func (f ReportFilter) Check() error {
	if f.To.Before(f.From) {
		return dbcore.Invalid("to: must not be before from")
	}
	if f.To.Sub(f.From) >= MaxReportDays*24*time.Hour {
		return dbcore.Invalid(fmt.Sprintf("a report covers at most %d days", MaxReportDays))
	}
	return nil
}

// ReportRow is the time one person logged on one card on one day.
type ReportRow struct {
	Date        string
	UserID      string
	UserName    string
	UserEmail   string
	ProjectID   string
	ProjectName string
	CardID      string
	CardTitle   string
	Seconds     int64
	Entries     int32
}

// Total is the time logged by one person or on one card over the report's period.
type Total struct {
	ID, Name string
	Seconds  int64
}

// Report is a period's logged time: its rows (day, person, card), the totals per person and per card
// (largest first), and the sum.
type Report struct {
	Rows         []ReportRow
	ByPerson     []Total
	ByCard       []Total
	TotalSeconds int64
	// Truncated says there were more than MaxReportRows rows: the totals are of the rows kept.
	Truncated bool
}

// Report reads the logged time f covers.
func (e *Engine) Report(ctx context.Context, f ReportFilter) (Report, error) {
	rows, err := e.reportRows(ctx, e.q, f, MaxReportRows+1)
	if err != nil {
		return Report{}, err
	}
	var r Report
	if len(rows) > MaxReportRows {
		rows, r.Truncated = rows[:MaxReportRows], true
	}
	r.Rows = rows
	persons, cards := map[string]*Total{}, map[string]*Total{}
	for _, x := range rows {
		r.TotalSeconds += x.Seconds
		add(persons, x.UserID, x.UserName, x.Seconds)
		add(cards, x.CardID, x.CardTitle, x.Seconds)
	}
	r.ByPerson, r.ByCard = sorted(persons), sorted(cards)
	return r, nil
}

func add(m map[string]*Total, id, name string, s int64) {
	t, ok := m[id]
	if !ok {
		t = &Total{ID: id, Name: name}
		m[id] = t
	}
	t.Seconds += s
}

func sorted(m map[string]*Total) []Total {
	out := make([]Total, 0, len(m))
	for _, t := range m {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Total) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), strings.Compare(a.ID, b.ID))
	})
	return out
}

// reportRows reads at most lim rows of the report f covers.
func (e *Engine) reportRows(ctx context.Context, q *dbsqlc.Queries, f ReportFilter, lim int) ([]ReportRow, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	rows, err := q.TimeReportRows(ctx, dbsqlc.TimeReportRowsParams{WorkspaceID: f.WorkspaceID, FromDate: dayOf(f.From),
		ToDate: dayOf(f.To), ProjectID: dbcore.Optional(f.ProjectID), UserID: dbcore.Optional(f.UserID),
		Lim: dbcore.Int32(lim)})
	if err != nil {
		return nil, fmt.Errorf("time report: %w", err)
	}
	return dbcore.MapRows(rows, func(r dbsqlc.TimeReportRowsRow) ReportRow {
		return ReportRow{Date: formatDate(r.WorkDate), UserID: r.UserID, UserName: r.UserName, UserEmail: r.UserEmail,
			ProjectID: r.ProjectID, ProjectName: r.ProjectName, CardID: r.CardID, CardTitle: r.CardTitle,
			Seconds: r.Seconds, Entries: r.Entries}
	}), nil
}

// CSVHeader is the first row of a report's CSV.
var CSVHeader = []string{"date", "personId", "person", "email", "projectId", "project", "cardId", "card", "seconds",
	"hours", "entries"}

// Record is r as one row of a report's CSV (after CSVHeader): hours with two decimals, and every text a
// person typed made safe to open in a spreadsheet (csvcell.Safe).
func (r ReportRow) Record() []string {
	return []string{r.Date, r.UserID, csvcell.Safe(r.UserName), csvcell.Safe(r.UserEmail), r.ProjectID,
		csvcell.Safe(r.ProjectName),
		r.CardID, csvcell.Safe(r.CardTitle), strconv.FormatInt(r.Seconds, 10),
		strconv.FormatFloat(float64(r.Seconds)/3600, 'f', 2, 64), strconv.Itoa(int(r.Entries))}
}

// WriteCSV writes the report f covers to w as CSV: a header row, then one row per day, person and card
// (every row, however many), read in one snapshot.
func (e *Engine) WriteCSV(ctx context.Context, f ReportFilter, w io.Writer) error {
	if err := f.Check(); err != nil {
		return err
	}
	return e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		rows, err := e.reportRows(ctx, q, f, MaxReportDays*MaxReportRows)
		if err != nil {
			return err
		}
		cw := csv.NewWriter(w)
		if err := cw.Write(CSVHeader); err != nil {
			return err
		}
		for _, r := range rows {
			if err := cw.Write(r.Record()); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pilot-dev/pilot/db/calendar"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/billing"
	tf "github.com/pilot-dev/pilot/internal/testfactory"
)

// BenchmarkICalendar1000Cards measures GET /calendar/{token}.ics of a personal feed of 1,000 dated cards
// (half of them days, half timed; titles and descriptions with commas and line ends) through the real
// handler: the lookup by the token's hash, the access-checked read, the iCalendar written with
// golang-ical, the hash and the fetch recorded. It reports the answer's size and, as a second case, a
// client's poll answered 304. Run with `make bench/calendar`; figures, not pass/fail.
func BenchmarkICalendar1000Cards(b *testing.B) {
	ctx := context.Background()
	bundle := tf.Store(b)
	owner := tf.User(b, bundle.Engines, nil)
	prj := tf.NewProject(b, bundle.Engines, owner, nil)
	if _, err := bundle.Pool.Exec(ctx, `
INSERT INTO cards (id, project_id, column_id, title, description, created_by, assignee_id, due_date, start_date,
                   position, created_at, updated_at)
SELECT gen_random_uuid(), $1, $2, 'Seeded card ' || g || ', with a comma; and a semicolon',
       'Some words about the card, what it needs and who to ask.' || E'\n' || 'A second line, number ' || g,
       $3, $3, CASE WHEN g % 2 = 0 THEN timestamptz '2030-01-01 00:00Z' + g * interval '1 day'
                    ELSE timestamptz '2030-01-01 09:30Z' + g * interval '7 hours' END,
       CASE WHEN g % 4 = 0 THEN timestamptz '2030-01-01 00:00Z' + (g - 2) * interval '1 day' END, g, now(), now()
FROM generate_series(1, 1000) g`, prj.ID, prj.Columns[0], owner.User.ID); err != nil {
		b.Fatal(err)
	}
	token := calendarTokenPrefix + auth.RandomString(24)
	if _, err := bundle.Calendars.Create(ctx, calendar.NewFeed{UserID: owner.User.ID, Kind: calendar.KindPersonal,
		Prefix: token[:16], SecretHash: auth.HashSecret(token)}); err != nil {
		b.Fatal(err)
	}
	h := New(bundle.Engines, testSigner(testJWTSecret, time.Hour), billing.Local{PublicURL: "http://pilot.test"},
		slog.New(slog.NewTextHandler(io.Discard, nil)), Options{PublicURL: "http://pilot.test"})
	get := func(etag string) *httptest.ResponseRecorder {
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/calendar/"+token+".ics", http.NoBody)
		if etag != "" {
			r.Header.Set("If-None-Match", etag)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	first := get("")
	if first.Code != http.StatusOK {
		b.Fatalf("feed: %d %s", first.Code, first.Body)
	}
	b.Run("full", func(b *testing.B) {
		var size int
		start := time.Now()
		for b.Loop() {
			w := get("")
			if w.Code != http.StatusOK {
				b.Fatalf("feed: %d", w.Code)
			}
			size = w.Body.Len()
		}
		b.ReportMetric(float64(size), "bytes")
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/feed")
	})
	b.Run("not-modified", func(b *testing.B) {
		etag := first.Header().Get("ETag")
		start := time.Now()
		for b.Loop() {
			if w := get(etag); w.Code != http.StatusNotModified {
				b.Fatalf("poll: %d", w.Code)
			}
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/poll")
	})
}

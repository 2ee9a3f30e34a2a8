package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCardRecurrence(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Chores")
	c := e.card(u, prj, cols[0], "Water the plants")
	rec := prj + "/cards/" + c.ID + "/recurrence"

	r := e.do("GET", rec, u.Token, nil)
	requireStatus(t, r, http.StatusNotFound)
	one := decode[CardOut](t, e.do("GET", prj+"/cards/"+c.ID, u.Token, nil))
	require.Nil(t, one.Series, "a card that does not repeat has no series")

	for _, bad := range []map[string]any{
		{"rule": "FREQ=SOMETIMES", "timeZone": "Europe/Paris"},
		{"rule": "FREQ=MINUTELY", "timeZone": "Europe/Paris"},
		{"rule": "FREQ=HOURLY;BYMINUTE=0,20,40", "timeZone": "Europe/Paris"},
		{"rule": "FREQ=WEEKLY", "timeZone": "Europe/Nowhere"},
		{"rule": "FREQ=WEEKLY", "timeZone": "Europe/Paris", "mode": "whenever"},
		{"rule": "FREQ=WEEKLY", "timeZone": "Europe/Paris", "start": "next monday"},
	} {
		r := e.do("PUT", rec, u.Token, bad)
		require.Equal(t, http.StatusBadRequest, r.Code, "%v: %s", bad, r.Body)
		requireErrorShape(t, r, http.StatusBadRequest)
	}

	r = e.do("PUT", rec, u.Token, map[string]any{"rule": "FREQ=WEEKLY;BYDAY=MO,TH", "timeZone": "Europe/Paris",
		"start": "2026-03-26T09:00"})
	requireStatus(t, r, http.StatusOK)
	s := decode[CardSeriesOut](t, r)
	require.Equal(t, "on_schedule", string(s.Mode))
	paris, err := time.LoadLocation("Europe/Paris")
	require.NoError(t, err)
	require.True(t, s.OccursAt.Equal(time.Date(2026, 3, 26, 9, 0, 0, 0, paris)))
	require.True(t, s.NextAt.Equal(time.Date(2026, 3, 30, 9, 0, 0, 0, paris)), "09:00 local across the change: %v",
		s.NextAt)

	one = decode[CardOut](t, e.do("GET", prj+"/cards/"+c.ID, u.Token, nil))
	require.NotNil(t, one.Series, "the card's read carries its series")
	require.Equal(t, s.ID, one.Series.ID)
	require.Equal(t, "FREQ=WEEKLY;BYDAY=MO,TH", one.Series.Rule)

	list := e.do("GET", prj+"/card-series", u.Token, nil)
	requireStatus(t, list, http.StatusOK)
	all := decode[[]SeriesOut](t, list)
	require.Len(t, all, 1)
	require.Equal(t, []string{c.ID}, all[0].CardIDs)

	r = e.do("PUT", rec, u.Token, map[string]any{"rule": "FREQ=DAILY", "timeZone": "America/New_York",
		"mode": "after_completion"})
	requireStatus(t, r, http.StatusOK)
	s2 := decode[CardSeriesOut](t, r)
	require.Equal(t, s.ID, s2.ID)
	require.Equal(t, "after_completion", string(s2.Mode))

	r = e.do("DELETE", rec, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.True(t, decode[CardSeriesOut](t, r).Stopped)
	require.Empty(t, decode[[]SeriesOut](t, e.do("GET", prj+"/card-series", u.Token, nil)))
	other := e.card(u, prj, cols[0], "Once")
	requireStatus(t, e.do("DELETE", prj+"/cards/"+other.ID+"/recurrence", u.Token, nil), http.StatusNotFound)

	// Someone outside the workspace does not see it.
	bob := e.register("bob@example.com")
	requireStatus(t, e.do("GET", rec, bob.Token, nil), http.StatusNotFound)
}

package db

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPageCursorRoundTripAndRefusals(t *testing.T) {
	key := TimeKey{At: time.Date(2026, 11, 26, 10, 0, 0, 123456000, time.UTC), ID: "01a21785-9650-7173-badd-d0dd4bdf64f5"}
	rows := []int{1, 2, 3}
	p := PageOf(Page{Limit: 2}, "things", rows, func(int) any { return key })
	require.Equal(t, []int{1, 2}, p.Items)
	require.NotEmpty(t, p.Next)
	require.Empty(t, PageOf(Page{Limit: 3}, "things", rows, func(int) any { return key }).Next, "no row past the limit: "+
		"the last page")

	got, err := Page{Limit: 2, Cursor: p.Next}.AfterTime("things", false)
	require.NoError(t, err)
	require.True(t, key.At.Equal(got.At))
	require.Equal(t, key.ID, got.ID)

	first, err := Page{Limit: 2}.AfterTime("things", true)
	require.NoError(t, err)
	require.Equal(t, TimeKey{At: lastTime, ID: lastID}, first, "a first page starts past every row")

	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for name, c := range map[string]string{
		"not base64":   "a b",
		"not JSON":     enc("nope"),
		"another list": p.Next,
		"no key":       enc(`{"l":"others"}`),
		"a bad id":     enc(`{"l":"others","k":{"t":"2026-11-26T10:00:00Z","i":"1"}}`),
		"a bad time":   enc(`{"l":"others","k":{"t":"today","i":"01a21785-9650-7173-badd-d0dd4bdf64f5"}}`),
		"no time":      enc(`{"l":"others","k":{"i":"01a21785-9650-7173-badd-d0dd4bdf64f5"}}`),
		"no id":        enc(`{"l":"others","k":{"t":"2026-11-26T10:00:00Z"}}`),
		"an extra field": enc(
			`{"l":"others","k":{"t":"2026-11-26T10:00:00Z","i":"01a21785-9650-7173-badd-d0dd4bdf64f5","x":1}}`),
	} {
		_, err := Page{Limit: 2, Cursor: c}.AfterTime("others", false)
		require.True(t, errors.Is(err, ErrInvalid), name)
		require.Equal(t, "cursor: invalid", err.Error(), name)
	}
}

package auth

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRecoveryCodes(t *testing.T) {
	t.Parallel()
	shape := regexp.MustCompile(`^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$`)
	seen := map[string]bool{}
	for range 200 {
		c := NewRecoveryCode()
		require.Regexp(t, shape, c)
		require.False(t, seen[c], "codes are random")
		seen[c] = true

		canon, ok := NormalizeRecoveryCode(c)
		require.True(t, ok)
		require.Equal(t, strings.ReplaceAll(c, "-", ""), canon)
		h, ok := HashRecoveryCode(c)
		require.True(t, ok)
		require.Len(t, h, 32)
		// As a person may type it: upper case, spaces instead of hyphens, or none.
		for _, typed := range []string{strings.ToUpper(c), strings.ReplaceAll(c, "-", " "), canon} {
			again, ok := HashRecoveryCode(typed)
			require.True(t, ok, typed)
			require.Equal(t, h, again, typed)
		}
	}

	// Look-alikes read as the symbol they look like.
	a, ok := NormalizeRecoveryCode("IL0O-1234-abcd-efgh")
	require.True(t, ok)
	require.Equal(t, "11001234abcdefgh", a)

	for _, bad := range []string{"", "123456", "abcd-efgh-jkmn", "abcd-efgh-jkmn-pqrst", "abcd-efgh-jkmn-pqr!",
		"abcd-efgh-jkmn-pqru"} {
		_, ok := NormalizeRecoveryCode(bad)
		require.False(t, ok, bad)
	}
}

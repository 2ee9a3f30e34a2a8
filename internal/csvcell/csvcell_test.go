package csvcell_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/csvcell"
)

func TestSafe(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"=1+1": "'=1+1", "+3": "'+3", "-2": "'-2", "@SUM(A1)": "'@SUM(A1)",
		"\tx": "'\tx", "\rx": "'\rx", "plain": "plain", "": "", "a=b": "a=b"} {
		require.Equal(t, want, csvcell.Safe(in), in)
	}
}

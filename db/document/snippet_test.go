package document

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A snippet reads as text: markdown's marks go, its words and ts_headline's sentinels stay.
func TestPlainSnippet(t *testing.T) {
	t.Parallel()
	m := func(w string) string { return markStart + w + markStop }
	for in, want := range map[string]string{
		"We plan the **" + m("migration") + "** in spring":        "We plan the " + m("migration") + " in spring",
		"# " + m("Migration") + " plan\n\n- first\n- second":      m("Migration") + " plan first second",
		"> quoted " + m("migration") + "\n1. one\n2) two":         "quoted " + m("migration") + " one two",
		"See [the " + m("guide") + "](https://x.test/a_b) now":    "See the " + m("guide") + " now",
		"![diagram](d.png) and `" + m("code") + "` and ~~old~~":   "diagram and " + m("code") + " and old",
		"_" + m("stress") + "_ and *it* but snake_case and 2 * 3": m("stress") + " and it but snake_case and 2 * 3",
		"```go\nx := 1\n```\n---\n- [x] " + m("done") + " item":   "x := 1 " + m("done") + " item",
		"Read the <b>handbook</b> at <https://x.test>":            "Read the <b>handbook</b> at https://x.test",
	} {
		require.Equal(t, want, plainSnippet(in), in)
	}
}

package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSearchSnippetsAreEscaped: HTML stored in a document or a card's description comes back in the
// snippet as escaped text; the only markup is the <mark></mark> around the matches, even when the
// stored text holds the marks' own sentinel characters or <mark> tags of its own (which ts_headline
// drops, as it drops other simple tags: <img …> with unquoted attributes it keeps, and we escape).
func TestSearchSnippetsAreEscaped(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("xss@example.com")
	prj, cols := e.project(u, "Launch")
	hostile := `Zeppelin <img src=x onerror=alert(1)> "quoted" & <script>alert(2)</script> <mark>fake</mark>` +
		"\uE000injected\uE001 zeppelin"
	e.doc(u, "Hostile doc", map[string]any{"content": hostile})
	card := e.card(u, prj, cols[0], "Hostile card")
	requireStatus(t, e.do("PATCH", prj+"/cards/"+card.ID, u.Token, map[string]any{"description": hostile}), http.StatusOK)

	for _, path := range []string{u.ws() + "/search?q=zeppelin", u.ws() + "/search?q=injected"} {
		r := e.do("GET", path, u.Token, nil)
		requireStatus(t, r, http.StatusOK)
		res := decode[[]SearchResultOut](t, r)
		require.Len(t, res, 2, "the document and the card: %s", r.Body)
		kinds := map[string]bool{}
		for _, hit := range res {
			kinds[hit.Kind] = true
			s := hit.Snippet
			require.Contains(t, s, "&lt;img src=x onerror=alert(1)&gt;", "%s snippet: %s", hit.Kind, s)
			require.Contains(t, s, "&#34;quoted&#34; &amp;", "%s snippet: %s", hit.Kind, s)
			require.NotContains(t, s, "<mark>fake", "%s snippet: %s", hit.Kind, s) // ts_headline drops simple tags
			require.Contains(t, s, "<mark>", "%s snippet: %s", hit.Kind, s)
			require.NotContains(t, s, "\uE000", "%s snippet: %s", hit.Kind, s)
			require.NotContains(t, s, "\uE001", "%s snippet: %s", hit.Kind, s)
			// Without our marks, no markup is left.
			bare := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(s)
			require.NotContains(t, bare, "<", "%s snippet: %s", hit.Kind, s)
			require.NotContains(t, bare, ">", "%s snippet: %s", hit.Kind, s)
			require.Equal(t, strings.Count(s, "<mark>"), strings.Count(s, "</mark>"), "%s snippet: %s", hit.Kind, s)
		}
		require.Equal(t, map[string]bool{"document": true, "card": true}, kinds)
	}
	// The sentinels in the stored text are no marks: the word between them is matched as any other.
	res := decode[[]SearchResultOut](t, e.do("GET", u.ws()+"/search?q=injected", u.Token, nil))
	require.Contains(t, res[0].Snippet, "<mark>injected</mark>")
	require.Equal(t, 1, strings.Count(res[0].Snippet, "<mark>"), "only the searched word is marked: %s", res[0].Snippet)
}

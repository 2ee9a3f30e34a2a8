package api

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var linkNext = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

// page is one page of a paged list: its items' keys (the field key of each) and the next page's path
// from the Link header ("" when absent).
func (e *testEnv) page(path, token, key string) (keys []string, next string) {
	e.t.Helper()
	r := e.do("GET", path, token, nil)
	requireStatus(e.t, r, http.StatusOK)
	var items []map[string]json.RawMessage
	require.NoError(e.t, json.Unmarshal(r.Body, &items), "a bare array: %s", r.Body)
	for _, it := range items {
		var k string
		require.NoError(e.t, json.Unmarshal(it[key], &k), "item %s has a string %q", it, key)
		keys = append(keys, k)
	}
	if l := r.Header.Get("Link"); l != "" {
		m := linkNext.FindStringSubmatch(l)
		require.NotNil(e.t, m, "Link: %s", l)
		next = m[1]
	}
	return keys, next
}

// walk reads every page of path with limit, following the Link headers, and answers every item's key
// in order, checking that every page but the last is full and the last has no Link.
func (e *testEnv) walk(path, token, key string, limit int) []string {
	e.t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return e.follow(path+sep+"limit="+strconv.Itoa(limit), token, key, limit)
}

// follow reads the pages from path on (a list's path with its limit, or a Link's target).
func (e *testEnv) follow(path, token, key string, limit int) []string {
	e.t.Helper()
	var all []string
	next := path
	for pages := 0; next != ""; pages++ {
		require.Less(e.t, pages, 1000, "the walk ends")
		var keys []string
		keys, next = e.page(next, token, key)
		if next != "" {
			require.Len(e.t, keys, limit, "a page with a next one is full")
			u, err := url.Parse(next)
			require.NoError(e.t, err)
			require.Equal(e.t, strings.SplitN(path, "?", 2)[0], u.Path, "the Link names the same list")
			require.Equal(e.t, strconv.Itoa(limit), u.Query().Get("limit"), "the Link keeps the query")
		}
		all = append(all, keys...)
	}
	return all
}

// requireWalk checks that walking path in pages of limit gives exactly the items of one answer with the
// default limit, in the same order, each once.
func (e *testEnv) requireWalk(path, token, key string, limit int, want int) {
	e.t.Helper()
	whole, next := e.page(path, token, key)
	require.Empty(e.t, next, "the default page holds the whole list")
	require.Len(e.t, whole, want)
	require.Equal(e.t, whole, e.walk(path, token, key, limit), "%s in pages of %d", path, limit)
}

func TestPagesCards(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	prj, cols := e.project(u, "Launch")
	var ids []string
	for i, col := range []string{cols[1], cols[0], cols[0], cols[2], cols[1], cols[0], cols[2]} {
		ids = append(ids, e.card(u, prj, col, "card "+strconv.Itoa(i)).ID)
	}
	requireStatus(t, e.do("PATCH", prj+"/cards/"+ids[1], u.Token, map[string]any{"archived": true}), http.StatusOK)
	for _, limit := range []int{1, 2, 3, 7} {
		e.requireWalk(prj+"/cards", u.Token, "id", limit, 7)
	}
	e.requireWalk(prj+"/cards?archived=false", u.Token, "id", 2, 6)
	e.requireWalk(prj+"/cards?archived=true", u.Token, "id", 1, 1)

	// A card created in a column already read, or moved behind the cursor, does not disturb the rest.
	first, next := e.page(prj+"/cards?limit=4", u.Token, "id") // the first column and one card of the second
	e.card(u, prj, cols[0], "late in the first column")
	e.card(u, prj, cols[2], "late in the last column")
	rest := e.follow(next, u.Token, "id", 3)
	seen := map[string]int{}
	for _, id := range append(first, rest...) {
		seen[id]++
	}
	for _, id := range ids {
		require.Equal(t, 1, seen[id], "card %s once", id)
	}
	require.Len(t, seen, 8, "the card added to the last column after the cursor is read, the one behind it is not")
}

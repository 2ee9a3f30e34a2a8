package web_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/api"
)

// The app reaches an operation through api.js, with the operation's path as the call's first argument,
// written there or in a constant declared before the call: api.get('/orgs/{orgSlug}/workspaces', …), or
// const path = '/orgs/…'; … api.del(path, …). get, getAll, getPage and href (a link, an EventSource) are GETs.
var (
	appCall = regexp.MustCompile("api\\.(get|getAll|getPage|href|post|upload|patch|put|del)\\(\\s*" +
		"(?:['`](/[^'`]*)['`]|(\\w+)\\s*,)")
	pathDecl = regexp.MustCompile("(?:const|let)\\s+(\\w+)\\s*=\\s*['`](/[^'`$]*)['`]")
)

var callMethod = map[string]string{"get": "GET", "getAll": "GET", "getPage": "GET", "href": "GET", "post": "POST",
	"upload": "POST", "patch": "PATCH", "put": "PUT", "del": "DELETE"}

// An operation no screen calls, in docs/web.md's table: | `METHOD /path` | why |
var unreachedRow = regexp.MustCompile("^\\| `([A-Z]+) (/[^`]*)` \\| (.*?) \\|$")

const unreachedHeading = "## Operations no screen calls"

// TestOperationsReachedOrExplained: every operation of the OpenAPI document is called by a screen of the
// app (web/static) or listed, with why, in docs/web.md's "Operations no screen calls"; a listed
// operation that a screen calls, or that the document no longer has, fails too. `make lint` runs it.
func TestOperationsReachedOrExplained(t *testing.T) {
	doc, err := api.OpenAPIDocument("")
	require.NoError(t, err)
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(doc, &d))
	var all []string
	for path, item := range d.Paths {
		for m := range item {
			if m := strings.ToUpper(m); slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, m) {
				all = append(all, m+" "+path)
			}
		}
	}
	slices.Sort(all)

	reached := map[string]string{} // operation: the file that calls it
	files, err := filepath.Glob(filepath.Join("static", "*.js"))
	require.NoError(t, err)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		decls := pathDecl.FindAllStringSubmatchIndex(string(src), -1)
		for _, m := range appCall.FindAllStringSubmatchIndex(string(src), -1) {
			method, path := callMethod[string(src[m[2]:m[3]])], ""
			if m[4] >= 0 {
				path = string(src[m[4]:m[5]])
			} else { // a name: the path of its nearest declaration before the call
				name := string(src[m[6]:m[7]])
				for _, d := range decls {
					if d[0] < m[0] && string(src[d[2]:d[3]]) == name {
						path = string(src[d[4]:d[5]])
					}
				}
			}
			if path != "" {
				reached[method+" "+path] = filepath.Base(f)
			}
		}
	}

	md, err := os.ReadFile(filepath.Join("..", "docs", "web.md"))
	require.NoError(t, err)
	explained := map[string]string{}
	in := false
	for line := range strings.SplitSeq(string(md), "\n") {
		if strings.HasPrefix(line, "## ") {
			in = line == unreachedHeading
			continue
		}
		if m := unreachedRow.FindStringSubmatch(line); in && m != nil {
			require.NotEmpty(t, strings.TrimSpace(m[3]), "docs/web.md: %s %s is listed without why", m[1], m[2])
			explained[m[1]+" "+m[2]] = m[3]
		}
	}

	var missing []string
	for _, op := range all {
		_, r := reached[op]
		_, e := explained[op]
		switch {
		case r && e:
			t.Errorf("docs/web.md lists %s as called by no screen, but %s calls it: remove its row", op, reached[op])
		case !r && !e:
			missing = append(missing, fmt.Sprintf("| `%s` | … |", op))
		}
	}
	for op, file := range reached {
		if !slices.Contains(all, op) {
			t.Errorf("%s calls %s, which the OpenAPI document does not have", file, op)
		}
	}
	for op := range explained {
		if !slices.Contains(all, op) {
			t.Errorf("docs/web.md lists %s, which the OpenAPI document does not have: remove its row", op)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d operations are called by no screen and not listed in docs/web.md's %q with why; "+
			"give them a screen or add their rows:\n%s", len(missing), unreachedHeading, strings.Join(missing, "\n"))
	}
	n := 0
	for _, op := range all {
		if _, ok := reached[op]; ok {
			n++
		}
	}
	t.Logf("the app reaches %d of the document's %d operations", n, len(all))
}

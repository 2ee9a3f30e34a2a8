package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// An archived project is read-only and out of the default list, readable and listed on asking, and
// writable again once restored; the refusals are 409 in the error shape, saying what to do.
func TestProjectArchive(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	ws := "/orgs/" + u.OrgSlug + "/workspaces/" + u.WsSlug
	r := e.do("POST", ws+"/projects", u.Token, map[string]any{"name": "Old launch"})
	requireStatus(t, r, http.StatusCreated)
	p := decode[ProjectOut](t, r)
	require.Nil(t, p.ArchivedAt)
	prj := ws + "/projects/" + p.ID
	requireStatus(t, e.do("POST", ws+"/projects", u.Token, map[string]any{"name": "Current"}), http.StatusCreated)
	columns := decode[[]ColumnOut](t, e.do("GET", prj+"/columns", u.Token, nil))
	r = e.do("POST", prj+"/columns/"+columns[0].ID+"/cards", u.Token, map[string]any{"title": "Kept"})
	requireStatus(t, r, http.StatusCreated)
	card := decode[CardOut](t, r)
	names := func(query string) []string {
		t.Helper()
		r := e.do("GET", ws+"/projects"+query, u.Token, nil)
		requireStatus(t, r, http.StatusOK)
		var out []string
		for _, p := range decode[[]ProjectOut](t, r) {
			out = append(out, p.Name)
		}
		return out
	}

	requireStatus(t, e.do("POST", prj+"/unarchive", u.Token, nil), http.StatusConflict)
	r = e.do("POST", prj+"/archive", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.NotNil(t, decode[ProjectOut](t, r).ArchivedAt)
	r = e.do("POST", prj+"/archive", u.Token, nil)
	requireStatus(t, r, http.StatusConflict)
	require.Contains(t, string(r.Body), "already archived")

	require.Equal(t, []string{"Current"}, names(""))
	require.Equal(t, []string{"Current"}, names("?archived=false"))
	require.Equal(t, []string{"Old launch"}, names("?archived=true"))
	require.Equal(t, []string{"Old launch", "Current"}, names("?archived=all"))
	requireStatus(t, e.do("GET", ws+"/projects?archived=maybe", u.Token, nil), http.StatusBadRequest)

	// Readable: the project, its columns and cards.
	r = e.do("GET", prj, u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.NotNil(t, decode[ProjectOut](t, r).ArchivedAt)
	requireStatus(t, e.do("GET", prj+"/cards", u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", prj+"/cards/"+card.ID, u.Token, nil), http.StatusOK)

	// Read-only: card and column writes and the project's own fields answer 409 with the way out.
	for _, w := range []struct{ method, path string }{
		{"POST", prj + "/columns/" + columns[0].ID + "/cards"},
		{"PATCH", prj + "/cards/" + card.ID},
		{"DELETE", prj + "/cards/" + card.ID},
		{"POST", prj + "/cards/" + card.ID + "/comments"},
		{"POST", prj + "/columns"},
		{"PATCH", prj},
	} {
		r = e.do(w.method, w.path, u.Token, map[string]any{"title": "New", "name": "New", "content": "hi"})
		requireStatus(t, r, http.StatusConflict)
		body := decode[map[string]any](t, r)
		require.Equal(t, "this project is archived: restore it to change it", body["message"], "%s %s", w.method, w.path)
		require.Equal(t, "Conflict", body["error"])
	}
	require.Equal(t, 1, e.count(`SELECT count(*) FROM cards WHERE project_id = $1`, p.ID))

	// Restored: back in the default list, writable.
	r = e.do("POST", prj+"/unarchive", u.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Nil(t, decode[ProjectOut](t, r).ArchivedAt)
	require.Equal(t, []string{"Old launch", "Current"}, names(""))
	requireStatus(t, e.do("PATCH", prj+"/cards/"+card.ID, u.Token, map[string]any{"title": "Back"}), http.StatusOK)

	// An archived project can still be deleted by an admin.
	requireStatus(t, e.do("POST", prj+"/archive", u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", prj, u.Token, nil), http.StatusOK)
	requireStatus(t, e.do("POST", prj+"/unarchive", u.Token, nil), http.StatusNotFound)
}

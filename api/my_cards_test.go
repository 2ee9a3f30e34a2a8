package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMyCards: GET …/my-cards lists the caller's active cards across the workspace's projects, in pages,
// and nobody else's, no archived one, none of another workspace; a token needs projects:read.
func TestMyCards(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	other, otherCols := e.project(owner, "Tour")
	assign := func(prj, col, title string, who user) CardOut {
		c := e.card(owner, prj, col, title)
		r := e.do("PATCH", prj+"/cards/"+c.ID, owner.Token, map[string]any{"assigneeId": who.ID,
			"dueDate": "2030-01-02T00:00:00Z"})
		requireStatus(t, r, http.StatusOK)
		return decode[CardOut](t, r)
	}
	first := assign(prj, cols[0], "Book the hall", member)
	second := assign(other, otherCols[2], "Print posters", member)
	assign(prj, cols[1], "Owner's own", owner)
	e.card(owner, prj, cols[0], "Nobody's")
	archived := assign(other, otherCols[0], "Archived", member)
	requireStatus(t, e.do("PATCH", other+"/cards/"+archived.ID, owner.Token, map[string]any{"archived": true}),
		http.StatusOK)
	// The member's own workspace: their card there is not in the owner's workspace's list.
	mine, mineCols := e.project(member, "Mine")
	e.do("PATCH", mine+"/cards/"+e.card(member, mine, mineCols[0], "Elsewhere").ID, member.Token,
		map[string]any{"assigneeId": member.ID})

	path := wsOf(owner) + "/my-cards"
	r := e.do("GET", path, member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	got := decode[[]CardOut](t, r)
	require.Equal(t, []CardOut{first, second}, got, "the member's two active cards, oldest first, as a card read has them")
	require.Empty(t, r.Header.Get("Link"))
	require.Equal(t, []string{first.ID, second.ID}, e.walk(path, member.Token, "id", 1))

	r = e.do("GET", path, owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ownerCards := decode[[]CardOut](t, r)
	require.Len(t, ownerCards, 1)
	require.Equal(t, "Owner's own", ownerCards[0].Title)

	// Only members of the workspace; a token with projects:read may, one without it may not.
	stranger := e.register("stranger@example.com")
	requireStatus(t, e.do("GET", path, stranger.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", path, e.pat(member, []string{"projects:read"}), nil), http.StatusOK)
	requireStatus(t, e.do("GET", path, e.pat(member, []string{"notifications:read"}), nil), http.StatusForbidden)
}

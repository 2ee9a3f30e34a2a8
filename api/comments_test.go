package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// commentWorld is a workspace with an admin (its owner), two members and a project with one card
// assigned to the first member.
type commentWorld struct {
	owner, member, other user
	prj                  string
	cols                 []string
	card                 string // the card's path
	cardID               string
}

func commentSetup(t *testing.T, e *testEnv) commentWorld {
	t.Helper()
	w := commentWorld{owner: e.register("owner@example.com"), member: e.register("member@example.com"),
		other: e.register("other@example.com")}
	e.join(w.owner, w.member, w.owner.OrgSlug, w.owner.WsSlug, "member")
	e.join(w.owner, w.other, w.owner.OrgSlug, w.owner.WsSlug, "member")
	w.prj, w.cols = e.project(w.owner, "Launch")
	c := e.card(w.owner, w.prj, w.cols[0], "Write the launch post")
	w.cardID = c.ID
	w.card = w.prj + "/cards/" + w.cardID
	requireStatus(t, e.do("PATCH", w.card, w.owner.Token, map[string]any{"assigneeId": w.member.ID}), http.StatusOK)
	return w
}

// cardCounts reads a card's commentCount and attachmentCount through the API.
func (e *testEnv) cardCounts(u user, card string) (comments, attachments int) {
	e.t.Helper()
	r := e.do("GET", card, u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	c := decode[CardOut](e.t, r)
	return int(c.CommentCount), int(c.AttachmentCount)
}

func TestCommentsCreateListDelete(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := commentSetup(t, e)
	jobsBefore := len(e.notifyJobs())

	r := e.do("POST", w.card+"/comments", w.other.Token, map[string]any{"content": "  First!  "})
	requireStatus(t, r, http.StatusCreated)
	first := decode[CommentOut](t, r) // createdAt must parse as an RFC 3339 time to decode
	require.Equal(t, "First!", first.Content, "content is trimmed")
	require.Equal(t, w.cardID, first.CardID)
	require.Equal(t, w.other.ID, first.AuthorID)
	require.Equal(t, "other", first.AuthorName)
	require.True(t, isUUID(first.ID))
	require.False(t, first.CreatedAt.IsZero())

	long := strings.Repeat("word ", 60) // 300 characters: the excerpt keeps 140
	r = e.do("POST", w.card+"/comments", w.owner.Token, map[string]any{"content": long})
	requireStatus(t, r, http.StatusCreated)
	second := decode[CommentOut](t, r)
	r = e.do("POST", w.card+"/comments", w.member.Token, map[string]any{"content": "Third"})
	requireStatus(t, r, http.StatusCreated)
	third := decode[CommentOut](t, r)

	r = e.do("GET", w.card+"/comments", w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	list := decode[[]CommentOut](t, r)
	require.Len(t, list, 3)
	require.Equal(t, []string{first.ID, second.ID, third.ID}, []string{list[0].ID, list[1].ID, list[2].ID}, "oldest first")
	require.Equal(t, "owner", list[1].AuthorName)
	require.Equal(t, first, list[0], "the list shows what the create answered")

	n, _ := e.cardCounts(w.owner, w.card)
	require.Equal(t, 3, n)
	require.Equal(t, 3, e.count(`SELECT comment_count FROM cards WHERE id = $1`, w.cardID))

	// Each comment recorded comment_added with its excerpt and the assignee as recipient, and enqueued
	// its notification job in the same transaction.
	require.Equal(t, 3, e.count(`SELECT count(*) FROM activities WHERE type = 'comment_added' AND card_id = $1`, w.cardID))
	var meta map[string]any
	var recipients []string
	var actor string
	require.NoError(t, e.pool.QueryRow(context.Background(),
		`SELECT meta, recipients::text[], actor_id FROM activities WHERE type = 'comment_added' AND meta->>'commentId' = $1`,
		second.ID).
		Scan(&meta, &recipients, &actor))
	require.Equal(t, "Write the launch post", meta["title"])
	require.Equal(t, long[:140], meta["excerpt"])
	require.Equal(t, []string{w.member.ID}, recipients)
	require.Equal(t, w.owner.ID, actor)
	notified := e.notifyJobs()
	require.Len(t, notified, jobsBefore+3)
	var thirdActivity string
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT id FROM activities WHERE meta->>'commentId' = $1`,
		third.ID).
		Scan(&thirdActivity))
	require.Equal(t, 1, occurrences(notified, thirdActivity))

	// The author deletes their own comment.
	r = e.do("DELETE", w.card+"/comments/"+third.ID, w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[OKBody](t, r).OK)
	requireStatus(t, e.do("DELETE", w.card+"/comments/"+third.ID, w.member.Token, nil), http.StatusNotFound)
	r = e.do("GET", w.card+"/comments", w.member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]CommentOut](t, r), 2)
	n, _ = e.cardCounts(w.owner, w.card)
	require.Equal(t, 2, n)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM comments WHERE id = $1`, third.ID))
}

func TestCommentDeletePermissions(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := commentSetup(t, e)
	r := e.do("POST", w.card+"/comments", w.member.Token, map[string]any{"content": "Mine"})
	requireStatus(t, r, http.StatusCreated)
	mine := w.card + "/comments/" + decode[CommentOut](t, r).ID
	r = e.do("POST", w.card+"/comments", w.member.Token, map[string]any{"content": "Also mine"})
	requireStatus(t, r, http.StatusCreated)
	alsoMine := w.card + "/comments/" + decode[CommentOut](t, r).ID

	// Another member may not delete it; nothing changes.
	requireStatus(t, e.do("DELETE", mine, w.other.Token, nil), http.StatusForbidden)
	n, _ := e.cardCounts(w.owner, w.card)
	require.Equal(t, 2, n)
	require.Equal(t, 2, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, w.cardID))

	// A workspace admin may.
	requireStatus(t, e.do("DELETE", mine, w.owner.Token, nil), http.StatusOK)
	// A write token of the author may delete their own.
	pat := e.pat(w.member, []string{"projects:write"})
	requireStatus(t, e.do("DELETE", alsoMine, pat, nil), http.StatusOK)
	n, _ = e.cardCounts(w.owner, w.card)
	require.Equal(t, 0, n)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, w.cardID))
}

func TestCommentLimits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := commentSetup(t, e)
	post := func(body any) *resp { return e.do("POST", w.card+"/comments", w.owner.Token, body) }

	r := post(map[string]any{"content": strings.Repeat("é", 2000)}) // 2000 characters, 4000 bytes
	requireStatus(t, r, http.StatusCreated)
	require.Equal(t, strings.Repeat("é", 2000), decode[CommentOut](t, r).Content)
	requireStatus(t, post(map[string]any{"content": strings.Repeat("a", 2000)}), http.StatusCreated)

	for name, body := range map[string]any{
		"2001 characters":  map[string]any{"content": strings.Repeat("a", 2001)},
		"empty":            map[string]any{"content": ""},
		"blank":            map[string]any{"content": " \n\t "},
		"missing":          map[string]any{},
		"not a string":     map[string]any{"content": 42},
		"not an object":    []any{"content"},
		"unknown field":    map[string]any{"content": "ok", "author": "someone"},
		"not JSON at all:": "content=hello",
	} {
		r := post(body)
		requireStatus(t, r, http.StatusBadRequest)
		require.NotEmpty(t, decode[ErrorBody](t, r).Message, name)
	}
	n, _ := e.cardCounts(w.owner, w.card)
	require.Equal(t, 2, n)
	require.Equal(t, 2, e.count(`SELECT count(*) FROM activities WHERE type = 'comment_added'`))
}

func TestCommentNotFoundPaths(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := commentSetup(t, e)
	other := e.card(w.owner, w.prj, w.cols[1], "Another card")
	otherCard := w.prj + "/cards/" + other.ID
	r := e.do("POST", otherCard+"/comments", w.owner.Token, map[string]any{"content": "On the other card"})
	requireStatus(t, r, http.StatusCreated)
	otherComment := decode[CommentOut](t, r).ID

	// A comment of another card is not found under this card, and is left alone.
	requireStatus(t, e.do("DELETE", w.card+"/comments/"+otherComment, w.owner.Token, nil), http.StatusNotFound)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM comments WHERE id = $1`, otherComment))
	n, _ := e.cardCounts(w.owner, otherCard)
	require.Equal(t, 1, n)
	n, _ = e.cardCounts(w.owner, w.card)
	require.Equal(t, 0, n, "a refused delete does not move the count")

	// A card of another project of the same workspace.
	prj2, _ := e.project(w.owner, "Elsewhere")
	wrongPrj := prj2 + "/cards/" + w.cardID
	requireStatus(t, e.do("GET", wrongPrj+"/comments", w.owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", wrongPrj+"/comments", w.owner.Token, map[string]any{"content": "x"}),
		http.StatusNotFound)
	requireStatus(t, e.do("DELETE", prj2+"/cards/"+other.ID+"/comments/"+otherComment, w.owner.Token, nil),
		http.StatusNotFound)

	// Unknown and malformed ids.
	missing := "0195f0a2-7b3c-7def-8abc-0123456789ab"
	requireStatus(t, e.do("GET", w.prj+"/cards/"+missing+"/comments", w.owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", w.prj+"/cards/"+missing+"/comments", w.owner.Token, map[string]any{"content": "x"}),
		http.StatusNotFound)
	requireStatus(t, e.do("DELETE", w.card+"/comments/"+missing, w.owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", w.card+"/comments/not-a-uuid", w.owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", w.prj+"/cards/not-a-uuid/comments", w.owner.Token, nil), http.StatusNotFound)

	// Someone outside the workspace sees nothing, even through their own workspace's path.
	outsider := e.register("outsider@example.com")
	requireStatus(t, e.do("GET", w.card+"/comments", outsider.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", w.card+"/comments", outsider.Token, map[string]any{"content": "x"}), http.StatusNotFound)
	ownPrj, _ := e.project(outsider, "Mine")
	requireStatus(t, e.do("GET", ownPrj+"/cards/"+w.cardID+"/comments", outsider.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", ownPrj+"/cards/"+w.cardID+"/comments", outsider.Token, map[string]any{"content": "x"}),
		http.StatusNotFound)
	requireStatus(t, e.do("DELETE", ownPrj+"/cards/"+other.ID+"/comments/"+otherComment, outsider.Token, nil),
		http.StatusNotFound)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM comments`))

	requireStatus(t, e.do("GET", w.card+"/comments", "", nil), http.StatusUnauthorized)
}

func TestCommentsTokenScopes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := commentSetup(t, e)
	r := e.do("POST", w.card+"/comments", w.owner.Token, map[string]any{"content": "Hello"})
	requireStatus(t, r, http.StatusCreated)
	comment := w.card + "/comments/" + decode[CommentOut](t, r).ID

	read := e.pat(w.owner, []string{"projects:read"})
	r = e.do("GET", w.card+"/comments", read, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]CommentOut](t, r), 1)
	r = e.do("POST", w.card+"/comments", read, map[string]any{"content": "Not allowed"})
	requireStatus(t, r, http.StatusForbidden)
	require.Contains(t, decode[ErrorBody](t, r).Message, "projects:write")
	requireStatus(t, e.do("DELETE", comment, read, nil), http.StatusForbidden)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM comments`))
	n, _ := e.cardCounts(w.owner, w.card)
	require.Equal(t, 1, n)

	write := e.pat(w.owner, []string{"projects:write"})
	requireStatus(t, e.do("POST", w.card+"/comments", write, map[string]any{"content": "Allowed"}), http.StatusCreated)
}

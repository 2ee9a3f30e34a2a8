package api

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// A card's history lists what was recorded about it, newest first, with who did it and the details
// (a move's columns, an update's fields), by pages; outside the workspace it is not found.
func TestCardActivity(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := commentSetup(t, e) // created by the owner, assigned to the member
	requireStatus(t, e.do("PATCH", w.card, w.member.Token, map[string]any{"columnId": w.cols[1]}), http.StatusOK)
	requireStatus(t, e.do("PATCH", w.card, w.member.Token, map[string]any{"priority": "high"}), http.StatusOK)
	requireStatus(t, e.do("POST", w.card+"/comments", w.other.Token, map[string]any{"content": "Looks good"}),
		http.StatusCreated)

	r := e.do("GET", w.card+"/activity", w.other.Token, nil)
	requireStatus(t, r, http.StatusOK)
	acts := decode[[]CardActivityOut](t, r)
	types := make([]string, len(acts))
	for i, a := range acts {
		types[i] = a.Type
	}
	require.Equal(t, []string{"comment_added", "card_updated", "card_moved", "card_assigned", "card_created"}, types)
	require.Equal(t, "other", acts[0].ActorName)
	require.Equal(t, "member", acts[1].ActorName)
	require.NotNil(t, acts[1].ActorID)
	require.Equal(t, w.member.ID, *acts[1].ActorID)
	require.JSONEq(t, `["priority"]`, string(mustField(t, acts[1].Meta, "fields")))
	require.JSONEq(t, `"`+w.cols[0]+`"`, string(mustField(t, acts[2].Meta, "fromColumn")))
	require.JSONEq(t, `"`+w.cols[1]+`"`, string(mustField(t, acts[2].Meta, "toColumn")))
	require.Equal(t, "owner", acts[4].ActorName)

	first, next := e.page(w.card+"/activity?limit=2", w.owner.Token, "type")
	require.Equal(t, []string{"comment_added", "card_updated"}, first)
	second, _ := e.page(next, w.owner.Token, "type")
	require.Equal(t, []string{"card_moved", "card_assigned"}, second, "the Link's page follows the first")
	requireStatus(t, e.do("GET", w.card+"/activity?limit=201", w.owner.Token, nil), http.StatusBadRequest)

	outsider := e.register("outsider@example.com")
	requireStatus(t, e.do("GET", w.card+"/activity", outsider.Token, nil), http.StatusNotFound)
	ownPrj, _ := e.project(outsider, "Mine")
	requireStatus(t, e.do("GET", ownPrj+"/cards/"+w.cardID+"/activity", outsider.Token, nil), http.StatusNotFound)
}

// mustField is the value of key in the JSON object raw.
func mustField(t *testing.T, raw []byte, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m), "an object: %s", raw)
	v, ok := m[key]
	require.True(t, ok, "%s has %q", raw, key)
	return v
}

package agenttool

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var testLimits = Limits{Priorities: []string{"low", "medium", "high"}, MaxChecklistItems: 3, MaxCommentLength: 10}

func TestCatalogDescribesEveryToolOnce(t *testing.T) {
	t.Parallel()
	specs := Catalog()
	require.Len(t, specs, len(Names))
	for i, s := range specs {
		require.Equal(t, Names[i], s.Name)
		var schema struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal(s.Parameters, &schema), s.Name)
		require.Equal(t, "object", schema.Type, s.Name)
	}
	specs[0].Name = "changed" // each call answers a fresh catalog
	require.Equal(t, UpdateCard, Catalog()[0].Name)
}

func TestDecode(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	title, prio := "New title", "high"
	for _, tc := range []struct {
		tool, raw string
		want      Args
		err       string
	}{
		{UpdateCard, `{"title":"  New title ","priority":"high","dueDate":"2026-03-01"}`, UpdateCardArgs{Title: &title,
			Priority: &prio, DueDate: &due}, ""},
		{UpdateCard, `{}`, nil, "update_card needs at least one field to change"},
		{UpdateCard, `{"priority":"urgent"}`, nil, "priority must be low, medium or high"},
		{UpdateCard, `{"dueDate":"soon"}`, nil, "dueDate must be an ISO 8601 date or date-time"},
		{UpdateCard, `{"colour":"red"}`, nil, `update_card arguments: unknown field "colour"`},
		{UpdateCard, `{"title":5}`, nil, "update_card arguments:"},
		{AddChecklistItems, `{"items":[" a ","b"]}`, AddChecklistItemsArgs{Items: []string{"a", "b"}}, ""},
		{AddChecklistItems, `{"items":["a","b","c","d"]}`, nil, "items must hold 1 to 3 entries"},
		{AddChecklistItems, `{"items":["  "]}`, nil, "each checklist item must be 1 to 500 characters"},
		{AddComment, `{"content":" hi "}`, AddCommentArgs{Content: "hi"}, ""},
		{AddComment, `{"content":"` + strings.Repeat("x", 11) + `"}`, nil, "content must be 1 to 10 characters"},
		{MoveCard, `{"columnId":"c1"}`, MoveCardArgs{ColumnID: "c1"}, ""},
		{MoveCard, `{}`, nil, "columnId is required"},
		{CreateCard, `{"title":"T","description":"d"}`, CreateCardArgs{Title: "T", Description: "d"}, ""},
		{CreateCard, `{"title":""}`, nil, "title must be 1 to 500 characters"},
		{ProposePilotageAction, `{"actionType":" create_todo ","explanation":"Follow up","payload":{"label":"Call"}}`,
			ProposePilotageActionArgs{ActionType: "create_todo", Explanation: "Follow up",
				Payload: json.RawMessage(`{"label":"Call"}`)}, ""},
		{ProposePilotageAction, `{"actionType":"x","explanation":"why"}`,
			ProposePilotageActionArgs{ActionType: "x", Explanation: "why", Payload: json.RawMessage(`{}`)}, ""},
		{ProposePilotageAction, `{"actionType":"x","explanation":"why","payload":[1]}`, nil, "payload must be a JSON object"},
		{ProposePilotageAction, `{"actionType":"` + strings.Repeat("a", 101) + `","explanation":"why"}`, nil,
			"actionType must be 1 to 100 characters"},
		{ProposePilotageAction, `{"actionType":"x","explanation":"` + strings.Repeat("e", 501) + `"}`, nil,
			"explanation must be 1 to 500 characters"},
		{ProposePilotageAction, `{"actionType":"x","explanation":"why","apply":true}`, nil, `unknown field "apply"`},
		{"delete_everything", `{}`, nil, `unknown tool "delete_everything"`},
	} {
		got, err := Decode(tc.tool, json.RawMessage(tc.raw), testLimits)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "%s %s", tc.tool, tc.raw)
			continue
		}
		require.NoError(t, err, "%s %s", tc.tool, tc.raw)
		require.Equal(t, tc.want, got)
		require.Equal(t, tc.tool, got.Tool())
	}
}

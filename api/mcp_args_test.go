package api

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMCPArgumentErrorsReadForPeople: a tool's invalid arguments are refused before the SDK's own
// schema check, with huma's messages as over REST, each as `bad request: <field path>: <message>`; none
// reads like the JSON-Schema validator's internals.
func TestMCPArgumentErrorsReadForPeople(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	cs := w.e.mcpSession(w.e.pat(w.ann, nil))
	prj := map[string]any{"projectId": w.projectID(w.annPrj)}
	with := func(base map[string]any, extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return wsArgs(w.ann, out)
	}
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"an empty title", "create_card", with(prj, map[string]any{"title": ""}), "bad request: title: expected length >= 1"},
		{"a blank title", "create_card", with(prj, map[string]any{"title": "   "}), "bad request: title: must not be blank"},
		{"a title too long", "create_card", with(prj, map[string]any{"title": strings.Repeat("x", 501)}), "bad request: " +
			"title: expected length <= 500"},
		{"a wrong type", "get_card", with(prj, map[string]any{"cardId": 42}), "bad request: cardId: expected string"},
		{"an unknown enum value", "update_card", with(prj, map[string]any{"cardId": w.annCard.ID, "priority": "urgent"}),
			`bad request: priority: expected value to be one of "low, medium, high"`},
		{"a missing required field", "get_card", with(prj, nil), "bad request: cardId: expected required property cardId " +
			"to be present"},
		{"an unknown field", "get_card", with(prj, map[string]any{"cardId": w.annCard.ID, "extra": 1}), "bad request: " +
			"extra: unexpected property"},
		{"a number out of range", "list_cards", with(prj, map[string]any{"limit": 0}), "bad request: limit: expected " +
			"number >= 1"},
		{"two failures, in path order", "create_card", with(prj, map[string]any{"title": "", "priority": "urgent"}),
			`bad request: priority: expected value to be one of "low, medium, high"; title: expected length >= 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := toolErr(t, cs, c.tool, c.args)
			require.Equal(t, c.want, got)
			require.NotContains(t, got, "validating")
		})
	}
	// Missing tenancy arguments are named the same way.
	require.Equal(t, "bad request: org: expected required property org to be present; workspace: expected required "+
		"property workspace to be present",
		toolErr(t, cs, "list_projects", map[string]any{}))
}

package llm

import (
	"encoding/json"

	"github.com/pilot-dev/pilot/jobs"
)

// Names of the agent tools in ToolCatalog (defined once, in package jobs).
const (
	ToolUpdateCard        = jobs.ToolUpdateCard
	ToolAddChecklistItems = jobs.ToolAddChecklistItems
	ToolAddComment        = jobs.ToolAddComment
	ToolMoveCard          = jobs.ToolMoveCard
	ToolCreateCard        = jobs.ToolCreateCard
)

// ToolCatalog returns the agent tools a mission may offer, with JSON Schemas for their arguments,
// in a fixed order. Each call returns a fresh slice the caller may modify.
//
//   - update_card {title?, description?, priority? (low|medium|high), dueDate?}
//   - add_checklist_items {items: [string]}
//   - add_comment {content}
//   - move_card {columnId}
//   - create_card {title, description?}
func ToolCatalog() []Tool {
	return []Tool{
		{
			Name:        ToolUpdateCard,
			Description: "Update fields of the mission's card. Send only the fields to change.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"title":{"type":"string","minLength":1,"maxLength":500,"description":"New title."},` +
				`"description":{"type":"string","maxLength":5000,"description":"New description."},` +
				`"priority":{"type":"string","enum":["low","medium","high"],"description":"New priority."},` +
				`"dueDate":{"type":"string","description":"New due date, ISO 8601 (e.g. 2026-03-01 or 2026-03-01T17:00:00Z)."}` +
				`},"additionalProperties":false}`),
		},
		{
			Name:        ToolAddChecklistItems,
			Description: "Append items to the card's checklist, unchecked, in the given order.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"items":{"type":"array","minItems":1,"maxItems":100,` +
				`"items":{"type":"string","minLength":1,"maxLength":500},"description":"Item titles."}` +
				`},"required":["items"],"additionalProperties":false}`),
		},
		{
			Name:        ToolAddComment,
			Description: "Post a comment on the card, e.g. a plan, a summary or a question.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"content":{"type":"string","minLength":1,"description":"Comment text."}` +
				`},"required":["content"],"additionalProperties":false}`),
		},
		{
			Name:        ToolMoveCard,
			Description: "Move the card to another column of its project.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"columnId":{"type":"string","minLength":1,"description":"Id of the target column."}` +
				`},"required":["columnId"],"additionalProperties":false}`),
		},
		{
			Name:        ToolCreateCard,
			Description: "Create a new card in the mission's project, e.g. for follow-up work.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"title":{"type":"string","minLength":1,"maxLength":500,"description":"Title of the new card."},` +
				`"description":{"type":"string","maxLength":5000,"description":"Description of the new card."}` +
				`},"required":["title"],"additionalProperties":false}`),
		},
	}
}

// SelectTools returns the catalog tools whose names are in names (an agent's tools), in catalog
// order. Unknown names are ignored.
func SelectTools(names []string) []Tool {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	var tools []Tool
	for _, t := range ToolCatalog() {
		if want[t.Name] {
			tools = append(tools, t)
		}
	}
	return tools
}

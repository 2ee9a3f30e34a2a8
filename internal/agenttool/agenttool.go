// Package agenttool is the contract of the tools an agent may call during a mission, kept in one place:
// each tool's name, the JSON Schema its arguments are described to a model with (Catalog), its
// argument type, and the decoding and validation of a call's arguments into that type (Decode).
//
// The api checks an agent's configured tools against Names, the llm package offers the Catalog to
// models, and the store decodes every call with Decode before it applies the call or proposes it.
package agenttool

import "encoding/json"

// Tool names.
const (
	UpdateCard        = "update_card"
	AddChecklistItems = "add_checklist_items"
	AddComment        = "add_comment"
	MoveCard          = "move_card"
	CreateCard        = "create_card"
	// ProposePilotageAction suggests an action to the workspace's pilotage cockpit; a person reviews
	// and applies it (docs/pilotage.md).
	ProposePilotageAction = "propose_pilotage_action"
	// AskUser asks the mission's requester a question: the mission waits for the answer (awaiting_input),
	// which comes back as the call's result.
	AskUser = "ask_user"
)

// Names lists every tool, in catalog order.
var Names = []string{UpdateCard, AddChecklistItems, AddComment, MoveCard, CreateCard, ProposePilotageAction, AskUser}

// Spec describes a tool to a model.
type Spec struct {
	// Name is the tool's name, one of Names.
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// Parameters is a JSON Schema object describing the arguments.
	Parameters json.RawMessage
}

// Catalog returns every tool's Spec in the order of Names. Each call returns a fresh slice the caller
// may modify.
//
//   - update_card {title?, description?, priority? (low|medium|high), dueDate?}
//   - add_checklist_items {items: [string]}
//   - add_comment {content}
//   - move_card {columnId}
//   - create_card {title, description?}
//   - propose_pilotage_action {actionType, explanation, payload?}
//   - ask_user {question, options?}
func Catalog() []Spec {
	return []Spec{
		{
			Name:        UpdateCard,
			Description: "Update fields of the mission's card. Send only the fields to change.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"title":{"type":"string","minLength":1,"maxLength":500,"description":"New title."},` +
				`"description":{"type":"string","maxLength":5000,"description":"New description."},` +
				`"priority":{"type":"string","enum":["low","medium","high"],"description":"New priority."},` +
				`"dueDate":{"type":"string","description":"New due date, ISO 8601 (e.g. 2026-03-01 or 2026-03-01T17:00:00Z)."}` +
				`},"additionalProperties":false}`),
		},
		{
			Name:        AddChecklistItems,
			Description: "Append items to the card's checklist, unchecked, in the given order.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"items":{"type":"array","minItems":1,"maxItems":100,` +
				`"items":{"type":"string","minLength":1,"maxLength":500},"description":"Item titles."}` +
				`},"required":["items"],"additionalProperties":false}`),
		},
		{
			Name:        AddComment,
			Description: "Post a comment on the card, e.g. a plan, a summary or a question.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"content":{"type":"string","minLength":1,"description":"Comment text."}` +
				`},"required":["content"],"additionalProperties":false}`),
		},
		{
			Name:        MoveCard,
			Description: "Move the card to another column of its project.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"columnId":{"type":"string","minLength":1,"description":"Id of the target column."}` +
				`},"required":["columnId"],"additionalProperties":false}`),
		},
		{
			Name:        CreateCard,
			Description: "Create a new card in the mission's project, e.g. for follow-up work.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"title":{"type":"string","minLength":1,"maxLength":500,"description":"Title of the new card."},` +
				`"description":{"type":"string","maxLength":5000,"description":"Description of the new card."}` +
				`},"required":["title"],"additionalProperties":false}`),
		},
		{
			Name: ProposePilotageAction,
			Description: "Suggest a change to the workspace's strategic cockpit (pilotage). It is stored as a suggestion " +
				"that a person reviews and applies; nothing changes until then. Known action types: create_todo " +
				"{label, missionId?, priorityId?, status?, dueDate?}, update_mission_status {missionId, status, blockedReason?}, " +
				"create_decision {title, impact?}, create_card {projectId, columnId?, title, description?, priority?, dueDate?}, " +
				"move_card {projectId, cardId, columnId, order?}.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"actionType":{"type":"string","minLength":1,"maxLength":100,"description":"What to do, e.g. create_todo."},` +
				`"explanation":{"type":"string","minLength":1,"maxLength":500,` +
				`"description":"Why, for the person who reviews it."},` +
				`"payload":{"type":"object","description":"The action's parameters (see the tool description)."}` +
				`},"required":["actionType","explanation"],"additionalProperties":false}`),
		},
		{
			Name: AskUser,
			Description: "Ask the person who gave you this mission a question when you cannot go on without their " +
				"answer (the objective is unclear, a choice is theirs). The mission waits for the answer, which is this " +
				"call's result; offer options when the answer is one of a few.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"question":{"type":"string","minLength":1,"maxLength":1000,"description":"The question."},` +
				`"options":{"type":"array","maxItems":10,"items":{"type":"string","minLength":1,"maxLength":200},` +
				`"description":"Possible answers, shown as buttons; the person may still answer in words."}` +
				`},"required":["question"],"additionalProperties":false}`),
		},
	}
}

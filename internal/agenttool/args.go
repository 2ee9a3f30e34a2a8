package agenttool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Lengths the schemas in Catalog promise, in characters.
const (
	maxTitleLen       = 500 // a card's or a checklist item's title
	maxDescriptionLen = 5000
	maxActionTypeLen  = 100 // a proposed pilotage action's type
	maxExplanationLen = 500 // and its explanation
	maxQuestionLen    = 1000
	maxOptions        = 10
	maxOptionLen      = 200
)

// Limits are the store's bounds on card values, which Decode enforces on every call (models do not
// always follow a schema): the priorities a card may have, the most checklist items one call may add
// and the longest comment.
type Limits struct {
	Priorities        []string
	MaxChecklistItems int
	MaxCommentLength  int
}

// Args are the decoded, validated arguments of one tool call: an UpdateCardArgs, AddChecklistItemsArgs,
// AddCommentArgs, MoveCardArgs or CreateCardArgs.
type Args interface {
	// Tool is the name of the tool the arguments are for.
	Tool() string
}

// UpdateCardArgs changes fields of the mission's card; nil fields stay as they are, and at least one
// is set.
type UpdateCardArgs struct {
	Title, Description, Priority *string
	DueDate                      *time.Time
}

// AddChecklistItemsArgs appends unchecked items to the card's checklist, in order.
type AddChecklistItemsArgs struct {
	Items []string
}

// AddCommentArgs posts a comment on the card.
type AddCommentArgs struct {
	Content string
}

// MoveCardArgs moves the card to the end of a column of its project.
type MoveCardArgs struct {
	ColumnID string
}

// AskUserArgs asks the mission's requester a question, with possible answers.
type AskUserArgs struct {
	Question string
	Options  []string
}

// Tool implements Args.
func (AskUserArgs) Tool() string { return AskUser }

// CreateCardArgs creates a card in the mission's project.
type CreateCardArgs struct {
	Title, Description string
}

// ProposePilotageActionArgs suggests an action to the workspace's pilotage cockpit. Payload is a JSON
// object ({} when the call gave none); the store checks it further for the action types it knows.
type ProposePilotageActionArgs struct {
	ActionType, Explanation string
	Payload                 json.RawMessage
}

// Tool implements Args.
func (ProposePilotageActionArgs) Tool() string { return ProposePilotageAction }

// Tool implements Args.
func (UpdateCardArgs) Tool() string { return UpdateCard }

// Tool implements Args.
func (AddChecklistItemsArgs) Tool() string { return AddChecklistItems }

// Tool implements Args.
func (AddCommentArgs) Tool() string { return AddComment }

// Tool implements Args.
func (MoveCardArgs) Tool() string { return MoveCard }

// Tool implements Args.
func (CreateCardArgs) Tool() string { return CreateCard }

// Decode checks a call's arguments against what the tool accepts (its schema in Catalog, and lim) and
// returns them as the tool's argument type. Titles and comments are trimmed. The error, for a call to
// an unknown tool, an unknown or mistyped field or a value out of bounds, is a sentence meant for the
// model and the person reviewing its call.
func Decode(tool string, raw json.RawMessage, lim Limits) (Args, error) {
	switch tool {
	case UpdateCard:
		return decodeUpdateCard(raw, lim)
	case AddChecklistItems:
		return decodeAddChecklistItems(raw, lim)
	case AddComment:
		return decodeAddComment(raw, lim)
	case MoveCard:
		return decodeMoveCard(raw)
	case CreateCard:
		return decodeCreateCard(raw)
	case ProposePilotageAction:
		return decodeProposePilotageAction(raw)
	case AskUser:
		return decodeAskUser(raw)
	}
	return nil, fmt.Errorf("unknown tool %q", tool)
}

func decodeUpdateCard(raw json.RawMessage, lim Limits) (Args, error) {
	var v struct {
		Title, Description, Priority, DueDate *string
	}
	if err := decodeStrict(raw, &v, UpdateCard); err != nil {
		return nil, err
	}
	var a UpdateCardArgs
	if v.Title != nil {
		t := strings.TrimSpace(*v.Title)
		if t == "" || utf8.RuneCountInString(t) > maxTitleLen {
			return nil, fmt.Errorf("title must be 1 to %d characters", maxTitleLen)
		}
		a.Title = &t
	}
	if v.Description != nil {
		if utf8.RuneCountInString(*v.Description) > maxDescriptionLen {
			return nil, fmt.Errorf("description must be at most %d characters", maxDescriptionLen)
		}
		a.Description = v.Description
	}
	if v.Priority != nil {
		if !slices.Contains(lim.Priorities, *v.Priority) {
			return nil, errors.New("priority must be low, medium or high")
		}
		a.Priority = v.Priority
	}
	if v.DueDate != nil {
		t, err := parseDueDate(*v.DueDate)
		if err != nil {
			return nil, err
		}
		a.DueDate = &t
	}
	if a == (UpdateCardArgs{}) {
		return nil, errors.New("update_card needs at least one field to change")
	}
	return a, nil
}

// parseDueDate reads an RFC 3339 date-time or a plain date.
func parseDueDate(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		if t, err = time.Parse(time.DateOnly, s); err != nil {
			return time.Time{}, errors.New("dueDate must be an ISO 8601 date or date-time")
		}
	}
	return t, nil
}

func decodeAddChecklistItems(raw json.RawMessage, lim Limits) (Args, error) {
	var v struct {
		Items []string `json:"items"`
	}
	if err := decodeStrict(raw, &v, AddChecklistItems); err != nil {
		return nil, err
	}
	var a AddChecklistItemsArgs
	for _, it := range v.Items {
		it = strings.TrimSpace(it)
		if it == "" || utf8.RuneCountInString(it) > maxTitleLen {
			return nil, fmt.Errorf("each checklist item must be 1 to %d characters", maxTitleLen)
		}
		a.Items = append(a.Items, it)
	}
	if len(a.Items) == 0 || len(a.Items) > lim.MaxChecklistItems {
		return nil, fmt.Errorf("items must hold 1 to %d entries", lim.MaxChecklistItems)
	}
	return a, nil
}

func decodeAddComment(raw json.RawMessage, lim Limits) (Args, error) {
	var v struct {
		Content string `json:"content"`
	}
	if err := decodeStrict(raw, &v, AddComment); err != nil {
		return nil, err
	}
	a := AddCommentArgs{Content: strings.TrimSpace(v.Content)}
	if a.Content == "" || utf8.RuneCountInString(a.Content) > lim.MaxCommentLength {
		return nil, fmt.Errorf("content must be 1 to %d characters", lim.MaxCommentLength)
	}
	return a, nil
}

func decodeMoveCard(raw json.RawMessage) (Args, error) {
	var v struct {
		ColumnID string `json:"columnId"`
	}
	if err := decodeStrict(raw, &v, MoveCard); err != nil {
		return nil, err
	}
	if v.ColumnID == "" {
		return nil, errors.New("columnId is required")
	}
	return MoveCardArgs{ColumnID: v.ColumnID}, nil
}

func decodeCreateCard(raw json.RawMessage) (Args, error) {
	var v struct {
		Title       string `json:"title"`
		Description string `json:"description"`
	}
	if err := decodeStrict(raw, &v, CreateCard); err != nil {
		return nil, err
	}
	a := CreateCardArgs{Title: strings.TrimSpace(v.Title), Description: v.Description}
	if a.Title == "" || utf8.RuneCountInString(a.Title) > maxTitleLen {
		return nil, fmt.Errorf("title must be 1 to %d characters", maxTitleLen)
	}
	if utf8.RuneCountInString(a.Description) > maxDescriptionLen {
		return nil, fmt.Errorf("description must be at most %d characters", maxDescriptionLen)
	}
	return a, nil
}

// decodeAskUser checks the question and its options (blank options dropped, duplicates kept once).
func decodeAskUser(raw json.RawMessage) (Args, error) {
	var v struct {
		Question string   `json:"question"`
		Options  []string `json:"options"`
	}
	if err := decodeStrict(raw, &v, AskUser); err != nil {
		return nil, err
	}
	a := AskUserArgs{Question: strings.TrimSpace(v.Question), Options: []string{}}
	if a.Question == "" || utf8.RuneCountInString(a.Question) > maxQuestionLen {
		return nil, fmt.Errorf("question must be 1 to %d characters", maxQuestionLen)
	}
	for _, o := range v.Options {
		o = strings.TrimSpace(o)
		if o == "" || slices.Contains(a.Options, o) {
			continue
		}
		if utf8.RuneCountInString(o) > maxOptionLen {
			return nil, fmt.Errorf("each option must be at most %d characters", maxOptionLen)
		}
		a.Options = append(a.Options, o)
	}
	if len(a.Options) > maxOptions {
		return nil, fmt.Errorf("at most %d options", maxOptions)
	}
	return a, nil
}

// decodeProposePilotageAction checks the action's type and explanation; a missing or null payload is {}.
func decodeProposePilotageAction(raw json.RawMessage) (Args, error) {
	var v struct {
		ActionType  string          `json:"actionType"`
		Explanation string          `json:"explanation"`
		Payload     json.RawMessage `json:"payload"`
	}
	if err := decodeStrict(raw, &v, ProposePilotageAction); err != nil {
		return nil, err
	}
	a := ProposePilotageActionArgs{ActionType: strings.TrimSpace(v.ActionType),
		Explanation: strings.TrimSpace(v.Explanation), Payload: v.Payload}
	if a.ActionType == "" || utf8.RuneCountInString(a.ActionType) > maxActionTypeLen {
		return nil, fmt.Errorf("actionType must be 1 to %d characters", maxActionTypeLen)
	}
	if a.Explanation == "" || utf8.RuneCountInString(a.Explanation) > maxExplanationLen {
		return nil, fmt.Errorf("explanation must be 1 to %d characters", maxExplanationLen)
	}
	if len(bytes.TrimSpace(a.Payload)) == 0 || string(bytes.TrimSpace(a.Payload)) == "null" {
		a.Payload = json.RawMessage(`{}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(a.Payload, &obj); err != nil {
		return nil, errors.New("payload must be a JSON object")
	}
	return a, nil
}

// decodeStrict decodes a tool's arguments into v, refusing fields v does not have.
func decodeStrict(raw json.RawMessage, v any, tool string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s arguments: %s", tool, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

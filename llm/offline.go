package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pilot-dev/pilot/internal/agenttool"
)

// maxDerivedItems bounds the checklist items the offline planner proposes in one turn.
const maxDerivedItems = 8

// maxItemRunes bounds the length of one derived checklist item.
const maxItemRunes = 200

// Offline is the built-in deterministic planner: a Provider that needs no network and no key and
// derives its answers from the request alone (the card's title, description, checklist,
// comments and labels, or the last user message). The same request always gets the same
// response.
//
// On the first turn of a card mission (no assistant message yet) it calls, among the offered
// tools only:
//
//   - add_checklist_items with steps taken from the description (its bullet or numbered lines,
//     else its sentences; at most 8; items already on the checklist are skipped). When the
//     description yields nothing: "Clarify scope of <title>", "Implement <title>",
//     "Review <title>".
//   - update_card {"priority":"high"} when the title, description, labels or comments mention
//     urgent, asap, blocker, critical or outage and the card is not already high.
//   - add_comment with a one-paragraph plan: the title, the number of open checklist items, the
//     next step, the due date and the latest comment. Its words are streamed to OnToken.
//
// What an unoffered tool would have done (steps, priority) is suggested in the plan text instead.
//
// It asks first when ask_user is offered and the request is unclear: the mission objective or the
// card's title contains a question mark, or the objective, title or description contains the word
// "unclear" (any case). The question is "What should I focus on first for <title>?" with the first
// three steps it would add as options. Once answered (the last message is the answer to its ask_user
// call), it plans the card as above, its plan comment starting with the answer.
// When no call applies, the plan is the final answer. On a later turn (after tool
// results) it answers with a summary of the calls made, treating a tool result that begins with
// "error" as a failure. Without a card it answers with steps derived from the last user message.
type Offline struct{}

var _ Provider = (*Offline)(nil)

// NewOffline returns the offline planner.
func NewOffline() *Offline { return &Offline{} }

// Name reports "offline".
func (*Offline) Name() string { return "offline" }

// Chat runs one deterministic turn. It fails only when ctx has ended.
func (o *Offline) Chat(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, fmt.Errorf("offline planner: %w", err)
	}
	if req.Draft != nil {
		text := offlineDraft(*req.Draft)
		if req.OnToken != nil {
			for _, tok := range splitTokens(text) {
				if err := ctx.Err(); err != nil {
					return Response{}, fmt.Errorf("offline planner: %w", err)
				}
				req.OnToken(tok)
			}
		}
		resp := Response{Content: text, FinishReason: FinishStop}
		resp.Usage = EstimateUsage(req, resp)
		return resp, nil
	}
	var card *CardContext
	if req.Mission != nil {
		card = req.Mission.Card
	}
	var resp Response
	switch {
	case card == nil:
		resp = Response{Content: answerWithoutCard(req), FinishReason: FinishStop}
	case answerToAsk(req.Messages) != "":
		resp = planCard(card, withoutAsk(req.Tools), answerToAsk(req.Messages))
	case slices.ContainsFunc(req.Messages, func(m Message) bool { return m.Role == RoleAssistant }):
		resp = Response{Content: summarizeTurns(card, req.Messages), FinishReason: FinishStop}
	case offersTool(req.Tools, agenttool.AskUser) && unclear(req.Mission.Objective, card):
		resp = askFirst(card)
	default:
		resp = planCard(card, req.Tools, "")
	}

	// Stream the text a user would read: the answer, or on a tool turn the comment.
	text := resp.Content
	if text == "" {
		for _, tc := range resp.ToolCalls {
			if tc.Name == agenttool.AddComment {
				var args struct{ Content string }
				if json.Unmarshal(tc.Arguments, &args) == nil {
					text = args.Content
				}
			}
		}
	}
	if req.OnToken != nil {
		for _, tok := range splitTokens(text) {
			if err := ctx.Err(); err != nil {
				return Response{}, fmt.Errorf("offline planner: %w", err)
			}
			req.OnToken(tok)
		}
	}
	resp.Usage = EstimateUsage(req, resp)
	return resp, nil
}

// charsPerToken is the estimate's ratio: about four characters of English text per token, the figure
// OpenAI gives for its tokenizers.
const charsPerToken = 4

// EstimateUsage is the offline planner's token count, as a model would bill the turn: the characters of
// what the model reads (every message's content and tool calls, the mission as rendered for remote
// models, the offered tools' names, descriptions and parameters) and of what it wrote (content, tool
// names and arguments), each divided by four, rounded up. An approximation: no tokenizer is run.
func EstimateUsage(req Request, resp Response) Usage {
	var in, out int
	for _, m := range req.Messages {
		in += utf8.RuneCountInString(m.Content)
		for _, tc := range m.ToolCalls {
			in += utf8.RuneCountInString(tc.Name) + len(tc.Arguments)
		}
	}
	in += utf8.RuneCountInString(req.Mission.Render())
	for _, t := range req.Tools {
		in += utf8.RuneCountInString(t.Name) + utf8.RuneCountInString(t.Description) + len(t.Parameters)
	}
	if req.Draft != nil {
		if b, err := json.Marshal(req.Draft); err == nil {
			in += len(b)
		}
	}
	out = utf8.RuneCountInString(resp.Content)
	for _, tc := range resp.ToolCalls {
		out += utf8.RuneCountInString(tc.Name) + len(tc.Arguments)
	}
	return Usage{PromptTokens: int64((in + charsPerToken - 1) / charsPerToken),
		CompletionTokens: int64((out + charsPerToken - 1) / charsPerToken)}
}

// unclearWord is the word that makes a request unclear to the offline planner.
var unclearWord = regexp.MustCompile(`(?i)\bunclear\b`)

// unclear says whether the offline planner asks before it plans: a question mark in the objective or
// the card's title, or the word "unclear" in the objective, title or description.
func unclear(objective string, card *CardContext) bool {
	if strings.Contains(objective, "?") || strings.Contains(card.Title, "?") {
		return true
	}
	return unclearWord.MatchString(objective) || unclearWord.MatchString(card.Title) ||
		unclearWord.MatchString(card.Description)
}

// askFirst asks the requester what to focus on, the first steps it would add as options.
func askFirst(card *CardContext) Response {
	options := newChecklistItems(card)
	if len(options) > 3 {
		options = options[:3]
	}
	q := fmt.Sprintf("What should I focus on first for %q?", strings.TrimSpace(card.Title))
	b, err := json.Marshal(map[string]any{"question": q, "options": options})
	if err != nil {
		panic(fmt.Sprintf("offline planner: marshal ask_user arguments: %v", err)) // plain values only
	}
	return Response{Content: q, ToolCalls: []ToolCall{{ID: "offline_ask_user", Name: agenttool.AskUser, Arguments: b}},
		FinishReason: FinishToolCalls}
}

// answerToAsk is the answer to an ask_user call when it is the conversation's last message ("" when not).
func answerToAsk(msgs []Message) string {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != RoleTool {
		return ""
	}
	last := msgs[len(msgs)-1]
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.ID == last.ToolCallID && tc.Name == agenttool.AskUser {
				return strings.TrimSpace(strings.TrimPrefix(last.Content, "The person answered:"))
			}
		}
	}
	return ""
}

func offersTool(tools []Tool, name string) bool {
	return slices.ContainsFunc(tools, func(t Tool) bool { return t.Name == name })
}

func withoutAsk(tools []Tool) []Tool {
	return slices.DeleteFunc(slices.Clone(tools), func(t Tool) bool { return t.Name == agenttool.AskUser })
}

// planCard builds the first turn of a card mission (after the requester's answer when it asked).
func planCard(card *CardContext, tools []Tool, answer string) Response {
	offered := func(name string) bool {
		return slices.ContainsFunc(tools, func(t Tool) bool { return t.Name == name })
	}

	newItems := newChecklistItems(card)
	keyword := urgentKeyword(card)
	raise := keyword != "" && !strings.EqualFold(card.Priority, "high")

	var calls []ToolCall
	add := func(name string, args any) {
		b, err := json.Marshal(args)
		if err != nil {
			panic(fmt.Sprintf("offline planner: marshal %s arguments: %v", name, err)) // plain values only
		}
		calls = append(calls, ToolCall{
			ID:        "offline_" + strconv.Itoa(len(calls)+1) + "_" + name,
			Name:      name,
			Arguments: b,
		})
	}

	// Steps and the priority change that cannot be applied are suggested in the plan instead.
	var suggested []string
	if !offered(agenttool.AddChecklistItems) {
		suggested, newItems = newItems, nil
	}
	if len(newItems) > 0 {
		add(agenttool.AddChecklistItems, map[string]any{"items": newItems})
	}
	suggestHigh := raise && !offered(agenttool.UpdateCard)
	if suggestHigh {
		raise = false
	}
	if raise {
		add(agenttool.UpdateCard, map[string]any{"priority": "high"})
	}
	plan := planText(card, planFacts{newItems: newItems, suggested: suggested, keyword: keyword, raised: raise,
		suggestHigh: suggestHigh})
	if answer != "" {
		plan = fmt.Sprintf("You answered %q. %s", truncateRunes(answer, 200), plan)
	}
	if offered(agenttool.AddComment) {
		add(agenttool.AddComment, map[string]any{"content": plan})
	}
	if len(calls) == 0 {
		return Response{Content: plan, FinishReason: FinishStop}
	}
	return Response{ToolCalls: calls, FinishReason: FinishToolCalls}
}

// planFacts is what planText reports besides the card itself.
type planFacts struct {
	newItems    []string // checklist items being added
	suggested   []string // checklist items that could not be added (tool not offered)
	keyword     string   // the urgent word found, if any
	raised      bool     // priority is being raised to high
	suggestHigh bool     // priority should be high but update_card was not offered
}

// planText is the plan comment: title, open checklist items, next step, priority change, due
// date and latest comment.
func planText(card *CardContext, f planFacts) string {
	var open []string
	for _, it := range card.Checklist {
		if !it.Done {
			open = append(open, strings.TrimSpace(it.Title))
		}
	}
	open = append(open, f.newItems...)

	var b strings.Builder
	fmt.Fprintf(&b, "Plan for %q: ", strings.TrimSpace(card.Title))
	switch {
	case len(open) == 0 && len(card.Checklist) > 0:
		fmt.Fprintf(&b, "all %s done.", plural(len(card.Checklist), "checklist item", "checklist items"))
	case len(open) == 0:
		b.WriteString("no open checklist items.")
	default:
		b.WriteString(plural(len(open), "open checklist item", "open checklist items"))
		if len(f.newItems) > 0 {
			fmt.Fprintf(&b, " (%d new)", len(f.newItems))
		}
		fmt.Fprintf(&b, ". Next: %q.", open[0])
	}
	if len(f.suggested) > 0 {
		quoted := make([]string, len(f.suggested))
		for i, s := range f.suggested {
			quoted[i] = strconv.Quote(s)
		}
		fmt.Fprintf(&b, " Suggested steps: %s.", strings.Join(quoted, ", "))
	}
	switch {
	case f.raised:
		fmt.Fprintf(&b, " Priority raised to high: the card mentions %q.", f.keyword)
	case f.suggestHigh:
		fmt.Fprintf(&b, " Priority should be high: the card mentions %q.", f.keyword)
	}
	if card.DueDate != nil {
		fmt.Fprintf(&b, " Due %s.", formatDue(*card.DueDate))
	}
	if latest := latestComment(card); latest != "" {
		fmt.Fprintf(&b, " Latest comment: %q.", truncateRunes(latest, 120))
	} else {
		b.WriteString(" No comments yet.")
	}
	return b.String()
}

// latestComment returns the last non-blank comment, whitespace collapsed.
func latestComment(card *CardContext) string {
	for i := len(card.Comments) - 1; i >= 0; i-- {
		if c := strings.Join(strings.Fields(card.Comments[i]), " "); c != "" {
			return c
		}
	}
	return ""
}

// newChecklistItems derives checklist items from the description (or generic steps when it
// yields none), without those already on the checklist, at most maxDerivedItems.
func newChecklistItems(card *CardContext) []string {
	candidates := deriveSteps(card.Description)
	if len(candidates) == 0 {
		title := strings.TrimSpace(card.Title)
		candidates = []string{"Clarify scope of " + title, "Implement " + title, "Review " + title}
	}
	seen := make(map[string]bool, len(card.Checklist)+len(candidates))
	for _, it := range card.Checklist {
		seen[itemKey(it.Title)] = true
	}
	var items []string
	for _, c := range candidates {
		k := itemKey(c)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		items = append(items, c)
		if len(items) == maxDerivedItems {
			break
		}
	}
	return items
}

var (
	// bulletLine matches "- x", "* x", "• x", "+ x", "1. x", "1) x", with an optional "[ ]" box.
	bulletLine = regexp.MustCompile(`^\s*(?:[-*•+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.+?)\s*$`)
	// sentenceEnd ends a sentence: ".", "!" or "?" followed by a space.
	sentenceEnd = regexp.MustCompile(`[.!?]+\s+`)
)

// deriveSteps returns the bullet or numbered lines of text, or when there are none, its sentences.
// Items are trimmed of trailing punctuation and shortened to maxItemRunes.
func deriveSteps(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var steps []string
	for _, l := range lines {
		if m := bulletLine.FindStringSubmatch(l); m != nil {
			steps = appendStep(steps, m[1])
		}
	}
	if len(steps) > 0 {
		return steps
	}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		start := 0
		for _, loc := range sentenceEnd.FindAllStringIndex(l, -1) {
			end := loc[0] + len(strings.TrimRightFunc(l[loc[0]:loc[1]], unicode.IsSpace))
			steps = appendStep(steps, l[start:end]) // keeps a question mark
			start = loc[1]
		}
		steps = appendStep(steps, l[start:])
	}
	return steps
}

// appendStep cleans s and appends it when it has at least three letters or digits.
func appendStep(steps []string, s string) []string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimRight(s, ".;:!,")
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	if n < 3 {
		return steps
	}
	return append(steps, truncateRunes(s, maxItemRunes))
}

// itemKey compares checklist items ignoring case, spacing and trailing punctuation.
func itemKey(s string) string {
	return strings.ToLower(strings.TrimRight(strings.Join(strings.Fields(s), " "), ".;:!,"))
}

// urgentWord matches the words that make a card urgent.
var urgentWord = regexp.MustCompile(`(?i)\b(urgent(?:ly)?|asap|blockers?|blocking|critical|outages?)\b`)

// urgentKeyword returns the first urgent word in the title, description, labels or comments.
func urgentKeyword(card *CardContext) string {
	sources := append([]string{card.Title, card.Description}, card.Labels...)
	sources = append(sources, card.Comments...)
	for _, s := range sources {
		if m := urgentWord.FindString(s); m != "" {
			return strings.ToLower(m)
		}
	}
	return ""
}

// summarizeTurns is the final answer after tool turns: what each call did, told apart by its result:
// applied ("ok…"), proposed to a person and waiting for their approval ("proposed…"), or not applied
// ("error…", or no result). A mission whose proposals wait is not finished yet, so it does not say so;
// what a person then approves or rejects is the mission's to say (its completion event).
func summarizeTurns(card *CardContext, msgs []Message) string {
	results := map[string]string{}
	for _, m := range msgs {
		if m.Role == RoleTool {
			results[m.ToolCallID] = strings.TrimSpace(m.Content)
		}
	}
	var applied, proposed, failed []string
	for _, m := range msgs {
		if m.Role != RoleAssistant {
			continue
		}
		for _, tc := range m.ToolCalls {
			if tc.Name == agenttool.AskUser {
				continue // a question, not an action
			}
			action := describeCall(tc)
			res, ok := results[tc.ID]
			switch {
			case !ok:
				failed = append(failed, action+" (no result)")
			case strings.HasPrefix(strings.ToLower(res), "error"):
				failed = append(failed, fmt.Sprintf("%s (%s)", action, truncateRunes(res, 120)))
			case strings.HasPrefix(strings.ToLower(res), "proposed"):
				proposed = append(proposed, action)
			default:
				applied = append(applied, action)
			}
		}
	}

	var b strings.Builder
	if len(proposed) > 0 {
		fmt.Fprintf(&b, "Mission on %q: %s for approval.", strings.TrimSpace(card.Title),
			plural(len(proposed), "action waits", "actions wait"))
	} else {
		fmt.Fprintf(&b, "Mission on %q finished.", strings.TrimSpace(card.Title))
	}
	if len(applied) == 0 && len(proposed) == 0 && len(failed) == 0 {
		b.WriteString(" Nothing was changed.")
	}
	if len(applied) > 0 {
		fmt.Fprintf(&b, " Applied: %s.", strings.Join(applied, "; "))
	}
	if len(proposed) > 0 {
		fmt.Fprintf(&b, " Waiting for approval: %s.", strings.Join(proposed, "; "))
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, " Not applied: %s.", strings.Join(failed, "; "))
	}
	return b.String()
}

// describeCall says in a few words what a tool call does.
func describeCall(tc ToolCall) string {
	var args map[string]any
	_ = json.Unmarshal(tc.Arguments, &args) // unreadable arguments describe as the bare call
	str := func(k string) string {
		s, _ := args[k].(string)
		return truncateRunes(s, 60)
	}
	switch tc.Name {
	case agenttool.AddChecklistItems:
		items, _ := args["items"].([]any)
		quoted := make([]string, 0, len(items))
		for _, it := range items {
			if s, ok := it.(string); ok {
				quoted = append(quoted, strconv.Quote(truncateRunes(s, 60)))
			}
		}
		return fmt.Sprintf("added %s (%s)", plural(len(items), "checklist item", "checklist items"), strings.Join(quoted,
			", "))
	case agenttool.UpdateCard:
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var fields []string
		for _, k := range keys {
			fields = append(fields, fmt.Sprintf("%s %v", k, args[k]))
		}
		if len(fields) == 0 {
			return "updated the card"
		}
		return "updated the card (" + strings.Join(fields, ", ") + ")"
	case agenttool.AddComment:
		return "posted a comment"
	case agenttool.MoveCard:
		return fmt.Sprintf("moved the card to column %s", str("columnId"))
	case agenttool.CreateCard:
		return fmt.Sprintf("created card %q", str("title"))
	case agenttool.AskUser:
		return fmt.Sprintf("asked %q", str("question"))
	default:
		return "called " + tc.Name
	}
}

// answerWithoutCard answers a request that has no card: steps derived from the last user
// message, or from the mission objective when there is none.
func answerWithoutCard(req Request) string {
	text := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == RoleUser && strings.TrimSpace(req.Messages[i].Content) != "" {
			text = req.Messages[i].Content
			break
		}
	}
	if text == "" && req.Mission != nil {
		text = req.Mission.Objective
	}
	if strings.TrimSpace(text) == "" {
		return "Offline planner: there is no card and no message to plan from."
	}
	steps := deriveSteps(text)
	if len(steps) > maxDerivedItems {
		steps = steps[:maxDerivedItems]
	}
	if len(steps) == 0 {
		return fmt.Sprintf("Offline planner: no steps found in %q.", truncateRunes(strings.TrimSpace(text), 80))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Offline plan in %s:", plural(len(steps), "step", "steps"))
	for i, s := range steps {
		fmt.Fprintf(&b, " %d. %s.", i+1, s)
	}
	return b.String()
}

// plural formats n with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// splitTokens cuts text into words, each keeping the whitespace that follows it, so the tokens
// concatenate back to text.
func splitTokens(text string) []string {
	var toks []string
	start := 0
	inSpace := false
	for i, r := range text {
		sp := unicode.IsSpace(r)
		if inSpace && !sp {
			toks = append(toks, text[start:i])
			start = i
		}
		inSpace = sp
	}
	if start < len(text) {
		toks = append(toks, text[start:])
	}
	return toks
}

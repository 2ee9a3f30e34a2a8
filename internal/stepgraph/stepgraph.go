// Package stepgraph is the pipeline step graph: the catalog of step types with their parameters, the
// validation of a graph on write (types, parameters, needs, duplicates, cycles, size), the branch
// rules of condition steps and the title templates steps fill from earlier steps' outputs. Running
// steps is the store's work; this package holds no state and imports nothing of Pilot's.
package stepgraph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// MaxSteps is the most steps a pipeline may have.
const MaxSteps = 50

// Built-in step types.
const (
	TypeCreateCard      = "create_card"
	TypeRunAgentMission = "run_agent_mission"
	TypeGenerateRoadmap = "generate_roadmap"
	TypeNotify          = "notify"
	TypeWait            = "wait"
	TypeCondition       = "condition"
	TypeWebhook         = "webhook"
	// Plugin step types (see internal/plugin).
	TypeEmailDigest = "email_digest"
	TypeAddComment  = "add_comment"
	TypeMoveCard    = "move_card"
)

// Wait bounds.
const (
	MinWait = time.Second
	MaxWait = 7 * 24 * time.Hour
)

// Step is one node of the graph.
type Step struct {
	ID     string          `json:"id"`
	Type   string          `json:"type"`
	Params json.RawMessage `json:"params"`
	Needs  []string        `json:"needs"`
}

// Error is a refused graph; Step names the step at fault (empty for the graph as a whole).
type Error struct {
	Step string
	Msg  string
}

func (e *Error) Error() string {
	if e.Step == "" {
		return e.Msg
	}
	return fmt.Sprintf("step %q: %s", e.Step, e.Msg)
}

func stepErr(id, format string, args ...any) error {
	return &Error{Step: id, Msg: fmt.Sprintf(format, args...)}
}

// Params of each step type. Fields holding a template may name earlier steps' outputs.
type (
	// CreateCardParams creates a card through the store's card create. ColumnID empty: the first column.
	CreateCardParams struct {
		ProjectID   string `json:"projectId"`
		ColumnID    string `json:"columnId,omitempty"`
		Title       string `json:"title"`
		Description string `json:"description,omitempty"`
	}
	// RunAgentMissionParams starts a mission of an agent, on a card (a template, such as
	// "{{steps.make.cardId}}") or with an objective, and waits for it to finish.
	RunAgentMissionParams struct {
		AgentID   string `json:"agentId"`
		CardID    string `json:"cardId,omitempty"`
		Objective string `json:"objective,omitempty"`
	}
	// GenerateRoadmapParams generates a project draft's roadmap and waits for it.
	GenerateRoadmapParams struct {
		DraftID string `json:"draftId"`
	}
	// NotifyParams notifies every workspace member (but the run's starter) with a message. A
	// notification tells of an activity, and an activity belongs to a project: ProjectID names it.
	NotifyParams struct {
		ProjectID string `json:"projectId"`
		Message   string `json:"message"`
	}
	// WebhookParams posts Body (JSON; templates in its strings are filled) to URL, signed as the
	// webhook WebhookID's deliveries are, and waits for the delivery's end.
	WebhookParams struct {
		URL       string          `json:"url"`
		WebhookID string          `json:"webhookId"`
		Body      json.RawMessage `json:"body,omitempty"`
	}
	// WaitParams waits for a Go duration ("90s", "5m", "24h").
	WaitParams struct {
		Duration string `json:"duration"`
	}
	// ConditionParams tests Field of Step's output with Op against Value. Then lists the steps that
	// run when it holds, Else those that run when it does not; each must need the condition step. The
	// steps of the branch not taken are skipped, and so is every step that needs a skipped step.
	ConditionParams struct {
		Step  string          `json:"step"`
		Field string          `json:"field"`
		Op    string          `json:"op"`
		Value json.RawMessage `json:"value,omitempty"`
		Then  []string        `json:"then"`
		Else  []string        `json:"else"`
	}
	// EmailDigestParams e-mails each workspace member their unread notifications (plugin email-digest).
	EmailDigestParams struct {
		Subject string `json:"subject,omitempty"`
	}
	// AddCommentParams comments on a card (plugin card-actions).
	AddCommentParams struct {
		ProjectID string `json:"projectId"`
		CardID    string `json:"cardId"`
		Content   string `json:"content"`
	}
	// MoveCardParams moves a card to a column (plugin card-actions).
	MoveCardParams struct {
		ProjectID string `json:"projectId"`
		CardID    string `json:"cardId"`
		ColumnID  string `json:"columnId"`
	}
)

// ConditionOps are the condition operators.
var ConditionOps = []string{"equals", "not_equals", "exists", "not_exists", "greater_than", "less_than"}

// TypeInfo documents a step type for the catalog.
type TypeInfo struct {
	Type        string `json:"type"`
	Description string `json:"description"`
	Params      string `json:"params"`
	// Fields are the params one by one, for a client to build a form from.
	Fields []ParamField `json:"fields"`
	// Plugin is the plugin that contributes the type ("" for built-in types).
	Plugin string `json:"plugin,omitempty"`
}

// ParamField is one parameter of a step type. Kind says what it holds: text (one line) or multiline; an id
// of the workspace's project, column (of the step's projectId), agent, draft or webhook; card (a card id,
// or a template naming an earlier step's output); step (a step this one transitively needs); steps (a
// list of the ids of steps that need this one); choice (one of Options); duration (Go syntax); url; json
// (any JSON value).
type ParamField struct {
	Name      string   `json:"name"`
	Kind      string   `json:"kind" enum:"text,multiline,project,column,agent,draft,webhook,card,step,steps,choice,duration,url,json"`
	Required  bool     `json:"required"`
	Template  bool     `json:"template" doc:"Takes {{steps.<id>.<field>}}, {{run.id}}, {{pipeline.name}}, {{date}}"`
	MaxLength int      `json:"maxLength,omitempty"`
	Options   []string `json:"options,omitempty"`
	Doc       string   `json:"doc" doc:"What the field is, in words"`
}

// Types is the catalog of step types.
var Types = []TypeInfo{
	{Type: TypeCreateCard, Description: "Creates a card through the store (activities, notifications and automations " +
		"follow). Output: cardId, title, projectId, columnId.",
		Params: "projectId (required), columnId (default: the first column), title (required, template, ≤500), description " +
			"(template)",
		Fields: []ParamField{
			{Name: "projectId", Kind: "project", Required: true, Doc: "The project the card is created in"},
			{Name: "columnId", Kind: "column", Doc: "Its column (default: the project's first)"},
			{Name: "title", Kind: "text", Required: true, Template: true, MaxLength: 500, Doc: "The card's title"},
			{Name: "description", Kind: "multiline", Template: true, MaxLength: 5000, Doc: "The card's description"},
		}},
	{Type: TypeRunAgentMission, Description: "Starts an agent mission and waits for it to finish; the step fails when " +
		"the mission fails. Output: missionId, status.",
		Params: "agentId (required), cardId (template) or objective (template), at least one",
		Fields: []ParamField{
			{Name: "agentId", Kind: "agent", Required: true, Doc: "The agent that works the mission"},
			{Name: "cardId", Kind: "card", Doc: "The card the mission is about (this or an objective)"},
			{Name: "objective", Kind: "multiline", Template: true, MaxLength: 5000,
				Doc: "What the agent is to do (this or a card)"},
		}},
	{Type: TypeGenerateRoadmap, Description: "Generates a project draft's phased roadmap and waits for it (no worker is " +
		"held); the step fails when the roadmap fails. Output: draftId, then status, name, phases, deliverables, " +
		"phaseNames and summary (\"roadmap ready: 4 phases, 12 deliverables\").",
		Params: "draftId (required: a draft of the workspace in framing, refined, roadmap_ready or failed when the step " +
			"runs)",
		Fields: []ParamField{
			{Name: "draftId", Kind: "draft", Required: true, Doc: "The project draft whose roadmap is generated"},
		}},
	{Type: TypeNotify, Description: "Notifies every workspace member (the run's starter aside). Output: recipients.",
		Params: "projectId (required: the project the notification is about), message (required, template, ≤1000)",
		Fields: []ParamField{
			{Name: "projectId", Kind: "project", Required: true, Doc: "The project the notification is about"},
			{Name: "message", Kind: "multiline", Required: true, Template: true, MaxLength: 1000, Doc: "What members read"},
		}},
	{Type: TypeWait, Description: "Waits for a duration, as a scheduled job (no worker is held). Output: waited.",
		Params: "duration (required, a Go duration from 1s to 168h: \"90s\", \"5m\")",
		Fields: []ParamField{
			{Name: "duration", Kind: "duration", Required: true, Doc: "How long, from 1s to 168h: \"90s\", \"5m\", \"24h\""},
		}},
	{Type: TypeWebhook, Description: "Posts a JSON body to a URL as a webhook delivery: signed with the secret of a " +
		"webhook of the workspace, retried like its deliveries; waits for the delivery (no worker is held) and fails when " +
		"it fails. Output: deliveryId, statusCode.",
		Params: "url (required, http or https), webhookId (required: the webhook whose secret signs), body (JSON, " +
			"templates in its strings; default {})",
		Fields: []ParamField{
			{Name: "url", Kind: "url", Required: true, Doc: "Where the body is posted (http or https)"},
			{Name: "webhookId", Kind: "webhook", Required: true, Doc: "The webhook whose secret signs the request"},
			{Name: "body", Kind: "json", Template: true, Doc: "The JSON posted (default {})"},
		}},
	{Type: TypeCondition, Description: "Tests a field of an earlier step's output; the branch not taken is skipped. " +
		"Output: result.",
		Params: "step (an ancestor), field, op (equals, not_equals, exists, not_exists, greater_than, less_than), value, " +
			"then and else (steps that need this one)",
		Fields: []ParamField{
			{Name: "step", Kind: "step", Required: true, Doc: "The earlier step whose output is tested"},
			{Name: "field", Kind: "text", Required: true, Doc: "The field of its output (dots for nesting)"},
			{Name: "op", Kind: "choice", Required: true, Options: ConditionOps, Doc: "The test"},
			{Name: "value", Kind: "json", Doc: "The value compared (not for exists and not_exists; a number for " +
				"greater_than and less_than)"},
			{Name: "then", Kind: "steps", Doc: "Steps that run when the test holds"},
			{Name: "else", Kind: "steps", Doc: "Steps that run when it does not"},
		}},
	{Type: TypeEmailDigest, Plugin: "email-digest", Description: "E-mails each workspace member a digest of their " +
		"unread notifications. Output: sent.",
		Params: "subject (template, optional)",
		Fields: []ParamField{
			{Name: "subject", Kind: "text", Template: true, MaxLength: 200, Doc: "The e-mail's subject"},
		}},
	{Type: TypeAddComment, Plugin: "card-actions", Description: "Comments on a card as the run's starter. Output: " +
		"commentId.",
		Params: "projectId, cardId (template), content (template, ≤2000)",
		Fields: []ParamField{
			{Name: "projectId", Kind: "project", Required: true, Doc: "The card's project"},
			{Name: "cardId", Kind: "card", Required: true, Doc: "The card commented on"},
			{Name: "content", Kind: "multiline", Required: true, Template: true, MaxLength: 2000, Doc: "The comment"},
		}},
	{Type: TypeMoveCard, Plugin: "card-actions", Description: "Moves a card to a column. Output: cardId, columnId.",
		Params: "projectId, cardId (template), columnId",
		Fields: []ParamField{
			{Name: "projectId", Kind: "project", Required: true, Doc: "The card's project"},
			{Name: "cardId", Kind: "card", Required: true, Doc: "The card moved"},
			{Name: "columnId", Kind: "column", Required: true, Doc: "The column it moves to"},
		}},
}

// Known says whether t is a step type of the catalog.
func Known(t string) bool {
	return slices.ContainsFunc(Types, func(i TypeInfo) bool { return i.Type == t })
}

var stepIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Parse decodes a steps array. A step's params default to {} and its needs to [].
func Parse(raw json.RawMessage) ([]Step, error) {
	var steps []Step
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&steps); err != nil {
		return nil, &Error{Msg: "steps must be an array of {id, type, params, needs}: " + err.Error()}
	}
	for i := range steps {
		if len(bytes.TrimSpace(steps[i].Params)) == 0 || string(bytes.TrimSpace(steps[i].Params)) == "null" {
			steps[i].Params = json.RawMessage("{}")
		}
		if steps[i].Needs == nil {
			steps[i].Needs = []string{}
		}
	}
	return steps, nil
}

// Validate checks a graph: at most MaxSteps steps, unique well-formed ids, types that exist and that
// allowed accepts (a plugin's type in a workspace without the plugin: allowed answers the refusal),
// known needs, no cycle, parameters that fit each type and templates and conditions that name
// ancestors only.
func Validate(steps []Step, allowed func(stepType string) error) error {
	if len(steps) == 0 {
		return &Error{Msg: "steps must hold at least one step"}
	}
	if len(steps) > MaxSteps {
		return &Error{Msg: fmt.Sprintf("a pipeline has at most %d steps (this one has %d)", MaxSteps, len(steps))}
	}
	byID := make(map[string]*Step, len(steps))
	for i := range steps {
		s := &steps[i]
		if !stepIDPattern.MatchString(s.ID) {
			return stepErr(s.ID, "an id is 1 to 64 letters, digits, - or _")
		}
		if _, dup := byID[s.ID]; dup {
			return stepErr(s.ID, "duplicate step id")
		}
		byID[s.ID] = s
	}
	for i := range steps {
		s := &steps[i]
		if !Known(s.Type) {
			return stepErr(s.ID, "unknown step type %q", s.Type)
		}
		if allowed != nil {
			if err := allowed(s.Type); err != nil {
				return stepErr(s.ID, "%s", err.Error())
			}
		}
		seen := map[string]bool{}
		for _, n := range s.Needs {
			if _, ok := byID[n]; !ok {
				return stepErr(s.ID, "needs unknown step %q", n)
			}
			if n == s.ID {
				return stepErr(s.ID, "needs itself")
			}
			if seen[n] {
				return stepErr(s.ID, "needs %q twice", n)
			}
			seen[n] = true
		}
	}
	if id := cycle(steps, byID); id != "" {
		return stepErr(id, "is part of a cycle of needs")
	}
	anc := ancestors(steps, byID)
	for i := range steps {
		if err := checkParams(&steps[i], anc, byID); err != nil {
			return err
		}
	}
	return nil
}

// cycle answers a step on a cycle, or "".
func cycle(steps []Step, byID map[string]*Step) string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var visit func(id string) string
	visit = func(id string) string {
		color[id] = grey
		for _, n := range byID[id].Needs {
			switch color[n] {
			case grey:
				return n
			case white:
				if c := visit(n); c != "" {
					return c
				}
			}
		}
		color[id] = black
		return ""
	}
	for _, s := range steps {
		if color[s.ID] == white {
			if c := visit(s.ID); c != "" {
				return c
			}
		}
	}
	return ""
}

// ancestors maps each step to the set of steps it transitively needs (the graph has no cycle).
func ancestors(steps []Step, byID map[string]*Step) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	var of func(id string) map[string]bool
	of = func(id string) map[string]bool {
		if a, ok := out[id]; ok {
			return a
		}
		a := map[string]bool{}
		for _, n := range byID[id].Needs {
			a[n] = true
			for k := range of(n) {
				a[k] = true
			}
		}
		out[id] = a
		return a
	}
	for _, s := range steps {
		of(s.ID)
	}
	return out
}

func decodeParams(s *Step, v any) error {
	dec := json.NewDecoder(bytes.NewReader(s.Params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return stepErr(s.ID, "params do not fit type %s: %s", s.Type, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID says whether s is a UUID.
func IsUUID(s string) bool { return uuidPattern.MatchString(s) }

var fieldPattern = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$`)

// ParseWait parses a wait duration and checks its bounds.
func ParseWait(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("must be a duration such as \"90s\" or \"5m\"")
	}
	if d < MinWait || d > MaxWait {
		return 0, fmt.Errorf("must be between %s and %s", MinWait, MaxWait)
	}
	return d, nil
}

// templateRef matches {{steps.<id>.<field>}}, {{run.id}}, {{pipeline.name}}, {{date}}.
var templateRef = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}`)

// TemplateRefs answers the step ids a template names through {{steps.<id>.<field>}}.
func TemplateRefs(s string) []string {
	var out []string
	for _, m := range templateRef.FindAllStringSubmatch(s, -1) {
		if rest, ok := strings.CutPrefix(m[1], "steps."); ok {
			id, _, _ := strings.Cut(rest, ".")
			out = append(out, id)
		}
	}
	return out
}

// Context is what templates are filled from.
type Context struct {
	RunID, PipelineName string
	Now                 time.Time
	// Outputs are the outputs of the steps done so far, by step id.
	Outputs map[string]map[string]any
}

// Fill replaces a template's placeholders: {{run.id}}, {{pipeline.name}}, {{date}} (YYYY-MM-DD) and
// {{steps.<id>.<field>}}; an unknown placeholder becomes empty.
func Fill(s string, c Context) string {
	return templateRef.ReplaceAllStringFunc(s, func(m string) string {
		key := templateRef.FindStringSubmatch(m)[1]
		switch key {
		case "run.id":
			return c.RunID
		case "pipeline.name":
			return c.PipelineName
		case "date":
			return c.Now.UTC().Format("2006-01-02")
		}
		if rest, ok := strings.CutPrefix(key, "steps."); ok {
			id, field, _ := strings.Cut(rest, ".")
			if v, ok := Lookup(c.Outputs[id], field); ok {
				switch x := v.(type) {
				case string:
					return x
				case nil:
					return ""
				default:
					b, _ := json.Marshal(x)
					return string(b)
				}
			}
		}
		return ""
	})
}

// Lookup reads a dotted field of an output.
func Lookup(out map[string]any, field string) (any, bool) {
	var cur any = out
	for _, part := range strings.Split(field, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Evaluate tests a condition against the output of the step it names.
func Evaluate(p ConditionParams, out map[string]any) bool {
	v, ok := Lookup(out, p.Field)
	switch p.Op {
	case "exists":
		return ok && v != nil
	case "not_exists":
		return !ok || v == nil
	}
	var want any
	_ = json.Unmarshal(p.Value, &want)
	switch p.Op {
	case "equals":
		return ok && equal(v, want)
	case "not_equals":
		return !ok || !equal(v, want)
	case "greater_than", "less_than":
		a, aok := v.(float64)
		b, bok := want.(float64)
		if !aok || !bok {
			return false
		}
		if p.Op == "greater_than" {
			return a > b
		}
		return a < b
	}
	return false
}

func equal(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

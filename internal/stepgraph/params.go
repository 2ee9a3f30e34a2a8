package stepgraph

// The checks of each step type's params, one method of paramCheck per type.

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// checkParams checks a step's params against its type: each type has its own method of paramCheck.
func checkParams(s *Step, anc map[string]map[string]bool, byID map[string]*Step) error {
	c := paramCheck{s: s, anc: anc, byID: byID}
	switch s.Type {
	case TypeCreateCard:
		return c.createCard()
	case TypeRunAgentMission:
		return c.runAgentMission()
	case TypeGenerateRoadmap:
		return c.generateRoadmap()
	case TypeNotify:
		return c.notify()
	case TypeWait:
		return c.wait()
	case TypeCondition:
		return c.condition()
	case TypeWebhook:
		return c.webhook()
	case TypeEmailDigest:
		return c.emailDigest()
	case TypeAddComment:
		return c.addComment()
	case TypeMoveCard:
		return c.moveCard()
	}
	return stepErr(s.ID, "unknown step type %q", s.Type)
}

// paramCheck checks the params of one step s of a graph: anc are each step's (transitive) needs,
// byID the steps by id.
type paramCheck struct {
	s    *Step
	anc  map[string]map[string]bool
	byID map[string]*Step
}

// need refuses a blank required field.
func (c paramCheck) need(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return stepErr(c.s.ID, "params.%s is required for type %s", field, c.s.Type)
	}
	return nil
}

// id refuses a field that is not a UUID (an empty one is fine unless required).
func (c paramCheck) id(field, v string, required bool) error {
	if v == "" && !required {
		return nil
	}
	if !IsUUID(v) {
		return stepErr(c.s.ID, "params.%s must be an id (a UUID)", field)
	}
	return nil
}

// tmpl checks a template field: its length and that it names only steps this one (transitively) needs.
func (c paramCheck) tmpl(field, v string, maxLen int, required bool) error {
	if required {
		if err := c.need(field, v); err != nil {
			return err
		}
	}
	if len([]rune(v)) > maxLen {
		return stepErr(c.s.ID, "params.%s is at most %d characters", field, maxLen)
	}
	for _, ref := range TemplateRefs(v) {
		if !c.anc[c.s.ID][ref] {
			return stepErr(c.s.ID, "params.%s names step %q, which this step does not (transitively) need", field, ref)
		}
	}
	return nil
}

// cardRef checks a card id, or a template naming an earlier step's output.
func (c paramCheck) cardRef(field, v string, required bool) error {
	if v == "" && !required {
		return nil
	}
	if len(TemplateRefs(v)) > 0 {
		return c.tmpl(field, v, 200, true)
	}
	return c.id(field, v, required)
}

func (c paramCheck) createCard() error {
	var p CreateCardParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	return firstErr(c.id("projectId", p.ProjectID, true), c.id("columnId", p.ColumnID, false),
		c.tmpl("title", p.Title, 500, true), c.tmpl("description", p.Description, 5000, false))
}

func (c paramCheck) runAgentMission() error {
	var p RunAgentMissionParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	if p.CardID == "" && strings.TrimSpace(p.Objective) == "" {
		return stepErr(c.s.ID, "params need cardId or objective")
	}
	return firstErr(c.id("agentId", p.AgentID, true), c.cardRef("cardId", p.CardID, false), c.tmpl("objective",
		p.Objective, 5000, false))
}

func (c paramCheck) generateRoadmap() error {
	var p GenerateRoadmapParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	return c.id("draftId", p.DraftID, true)
}

func (c paramCheck) notify() error {
	var p NotifyParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	return firstErr(c.id("projectId", p.ProjectID, true), c.tmpl("message", p.Message, 1000, true))
}

func (c paramCheck) wait() error {
	var p WaitParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	if _, err := ParseWait(p.Duration); err != nil {
		return stepErr(c.s.ID, "params.duration %s", err.Error())
	}
	return nil
}

// condition checks the test (the step, field, op and value) and then the branches.
func (c paramCheck) condition() error {
	var p ConditionParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	s := c.s
	if !c.anc[s.ID][p.Step] {
		return stepErr(s.ID, "params.step must name a step this condition (transitively) needs")
	}
	if !fieldPattern.MatchString(p.Field) {
		return stepErr(s.ID, "params.field must name a field of that step's output (letters, digits, _ and . for nesting)")
	}
	if !slices.Contains(ConditionOps, p.Op) {
		return stepErr(s.ID, "params.op must be one of %s", strings.Join(ConditionOps, ", "))
	}
	if err := c.conditionValue(p); err != nil {
		return err
	}
	return c.branches(p)
}

// conditionValue checks a condition's value against its op: required but by exists and not_exists,
// a number for greater_than and less_than.
func (c paramCheck) conditionValue(p ConditionParams) error {
	if p.Op != "exists" && p.Op != "not_exists" && len(bytes.TrimSpace(p.Value)) == 0 {
		return stepErr(c.s.ID, "params.value is required for op %s", p.Op)
	}
	if (p.Op == "greater_than" || p.Op == "less_than") && !json.Valid(p.Value) {
		return stepErr(c.s.ID, "params.value must be a number for op %s", p.Op)
	}
	if p.Op == "greater_than" || p.Op == "less_than" {
		var f float64
		if json.Unmarshal(p.Value, &f) != nil {
			return stepErr(c.s.ID, "params.value must be a number for op %s", p.Op)
		}
	}
	return nil
}

// branches checks a condition's branches: at least one step, each a step that needs the condition,
// and no step twice.
func (c paramCheck) branches(p ConditionParams) error {
	s := c.s
	if len(p.Then)+len(p.Else) == 0 {
		return stepErr(s.ID, "params.then or params.else must name at least one step")
	}
	seen := map[string]bool{}
	for _, b := range slices.Concat(p.Then, p.Else) {
		t, ok := c.byID[b]
		if !ok || !slices.Contains(t.Needs, s.ID) {
			return stepErr(s.ID, "branch step %q must be a step that needs %q", b, s.ID)
		}
		if seen[b] {
			return stepErr(s.ID, "step %q is in both branches or twice in one", b)
		}
		seen[b] = true
	}
	return nil
}

func (c paramCheck) emailDigest() error {
	var p EmailDigestParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	return c.tmpl("subject", p.Subject, 200, false)
}

func (c paramCheck) addComment() error {
	var p AddCommentParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	return firstErr(c.id("projectId", p.ProjectID, true), c.cardRef("cardId", p.CardID, true), c.tmpl("content", p.Content,
		2000, true))
}

func (c paramCheck) moveCard() error {
	var p MoveCardParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	return firstErr(c.id("projectId", p.ProjectID, true), c.cardRef("cardId", p.CardID, true), c.id("columnId", p.ColumnID,
		true))
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// maxWebhookBody bounds a webhook step's body.
const maxWebhookBody = 64 << 10

func (c paramCheck) webhook() error {
	var p WebhookParams
	if err := decodeParams(c.s, &p); err != nil {
		return err
	}
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return stepErr(c.s.ID, "params.url must be an http or https URL with a host and no credentials")
	}
	if len(bytes.TrimSpace(p.Body)) > 0 && !json.Valid(p.Body) {
		return stepErr(c.s.ID, "params.body must be JSON")
	}
	return firstErr(c.id("webhookId", p.WebhookID, true), c.tmpl("body", string(p.Body), maxWebhookBody, false))
}

// FillJSON fills the templates in the strings of a JSON document (keys stay as they are), so a filled
// value can never break the document.
func FillJSON(raw json.RawMessage, c Context) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(`{}`), nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return json.Marshal(fillValue(v, c))
}

func fillValue(v any, c Context) any {
	switch t := v.(type) {
	case string:
		return Fill(t, c)
	case []any:
		for i := range t {
			t[i] = fillValue(t[i], c)
		}
	case map[string]any:
		for k := range t {
			t[k] = fillValue(t[k], c)
		}
	}
	return v
}

package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pilot-dev/pilot/internal/roadmapdoc"
)

// Limits of a project draft's model output. Questions: at most MaxDraftQuestions a round and
// MaxDraftRounds rounds. A roadmap has 1 to MaxRoadmapPhases phases of 1 to MaxPhaseDeliverables
// deliverables; longer texts are cut to the lengths below (a deliverable becomes a card: its title and
// description keep within a card's limits).
const (
	MaxDraftQuestions       = 5
	MaxDraftRounds          = 4
	MaxRoadmapPhases        = 8
	MaxPhaseDeliverables    = 10
	MaxQuestionRunes        = 500
	MaxPhaseNameRunes       = 100
	MaxPhaseGoalRunes       = 1000
	MaxDeliverableRunes     = 200
	MaxDeliverableDescRunes = 2000
)

// maxRenderedDocumentRunes bounds how much of one context document a remote model is shown.
const maxRenderedDocumentRunes = 8000

// Draft task kinds.
const (
	DraftTaskQuestions = "questions"
	DraftTaskRoadmap   = "roadmap"
)

// DraftTask is one step of a project draft given to a Provider.
type DraftTask struct {
	// Kind is DraftTaskQuestions or DraftTaskRoadmap.
	Kind  string
	Draft DraftContext
}

// DraftContext is what a project draft says so far.
type DraftContext struct {
	Name        string
	Description string
	TeamMembers []DraftMember
	Documents   []DraftDocument
	// Answers are every question answered so far, oldest first.
	Answers []QA
	// Round is the refinement round being asked (1 to MaxDraftRounds).
	Round int
}

// DraftMember is a person of the draft's team.
type DraftMember struct{ Name, Role string }

// DraftDocument is a context document of the draft.
type DraftDocument struct{ Title, Content string }

// QA is an answered question.
type QA struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// The roadmap a draft step writes is the draft's own type (draft.DraftRoadmap), so the worker stores
// it as it is.
type (
	// Roadmap is a phased plan: each phase becomes a column, each deliverable a card.
	Roadmap = roadmapdoc.DraftRoadmap
	// Phase is one stage of a roadmap.
	Phase = roadmapdoc.DraftPhase
	// Deliverable is one outcome of a phase.
	Deliverable = roadmapdoc.DraftDeliverable
)

// DraftOptions observe a draft step. OnToken receives the model's streamed text; OnRetry is called
// when the first answer was unusable and the model is asked once more.
type DraftOptions struct {
	OnToken func(string)
	OnRetry func(reason error)
}

var questionsSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["questions"],
"properties":{"questions":{"type":"array","maxItems":5,"items":{"type":"string"}}}}`)

var roadmapSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["phases"],
"properties":{"phases":{"type":"array","minItems":1,"maxItems":8,"items":{"type":"object","additionalProperties":false,
"required":["name","goal","deliverables"],"properties":{"name":{"type":"string"},"goal":{"type":"string"},
"deliverables":{"type":"array","minItems":1,"maxItems":10,"items":{"type":"object","additionalProperties":false,
"required":["title","description"],"properties":{"title":{"type":"string"},"description":{"type":"string"}}}}}}}}}`)

const draftSystem = "You are Pilot's project planner. You help a team turn a project idea into a concrete, phased " +
	"plan. Ground everything in what the draft says: its name, description, team, context documents and answers. " +
	"Answer with one JSON object matching the requested schema and nothing else."

// DraftQuestions asks the model for the next round's questions about a draft: at most
// MaxDraftQuestions, none already answered (compared ignoring case and punctuation), none past
// MaxDraftRounds (then none at all, without calling the model). Unusable output is asked for once more,
// then fails with an error wrapping ErrMalformedOutput.
func DraftQuestions(ctx context.Context, p Provider, d DraftContext, opts DraftOptions) ([]string, error) {
	if d.Round > MaxDraftRounds {
		return []string{}, nil
	}
	var out []string
	err := draftTurn(ctx, p, DraftTask{Kind: DraftTaskQuestions, Draft: d}, &ResponseSchema{Name: "draft_questions",
		Schema: questionsSchema}, opts, func(content string) error {
		var v struct {
			Questions []string `json:"questions"`
		}
		if err := decodeStrict(content, &v); err != nil {
			return err
		}
		if v.Questions == nil {
			return fmt.Errorf("%w: no \"questions\" array", ErrMalformedOutput)
		}
		out = cleanQuestions(v.Questions, d.Answers)
		return nil
	})
	return out, err
}

// DraftRoadmap asks the model for a draft's phased roadmap. Unusable output (not JSON, not the schema,
// no phases, a phase without deliverables) is asked for once more, then fails with an error wrapping
// ErrMalformedOutput. Texts are trimmed and cut to the limits; phases and deliverables past the limits
// are dropped.
func DraftRoadmap(ctx context.Context, p Provider, d DraftContext, opts DraftOptions) (Roadmap, error) {
	var out Roadmap
	err := draftTurn(ctx, p, DraftTask{Kind: DraftTaskRoadmap, Draft: d}, &ResponseSchema{Name: "draft_roadmap",
		Schema: roadmapSchema}, opts, func(content string) error {
		var v Roadmap
		if err := decodeStrict(content, &v); err != nil {
			return err
		}
		r, err := cleanRoadmap(v)
		if err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

// draftTurn runs one draft step with one retry after unusable output.
func draftTurn(ctx context.Context, p Provider, task DraftTask, schema *ResponseSchema, opts DraftOptions,
	decode func(string) error) error {
	req := Request{
		Messages:       []Message{{Role: RoleSystem, Content: draftSystem}, {Role: RoleUser, Content: task.Render()}},
		Draft:          &task,
		ResponseSchema: schema,
		OnToken:        opts.OnToken,
	}
	for attempt := 1; ; attempt++ {
		resp, err := p.Chat(ctx, req)
		if err == nil {
			err = decode(resp.Content)
		}
		if err == nil || !errors.Is(err, ErrMalformedOutput) || attempt == 2 {
			return err
		}
		if opts.OnRetry != nil {
			opts.OnRetry(err)
		}
		req.Messages = append(req.Messages,
			Message{Role: RoleAssistant, Content: resp.Content},
			Message{Role: RoleUser, Content: "That answer could not be used (" + err.Error() + "). " +
				"Answer again with only one JSON object matching the schema."})
	}
}

// decodeStrict reads content as exactly one JSON object of v's shape.
func decodeStrict(content string, v any) error {
	content = strings.TrimSpace(content)
	// Some servers wrap JSON in a Markdown fence even in JSON mode.
	if rest, ok := strings.CutPrefix(content, "```"); ok {
		rest = strings.TrimPrefix(rest, "json")
		content = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(content)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: answer is not the expected JSON: %w", ErrMalformedOutput, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: answer has text after its JSON object", ErrMalformedOutput)
	}
	return nil
}

// QuestionKey compares questions ignoring case, spacing and punctuation.
func QuestionKey(q string) string {
	var b strings.Builder
	for _, f := range strings.Fields(strings.ToLower(q)) {
		f = strings.Trim(f, ".,;:!?\"'“”‘’()")
		if f == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}

// cleanQuestions trims and cuts questions, drops empty ones, ones already answered and repeats, and
// keeps at most MaxDraftQuestions.
func cleanQuestions(qs []string, answered []QA) []string {
	seen := map[string]bool{}
	for _, a := range answered {
		seen[QuestionKey(a.Question)] = true
	}
	out := []string{}
	for _, q := range qs {
		q = truncateRunes(strings.Join(strings.Fields(q), " "), MaxQuestionRunes)
		k := QuestionKey(q)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, q)
		if len(out) == MaxDraftQuestions {
			break
		}
	}
	return out
}

// cleanRoadmap trims a model's roadmap to the limits and refuses one that has no usable phase.
func cleanRoadmap(r Roadmap) (Roadmap, error) {
	out := Roadmap{Phases: []Phase{}}
	for i, ph := range r.Phases {
		if len(out.Phases) == MaxRoadmapPhases {
			break
		}
		name := truncateRunes(strings.Join(strings.Fields(ph.Name), " "), MaxPhaseNameRunes)
		if name == "" {
			return Roadmap{}, fmt.Errorf("%w: phase %d has no name", ErrMalformedOutput, i+1)
		}
		p := Phase{Name: name, Goal: truncateRunes(strings.TrimSpace(ph.Goal), MaxPhaseGoalRunes),
			Deliverables: []Deliverable{}}
		for _, d := range ph.Deliverables {
			if len(p.Deliverables) == MaxPhaseDeliverables {
				break
			}
			title := truncateRunes(strings.Join(strings.Fields(d.Title), " "), MaxDeliverableRunes)
			if title == "" {
				continue
			}
			p.Deliverables = append(p.Deliverables, Deliverable{Title: title,
				Description: truncateRunes(strings.TrimSpace(d.Description), MaxDeliverableDescRunes)})
		}
		if len(p.Deliverables) == 0 {
			return Roadmap{}, fmt.Errorf("%w: phase %q has no deliverable", ErrMalformedOutput, name)
		}
		out.Phases = append(out.Phases, p)
	}
	if len(out.Phases) == 0 {
		return Roadmap{}, fmt.Errorf("%w: the roadmap has no phase", ErrMalformedOutput)
	}
	return out, nil
}

// Render returns the task as a user message for a remote model.
func (t DraftTask) Render() string {
	d := t.Draft
	var b strings.Builder
	fmt.Fprintf(&b, "Project draft: %s\n", d.Name)
	if s := strings.TrimSpace(d.Description); s != "" {
		fmt.Fprintf(&b, "\nDescription:\n%s\n", s)
	}
	if len(d.TeamMembers) > 0 {
		b.WriteString("\nTeam:\n")
		for _, m := range d.TeamMembers {
			fmt.Fprintf(&b, "- %s (%s)\n", m.Name, m.Role)
		}
	}
	for _, doc := range d.Documents {
		fmt.Fprintf(&b, "\nContext document %q:\n%s\n", doc.Title, truncateRunes(doc.Content, maxRenderedDocumentRunes))
	}
	if len(d.Answers) > 0 {
		b.WriteString("\nQuestions answered so far:\n")
		for _, a := range d.Answers {
			fmt.Fprintf(&b, "Q: %s\nA: %s\n", a.Question, a.Answer)
		}
	}
	b.WriteString("\n")
	switch t.Kind {
	case DraftTaskQuestions:
		fmt.Fprintf(&b, "This is refinement round %d of at most %d. Ask at most %d short questions whose answers would most "+
			"improve the plan. Never ask again a question answered above. Answer as {\"questions\": [\"...\"]}; an empty list "+
			"means you know enough.", d.Round, MaxDraftRounds, MaxDraftQuestions)
	default:
		fmt.Fprintf(&b, "Write the project's roadmap: 1 to %d phases in order, each with a name, a goal and 1 to %d "+
			"deliverables {title, description}. Answer as {\"phases\": [{\"name\", \"goal\", \"deliverables\": [{\"title\", "+
			"\"description\"}]}]}.",
			MaxRoadmapPhases, MaxPhaseDeliverables)
	}
	return b.String()
}

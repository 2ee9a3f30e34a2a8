package stepgraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const pid = "01a20869-1171-7234-80af-2d2e9054a0ef"

func notify(id string, needs ...string) Step {
	return Step{ID: id, Type: TypeNotify, Params: json.RawMessage(`{"projectId":"` + pid + `","message":"hi"}`),
		Needs: needs}
}

func TestValidateNamesTheStep(t *testing.T) {
	t.Parallel()
	many := make([]Step, MaxSteps+1)
	for i := range many {
		many[i] = notify(fmt.Sprintf("s%d", i))
	}
	for name, tc := range map[string]struct {
		steps    []Step
		step     string
		contains string
	}{
		"cycle":        {[]Step{notify("a", "c"), notify("b", "a"), notify("c", "b"), notify("d")}, "", "cycle"},
		"too many":     {many, "", "at most 50 steps"},
		"bad id":       {[]Step{notify("a b")}, "a b", "an id is"},
		"twice needed": {[]Step{notify("a"), notify("b", "a", "a")}, "b", `needs "a" twice`},
		"bad condition": {[]Step{notify("a"), {ID: "if", Type: TypeCondition, Needs: []string{"a"},
			Params: json.RawMessage(`{"step":"a","field":"x","op":"greater_than","value":"big","then":[]}`)}}, "if",
			"must be a number"},
		"plugin refused": {[]Step{{ID: "m", Type: TypeEmailDigest, Params: json.RawMessage(`{}`)}}, "m", "not here"},
		"webhook url": {[]Step{{ID: "w", Type: TypeWebhook, Params: json.RawMessage(`{"url":"ftp://x","webhookId":"` +
			pid + `"}`)}}, "w", "http or https"},
		"webhook id": {[]Step{{ID: "w", Type: TypeWebhook, Params: json.RawMessage(`{"url":"https://ci.example.com"}`)}},
			"w", "webhookId"},
		"webhook body": {[]Step{{ID: "w", Type: TypeWebhook,
			Params: json.RawMessage(`{"url":"https://ci.example.com","webhookId":"` + pid + `","body":{"t":"{{steps.x.y}}"}}`)}},
			"w", "does not (transitively) need"},
	} {
		err := Validate(tc.steps, func(st string) error {
			if st == TypeEmailDigest {
				return errors.New("not here")
			}
			return nil
		})
		var e *Error
		require.ErrorAs(t, err, &e, name)
		require.Contains(t, e.Error(), tc.contains, name)
		if tc.step != "" {
			require.Equal(t, tc.step, e.Step, name)
		}
	}
	// A webhook step's body is JSON whose strings are filled, never breaking it.
	require.NoError(t, Validate([]Step{notify("a"), {ID: "w", Type: TypeWebhook, Needs: []string{"a"},
		Params: json.RawMessage(`{"url":"https://ci.example.com","webhookId":"` + pid +
			`","body":{"n":"{{steps.a.recipients}}"}}`)}}, nil))
	filled, err := FillJSON(json.RawMessage(`{"m":["{{steps.a.message}}",1]}`),
		Context{Outputs: map[string]map[string]any{"a": {"message": `say "hi"`}}})
	require.NoError(t, err)
	require.JSONEq(t, `{"m":["say \"hi\"",1]}`, string(filled))

	// A cycle is reported on a step that is on it.
	err = Validate([]Step{notify("x"), notify("a", "c"), notify("b", "a"), notify("c", "b")}, nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Contains(t, []string{"a", "b", "c"}, e.Step)

	// A diamond with templates naming ancestors is fine.
	require.NoError(t, Validate([]Step{notify("a"), notify("b", "a"), notify("c", "a"),
		{ID: "d", Type: TypeCreateCard, Needs: []string{"b", "c"}, Params: json.RawMessage(`{"projectId":"` + pid +
			`","title":"{{steps.a.recipients}} {{run.id}}"}`)}}, nil))
}

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	steps, err := Parse(json.RawMessage(`[{"id":"a","type":"wait"}]`))
	require.NoError(t, err)
	require.Equal(t, []string{}, steps[0].Needs)
	require.JSONEq(t, `{}`, string(steps[0].Params))
	_, err = Parse(json.RawMessage(`[{"id":"a","type":"wait","extra":1}]`))
	require.Error(t, err)
}

func TestFillAndEvaluate(t *testing.T) {
	t.Parallel()
	c := Context{RunID: "r1", PipelineName: "Ship", Now: time.Date(2026, 11, 23, 23, 0, 0, 0, time.UTC),
		Outputs: map[string]map[string]any{"a": {"cardId": "c1", "n": 3.0, "deep": map[string]any{"x": true}}}}
	require.Equal(t, "Ship r1 2026-11-23 c1 3 true []", Fill("{{pipeline.name}} {{ run.id }} {{date}} "+
		"{{steps.a.cardId}} {{steps.a.n}} {{steps.a.deep.x}} [{{steps.a.nope}}]", c))

	out := c.Outputs["a"]
	for _, tc := range []struct {
		p    ConditionParams
		want bool
	}{
		{ConditionParams{Field: "cardId", Op: "equals", Value: json.RawMessage(`"c1"`)}, true},
		{ConditionParams{Field: "cardId", Op: "not_equals", Value: json.RawMessage(`"c1"`)}, false},
		{ConditionParams{Field: "n", Op: "greater_than", Value: json.RawMessage(`2`)}, true},
		{ConditionParams{Field: "n", Op: "less_than", Value: json.RawMessage(`2`)}, false},
		{ConditionParams{Field: "deep.x", Op: "equals", Value: json.RawMessage(`true`)}, true},
		{ConditionParams{Field: "missing", Op: "exists"}, false},
		{ConditionParams{Field: "missing", Op: "not_exists"}, true},
	} {
		require.Equal(t, tc.want, Evaluate(tc.p, out), "%+v", tc.p)
	}
}

// TestTypeFieldsMatchParams: each step type's Fields name its params struct's JSON fields, in order, so
// a form built from them writes params the validation accepts; a required field is one the check refuses
// blank.
func TestTypeFieldsMatchParams(t *testing.T) {
	t.Parallel()
	structs := map[string]any{TypeCreateCard: CreateCardParams{}, TypeRunAgentMission: RunAgentMissionParams{},
		TypeGenerateRoadmap: GenerateRoadmapParams{}, TypeNotify: NotifyParams{}, TypeWait: WaitParams{},
		TypeWebhook: WebhookParams{}, TypeCondition: ConditionParams{}, TypeEmailDigest: EmailDigestParams{},
		TypeAddComment: AddCommentParams{}, TypeMoveCard: MoveCardParams{}}
	require.Len(t, Types, len(structs))
	for _, ti := range Types {
		st, ok := structs[ti.Type]
		require.True(t, ok, ti.Type)
		rt := reflect.TypeOf(st)
		var want, got []string
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			want = append(want, name)
		}
		for _, f := range ti.Fields {
			got = append(got, f.Name)
			require.NotEmpty(t, f.Doc, "%s.%s", ti.Type, f.Name)
			require.Equal(t, f.Kind == "choice", len(f.Options) > 0, "%s.%s", ti.Type, f.Name)
		}
		require.Equal(t, want, got, ti.Type)
		// Params without their first required field are refused naming it (condition's and
		// run_agent_mission's rules are tested above).
		if ti.Type == TypeCondition || ti.Type == TypeRunAgentMission {
			continue
		}
		for _, f := range ti.Fields {
			if f.Required {
				err := Validate([]Step{{ID: "a", Type: ti.Type, Params: json.RawMessage(`{}`)}}, nil)
				require.ErrorContains(t, err, "params."+f.Name, ti.Type)
				break
			}
		}
	}
}

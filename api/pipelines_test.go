package api

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"testing"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/jobs"
)

// pstep is a step of a test pipeline.
type pstep = map[string]any

func notifyStep(id, projectID string, needs ...string) pstep {
	return pstep{"id": id, "type": "notify", "params": map[string]any{"projectId": projectID, "message": "step " + id},
		"needs": needs}
}

// createPipeline creates a pipeline in u's personal workspace and answers it.
func (e *testEnv) createPipeline(u user, body map[string]any) PipelineOut {
	e.t.Helper()
	r := e.do("POST", wsOf(u)+"/pipelines", u.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	return decode[PipelineOut](e.t, r)
}

func TestPipelineCRUDAndRoles(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, _ := e.team()
	ws, pid := wsOf(owner), path.Base(prj)

	p := e.createPipeline(owner, map[string]any{"name": " Release ", "description": "Ship it",
		"steps": []pstep{notifyStep("a", pid), notifyStep("b", pid, "a")}})
	require.Equal(t, "Release", p.Name)
	require.True(t, p.Enabled)
	steps := decodeJSON[[]StepIn](t, p.Steps)
	require.Equal(t, []string{"a"}, steps[1].Needs)

	// Members read; only workspace admins write.
	r := e.do("GET", ws+"/pipelines", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]PipelineOut](t, r), 1)
	requireStatus(t, e.do("GET", ws+"/pipelines/"+p.ID, member.Token, nil), http.StatusOK)
	requireStatus(t, e.do("POST", ws+"/pipelines", member.Token, map[string]any{"name": "x",
		"steps": []pstep{notifyStep("a", pid)}}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", ws+"/pipelines/"+p.ID, member.Token, map[string]any{"name": "y"}), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", ws+"/pipelines/"+p.ID, member.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("POST", ws+"/pipelines/"+p.ID+"/runs", member.Token, nil), http.StatusForbidden)

	r = e.do("PATCH", ws+"/pipelines/"+p.ID, owner.Token, map[string]any{"enabled": false,
		"steps": []pstep{notifyStep("only", pid)}})
	requireStatus(t, r, http.StatusOK)
	up := decode[PipelineOut](t, r)
	require.False(t, up.Enabled)
	require.Equal(t, "Ship it", up.Description)
	require.Len(t, decodeJSON[[]StepIn](t, up.Steps), 1)
	// A PATCH is validated as a whole.
	r = e.do("PATCH", ws+"/pipelines/"+p.ID, owner.Token, map[string]any{"steps": []pstep{notifyStep("a", pid, "zz")}})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, `step "a"`)

	// Another workspace's pipeline is not found.
	other := e.register("other@example.com")
	requireStatus(t, e.do("GET", wsOf(other)+"/pipelines/"+p.ID, other.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", wsOf(other)+"/pipelines/"+p.ID, other.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", ws+"/pipelines/not-a-uuid", owner.Token, nil), http.StatusNotFound)

	requireStatus(t, e.do("DELETE", ws+"/pipelines/"+p.ID, owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", ws+"/pipelines/"+p.ID, owner.Token, nil), http.StatusNotFound)
}

func TestPipelineValidationNamesTheStep(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, _ := e.team()
	pid := path.Base(prj)
	other := e.register("other@example.com")
	otherPrj, _ := e.project(other, "Theirs")
	r := e.do("POST", wsOf(other)+"/project-drafts", other.Token, map[string]any{"name": "Their draft"})
	requireStatus(t, r, http.StatusCreated)
	otherDraft := decode[DraftOut](t, r).ID

	many := make([]pstep, 51)
	for i := range many {
		many[i] = notifyStep(fmt.Sprintf("s%d", i), pid)
	}
	for _, tc := range []struct {
		name  string
		steps []pstep
		want  string
	}{
		{"unknown type", []pstep{{"id": "x", "type": "teleport"}}, `step "x": unknown step type "teleport"`},
		{"unknown needs", []pstep{notifyStep("a", pid, "ghost")}, `step "a": needs unknown step "ghost"`},
		{"cycle", []pstep{notifyStep("a", pid, "c"), notifyStep("b", pid, "a"), notifyStep("c", pid, "b")},
			"is part of a cycle"},
		{"self need", []pstep{notifyStep("a", pid, "a")}, `step "a": needs itself`},
		{"duplicate id", []pstep{notifyStep("a", pid), notifyStep("a", pid)}, `step "a": duplicate step id`},
		{"missing param", []pstep{{"id": "mk", "type": "create_card", "params": map[string]any{"projectId": pid}}},
			`step "mk": params.title is required`},
		{"unknown param", []pstep{{"id": "n", "type": "notify", "params": map[string]any{"projectId": pid, "message": "m",
			"loud": true}}}, `step "n": params do not fit type notify`},
		{"wrong param type", []pstep{{"id": "w", "type": "wait", "params": map[string]any{"duration": 5}}},
			`step "w": params do not fit type wait`},
		{"bad duration", []pstep{{"id": "w", "type": "wait", "params": map[string]any{"duration": "forever"}}},
			`step "w": params.duration`}, {"template of a step not needed", []pstep{notifyStep("a", pid), {"id": "b",
			"type":   "notify",
			"params": map[string]any{"projectId": pid, "message": "{{steps.a.recipients}}"}}},
			`step "b": params.message names step "a"`}, {"condition branch not needing it", []pstep{notifyStep("a", pid),
			{"id": "if", "type": "condition", "needs": []string{"a"},
				"params": map[string]any{"step": "a", "field": "recipients", "op": "exists", "then": []string{"a"}}}},
			`step "if": branch step "a"`},
		{"project of another workspace", []pstep{notifyStep("a", path.Base(otherPrj))},
			`step "a": params.projectId names nothing in this workspace`},
		{"plugin not installed", []pstep{{"id": "mail", "type": "email_digest"}},
			`step "mail": type email_digest comes from plugin email-digest, which is not installed`},
		{"generate_roadmap without draft", []pstep{{"id": "rm", "type": "generate_roadmap", "params": map[string]any{}}},
			`step "rm": params.draftId must be an id`}, {"draft of another workspace", []pstep{{"id": "rm",
			"type": "generate_roadmap", "params": map[string]any{"draftId": otherDraft}}},
			`step "rm": params.draftId names nothing in this workspace`},
		{"mission without card or objective", []pstep{{"id": "m", "type": "run_agent_mission",
			"params": map[string]any{"agentId": pid}}}, `step "m": params need cardId or objective`}, {"no steps", []pstep{},
			"at least one step"}, {"more than 50 steps", many, "50"},
	} {
		r := e.do("POST", wsOf(owner)+"/pipelines", owner.Token, map[string]any{"name": "p", "steps": tc.steps})
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, decode[ErrorBody](t, r).Message, tc.want, tc.name)
	}
	for _, body := range []any{map[string]any{"name": "p"}, map[string]any{"steps": []pstep{notifyStep("a", pid)}},
		map[string]any{"name": "p", "steps": "nope"}, map[string]any{"name": "  ", "steps": []pstep{notifyStep("a", pid)}}} {
		requireStatus(t, e.do("POST", wsOf(owner)+"/pipelines", owner.Token, body), http.StatusBadRequest)
	}
	require.Zero(t, e.count(`SELECT count(*) FROM pipelines`))
}

func TestPipelineRunsThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, _ := e.team()
	ws, pid := wsOf(owner), path.Base(prj)
	p := e.createPipeline(owner, map[string]any{"name": "Diamond", "steps": []pstep{notifyStep("a", pid), notifyStep("b",
		pid, "a"), notifyStep("c", pid, "a"), notifyStep("d", pid, "b", "c")}, "enabled": false})
	runs := ws + "/pipelines/" + p.ID + "/runs"

	requireStatus(t, e.do("POST", runs, owner.Token, nil), http.StatusConflict)
	requireStatus(t, e.do("PATCH", ws+"/pipelines/"+p.ID, owner.Token, map[string]any{"enabled": true}), http.StatusOK)

	r := e.do("POST", runs, owner.Token, nil)
	requireStatus(t, r, http.StatusCreated)
	run := decode[RunOut](t, r)
	require.EqualValues(t, "running", run.Status)
	got := map[string]string{}
	for _, st := range run.Steps {
		got[st.ID] = st.Status
	}
	require.Equal(t, map[string]string{"a": "queued", "b": "pending", "c": "pending", "d": "pending"}, got)
	// The first step's job was inserted with the run.
	job := rivertest.RequireInserted(context.Background(), t, riverpgxv5.New(e.pool), &jobs.PipelineStepArgs{}, nil)
	require.Equal(t, jobs.PipelineStepArgs{RunID: run.ID, StepID: "a"}, *job.Args)

	r = e.do("GET", runs, member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]RunOut](t, r), 1)
	r = e.do("GET", runs+"/"+run.ID, member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, run.ID, decode[RunOut](t, r).ID)

	requireStatus(t, e.do("POST", runs+"/"+run.ID+"/cancel", member.Token, nil), http.StatusForbidden)
	r = e.do("POST", runs+"/"+run.ID+"/cancel", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	cancelled := decode[RunOut](t, r)
	require.EqualValues(t, "cancelled", cancelled.Status)
	require.NotNil(t, cancelled.CancelledAt)
	for _, st := range cancelled.Steps {
		require.EqualValues(t, "cancelled", st.Status)
	}
	requireStatus(t, e.do("POST", runs+"/"+run.ID+"/cancel", owner.Token, nil), http.StatusConflict)

	// Ids of another workspace, or a run under another pipeline, are not found.
	other := e.register("other@example.com")
	requireStatus(t, e.do("GET", wsOf(other)+"/pipelines/"+p.ID+"/runs/"+run.ID, other.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", wsOf(other)+"/pipelines/"+p.ID+"/runs", other.Token, nil), http.StatusNotFound)
	p2 := e.createPipeline(owner, map[string]any{"name": "Other", "steps": []pstep{notifyStep("a", pid)}})
	requireStatus(t, e.do("GET", ws+"/pipelines/"+p2.ID+"/runs/"+run.ID, owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", ws+"/pipelines/"+p2.ID+"/runs/"+run.ID+"/cancel", owner.Token, nil), http.StatusNotFound)

	r = e.do("GET", ws+"/pipelines/step-types", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	types := map[string]bool{}
	for _, ty := range decode[[]stepTypeOut](t, r) {
		types[ty.Type] = true
		if ty.Type == "create_card" {
			// The params one by one, for a form: the project first, required.
			require.Len(t, ty.Fields, 4)
			require.Equal(t, stepFieldOut{Name: "projectId", Kind: "project", Required: true,
				Doc: "The project the card is created in"}, ty.Fields[0])
			require.Equal(t, 500, ty.Fields[2].MaxLength)
			require.True(t, ty.Fields[2].Template)
		}
	}
	require.True(t, types["create_card"] && types["wait"] && types["condition"] && types["generate_roadmap"])
	require.False(t, types["email_digest"], "a plugin's step type needs the plugin")
}

// stepTypeOut is an entry of pipelines-step-types.
type stepTypeOut struct {
	Type        string         `json:"type"`
	Description string         `json:"description"`
	Params      string         `json:"params"`
	Fields      []stepFieldOut `json:"fields"`
	Plugin      string         `json:"plugin,omitempty"`
}

// stepFieldOut is a field of a step type.
type stepFieldOut struct {
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Required  bool     `json:"required"`
	Template  bool     `json:"template"`
	MaxLength int      `json:"maxLength,omitempty"`
	Options   []string `json:"options,omitempty"`
	Doc       string   `json:"doc"`
}

func TestPipelineOddInputsAre400(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, _, prj, _ := e.team()
	pid := path.Base(prj)
	long := make([]byte, 70)
	for i := range long {
		long[i] = 'x'
	}
	for _, st := range []pstep{
		{"id": "a", "type": "notify", "params": []int{1}},
		{"id": "a", "type": "notify", "params": 5},
		{"id": "a", "type": "notify", "params": "text"},
		{"id": string(long), "type": "notify", "params": map[string]any{"projectId": pid, "message": "m"}},
		{"id": "é", "type": "notify", "params": map[string]any{"projectId": pid, "message": "m"}},
		{"id": "", "type": "notify"},
		{"id": "a", "type": ""},
		{"id": "a", "type": "notify", "params": map[string]any{"projectId": "not-a-uuid", "message": "m"}},
		{"id": "a", "type": "notify", "params": map[string]any{"projectId": pid, "message": "nul \u0000 char"}},
		{"id": "a", "type": "wait", "params": map[string]any{"duration": "0s"}},
		{"id": "a", "type": "wait", "params": map[string]any{"duration": "9999h"}},
		{"id": "a", "type": "create_card", "params": map[string]any{"projectId": pid, "columnId": pid, "title": "t"}},
		{"id": "a", "type": "run_agent_mission", "params": map[string]any{"agentId": pid, "objective": "x"}},
		{"id": "a", "type": "condition", "params": map[string]any{"step": "a", "field": "x", "op": "equals"}},
		{"id": "a", "type": "notify", "needs": []int{1}},
	} {
		r := e.do("POST", wsOf(owner)+"/pipelines", owner.Token, map[string]any{"name": "odd", "steps": []pstep{st}})
		requireStatus(t, r, http.StatusBadRequest)
	}
	requireStatus(t, e.do("POST", wsOf(owner)+"/pipelines", owner.Token, `{"name":"x","steps":[{"id":"a"`),
		http.StatusBadRequest)
}

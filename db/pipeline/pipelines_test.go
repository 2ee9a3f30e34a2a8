package pipeline_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/db/pipeline"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// A pipeline is stored as validated; a graph that breaks a rule, or names a project, column, agent or
// draft outside the workspace, or a plugin's step type without the plugin, is refused as invalid with
// the step's name, and nothing is stored.
func TestCreatePipelineValidates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pid := e.team.Project.ID
	stranger := testfactory.User(t, e.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("other@example.com")})
	theirPrj := testfactory.NewProject(t, e.Engines, stranger, nil)
	theirAgent := testfactory.Agent(t, e.Engines, stranger, nil)
	theirDraft, err := e.Drafts.Create(ctx, draft.NewDraft{WorkspaceID: stranger.Workspace.ID, ActorID: stranger.User.ID,
		Name: "Theirs"})
	require.NoError(t, err)

	for name, tc := range map[string]struct {
		steps []step
		want  string
	}{
		"unknown needs":   {[]step{notify("a", pid, "ghost")}, `step "a": needs unknown step "ghost"`},
		"cycle":           {[]step{notify("a", pid, "b"), notify("b", pid, "a")}, "cycle"},
		"no steps":        {[]step{}, "at least one step"},
		"foreign project": {[]step{notify("a", theirPrj.ID)}, `step "a": params.projectId names nothing in this workspace`},
		"unknown project": {[]step{notify("a", db.NewID())}, `step "a": params.projectId names nothing in this workspace`},
		"foreign column": {[]step{{ID: "c", Type: "create_card", Params: map[string]any{"projectId": pid,
			"columnId": theirPrj.Columns[0], "title": "t"}}}, `step "c": params.columnId`},
		"foreign agent": {[]step{{ID: "m", Type: "run_agent_mission", Params: map[string]any{"agentId": theirAgent.ID,
			"objective": "o"}}}, `step "m": params.agentId`},
		"foreign draft": {[]step{{ID: "r", Type: "generate_roadmap", Params: map[string]any{"draftId": theirDraft.ID}}},
			`step "r": params.draftId`},
		"plugin step types": {[]step{{ID: "mail", Type: "email_digest"}},
			`step "mail": type email_digest comes from plugin email-digest, which is not installed`},
	} {
		_, err := e.engine.CreatePipeline(ctx, e.ws(), e.owner(), pipeline.NewPipeline{Name: "p", Steps: jsonOf(t, tc.steps),
			Enabled: true})
		require.ErrorIs(t, err, db.ErrInvalid, name)
		require.ErrorContains(t, err, tc.want, name)
	}
	_, err = e.engine.CreatePipeline(ctx, e.ws(), e.owner(), pipeline.NewPipeline{Name: "p",
		Steps: json.RawMessage(`{"not":"a list"}`)})
	require.ErrorIs(t, err, db.ErrInvalid)
	require.Zero(t, e.Count(t, `SELECT count(*) FROM pipelines`))

	p, err := e.engine.CreatePipeline(ctx, e.ws(), e.owner(), pipeline.NewPipeline{Name: "Release", Description: "Ship it",
		Steps: jsonOf(t, []step{notify("a", pid), notify("b", pid, "a")}), Enabled: true})
	require.NoError(t, err)
	require.Equal(t, "Release", p.Name)
	require.Equal(t, e.owner(), p.CreatedBy)
	var stored []step
	require.NoError(t, json.Unmarshal(p.Steps, &stored))
	require.Equal(t, []string{"a"}, stored[1].Needs)
	list, err := e.engine.Pipelines(ctx, e.ws())
	require.NoError(t, err)
	require.Len(t, list, 1)
	list, err = e.engine.Pipelines(ctx, stranger.Workspace.ID)
	require.NoError(t, err)
	require.Empty(t, list)
}

// An update is validated as a whole, after merging; a refused one changes nothing; another
// workspace's pipeline is not found for reading, updating and deleting; a delete takes its runs along.
func TestUpdateAndDeletePipeline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	pid := e.team.Project.ID
	p := e.pipeline(t, notify("a", pid), notify("b", pid, "a"))
	other := e.team.Member.Workspace.ID

	up, err := e.engine.UpdatePipeline(ctx, e.ws(), p.ID, func(n pipeline.NewPipeline) pipeline.NewPipeline {
		n.Enabled = false
		n.Steps = jsonOf(t, []step{notify("only", pid)})
		return n
	})
	require.NoError(t, err)
	require.False(t, up.Enabled)
	require.Equal(t, "Release", up.Name, "what the change leaves is kept")

	_, err = e.engine.UpdatePipeline(ctx, e.ws(), p.ID, func(n pipeline.NewPipeline) pipeline.NewPipeline {
		n.Name = "Broken"
		n.Steps = jsonOf(t, []step{notify("a", pid, "zz")})
		return n
	})
	require.ErrorIs(t, err, db.ErrInvalid)
	require.ErrorContains(t, err, `step "a"`)
	got, err := e.engine.Pipeline(ctx, e.ws(), p.ID)
	require.NoError(t, err)
	require.Equal(t, "Release", got.Name)
	require.JSONEq(t, string(up.Steps), string(got.Steps))

	_, err = e.engine.Pipeline(ctx, other, p.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.Pipeline(ctx, e.ws(), "not-a-uuid")
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = e.engine.UpdatePipeline(ctx, other, p.ID,
		func(n pipeline.NewPipeline) pipeline.NewPipeline { n.Name = "Stolen"; return n })
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorIs(t, e.engine.DeletePipeline(ctx, other, p.ID), db.ErrNotFound)

	_, err = e.engine.UpdatePipeline(ctx, e.ws(), p.ID,
		func(n pipeline.NewPipeline) pipeline.NewPipeline { n.Enabled = true; return n })
	require.NoError(t, err)
	e.start(t, p)
	require.NoError(t, e.engine.DeletePipeline(ctx, e.ws(), p.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM pipeline_runs`))
	require.ErrorIs(t, e.engine.DeletePipeline(ctx, e.ws(), p.ID), db.ErrNotFound)
}

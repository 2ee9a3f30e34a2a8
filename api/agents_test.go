package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// wsOf is the path of u's personal workspace.
func wsOf(u user) string { return "/orgs/" + u.OrgSlug + "/workspaces/" + u.WsSlug }

// agent creates an agent in u's personal workspace; body fields override the defaults.
func (e *testEnv) agent(u user, slug string, body map[string]any) AgentOut {
	e.t.Helper()
	b := map[string]any{"name": "Agent " + slug, "slug": slug}
	for k, v := range body {
		b[k] = v
	}
	r := e.do("POST", wsOf(u)+"/agents", u.Token, b)
	requireStatus(e.t, r, http.StatusCreated)
	return decode[AgentOut](e.t, r)
}

func TestAgentCRUDAndServiceUser(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, _, _ := e.team()
	ws := wsOf(owner)

	a := e.agent(owner, "planner", map[string]any{"description": "Plans cards"})
	require.Equal(t, "planner", a.Slug)
	require.Equal(t, "supervised", a.AutonomyMode)
	require.Equal(t, []string{"update_card", "add_checklist_items", "add_comment", "move_card", "create_card",
		"propose_pilotage_action", "ask_user"}, a.Tools)
	require.Equal(t, false, a.McpOnly)
	require.Equal(t, AgentLimits{MaxSteps: 10, MaxActionsPerMission: 20, MaxMissionsPerHour: 30}, a.Limits)
	userID := a.UserID

	// The service user: is_service, cannot log in, a workspace member (member, viewer).
	var email string
	var isService bool
	require.NoError(t, e.pool.QueryRow(t.Context(), `SELECT email, is_service FROM users WHERE id = $1`,
		userID).Scan(&email, &isService))
	require.True(t, isService)
	require.True(t, strings.HasPrefix(email, "agent-planner-") && strings.HasSuffix(email, "@agents.pilot.invalid"), email)
	require.Equal(t, 1,
		e.count(`SELECT count(*) FROM workspace_members WHERE user_id = $1 AND role = 'member' AND pilotage_role = 'viewer'`,
			userID))
	requireStatus(t, e.do("POST", "/auth/login", "", map[string]any{"email": email,
		"password": "!service-account-no-login"}), http.StatusUnauthorized)

	// Members read; only admins write.
	r := e.do("GET", ws+"/agents", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]AgentOut](t, r), 1)
	r = e.do("GET", ws+"/agents/"+a.ID, member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, userID, decode[AgentOut](t, r).UserID)
	requireStatus(t, e.do("POST", ws+"/agents", member.Token, map[string]any{"name": "x", "slug": "xx"}),
		http.StatusForbidden)
	requireStatus(t, e.do("PATCH", ws+"/agents/"+a.ID, member.Token, map[string]any{"name": "y"}), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", ws+"/agents/"+a.ID, member.Token, nil), http.StatusForbidden)

	// Patch: partial limits, tools, autonomy.
	r = e.do("PATCH", ws+"/agents/"+a.ID, owner.Token, map[string]any{"autonomyMode": "autonomous",
		"tools": []string{"add_comment", "add_comment"}, "limits": map[string]any{"maxSteps": 3}})
	requireStatus(t, r, http.StatusOK)
	p := decode[AgentOut](t, r)
	require.Equal(t, "autonomous", p.AutonomyMode)
	require.Equal(t, []string{"add_comment"}, p.Tools)
	require.Equal(t, AgentLimits{MaxSteps: 3, MaxActionsPerMission: 20, MaxMissionsPerHour: 30}, p.Limits)
	require.Equal(t, "Plans cards", p.Description)

	// Slug unique per workspace, on create and on rename.
	requireStatus(t, e.do("POST", ws+"/agents", owner.Token, map[string]any{"name": "Again", "slug": "planner"}),
		http.StatusConflict)
	other := e.agent(owner, "writer", nil)
	requireStatus(t, e.do("PATCH", ws+"/agents/"+other.ID, owner.Token, map[string]any{"slug": "planner"}),
		http.StatusConflict)
	// Another workspace may reuse it.
	e.agent(member, "planner", nil)

	// Delete: gone, and its user leaves the workspace.
	requireStatus(t, e.do("DELETE", ws+"/agents/"+a.ID, owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", ws+"/agents/"+a.ID, owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", ws+"/agents/"+a.ID, owner.Token, nil), http.StatusNotFound)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM workspace_members WHERE user_id = $1`, userID))

	// Another workspace's agent is not found.
	theirs := decode[[]AgentOut](t, e.do("GET", wsOf(member)+"/agents", member.Token, nil))[0].ID
	requireStatus(t, e.do("GET", ws+"/agents/"+theirs, owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", ws+"/agents/not-a-uuid", owner.Token, nil), http.StatusNotFound)
}

// The tool catalog: every tool an agent may be given, in order, each with what it does; members read it.
func TestAgentToolCatalog(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, _, _ := e.team()
	r := e.do("GET", wsOf(owner)+"/agent-tools", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	tools := decode[[]ToolCatalogOut](t, r)
	names := []string{}
	for _, tool := range tools {
		names = append(names, tool.Name)
		require.NotEmpty(t, tool.Description, tool.Name)
	}
	require.Equal(t, []string{"update_card", "add_checklist_items", "add_comment", "move_card", "create_card",
		"propose_pilotage_action", "ask_user"}, names)
	outsider := e.register("outsider@example.com")
	r = e.do("GET", wsOf(owner)+"/agent-tools", outsider.Token, nil)
	require.Contains(t, []int{http.StatusForbidden, http.StatusNotFound}, r.Code)
}

func TestAgentValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.register("owner@example.com")
	ws := wsOf(owner)
	long := func(n int) string { return strings.Repeat("a", n) }
	bad := []map[string]any{
		{"slug": "ok-slug"},                    // name missing
		{"name": "", "slug": "ok-slug"},        // name empty
		{"name": "  ", "slug": "ok-slug"},      // name blank
		{"name": long(101), "slug": "ok-slug"}, // name too long
		{"name": "n"},                          // slug missing
		{"name": "n", "slug": "a"},             // slug too short
		{"name": "n", "slug": long(61)},        // slug too long
		{"name": "n", "slug": "Upper"},         // slug not lowercase
		{"name": "n", "slug": "a_b"},           // slug with underscore
		{"name": "n", "slug": "-ab"},           // slug starting with a hyphen
		{"name": "n", "slug": "ok-slug", "description": long(2001)},
		{"name": "n", "slug": "ok-slug", "autonomyMode": "reckless"},
		{"name": "n", "slug": "ok-slug", "tools": []string{"delete_everything"}},
		{"name": "n", "slug": "ok-slug", "tools": "add_comment"},
		{"name": "n", "slug": "ok-slug", "mcpOnly": "yes"},
		{"name": "n", "slug": "ok-slug", "limits": map[string]any{"maxSteps": 0}},
		{"name": "n", "slug": "ok-slug", "limits": map[string]any{"maxSteps": 51}},
		{"name": "n", "slug": "ok-slug", "limits": map[string]any{"maxActionsPerMission": 0}},
		{"name": "n", "slug": "ok-slug", "limits": map[string]any{"maxActionsPerMission": 201}},
		{"name": "n", "slug": "ok-slug", "limits": map[string]any{"maxMissionsPerHour": 0}},
		{"name": "n", "slug": "ok-slug", "limits": map[string]any{"maxMissionsPerHour": 1001}},
	}
	for _, b := range bad {
		requireStatus(t, e.do("POST", ws+"/agents", owner.Token, b), http.StatusBadRequest)
	}
	require.Equal(t, 0, e.count(`SELECT count(*) FROM agents`))
	require.Equal(t, 0, e.count(`SELECT count(*) FROM users WHERE is_service`))

	// The extremes pass.
	a := e.agent(owner, long(60), map[string]any{"name": long(100), "description": long(2000), "autonomyMode": "approval",
		"tools": []string{}, "mcpOnly": true, "limits": map[string]any{"maxSteps": 50, "maxActionsPerMission": 200,
			"maxMissionsPerHour": 1000}})
	require.Equal(t, []string{}, a.Tools)
	require.Equal(t, true, a.McpOnly)
	e.agent(owner, "ab", map[string]any{"limits": map[string]any{"maxSteps": 1, "maxActionsPerMission": 1,
		"maxMissionsPerHour": 1}})

	id := a.ID
	for _, b := range []map[string]any{{"name": ""}, {"slug": "NO"}, {"tools": []string{"nope"}},
		{"limits": map[string]any{"maxSteps": 99}}, {"autonomyMode": "x"}} {
		requireStatus(t, e.do("PATCH", ws+"/agents/"+id, owner.Token, b), http.StatusBadRequest)
	}
}

func TestSkills(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, _, _ := e.team()
	ws := wsOf(owner)
	r := e.do("POST", ws+"/skills", owner.Token, map[string]any{"name": "Triage", "description": "d",
		"instructions": "Be brief."})
	requireStatus(t, r, http.StatusCreated)
	sk := decode[SkillOut](t, r)
	require.Equal(t, "Be brief.", sk.Instructions)
	requireStatus(t, e.do("POST", ws+"/skills", owner.Token, map[string]any{"name": "Triage"}), http.StatusConflict)
	requireStatus(t, e.do("POST", ws+"/skills", owner.Token, map[string]any{"name": ""}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", ws+"/skills", owner.Token, map[string]any{"name": strings.Repeat("n", 101)}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", ws+"/skills", owner.Token, map[string]any{"name": "big",
		"instructions": strings.Repeat("i", 20001)}), http.StatusBadRequest)
	requireStatus(t, e.do("POST", ws+"/skills", member.Token, map[string]any{"name": "mine"}), http.StatusForbidden)
	r = e.do("GET", ws+"/skills", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]SkillOut](t, r), 1)

	a := e.agent(owner, "helper", nil)
	path := ws + "/agents/" + a.ID + "/skills/" + sk.ID
	requireStatus(t, e.do("POST", path, owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("POST", path, owner.Token, nil), http.StatusOK)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM agent_skills`))
	requireStatus(t, e.do("POST", path, member.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("POST", ws+"/agents/"+a.ID+"/skills/"+a.ID, owner.Token, nil), http.StatusNotFound)
}

// An agent is created enabled with the server's default model; admins turn it off and name its model; a
// disabled agent is still listed and read, and its new missions are refused with 409 in the error shape (the
// card-mission default agent too), until it is enabled again. A model with spaces or longer than 100 is 400.
func TestAgentEnabledAndModel(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	ws := wsOf(owner)
	a := e.agent(owner, "planner", nil)
	require.True(t, a.Enabled)
	require.Empty(t, a.Model)
	named := e.agent(owner, "named", map[string]any{"model": "gpt-4o", "enabled": false})
	require.False(t, named.Enabled)
	require.Equal(t, "gpt-4o", named.Model)

	requireStatus(t, e.do("PATCH", ws+"/agents/"+a.ID, member.Token, map[string]any{"enabled": false}),
		http.StatusForbidden)
	r := e.do("PATCH", ws+"/agents/"+a.ID, owner.Token, map[string]any{"enabled": false, "model": "llama3.1:8b"})
	requireStatus(t, r, http.StatusOK)
	off := decode[AgentOut](t, r)
	require.False(t, off.Enabled)
	require.Equal(t, "llama3.1:8b", off.Model)
	r = e.do("GET", ws+"/agents", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]AgentOut](t, r), 2, "disabled agents are listed")

	card := e.missionCard(owner, prj, cols[0])
	r = e.do("POST", ws+"/agents/"+a.ID+"/missions", member.Token, map[string]any{"cardId": card.ID, "prompt": "Plan"})
	requireErrorShape(t, r, http.StatusConflict)
	require.Contains(t, string(r.Body), "disabled")
	r = e.do("POST", ws+"/agent-runtime/card-mission", member.Token, map[string]any{"cardId": card.ID,
		"projectId": card.ProjectID})
	requireErrorShape(t, r, http.StatusConflict)
	require.Equal(t, 0, e.count(`SELECT count(*) FROM agent_missions`))

	for _, bad := range []string{"two words", strings.Repeat("m", 101)} {
		requireErrorShape(t, e.do("PATCH", ws+"/agents/"+a.ID, owner.Token, map[string]any{"model": bad}),
			http.StatusBadRequest)
		requireErrorShape(t, e.do("POST", ws+"/agents", owner.Token, map[string]any{"name": "X", "slug": "x-agent",
			"model": bad}), http.StatusBadRequest)
	}

	r = e.do("PATCH", ws+"/agents/"+a.ID, owner.Token, map[string]any{"enabled": true, "description": "on"})
	requireStatus(t, r, http.StatusOK)
	on := decode[AgentOut](t, r)
	require.True(t, on.Enabled)
	require.Equal(t, "llama3.1:8b", on.Model, "a patch without the model keeps it")
	e.startMission(owner, a.ID, card.ID)
	r = e.do("PATCH", ws+"/agents/"+a.ID, owner.Token, map[string]any{"model": ""})
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[AgentOut](t, r).Model, "an empty model goes back to the server's default")
}

// The runtime's model says whether an OpenAI-compatible server is configured and its default model.
func TestAgentLanguageModel(t *testing.T) {
	t.Parallel()
	for _, want := range []LanguageModelOut{{}, {Server: true, DefaultModel: "llama3.1:8b"}} {
		e := setupWith(t, setupOpts{options: func(o *Options) { o.LanguageModel = want.DefaultModel }})
		owner := e.register("lm@example.com")
		r := e.do("GET", wsOf(owner)+"/agent-runtime/model", owner.Token, nil)
		requireStatus(t, r, http.StatusOK)
		require.Equal(t, want, decode[LanguageModelOut](t, r))
	}
}

// Admins assign and unassign a workspace's skills; the agent's skills list follows; unassigning a skill the
// agent lacks is 404; members read but do not change them.
func TestAgentSkillsAssignAndUnassign(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, _, _ := e.team()
	ws := wsOf(owner)
	a := e.agent(owner, "planner", nil)
	r := e.do("POST", ws+"/skills", owner.Token, map[string]any{"name": "Triage", "instructions": "Sort the cards"})
	requireStatus(t, r, http.StatusCreated)
	sk := decode[SkillOut](t, r)
	skills := func() []SkillOut {
		r := e.do("GET", ws+"/agents/"+a.ID+"/skills", member.Token, nil)
		requireStatus(t, r, http.StatusOK)
		return decode[[]SkillOut](t, r)
	}
	require.Empty(t, skills())
	path := ws + "/agents/" + a.ID + "/skills/" + sk.ID
	requireStatus(t, e.do("POST", path, member.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("POST", path, owner.Token, nil), http.StatusOK)
	require.Equal(t, []SkillOut{sk}, skills())
	requireStatus(t, e.do("DELETE", path, member.Token, nil), http.StatusForbidden)
	r = e.do("DELETE", path, owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, a.ID, decode[AgentOut](t, r).ID)
	require.Empty(t, skills())
	requireErrorShape(t, e.do("DELETE", path, owner.Token, nil), http.StatusNotFound)
	requireErrorShape(t, e.do("GET", ws+"/agents/"+sk.ID+"/skills", owner.Token, nil), http.StatusNotFound)
}

package api

import (
	"net/http"
	"path"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/plugin"
)

func TestPluginCatalogIsPublic(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do("GET", "/plugins", "", nil)
	requireStatus(t, r, http.StatusOK)
	cat := decode[[]plugin.Plugin](t, r)
	require.GreaterOrEqual(t, len(cat), 3)
	byID := map[string]plugin.Plugin{}
	for _, p := range cat {
		require.NotEmpty(t, p.Name)
		require.NotEmpty(t, p.Description)
		require.NotEmpty(t, p.Version)
		require.Equal(t, "object", p.Settings.Type)
		byID[p.ID] = p
	}
	require.Equal(t, []string{"email_digest"}, byID["email-digest"].Capabilities.StepTypes)
	require.Equal(t, []string{"subjectPrefix"}, byID["email-digest"].Settings.Required)
	require.Equal(t, []string{"add_comment", "move_card"}, byID["card-actions"].Capabilities.StepTypes)
	require.Contains(t, byID["card-templates"].Capabilities.ProjectTemplates, "bug-triage")
}

func TestPluginInstallation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, _ := e.team()
	ws, pid := wsOf(owner), path.Base(prj)
	digest := map[string]any{"name": "Digest", "steps": []pstep{{"id": "mail", "type": "email_digest"}}}

	// Only workspace admins change installations; members read them.
	requireStatus(t, e.do("POST", ws+"/plugins/email-digest/install", member.Token,
		map[string]any{"settings": map[string]any{"subjectPrefix": "[x]"}}), http.StatusForbidden)
	requireStatus(t, e.do("GET", ws+"/plugins", member.Token, nil), http.StatusOK)
	requireStatus(t, e.do("POST", ws+"/plugins/no-such-plugin/install", owner.Token, nil), http.StatusNotFound)

	// Settings are validated against the schema, naming the setting.
	for body, want := range map[string]map[string]any{
		"settings.subjectPrefix is required":    {"settings": map[string]any{}},
		"settings.maxItems: must be at most 50": {"settings": map[string]any{"subjectPrefix": "[P]", "maxItems": 500}},
		"settings.maxItems: must be an integer": {"settings": map[string]any{"subjectPrefix": "[P]", "maxItems": "ten"}},
		"settings.colour: unknown setting":      {"settings": map[string]any{"subjectPrefix": "[P]", "colour": "red"}},
		"settings must be a JSON object":        {"settings": []int{1}},
	} {
		r := e.do("POST", ws+"/plugins/email-digest/install", owner.Token, want)
		requireStatus(t, r, http.StatusBadRequest)
		require.Contains(t, decode[ErrorBody](t, r).Message, body)
	}
	// Before installation, the plugin's step type is refused.
	requireStatus(t, e.do("POST", ws+"/pipelines", owner.Token, digest), http.StatusBadRequest)

	r := e.do("POST", ws+"/plugins/email-digest/install", owner.Token,
		map[string]any{"settings": map[string]any{"subjectPrefix": "[Pilot]"}})
	requireStatus(t, r, http.StatusCreated)
	in := decode[InstalledPluginOut](t, r)
	require.Equal(t, "email-digest", in.PluginID)
	require.JSONEq(t, `{"subjectPrefix": "[Pilot]", "maxItems": 10, "skipEmpty": true}`, string(in.Settings))
	requireStatus(t, e.do("POST", ws+"/plugins/email-digest/install", owner.Token,
		map[string]any{"settings": map[string]any{"subjectPrefix": "x"}}), http.StatusConflict)

	r = e.do("PATCH", ws+"/plugins/email-digest", owner.Token,
		map[string]any{"settings": map[string]any{"subjectPrefix": "[Weekly]", "maxItems": 5}})
	requireStatus(t, r, http.StatusOK)
	require.JSONEq(t, `{"subjectPrefix": "[Weekly]", "maxItems": 5, "skipEmpty": true}`,
		string(decode[InstalledPluginOut](t, r).Settings))
	requireStatus(t, e.do("PATCH", ws+"/plugins/email-digest", member.Token,
		map[string]any{"settings": map[string]any{"subjectPrefix": "x"}}), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", ws+"/plugins/card-actions", owner.Token, map[string]any{"settings": map[string]any{}}),
		http.StatusNotFound)

	// Installed, the step type is accepted and listed.
	p := e.createPipeline(owner, digest)
	r = e.do("GET", ws+"/pipelines/step-types", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Contains(t, stepTypes(t, r), "email_digest")

	// The template pack adds project templates while installed.
	requireStatus(t, e.do("POST", ws+"/projects", owner.Token, map[string]any{"name": "Bugs", "templateId": "bug-triage"}),
		http.StatusBadRequest)
	requireStatus(t, e.do("POST", ws+"/plugins/card-templates/install", owner.Token, nil), http.StatusCreated)
	r = e.do("GET", ws+"/projects/templates", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Contains(t, templateIDs(t, r), "bug-triage")
	r = e.do("POST", ws+"/projects", owner.Token, map[string]any{"name": "Bugs", "templateId": "bug-triage"})
	requireStatus(t, r, http.StatusCreated)
	cols := e.do("GET", ws+"/projects/"+decode[ProjectOut](t, r).ID+"/columns", owner.Token, nil)
	require.Equal(t, "Reported", decode[[]ColumnOut](t, cols)[0].Name)

	r = e.do("GET", ws+"/plugins", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]InstalledPluginOut](t, r), 2)

	// Uninstalled, the capabilities disappear from the workspace.
	requireStatus(t, e.do("DELETE", ws+"/plugins/email-digest", member.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", ws+"/plugins/email-digest", owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", ws+"/plugins/email-digest", owner.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", ws+"/plugins/card-templates", owner.Token, nil), http.StatusOK)
	r = e.do("POST", ws+"/pipelines", owner.Token, digest)
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message,
		`step "mail": type email_digest comes from plugin email-digest, which is not installed`)
	r = e.do("POST", ws+"/pipelines/"+p.ID+"/runs", owner.Token, nil)
	requireStatus(t, r, http.StatusBadRequest) // an existing pipeline using it cannot start
	r = e.do("GET", ws+"/pipelines/step-types", owner.Token, nil)
	require.NotContains(t, stepTypes(t, r), "email_digest")
	r = e.do("GET", ws+"/projects/templates", owner.Token, nil)
	require.NotContains(t, templateIDs(t, r), "bug-triage")
	requireStatus(t, e.do("POST", ws+"/projects", owner.Token, map[string]any{"name": "Bugs 2",
		"templateId": "bug-triage"}), http.StatusBadRequest)

	// Another workspace never had it.
	other := e.register("other@example.com")
	r = e.do("GET", wsOf(other)+"/plugins", other.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[[]InstalledPluginOut](t, r))
	_ = pid
}

func stepTypes(t *testing.T, r *resp) []string {
	t.Helper()
	var out []string
	for _, ty := range decode[[]stepTypeOut](t, r) {
		out = append(out, ty.Type)
	}
	return out
}

func templateIDs(t *testing.T, r *resp) []string {
	t.Helper()
	var out []string
	for _, tp := range decodeJSON[[]board.Template](t, r.Body) {
		out = append(out, tp.ID)
	}
	return out
}

package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/tenancy"
)

// pipelineJSON is a pipeline as the API answers it, the fields the tests read.
type pipelineJSON struct {
	ID, Name string
	Steps    []struct {
		ID, Type string
		Needs    []string
		Params   map[string]any
	}
}

// runJSON is a run as the API answers it, the fields the tests read.
type runJSON struct {
	ID, Status string
	Steps      []struct {
		ID, Status string
		Output     map[string]any
	}
}

// runStatus is the run page's status, as the API names it.
const runStatus = `document.querySelector("[role=status][data-status]")?.dataset.status`

// TestBrowserPipelineBuiltAndRun: a pipeline built in the app, its second step waiting for its first (a
// wait, then a card created); a duration the API refuses is shown in the step it names and nothing is
// created; once fixed, the pipeline is created as built, run, and watched live to its end (the page sees
// the run running, then each step completed); the card it made exists; the run is in the history; a
// second run (waiting an hour) is stopped after confirming; the pipeline is deleted after confirming. A
// member of the workspace sees the pipeline's steps and runs but no control.
func TestBrowserPipelineBuiltAndRun(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("pia@example.com")
	var prj struct{ ID string }
	s.call("POST", a.ws()+"/projects", a.Token, map[string]string{"name": "Ops"}, &prj)
	ctx := page(t)
	signIn(t, ctx, s, a)

	do(t, ctx, chromedp.Click(chromedp.CSS(`nav[aria-label=Main] a[href$="/pipelines"]`)))
	waitFor(t, ctx, "the empty list", `!!document.querySelector('[data-empty="pipelines"]')`)
	accessible(t, ctx, "pipelines, empty")
	settingsClick(t, ctx, "a", "New pipeline")
	waitFor(t, ctx, "the editor", `!!document.querySelector("#pipeline-name") && !!document.querySelector("#step-0-type")`)
	settingsSetValue(t, ctx, "#pipeline-name", "Morning")
	settingsSetValue(t, ctx, "#step-0-id", "pause")
	choose(t, ctx, "#step-0-type", "wait")
	settingsSetValue(t, ctx, "#step-0-duration", "2") // no unit: refused by the API
	settingsClick(t, ctx, "button", "Add a step")
	waitFor(t, ctx, "the second step", `!!document.querySelector("#step-1-type")`)
	settingsSetValue(t, ctx, "#step-1-id", "make")
	choose(t, ctx, "#step-1-type", "create_card")
	waitFor(t, ctx, "the project picker", `!!document.querySelector('#step-1-projectId option[value="`+prj.ID+`"]')`)
	choose(t, ctx, "#step-1-projectId", prj.ID)
	settingsSetValue(t, ctx, "#step-1-title", "Made by {{pipeline.name}}")
	// The second step waits for the first (a new step waits for the last one).
	require.True(t, eval[bool](t, ctx, `[...document.querySelectorAll('fieldset[data-step="make"] .needs input')]
		.some(i => i.checked && i.parentElement.textContent.trim() === "pause")`))
	accessible(t, ctx, "new pipeline, two steps")

	settingsClick(t, ctx, "button", "Create the pipeline")
	waitFor(t, ctx, "the refusal in the step",
		`(document.querySelector('fieldset[data-step="pause"] .error')?.textContent || "")
		.includes("params.duration must be a duration")`)
	accessible(t, ctx, "new pipeline, refused")
	var none []pipelineJSON
	s.call("GET", a.ws()+"/pipelines", a.Token, nil, &none)
	require.Empty(t, none)

	settingsSetValue(t, ctx, "#step-0-duration", "2s")
	settingsClick(t, ctx, "button", "Create the pipeline")
	waitFor(t, ctx, "the pipeline's page", `/\/pipelines\/[0-9a-f-]{36}$/.test(location.pathname) &&
		!!document.querySelector('[data-empty="runs"]')`)
	id := eval[string](t, ctx, `location.pathname.split("/").pop()`)
	var p pipelineJSON
	s.call("GET", a.ws()+"/pipelines/"+id, a.Token, nil, &p)
	require.Equal(t, "Morning", p.Name)
	require.Len(t, p.Steps, 2)
	require.Equal(t, "pause", p.Steps[0].ID)
	require.Equal(t, "wait", p.Steps[0].Type)
	require.Equal(t, "2s", p.Steps[0].Params["duration"])
	require.Equal(t, "make", p.Steps[1].ID)
	require.Equal(t, []string{"pause"}, p.Steps[1].Needs)
	require.Equal(t, prj.ID, p.Steps[1].Params["projectId"])
	accessible(t, ctx, "pipeline")

	// Run, watched live: the run page is open while the wait holds the run.
	settingsClick(t, ctx, "button", "Run the pipeline")
	waitFor(t, ctx, "the run running, live", `/\/runs\/[0-9a-f-]{36}$/.test(location.pathname) &&
		`+runStatus+` === "running" &&
		document.querySelector("[data-conn]")?.dataset.conn === "open"`)
	runID := eval[string](t, ctx, `location.pathname.split("/").pop()`)
	accessible(t, ctx, "run, running")
	waitFor(t, ctx, "the run's end", runStatus+` === "completed" &&
		[...document.querySelectorAll(".run-step")].every(li => li.dataset.status === "completed")`)
	require.Equal(t, "Completed", text(t, ctx, "[role=status][data-status]"))
	var r runJSON
	s.call("GET", a.ws()+"/pipelines/"+id+"/runs/"+runID, a.Token, nil, &r)
	require.Equal(t, "completed", r.Status)
	cardID, _ := r.Steps[1].Output["cardId"].(string)
	require.NotEmpty(t, cardID)
	var card struct{ Title string }
	s.call("GET", a.ws()+"/projects/"+prj.ID+"/cards/"+cardID, a.Token, nil, &card)
	require.Equal(t, "Made by Morning", card.Title)
	require.True(t, eval[bool](t, ctx,
		`!!document.querySelector('.run-step[data-step="make"] a[href*="?card=`+cardID+`"]')`))
	accessible(t, ctx, "run, completed")

	// The history.
	settingsClick(t, ctx, "a", "Back to the pipeline")
	row := `document.querySelector('tr[data-run-id="` + runID + `"]')`
	waitFor(t, ctx, "the run in the history", row+`?.querySelector("[data-status]").textContent === "Completed" &&
		`+row+`.textContent.includes("2 of 2")`)
	accessible(t, ctx, "pipeline with its runs")

	// A member sees the steps and the runs, no control.
	s.call("POST", a.ws()+"/members/invite", a.Token, map[string]string{"email": "max@example.com"}, nil)
	link := s.mailed(tenancy.EmailTopicInvitation, "max@example.com")
	m := s.register("max@example.com")
	s.call("POST", link, m.Token, nil, nil)
	mctx := page(t)
	signIn(t, mctx, s, m)
	do(t, mctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/pipelines/"+id))
	waitFor(t, mctx, "the member's view", `!!document.querySelector('tr[data-run-id="`+runID+`"]') &&
		!!document.querySelector(".step-list")`)
	require.False(t, eval[bool](t, mctx, `[...document.querySelectorAll("main button")].some(b =>
		["Run the pipeline", "Save the pipeline", "Delete the pipeline"].includes(b.textContent.trim()))`))
	accessible(t, mctx, "pipeline, as a member")

	// A run that waits an hour, stopped.
	s.call("PATCH", a.ws()+"/pipelines/"+id, a.Token, map[string]any{"steps": []map[string]any{
		{"id": "pause", "type": "wait", "params": map[string]string{"duration": "1h"}},
		{"id": "make", "type": "create_card", "needs": []string{"pause"}, "params": map[string]string{"projectId": prj.ID,
			"title": "Never"}}}}, nil)
	do(t, ctx, chromedp.Reload())
	settingsClick(t, ctx, "button", "Run the pipeline")
	waitFor(t, ctx, "the second run", `/\/runs\/[0-9a-f-]{36}$/.test(location.pathname) &&
		location.pathname.split("/").pop() !== `+jsString(runID)+` && `+runStatus+` === "running"`)
	second := eval[string](t, ctx, `location.pathname.split("/").pop()`)
	settingsClick(t, ctx, "button", "Stop the run")
	confirm(t, ctx, "stop the run dialog")
	waitFor(t, ctx, "the run cancelled", runStatus+` === "cancelled"`)
	s.call("GET", a.ws()+"/pipelines/"+id+"/runs/"+second, a.Token, nil, &r)
	require.Equal(t, "cancelled", r.Status)

	// Deleted.
	settingsClick(t, ctx, "a", "Back to the pipeline")
	settingsClick(t, ctx, "button", "Delete the pipeline")
	confirm(t, ctx, "delete the pipeline dialog")
	waitFor(t, ctx, "the list, empty again", `!!document.querySelector('[data-empty="pipelines"]')`)
	s.call("GET", a.ws()+"/pipelines", a.Token, nil, &none)
	require.Empty(t, none)
}

// TestBrowserPluginsInstall: from the catalog, the e-mail digest installed (a missing required setting
// refused in words first) with its settings, whose step type the pipeline editor then offers; its settings
// changed; uninstalled after confirming, each checked through the API; a skill created.
func TestBrowserPluginsInstall(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("plu@example.com")
	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/plugins"))
	const digest = `li[data-plugin-id="email-digest"]`
	waitFor(t, ctx, "the catalog", `document.querySelector('`+digest+`')?.dataset.installed === "no" &&
		!!document.querySelector('[data-empty="skills"]')`)
	require.Contains(t, text(t, ctx, digest), "Adds pipeline steps: Email digest.")
	accessible(t, ctx, "plugins")

	settingsClick(t, ctx, digest+" button", "Install E-mail digest")
	waitFor(t, ctx, "the refusal",
		`(document.querySelector('`+digest+` .error')?.textContent || "").includes("subjectPrefix")`)
	settingsSetValue(t, ctx, "#plugin-email-digest-subjectPrefix", "[Team]")
	settingsSetValue(t, ctx, "#plugin-email-digest-maxItems", "5")
	settingsClick(t, ctx, digest+" button", "Install E-mail digest")
	waitFor(t, ctx, "installed", `document.querySelector('`+digest+`').dataset.installed === "yes"`)
	accessible(t, ctx, "plugins, one installed")
	type installed struct {
		PluginID string
		Settings map[string]any
	}
	var list []installed
	s.call("GET", a.ws()+"/plugins", a.Token, nil, &list)
	require.Len(t, list, 1)
	require.Equal(t, "email-digest", list[0].PluginID)
	require.Equal(t, map[string]any{"subjectPrefix": "[Team]", "maxItems": float64(5), "skipEmpty": true},
		list[0].Settings)

	settingsSetValue(t, ctx, "#plugin-email-digest-maxItems", "7")
	settingsClick(t, ctx, digest+" button", "Save the settings")
	waitFor(t, ctx, "the settings saved", `document.getElementById("announce")?.textContent === "Settings saved"`)
	s.call("GET", a.ws()+"/plugins", a.Token, nil, &list)
	require.Equal(t, float64(7), list[0].Settings["maxItems"])

	// Its step type is offered to pipelines now.
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/pipelines/new"))
	waitFor(t, ctx, "the digest step offered", `!!document.querySelector('#step-0-type option[value="email_digest"]')`)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/plugins"))

	waitFor(t, ctx, "the catalog again", `document.querySelector('`+digest+`')?.dataset.installed === "yes"`)
	settingsClick(t, ctx, digest+" button", "Uninstall E-mail digest")
	confirm(t, ctx, "uninstall dialog")
	waitFor(t, ctx, "uninstalled", `document.querySelector('`+digest+`').dataset.installed === "no"`)
	s.call("GET", a.ws()+"/plugins", a.Token, nil, &list)
	require.Empty(t, list)

	settingsSetValue(t, ctx, "#skill-name", "Triage")
	settingsSetValue(t, ctx, "#skill-instructions", "Label every new bug.")
	settingsClick(t, ctx, "button", "Create the skill")
	waitFor(t, ctx, "the skill listed",
		`[...document.querySelectorAll(".skills li")].some(li => li.textContent.includes("Triage"))`)
	var skills []struct{ Name, Instructions string }
	s.call("GET", a.ws()+"/skills", a.Token, nil, &skills)
	require.Len(t, skills, 1)
	require.Equal(t, "Label every new bug.", skills[0].Instructions)
	accessible(t, ctx, "plugins and a skill")
}

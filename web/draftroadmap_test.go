package web_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// setInput types v into the field sel as a person would (the value replaced, an input event sent).
func setInput(t *testing.T, ctx context.Context, sel, v string) {
	t.Helper()
	waitFor(t, ctx, "the field "+sel, `!!document.querySelector(`+jsString(sel)+`)`)
	eval[bool](t, ctx, `(() => { const e = document.querySelector(`+jsString(sel)+`); e.value = `+jsString(v)+`;
		e.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
}

// readyDraft creates a draft over the API and generates its roadmap (the test server's worker runs the
// offline planner); it answers the draft's id.
func (s *server) readyDraft(a account, name string) string {
	s.t.Helper()
	var d draftJSON
	s.call("POST", a.ws()+"/project-drafts", a.Token, map[string]any{"name": name,
		"description": "Move the legacy ledger database to the new platform."}, &d)
	s.call("POST", a.ws()+"/project-drafts/"+d.ID+"/generate-roadmap", a.Token, nil, nil)
	return d.ID
}

// TestBrowserDraftRoadmapEdit: a ready roadmap adjusted on the draft's page before executing it (a phase
// renamed, a deliverable removed, a phase added with a deliverable and moved up), saved and read back through
// the API; a blank title is refused by the form; the project then has the adjusted columns and cards.
func TestBrowserDraftRoadmapEdit(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("rhea@example.com")
	id := s.readyDraft(a, "Ledger move")
	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/drafts/"+id))
	waitFor(t, ctx, "the roadmap", `document.querySelector("[data-status]")?.dataset.status === "roadmap_ready" &&
		document.querySelectorAll(".roadmap .phase").length > 1`)
	shot(t, ctx, "draft-roadmap", 1440, 1100)
	var d draftJSON
	s.call("GET", a.ws()+"/project-drafts/"+id, a.Token, nil, &d)
	require.NotNil(t, d.Roadmap)
	before := d.Roadmap.Phases
	require.Greater(t, len(before[1].Deliverables), 1)

	clickText(t, ctx, "Adjust the roadmap")
	waitFor(t, ctx, "the editor", `document.querySelectorAll(".phase-edit").length === `+strconv.Itoa(len(before)))
	accessible(t, ctx, "draft roadmap editor")
	setInput(t, ctx, `#ph-0-name`, "Discovery and audit")
	clickIn(t, ctx, `[data-phase="1"] [data-deliverable="0"] button`, "Remove")
	clickText(t, ctx, "Add a phase")
	last := len(before)
	setInput(t, ctx, `#ph-`+strconv.Itoa(last)+`-name`, "Aftercare")
	clickIn(t, ctx, `[data-phase="`+strconv.Itoa(last)+`"] button`, "Add a deliverable")
	// A blank title is refused before anything is sent.
	clickText(t, ctx, "Save the roadmap")
	require.True(t, eval[bool](t, ctx, `!!document.querySelector(".roadmap-editor")`))
	setInput(t, ctx, `#ph-`+strconv.Itoa(last)+`-d-0-title`, "Train support")
	clickIn(t, ctx, `[data-phase="`+strconv.Itoa(last)+`"] > fieldset > .actions button`, "Move up")
	accessible(t, ctx, "draft roadmap editor, changed")
	clickText(t, ctx, "Save the roadmap")
	waitFor(t, ctx, "the saved roadmap", `!document.querySelector(".roadmap-editor") &&
		[...document.querySelectorAll(".roadmap .phase h3")].some(h => h.textContent === "Aftercare")`)

	var after draftJSON
	s.call("GET", a.ws()+"/project-drafts/"+id, a.Token, nil, &after)
	got := after.Roadmap.Phases
	require.Len(t, got, len(before)+1)
	require.Equal(t, "Discovery and audit", got[0].Name)
	require.Len(t, got[1].Deliverables, len(before[1].Deliverables)-1)
	require.Equal(t, before[1].Deliverables[1].Title, got[1].Deliverables[0].Title)
	require.Equal(t, "Aftercare", got[last-1].Name, "moved up one place")
	require.Equal(t, "Train support", got[last-1].Deliverables[0].Title)
	names := []string{}
	for _, p := range got {
		names = append(names, p.Name)
	}
	require.Equal(t, names, eval[[]string](t, ctx,
		`[...document.querySelectorAll(".roadmap .phase h3")].map(h => h.textContent)`))

	clickText(t, ctx, "Create the project")
	waitFor(t, ctx, "the board", `location.pathname.includes("/p/")`)
	s.call("GET", a.ws()+"/project-drafts/"+id, a.Token, nil, &d)
	require.NotNil(t, d.ProjectID)
	var cols []struct{ Name string }
	s.call("GET", a.ws()+"/projects/"+*d.ProjectID+"/columns", a.Token, nil, &cols)
	colNames := []string{}
	for _, c := range cols {
		colNames = append(colNames, c.Name)
	}
	require.Equal(t, names, colNames)
}

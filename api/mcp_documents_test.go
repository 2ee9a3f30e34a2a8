package api

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// mcpDocumentToolCases are the success, scope and cross-tenant cases of the document, search and
// pilotage tools (run by TestMCPToolsSuccessScopeAndTenancy with the others).
func mcpDocumentToolCases() []toolCase {
	return []toolCase{
		{tool: "list_documents", scope: "projects:read",
			args: func(w *mcpWorld) map[string]any {
				w.e.doc(w.ann, "Runbook", map[string]any{"docType": "spec"})
				w.e.doc(w.ann, "Jotting", map[string]any{"docType": "note"})
				w.e.doc(w.bob, "Bob's spec", map[string]any{"docType": "spec"})
				return wsArgs(w.ann, map[string]any{"docType": "spec"})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				docs := out["documents"].([]any)
				require.Len(t, docs, 1, "the docType filter holds and bob's document is not listed")
				require.Equal(t, "Runbook", docs[0].(map[string]any)["title"])
				require.NotContains(t, docs[0], "content", "lists carry no content")
				require.NotContains(t, out, "nextOffset", "a partial page is the last")
			},
			foreign: func(w *mcpWorld) map[string]any { return wsArgs(w.bob, nil) }},
		{tool: "get_document", scope: "projects:read",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"documentId": w.e.doc(w.ann, "Runbook", nil).ID})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "Runbook", out["title"])
				require.Equal(t, "Body of Runbook", out["content"])
				require.Equal(t, []any{}, out["reviews"])
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"documentId": w.e.doc(w.bob, "Bob's", nil).ID})
			}},
		{tool: "search", scope: "projects:read",
			args: func(w *mcpWorld) map[string]any {
				w.e.doc(w.ann, "Rocket plan", nil)
				w.e.doc(w.bob, "Rocket secrets", nil)
				return wsArgs(w.ann, map[string]any{"q": "rocket"})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				res := out["results"].([]any)
				require.Len(t, res, 1, "bob's document is not found in ann's workspace")
				r := res[0].(map[string]any)
				require.Equal(t, "document", r["kind"])
				require.Equal(t, "Rocket plan", r["title"])
				require.Contains(t, r["snippet"], "<mark>")
				require.Greater(t, r["rank"], 0.0)
			},
			foreign: func(w *mcpWorld) map[string]any { return wsArgs(w.bob, map[string]any{"q": "rocket"}) }},
		{tool: "get_pilotage_state", scope: "pilotage:read",
			args: func(w *mcpWorld) map[string]any {
				plCreate(w.e, w.ann.Token, plPath(w.ann)+"/missions", map[string]any{"objective": "Ship v2", "module": "core"})
				plCreate(w.e, w.bob.Token, plPath(w.bob)+"/missions", map[string]any{"objective": "Bob's"})
				return wsArgs(w.ann, map[string]any{"detailLevel": "minimal", "intent": "weekly_review"})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				ms := out["missions"].([]any)
				require.Len(t, ms, 1)
				m := ms[0].(map[string]any)
				require.Equal(t, "Ship v2", m["objective"])
				require.NotContains(t, m, "module", "minimal detail: id, objective, status")
				require.Equal(t, map[string]any{"profile": "pilotage", "role": "owner", "intent": "weekly_review",
					"detailLevel": "minimal"}, out["usageContext"])
				require.NotEmpty(t, out["cycle"])
			},
			foreign: func(w *mcpWorld) map[string]any { return wsArgs(w.bob, nil) }},
		{tool: "propose_pilotage_action", scope: "pilotage:write",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"actionType": "create_todo", "explanation": "the runbook is missing",
					"payload": map[string]any{"label": "Write the runbook"}})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "suggested", out["status"])
				require.Equal(t, "create_todo", out["actionType"])
				require.Equal(t, 1, w.e.count(`SELECT count(*) FROM pilotage_actions WHERE id = $1 AND status = 'suggested'`,
					out["id"]))
				require.Equal(t, 0, w.e.count(`SELECT count(*) FROM pilotage_todos`), "proposing applies nothing")
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.bob, map[string]any{"actionType": "noop", "explanation": "x"})
			}},
	}
}

// TestMCPPilotageRoles: the pilotage tools need the roles their REST twins need; a token never lifts
// its user's role.
func TestMCPPilotageRoles(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	e := w.e
	maxUser := e.register("maxUser@example.com")
	e.join(w.ann, maxUser, w.ann.OrgSlug, w.ann.WsSlug, "member")
	e.setPilotage(w.ann, maxUser, "viewer")
	cs := e.mcpSession(e.pat(maxUser, nil))

	st := toolOK[PilotageStateOut](t, cs, "get_pilotage_state", wsArgs(w.ann, nil))
	require.EqualValues(t, "viewer", st.UsageContext.Role)
	require.Equal(t, "pilotage", st.UsageContext.Profile, "REST's default profile")
	require.Equal(t, "standard", st.UsageContext.DetailLevel, "REST's default detail level")
	propose := wsArgs(w.ann, map[string]any{"actionType": "noop", "explanation": "why not"})
	before := e.fingerprint()
	msg := toolErr(t, cs, "propose_pilotage_action", propose)
	require.Contains(t, msg, "forbidden")
	require.Contains(t, msg, "pilotage reviewer role")
	require.Equal(t, before, e.fingerprint())

	e.setPilotage(w.ann, maxUser, "reviewer")
	out := toolOK[PilotageActionOut](t, cs, "propose_pilotage_action", propose)
	require.EqualValues(t, "suggested", out.Status)
	require.Equal(t, maxUser.ID, out.ProposedBy)
}

// TestMCPDocumentTools: list_documents pages and filters as REST does; bad arguments name the field.
func TestMCPDocumentTools(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	e := w.e
	cs := e.mcpSession(e.pat(w.ann, nil))
	parent := e.doc(w.ann, "Parent", nil)
	e.doc(w.ann, "Child", map[string]any{"parentId": parent.ID})
	e.doc(w.ann, "Other root", nil)

	page := toolOK[DocumentsOut](t, cs, "list_documents", wsArgs(w.ann, map[string]any{"limit": 2}))
	require.Len(t, page.Documents, 2)
	require.NotEmpty(t, page.NextCursor)
	last := toolOK[DocumentsOut](t, cs, "list_documents", wsArgs(w.ann, map[string]any{"limit": 2,
		"cursor": page.NextCursor}))
	require.Len(t, last.Documents, 1)
	require.Empty(t, last.NextCursor)
	seen := map[string]bool{}
	for _, d := range append(page.Documents, last.Documents...) {
		seen[d.Title] = true
	}
	require.Len(t, seen, 3, "the pages cover every document once")

	roots := toolOK[DocumentsOut](t, cs, "list_documents", wsArgs(w.ann, map[string]any{"parentId": "root"}))
	require.Len(t, roots.Documents, 2)
	children := toolOK[DocumentsOut](t, cs, "list_documents", wsArgs(w.ann, map[string]any{"parentId": parent.ID}))
	require.Len(t, children.Documents, 1)
	require.Equal(t, "Child", children.Documents[0].Title)
	ctx := toolOK[DocumentsOut](t, cs, "list_documents", wsArgs(w.ann, map[string]any{"contextType": "workspace",
		"contextId": e.wsID(w.ann)}))
	require.Len(t, ctx.Documents, 3)

	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"list_documents", map[string]any{"parentId": "nope"}, "parentId"},
		{"list_documents", map[string]any{"contextType": "workspace"}, "contextType"},
		{"list_documents", map[string]any{"contextType": "workspace", "contextId": "x"}, "contextId"},
		{"list_documents", map[string]any{"docType": "memo"}, "docType"},
		{"list_documents", map[string]any{"limit": 201}, "limit"},
		{"list_documents", map[string]any{"offset": -1}, "offset"},
		{"get_document", map[string]any{}, "documentId"},
		{"get_document", map[string]any{"documentId": "nope"}, "documentId"},
		{"search", map[string]any{}, "q"},
		{"search", map[string]any{"q": ""}, "q"},
		{"search", map[string]any{"q": "   "}, "q"},
		{"search", map[string]any{"q": strings.Repeat("q", 201)}, "q"},
		{"search", map[string]any{"q": "x", "limit": 51}, "limit"},
		{"get_pilotage_state", map[string]any{"profile": "everything"}, "profile"},
		{"get_pilotage_state", map[string]any{"detailLevel": "max"}, "detailLevel"},
		{"propose_pilotage_action", map[string]any{"actionType": "noop"}, "explanation"},
		{"propose_pilotage_action", map[string]any{"actionType": "noop", "explanation": "y", "payload": "x"}, "payload"},
		{"propose_pilotage_action", map[string]any{"actionType": "create_todo", "explanation": "y",
			"payload": map[string]any{}}, "payload.label"},
	} {
		before := e.fingerprint()
		msg := toolErr(t, cs, tc.tool, wsArgs(w.ann, tc.args))
		require.Contains(t, msg, tc.field, "%s %v", tc.tool, tc.args)
		require.NotContains(t, msg, "internal error", "%s %v", tc.tool, tc.args)
		require.Equal(t, before, e.fingerprint())
	}
	// A document of another workspace is not found, by id or as a parent filter (which names nothing).
	bobs := e.doc(w.bob, "Bob's", nil)
	require.Contains(t, toolErr(t, cs, "get_document", wsArgs(w.ann, map[string]any{"documentId": bobs.ID})), "not found")
	none := toolOK[DocumentsOut](t, cs, "list_documents", wsArgs(w.ann, map[string]any{"parentId": bobs.ID}))
	require.Empty(t, none.Documents)
}

func TestMCPDocumentResource(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	e := w.e
	doc := e.doc(w.ann, "Runbook", nil)
	bobs := e.doc(w.bob, "Bob's", nil)
	cs := e.mcpSession(e.pat(w.ann, []string{"projects:read"}))

	uri := documentResourceURI(w.ann.OrgSlug, w.ann.WsSlug, doc.ID)
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	require.Equal(t, "application/json", res.Contents[0].MIMEType)
	got := decodeJSON[DocumentOut](t, []byte(res.Contents[0].Text))
	require.Equal(t, doc.ID, got.ID)
	require.Equal(t, "Body of Runbook", got.Content)

	for _, bad := range []string{
		documentResourceURI(w.ann.OrgSlug, w.ann.WsSlug, bobs.ID),
		documentResourceURI(w.bob.OrgSlug, w.bob.WsSlug, bobs.ID),
		documentResourceURI(w.ann.OrgSlug, w.ann.WsSlug, "not-an-id"),
		documentResourceURI(w.ann.OrgSlug, w.ann.WsSlug, doc.ID) + "/more",
	} {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: bad})
		require.Error(t, err, bad)
		require.Contains(t, strings.ToLower(err.Error()), "not found", bad)
	}
	weak := e.mcpSession(e.pat(w.ann, []string{"pilotage:read"}))
	_, err = weak.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	require.Error(t, err)
	require.Contains(t, err.Error(), "projects:read")
}

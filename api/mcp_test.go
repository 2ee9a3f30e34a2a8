package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/agenttool"
)

// bearer adds an Authorization header to every request of an MCP client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// mcpURL serves the test handler over HTTP (once per env) and answers its /mcp URL.
func (e *testEnv) mcpURL() string {
	e.t.Helper()
	if e.httpURL == "" {
		srv := httptest.NewServer(e.handler)
		e.t.Cleanup(srv.Close)
		e.httpURL = srv.URL
	}
	return e.httpURL + "/mcp"
}

// mcpSession connects the Go SDK's client to /mcp with token.
func (e *testEnv) mcpSession(token string) *mcp.ClientSession {
	e.t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "pilot-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.mcpURL(),
		HTTPClient: &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}, DisableStandaloneSSE: true},
		nil)
	require.NoError(e.t, err)
	e.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callTool calls a tool and requires an answer (a protocol error fails the test).
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "tool %s: a protocol error", name)
	return res
}

// toolText is a result's text.
func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// toolOK requires a successful call and decodes its structured content into T.
func toolOK[T any](t *testing.T, cs *mcp.ClientSession, name string, args any) T {
	t.Helper()
	res := callTool(t, cs, name, args)
	require.False(t, res.IsError, "tool %s: %s", name, toolText(res))
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	return decodeJSON[T](t, b)
}

// toolErr requires a tool error (isError) and answers its text.
func toolErr(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res := callTool(t, cs, name, args)
	require.True(t, res.IsError, "tool %s should have failed: %s", name, toolText(res))
	return toolText(res)
}

// mcpWorld is two tenants: ann (owner of her personal workspace, with a project, a card with a
// checklist item, an mcpOnly agent) and bob, alone in his own, with the same.
type mcpWorld struct {
	e                  *testEnv
	ann, bob           user
	annPrj, bobPrj     string // REST paths
	annCols, bobCols   []string
	annCard, bobCard   CardOut
	annAgent, bobAgent AgentOut
	annItem            string
	// annCS is ann's MCP session with an all-scopes token, once opened.
	annCS *mcp.ClientSession
}

func (w *mcpWorld) projectID(prj string) string { return path.Base(prj) }

func newMCPWorld(t *testing.T) *mcpWorld {
	e := setup(t)
	w := &mcpWorld{e: e, ann: e.register("ann@example.com"), bob: e.register("bob@example.com")}
	w.annPrj, w.annCols = e.project(w.ann, "Launch")
	w.bobPrj, w.bobCols = e.project(w.bob, "Secret")
	w.annCard = e.card(w.ann, w.annPrj, w.annCols[0], "Ship it")
	w.bobCard = e.card(w.bob, w.bobPrj, w.bobCols[0], "Bob's card")
	r := e.do("POST", w.annPrj+"/cards/"+w.annCard.ID+"/checklist", w.ann.Token, map[string]any{"title": "write notes"})
	requireStatus(t, r, http.StatusCreated)
	w.annItem = cardChecklist(t, decode[CardOut](t, r))[0].ID
	w.annAgent = e.agent(w.ann, "external", map[string]any{"mcpOnly": true, "autonomyMode": "approval"})
	w.bobAgent = e.agent(w.bob, "external", map[string]any{"mcpOnly": true})
	return w
}

// queue starts a card mission of u's mcpOnly agent on a card and answers its id.
func (w *mcpWorld) queue(u user, card CardOut) string {
	w.e.t.Helper()
	r := w.e.do("POST", wsOf(u)+"/agent-runtime/card-mission", u.Token, map[string]any{"cardId": card.ID,
		"projectId": card.ProjectID})
	requireStatus(w.e.t, r, http.StatusCreated)
	return decode[MissionOut](w.e.t, r).ID
}

// ws, prj and card build tool arguments for u's personal workspace.
func wsArgs(u user, extra map[string]any) map[string]any {
	m := map[string]any{"org": u.OrgSlug, "workspace": u.WsSlug}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// fingerprint sums what any write leaves behind, to check that a refused call had no effect.
func (e *testEnv) fingerprint() string {
	e.t.Helper()
	var s string
	require.NoError(e.t, e.pool.QueryRow(context.Background(), `SELECT concat_ws('/',
		(SELECT count(*) FROM activities), (SELECT count(*) FROM comments), (SELECT count(*) FROM cards),
		(SELECT count(*) FROM stream_events), (SELECT count(*) FROM agent_proposals), (SELECT count(*) FROM mission_steps),
		(SELECT string_agg(status || coalesce(claimed_by::text, ''), ',' ORDER BY id) FROM agent_missions),
		(SELECT max(updated_at) FROM cards), (SELECT string_agg(done::text, ',' ORDER BY id) FROM checklist_items),
		(SELECT count(*) FROM pilotage_actions), (SELECT count(*) FROM documents))`).Scan(&s))
	return s
}

// toolCase is one tool's three checks: a call that succeeds, the scope a token must lack for a
// refusal, and a call naming another tenant's record.
type toolCase struct {
	tool  string
	scope string
	// args builds the successful call's arguments (fresh records when it needs some).
	args func(w *mcpWorld) map[string]any
	// check inspects the successful call's structured content.
	check func(t *testing.T, w *mcpWorld, out map[string]any)
	// foreign builds arguments naming bob's records inside ann's tenancy (or bob's tenancy itself).
	foreign func(w *mcpWorld) map[string]any
}

func annCardArgs(w *mcpWorld, extra map[string]any) map[string]any {
	m := wsArgs(w.ann, map[string]any{"projectId": w.projectID(w.annPrj), "cardId": w.annCard.ID})
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// bobCardInAnn names bob's card (and project) in ann's workspace.
func bobCardInAnn(w *mcpWorld, extra map[string]any) map[string]any {
	m := annCardArgs(w, extra)
	m["cardId"] = w.bobCard.ID
	return m
}

// claimed queues a mission of ann's agent and claims it as ann.
func (w *mcpWorld) claimed(cs *mcp.ClientSession) string {
	id := w.queue(w.ann, w.annCard)
	toolOK[ClaimedMissionOut](w.e.t, cs, "claim_mission", wsArgs(w.ann, map[string]any{"missionId": id}))
	return id
}

func mcpToolCases() []toolCase {
	return append(mcpCardAndMissionToolCases(), mcpDocumentToolCases()...)
}

func mcpCardAndMissionToolCases() []toolCase {
	return []toolCase{
		{tool: "list_organizations", scope: "projects:read",
			args: func(w *mcpWorld) map[string]any { return map[string]any{} },
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				orgs := out["organizations"].([]any)
				require.Len(t, orgs, 1)
				require.Equal(t, w.ann.OrgSlug, orgs[0].(map[string]any)["slug"])
			},
			foreign: nil}, // it lists the caller's own: checked by check (bob's organization is absent)
		{tool: "list_workspaces", scope: "projects:read",
			args: func(w *mcpWorld) map[string]any { return map[string]any{"org": w.ann.OrgSlug} },
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Len(t, out["workspaces"], 1)
			},
			foreign: func(w *mcpWorld) map[string]any { return map[string]any{"org": w.bob.OrgSlug} }},
		{tool: "list_projects", scope: "projects:read",
			args: func(w *mcpWorld) map[string]any { return wsArgs(w.ann, nil) },
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				prjs := out["projects"].([]any)
				require.Len(t, prjs, 1)
				require.Equal(t, "Launch", prjs[0].(map[string]any)["name"])
			},
			foreign: func(w *mcpWorld) map[string]any { return wsArgs(w.bob, nil) }},
		{tool: "list_cards", scope: "projects:read",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"projectId": w.projectID(w.annPrj)})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				cards := out["cards"].([]any)
				require.Len(t, cards, 1)
				require.Equal(t, w.annCard.ID, cards[0].(map[string]any)["id"])
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"projectId": w.projectID(w.bobPrj)})
			}},
		{tool: "get_card", scope: "projects:read",
			args: func(w *mcpWorld) map[string]any { return annCardArgs(w, nil) },
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "Ship it", out["title"])
			},
			foreign: func(w *mcpWorld) map[string]any { return bobCardInAnn(w, nil) }},
		{tool: "create_card", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"projectId": w.projectID(w.annPrj), "title": "From MCP", "priority": "high",
					"checklist": []map[string]any{{"title": "a"}}})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "From MCP", out["title"])
				require.Equal(t, "high", out["priority"])
				require.Equal(t, w.annCols[0], out["columnId"])
				require.Equal(t, 1, w.e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_created'`,
					out["id"]))
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"projectId": w.projectID(w.bobPrj), "title": "x"})
			}},
		{tool: "update_card", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return annCardArgs(w, map[string]any{"title": "Ship it now", "dueDate": "2031-01-02T00:00:00Z", "description": nil})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "Ship it now", out["title"])
				require.Equal(t, "2031-01-02T00:00:00Z", out["dueDate"])
			},
			foreign: func(w *mcpWorld) map[string]any { return bobCardInAnn(w, map[string]any{"title": "pwned"}) }},
		{tool: "move_card", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any { return annCardArgs(w, map[string]any{"columnId": w.annCols[1]}) },
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, w.annCols[1], out["columnId"])
				require.Equal(t, 1, w.e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'card_moved'`,
					w.annCard.ID))
			},
			foreign: func(w *mcpWorld) map[string]any { return bobCardInAnn(w, map[string]any{"columnId": w.annCols[1]}) }},
		{tool: "add_comment", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any { return annCardArgs(w, map[string]any{"content": "  looks good  "}) },
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "looks good", out["content"])
				require.Equal(t, 1, w.e.count(`SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'comment_added'`,
					w.annCard.ID))
			},
			foreign: func(w *mcpWorld) map[string]any { return bobCardInAnn(w, map[string]any{"content": "hi"}) }},
		{tool: "check_checklist_item", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return annCardArgs(w, map[string]any{"itemId": w.annItem, "done": true})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.EqualValues(t, 100, out["checklistProgress"])
			},
			foreign: func(w *mcpWorld) map[string]any {
				return bobCardInAnn(w, map[string]any{"itemId": w.annItem, "done": true})
			}},
		{tool: "set_card_recurrence", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return annCardArgs(w, map[string]any{"rule": "FREQ=WEEKLY;BYDAY=MO", "timeZone": "Europe/Paris"})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "FREQ=WEEKLY;BYDAY=MO", out["rule"])
				require.Equal(t, 1, w.e.count(`SELECT count(*) FROM card_occurrences WHERE card_id = $1`, w.annCard.ID))
			},
			foreign: func(w *mcpWorld) map[string]any {
				return bobCardInAnn(w, map[string]any{"rule": "FREQ=DAILY", "timeZone": "UTC"})
			}},
		{tool: "stop_card_recurrence", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				r := w.e.do("PUT", w.annPrj+"/cards/"+w.annCard.ID+"/recurrence", w.ann.Token,
					map[string]any{"rule": "FREQ=DAILY", "timeZone": "UTC"})
				requireStatus(w.e.t, r, http.StatusOK)
				return annCardArgs(w, nil)
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, true, out["stopped"])
			},
			foreign: func(w *mcpWorld) map[string]any { return bobCardInAnn(w, nil) }},
		{tool: "list_queued_missions", scope: "projects:read",
			args: func(w *mcpWorld) map[string]any {
				w.queue(w.ann, w.annCard)
				return wsArgs(w.ann, nil)
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				ms := out["missions"].([]any)
				require.Len(t, ms, 1)
				require.Equal(t, "queued", ms[0].(map[string]any)["status"])
			},
			foreign: func(w *mcpWorld) map[string]any {
				w.queue(w.bob, w.bobCard)
				return wsArgs(w.bob, nil)
			}},
		{tool: "claim_mission", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.queue(w.ann, w.annCard)})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "running", out["mission"].(map[string]any)["status"])
				require.Equal(t, w.annCard.ID, out["card"].(map[string]any)["id"])
				require.Len(t, out["tools"], len(agenttool.Catalog())-1,
					"an agent created without tools gets the whole catalog but ask_user, the in-process runner's")
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.queue(w.bob, w.bobCard)})
			}},
		{tool: "report_progress", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.claimed(w.annCS), "message": "reading the card", "percent": 10})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, 1,
					w.e.count(`SELECT count(*) FROM stream_events
						WHERE stream_id = $1 AND type = 'step' AND message = 'reading the card'`, out["missionId"]))
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.queue(w.bob, w.bobCard), "message": "x"})
			}},
		{tool: "submit_proposal", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.claimed(w.annCS), "tool": "add_comment",
					"args": map[string]any{"content": "Plan: ship"}, "explanation": "a plan"})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "proposed", out["outcome"], "ann's agent needs approval")
				require.NotEmpty(t, out["proposalId"])
				require.Equal(t, 0, w.e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, w.annCard.ID))
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.queue(w.bob, w.bobCard), "tool": "add_comment",
					"args": map[string]any{"content": "x"}})
			}},
		{tool: "complete_mission", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.claimed(w.annCS), "summary": "nothing to do"})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "completed", out["status"])
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.queue(w.bob, w.bobCard)})
			}},
		{tool: "fail_mission", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.claimed(w.annCS), "reason": "cannot reach the repo"})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "failed", out["status"])
				require.Equal(t, "cannot reach the repo", out["error"])
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.queue(w.bob, w.bobCard), "reason": "x"})
			}},
		{tool: "reply_mission", scope: "projects:write",
			args: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.asking(w.claimed(w.annCS)), "answer": "Tests first"})
			},
			check: func(t *testing.T, w *mcpWorld, out map[string]any) {
				require.Equal(t, "running", out["status"], "answered: the mission goes on")
				require.Nil(t, out["question"])
				require.Equal(t, 1, w.e.count(`SELECT count(*) FROM stream_events WHERE stream_id = $1
					AND data->>'answer' = 'Tests first'`, out["id"]))
			},
			foreign: func(w *mcpWorld) map[string]any {
				return wsArgs(w.ann, map[string]any{"missionId": w.queue(w.bob, w.bobCard), "answer": "x"})
			}},
	}
}

// asking makes a running mission ask its requester a question, as the runner does when its model calls
// ask_user.
func (w *mcpWorld) asking(missionID string) string {
	w.e.t.Helper()
	_, err := w.e.eng.Missions.AskQuestion(context.Background(), mission.Ask{MissionID: missionID,
		Question: "Which first?", Options: []string{"Tests first", "Docs first"},
		Conversation: mission.Conversation{Turn: 1, Messages: json.RawMessage(`[]`), AskCallID: "call_1"}})
	require.NoError(w.e.t, err)
	return missionID
}

// TestMCPToolsSuccessScopeAndTenancy gives every tool a success, a scope refusal (a tool error naming
// the scope, with no effect) and another tenant's ids (not found, no effect).
func TestMCPToolsSuccessScopeAndTenancy(t *testing.T) {
	t.Parallel()
	for _, c := range mcpToolCases() {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			w := newMCPWorld(t)
			e := w.e
			w.annCS = e.mcpSession(e.pat(w.ann, nil))

			// Scope refusal: a token without the scope; the call changes nothing.
			other := map[string]string{"projects:read": "pilotage:read", "projects:write": "projects:read",
				"pilotage:read": "projects:read", "pilotage:write": "pilotage:read"}[c.scope]
			require.NotEmpty(t, other, "scope %s", c.scope)
			weak := e.mcpSession(e.pat(w.ann, []string{other}))
			args := c.args(w)
			before := e.fingerprint()
			msg := toolErr(t, weak, c.tool, args)
			require.Contains(t, msg, `"`+c.scope+`"`)
			require.Contains(t, msg, "forbidden")
			require.Equal(t, before, e.fingerprint(), "a refused call had an effect")

			// Success.
			out := toolOK[map[string]any](t, w.annCS, c.tool, args)
			c.check(t, w, out)

			// Another tenant's records: not found, and no effect.
			if c.foreign != nil {
				fargs := c.foreign(w)
				before := e.fingerprint()
				msg := toolErr(t, w.annCS, c.tool, fargs)
				require.Contains(t, msg, "not found", "tool %s", c.tool)
				require.Equal(t, before, e.fingerprint(), "a call on another tenant's records had an effect")
			} else {
				require.Equal(t, "list_organizations", c.tool)
			}
		})
	}
}

func TestMCPEveryToolHasACase(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := map[string]bool{}
	for _, c := range mcpToolCases() {
		cases[c.tool] = true
	}
	cs := e.mcpSession(e.pat(e.register("ann@example.com"), nil))
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, res.Tools, len(cases))
	for _, tool := range res.Tools {
		require.True(t, cases[tool.Name], "tool %s has no test case", tool.Name)
		require.NotNil(t, tool.InputSchema)
		require.NotNil(t, tool.OutputSchema, tool.Name)
		require.Contains(t, tool.Description, "Personal access tokens need the")
		if tool.Name == "create_card" {
			// The REST body's limits, as huma derives them, bound the tool's arguments.
			b, err := json.Marshal(tool.InputSchema)
			require.NoError(t, err)
			var schema struct {
				Required   []string `json:"required"`
				Properties map[string]struct {
					MaxLength int      `json:"maxLength"`
					Enum      []string `json:"enum"`
				} `json:"properties"`
				AdditionalProperties bool `json:"additionalProperties"`
			}
			require.NoError(t, json.Unmarshal(b, &schema))
			require.ElementsMatch(t, []string{"org", "workspace", "projectId", "title"}, schema.Required)
			require.Equal(t, 500, schema.Properties["title"].MaxLength)
			require.Equal(t, []string{"low", "medium", "high"}, schema.Properties["priority"].Enum)
			require.False(t, schema.AdditionalProperties)
		}
	}
}

func TestMCPAuthentication(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.register("ann@example.com")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize",` +
		`"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct{ name, auth string }{
		{"missing", ""},
		{"malformed", "Token abc"},
		{"bad JWT", "Bearer not-a-jwt"},
		{"unknown PAT", "Bearer pilot_pat_000000000000000000000000000000"},
	} {
		r := e.send(req{Method: "POST", Path: "/mcp", Body: init, Header: map[string]string{"Authorization": tc.auth,
			"Accept": "application/json, text/event-stream"}})
		requireStatus(t, r, http.StatusUnauthorized)
		require.True(t, strings.HasPrefix(r.Header.Get("WWW-Authenticate"), `Bearer realm="pilot"`), tc.name)
	}
	// A revoked token stops working at once, even in an open session.
	pat := e.pat(u, nil)
	cs := e.mcpSession(pat)
	toolOK[OrganizationsOut](t, cs, "list_organizations", map[string]any{})
	var tokID string
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT id FROM api_tokens WHERE user_id = $1`,
		u.ID).Scan(&tokID))
	requireStatus(t, e.do("DELETE", "/api-tokens/"+tokID, u.Token, nil), http.StatusOK)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_organizations",
		Arguments: map[string]any{}})
	require.Error(t, err)
	require.Contains(t, err.Error(), "Unauthorized")

	// A JWT works too, and a session is bound to its user: another user's token cannot use it.
	jwt := e.mcpSession(u.Token)
	toolOK[OrganizationsOut](t, jwt, "list_organizations", map[string]any{})
	other := e.register("eve@example.com")
	r := e.send(req{Method: "POST", Path: "/mcp", Body: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		Token: other.Token, Header: map[string]string{"Mcp-Session-Id": jwt.ID(), "Accept": "application/json, " +
			"text/event-stream"}})
	require.Equal(t, http.StatusForbidden, r.Code, "body: %s", r.Body)
}

// TestMCPInvalidArguments: bad arguments are tool errors naming the field, never protocol errors or
// crashes, whatever the tool.
func TestMCPInvalidArguments(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	cs := w.e.mcpSession(w.e.pat(w.ann, nil))

	require.Contains(t, toolErr(t, cs, "get_card", wsArgs(w.ann, map[string]any{"projectId": w.projectID(w.annPrj)})),
		"cardId")
	require.Contains(t, toolErr(t, cs, "get_card", annCardArgs(w, map[string]any{"cardId": "nope"})), "cardId")
	require.Contains(t, toolErr(t, cs, "get_card", annCardArgs(w, map[string]any{"cardId": 42})), "cardId")
	require.Contains(t, toolErr(t, cs, "get_card", annCardArgs(w, map[string]any{"extra": 1})), "extra")
	require.Contains(t, toolErr(t, cs, "create_card", wsArgs(w.ann, map[string]any{"projectId": w.projectID(w.annPrj),
		"title": strings.Repeat("x", 501)})), "title")
	require.Contains(t, toolErr(t, cs, "create_card", wsArgs(w.ann, map[string]any{"projectId": w.projectID(w.annPrj),
		"title": "   "})), "title")
	require.Contains(t, toolErr(t, cs, "update_card", annCardArgs(w, map[string]any{"priority": "urgent"})), "priority")
	require.Contains(t, toolErr(t, cs, "update_card", annCardArgs(w, map[string]any{"dueDate": "tomorrow"})), "dueDate")
	require.Contains(t, toolErr(t, cs, "move_card", annCardArgs(w, map[string]any{"columnId": w.bobCols[0]})), "columnId")
	require.Contains(t, toolErr(t, cs, "add_comment", annCardArgs(w, map[string]any{"content": ""})), "content")
	require.Contains(t, toolErr(t, cs, "list_cards", wsArgs(w.ann, map[string]any{"projectId": w.projectID(w.annPrj),
		"limit": 0})), "limit")
	require.Contains(t, toolErr(t, cs, "list_workspaces", map[string]any{"org": "no-such-org"}), "not found")

	mission := w.claimed(cs)
	require.Contains(t, toolErr(t, cs, "submit_proposal", wsArgs(w.ann, map[string]any{"missionId": mission,
		"tool": "delete_everything", "args": map[string]any{}})), "tool")
	require.Contains(t, toolErr(t, cs, "submit_proposal", wsArgs(w.ann, map[string]any{"missionId": mission,
		"tool": "add_comment",
		"args": map[string]any{"text": "x"}})), `unknown field "text"`)
	require.Contains(t, toolErr(t, cs, "report_progress", wsArgs(w.ann, map[string]any{"missionId": mission,
		"message": "x", "percent": 101})), "percent")

	// Garbage of every shape for every tool: a tool error each time.
	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	garbage := []any{nil, map[string]any{}, map[string]any{"org": 5}, map[string]any{"org": strings.Repeat("a", 10000),
		"workspace": nil}, map[string]any{"org": w.ann.OrgSlug, "workspace": w.ann.WsSlug, "projectId": "'; DROP TABLE " +
		"cards; --", "cardId": []int{1}, "missionId": true}}
	for _, tool := range tools.Tools {
		for i, args := range garbage {
			res := callTool(t, cs, tool.Name, args)
			if tool.Name == "list_organizations" && (i == 0 || i == 1) {
				require.False(t, res.IsError, toolText(res))
				continue
			}
			require.True(t, res.IsError, "tool %s args %d: %s", tool.Name, i, toolText(res))
			require.NotContains(t, toolText(res), "internal error", "tool %s args %d", tool.Name, i)
		}
	}
}

// TestMCPClaimIsAtomic: of many clients claiming one mission at once, exactly one wins.
func TestMCPClaimIsAtomic(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	mission := w.queue(w.ann, w.annCard)
	const n = 6
	sessions := make([]*mcp.ClientSession, n)
	for i := range sessions {
		sessions[i] = w.e.mcpSession(w.e.pat(w.ann, nil))
	}
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := sessions[i].CallTool(context.Background(), &mcp.CallToolParams{Name: "claim_mission",
				Arguments: wsArgs(w.ann, map[string]any{"missionId": mission})})
			if err == nil {
				results[i] = res
			}
		}()
	}
	close(start)
	wg.Wait()
	wins := 0
	for _, r := range results {
		require.NotNil(t, r)
		if !r.IsError {
			wins++
		} else {
			require.Contains(t, toolText(r), "conflict")
		}
	}
	require.Equal(t, 1, wins)
	require.Equal(t, 1,
		w.e.count(`SELECT count(*) FROM stream_events WHERE stream_id = $1 AND message = 'mission claimed by an MCP client'`,
			mission))
	// A mission of an agent that is not mcpOnly cannot be claimed.
	worker := w.e.agent(w.ann, "inproc", nil)
	r := w.e.do("POST", wsOf(w.ann)+"/agents/"+worker.ID+"/missions", w.ann.Token, map[string]any{"cardId": w.annCard.ID,
		"prompt": "go"})
	requireStatus(t, r, http.StatusCreated)
	require.Contains(t, toolErr(t, sessions[0], "claim_mission", wsArgs(w.ann,
		map[string]any{"missionId": decode[MissionOut](t, r).ID})), "not mcpOnly")
}

// TestMCPMissionHolderOnly: only the holder of a claim acts on the mission, and the agent's autonomy
// decides what a submitted action becomes.
func TestMCPMissionHolderOnly(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	e := w.e
	member := e.register("max@example.com")
	e.join(w.ann, member, w.ann.OrgSlug, w.ann.WsSlug, "member")
	ann := e.mcpSession(e.pat(w.ann, nil))
	maxSession := e.mcpSession(e.pat(member, nil))
	mission := w.claimed(ann)
	before := e.fingerprint()
	require.Contains(t, toolErr(t, maxSession, "report_progress", wsArgs(w.ann, map[string]any{"missionId": mission,
		"message": "mine"})), "claimed by someone else")
	require.Contains(t, toolErr(t, maxSession, "complete_mission", wsArgs(w.ann, map[string]any{"missionId": mission})),
		"claimed by someone else")
	require.Equal(t, before, e.fingerprint())

	// supervised: a comment applies at once, as the agent's service user; a title change is proposed.
	sup := e.agent(w.ann, "sup", map[string]any{"mcpOnly": true, "autonomyMode": "supervised",
		"tools": []string{"add_comment", "update_card"}})
	r := e.do("POST", wsOf(w.ann)+"/agent-runtime/card-mission", w.ann.Token, map[string]any{"cardId": w.annCard.ID,
		"projectId": w.annCard.ProjectID, "agentId": sup.ID})
	requireStatus(t, r, http.StatusCreated)
	m2 := decode[MissionOut](t, r).ID
	toolOK[ClaimedMissionOut](t, ann, "claim_mission", wsArgs(w.ann, map[string]any{"missionId": m2}))
	step := toolOK[StepOut](t, ann, "submit_proposal", wsArgs(w.ann, map[string]any{"missionId": m2, "tool": "add_comment",
		"args": map[string]any{"content": "on it"}, "stepKey": "c1"}))
	require.Equal(t, "applied", step.Outcome)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM comments WHERE card_id = $1 AND author_id = $2`, w.annCard.ID,
		sup.UserID))
	again := toolOK[StepOut](t, ann, "submit_proposal", wsArgs(w.ann, map[string]any{"missionId": m2,
		"tool": "add_comment", "args": map[string]any{"content": "on it"}, "stepKey": "c1"}))
	require.True(t, again.Replayed)
	require.Equal(t, 1, e.count(`SELECT count(*) FROM comments WHERE card_id = $1`, w.annCard.ID))
	step = toolOK[StepOut](t, ann, "submit_proposal", wsArgs(w.ann, map[string]any{"missionId": m2, "tool": "update_card",
		"args": map[string]any{"title": "Renamed"}}))
	require.Equal(t, "proposed", step.Outcome)
	require.Contains(t, toolErr(t, ann, "submit_proposal", wsArgs(w.ann, map[string]any{"missionId": m2,
		"tool": "move_card", "args": map[string]any{"columnId": w.annCols[1]}})), "may not use")
	done := toolOK[MissionOut](t, ann, "complete_mission", wsArgs(w.ann, map[string]any{"missionId": m2}))
	require.EqualValues(t, "awaiting_approval", done.Status)
	requireStatus(t, e.do("POST", wsOf(w.ann)+"/proposals/"+step.ProposalID+"/approve", w.ann.Token, nil), http.StatusOK)
	require.EqualValues(t, "completed", e.mission(w.ann, m2).Status)
	require.Equal(t, "Renamed", e.getCard(w.ann, w.annPrj, w.annCard.ID).Title)
	// Finished: no more calls.
	require.Contains(t, toolErr(t, ann, "report_progress", wsArgs(w.ann, map[string]any{"missionId": m2,
		"message": "late"})), "conflict")
}

func TestMCPCardResource(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	e := w.e
	cs := e.mcpSession(e.pat(w.ann, []string{"projects:read"}))
	templates, err := cs.ListResourceTemplates(context.Background(), nil)
	require.NoError(t, err)
	var uris []string
	for _, rt := range templates.ResourceTemplates {
		uris = append(uris, rt.URITemplate)
	}
	require.ElementsMatch(t, []string{cardURITemplate, documentURITemplate}, uris)

	uri := cardResourceURI(w.ann.OrgSlug, w.ann.WsSlug, w.projectID(w.annPrj), w.annCard.ID)
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	require.Equal(t, "application/json", res.Contents[0].MIMEType)
	c := decodeJSON[CardOut](t, []byte(res.Contents[0].Text))
	require.Equal(t, w.annCard.ID, c.ID)

	for _, bad := range []string{
		cardResourceURI(w.ann.OrgSlug, w.ann.WsSlug, w.projectID(w.annPrj), w.bobCard.ID),
		cardResourceURI(w.bob.OrgSlug, w.bob.WsSlug, w.projectID(w.bobPrj), w.bobCard.ID),
		cardResourceURI(w.ann.OrgSlug, w.ann.WsSlug, w.projectID(w.annPrj), "not-an-id"),
		"pilot://elsewhere",
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

// TestMCPClaimExpiryJob: claiming schedules the expiry job at the deadline; progress pushes the
// deadline back.
func TestMCPClaimExpiryJob(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	e := w.e
	cs := e.mcpSession(e.pat(w.ann, nil))
	start := time.Now()
	mission := w.claimed(cs)
	var scheduled time.Time
	var args string
	require.NoError(t, e.pool.QueryRow(context.Background(),
		`SELECT scheduled_at, args::text FROM river_job WHERE kind = 'mission_claim_expiry'`).Scan(&scheduled, &args))
	require.WithinDuration(t, start.Add(defaultMcpClaimTimeout), scheduled, 5*time.Second)
	require.JSONEq(t, fmt.Sprintf(`{"missionId":%q,"claimSeq":1}`, mission), args)
	var expires time.Time
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT claim_expires_at FROM agent_missions WHERE id = $1`,
		mission).Scan(&expires))
	toolOK[ProgressOut](t, cs, "report_progress", wsArgs(w.ann, map[string]any{"missionId": mission,
		"message": "still here"}))
	var later time.Time
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT claim_expires_at FROM agent_missions WHERE id = $1`,
		mission).Scan(&later))
	require.True(t, later.After(expires))
}

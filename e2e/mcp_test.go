package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/pgtest"
)

// bearerTransport adds the token to every request of an MCP client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpWorkspace is a person's personal workspace with an mcpOnly agent, a project and a card, built over
// REST on api.
type mcpWorkspace struct {
	person               client
	ws, orgSlug          string
	agent, project, card string
	pat                  string
	agentUserID          string
}

func newMCPWorkspace(t testing.TB, pool *pgxpool.Pool, api *proc, autonomy string) mcpWorkspace {
	t.Helper()
	a, orgSlug, wsSlug := register(t, pool, api, "ann@example.com")
	w := mcpWorkspace{person: a, orgSlug: orgSlug}
	w.ws = "/orgs/" + w.orgSlug + "/workspaces/" + wsSlug
	var agent struct {
		ID     string `json:"id"`
		UserID string `json:"userId"`
	}
	code, raw := a.do("POST", w.ws+"/agents", map[string]any{"name": "Claude outside", "slug": "outside",
		"autonomyMode": autonomy, "mcpOnly": true, "tools": []string{"add_comment", "add_checklist_items"}}, &agent)
	require.Equal(t, http.StatusCreated, code, raw)
	w.agent, w.agentUserID = agent.ID, agent.UserID
	var prj, card idOut
	code, raw = a.do("POST", w.ws+"/projects", map[string]any{"name": "Launch"}, &prj)
	require.Equal(t, http.StatusCreated, code, raw)
	w.project = prj.ID
	code, raw = a.do("POST", w.ws+"/projects/"+prj.ID+"/cards", map[string]any{"title": "Ship the release"}, &card)
	require.Equal(t, http.StatusCreated, code, raw)
	w.card = card.ID
	var tok struct {
		Token string `json:"token"`
	}
	code, raw = a.do("POST", "/api-tokens", map[string]any{"name": "mcp", "scopes": []string{"projects:read",
		"projects:write", "pilotage:read", "pilotage:write"}}, &tok)
	require.Equal(t, http.StatusCreated, code, raw)
	w.pat = tok.Token
	return w
}

// queue starts a card mission of the mcpOnly agent (the answer is the queued mission as JSON).
func (w mcpWorkspace) queue(t *testing.T) string {
	t.Helper()
	var m struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	code, raw := w.person.do("POST", w.ws+"/agent-runtime/card-mission", map[string]any{"cardId": w.card,
		"projectId": w.project}, &m)
	require.Equal(t, http.StatusCreated, code, raw)
	require.EqualValues(t, "queued", m.Status)
	return m.ID
}

// connect opens a Go SDK client session on api's /mcp with token.
func connect(t testing.TB, api *proc, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "external-agent", Version: "1.0.0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: api.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool, requires success and decodes the structured result into out.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	require.False(t, res.IsError, "%s: %+v", name, res.Content)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	if out != nil {
		require.NoError(t, json.Unmarshal(b, out))
	}
}

// nextEvent waits for the stream's next event.
func nextEvent(t *testing.T, ctx context.Context, evs <-chan sseEvent, what string) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-evs:
		require.True(t, ok, "the stream ended before %s", what)
		return ev
	case <-ctx.Done():
		t.Fatalf("no event for %s", what)
		return sseEvent{}
	}
}

// TestMCPOnlyMissionWithGoSDKClient: the Go SDK's own client works an mcpOnly agent's mission end to
// end on api A while a person watches its event stream on api B and approves its proposal over REST;
// then a second mission whose client goes silent returns to the queue (a worker's job) and B's stream
// says so.
func TestMCPOnlyMissionWithGoSDKClient(t *testing.T) {
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	common := baseEnv(dbURL, "DATABASE_MAX_CONNS=8", "MCP_CLAIM_TIMEOUT=2s", "WORKER_POLL_INTERVAL=200ms")
	apiA := start(t, "api", common)
	apiB := start(t, "api", common)
	start(t, "worker", common)
	w := newMCPWorkspace(t, pool, apiA, "approval")
	b := client{t: t, base: apiB.URL, token: w.person.token}
	args := func(extra map[string]any) map[string]any {
		m := map[string]any{"org": w.orgSlug, "workspace": "personal"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}

	missionID := w.queue(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	respB, evB := stream(t, ctx, "GET", apiB.URL+w.ws+"/missions/"+missionID+"/events", w.person.token, nil)
	defer respB.Body.Close()
	require.EqualValues(t, "queued", nextEvent(t, ctx, evB, "the queued event").Data.Status)

	cs := connect(t, apiA, w.pat)
	var queued struct {
		Missions []struct {
			ID string `json:"id"`
		} `json:"missions"`
	}
	call(t, cs, "list_queued_missions", args(nil), &queued)
	require.Len(t, queued.Missions, 1)
	require.Equal(t, missionID, queued.Missions[0].ID)

	var claimed struct {
		Mission struct {
			Status string `json:"status"`
		} `json:"mission"`
		Card struct {
			Title string `json:"title"`
		} `json:"card"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	call(t, cs, "claim_mission", args(map[string]any{"missionId": missionID}), &claimed)
	require.EqualValues(t, "running", claimed.Mission.Status)
	require.Equal(t, "Ship the release", claimed.Card.Title)
	require.Len(t, claimed.Tools, 2)
	ev := nextEvent(t, ctx, evB, "the claim")
	require.Equal(t, "status", ev.Event)
	require.EqualValues(t, "running", ev.Data.Status)

	// Progress shows on api B's stream.
	call(t, cs, "report_progress", args(map[string]any{"missionId": missionID, "message": "read the card; drafting a plan",
		"percent": 40}), nil)
	ev = nextEvent(t, ctx, evB, "the progress report")
	require.Equal(t, "step", ev.Event)
	require.Equal(t, "read the card; drafting a plan", ev.Data.Message)

	// The proposal goes through the agent's autonomy (approval): proposed, nothing applied yet.
	var step struct {
		Outcome    string `json:"outcome"`
		ProposalID string `json:"proposalId"`
	}
	call(t, cs, "submit_proposal", args(map[string]any{"missionId": missionID, "tool": "add_comment",
		"args": map[string]any{"content": "Plan: tag, build, announce"}, "explanation": "a release plan"}), &step)
	require.Equal(t, "proposed", step.Outcome)
	require.Equal(t, 0, count(t, pool, `SELECT count(*) FROM comments WHERE card_id = $1`, w.card))
	require.Equal(t, "proposal", nextEvent(t, ctx, evB, "the proposal").Event)
	require.Equal(t, "step", nextEvent(t, ctx, evB, "the proposal's step").Event)

	var m missionOut
	call(t, cs, "complete_mission", args(map[string]any{"missionId": missionID, "summary": "proposed a plan"}), &m)
	require.EqualValues(t, "awaiting_approval", m.Status)
	ev = nextEvent(t, ctx, evB, "awaiting approval")
	require.EqualValues(t, "awaiting_approval", ev.Data.Status)

	// A person approves over REST (on api B): the comment is applied as the agent and the mission completes.
	var decided struct {
		Status string `json:"status"`
	}
	code, raw := b.do("POST", w.ws+"/proposals/"+step.ProposalID+"/approve", nil, &decided)
	require.Equal(t, http.StatusOK, code, raw)
	code, raw = b.do("GET", w.ws+"/missions/"+missionID, nil, &m)
	require.Equal(t, http.StatusOK, code, raw)
	require.EqualValues(t, "completed", m.Status)
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM comments WHERE card_id = $1 AND author_id = $2`, w.card,
		w.agentUserID))
	// Awaiting approval did not end api B's stream: the same connection shows the decision and the
	// completion, then ends.
	ev = nextEvent(t, ctx, evB, "the approval")
	require.Equal(t, "proposal", ev.Event)
	ev = nextEvent(t, ctx, evB, "the completion")
	require.Equal(t, "done", ev.Event)
	require.EqualValues(t, "completed", ev.Data.Status)
	select {
	case extra, ok := <-evB:
		require.False(t, ok, "api B's stream went on after the completion: %+v", extra)
	case <-ctx.Done():
		t.Fatal("api B's stream did not end after the completion")
	}

	// A second mission, claimed, then its client goes silent past MCP_CLAIM_TIMEOUT (2s): a worker's job
	// puts it back in the queue, and api B's stream says so.
	second := w.queue(t)
	resp2, ev2 := stream(t, ctx, "GET", apiB.URL+w.ws+"/missions/"+second+"/events", w.person.token, nil)
	defer resp2.Body.Close()
	require.EqualValues(t, "queued", nextEvent(t, ctx, ev2, "the queued event").Data.Status)
	call(t, cs, "claim_mission", args(map[string]any{"missionId": second}), nil)
	require.EqualValues(t, "running", nextEvent(t, ctx, ev2, "the claim").Data.Status)
	ev = nextEvent(t, ctx, ev2, "the claim's expiry")
	require.Equal(t, "status", ev.Event)
	require.EqualValues(t, "queued", ev.Data.Status)
	require.Contains(t, ev.Data.Message, "went silent")
	require.Equal(t, "queued", missionStatus(t, pool, second))
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "report_progress",
		Arguments: args(map[string]any{"missionId": second, "message": "back"})})
	require.NoError(t, err)
	require.True(t, res.IsError, "the lapsed claim no longer holds")
}

// TestMCPWithTypeScriptSDKClient: the official TypeScript SDK's client (npm, pinned in
// e2e/mcpclient/package-lock.json, installed by scripts/mcp-ts-client.sh) lists the tools and calls
// five of them with a personal access token.
func TestMCPWithTypeScriptSDKClient(t *testing.T) {
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	api := start(t, "api", []string{"DATABASE_URL=" + dbURL, "APP_ENV=development",
		"JWT_SECRET=e2e-secret-e2e-secret-e2e-secret-e2e", "DATABASE_MAX_CONNS=4"})
	w := newMCPWorkspace(t, pool, api, "approval")

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "../scripts/mcp-ts-client.sh", api.URL+"/mcp", w.pat, w.orgSlug, "personal", w.project,
		w.card)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "the TypeScript client failed: %s", stderr.String())
	var out struct {
		Tools         []string `json:"tools"`
		Organizations struct {
			Organizations []struct {
				Slug string `json:"slug"`
			} `json:"organizations"`
		} `json:"organizations"`
		Card struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"card"`
		Comment struct {
			Content  string `json:"content"`
			AuthorID string `json:"authorId"`
		} `json:"comment"`
		Search struct {
			Results []struct {
				Kind    string `json:"kind"`
				ID      string `json:"id"`
				Snippet string `json:"snippet"`
			} `json:"results"`
		} `json:"search"`
		Action struct {
			Status string          `json:"status"`
			Result json.RawMessage `json:"result"`
		} `json:"action"`
		ActionIsError  bool   `json:"actionIsError"`
		CommentIsError bool   `json:"commentIsError"`
		BadIsError     bool   `json:"badIsError"`
		BadText        string `json:"badText"`
	}
	require.NoError(t, json.Unmarshal(stdout, &out), "output: %s", stdout)
	require.Contains(t, out.Tools, "get_card")
	require.Contains(t, out.Tools, "claim_mission")
	require.Len(t, out.Organizations.Organizations, 1)
	require.Equal(t, w.orgSlug, out.Organizations.Organizations[0].Slug)
	require.Equal(t, w.card, out.Card.ID)
	require.Equal(t, "Ship the release", out.Card.Title)
	require.False(t, out.CommentIsError)
	require.Equal(t, "from the TypeScript SDK", out.Comment.Content)
	require.Equal(t, 1, count(t, pool, `SELECT count(*) FROM activities WHERE card_id = $1 AND type = 'comment_added'`,
		w.card))
	require.True(t, out.BadIsError)
	require.Contains(t, out.BadText, "cardId")
	require.Len(t, out.Search.Results, 1)
	require.Equal(t, "card", out.Search.Results[0].Kind)
	require.Equal(t, w.card, out.Search.Results[0].ID)
	require.False(t, out.ActionIsError)
	require.EqualValues(t, "suggested", out.Action.Status)
	require.JSONEq(t, "null", string(out.Action.Result))
}

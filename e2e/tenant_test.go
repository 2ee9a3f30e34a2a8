package e2e

import (
	"context"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// tenant is a registered user with their personal workspace, a project, a card and an agent.
type tenant struct {
	client
	ws, prj, card, agent string
}

// newTenant registers email through api and builds a project with one card and an autonomous agent that
// comments and adds checklist items.
func newTenant(t *testing.T, pool *pgxpool.Pool, api *proc, email string) tenant {
	t.Helper()
	c, org, ws := register(t, pool, api, email)
	tn := tenant{client: c, ws: "/orgs/" + org + "/workspaces/" + ws}
	var agent, prj, card idOut
	code, raw := c.do("POST", tn.ws+"/agents", map[string]any{"name": "Planner", "slug": "planner",
		"autonomyMode": "autonomous", "tools": []string{"add_comment", "add_checklist_items"},
		"limits": map[string]any{"maxMissionsPerHour": 1000}}, &agent)
	require.Equal(t, http.StatusCreated, code, raw)
	code, raw = c.do("POST", tn.ws+"/projects", map[string]any{"name": "Launch"}, &prj)
	require.Equal(t, http.StatusCreated, code, raw)
	tn.agent, tn.prj = agent.ID, tn.ws+"/projects/"+prj.ID
	code, raw = c.do("POST", tn.prj+"/cards", map[string]any{"title": "Ship the release"}, &card)
	require.Equal(t, http.StatusCreated, code, raw)
	tn.card = card.ID
	return tn
}

// on is the tenant's client talking to another api process.
func (tn tenant) on(api *proc) client {
	c := tn.client
	c.base = api.URL
	return c
}

// prjID is the project's id (the last segment of tn.prj).
func (tn tenant) prjID() string { return tn.prj[len(tn.prj)-36:] }

// register registers email through api: the client holds its session, org and ws are the slugs of its
// personal organization and workspace.
func register(t testing.TB, pool *pgxpool.Pool, api *proc, email string) (c client, org, ws string) {
	t.Helper()
	c = client{t: t, base: api.URL}
	var reg struct {
		AccessToken string `json:"access_token"`
		User        struct {
			ID string `json:"id"`
		} `json:"user"`
	}
	code, raw := c.do("POST", "/auth/register", map[string]any{"email": email, "password": "correct-horse"}, &reg)
	require.Equal(t, http.StatusCreated, code, raw)
	c.token = reg.AccessToken
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT o.slug, w.slug FROM workspaces w
		JOIN organizations o ON o.id = w.organization_id JOIN workspace_members m ON m.workspace_id = w.id
		WHERE m.user_id = $1 ORDER BY w.created_at LIMIT 1`, reg.User.ID).Scan(&org, &ws))
	return c, org, ws
}

package api

// The operations are methods of small types by area, each a view of the Server (its store, engines and
// options), so that no type carries every handler: accounts (sign-up, sessions, second factor, tokens,
// notifications), tenancy (organizations, workspaces, projects), the board (cards and their parts,
// scopes, the portfolio), agents (agents, missions, drafts, streams), workflows (automations,
// pipelines, plugins), the cockpit and the knowledge base. The Server keeps the guard, the MCP server
// and what they share; MCP tools call the areas' operations through the Server's fields.
type (
	accountOps  struct{ *Server }
	tenancyOps  struct{ *Server }
	boardOps    struct{ *Server }
	agentOps    struct{ *Server }
	workflowOps struct{ *Server }
	pilotageOps struct{ *Server }
	documentOps struct{ *Server }
)

// ops are the Server's areas.
type ops struct {
	account  accountOps
	tenancy  tenancyOps
	board    boardOps
	agents   agentOps
	workflow workflowOps
	cockpit  pilotageOps
	docs     documentOps
}

func (s *Server) initOps() {
	s.ops = ops{account: accountOps{s}, tenancy: tenancyOps{s}, board: boardOps{s}, agents: agentOps{s},
		workflow: workflowOps{s}, cockpit: pilotageOps{s}, docs: documentOps{s}}
}

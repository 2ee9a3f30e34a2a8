package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/internal/auth"
)

// defaultUsageDays is how many days, today included, the usage report covers without from.
const defaultUsageDays = 30

// AgentUsageInput is the request of agent-usage.
type AgentUsageInput struct {
	WorkspacePath
	From string `query:"from" format:"date" doc:"First day (UTC, YYYY-MM-DD), included; default 29 days before to"`
	To   string `query:"to" format:"date" doc:"Last day (UTC, YYYY-MM-DD), included; default today"`
}

// AgentUsageRowOut is one agent's usage: on one day, or over the whole range.
type AgentUsageRowOut struct {
	Day              string  `json:"day,omitempty" doc:"The day (UTC); absent in the totals per agent"`
	AgentID          string  `json:"agentId"`
	AgentName        string  `json:"agentName" doc:"Empty once the agent is deleted"`
	Missions         int32   `json:"missions" doc:"Missions created that day"`
	ModelTurns       int32   `json:"modelTurns" doc:"Model calls made that day"`
	PromptTokens     int64   `json:"promptTokens"`
	CompletionTokens int64   `json:"completionTokens"`
	TotalTokens      int64   `json:"totalTokens"`
	WallSeconds      float64 `json:"wallSeconds" doc:"Wall time of the missions created that day"`
	WaitingSeconds   float64 `json:"waitingSeconds" doc:"Time those missions waited for people"`
}

// AgentUsageOut is the workspace's agents' usage over a range of days.
type AgentUsageOut struct {
	From   string             `json:"from"`
	To     string             `json:"to"`
	Days   []AgentUsageRowOut `json:"days" doc:"Per day and agent, by day then agent id; days without use are left out"`
	Agents []AgentUsageRowOut `json:"agents" doc:"Per agent, over the range, in order of first use"`
	// MaxTokensPerDay is the workspace's budget, for the reader to compare the days with.
	MaxTokensPerDay *int64 `json:"maxTokensPerDay" nullable:"true" doc:"The workspace's daily token budget; null: none"`
}

// registerAgentUsage registers the agents' usage report.
func (s agentOps) registerAgentUsage() {
	register(s.Server, huma.Operation{OperationID: "agent-usage", Method: http.MethodGet,
		Path: pathWorkspace + "/agent-usage", Summary: "Sum the agents' model calls, tokens and time per agent and day",
		Tags: []string{"Agents"}, Description: "Members. Days are UTC dates, `from` and `to` both included (default: the " +
			"last 30 days, today included); `from` after `to`, a range over 366 days or a malformed date answer 400. Model " +
			"calls and tokens count on the day they were made; missions, their wall time and their time waiting for people " +
			"on the day the mission was created."},
		Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}, s.agentUsage)
}

func (s agentOps) agentUsage(ctx context.Context, in *AgentUsageInput) (*Output[AgentUsageOut], error) {
	to := time.Now().UTC()
	if in.To != "" {
		t, err := time.Parse(time.DateOnly, in.To)
		if err != nil {
			return nil, errBadRequest("to must be a date (YYYY-MM-DD)")
		}
		to = t
	}
	from := to.AddDate(0, 0, -(defaultUsageDays - 1))
	if in.From != "" {
		t, err := time.Parse(time.DateOnly, in.From)
		if err != nil {
			return nil, errBadRequest("from must be a date (YYYY-MM-DD)")
		}
		from = t
	}
	ws := accessFrom(ctx).WorkspaceID
	rows, err := s.missions.AgentUsage(ctx, ws, from, to)
	if err != nil {
		return nil, fail(err)
	}
	settings, err := s.missions.WorkspaceAgentSettings(ctx, ws)
	if err != nil {
		return nil, fail(err)
	}
	out := AgentUsageOut{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), Days: []AgentUsageRowOut{},
		Agents: []AgentUsageRowOut{}, MaxTokensPerDay: settings.MaxTokensPerDay}
	totals := map[string]int{}
	for _, r := range rows {
		day := usageRowOut(r)
		out.Days = append(out.Days, day)
		i, ok := totals[r.AgentID]
		if !ok {
			i = len(out.Agents)
			totals[r.AgentID] = i
			out.Agents = append(out.Agents, AgentUsageRowOut{AgentID: r.AgentID, AgentName: r.AgentName})
		}
		t := &out.Agents[i]
		t.Missions += day.Missions
		t.ModelTurns += day.ModelTurns
		t.PromptTokens += day.PromptTokens
		t.CompletionTokens += day.CompletionTokens
		t.TotalTokens += day.TotalTokens
		t.WallSeconds = roundSeconds(t.WallSeconds + day.WallSeconds)
		t.WaitingSeconds = roundSeconds(t.WaitingSeconds + day.WaitingSeconds)
	}
	return &Output[AgentUsageOut]{Body: out}, nil
}

func usageRowOut(r mission.AgentUsageDay) AgentUsageRowOut {
	return AgentUsageRowOut{Day: r.Day, AgentID: r.AgentID, AgentName: r.AgentName, Missions: r.Missions,
		ModelTurns: r.ModelTurns, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
		TotalTokens: r.PromptTokens + r.CompletionTokens, WallSeconds: roundSeconds(r.WallSeconds),
		WaitingSeconds: roundSeconds(r.WaitingSeconds)}
}

package mission

// This file is what missions cost: each model call's tokens counted on its mission and its agent's day,
// the workspace's daily token budget (agent settings) that refuses new missions and stops running ones
// once spent, and the usage report per agent and day.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// StopForBudget is the runner ending a running mission because the workspace's daily token budget is
// spent: stopped with reason budget, as a stop does (StopMissionTx: what it applied stays, pending
// proposals rejected, a done event), its job left to end by itself. A mission no longer running is left
// alone.
func (e *Engine) StopForBudget(ctx context.Context, missionID string) (db.AgentMission, error) {
	var out db.AgentMission
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		m, err := q.MissionGetForUpdate(ctx, missionID)
		if err != nil {
			return dbcore.Wrap(err, "lock mission")
		}
		if db.MissionStatus(m.Status) != db.MissionRunning {
			out = db.AgentMission(m)
			return nil
		}
		out, err = e.StopMissionTx(ctx, tx, db.RecordEdit{WorkspaceID: m.WorkspaceID, ID: m.ID}, StopEvent{
			Reason: db.StopBudget, Message: "mission stopped: the workspace's agents used today's token budget",
			OwnJob: true})
		return err
	})
	return out, err
}

// TurnUsage is what one model call cost.
type TurnUsage struct {
	PromptTokens, CompletionTokens int64
}

// RecordModelTurn counts one model call of a mission and its tokens, on the mission and on its agent's
// day (UTC), in one transaction. Calls made again by a retried attempt count again: they were spent.
func (e *Engine) RecordModelTurn(ctx context.Context, missionID string, u TurnUsage) error {
	u.PromptTokens, u.CompletionTokens = max(u.PromptTokens, 0), max(u.CompletionTokens, 0)
	return e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		ref, err := q.MissionCountTurn(ctx, dbsqlc.MissionCountTurnParams{ID: missionID, PromptTokens: u.PromptTokens,
			CompletionTokens: u.CompletionTokens})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("mission not found")
		}
		if err != nil {
			return fmt.Errorf("count model turn: %w", err)
		}
		return dbcore.Wrap(q.AgentUsageAdd(ctx, dbsqlc.AgentUsageAddParams{WorkspaceID: ref.WorkspaceID,
			AgentID: ref.AgentID, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}), "count agent usage")
	})
}

// AgentSettings are a workspace's settings for its agents. MaxTokensPerDay nil means no budget.
type AgentSettings struct {
	MaxTokensPerDay *int64
}

// MaxTokensPerDayLimit bounds a budget (a number JSON and the web app carry exactly).
const MaxTokensPerDayLimit = 1_000_000_000_000

// WorkspaceAgentSettings reads a workspace's agent settings (the defaults when never set).
func (e *Engine) WorkspaceAgentSettings(ctx context.Context, workspaceID string) (AgentSettings, error) {
	n, err := e.core.Q.AgentSettingsGet(ctx, workspaceID)
	if dbcore.IsNotFound(err) {
		return AgentSettings{}, nil
	}
	return AgentSettings{MaxTokensPerDay: n}, dbcore.Wrap(err, "read agent settings")
}

// SetWorkspaceAgentSettings replaces a workspace's agent settings: a budget of 1 to MaxTokensPerDayLimit
// tokens a day, or nil for none.
func (e *Engine) SetWorkspaceAgentSettings(ctx context.Context, workspaceID string, s AgentSettings) (AgentSettings,
	error) {
	if n := s.MaxTokensPerDay; n != nil && (*n < 1 || *n > MaxTokensPerDayLimit) {
		return AgentSettings{}, dbcore.Invalid(fmt.Sprintf("agentSettings.maxTokensPerDay must be 1 to %d, or null for "+
			"no budget", int64(MaxTokensPerDayLimit)))
	}
	err := e.core.Q.AgentSettingsSet(ctx, dbsqlc.AgentSettingsSetParams{WorkspaceID: workspaceID,
		MaxTokensPerDay: s.MaxTokensPerDay})
	if dbcore.IsMissingRef(err) {
		return AgentSettings{}, dbcore.NotFound("workspace not found")
	}
	return s, dbcore.Wrap(err, "set agent settings")
}

// BudgetExceeded says whether the workspace's agents used today (UTC) all the tokens its budget allows
// (never, without a budget). The runner asks before each model call; creating a mission asks too.
func (e *Engine) BudgetExceeded(ctx context.Context, workspaceID string) (bool, error) {
	over, _, err := budgetState(ctx, e.core.Q, workspaceID)
	return over, err
}

// budgetState reads whether the budget is spent, and the budget.
func budgetState(ctx context.Context, q *dbsqlc.Queries, workspaceID string) (over bool, budget int64, err error) {
	b, err := q.AgentBudget(ctx, workspaceID)
	if dbcore.IsNotFound(err) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, fmt.Errorf("read token budget: %w", err)
	}
	return b.MaxTokensPerDay > 0 && b.Spent >= b.MaxTokensPerDay, b.MaxTokensPerDay, nil
}

// checkBudgetTx refuses a new mission (ErrTooManyRequests) once the day's budget is spent.
func checkBudgetTx(ctx context.Context, q *dbsqlc.Queries, workspaceID string) error {
	over, budget, err := budgetState(ctx, q, workspaceID)
	if err != nil || !over {
		return err
	}
	return &db.Error{Kind: ErrTooManyRequests, Msg: fmt.Sprintf("the workspace's agents used today's token budget "+
		"(%d tokens a day, agentSettings.maxTokensPerDay); new missions can start tomorrow (UTC) or once an admin raises "+
		"it", budget)}
}

// AgentUsageDay is one agent's usage on one day (UTC): model calls and tokens on that day, and the
// missions created that day with their wall time and time waiting for people.
type AgentUsageDay struct {
	Day                            string // YYYY-MM-DD
	AgentID, AgentName             string
	Missions, ModelTurns           int32
	PromptTokens, CompletionTokens int64
	WallSeconds, WaitingSeconds    float64
}

// MaxUsageDays bounds the days one usage report covers.
const MaxUsageDays = 366

// AgentUsage reports a workspace's agents' usage per day and agent, for the days from first to last
// (UTC dates, both included, at most MaxUsageDays), ordered by day then agent id.
func (e *Engine) AgentUsage(ctx context.Context, workspaceID string, first, last time.Time) ([]AgentUsageDay, error) {
	first, last = utcDay(first), utcDay(last)
	if last.Before(first) {
		return nil, dbcore.Invalid("from must not be after to")
	}
	if days := int(last.Sub(first).Hours()/24) + 1; days > MaxUsageDays {
		return nil, dbcore.Invalid(fmt.Sprintf("a usage report covers at most %d days (asked: %d)", MaxUsageDays, days))
	}
	tokens, err := e.core.Q.AgentUsageByDay(ctx, dbsqlc.AgentUsageByDayParams{WorkspaceID: workspaceID,
		First: pgtype.Date{Time: first, Valid: true}, Last: pgtype.Date{Time: last, Valid: true}})
	if err != nil {
		return nil, dbcore.Wrap(err, "read agent usage")
	}
	times, err := e.core.Q.AgentMissionTimeByDay(ctx, dbsqlc.AgentMissionTimeByDayParams{WorkspaceID: workspaceID,
		Since: first, Until: last.AddDate(0, 0, 1)})
	if err != nil {
		return nil, dbcore.Wrap(err, "read mission times")
	}
	type key struct{ day, agent string }
	byKey := map[key]*AgentUsageDay{}
	var keys []key
	row := func(day, agentID, name string) *AgentUsageDay {
		k := key{day, agentID}
		if r, ok := byKey[k]; ok {
			if r.AgentName == "" {
				r.AgentName = name
			}
			return r
		}
		byKey[k] = &AgentUsageDay{Day: day, AgentID: agentID, AgentName: name}
		keys = append(keys, k)
		return byKey[k]
	}
	for _, t := range tokens {
		r := row(t.Day, t.AgentID, t.AgentName)
		r.ModelTurns, r.PromptTokens, r.CompletionTokens = t.ModelTurns, t.PromptTokens, t.CompletionTokens
	}
	for _, t := range times {
		r := row(t.Day, t.AgentID, t.AgentName)
		r.Missions, r.WallSeconds, r.WaitingSeconds = t.Missions, t.WallSeconds, t.WaitingSeconds
	}
	out := make([]AgentUsageDay, 0, len(keys))
	for _, k := range keys {
		out = append(out, *byKey[k])
	}
	sortUsage(out)
	return out, nil
}

func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func sortUsage(rows []AgentUsageDay) {
	slices.SortFunc(rows, func(a, b AgentUsageDay) int {
		return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.AgentID, b.AgentID))
	})
}

package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMCPSubmitProposalValidatedAtOnce: a proposal is checked as applying it would check it (the apply
// path itself, rolled back) when it is submitted. One that could not apply is refused at once with the
// store's reason, and leaves no pending proposal for an approver to meet a 400 on; a valid one is still
// proposed, changes nothing until approved, and applies on approval.
func TestMCPSubmitProposalValidatedAtOnce(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t)
	e := w.e
	cs := e.mcpSession(e.pat(w.ann, nil))
	mission := w.claimed(cs) // Ann's agent works in approval mode: every action is a proposal
	submit := func(tool string, args map[string]any) map[string]any {
		return wsArgs(w.ann, map[string]any{"missionId": mission, "tool": tool, "args": args})
	}
	proposals := func() int {
		return e.count(`SELECT count(*) FROM agent_proposals WHERE mission_id = $1`, mission)
	}

	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"a column id that is no id", "move_card", map[string]any{"columnId": "nonexistent"}, "bad request: refused: " +
			"columnId is not a column of this project"},
		{"no such column", "move_card", map[string]any{"columnId": "01900000-0000-7000-8000-000000000000"},
			"bad request: refused: columnId is not a column of this project"}, {"another tenant's column", "move_card",
			map[string]any{"columnId": w.bobCols[0]}, "bad request: refused: columnId is not a column of this project"},
		{"an unknown priority", "update_card", map[string]any{"priority": "urgent"}, "bad request: refused: priority must " +
			"be low, medium or high"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, toolErr(t, cs, "submit_proposal", submit(c.tool, c.args)))
		})
	}
	require.Zero(t, proposals(), "nothing refused was left pending")

	// A valid proposal: proposed, and the check that ran it left nothing behind.
	activities := e.count(`SELECT count(*) FROM activities WHERE card_id = $1`, w.annCard.ID)
	step := toolOK[StepOut](t, cs, "submit_proposal", submit("move_card", map[string]any{"columnId": w.annCols[1]}))
	require.Equal(t, "proposed", step.Outcome)
	require.Equal(t, 1, proposals())
	require.Equal(t, w.annCols[0], e.getCard(w.ann, w.annPrj, w.annCard.ID).ColumnID, "not moved before the approval")
	require.Equal(t, activities, e.count(`SELECT count(*) FROM activities WHERE card_id = $1`, w.annCard.ID))

	done := toolOK[MissionOut](t, cs, "complete_mission", wsArgs(w.ann, map[string]any{"missionId": mission}))
	require.EqualValues(t, "awaiting_approval", done.Status)
	requireStatus(t, e.do("POST", wsOf(w.ann)+"/proposals/"+step.ProposalID+"/approve", w.ann.Token, nil), http.StatusOK)
	require.Equal(t, w.annCols[1], e.getCard(w.ann, w.annPrj, w.annCard.ID).ColumnID)
	require.EqualValues(t, "completed", e.mission(w.ann, mission).Status)
}

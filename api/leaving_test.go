package api

import (
	"context"
	"net/http"
	"path"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/jobs"
)

// fanOutRecorded does, for every activity recorded so far, what its notify job does (the job itself
// runs later, when a test starts a worker, and then adds nothing).
func (e *testEnv) fanOutRecorded() {
	e.t.Helper()
	ctx := context.Background()
	// as their jobs would
	rows, err := e.pool.Query(ctx, `SELECT id::text FROM activities WHERE type <> ALL($1)`, db.FeedOnlyActivityTypes)
	require.NoError(e.t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(e.t, err)
	for _, id := range ids {
		_, err := e.eng.Notifications.FanOutNotifications(ctx, id)
		require.NoError(e.t, err)
	}
}

// notificationTypes lists the activity types of u's notifications, newest first.
func (e *testEnv) notificationTypes(u user) []string {
	e.t.Helper()
	r := e.do("GET", "/notifications?limit=100", u.Token, nil)
	requireStatus(e.t, r, http.StatusOK)
	out := []string{}
	for _, n := range decode[[]NotificationOut](e.t, r) {
		out = append(out, n.Activity.Type)
	}
	return out
}

// Leaving means leaving: an organization admin removes a member who was on a project, assigned a card
// and running a pipeline. From then on the member hears nothing of the project (neither of a comment
// made just before the removal, whose job had not run yet, nor of the comment and card made after),
// is no project member, their card is unassigned (the member who stays hears of it: card_assigned,
// assigneeId null) and the run they started is cancelled before it creates anything in their name.
func TestRemovedMemberLeavesTheOrganizationsWork(t *testing.T) {
	t.Parallel()
	e := setup(t)
	admin := e.register("admin@example.com")
	leaver := e.register("leaver@example.com")
	stay := e.register("stay@example.com")
	e.join(admin, leaver, admin.OrgSlug, admin.WsSlug, "admin")
	e.join(admin, stay, admin.OrgSlug, admin.WsSlug, "member")
	prj, cols := e.project(admin, "Shared")
	for _, u := range []user{leaver, stay} {
		requireStatus(t, e.do("POST", prj+"/members", admin.Token, map[string]any{"email": u.Email}), http.StatusCreated)
	}
	card := prj + "/cards/" + e.card(admin, prj, cols[0], "For the leaver").ID
	requireStatus(t, e.do("PATCH", card, admin.Token, map[string]any{"assigneeId": leaver.ID}), http.StatusOK)
	// The leaver, a workspace admin, starts a run that waits a week, then creates a card as them.
	p := e.createPipeline(admin, map[string]any{"name": "Later", "steps": []pstep{
		{"id": "wait", "type": "wait", "params": map[string]any{"duration": "168h"}},
		{"id": "make", "type": "create_card", "needs": []string{"wait"}, "params": map[string]any{"projectId": path.Base(prj),
			"title": "Made later"}},
	}})
	run := e.do("POST", wsOf(admin)+"/pipelines/"+p.ID+"/runs", leaver.Token, nil)
	requireStatus(t, run, http.StatusCreated)
	started := decode[RunOut](t, run)
	require.Equal(t, leaver.ID, started.StartedBy)

	e.fanOutRecorded()
	before := e.notificationTypes(leaver)
	require.ElementsMatch(t, []string{"member_added", "member_added", "card_created", "card_assigned"}, before,
		"while a member, they hear of the project")
	requireStatus(t, e.do("POST", card+"/comments", admin.Token, map[string]any{"content": "Said before the removal"}),
		http.StatusCreated)

	requireStatus(t, e.do("DELETE", "/organizations/"+admin.OrgSlug+"/members/"+leaver.ID, admin.Token, nil),
		http.StatusOK)

	requireStatus(t, e.do("POST", card+"/comments", admin.Token, map[string]any{"content": "Said after"}),
		http.StatusCreated)
	e.card(admin, prj, cols[0], "New work")
	e.startWorker()
	e.waitJobsDone(jobs.NotifyActivityArgs{}.Kind())

	require.Equal(t, before, e.notificationTypes(leaver), "nothing after the removal, nor what was recorded before and "+
		"fanned out after")
	require.Subset(t, e.notificationTypes(stay), []string{"comment_added", "comment_added", "card_created",
		"card_assigned", "member_removed"}, "the member who stays hears of it all")
	requireStatus(t, e.do("GET", prj, leaver.Token, nil), http.StatusNotFound)

	r := e.do("GET", prj+"/members", admin.Token, nil)
	requireStatus(t, r, http.StatusOK)
	for _, m := range decode[[]ProjectMemberOut](t, r) {
		require.NotEqual(t, leaver.ID, m.UserID, "no project member any more")
	}
	r = e.do("GET", card, admin.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Nil(t, decode[CardOut](t, r).AssigneeID)
	r = e.do("GET", "/notifications?limit=100", stay.Token, nil)
	requireStatus(t, r, http.StatusOK)
	unassigned := 0
	for _, n := range decode[[]NotificationOut](t, r) {
		if n.Activity.Type == "card_assigned" {
			meta := decodeJSON[map[string]any](t, n.Activity.Meta)
			if meta["assigneeId"] == nil && meta["previousAssigneeId"] == leaver.ID {
				unassigned++
			}
		}
	}
	require.Equal(t, 1, unassigned, "the card's unassignment is recorded as card_assigned with assigneeId null")

	r = e.do("GET", wsOf(admin)+"/pipelines/"+started.PipelineID+"/runs/"+started.ID, admin.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.EqualValues(t, "cancelled", decode[RunOut](t, r).Status)
	require.Zero(t, e.count(`SELECT count(*) FROM cards WHERE title = 'Made later'`))
}

// A workspace admin removes a member from the workspace (or a member leaves it themselves) with the
// same consequences there; a member may not remove someone else, the workspace owner cannot be
// removed, and an organization admin is refused (they act as admin in every workspace).
func TestRemoveWorkspaceMember(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner, member, prj, cols := e.team()
	other := e.register("other@example.com")
	e.join(owner, other, owner.OrgSlug, owner.WsSlug, "member")
	boss := e.register("boss@example.com")
	e.join(owner, boss, owner.OrgSlug, owner.WsSlug, "member")
	requireStatus(t, e.do("PATCH", "/organizations/"+owner.OrgSlug+"/members/"+boss.ID, owner.Token,
		map[string]any{"role": "admin"}), http.StatusOK)
	card := prj + "/cards/" + e.card(owner, prj, cols[0], "Theirs").ID
	requireStatus(t, e.do("PATCH", card, owner.Token, map[string]any{"assigneeId": member.ID}), http.StatusOK)
	members := wsOf(owner) + "/members/"

	requireStatus(t, e.do("DELETE", members+other.ID, member.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", members+owner.ID, owner.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", members+boss.ID, owner.Token, nil), http.StatusConflict)
	requireStatus(t, e.do("DELETE", members+other.ID, other.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", wsOf(owner), other.Token, nil), http.StatusNotFound)

	requireStatus(t, e.do("DELETE", members+member.ID, owner.Token, nil), http.StatusOK)
	requireStatus(t, e.do("DELETE", members+member.ID, owner.Token, nil), http.StatusNotFound)
	r := e.do("GET", card, owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Nil(t, decode[CardOut](t, r).AssigneeID)
	require.Zero(t, e.count(`SELECT count(*) FROM project_members WHERE user_id = $1`, member.ID))
	r = e.do("GET", "/organizations/"+owner.OrgSlug+"/members", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ids := []string{}
	for _, m := range decode[[]OrgMemberOut](t, r) {
		ids = append(ids, m.UserID)
	}
	require.Contains(t, ids, member.ID, "they stay a member of the organization")
}

// A mission the removed member started is stopped with the removal: whoever watches it sees its done
// event, with its final status and why, and the stream ends; the mission reads stopped (creator_left).
func TestRemovedMembersMissionEndsItsStream(t *testing.T) {
	t.Parallel()
	s := newStreamServer(t, nil, stream.Config{})
	admin, leaver := s.register("admin@example.com"), s.register("leaver@example.com")
	s.join(admin, leaver, admin.OrgSlug, admin.WsSlug, "member")
	m := s.newTestMission(user{ID: leaver.ID, OrgSlug: admin.OrgSlug, WsSlug: admin.WsSlug}, "running")
	st := s.open(admin, m, nil)

	requireStatus(t, s.do("DELETE", admin.ws()+"/members/"+leaver.ID, admin.Token, nil), http.StatusOK)
	f := st.NextEvent(t, streamWait)
	require.Equal(t, "done", f.Event)
	ev := decodeJSON[stream.Event](t, []byte(f.Data))
	require.Equal(t, "stopped", ev.Status)
	require.Equal(t, "mission stopped: the member who started it left the workspace", ev.Message)
	require.Equal(t, map[string]any{"stoppedBy": admin.ID, "reason": "creator_left"},
		decodeJSON[map[string]any](t, ev.Data))
	st.RequireEnd(t, streamWait)

	r := s.do("GET", admin.ws()+"/missions/"+m, admin.Token, nil)
	requireStatus(t, r, http.StatusOK)
	got := decode[MissionOut](t, r)
	require.EqualValues(t, "stopped", got.Status)
	require.EqualValues(t, new(db.StopCreatorLeft), got.StopReason)
	require.NotNil(t, got.CancelledAt)
}

// The automation rules a removed member created are disabled with the removal, and the workspace's
// admins, the one who removed them included, are notified of it.
func TestRemovedMembersRulesAreDisabledAndTheAdminsTold(t *testing.T) {
	t.Parallel()
	e := setup(t)
	admin, leaver := e.register("admin@example.com"), e.register("leaver@example.com")
	e.join(admin, leaver, admin.OrgSlug, admin.WsSlug, "admin")
	prj, _ := e.project(admin, "Shared")
	r := e.do("POST", prj+"/automations", leaver.Token, map[string]any{"name": "Triage", "trigger": "task_created",
		"action": map[string]any{"type": "set_priority", "priority": "high"}})
	requireStatus(t, r, http.StatusCreated)
	rule := decode[RuleOut](t, r)
	require.True(t, rule.Enabled)

	requireStatus(t, e.do("DELETE", admin.ws()+"/members/"+leaver.ID, admin.Token, nil), http.StatusOK)
	r = e.do("GET", prj+"/automations/"+rule.ID, admin.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.False(t, decode[RuleOut](t, r).Enabled)
	e.fanOutRecorded()
	require.Contains(t, e.notificationTypes(admin), db.ActivityAutomationRulesDisabled)
}

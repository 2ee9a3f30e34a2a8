package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/workers"
)

// startWorker runs a real River worker on the test database until the test ends.
func (e *testEnv) startWorker() {
	e.t.Helper()
	client, _, err := workers.NewClient(e.pool, workers.Config{Concurrency: 4,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(e.t, err)
	require.NoError(e.t, client.Start(context.Background()))
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(ctx)
	})
}

// jobStatesToWork are the states of a job that a worker has still to finish.
var jobStatesToWork = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}

// waitJobs waits until River lists no job of kinds in states.
func (e *testEnv) waitJobs(what string, kinds []string, states ...rivertype.JobState) {
	e.t.Helper()
	waitFor(e.t, what, func() bool {
		res, err := e.river.JobList(context.Background(), river.NewJobListParams().Kinds(kinds...).States(states...).First(1))
		require.NoError(e.t, err)
		return len(res.Jobs) == 0
	})
}

// waitJobsDone waits until every job of kind is completed.
func (e *testEnv) waitJobsDone(kind string) {
	e.t.Helper()
	e.waitJobs("jobs of kind "+kind+" to complete", []string{kind},
		append(jobStatesToWork, rivertype.JobStateCancelled, rivertype.JobStateDiscarded)...)
}

// team sets up an owner and a member who share the owner's personal workspace and a project.
func (e *testEnv) team() (owner, member user, prj string, cols []string) {
	e.t.Helper()
	owner = e.register("owner@example.com")
	member = e.register("member@example.com")
	e.join(owner, member, owner.OrgSlug, owner.WsSlug, "member")
	prj, cols = e.project(owner, "Shared")
	requireStatus(e.t, e.do("POST", prj+"/members", owner.Token, map[string]any{"email": member.Email}),
		http.StatusCreated)
	return
}

func TestNotificationsFanOutThroughWorker(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.startWorker()
	owner, member, prj, cols := e.team()
	outsider := e.register("outsider@example.com")

	c := e.card(owner, prj, cols[0], "Write docs")
	id := c.ID
	requireStatus(t, e.do("PATCH", prj+"/cards/"+id, owner.Token, map[string]any{"columnId": cols[1]}), http.StatusOK)
	requireStatus(t, e.do("PATCH", prj+"/cards/"+id, member.Token, map[string]any{"title": "Write the docs"}),
		http.StatusOK)
	e.waitJobsDone(jobs.NotifyActivityArgs{}.Kind())

	// The member hears about being added, the owner's create and move, never about their own change.
	r := e.do("GET", "/notifications", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	list := decode[[]NotificationOut](t, r)
	require.Len(t, list, 3)
	require.Equal(t, "member_added", list[2].Activity.Type)
	require.Equal(t, "card_moved", list[0].Activity.Type)
	// ActivityOut carries meta as raw JSON; a card_moved activity's meta is the card's title and where it went.
	meta := decodeJSON[struct {
		Title      string `json:"title"`
		FromColumn string `json:"fromColumn"`
		ToColumn   string `json:"toColumn"`
		FromStatus string `json:"fromStatus"`
		ToStatus   string `json:"toStatus"`
		// The columns' names, recorded so that a notification says where the card went.
		FromColumnName string `json:"fromColumnName"`
		ToColumnName   string `json:"toColumnName"`
	}](t, list[0].Activity.Meta)
	require.Equal(t, cols[0], meta.FromColumn)
	require.Equal(t, cols[1], meta.ToColumn)
	require.Equal(t, "Write docs", meta.Title)
	// Each says who acted, by name, and what it is about; a move names the column the card went to.
	require.Equal(t, "owner", list[0].Activity.ActorName)
	require.Equal(t, "Write docs", list[0].Activity.Title, "the title the move recorded")
	require.NotEmpty(t, meta.ToColumnName)
	require.NotEmpty(t, meta.FromColumnName)
	require.Equal(t, "card_created", list[1].Activity.Type)
	require.Equal(t, "owner", list[1].Activity.ActorName)
	require.Equal(t, "Write docs", list[1].Activity.Title)
	require.Nil(t, list[0].ReadAt)

	// The owner hears about the member's update only.
	r = e.do("GET", "/notifications", owner.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ownerList := decode[[]NotificationOut](t, r)
	require.Len(t, ownerList, 1)
	require.Equal(t, "card_updated", ownerList[0].Activity.Type)
	require.Equal(t, "member", ownerList[0].Activity.ActorName)
	require.Equal(t, "Write the docs", ownerList[0].Activity.Title)
	require.JSONEq(t, `{"title": "Write the docs", "fields": ["title"]}`, string(ownerList[0].Activity.Meta))

	// Someone outside the project hears nothing.
	r = e.do("GET", "/notifications", outsider.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[[]NotificationOut](t, r))

	// count, read one, unreadOnly, read all.
	r = e.do("GET", "/notifications/count", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, int32(3), decode[UnreadCountOut](t, r).Count)
	nid := list[0].ID
	requireStatus(t, e.do("PATCH", "/notifications/"+nid+"/read", outsider.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("PATCH", "/notifications/"+nid+"/read", member.Token, nil), http.StatusOK)
	r = e.do("GET", "/notifications?unreadOnly=true", member.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]NotificationOut](t, r), 2)
	r = e.do("GET", "/notifications?unreadOnly=1&limit=1", member.Token, nil)
	require.Len(t, decode[[]NotificationOut](t, r), 1)
	requireStatus(t, e.do("PATCH", "/notifications/read-all", member.Token, nil), http.StatusOK)
	r = e.do("GET", "/notifications/count", member.Token, nil)
	require.Equal(t, int32(0), decode[UnreadCountOut](t, r).Count)
	r = e.do("GET", "/notifications", member.Token, nil)
	all := decode[[]NotificationOut](t, r)
	require.Len(t, all, 3)
	require.NotNil(t, all[0].ReadAt)
}

// Who is notified of what is the notify worker's (workers/notify_test.go); here the endpoints' limits.
func TestNotificationLimits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	helper := e.register("helper@example.com")
	requireStatus(t, e.do("GET", "/notifications?limit=0", helper.Token, nil), http.StatusBadRequest)
	requireStatus(t, e.do("GET", "/notifications?limit=201", helper.Token, nil), http.StatusBadRequest)
	requireStatus(t, e.do("GET", "/notifications?unreadOnly=maybe", helper.Token, nil), http.StatusBadRequest)
	requireStatus(t, e.do("GET", "/notifications", "", nil), http.StatusUnauthorized)
	requireStatus(t, e.do("PATCH", "/notifications/not-a-uuid/read", helper.Token, nil), http.StatusNotFound)
	pat := e.pat(helper, []string{"account:read"})
	requireStatus(t, e.do("GET", "/notifications", pat, nil), http.StatusForbidden)
	pat = e.pat(helper, []string{"notifications:read"})
	requireStatus(t, e.do("GET", "/notifications/count", pat, nil), http.StatusOK)
}

package calendar_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/calendar"
	"github.com/pilot-dev/pilot/internal/auth"
	tf "github.com/pilot-dev/pilot/internal/testfactory"
)

// TestFeeds: a personal feed reads the owner's dated active cards; a project feed the project's, while
// its owner may read it; the last answer's hash and change time move only when the content does; a
// revoked feed is not found; a person holds at most MaxFeedsPerUser feeds.
func TestFeeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := tf.Store(t)
	tm := tf.NewTeam(t, b.Engines)
	member := tm.Member.User.ID
	due := time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
	mine := tf.Card(t, b.Engines, tm.Project, &tf.CardOpts{Title: tf.Ptr("Mine"),
		In: board.NewCard{AssigneeID: &member, DueDate: &due}})
	tf.Card(t, b.Engines, tm.Project, &tf.CardOpts{Title: tf.Ptr("Undated"), In: board.NewCard{AssigneeID: &member}})
	others := tf.Card(t, b.Engines, tm.Project, &tf.CardOpts{Title: tf.Ptr("Others"),
		In: board.NewCard{StartDate: &due}})

	personal, err := b.Calendars.Create(ctx, calendar.NewFeed{UserID: member, Kind: calendar.KindPersonal,
		Prefix: "pilot_cal_aa", SecretHash: auth.HashSecret("personal")})
	require.NoError(t, err)
	require.Equal(t, "My cards", personal.Name)
	project, err := b.Calendars.Create(ctx, calendar.NewFeed{UserID: member, Kind: calendar.KindProject,
		ProjectID: tm.Project.ID, Prefix: "pilot_cal_bb", SecretHash: auth.HashSecret("project")})
	require.NoError(t, err)
	require.Equal(t, "Shared", project.Name)
	require.Equal(t, tm.Project.ID, project.Project.ID)
	_, err = b.Calendars.Create(ctx, calendar.NewFeed{UserID: member, Kind: calendar.KindPersonal,
		ProjectID: tm.Project.ID, Prefix: "x", SecretHash: auth.HashSecret("x")})
	require.ErrorIs(t, err, db.ErrInvalid)
	stranger := tf.User(t, b.Engines, &tf.UserOpts{Email: tf.Ptr("stranger@example.com")})
	_, err = b.Calendars.Create(ctx, calendar.NewFeed{UserID: stranger.User.ID, Kind: calendar.KindProject,
		ProjectID: tm.Project.ID, Prefix: "x", SecretHash: auth.HashSecret("y")})
	require.ErrorIs(t, err, db.ErrNotFound, "no feed of a project one cannot read")

	c, err := b.Calendars.Fetch(ctx, auth.HashSecret("personal"))
	require.NoError(t, err)
	require.Len(t, c.Events, 1)
	require.Equal(t, mine.ID, c.Events[0].CardID)
	require.Equal(t, tm.Owner.Organization.Slug, c.Events[0].Project.OrganizationSlug)
	require.Nil(t, c.ContentChangedAt)

	// The first fetch records its content; the same content again keeps the change time; another moves it.
	first, err := b.Calendars.Fetched(ctx, c, []byte("one"))
	require.NoError(t, err)
	c, err = b.Calendars.Fetch(ctx, auth.HashSecret("personal"))
	require.NoError(t, err)
	require.Equal(t, []byte("one"), c.ContentHash)
	again, err := b.Calendars.Fetched(ctx, c, []byte("one"))
	require.NoError(t, err)
	require.True(t, first.Equal(again), "the same content keeps its time")
	changed, err := b.Calendars.Fetched(ctx, c, []byte("two"))
	require.NoError(t, err)
	require.False(t, changed.Before(first))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM calendar_feeds WHERE content_hash = 'two'::bytea`))

	c, err = b.Calendars.Fetch(ctx, auth.HashSecret("project"))
	require.NoError(t, err)
	require.Equal(t, []string{mine.ID, others.ID}, []string{c.Events[0].CardID, c.Events[1].CardID})

	// The member leaves the workspace: the project feed is not found, the personal one is empty.
	_, err = b.Pool.Exec(ctx, `DELETE FROM workspace_members WHERE user_id = $1 AND workspace_id = $2`, member,
		tm.Owner.Workspace.ID)
	require.NoError(t, err)
	_, err = b.Calendars.Fetch(ctx, auth.HashSecret("project"))
	require.ErrorIs(t, err, db.ErrNotFound)
	c, err = b.Calendars.Fetch(ctx, auth.HashSecret("personal"))
	require.NoError(t, err)
	require.Empty(t, c.Events)

	page, err := b.Calendars.List(ctx, member, db.Page{Limit: 1})
	require.NoError(t, err)
	require.Equal(t, []string{project.ID}, []string{page.Items[0].ID})
	require.NotEmpty(t, page.Next)

	require.NoError(t, b.Calendars.Revoke(ctx, member, personal.ID))
	_, err = b.Calendars.Fetch(ctx, auth.HashSecret("personal"))
	require.ErrorIs(t, err, db.ErrNotFound)
	require.ErrorIs(t, b.Calendars.Revoke(ctx, member, personal.ID), db.ErrNotFound)
	_, err = b.Calendars.Fetch(ctx, auth.HashSecret("never"))
	require.ErrorIs(t, err, db.ErrNotFound)

	// The limit: the member holds one feed now.
	for i := range calendar.MaxFeedsPerUser - 1 {
		_, err := b.Calendars.Create(ctx, calendar.NewFeed{UserID: member, Kind: calendar.KindPersonal,
			Prefix: "p", SecretHash: auth.HashSecret("n" + string(rune('a'+i)))})
		require.NoError(t, err)
	}
	_, err = b.Calendars.Create(ctx, calendar.NewFeed{UserID: member, Kind: calendar.KindPersonal, Prefix: "p",
		SecretHash: auth.HashSecret("over")})
	require.ErrorIs(t, err, db.ErrConflict)
}

package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/document"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

func TestRegisterPersonalSlugs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for _, tc := range []struct{ email, name, want string }{
		{"ann@example.com", "Ann Lee", "ann-lee"},
		{"ann2@example.com", "  Ann   Lee!! ", "ann-lee-"}, // taken: a suffix
		{"kim.park@example.com", "", "kim-park"},           // no name: the e-mail
		{"x.y@example.com", "Z", "x-y"},                    // a name too short to make a slug
		{"q@example.com", "", "user"},                      // neither gives two characters
		{"zoe@example.com", "Zoë", "zo"},                   // non-ASCII letters become hyphens
		{"long@example.com", "a-very-long-name-that-goes-on-and-on-and-on-forever",
			"a-very-long-name-that-goes-on-and-on-and"},
	} {
		reg, err := b.Identity.Register(ctx, tc.email, tc.name, "not-a-real-hash")
		require.NoError(t, err, tc.email)
		if tc.want[len(tc.want)-1] == '-' {
			require.Regexp(t, "^"+tc.want+"[0-9a-f]{6}$", reg.Organization.Slug)
		} else {
			require.Equal(t, tc.want, reg.Organization.Slug, tc.email)
		}
		require.True(t, reg.Organization.IsPersonal)
		require.True(t, reg.Workspace.IsPersonal)
	}
	// The organization's delete is refused while its user exists.
	err := b.Tenancy.DeleteOrganization(ctx, b.owner.Organization.ID)
	require.ErrorIs(t, err, db.ErrConflict)
}

func TestDocumentSubmitIsAWorkspaceActivity(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ws := b.owner.Workspace.ID
	tiptap := `{"type":"doc","content":[{"type":"heading","content":[{"type":"text","text":"Zanzibar"}]},` +
		`{"type":"bulletList","content":[{"type":"listItem",` +
		`"content":[{"type":"paragraph","content":[{"type":"text","text":"quokka notes"}]}]}]}]}`
	d := testfactory.Document(t, b.Engines, b.owner, &testfactory.DocumentOpts{Title: testfactory.Ptr("Trip"),
		Content: &tiptap, In: document.NewDocument{ContentFormat: "tiptap_json", ContextType: "project",
			ContextID: b.project.ID}})
	b.RequireNoJobs(t)

	// The text nodes are searchable, the node types and keys are not.
	for q, want := range map[string]int{"zanzibar": 1, "quokka": 1, "bulletList": 0, "paragraph": 0, "type": 0} {
		res, err := b.Documents.Search(ctx, ws, q, 10)
		require.NoError(t, err)
		require.Len(t, res, want, q)
	}

	_, err := b.Documents.SubmitDocument(ctx, db.RecordEdit{WorkspaceID: ws, ID: d.ID, ActorID: b.owner.User.ID})
	require.NoError(t, err)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM activities
		WHERE type = 'document_submitted' AND project_id IS NULL AND workspace_id = $1 AND document_id = $2
		AND NOT notify_members AND recipients = ARRAY[$3::uuid]`, ws, d.ID, b.owner.User.ID))
	// The only reviewer is the actor: the fan-out notifies nobody.
	var actID string
	require.NoError(t, b.Pool.QueryRow(ctx,
		"SELECT id::text FROM activities WHERE type = 'document_submitted'").Scan(&actID))
	n, err := b.Notifications.FanOutNotifications(ctx, actID)
	require.NoError(t, err)
	require.Zero(t, n)

	// A second submit is refused and records nothing more.
	_, err = b.Documents.SubmitDocument(ctx, db.RecordEdit{WorkspaceID: ws, ID: d.ID, ActorID: b.owner.User.ID})
	require.ErrorIs(t, err, db.ErrConflict)
	require.Equal(t, 1, b.Count(t, "SELECT count(*) FROM activities WHERE type = 'document_submitted'"))
}

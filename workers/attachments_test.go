package workers

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/internal/storage"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// TestAttachmentSweepRemovesFilesOfDeletedCards: deleting a card, or a column with its cards, leaves the
// files of their attachments to the sweep job, which removes them from storage; files of attachments
// that still exist stay.
func TestAttachmentSweepRemovesFilesOfDeletedCards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	files := storage.NewLocal(t.TempDir())
	b.deps.Storage = files
	tm := testfactory.NewTeam(t, b.Engines)
	attach := func(c board.Card) string {
		key := db.NewID()
		_, err := files.Put(ctx, key, strings.NewReader("content of "+key))
		require.NoError(t, err)
		_, err = b.Board.CreateAttachment(ctx, board.NewAttachment{ID: db.NewID(), ProjectID: tm.Project.ID, CardID: c.ID,
			ActorID: tm.Owner.User.ID, OriginalName: "f.txt", MimeType: "text/plain", Size: 10, StorageKey: key})
		require.NoError(t, err)
		return key
	}
	exists := func(key string) bool {
		f, err := files.Open(ctx, key)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, f)
		_ = f.Close()
		return true
	}
	a := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("A")})
	inColumn := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("B"),
		Column: testfactory.Ptr(1)})
	kept := testfactory.Card(t, b.Engines, tm.Project, &testfactory.CardOpts{Title: testfactory.Ptr("C")})
	gone := []string{attach(a), attach(a), attach(inColumn)}
	stays := attach(kept)

	require.NoError(t, b.Board.DeleteCard(ctx, db.CardEdit{ProjectID: tm.Project.ID, CardID: a.ID,
		ActorID: tm.Owner.User.ID}))
	require.NoError(t, b.Board.DeleteColumn(ctx, tm.Project.ID, tm.Project.Columns[1]))
	for _, key := range gone {
		require.True(t, exists(key), "the files stay until the sweep runs")
	}
	require.Equal(t, 3, b.Count(t, `SELECT count(*) FROM attachment_files_orphaned`))

	b.inTx(t, func(tx pgx.Tx) {
		res, err := testWorker(t, b, &AttachmentSweepWorker{deps: b.deps}).Work(ctx, t, tx, jobs.AttachmentSweepArgs{}, nil)
		require.NoError(t, err)
		require.Equal(t, rivertype.JobStateCompleted, res.Job.State)
	})
	for _, key := range gone {
		require.False(t, exists(key), "swept: %s", key)
	}
	require.True(t, exists(stays))
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM attachment_files_orphaned`))
}

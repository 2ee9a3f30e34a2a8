package transfer_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/transfer"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// bundle is a store with a registered owner and a project (Launch) with a label and one card, in its
// second column, of high priority, with a checklist and a comment.
type bundle struct {
	eng     *engines.Engines
	engine  *transfer.Engine
	ws      string
	actor   string
	project db.Project
}

func setup(t *testing.T) *bundle {
	t.Helper()
	ctx := context.Background()
	eng := testfactory.Store(t).Engines
	reg := testfactory.User(t, eng, nil)
	prj := testfactory.NewProject(t, eng, reg, nil)
	b := &bundle{eng: eng, engine: eng.Transfer, ws: reg.Workspace.ID, actor: reg.User.ID, project: prj.Project}
	card := testfactory.Card(t, eng, prj, &testfactory.CardOpts{Column: testfactory.Ptr(1),
		In: board.NewCard{Priority: "high", Checklist: []board.ChecklistItemInput{{Title: "draft"}, {Title: "review",
			Done: true}}}})
	_, err := eng.Board.CreateComment(ctx, db.CardEdit{ProjectID: b.project.ID, CardID: card.ID, ActorID: b.actor},
		"First pass done")
	require.NoError(t, err)
	_, err = eng.Board.CreateLabel(ctx, b.project.ID, "urgent", "#ff0000")
	require.NoError(t, err)
	return b
}

// An export imported again is the same project under new ids: the same export comes back out of it.
func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)

	doc, err := b.engine.Export(ctx, b.ws, b.project.ID)
	require.NoError(t, err)
	require.Equal(t, transfer.TransferVersion, doc.Version)
	require.Equal(t, "Launch", doc.Project.Name)
	require.Len(t, doc.Cards, 1)
	require.Equal(t, 1, doc.Cards[0].ColumnIndex)
	require.Len(t, doc.Cards[0].Checklist, 2)
	require.Len(t, doc.Cards[0].Comments, 1)

	imported, err := b.engine.Import(ctx, b.ws, b.actor, doc)
	require.NoError(t, err)
	require.NotEqual(t, b.project.ID, imported.ID)
	again, err := b.engine.Export(ctx, b.ws, imported.ID)
	require.NoError(t, err)
	doc.ExportedAt, again.ExportedAt = nil, nil
	want, err := json.Marshal(doc)
	require.NoError(t, err)
	got, err := json.Marshal(again)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got))
}

// A project of another workspace is not found: an export never crosses tenants.
func TestExportOtherWorkspaceIsNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.engine.Export(context.Background(), db.NewID(), b.project.ID)
	require.ErrorIs(t, err, db.ErrNotFound)
}

// A document that breaks a reference or a limit is refused whole, with a message naming the record,
// and nothing of it is written.
func TestImportRefusesBadDocuments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	before, err := b.eng.Board.Projects(ctx, b.ws)
	require.NoError(t, err)

	base := func() transfer.TransferDoc {
		return transfer.TransferDoc{Version: 1, Project: transfer.TransferProject{Name: "Imported"},
			Columns: []transfer.TransferColumn{{Name: "To do"}}, Cards: []transfer.TransferCard{{Title: "A", ColumnIndex: 0}}}
	}
	cases := map[string]func(d *transfer.TransferDoc){
		"column index out of range": func(d *transfer.TransferDoc) { d.Cards[0].ColumnIndex = 3 },
		"unknown label":             func(d *transfer.TransferDoc) { d.Cards[0].Labels = []string{"nope"} },
		"blank project name":        func(d *transfer.TransferDoc) { d.Project.Name = "  " },
		"relation to itself": func(d *transfer.TransferDoc) {
			d.Relations = []transfer.TransferRelation{{CardIndex: 0, TargetCardIndex: 0, Type: "blocks"}}
		},
		"too many cards": func(d *transfer.TransferDoc) {
			d.Cards = make([]transfer.TransferCard, transfer.MaxImportCards+1)
			for i := range d.Cards {
				d.Cards[i] = transfer.TransferCard{Title: "c"}
			}
		},
	}
	for name, mutate := range cases {
		doc := base()
		mutate(&doc)
		_, err := b.engine.Import(ctx, b.ws, b.actor, doc)
		require.ErrorIs(t, err, db.ErrInvalid, name)
		var e *db.Error
		require.ErrorAs(t, err, &e, name)
		require.NotEmpty(t, e.Msg, name)
	}
	after, err := b.eng.Board.Projects(ctx, b.ws)
	require.NoError(t, err)
	require.Len(t, after, len(before), "a refused import writes nothing")

	_, err = b.engine.Import(ctx, b.ws, b.actor, base())
	require.NoError(t, err, "the unbroken document imports")
}

package audit_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

func TestRecordInTheCallersTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	ann := testfactory.User(t, b.Engines, nil)
	ctx = audit.WithRequest(ctx, audit.Request{ActorID: ann.User.ID, ClientIP: "192.0.2.7", UserAgent: "curl/8"})
	entry := db.AuditEntry{Kind: db.AuditWebhookCreated, WorkspaceID: ann.Workspace.ID,
		Target:  db.AuditTarget{Type: "webhook", ID: "h1", Name: "https://example.com"},
		Changes: map[string]any{"after": map[string]any{"events": []string{"card_created"}}}}

	// A rolled-back change leaves no entry: they commit together.
	err := b.Store.InTx(ctx, func(tx pgx.Tx) error {
		require.NoError(t, b.Audit.RecordTx(ctx, tx, entry))
		return context.Canceled
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM audit_log`))

	require.NoError(t, b.Store.InTx(ctx, func(tx pgx.Tx) error { return b.Audit.RecordTx(ctx, tx, entry) }))
	page, err := b.Audit.List(ctx, ann.Organization.ID, audit.Filter{}, db.Page{Limit: 10})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	got := page.Items[0]
	// The organization comes from the workspace; the actor, address and agent from the request.
	require.Equal(t, ann.Organization.ID, *got.OrganizationID)
	require.Equal(t, ann.Workspace.ID, *got.WorkspaceID)
	require.Equal(t, ann.User.ID, *got.ActorID)
	require.Equal(t, "192.0.2.7", got.ClientIP)
	require.Equal(t, "curl/8", got.UserAgent)
	require.Equal(t, "webhook", got.TargetType)
	require.JSONEq(t, `{"after":{"events":["card_created"]}}`, string(got.Changes))

	require.Error(t, b.Audit.Record(ctx, db.AuditEntry{Kind: "nonsense"}))
}

func TestListPagesAndFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	ann := testfactory.User(t, b.Engines, nil)
	bob := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("bob@example.com")})
	for i := range 5 {
		actor, kind := ann.User.ID, db.AuditMemberAdded
		if i%2 == 1 {
			actor, kind = bob.User.ID, db.AuditMemberRemoved
		}
		require.NoError(t, b.Audit.Record(ctx, db.AuditEntry{Kind: kind, OrganizationID: ann.Organization.ID,
			ActorID: actor}))
	}
	// Another organization's entry and an account entry never show.
	require.NoError(t, b.Audit.Record(ctx, db.AuditEntry{Kind: db.AuditMemberAdded,
		OrganizationID: bob.Organization.ID, ActorID: bob.User.ID}))
	require.NoError(t, b.Audit.Record(ctx, db.AuditEntry{Kind: db.AuditSignIn, ActorID: ann.User.ID}))

	var all []db.AuditLog
	page := db.Page{Limit: 2}
	for {
		p, err := b.Audit.List(ctx, ann.Organization.ID, audit.Filter{}, page)
		require.NoError(t, err)
		all = append(all, p.Items...)
		if p.Next == "" {
			break
		}
		page.Cursor = p.Next
	}
	require.Len(t, all, 5)
	for i := 1; i < len(all); i++ {
		require.False(t, all[i].At.After(all[i-1].At), "newest first")
	}

	p, err := b.Audit.List(ctx, ann.Organization.ID, audit.Filter{ActorID: bob.User.ID}, db.Page{Limit: 10})
	require.NoError(t, err)
	require.Len(t, p.Items, 2)
	p, err = b.Audit.List(ctx, ann.Organization.ID, audit.Filter{Kinds: []db.AuditKind{db.AuditMemberAdded}},
		db.Page{Limit: 10})
	require.NoError(t, err)
	require.Len(t, p.Items, 3)
	p, err = b.Audit.List(ctx, ann.Organization.ID, audit.Filter{Since: time.Now().Add(time.Hour)},
		db.Page{Limit: 10})
	require.NoError(t, err)
	require.Empty(t, p.Items)
	p, err = b.Audit.List(ctx, ann.Organization.ID, audit.Filter{Until: time.Now().Add(time.Hour)},
		db.Page{Limit: 10})
	require.NoError(t, err)
	require.Len(t, p.Items, 5)

	acc, err := b.Audit.ListAccount(ctx, ann.User.ID, audit.Filter{}, db.Page{Limit: 10})
	require.NoError(t, err)
	require.Len(t, acc.Items, 1)
	require.Equal(t, string(db.AuditSignIn), acc.Items[0].Kind)

	_, err = b.Audit.List(ctx, ann.Organization.ID, audit.Filter{}, db.Page{Limit: 1, Cursor: "nope"})
	require.ErrorIs(t, err, db.ErrBadCursor)
}

// TestTheDatabaseRefusesChanges shows the log is append-only below the engine: the table's owner
// itself cannot update, delete or truncate an entry, and a delete needs the retention setting.
func TestTheDatabaseRefusesChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	ann := testfactory.User(t, b.Engines, nil)
	require.NoError(t, b.Audit.Record(ctx, db.AuditEntry{Kind: db.AuditSignIn, ActorID: ann.User.ID}))

	for _, sql := range []string{
		`UPDATE audit_log SET kind = 'sign_in_failed'`,
		`DELETE FROM audit_log`,
		`TRUNCATE audit_log`,
	} {
		_, err := b.Pool.Exec(ctx, sql)
		require.ErrorContains(t, err, "audit_log is append-only", sql)
	}
	// The retention setting lets deletes through, never updates.
	err := pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `SET LOCAL pilot.audit_retention = on; UPDATE audit_log SET kind = 'sign_in_failed'`)
		return err
	})
	require.ErrorContains(t, err, "append-only")
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM audit_log WHERE kind = 'sign_in'`))
}

func TestPruneDeletesOnlyOldEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	ann := testfactory.User(t, b.Engines, nil)
	require.NoError(t, b.Audit.Record(ctx, db.AuditEntry{Kind: db.AuditSignIn, ActorID: ann.User.ID}))
	cut := time.Now()
	require.NoError(t, b.Audit.Record(ctx, db.AuditEntry{Kind: db.AuditSignIn, ActorID: ann.User.ID}))

	n, err := b.Audit.Prune(ctx, cut)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM audit_log`))
	// The setting was local to the prune's transaction: a plain delete is still refused.
	_, err = b.Pool.Exec(ctx, `DELETE FROM audit_log`)
	require.ErrorContains(t, err, "append-only")
}

func TestExportReadsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	ann := testfactory.User(t, b.Engines, nil)
	ctx = audit.WithRequest(ctx, audit.Request{ActorID: ann.User.ID, ClientIP: "192.0.2.9",
		UserAgent: `a "quoted", agent`})
	for _, name := range []string{"one", "two, with a comma", "three\nlines"} {
		require.NoError(t, b.Audit.Record(ctx, db.AuditEntry{Kind: db.AuditProjectDeleted,
			OrganizationID: ann.Organization.ID, Target: db.AuditTarget{Type: "project", ID: db.NewID(), Name: name},
			Changes: map[string]string{"name": name}}))
	}

	var jl bytes.Buffer
	require.NoError(t, b.Audit.Export(ctx, ann.Organization.ID, audit.Filter{}, audit.JSONLines, &jl))
	lines := strings.Split(strings.TrimSpace(jl.String()), "\n")
	require.Len(t, lines, 3)
	var names []string
	for _, l := range lines {
		var got audit.Line
		require.NoError(t, json.Unmarshal([]byte(l), &got))
		require.Equal(t, db.AuditProjectDeleted, got.Kind)
		require.Equal(t, ann.User.ID, got.ActorID)
		require.Equal(t, `a "quoted", agent`, got.UserAgent)
		names = append(names, got.TargetName)
	}
	require.Equal(t, []string{"three\nlines", "two, with a comma", "one"}, names)

	var c bytes.Buffer
	require.NoError(t, b.Audit.Export(ctx, ann.Organization.ID, audit.Filter{}, audit.CSV, &c))
	rows, err := csv.NewReader(&c).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 4)
	require.Equal(t, audit.CSVHeader, rows[0])
	require.Equal(t, "two, with a comma", rows[2][11])
	require.Equal(t, "192.0.2.9", rows[1][7])
	require.JSONEq(t, `{"name":"three\nlines"}`, rows[1][12])

	// Filters apply to the export too.
	var none bytes.Buffer
	require.NoError(t, b.Audit.Export(ctx, ann.Organization.ID, audit.Filter{Kinds: []db.AuditKind{db.AuditSignIn}},
		audit.JSONLines, &none))
	require.Empty(t, none.String())
}

// What people and clients typed (a target's name, a user agent) cannot run as a spreadsheet formula in
// the CSV export; the JSON lines keep it as it was.
func TestExportCSVIsSpreadsheetSafe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := testfactory.Store(t)
	ann := testfactory.User(t, b.Engines, nil)
	ctx = audit.WithRequest(ctx, audit.Request{ActorID: ann.User.ID, ClientIP: "192.0.2.9", UserAgent: "@agent"})
	formula := `=HYPERLINK("https://evil.example","open")`
	require.NoError(t, b.Audit.Record(ctx, db.AuditEntry{Kind: db.AuditProjectDeleted,
		OrganizationID: ann.Organization.ID, Target: db.AuditTarget{Type: "project", ID: db.NewID(), Name: formula}}))

	var c bytes.Buffer
	require.NoError(t, b.Audit.Export(ctx, ann.Organization.ID, audit.Filter{}, audit.CSV, &c))
	rows, err := csv.NewReader(&c).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.Equal(t, "'"+formula, rows[1][11])
	require.Equal(t, "'@agent", rows[1][8])

	var jl bytes.Buffer
	require.NoError(t, b.Audit.Export(ctx, ann.Organization.ID, audit.Filter{}, audit.JSONLines, &jl))
	var got audit.Line
	require.NoError(t, json.Unmarshal(jl.Bytes(), &got))
	require.Equal(t, formula, got.TargetName)
}

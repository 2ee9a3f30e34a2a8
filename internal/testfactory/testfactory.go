// Package testfactory builds the fixtures that tests of every package share (the store's, its engines',
// the workers', the api's and the end-to-end tests'): a store on a fresh database, and users, teams,
// projects and cards made through the store's own write paths, so that a fixture has every row,
// activity and job a real one has. Factories take an options struct of pointer fields, nil meaning
// the default, as river's testfactory does.
package testfactory

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// Bundle is a store on a fresh, migrated database with an insert-only River client, as the api
// process has one, and the pool and client under it (for the assertions a test makes beside the store).
type Bundle struct {
	Pool  *pgxpool.Pool
	River *river.Client[pgx.Tx]
	Store *db.Store
}

// Store builds a Bundle on a fresh database, dropped when the test ends.
func Store(t testing.TB) *Bundle {
	t.Helper()
	dbPool := pgtest.Pool(t)
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{})
	require.NoError(t, err)
	return &Bundle{Pool: dbPool, River: riverClient, Store: db.NewStore(dbPool, riverClient)}
}

// Ptr returns a pointer to v, for options.
func Ptr[T any](v T) *T { return &v }

// UserOpts are a user's options.
type UserOpts struct {
	// Email defaults to owner@example.com.
	Email *string
	// Name defaults to the e-mail's local part, capitalised (alice@example.com is Alice).
	Name *string
	// PasswordHash defaults to a string that is no hash (the user cannot log in).
	PasswordHash *string
}

// User registers a user with their personal organization and workspace.
func User(t testing.TB, store *db.Store, opts *UserOpts) identity.Registration {
	t.Helper()
	if opts == nil {
		opts = &UserOpts{}
	}
	email := deref(opts.Email, "owner@example.com")
	local, _, _ := strings.Cut(email, "@")
	name := deref(opts.Name, strings.ToUpper(local[:1])+local[1:])
	reg, err := identity.New(store).Register(context.Background(), email, name, deref(opts.PasswordHash, "not-a-real-hash"))
	require.NoError(t, err)
	return reg
}

// Join makes member a member of owner's personal workspace through an accepted invitation, the
// store's real path (its invitation e-mail job included).
func Join(t testing.TB, store *db.Store, owner, member identity.Registration) {
	t.Helper()
	ctx := context.Background()
	token := "tok-" + db.NewID()
	_, err := tenancy.New(store).InviteToWorkspace(ctx, tenancy.NewInvitation{WorkspaceID: owner.Workspace.ID, WorkspaceName: owner.Workspace.Name,
		Email: member.User.Email, Role: "member", InvitedBy: owner.User.ID, InviterName: owner.User.Name,
		Token: token, AcceptURL: "http://pilot.test/invitations/" + token + "/accept"})
	require.NoError(t, err)
	_, err = tenancy.New(store).AcceptInvitation(ctx, token, member.User)
	require.NoError(t, err)
}

// Project is a project with its columns' ids, in order.
type Project struct {
	db.Project
	Columns []string
}

// ProjectOpts are a project's options.
type ProjectOpts struct {
	// Name defaults to Launch.
	Name *string
	// Members are added to the project (they must be members of the owner's workspace).
	Members []identity.Registration
}

// NewProject creates a project in owner's personal workspace, owner as its creator.
func NewProject(t testing.TB, store *db.Store, owner identity.Registration, opts *ProjectOpts) Project {
	t.Helper()
	if opts == nil {
		opts = &ProjectOpts{}
	}
	ctx := context.Background()
	p, err := store.CreateProject(ctx, db.NewProject{WorkspaceID: owner.Workspace.ID, Name: deref(opts.Name, "Launch"), CreatedBy: owner.User.ID})
	require.NoError(t, err)
	for _, m := range opts.Members {
		_, err := store.AddProjectMember(ctx, db.ProjectMemberAdd{WorkspaceID: owner.Workspace.ID, ProjectID: p.ID, ActorID: owner.User.ID, Email: m.User.Email})
		require.NoError(t, err)
	}
	cols, err := store.Columns(ctx, p.ID)
	require.NoError(t, err)
	out := Project{Project: p}
	for _, c := range cols {
		out.Columns = append(out.Columns, c.ID)
	}
	return out
}

// Team is an owner and a member who share the owner's personal workspace and a project.
type Team struct {
	Owner, Member identity.Registration
	Project       Project
}

// NewTeam registers owner@example.com and member@example.com, makes the member join the owner's
// workspace, and creates a project (Shared) with both as members.
func NewTeam(t testing.TB, store *db.Store) Team {
	t.Helper()
	tm := Team{Owner: User(t, store, &UserOpts{Email: Ptr("owner@example.com")}), Member: User(t, store, &UserOpts{Email: Ptr("member@example.com")})}
	Join(t, store, tm.Owner, tm.Member)
	tm.Project = NewProject(t, store, tm.Owner, &ProjectOpts{Name: Ptr("Shared"), Members: []identity.Registration{tm.Member}})
	return tm
}

// CardOpts are a card's options; the rest of db.NewCard can be set through In.
type CardOpts struct {
	// Title defaults to "Write the plan".
	Title *string
	// Column is the column's index in the project (default the first).
	Column *int
	// Actor creates the card (default the project's creator).
	Actor *identity.Registration
	// In carries any other field of the create (priority, dates, assignee, checklist).
	In db.NewCard
}

// Card creates a card in p through the store's create, as a person's request does.
func Card(t testing.TB, store *db.Store, p Project, opts *CardOpts) db.Card {
	t.Helper()
	if opts == nil {
		opts = &CardOpts{}
	}
	in := opts.In
	in.WorkspaceID, in.ProjectID = p.WorkspaceID, p.ID
	in.ActorID = p.CreatedBy
	if opts.Actor != nil {
		in.ActorID = opts.Actor.User.ID
	}
	in.ColumnID = p.Columns[deref(opts.Column, 0)]
	in.Title = deref(opts.Title, "Write the plan")
	c, err := store.CreateCard(context.Background(), in)
	require.NoError(t, err)
	return c
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

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
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/document"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/agenttool"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// Bundle is the store and its engines (engines.New) on a fresh, migrated database with an insert-only
// River client, as the api process has them, and the pool and client under them (for the assertions a
// test makes beside the store).
type Bundle struct {
	Pool  *pgxpool.Pool
	River *river.Client[pgx.Tx]
	*engines.Engines
}

// Store builds a Bundle on a fresh database, dropped when the test ends.
func Store(t testing.TB) *Bundle {
	t.Helper()
	dbPool := pgtest.Pool(t)
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{})
	require.NoError(t, err)
	return &Bundle{Pool: dbPool, River: riverClient, Engines: engines.New(dbPool, riverClient, engines.Options{})}
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
func User(t testing.TB, eng *engines.Engines, opts *UserOpts) identity.Registration {
	t.Helper()
	if opts == nil {
		opts = &UserOpts{}
	}
	email := deref(opts.Email, "owner@example.com")
	local, _, _ := strings.Cut(email, "@")
	name := deref(opts.Name, strings.ToUpper(local[:1])+local[1:])
	reg, err := eng.Identity.Register(context.Background(), email, name, deref(opts.PasswordHash, "not-a-real-hash"))
	require.NoError(t, err)
	return reg
}

// InvitationOpts are an invitation's options.
type InvitationOpts struct {
	// Email is the invitee's address (default invitee@example.com).
	Email *string
	// Role is the workspace role the invitation gives (member or admin; default member).
	Role *string
	// Token defaults to "tok-" and a fresh id; the accept URL is
	// http://pilot.test/invitations/<token>/accept.
	Token *string
	// Workspace is where the invitee is invited (default the inviter's personal workspace); the inviter
	// must administer it.
	Workspace *db.Workspace
}

// Invitation invites an e-mail address into a workspace as inviter, through the tenancy engine's
// real write path, which enqueues the invitation's e-mail job.
func Invitation(t testing.TB, eng *engines.Engines, inviter identity.Registration,
	opts *InvitationOpts) db.WorkspaceInvitation {
	t.Helper()
	if opts == nil {
		opts = &InvitationOpts{}
	}
	ws := inviter.Workspace
	if opts.Workspace != nil {
		ws = *opts.Workspace
	}
	token := deref(opts.Token, "tok-"+db.NewID())
	inv, err := eng.Tenancy.InviteToWorkspace(context.Background(), tenancy.NewInvitation{WorkspaceID: ws.ID,
		WorkspaceName: ws.Name, Email: deref(opts.Email, "invitee@example.com"), Role: deref(opts.Role, "member"),
		InvitedBy:   inviter.User.ID,
		InviterName: inviter.User.Name, Token: token, AcceptURL: "http://pilot.test/invitations/" + token + "/accept"})
	require.NoError(t, err)
	return inv
}

// Join makes member a member of owner's personal workspace through an accepted invitation, the
// store's real path (its invitation e-mail job included).
func Join(t testing.TB, eng *engines.Engines, owner, member identity.Registration) {
	t.Helper()
	join(t, eng, owner, member, "member")
}

func join(t testing.TB, eng *engines.Engines, owner, member identity.Registration, role string) db.WorkspaceMember {
	t.Helper()
	token := "tok-" + db.NewID()
	Invitation(t, eng, owner, &InvitationOpts{Email: &member.User.Email, Role: &role, Token: &token})
	acc, err := eng.Tenancy.AcceptInvitation(context.Background(), token, member.User)
	require.NoError(t, err)
	return acc.Member
}

// MemberOpts are a workspace member's options.
type MemberOpts struct {
	// Email defaults to member@example.com.
	Email *string
	// Role is the workspace role the invitation gives (member or admin; default member).
	Role *string
	// PilotageRole is set after the invitation is accepted (viewer, reviewer or owner);
	// nil keeps the viewer role an accepted invitation gives.
	PilotageRole *string
}

// Member registers a user and makes them a member of owner's personal workspace with the roles of
// opts, through an accepted invitation and, for a pilotage role, the workspace's member update. It
// returns the user's registration (their own personal workspace included) and their membership of
// owner's workspace.
func Member(t testing.TB, eng *engines.Engines, owner identity.Registration,
	opts *MemberOpts) (identity.Registration, db.WorkspaceMember) {
	t.Helper()
	if opts == nil {
		opts = &MemberOpts{}
	}
	reg := User(t, eng, &UserOpts{Email: Ptr(deref(opts.Email, "member@example.com"))})
	m := join(t, eng, owner, reg, deref(opts.Role, "member"))
	if opts.PilotageRole != nil {
		var err error
		m, err = eng.Tenancy.UpdateWorkspaceMember(context.Background(), owner.Workspace.ID, reg.User.ID, nil,
			opts.PilotageRole)
		require.NoError(t, err)
	}
	return reg, m
}

// AgentOpts are an agent's options; the defaults are the api's.
type AgentOpts struct {
	// Slug defaults to planner; Name to "Agent <slug>".
	Slug, Name *string
	// AutonomyMode defaults to supervised (mission.AutonomySupervised).
	AutonomyMode *string
	// Tools defaults to every tool (agenttool.Names).
	Tools []string
	// McpOnly makes the agent's missions wait for an MCP client instead of a worker.
	McpOnly *bool
	// Limits default to 10 steps, 20 actions per mission and 30 missions per hour.
	MaxSteps, MaxActionsPerMission, MaxMissionsPerHour *int32
	// Actor creates the agent (default the owner).
	Actor *identity.Registration
}

// Agent creates an agent (with its service user, a member of the workspace) in owner's personal
// workspace through the agents engine.
func Agent(t testing.TB, eng *engines.Engines, owner identity.Registration, opts *AgentOpts) db.Agent {
	t.Helper()
	if opts == nil {
		opts = &AgentOpts{}
	}
	slug := deref(opts.Slug, "planner")
	tools := opts.Tools
	if tools == nil {
		tools = append([]string(nil), agenttool.Names...)
	}
	actor := owner
	if opts.Actor != nil {
		actor = *opts.Actor
	}
	a, err := eng.Missions.CreateAgent(context.Background(), owner.Workspace.ID, actor.User.ID, mission.AgentConfig{
		Name: deref(opts.Name, "Agent "+slug), Slug: slug, AutonomyMode: deref(opts.AutonomyMode, mission.AutonomySupervised),
		Tools: tools, McpOnly: deref(opts.McpOnly, false), MaxSteps: deref(opts.MaxSteps, int32(10)),
		MaxActionsPerMission: deref(opts.MaxActionsPerMission, int32(20)), MaxMissionsPerHour: deref(opts.MaxMissionsPerHour,
			int32(30))})
	require.NoError(t, err)
	return a
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
func NewProject(t testing.TB, eng *engines.Engines, owner identity.Registration, opts *ProjectOpts) Project {
	t.Helper()
	if opts == nil {
		opts = &ProjectOpts{}
	}
	ctx := context.Background()
	p, err := eng.Board.CreateProject(ctx, board.NewProject{WorkspaceID: owner.Workspace.ID, Name: deref(opts.Name,
		"Launch"), CreatedBy: owner.User.ID})
	require.NoError(t, err)
	for _, m := range opts.Members {
		_, err := eng.Board.AddProjectMember(ctx, db.ProjectMemberAdd{WorkspaceID: owner.Workspace.ID, ProjectID: p.ID,
			ActorID: owner.User.ID, Email: m.User.Email})
		require.NoError(t, err)
	}
	cols, err := eng.Board.Columns(ctx, p.ID)
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
func NewTeam(t testing.TB, eng *engines.Engines) Team {
	t.Helper()
	tm := Team{Owner: User(t, eng, &UserOpts{Email: Ptr("owner@example.com")}), Member: User(t, eng,
		&UserOpts{Email: Ptr("member@example.com")})}
	Join(t, eng, tm.Owner, tm.Member)
	tm.Project = NewProject(t, eng, tm.Owner, &ProjectOpts{Name: Ptr("Shared"),
		Members: []identity.Registration{tm.Member}})
	return tm
}

// CardOpts are a card's options; the rest of board.NewCard can be set through In (its workspace,
// project, actor, column and title come from the options: a card whose In sets them fails the test).
type CardOpts struct {
	// Title defaults to "Write the plan".
	Title *string
	// Column is the column's index in the project (default the first).
	Column *int
	// Actor creates the card (default the project's creator).
	Actor *identity.Registration
	// In carries any other field of the create (priority, dates, assignee, checklist).
	In board.NewCard
}

// Card creates a card in p through the store's create, as a person's request does.
func Card(t testing.TB, eng *engines.Engines, p Project, opts *CardOpts) board.Card {
	t.Helper()
	if opts == nil {
		opts = &CardOpts{}
	}
	in := opts.In
	require.True(t, in.WorkspaceID == "" && in.ProjectID == "" && in.ActorID == "" && in.ColumnID == "" && in.Title == "",
		"testfactory.Card: set the title, column and actor through CardOpts, not In (In's would be overwritten)")
	in.WorkspaceID, in.ProjectID = p.WorkspaceID, p.ID
	in.ActorID = p.CreatedBy
	if opts.Actor != nil {
		in.ActorID = opts.Actor.User.ID
	}
	in.ColumnID = p.Columns[deref(opts.Column, 0)]
	in.Title = deref(opts.Title, "Write the plan")
	c, err := eng.Board.CreateCard(context.Background(), in)
	require.NoError(t, err)
	return c
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// DocumentOpts are a document's options; the rest of document.NewDocument can be set through In.
type DocumentOpts struct {
	// Title defaults to "Design notes"; Content to a line of markdown.
	Title, Content *string
	// Author writes the document (default the owner).
	Author *identity.Registration
	// In carries any other field of the create (format, type, context, parent, tags, metadata); its
	// context defaults to the owner's personal workspace.
	In document.NewDocument
}

// Document creates a document (a draft, in review terms) in owner's personal workspace through the
// documents engine.
func Document(t testing.TB, eng *engines.Engines, owner identity.Registration, opts *DocumentOpts) db.Document {
	t.Helper()
	if opts == nil {
		opts = &DocumentOpts{}
	}
	in := opts.In
	in.WorkspaceID, in.AuthorID = owner.Workspace.ID, owner.User.ID
	if opts.Author != nil {
		in.AuthorID = opts.Author.User.ID
	}
	in.Title = deref(opts.Title, "Design notes")
	in.Content = deref(opts.Content, "We ship the ledger migration in three phases.")
	if in.ContextType == "" {
		in.ContextType, in.ContextID = "workspace", owner.Workspace.ID
	}
	d, err := eng.Documents.CreateDocument(context.Background(), in)
	require.NoError(t, err)
	return d
}

// Count answers a count query on the bundle's database (an assertion that something was, or was not,
// written).
func (b *Bundle) Count(t testing.TB, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.Pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// Events lists a stream's events (a mission's, a run's, a draft's) as "type:status", in order.
func (b *Bundle) Events(t testing.TB, streamID string) []string {
	t.Helper()
	return b.events(t, streamID, "")
}

// EventsButTokens is Events without the token events (a model's text as it streams, one event per
// chunk, so as many as the model's answer makes): the events a mission's course is asserted on.
func (b *Bundle) EventsButTokens(t testing.TB, streamID string) []string {
	t.Helper()
	return b.events(t, streamID, db.MissionEventToken)
}

// events lists a stream's events but those of type except ("" leaves none out).
func (b *Bundle) events(t testing.TB, streamID, except string) []string {
	t.Helper()
	rows, err := b.Pool.Query(context.Background(), `SELECT type || ':' || status FROM stream_events
		WHERE stream_id = $1 AND type <> $2 ORDER BY seq`, streamID, except)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return out
}

// LastEvent reads a stream's last event: its message and data.
func (b *Bundle) LastEvent(t testing.TB, streamID string) (string, map[string]any) {
	t.Helper()
	var msg string
	var data map[string]any
	require.NoError(t, b.Pool.QueryRow(context.Background(),
		`SELECT message, data FROM stream_events WHERE stream_id = $1 ORDER BY seq DESC LIMIT 1`, streamID).Scan(&msg, &data))
	return msg, data
}

// Job is a River job as tests look at it.
type Job struct {
	ID          int64
	Queue       string
	State       string
	Args        map[string]any
	ScheduledAt time.Time
	MaxAttempts int
}

// Jobs lists the River jobs of a kind (jobs.MissionArgs{}.Kind() and the like), oldest first: what the
// writes under test enqueued, in the same database.
func (b *Bundle) Jobs(t testing.TB, kind string) []Job {
	t.Helper()
	rows, err := b.Pool.Query(context.Background(),
		`SELECT id, queue, state::text, args, scheduled_at, max_attempts FROM river_job WHERE kind = $1 ORDER BY id`, kind)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Job, error) {
		var j Job
		err := r.Scan(&j.ID, &j.Queue, &j.State, &j.Args, &j.ScheduledAt, &j.MaxAttempts)
		return j, err
	})
	require.NoError(t, err)
	return out
}

// RequireNoJobs asserts through River that no job of any kind, in any state, exists.
func (b *Bundle) RequireNoJobs(t testing.TB) {
	t.Helper()
	res, err := b.River.JobList(context.Background(), river.NewJobListParams())
	require.NoError(t, err)
	require.Empty(t, res.Jobs)
}

package tenancy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/jobs"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Access is what a user may do in an organization and, when one was named, a workspace of it.
type Access struct {
	OrgID, OrgName, OrgSlug, OrgOwnerID string
	OrgCreatedAt                        time.Time
	OrgRole                             string
	// OrgIsPersonal says the organization is a user's personal one, created at registration.
	OrgIsPersonal bool
	// WorkspaceID is empty when no workspace was asked for or the user may not open it.
	WorkspaceID           string
	WorkspaceRole         string
	WorkspacePilotageRole string
	// ProjectID is set when a project was asked for and belongs to the workspace.
	ProjectID string
	// ProjectArchived says that project is archived: read-only until it is restored.
	ProjectArchived bool
}

// EffectiveWorkspaceRoles are the workspace and pilotage roles a user acts with: organization owners
// and admins act as workspace admin and pilotage owner in every workspace of their organization, member
// or not; others have their membership's roles (empty when not a member).
func EffectiveWorkspaceRoles(orgRole string, wsRole, pilotageRole *string) (string, string) {
	if orgRole == "owner" || orgRole == "admin" {
		return "admin", "owner"
	}
	if wsRole == nil || pilotageRole == nil {
		return "", ""
	}
	return *wsRole, *pilotageRole
}

// OrgAdmin reports whether the user owns or administers the organization.
func (a Access) OrgAdmin() bool { return a.OrgRole == "owner" || a.OrgRole == "admin" }

// Target names what a caller reaches: an organization by slug and, optionally, one of its workspaces
// by slug and a project of that workspace.
type Target struct{ OrgSlug, WsSlug, ProjectID string }

// SessionRef names a user's session (the id its JWT names).
type SessionRef struct{ SessionID, UserID string }

// ResolveAccess answers in one query whether userID belongs to the organization orgSlug and, when
// wsSlug is set, to that workspace. Organization owners and admins act as admin (and pilotage owner) in
// every workspace of their organization. Outside either tenancy it returns ErrNotFound.
//
// When projectID is set (a well-formed UUID), the project must belong to the workspace, else
// ErrNotFound.
func (e *Engine) ResolveAccess(ctx context.Context, userID string, t Target) (Access, error) {
	orgSlug, wsSlug, projectID := t.OrgSlug, t.WsSlug, t.ProjectID
	row, err := e.core.Q.AccessResolve(ctx, dbsqlc.AccessResolveParams{UserID: userID, OrgSlug: orgSlug, WsSlug: wsSlug,
		ProjectID: dbcore.Optional(projectID)})
	if err != nil {
		return Access{}, dbcore.Wrap(err, "resolve access")
	}
	return buildAccess(accessRow{&row.OrgID, &row.OrgName, &row.OrgSlug, &row.OrgOwnerID, &row.OrgCreatedAt,
		&row.OrgIsPersonal, &row.OrgRole, row.WsID, row.WsRole, row.WsPilotageRole, row.ProjectID,
		row.ProjectArchivedAt}, wsSlug, projectID)
}

// UserWithAccess reads the user of an active session and, in the same round trip, resolves their access
// as ResolveAccess does. A session that is not active (revoked, expired, another user's) is
// ErrNotFound. The user is returned even when the access is refused (accessErr), so the caller can
// first decide whether the credential is valid at all.
func (e *Engine) UserWithAccess(ctx context.Context, s SessionRef,
	t Target) (u db.User, a Access, accessErr error, err error) {
	wsSlug, projectID := t.WsSlug, t.ProjectID
	row, err := e.core.Q.UserAccessResolve(ctx, dbsqlc.UserAccessResolveParams{SessionID: s.SessionID, UserID: s.UserID,
		OrgSlug: t.OrgSlug, WsSlug: wsSlug, ProjectID: dbcore.Optional(projectID)})
	if dbcore.IsNotFound(err) {
		return u, a, nil, dbcore.NotFound("session not found")
	}
	if err != nil {
		return u, a, nil, dbcore.Wrap(err, "resolve user access")
	}
	a, accessErr = buildAccess(accessRow{row.OrgID, row.OrgName, row.OrgSlug, row.OrgOwnerID, row.OrgCreatedAt,
		row.OrgIsPersonal, row.OrgRole, row.WsID, row.WsRole, row.WsPilotageRole, row.ProjectID,
		row.ProjectArchivedAt}, wsSlug, projectID)
	return db.User(row.User), a, accessErr, nil
}

// accessRow is what both access queries return; a nil org role means no membership.
type accessRow struct {
	orgID, orgName, orgSlug, orgOwnerID *string
	orgCreatedAt                        *time.Time
	orgIsPersonal                       *bool
	orgRole                             *string
	wsID, wsRole, wsPilotageRole        *string
	projectID                           *string
	projectArchivedAt                   *time.Time
}

func buildAccess(r accessRow, wsSlug, projectID string) (Access, error) {
	if r.orgID == nil || r.orgRole == nil {
		return Access{}, dbcore.NotFound("organization not found")
	}
	a := Access{OrgID: *r.orgID, OrgName: *r.orgName, OrgSlug: *r.orgSlug, OrgOwnerID: *r.orgOwnerID,
		OrgCreatedAt: *r.orgCreatedAt, OrgRole: *r.orgRole, OrgIsPersonal: r.orgIsPersonal != nil && *r.orgIsPersonal}
	if wsSlug == "" {
		return a, nil
	}
	if r.wsID == nil {
		return Access{}, dbcore.NotFound("workspace not found")
	}
	a.WorkspaceRole, a.WorkspacePilotageRole = EffectiveWorkspaceRoles(a.OrgRole, r.wsRole, r.wsPilotageRole)
	if a.WorkspaceRole == "" {
		return Access{}, dbcore.NotFound("workspace not found")
	}
	a.WorkspaceID = *r.wsID
	if projectID != "" {
		if r.projectID == nil {
			return Access{}, dbcore.NotFound("project not found")
		}
		a.ProjectID = *r.projectID
		a.ProjectArchived = r.projectArchivedAt != nil
	}
	return a, nil
}

// CreateOrganization creates an organization owned by userID.
func (e *Engine) CreateOrganization(ctx context.Context, userID, name, slug string) (db.Organization, error) {
	var org db.Organization
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		var orgRow dbsqlc.Organization
		orgRow, err = q.OrganizationInsert(ctx, dbsqlc.OrganizationInsertParams{ID: db.NewID(), Name: name, Slug: slug,
			OwnerID: userID})
		org = db.Organization(orgRow)
		if dbcore.IsUnique(err, "") {
			return dbcore.Conflict(fmt.Sprintf("organization slug %q is already taken", slug))
		}
		if err != nil {
			return fmt.Errorf("insert organization: %w", err)
		}
		return q.OrganizationMemberInsert(ctx, dbsqlc.OrganizationMemberInsertParams{OrganizationID: org.ID, UserID: userID,
			Role: "owner"})
	})
	return org, err
}

// ListOrganizations lists the organizations a user belongs to, with their role.
func (e *Engine) ListOrganizations(ctx context.Context, userID string) ([]db.MyOrganization, error) {
	rows, err := e.core.Q.OrganizationListByUser(ctx, userID)
	return dbcore.MapRows(rows,
			func(r dbsqlc.OrganizationListByUserRow) db.MyOrganization { return db.MyOrganization(r) }), dbcore.Wrap(err,
			"list organizations")
}

// UpdateOrganization renames an organization.
func (e *Engine) UpdateOrganization(ctx context.Context, orgID string, name *string) (db.Organization, error) {
	org, err := e.core.Q.OrganizationUpdate(ctx, dbsqlc.OrganizationUpdateParams{ID: orgID, Name: name})
	return db.Organization(org), dbcore.Wrap(err, "update organization")
}

// DeleteOrganization removes an organization and everything under it (workspaces, projects, cards, …)
// in one statement: every child table cascades from it. A personal organization cannot be deleted
// while its user exists (ErrConflict).
func (e *Engine) DeleteOrganization(ctx context.Context, orgID string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		// The e-mails of its pending invitations (to its workspaces and to itself) are cancelled with
		// it: an invitation to a workspace or an organization that no longer exists must not go out. (A refused delete rolls
		// the cancellations back.)
		ids, err := q.InvitationEmailJobsByOrganization(ctx, orgID)
		if err != nil {
			return fmt.Errorf("list invitation e-mails: %w", err)
		}
		orgIDs, err := q.OrgInvitationEmailJobsByOrganization(ctx, orgID)
		if err != nil {
			return fmt.Errorf("list organization invitation e-mails: %w", err)
		}
		for _, id := range append(ids, orgIDs...) {
			if _, err := e.core.River.JobCancelTx(ctx, tx, id); err != nil && !errors.Is(err, river.ErrNotFound) {
				return fmt.Errorf("cancel invitation e-mail: %w", err)
			}
		}
		org, err := q.OrganizationGetByID(ctx, orgID)
		if err != nil && !dbcore.IsNotFound(err) {
			return fmt.Errorf("get organization: %w", err)
		}
		n, err := q.OrganizationDelete(ctx, orgID)
		if err != nil {
			return fmt.Errorf("delete organization: %w", err)
		}
		if n == 1 {
			return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditOrganizationDeleted, OrganizationID: orgID,
				Target:  db.AuditTarget{Type: "organization", ID: orgID, Name: org.Name},
				Changes: map[string]any{"before": map[string]string{"name": org.Name, "slug": org.Slug}}})
		}
		personal, err := q.OrganizationIsPersonal(ctx, orgID)
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("organization not found")
		}
		if err != nil {
			return fmt.Errorf("check organization: %w", err)
		}
		if personal {
			return dbcore.Conflict("a personal organization cannot be deleted while its user exists")
		}
		return dbcore.NotFound("organization not found")
	})
}

// EmailTopicInvitation is the outbox topic of invitation e-mails; their RefID is the invitation.
const EmailTopicInvitation = "invitation"

// InvitationPending says whether an invitation still exists and is not accepted: the e-mail worker
// sends an invitation's e-mail only while it is.
func (e *Engine) InvitationPending(ctx context.Context, id string) (bool, error) {
	ok, err := e.core.Q.InvitationPending(ctx, id)
	return ok, dbcore.Wrap(err, "check invitation")
}

// OrganizationMembers is one page of an organization's members, by the time they joined.
func (e *Engine) OrganizationMembers(ctx context.Context, orgID string,
	p db.Page) (db.Paged[db.OrganizationMember], error) {
	k, err := p.AfterMember("organization-members")
	if err != nil {
		return db.Paged[db.OrganizationMember]{}, err
	}
	rows, err := e.core.Q.OrganizationMemberList(ctx, dbsqlc.OrganizationMemberListParams{OrganizationID: orgID,
		AfterAt: k.At, AfterEmail: k.Email, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.OrganizationMember]{}, dbcore.Wrap(err, "list organization members")
	}
	return db.PageOf(p, "organization-members", dbcore.MapRows(rows,
		func(r dbsqlc.OrganizationMemberListRow) db.OrganizationMember { return db.OrganizationMember(r) }),
		func(m db.OrganizationMember) any { return db.MemberKey{At: m.CreatedAt, Email: m.Email} }), nil
}

// SetOrganizationMemberRole changes a member's role; the owner's role is immutable.
func (e *Engine) SetOrganizationMemberRole(ctx context.Context, orgID, userID,
	role string) (db.OrganizationMember, error) {
	var m db.OrganizationMember
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.OrganizationMemberGet(ctx, dbsqlc.OrganizationMemberGetParams{OrganizationID: orgID, UserID: userID})
		if err != nil {
			return dbcore.Wrap(err, "get organization member")
		}
		if cur.Role == "owner" {
			return dbcore.Forbidden("the owner's role cannot be changed")
		}
		if _, err := q.OrganizationMemberUpdateRole(ctx, dbsqlc.OrganizationMemberUpdateRoleParams{OrganizationID: orgID,
			UserID: userID, Role: role}); err != nil {
			return fmt.Errorf("update organization member: %w", err)
		}
		before := cur.Role
		cur.Role = role
		m = db.OrganizationMember(cur)
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditMemberChanged, OrganizationID: orgID,
			Target:  db.AuditTarget{Type: "user", ID: userID, Name: cur.Email},
			Changes: map[string]any{"before": map[string]string{"role": before}, "after": map[string]string{"role": role}}})
	})
	return m, err
}

// RemoveOrganizationMember removes a member from the organization and all its workspaces, with what
// leaving them means (leaveTx: the missions they started there, their automation rules, their project
// memberships and card assignments, the runs they started, their open streams), in one transaction.
// The owner cannot be removed.
func (e *Engine) RemoveOrganizationMember(ctx context.Context, m OrgMemberRemoval) error {
	orgID, userID := m.OrgID, m.UserID
	var missions []db.RecordEdit
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.OrganizationMemberGet(ctx, dbsqlc.OrganizationMemberGetParams{OrganizationID: orgID, UserID: userID})
		if err != nil {
			return dbcore.Wrap(err, "get organization member")
		}
		if cur.Role == "owner" {
			return dbcore.Forbidden("the owner cannot be removed from the organization")
		}
		if err := q.WorkspaceMemberDeleteByOrg(ctx, dbsqlc.WorkspaceMemberDeleteByOrgParams{OrganizationID: orgID,
			UserID: userID}); err != nil {
			return fmt.Errorf("delete workspace memberships: %w", err)
		}
		if err := q.WorkspaceTransferOwnership(ctx, dbsqlc.WorkspaceTransferOwnershipParams{OrganizationID: orgID,
			UserID: userID}); err != nil {
			return fmt.Errorf("transfer workspace ownership: %w", err)
		}
		if _, err = q.OrganizationMemberDelete(ctx, dbsqlc.OrganizationMemberDeleteParams{OrganizationID: orgID,
			UserID: userID}); err != nil {
			return dbcore.Wrap(err, "delete organization member")
		}
		wsIDs, err := q.WorkspaceIDsByOrganization(ctx, orgID)
		if err != nil {
			return fmt.Errorf("list workspaces: %w", err)
		}
		if err := e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditMemberRemoved, OrganizationID: orgID,
			ActorID: m.ActorID, Target: db.AuditTarget{Type: "user", ID: userID, Name: cur.Email},
			Changes: map[string]any{"before": map[string]string{"role": cur.Role}}}); err != nil {
			return err
		}
		missions, err = e.leaveTx(ctx, tx, leaving{WorkspaceIDs: wsIDs, UserID: userID, ActorID: m.ActorID})
		return err
	})
	if err != nil {
		return err
	}
	return e.afterLeaving(ctx, missions)
}

// RecordCheckout stores a billing checkout session created by a billing provider.
func (e *Engine) RecordCheckout(ctx context.Context, in db.NewCheckout) (db.BillingCheckout, error) {
	c, err := e.core.Q.BillingCheckoutInsert(ctx, dbsqlc.BillingCheckoutInsertParams{ID: db.NewID(),
		OrganizationID: in.OrganizationID, Provider: in.Provider, ExternalID: in.ExternalID, URL: in.URL, Status: in.Status,
		CreatedBy: in.CreatedBy})
	return db.BillingCheckout(c), dbcore.Wrap(err, "insert billing checkout")
}

// InsertWorkspace inserts a workspace of an organization, its creator as admin and pilotage owner.
func InsertWorkspace(ctx context.Context, q *dbsqlc.Queries, orgID, userID, name, slug string,
	personal bool) (db.Workspace, error) {
	ws, err := q.WorkspaceInsert(ctx, dbsqlc.WorkspaceInsertParams{ID: db.NewID(), OrganizationID: orgID, Name: name,
		Slug: slug, OwnerID: userID, IsPersonal: personal})
	if dbcore.IsUnique(err, "") {
		return db.Workspace(ws), dbcore.Conflict(fmt.Sprintf("workspace slug %q is already taken in this organization", slug))
	}
	if err != nil {
		return db.Workspace(ws), fmt.Errorf("insert workspace: %w", err)
	}
	err = q.WorkspaceMemberUpsert(ctx, dbsqlc.WorkspaceMemberUpsertParams{WorkspaceID: ws.ID, UserID: userID,
		Role: "admin", PilotageRole: "owner"})
	if err != nil {
		return db.Workspace(ws), fmt.Errorf("insert workspace admin: %w", err)
	}
	return db.Workspace(ws), nil
}

// CreateWorkspace creates a workspace; its creator becomes admin and pilotage owner.
func (e *Engine) CreateWorkspace(ctx context.Context, orgID, userID, name, slug string) (db.Workspace, error) {
	var ws db.Workspace
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		ws, err = InsertWorkspace(ctx, q, orgID, userID, name, slug, false)
		return err
	})
	return ws, err
}

// ListWorkspaces lists the workspaces of an organization the user may open.
func (e *Engine) ListWorkspaces(ctx context.Context, orgID, userID string,
	orgAdmin bool) ([]db.AccessibleWorkspace, error) {
	rows, err := e.core.Q.WorkspaceListAccessible(ctx, dbsqlc.WorkspaceListAccessibleParams{OrganizationID: orgID,
		UserID: userID, OrgAdmin: orgAdmin})
	return dbcore.MapRows(rows,
			func(r dbsqlc.WorkspaceListAccessibleRow) db.AccessibleWorkspace { return db.AccessibleWorkspace(r) }),
		dbcore.Wrap(err, "list workspaces")
}

// Workspace reads a workspace by id.
func (e *Engine) Workspace(ctx context.Context, id string) (db.Workspace, error) {
	ws, err := e.core.Q.WorkspaceGetByID(ctx, id)
	return db.Workspace(ws), dbcore.Wrap(err, "get workspace")
}

// WorkspaceMembers is one page of a workspace's members, by the time they joined.
func (e *Engine) WorkspaceMembers(ctx context.Context, wsID string, p db.Page) (db.Paged[db.WorkspaceMember], error) {
	k, err := p.AfterMember("workspace-members")
	if err != nil {
		return db.Paged[db.WorkspaceMember]{}, err
	}
	rows, err := e.core.Q.WorkspaceMemberList(ctx, dbsqlc.WorkspaceMemberListParams{WorkspaceID: wsID, AfterAt: k.At,
		AfterEmail: k.Email, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.WorkspaceMember]{}, dbcore.Wrap(err, "list workspace members")
	}
	return db.PageOf(p, "workspace-members", dbcore.MapRows(rows,
		func(r dbsqlc.WorkspaceMemberListRow) db.WorkspaceMember { return db.WorkspaceMember(r) }),
		func(m db.WorkspaceMember) any { return db.MemberKey{At: m.CreatedAt, Email: m.Email} }), nil
}

// UpdateWorkspaceMember changes a member's role and/or pilotage role. The workspace owner's roles are
// immutable.
func (e *Engine) UpdateWorkspaceMember(ctx context.Context, wsID, userID string, role,
	pilotageRole *string) (db.WorkspaceMember, error) {
	var m db.WorkspaceMember
	if role != nil && !WorkspaceRole(*role).Valid() {
		return m, dbcore.Invalid(fmt.Sprintf("role must be one of %v", WorkspaceRoles))
	}
	if pilotageRole != nil && !PilotageRole(*pilotageRole).Valid() {
		return m, dbcore.Invalid(fmt.Sprintf("pilotageRole must be one of %v", PilotageRoles))
	}
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		ws, err := q.WorkspaceGetByID(ctx, wsID)
		if err != nil {
			return dbcore.Wrap(err, "get workspace")
		}
		if ws.OwnerID == userID {
			return dbcore.Forbidden("the workspace owner's roles cannot be changed")
		}
		before, err := q.WorkspaceMemberGet(ctx, dbsqlc.WorkspaceMemberGetParams{WorkspaceID: wsID, UserID: userID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("member not found")
		} else if err != nil {
			return fmt.Errorf("get workspace member: %w", err)
		}
		if _, err := q.WorkspaceMemberUpdate(ctx, dbsqlc.WorkspaceMemberUpdateParams{WorkspaceID: wsID, UserID: userID,
			Role: role, PilotageRole: pilotageRole}); err != nil {
			if dbcore.IsNotFound(err) {
				return dbcore.NotFound("member not found")
			}
			return fmt.Errorf("update workspace member: %w", err)
		}
		row, err := q.WorkspaceMemberGet(ctx, dbsqlc.WorkspaceMemberGetParams{WorkspaceID: wsID, UserID: userID})
		m = db.WorkspaceMember(row)
		if err != nil {
			return dbcore.Wrap(err, "get workspace member")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditMemberChanged, OrganizationID: ws.OrganizationID,
			WorkspaceID: wsID, Target: db.AuditTarget{Type: "user", ID: userID, Name: row.Email},
			Changes: map[string]any{
				"before": map[string]string{"role": before.Role, "pilotageRole": before.PilotageRole},
				"after":  map[string]string{"role": row.Role, "pilotageRole": row.PilotageRole}}})
	})
	return m, err
}

// InvitationTTL is how long an invitation can be accepted.
const InvitationTTL = 7 * 24 * time.Hour

// NewInvitation is an invitation to create; Token is the single-use secret (only its hash is stored).
type NewInvitation struct {
	WorkspaceID, WorkspaceName, OrgSlug, WorkspaceSlug string
	Email, Role, InvitedBy, InviterName                string
	Token, AcceptURL                                   string
}

// InviteToWorkspace records an invitation and enqueues its e-mail in the same transaction.
func (e *Engine) InviteToWorkspace(ctx context.Context, in NewInvitation) (db.WorkspaceInvitation, error) {
	var inv db.WorkspaceInvitation
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		inv, err = e.InviteToWorkspaceTx(ctx, tx, in)
		return err
	})
	return inv, err
}

// InviteToWorkspaceTx is InviteToWorkspace inside a caller's transaction.
func (e *Engine) InviteToWorkspaceTx(ctx context.Context, tx pgx.Tx, in NewInvitation) (db.WorkspaceInvitation, error) {
	q := dbcore.Queries(tx)
	member, err := q.WorkspaceMemberExistsByEmail(ctx,
		dbsqlc.WorkspaceMemberExistsByEmailParams{WorkspaceID: in.WorkspaceID, Email: in.Email})
	if err != nil {
		return db.WorkspaceInvitation{}, fmt.Errorf("check membership: %w", err)
	}
	if member {
		return db.WorkspaceInvitation{}, dbcore.Conflict("this person is already a member of the workspace")
	}
	inv, err := q.InvitationInsert(ctx, dbsqlc.InvitationInsertParams{
		ID: db.NewID(), WorkspaceID: in.WorkspaceID, Email: strings.ToLower(in.Email), Role: in.Role,
		TokenHash: auth.HashSecret(in.Token), InvitedBy: in.InvitedBy, ExpiresAt: time.Now().Add(InvitationTTL),
	})
	if err != nil {
		return db.WorkspaceInvitation(inv), fmt.Errorf("insert invitation: %w", err)
	}
	subject, body := workspaceInvitationEmail(in.InviterName, in.WorkspaceName, in.AcceptURL)
	jobID, err := e.enqueueInvitationEmail(ctx, tx, jobs.SendEmailArgs{
		Topic: EmailTopicInvitation, RefID: inv.ID, To: inv.Email, Subject: subject, Body: body,
	})
	if err != nil {
		return db.WorkspaceInvitation(inv), err
	}
	if err := q.InvitationSetEmailJob(ctx, dbsqlc.InvitationSetEmailJobParams{ID: inv.ID,
		EmailJobID: &jobID}); err != nil {
		return db.WorkspaceInvitation(inv), fmt.Errorf("record invitation e-mail job: %w", err)
	}
	inv.EmailJobID = &jobID
	return db.WorkspaceInvitation(inv), e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditMemberInvited,
		WorkspaceID: in.WorkspaceID, ActorID: in.InvitedBy, Target: db.AuditTarget{Type: "invitation", ID: inv.ID,
			Name: inv.Email}, Changes: map[string]any{"after": map[string]string{"email": inv.Email, "role": inv.Role}}})
}

// AcceptedInvitation tells where an accepted invitation leads.
type AcceptedInvitation struct {
	Invitation db.WorkspaceInvitation
	Workspace  db.Workspace
	OrgSlug    string
	// OrgRole and Member are the user's memberships after accepting: someone who already belonged keeps
	// their roles, whatever the invitation said.
	OrgRole string
	Member  db.WorkspaceMember
}

// workspaceInvitations is the kind of a workspace's invitations: they make a member of its organization
// and give their role in the workspace.
var workspaceInvitations = invitationKind[dbsqlc.InvitationGetByTokenHashForUpdateRow]{
	name: "invitation",
	lock: (*dbsqlc.Queries).InvitationGetByTokenHashForUpdate,
	pending: func(r dbsqlc.InvitationGetByTokenHashForUpdateRow) pendingInvitation {
		return pendingInvitation{ID: r.ID, OrganizationID: r.OrganizationID, Email: r.Email, AcceptedAt: r.AcceptedAt,
			ExpiresAt: r.ExpiresAt, OrgRole: "member"}
	},
	join: func(ctx context.Context, q *dbsqlc.Queries, r dbsqlc.InvitationGetByTokenHashForUpdateRow,
		userID string) error {
		if err := q.WorkspaceMemberUpsert(ctx, dbsqlc.WorkspaceMemberUpsertParams{WorkspaceID: r.WorkspaceID, UserID: userID,
			Role: r.Role, PilotageRole: "viewer"}); err != nil {
			return fmt.Errorf("add workspace member: %w", err)
		}
		return nil
	},
	markAccepted: func(ctx context.Context, q *dbsqlc.Queries, id string, userID *string) error {
		return q.InvitationMarkAccepted(ctx, dbsqlc.InvitationMarkAcceptedParams{ID: id, AcceptedBy: userID})
	},
}

// AcceptInvitation makes the user a member of the invitation's workspace (and of its organization if
// they were not). The invitation is bound to its e-mail, single-use and expires.
func (e *Engine) AcceptInvitation(ctx context.Context, token string, user db.User) (AcceptedInvitation, error) {
	var res AcceptedInvitation
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, orgRole, org, err := workspaceInvitations.accept(ctx, q, token, user)
		if err != nil {
			return err
		}
		member, err := q.WorkspaceMemberGet(ctx, dbsqlc.WorkspaceMemberGetParams{WorkspaceID: row.WorkspaceID,
			UserID: user.ID})
		if err != nil {
			return fmt.Errorf("get workspace member: %w", err)
		}
		res.Member = db.WorkspaceMember(member)
		res.OrgRole = orgRole
		res.Invitation = db.WorkspaceInvitation{ID: row.ID, WorkspaceID: row.WorkspaceID, Email: row.Email, Role: row.Role,
			ExpiresAt: row.ExpiresAt, CreatedAt: row.CreatedAt}
		var workspaceRow dbsqlc.Workspace
		workspaceRow, err = q.WorkspaceGetByID(ctx, row.WorkspaceID)
		res.Workspace = db.Workspace(workspaceRow)
		if err != nil {
			return fmt.Errorf("get workspace: %w", err)
		}
		res.OrgSlug = org.Slug
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditMemberAdded, WorkspaceID: row.WorkspaceID,
			ActorID: user.ID, Target: db.AuditTarget{Type: "user", ID: user.ID, Name: user.Email},
			Changes: map[string]any{"invitation": row.ID, "after": map[string]string{"role": res.Member.Role,
				"organizationRole": orgRole}}})
	})
	return res, err
}

package db

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
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

// ResolveAccess answers in one query whether userID belongs to the organization orgSlug and, when
// wsSlug is set, to that workspace. Organization owners and admins act as admin (and pilotage owner) in
// every workspace of their organization. Outside either tenancy it returns ErrNotFound.
//
// When projectID is set (a well-formed UUID), the project must belong to the workspace, else
// ErrNotFound.
func (s *Store) ResolveAccess(ctx context.Context, userID, orgSlug, wsSlug, projectID string) (Access, error) {
	row, err := s.q.AccessResolve(ctx, dbsqlc.AccessResolveParams{UserID: userID, OrgSlug: orgSlug, WsSlug: wsSlug, ProjectID: optional(projectID)})
	if err != nil {
		return Access{}, wrap(err, "resolve access")
	}
	return buildAccess(accessRow{&row.OrgID, &row.OrgName, &row.OrgSlug, &row.OrgOwnerID, &row.OrgCreatedAt, &row.OrgIsPersonal, &row.OrgRole,
		row.WsID, row.WsRole, row.WsPilotageRole, row.ProjectID}, wsSlug, projectID)
}

// UserWithAccess reads a user and, in the same round trip, resolves their access as ResolveAccess does.
// The user is returned even when the access is refused (accessErr), so the caller can first decide
// whether the credential is valid at all.
func (s *Store) UserWithAccess(ctx context.Context, userID, orgSlug, wsSlug, projectID string) (u User, a Access, accessErr error, err error) {
	row, err := s.q.UserAccessResolve(ctx, dbsqlc.UserAccessResolveParams{UserID: userID, OrgSlug: orgSlug, WsSlug: wsSlug, ProjectID: optional(projectID)})
	if err != nil {
		return u, a, nil, wrap(err, "resolve user access")
	}
	a, accessErr = buildAccess(accessRow{row.OrgID, row.OrgName, row.OrgSlug, row.OrgOwnerID, row.OrgCreatedAt, row.OrgIsPersonal, row.OrgRole,
		row.WsID, row.WsRole, row.WsPilotageRole, row.ProjectID}, wsSlug, projectID)
	return row.User, a, accessErr, nil
}

// accessRow is what both access queries return; a nil org role means no membership.
type accessRow struct {
	orgID, orgName, orgSlug, orgOwnerID *string
	orgCreatedAt                        *time.Time
	orgIsPersonal                       *bool
	orgRole                             *string
	wsID, wsRole, wsPilotageRole        *string
	projectID                           *string
}

func buildAccess(r accessRow, wsSlug, projectID string) (Access, error) {
	if r.orgID == nil || r.orgRole == nil {
		return Access{}, notFound("organization not found")
	}
	a := Access{OrgID: *r.orgID, OrgName: *r.orgName, OrgSlug: *r.orgSlug, OrgOwnerID: *r.orgOwnerID, OrgCreatedAt: *r.orgCreatedAt, OrgRole: *r.orgRole,
		OrgIsPersonal: r.orgIsPersonal != nil && *r.orgIsPersonal}
	if wsSlug == "" {
		return a, nil
	}
	if r.wsID == nil {
		return Access{}, notFound("workspace not found")
	}
	a.WorkspaceRole, a.WorkspacePilotageRole = EffectiveWorkspaceRoles(a.OrgRole, r.wsRole, r.wsPilotageRole)
	if a.WorkspaceRole == "" {
		return Access{}, notFound("workspace not found")
	}
	a.WorkspaceID = *r.wsID
	if projectID != "" {
		if r.projectID == nil {
			return Access{}, notFound("project not found")
		}
		a.ProjectID = *r.projectID
	}
	return a, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// CreateOrganization creates an organization owned by userID.
func (s *Store) CreateOrganization(ctx context.Context, userID, name, slug string) (Organization, error) {
	var org Organization
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		org, err = q.OrganizationInsert(ctx, dbsqlc.OrganizationInsertParams{ID: NewID(), Name: name, Slug: slug, OwnerID: userID})
		if isUnique(err, "") {
			return conflict(fmt.Sprintf("organization slug %q is already taken", slug))
		}
		if err != nil {
			return fmt.Errorf("insert organization: %w", err)
		}
		return q.OrganizationMemberInsert(ctx, dbsqlc.OrganizationMemberInsertParams{OrganizationID: org.ID, UserID: userID, Role: "owner"})
	})
	return org, err
}

// ListOrganizations lists the organizations a user belongs to, with their role.
func (s *Store) ListOrganizations(ctx context.Context, userID string) ([]MyOrganization, error) {
	rows, err := s.q.OrganizationListByUser(ctx, userID)
	return mapRows(rows, func(r dbsqlc.OrganizationListByUserRow) MyOrganization { return MyOrganization(r) }), wrap(err, "list organizations")
}

// UpdateOrganization renames an organization.
func (s *Store) UpdateOrganization(ctx context.Context, orgID string, name *string) (Organization, error) {
	org, err := s.q.OrganizationUpdate(ctx, dbsqlc.OrganizationUpdateParams{ID: orgID, Name: name})
	return org, wrap(err, "update organization")
}

// DeleteOrganization removes an organization and everything under it (workspaces, projects, cards, …)
// in one statement: every child table cascades from it. A personal organization cannot be deleted
// while its user exists (ErrConflict).
func (s *Store) DeleteOrganization(ctx context.Context, orgID string) error {
	return s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		// The e-mails of its pending invitations are cancelled with it: an invitation to a workspace
		// that no longer exists must not go out. (A refused delete rolls the cancellations back.)
		ids, err := q.InvitationEmailJobsByOrganization(ctx, orgID)
		if err != nil {
			return fmt.Errorf("list invitation e-mails: %w", err)
		}
		for _, id := range ids {
			if _, err := s.core.River.JobCancelTx(ctx, tx, id); err != nil && !errors.Is(err, river.ErrNotFound) {
				return fmt.Errorf("cancel invitation e-mail: %w", err)
			}
		}
		n, err := q.OrganizationDelete(ctx, orgID)
		if err != nil {
			return fmt.Errorf("delete organization: %w", err)
		}
		if n == 1 {
			return nil
		}
		personal, err := q.OrganizationIsPersonal(ctx, orgID)
		if isNotFound(err) {
			return notFound("organization not found")
		}
		if err != nil {
			return fmt.Errorf("check organization: %w", err)
		}
		if personal {
			return conflict("a personal organization cannot be deleted while its user exists")
		}
		return notFound("organization not found")
	})
}

// EmailTopicInvitation is the outbox topic of invitation e-mails; their RefID is the invitation.
const EmailTopicInvitation = "invitation"

// InvitationPending says whether an invitation still exists and is not accepted: the e-mail worker
// sends an invitation's e-mail only while it is.
func (s *Store) InvitationPending(ctx context.Context, id string) (bool, error) {
	ok, err := s.q.InvitationPending(ctx, id)
	return ok, wrap(err, "check invitation")
}

// OrganizationMembers lists an organization's members.
func (s *Store) OrganizationMembers(ctx context.Context, orgID string) ([]OrganizationMember, error) {
	rows, err := s.q.OrganizationMemberList(ctx, orgID)
	return mapRows(rows, func(r dbsqlc.OrganizationMemberListRow) OrganizationMember { return OrganizationMember(r) }), wrap(err, "list organization members")
}

// AddOrganizationMember adds an existing user, found by e-mail, to an organization.
func (s *Store) AddOrganizationMember(ctx context.Context, orgID, email, role string) (OrganizationMember, error) {
	var m OrganizationMember
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		u, err := q.UserGetByEmail(ctx, email)
		if err != nil {
			if isNotFound(err) {
				return invalid("no account uses this e-mail; invite them to a workspace instead")
			}
			return fmt.Errorf("find user: %w", err)
		}
		err = q.OrganizationMemberInsert(ctx, dbsqlc.OrganizationMemberInsertParams{OrganizationID: orgID, UserID: u.ID, Role: role})
		if isUnique(err, "") {
			return conflict("this user is already a member of the organization")
		}
		if err != nil {
			return fmt.Errorf("insert organization member: %w", err)
		}
		row, err := q.OrganizationMemberGet(ctx, dbsqlc.OrganizationMemberGetParams{OrganizationID: orgID, UserID: u.ID})
		m = OrganizationMember(row)
		return wrap(err, "get organization member")
	})
	return m, err
}

// SetOrganizationMemberRole changes a member's role; the owner's role is immutable.
func (s *Store) SetOrganizationMemberRole(ctx context.Context, orgID, userID, role string) (OrganizationMember, error) {
	var m OrganizationMember
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.OrganizationMemberGet(ctx, dbsqlc.OrganizationMemberGetParams{OrganizationID: orgID, UserID: userID})
		if err != nil {
			return wrap(err, "get organization member")
		}
		if cur.Role == "owner" {
			return forbidden("the owner's role cannot be changed")
		}
		if _, err := q.OrganizationMemberUpdateRole(ctx, dbsqlc.OrganizationMemberUpdateRoleParams{OrganizationID: orgID, UserID: userID, Role: role}); err != nil {
			return fmt.Errorf("update organization member: %w", err)
		}
		cur.Role = role
		m = OrganizationMember(cur)
		return nil
	})
	return m, err
}

// RemoveOrganizationMember removes a member from the organization and all its workspaces. The owner
// cannot be removed.
func (s *Store) RemoveOrganizationMember(ctx context.Context, orgID, userID string) error {
	return s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.OrganizationMemberGet(ctx, dbsqlc.OrganizationMemberGetParams{OrganizationID: orgID, UserID: userID})
		if err != nil {
			return wrap(err, "get organization member")
		}
		if cur.Role == "owner" {
			return forbidden("the owner cannot be removed from the organization")
		}
		if err := q.WorkspaceMemberDeleteByOrg(ctx, dbsqlc.WorkspaceMemberDeleteByOrgParams{OrganizationID: orgID, UserID: userID}); err != nil {
			return fmt.Errorf("delete workspace memberships: %w", err)
		}
		if err := q.WorkspaceTransferOwnership(ctx, dbsqlc.WorkspaceTransferOwnershipParams{OrganizationID: orgID, UserID: userID}); err != nil {
			return fmt.Errorf("transfer workspace ownership: %w", err)
		}
		_, err = q.OrganizationMemberDelete(ctx, dbsqlc.OrganizationMemberDeleteParams{OrganizationID: orgID, UserID: userID})
		return wrap(err, "delete organization member")
	})
}

// RecordCheckout stores a billing checkout session created by a billing provider.
func (s *Store) RecordCheckout(ctx context.Context, in NewCheckout) (BillingCheckout, error) {
	c, err := s.q.BillingCheckoutInsert(ctx, dbsqlc.BillingCheckoutInsertParams{ID: NewID(), OrganizationID: in.OrganizationID,
		Provider: in.Provider, ExternalID: in.ExternalID, Url: in.URL, Status: in.Status, CreatedBy: in.CreatedBy})
	return c, wrap(err, "insert billing checkout")
}

func insertWorkspace(ctx context.Context, q *dbsqlc.Queries, orgID, userID, name, slug string, personal bool) (Workspace, error) {
	ws, err := q.WorkspaceInsert(ctx, dbsqlc.WorkspaceInsertParams{ID: NewID(), OrganizationID: orgID, Name: name, Slug: slug, OwnerID: userID, IsPersonal: personal})
	if isUnique(err, "") {
		return ws, conflict(fmt.Sprintf("workspace slug %q is already taken in this organization", slug))
	}
	if err != nil {
		return ws, fmt.Errorf("insert workspace: %w", err)
	}
	err = q.WorkspaceMemberUpsert(ctx, dbsqlc.WorkspaceMemberUpsertParams{WorkspaceID: ws.ID, UserID: userID, Role: "admin", PilotageRole: "owner"})
	if err != nil {
		return ws, fmt.Errorf("insert workspace admin: %w", err)
	}
	return ws, nil
}

// CreateWorkspace creates a workspace; its creator becomes admin and pilotage owner.
func (s *Store) CreateWorkspace(ctx context.Context, orgID, userID, name, slug string) (Workspace, error) {
	var ws Workspace
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		ws, err = insertWorkspace(ctx, q, orgID, userID, name, slug, false)
		return err
	})
	return ws, err
}

// ListWorkspaces lists the workspaces of an organization the user may open.
func (s *Store) ListWorkspaces(ctx context.Context, orgID, userID string, orgAdmin bool) ([]AccessibleWorkspace, error) {
	rows, err := s.q.WorkspaceListAccessible(ctx, dbsqlc.WorkspaceListAccessibleParams{OrganizationID: orgID, UserID: userID, OrgAdmin: orgAdmin})
	return mapRows(rows, func(r dbsqlc.WorkspaceListAccessibleRow) AccessibleWorkspace { return AccessibleWorkspace(r) }), wrap(err, "list workspaces")
}

// Workspace reads a workspace by id.
func (s *Store) Workspace(ctx context.Context, id string) (Workspace, error) {
	ws, err := s.q.WorkspaceGetByID(ctx, id)
	return ws, wrap(err, "get workspace")
}

// WorkspaceMembers lists a workspace's members.
func (s *Store) WorkspaceMembers(ctx context.Context, wsID string) ([]WorkspaceMember, error) {
	rows, err := s.q.WorkspaceMemberList(ctx, wsID)
	return mapRows(rows, func(r dbsqlc.WorkspaceMemberListRow) WorkspaceMember { return WorkspaceMember(r) }), wrap(err, "list workspace members")
}

// UpdateWorkspaceMember changes a member's role and/or pilotage role. The workspace owner's roles are
// immutable.
func (s *Store) UpdateWorkspaceMember(ctx context.Context, wsID, userID string, role, pilotageRole *string) (WorkspaceMember, error) {
	var m WorkspaceMember
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		ws, err := q.WorkspaceGetByID(ctx, wsID)
		if err != nil {
			return wrap(err, "get workspace")
		}
		if ws.OwnerID == userID {
			return forbidden("the workspace owner's roles cannot be changed")
		}
		if _, err := q.WorkspaceMemberUpdate(ctx, dbsqlc.WorkspaceMemberUpdateParams{WorkspaceID: wsID, UserID: userID, Role: role, PilotageRole: pilotageRole}); err != nil {
			if isNotFound(err) {
				return notFound("member not found")
			}
			return fmt.Errorf("update workspace member: %w", err)
		}
		row, err := q.WorkspaceMemberGet(ctx, dbsqlc.WorkspaceMemberGetParams{WorkspaceID: wsID, UserID: userID})
		m = WorkspaceMember(row)
		return wrap(err, "get workspace member")
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
func (s *Store) InviteToWorkspace(ctx context.Context, in NewInvitation) (WorkspaceInvitation, error) {
	var inv WorkspaceInvitation
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		inv, err = s.InviteToWorkspaceTx(ctx, tx, in)
		return err
	})
	return inv, err
}

// InviteToWorkspaceTx is InviteToWorkspace inside a caller's transaction.
func (s *Store) InviteToWorkspaceTx(ctx context.Context, tx pgx.Tx, in NewInvitation) (WorkspaceInvitation, error) {
	q := queries(tx)
	member, err := q.WorkspaceMemberExistsByEmail(ctx, dbsqlc.WorkspaceMemberExistsByEmailParams{WorkspaceID: in.WorkspaceID, Email: in.Email})
	if err != nil {
		return WorkspaceInvitation{}, fmt.Errorf("check membership: %w", err)
	}
	if member {
		return WorkspaceInvitation{}, conflict("this person is already a member of the workspace")
	}
	hash := sha256.Sum256([]byte(in.Token))
	inv, err := q.InvitationInsert(ctx, dbsqlc.InvitationInsertParams{
		ID: NewID(), WorkspaceID: in.WorkspaceID, Email: strings.ToLower(in.Email), Role: in.Role,
		TokenHash: hash[:], InvitedBy: in.InvitedBy, ExpiresAt: time.Now().Add(InvitationTTL),
	})
	if err != nil {
		return inv, fmt.Errorf("insert invitation: %w", err)
	}
	body := fmt.Sprintf("%s invited you to the workspace %q on Pilot.\n\nAccept the invitation (valid 7 days):\n%s\n",
		in.InviterName, in.WorkspaceName, in.AcceptURL)
	res, err := s.core.River.InsertTx(ctx, tx, jobs.SendEmailArgs{
		Topic: EmailTopicInvitation, RefID: inv.ID, To: inv.Email,
		Subject: fmt.Sprintf("You are invited to %s on Pilot", in.WorkspaceName), Body: body,
	}, &river.InsertOpts{Queue: jobs.QueueEmail})
	if err != nil {
		return inv, fmt.Errorf("enqueue invitation e-mail: %w", err)
	}
	if err := q.InvitationSetEmailJob(ctx, dbsqlc.InvitationSetEmailJobParams{ID: inv.ID, EmailJobID: &res.Job.ID}); err != nil {
		return inv, fmt.Errorf("record invitation e-mail job: %w", err)
	}
	inv.EmailJobID = &res.Job.ID
	return inv, nil
}

// AcceptedInvitation tells where an accepted invitation leads.
type AcceptedInvitation struct {
	Invitation WorkspaceInvitation
	Workspace  Workspace
	OrgSlug    string
	// OrgRole and Member are the user's memberships after accepting: someone who already belonged keeps
	// their roles, whatever the invitation said.
	OrgRole string
	Member  WorkspaceMember
}

// AcceptInvitation makes the user a member of the invitation's workspace (and of its organization if
// they were not). The invitation is bound to its e-mail, single-use and expires.
func (s *Store) AcceptInvitation(ctx context.Context, token string, user User) (AcceptedInvitation, error) {
	var res AcceptedInvitation
	hash := sha256.Sum256([]byte(token))
	err := s.inTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.InvitationGetByTokenHashForUpdate(ctx, hash[:])
		if err != nil {
			if isNotFound(err) {
				return notFound("invitation not found")
			}
			return fmt.Errorf("get invitation: %w", err)
		}
		switch {
		case !strings.EqualFold(row.Email, user.Email):
			return forbidden("this invitation was sent to a different e-mail address")
		case row.AcceptedAt != nil:
			return conflict("this invitation has already been accepted")
		case time.Now().After(row.ExpiresAt):
			return invalid("this invitation has expired")
		}
		if err := q.OrganizationMemberEnsure(ctx, dbsqlc.OrganizationMemberEnsureParams{OrganizationID: row.OrganizationID, UserID: user.ID, Role: "member"}); err != nil {
			return fmt.Errorf("add organization member: %w", err)
		}
		if err := q.WorkspaceMemberUpsert(ctx, dbsqlc.WorkspaceMemberUpsertParams{WorkspaceID: row.WorkspaceID, UserID: user.ID, Role: row.Role, PilotageRole: "viewer"}); err != nil {
			return fmt.Errorf("add workspace member: %w", err)
		}
		if err := q.InvitationMarkAccepted(ctx, dbsqlc.InvitationMarkAcceptedParams{ID: row.ID, AcceptedBy: &user.ID}); err != nil {
			return fmt.Errorf("mark invitation accepted: %w", err)
		}
		member, err := q.WorkspaceMemberGet(ctx, dbsqlc.WorkspaceMemberGetParams{WorkspaceID: row.WorkspaceID, UserID: user.ID})
		if err != nil {
			return fmt.Errorf("get workspace member: %w", err)
		}
		res.Member = WorkspaceMember(member)
		om, err := q.OrganizationMemberGet(ctx, dbsqlc.OrganizationMemberGetParams{OrganizationID: row.OrganizationID, UserID: user.ID})
		if err != nil {
			return fmt.Errorf("get organization member: %w", err)
		}
		res.OrgRole = om.Role
		res.Invitation = WorkspaceInvitation{ID: row.ID, WorkspaceID: row.WorkspaceID, Email: row.Email, Role: row.Role, ExpiresAt: row.ExpiresAt, CreatedAt: row.CreatedAt}
		res.Workspace, err = q.WorkspaceGetByID(ctx, row.WorkspaceID)
		if err != nil {
			return fmt.Errorf("get workspace: %w", err)
		}
		org, err := q.OrganizationGetByID(ctx, row.OrganizationID)
		if err != nil {
			return fmt.Errorf("get organization: %w", err)
		}
		res.OrgSlug = org.Slug
		return nil
	})
	return res, err
}

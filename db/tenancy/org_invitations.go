package tenancy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/jobs"
)

// EmailTopicOrganizationInvitation is the outbox topic of organization invitation e-mails; their RefID
// is the invitation.
const EmailTopicOrganizationInvitation = "organization_invitation"

// NewOrganizationInvitation is an organization invitation to create; Token is the single-use secret
// (only its hash is stored), AcceptURL the link the e-mail carries.
type NewOrganizationInvitation struct {
	OrganizationID, OrganizationName    string
	Email, Role, InvitedBy, InviterName string
	Token, AcceptURL                    string
}

// InviteToOrganization records an invitation to join an organization with a role and enqueues its
// e-mail in the same transaction. Whether an account uses the address changes nothing: the invitation
// waits for whoever signs in with it. Inviting a member is ErrConflict (members are listed to the
// organization anyway).
func (e *Engine) InviteToOrganization(ctx context.Context,
	in NewOrganizationInvitation) (db.OrganizationInvitation, error) {
	var inv db.OrganizationInvitation
	if !slices.Contains(OrganizationInvitationRoles, OrgRole(in.Role)) {
		return inv, dbcore.Invalid(fmt.Sprintf("role must be one of %v", OrganizationInvitationRoles))
	}
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		member, err := q.OrganizationMemberExistsByEmail(ctx,
			dbsqlc.OrganizationMemberExistsByEmailParams{OrganizationID: in.OrganizationID, Email: in.Email})
		if err != nil {
			return fmt.Errorf("check membership: %w", err)
		}
		if member {
			return dbcore.Conflict("this person is already a member of the organization")
		}
		row, err := q.OrgInvitationInsert(ctx, dbsqlc.OrgInvitationInsertParams{
			ID: db.NewID(), OrganizationID: in.OrganizationID, Email: strings.ToLower(in.Email), Role: in.Role,
			TokenHash: auth.HashSecret(in.Token), InvitedBy: in.InvitedBy, ExpiresAt: time.Now().Add(InvitationTTL),
		})
		if err != nil {
			return fmt.Errorf("insert organization invitation: %w", err)
		}
		inv = db.OrganizationInvitation(row)
		subject, body := organizationInvitationEmail(in.InviterName, in.OrganizationName, in.Role, in.AcceptURL)
		jobID, err := e.enqueueInvitationEmail(ctx, tx, jobs.SendEmailArgs{
			Topic: EmailTopicOrganizationInvitation, RefID: inv.ID, To: inv.Email, Subject: subject, Body: body,
		})
		if err != nil {
			return err
		}
		if err := q.OrgInvitationSetEmailJob(ctx, dbsqlc.OrgInvitationSetEmailJobParams{ID: inv.ID,
			EmailJobID: &jobID}); err != nil {
			return fmt.Errorf("record organization invitation e-mail job: %w", err)
		}
		inv.EmailJobID = &jobID
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditMemberInvited, OrganizationID: in.OrganizationID,
			ActorID: in.InvitedBy, Target: db.AuditTarget{Type: "invitation", ID: inv.ID, Name: inv.Email},
			Changes: map[string]any{"after": map[string]string{"email": inv.Email, "organizationRole": inv.Role}}})
	})
	return inv, err
}

// OrganizationInvitationPending says whether an organization invitation still exists and is not
// accepted: the e-mail worker sends its e-mail only while it is.
func (e *Engine) OrganizationInvitationPending(ctx context.Context, id string) (bool, error) {
	ok, err := e.core.Q.OrgInvitationPending(ctx, id)
	return ok, dbcore.Wrap(err, "check organization invitation")
}

// AcceptedOrganizationInvitation tells where an accepted organization invitation leads.
type AcceptedOrganizationInvitation struct {
	Invitation   db.OrganizationInvitation
	Organization db.Organization
	// Role is the user's role in the organization after accepting: someone who already belonged keeps
	// theirs, whatever the invitation said.
	Role string
}

// organizationInvitations is the kind of an organization's invitations: they give their role in it.
var organizationInvitations = invitationKind[dbsqlc.OrganizationInvitation]{
	name: "organization invitation",
	lock: (*dbsqlc.Queries).OrgInvitationGetByTokenHashForUpdate,
	pending: func(r dbsqlc.OrganizationInvitation) pendingInvitation {
		return pendingInvitation{ID: r.ID, OrganizationID: r.OrganizationID, Email: r.Email, AcceptedAt: r.AcceptedAt,
			ExpiresAt: r.ExpiresAt, OrgRole: r.Role}
	},
	markAccepted: func(ctx context.Context, q *dbsqlc.Queries, id string, userID *string) error {
		return q.OrgInvitationMarkAccepted(ctx, dbsqlc.OrgInvitationMarkAcceptedParams{ID: id, AcceptedBy: userID})
	},
}

// AcceptOrganizationInvitation makes the user a member of the invitation's organization with its role.
// The invitation is bound to its e-mail (another user is ErrForbidden), single-use (ErrConflict once
// accepted) and expires (ErrInvalid); an unknown token is ErrNotFound.
func (e *Engine) AcceptOrganizationInvitation(ctx context.Context, token string,
	user db.User) (AcceptedOrganizationInvitation, error) {
	var res AcceptedOrganizationInvitation
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, role, org, err := organizationInvitations.accept(ctx, q, token, user)
		if err != nil {
			return err
		}
		res = AcceptedOrganizationInvitation{Invitation: db.OrganizationInvitation(row), Organization: db.Organization(org),
			Role: role}
		res.Invitation.AcceptedBy = &user.ID
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditMemberAdded, OrganizationID: org.ID,
			ActorID: user.ID, Target: db.AuditTarget{Type: "user", ID: user.ID, Name: user.Email},
			Changes: map[string]any{"invitation": row.ID, "after": map[string]string{"organizationRole": role}}})
	})
	return res, err
}

// checkInvitation refuses to accept an invitation (a workspace's or an organization's) for another
// address than the one it was sent to, a second time, or after it expired.
func checkInvitation(user db.User, email string, acceptedAt *time.Time, expiresAt time.Time) error {
	switch {
	case !strings.EqualFold(email, user.Email):
		return dbcore.Forbidden("this invitation was sent to a different e-mail address")
	case acceptedAt != nil:
		return dbcore.Conflict("this invitation has already been accepted")
	case time.Now().After(expiresAt):
		return dbcore.Invalid("this invitation has expired")
	}
	return nil
}

// enqueueInvitationEmail enqueues an invitation's e-mail in tx and answers its job's id, which the
// invitation keeps so that withdrawing it cancels the e-mail.
func (e *Engine) enqueueInvitationEmail(ctx context.Context, tx pgx.Tx, args jobs.SendEmailArgs) (int64, error) {
	res, err := e.core.River.InsertTx(ctx, tx, args, &river.InsertOpts{Queue: jobs.QueueEmail})
	if err != nil {
		return 0, fmt.Errorf("enqueue invitation e-mail: %w", err)
	}
	return res.Job.ID, nil
}

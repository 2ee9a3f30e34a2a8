package tenancy

// This file is what an admin does with the invitations still waiting (a workspace's or an
// organization's): list them, send one again with a fresh link and expiry, or withdraw one; and what the
// holder of an invitation's link may read before accepting it.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/jobs"
)

// PendingInvitation is an invitation not accepted yet (an expired one too), a workspace's or an
// organization's, as its admins list it.
type PendingInvitation struct {
	ID, Email, Role string
	// InviterName is the inviter's name, or their e-mail address when they gave none (as the e-mail says).
	InviterName          string
	CreatedAt, ExpiresAt time.Time
}

// InvitationRenewal sends an invitation of ScopeID (its workspace or organization) again: Token is its
// new single-use secret (the old link stops working), AcceptURL the link the new e-mail carries.
type InvitationRenewal struct {
	ScopeID, InvitationID string
	Token, AcceptURL      string
}

// InvitationPreview is what the holder of an invitation's link may read before accepting it: where it
// leads, who sent it and with which role; nothing of the invitee or of the organization's members.
type InvitationPreview struct {
	OrganizationName string
	// WorkspaceName is empty for an organization's invitation.
	WorkspaceName string
	InviterName   string
	Role          string
	ExpiresAt     time.Time
	Accepted      bool
}

// personName is a user's name, or their e-mail address when they gave none.
func personName(name, email string) string {
	if name != "" {
		return name
	}
	return email
}

// workspaceInvitationEmail is the subject and body of a workspace invitation's e-mail.
func workspaceInvitationEmail(inviter, workspace, acceptURL string) (string, string) {
	return fmt.Sprintf("You are invited to %s on Pilot", workspace),
		fmt.Sprintf("%s invited you to the workspace %q on Pilot.\n\nAccept the invitation (valid 7 days):\n%s\n",
			inviter, workspace, acceptURL)
}

// organizationInvitationEmail is the subject and body of an organization invitation's e-mail.
func organizationInvitationEmail(inviter, organization, role, acceptURL string) (string, string) {
	return fmt.Sprintf("You are invited to %s on Pilot", organization),
		fmt.Sprintf("%s invited you to join the organization %q on Pilot as %s.\n\nAccept the invitation (valid 7 "+
			"days; sign in, or create an account, with this address first):\n%s\n\nIf you do not want to join, ignore this "+
			"e-mail.\n", inviter, organization, role, acceptURL)
}

// WorkspaceInvitations is one page of a workspace's invitations not accepted yet, oldest first.
func (e *Engine) WorkspaceInvitations(ctx context.Context, wsID string,
	p db.Page) (db.Paged[PendingInvitation], error) {
	k, err := p.AfterTime("workspace-invitations", false)
	if err != nil {
		return db.Paged[PendingInvitation]{}, err
	}
	rows, err := e.core.Q.InvitationPendingPage(ctx, dbsqlc.InvitationPendingPageParams{WorkspaceID: wsID,
		AfterAt: k.At, AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[PendingInvitation]{}, dbcore.Wrap(err, "list workspace invitations")
	}
	return db.PageOf(p, "workspace-invitations", dbcore.MapRows(rows,
		func(r dbsqlc.InvitationPendingPageRow) PendingInvitation {
			return PendingInvitation{ID: r.ID, Email: r.Email, Role: r.Role, InviterName: personName(r.InviterName,
				r.InviterEmail), CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt}
		}), pendingKey), nil
}

// OrganizationInvitations is one page of an organization's invitations not accepted yet, oldest first.
func (e *Engine) OrganizationInvitations(ctx context.Context, orgID string,
	p db.Page) (db.Paged[PendingInvitation], error) {
	k, err := p.AfterTime("organization-invitations", false)
	if err != nil {
		return db.Paged[PendingInvitation]{}, err
	}
	rows, err := e.core.Q.OrgInvitationPendingPage(ctx, dbsqlc.OrgInvitationPendingPageParams{OrganizationID: orgID,
		AfterAt: k.At, AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[PendingInvitation]{}, dbcore.Wrap(err, "list organization invitations")
	}
	return db.PageOf(p, "organization-invitations", dbcore.MapRows(rows,
		func(r dbsqlc.OrgInvitationPendingPageRow) PendingInvitation {
			return PendingInvitation{ID: r.ID, Email: r.Email, Role: r.Role, InviterName: personName(r.InviterName,
				r.InviterEmail), CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt}
		}), pendingKey), nil
}

func pendingKey(i PendingInvitation) any { return db.TimeKey{At: i.CreatedAt, ID: i.ID} }

// errInvitationNotPending is the refusal of an invitation that is not one of the scope's, or was
// accepted or withdrawn already.
var errInvitationNotPending = dbcore.NotFound("invitation not found")

// ResendWorkspaceInvitation sends a workspace's pending invitation again, expired or not: a new token
// (the old link stops working), seven days from now, and a new e-mail through the same outbox job as
// the first, in one transaction; the e-mail of the old link is cancelled if it has not gone out yet.
// An invitation of another workspace, accepted or withdrawn, is ErrNotFound.
func (e *Engine) ResendWorkspaceInvitation(ctx context.Context, r InvitationRenewal) (PendingInvitation, error) {
	var out PendingInvitation
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		inv, err := q.InvitationPendingGetForUpdate(ctx, dbsqlc.InvitationPendingGetForUpdateParams{ID: r.InvitationID,
			WorkspaceID: r.ScopeID})
		if dbcore.IsNotFound(err) {
			return errInvitationNotPending
		} else if err != nil {
			return fmt.Errorf("get invitation: %w", err)
		}
		inviter := personName(inv.InviterName, inv.InviterEmail)
		subject, body := workspaceInvitationEmail(inviter, inv.WorkspaceName, r.AcceptURL)
		jobID, expires, err := e.renewInvitation(ctx, tx, inv.EmailJobID, jobs.SendEmailArgs{Topic: EmailTopicInvitation,
			To: inv.Email, Subject: subject, Body: body, InvitationID: inv.ID})
		if err != nil {
			return err
		}
		if err := q.InvitationRenew(ctx, dbsqlc.InvitationRenewParams{ID: inv.ID, TokenHash: auth.HashSecret(r.Token),
			ExpiresAt: expires, EmailJobID: &jobID}); err != nil {
			return fmt.Errorf("renew invitation: %w", err)
		}
		out = PendingInvitation{ID: inv.ID, Email: inv.Email, Role: inv.Role, InviterName: inviter,
			CreatedAt: inv.CreatedAt, ExpiresAt: expires}
		return nil
	})
	return out, err
}

// ResendOrganizationInvitation is ResendWorkspaceInvitation for an organization's invitation.
func (e *Engine) ResendOrganizationInvitation(ctx context.Context, r InvitationRenewal) (PendingInvitation, error) {
	var out PendingInvitation
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		inv, err := q.OrgInvitationPendingGetForUpdate(ctx, dbsqlc.OrgInvitationPendingGetForUpdateParams{
			ID: r.InvitationID, OrganizationID: r.ScopeID})
		if dbcore.IsNotFound(err) {
			return errInvitationNotPending
		} else if err != nil {
			return fmt.Errorf("get organization invitation: %w", err)
		}
		inviter := personName(inv.InviterName, inv.InviterEmail)
		subject, body := organizationInvitationEmail(inviter, inv.OrganizationName, inv.Role, r.AcceptURL)
		jobID, expires, err := e.renewInvitation(ctx, tx, inv.EmailJobID, jobs.SendEmailArgs{
			Topic: EmailTopicOrganizationInvitation, To: inv.Email, Subject: subject, Body: body, InvitationID: inv.ID})
		if err != nil {
			return err
		}
		if err := q.OrgInvitationRenew(ctx, dbsqlc.OrgInvitationRenewParams{ID: inv.ID,
			TokenHash: auth.HashSecret(r.Token), ExpiresAt: expires, EmailJobID: &jobID}); err != nil {
			return fmt.Errorf("renew organization invitation: %w", err)
		}
		out = PendingInvitation{ID: inv.ID, Email: inv.Email, Role: inv.Role, InviterName: inviter,
			CreatedAt: inv.CreatedAt, ExpiresAt: expires}
		return nil
	})
	return out, err
}

// renewInvitation cancels, in tx, the e-mail of an invitation's old link when it has not gone out yet,
// and enqueues the new one (args): each sending has its own RefID, so the outbox, which records one
// e-mail per topic and RefID, keeps both; InvitationID tells the worker which invitation must still be
// pending. It answers the new e-mail's job and the new expiry.
func (e *Engine) renewInvitation(ctx context.Context, tx pgx.Tx, oldJob *int64,
	args jobs.SendEmailArgs) (int64, time.Time, error) {
	if oldJob != nil {
		if err := e.cancelEmail(ctx, tx, *oldJob); err != nil {
			return 0, time.Time{}, err
		}
	}
	args.RefID = db.NewID()
	jobID, err := e.enqueueInvitationEmail(ctx, tx, args)
	return jobID, time.Now().Add(InvitationTTL), err
}

// cancelEmail cancels an invitation e-mail's job in tx unless it finished (or was removed) already.
func (e *Engine) cancelEmail(ctx context.Context, tx pgx.Tx, jobID int64) error {
	if _, err := e.core.River.JobCancelTx(ctx, tx, jobID); err != nil && !errors.Is(err, river.ErrNotFound) {
		return fmt.Errorf("cancel invitation e-mail: %w", err)
	}
	return nil
}

// RevokeWorkspaceInvitation withdraws a workspace's pending invitation (expired or not): its link no
// longer accepts, and its e-mail is cancelled if it has not gone out yet. An invitation of another
// workspace, accepted or withdrawn already, is ErrNotFound.
func (e *Engine) RevokeWorkspaceInvitation(ctx context.Context, wsID, id string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.InvitationDeletePending(ctx, dbsqlc.InvitationDeletePendingParams{ID: id, WorkspaceID: wsID})
		if dbcore.IsNotFound(err) {
			return errInvitationNotPending
		} else if err != nil {
			return fmt.Errorf("delete invitation: %w", err)
		}
		if err := e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditInvitationRevoked, WorkspaceID: wsID,
			Target: db.AuditTarget{Type: "invitation", ID: id, Name: row.Email}}); err != nil {
			return err
		}
		if row.EmailJobID == nil {
			return nil
		}
		return e.cancelEmail(ctx, tx, *row.EmailJobID)
	})
}

// RevokeOrganizationInvitation is RevokeWorkspaceInvitation for an organization's invitation.
func (e *Engine) RevokeOrganizationInvitation(ctx context.Context, orgID, id string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.OrgInvitationDeletePending(ctx, dbsqlc.OrgInvitationDeletePendingParams{ID: id,
			OrganizationID: orgID})
		if dbcore.IsNotFound(err) {
			return errInvitationNotPending
		} else if err != nil {
			return fmt.Errorf("delete organization invitation: %w", err)
		}
		if err := e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditInvitationRevoked, OrganizationID: orgID,
			Target: db.AuditTarget{Type: "invitation", ID: id, Name: row.Email}}); err != nil {
			return err
		}
		if row.EmailJobID == nil {
			return nil
		}
		return e.cancelEmail(ctx, tx, *row.EmailJobID)
	})
}

// WorkspaceInvitationPreview is what the link of a workspace invitation (its token) shows before it is
// accepted; an unknown token (a wrong link, a withdrawn invitation, or one sent again since) is
// ErrNotFound.
func (e *Engine) WorkspaceInvitationPreview(ctx context.Context, token string) (InvitationPreview, error) {
	r, err := e.core.Q.InvitationPreviewByTokenHash(ctx, auth.HashSecret(token))
	if dbcore.IsNotFound(err) {
		return InvitationPreview{}, errInvitationNotPending
	} else if err != nil {
		return InvitationPreview{}, fmt.Errorf("get invitation: %w", err)
	}
	return InvitationPreview{OrganizationName: r.OrganizationName, WorkspaceName: r.WorkspaceName,
		InviterName: personName(r.InviterName, r.InviterEmail), Role: r.Role, ExpiresAt: r.ExpiresAt,
		Accepted: r.AcceptedAt != nil}, nil
}

// OrganizationInvitationPreview is WorkspaceInvitationPreview for an organization's invitation.
func (e *Engine) OrganizationInvitationPreview(ctx context.Context, token string) (InvitationPreview, error) {
	r, err := e.core.Q.OrgInvitationPreviewByTokenHash(ctx, auth.HashSecret(token))
	if dbcore.IsNotFound(err) {
		return InvitationPreview{}, errInvitationNotPending
	} else if err != nil {
		return InvitationPreview{}, fmt.Errorf("get organization invitation: %w", err)
	}
	return InvitationPreview{OrganizationName: r.OrganizationName, InviterName: personName(r.InviterName,
		r.InviterEmail), Role: r.Role, ExpiresAt: r.ExpiresAt, Accepted: r.AcceptedAt != nil}, nil
}

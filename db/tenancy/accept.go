package tenancy

import (
	"context"
	"fmt"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/auth"
)

// pendingInvitation is an invitation of either kind (an organization's or a workspace's) as accepting it
// sees it.
type pendingInvitation struct {
	ID, OrganizationID, Email string
	AcceptedAt                *time.Time
	ExpiresAt                 time.Time
	// OrgRole is the organization role it gives to one who is not a member yet.
	OrgRole string
}

// invitationKind is what sets one kind of invitation apart from the other when one is accepted; R is the
// row of its table.
type invitationKind[R any] struct {
	// name names the kind in errors: "invitation" or "organization invitation".
	name string
	// lock reads and locks the invitation whose token hashes to tokenHash.
	lock func(q *dbsqlc.Queries, ctx context.Context, tokenHash []byte) (R, error)
	// pending is what accepting needs of a row.
	pending func(R) pendingInvitation
	// join gives the user what the invitation gives beside its organization (nil: nothing).
	join func(ctx context.Context, q *dbsqlc.Queries, row R, userID string) error
	// markAccepted records that userID accepted the invitation id.
	markAccepted func(ctx context.Context, q *dbsqlc.Queries, id string, userID *string) error
}

// accept accepts, in q's transaction, the invitation of token for user: an unknown token is ErrNotFound,
// and checkInvitation refuses it for another address, a second time or once expired. The user joins its
// organization (a member keeps their role) and what else it gives, then it is marked accepted. accept
// answers its row, the user's organization role after and the organization.
func (k invitationKind[R]) accept(ctx context.Context, q *dbsqlc.Queries, token string, user db.User) (
	R, string, dbsqlc.Organization, error) {
	var org dbsqlc.Organization
	row, err := k.lock(q, ctx, auth.HashSecret(token))
	if err != nil {
		if dbcore.IsNotFound(err) {
			return row, "", org, dbcore.NotFound("invitation not found")
		}
		return row, "", org, fmt.Errorf("get %s: %w", k.name, err)
	}
	inv := k.pending(row)
	if err := checkInvitation(user, inv.Email, inv.AcceptedAt, inv.ExpiresAt); err != nil {
		return row, "", org, err
	}
	if err := q.OrganizationMemberEnsure(ctx, dbsqlc.OrganizationMemberEnsureParams{OrganizationID: inv.OrganizationID,
		UserID: user.ID, Role: inv.OrgRole}); err != nil {
		return row, "", org, fmt.Errorf("add organization member: %w", err)
	}
	if k.join != nil {
		if err := k.join(ctx, q, row, user.ID); err != nil {
			return row, "", org, err
		}
	}
	if err := k.markAccepted(ctx, q, inv.ID, &user.ID); err != nil {
		return row, "", org, fmt.Errorf("mark %s accepted: %w", k.name, err)
	}
	m, err := q.OrganizationMemberGet(ctx, dbsqlc.OrganizationMemberGetParams{OrganizationID: inv.OrganizationID,
		UserID: user.ID})
	if err != nil {
		return row, "", org, fmt.Errorf("get organization member: %w", err)
	}
	org, err = q.OrganizationGetByID(ctx, inv.OrganizationID)
	if err != nil {
		return row, "", org, fmt.Errorf("get organization: %w", err)
	}
	return row, m.Role, org, nil
}

package tenancy

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Sign-in domains: an organization's admins name the e-mail domains of its people (example.com); a person
// whose address at one of them is verified joins the organization as a member, without an invitation. A
// domain belongs to one organization at most, and never to a personal one. Only a verified address
// joins: the identity engine calls JoinByEmailDomainTx where a single sign-on provider's verified address
// links or creates an account, and where the link Pilot e-mails verifies an address (a password sign-up
// alone never joins: anyone may type any address).

// MaxOrganizationDomains is how many sign-in domains an organization may have.
const MaxOrganizationDomains = 20

// domainPattern is a hostname of at least two labels, lower case (the migration's check says it again).
var domainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// NormalizeDomain answers domain trimmed and lower case, or ErrInvalid in words when it is not a hostname
// of at least two labels (example.com).
func NormalizeDomain(domain string) (string, error) {
	d := strings.ToLower(strings.TrimSpace(domain))
	d = strings.TrimPrefix(d, "@")
	if d == "" {
		return "", dbcore.Invalid("give a domain, like example.com")
	}
	if len(d) > 253 || !domainPattern.MatchString(d) {
		return "", dbcore.Invalid(fmt.Sprintf("%q is not a domain: give a name like example.com (letters, digits, "+
			"hyphens and dots)", domain))
	}
	return d, nil
}

// OrganizationDomains lists an organization's sign-in domains, the oldest first.
func (e *Engine) OrganizationDomains(ctx context.Context, orgID string) ([]db.OrganizationDomain, error) {
	rows, err := e.core.Q.OrganizationDomainList(ctx, orgID)
	return dbcore.MapRows(rows, func(r dbsqlc.OrganizationDomain) db.OrganizationDomain {
		return db.OrganizationDomain(r)
	}), dbcore.Wrap(err, "list organization domains")
}

// AddOrganizationDomain gives an organization a sign-in domain, added by actorID. Not a domain is
// ErrInvalid; a personal organization, a domain of this or another organization, or more than
// MaxOrganizationDomains is ErrConflict.
func (e *Engine) AddOrganizationDomain(ctx context.Context, orgID, actorID, domain string) (db.OrganizationDomain,
	error) {
	d, err := NormalizeDomain(domain)
	if err != nil {
		return db.OrganizationDomain{}, err
	}
	var out db.OrganizationDomain
	err = e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		personal, err := q.OrganizationIsPersonal(ctx, orgID)
		if err != nil {
			return dbcore.Wrap(err, "get organization")
		}
		if personal {
			return dbcore.Conflict("a personal organization has no sign-in domains: create an organization for your team")
		}
		n, err := q.OrganizationDomainCount(ctx, orgID)
		if err != nil {
			return dbcore.Wrap(err, "count organization domains")
		}
		if n >= MaxOrganizationDomains {
			return dbcore.Conflict(fmt.Sprintf("an organization has at most %d sign-in domains", MaxOrganizationDomains))
		}
		row, err := q.OrganizationDomainInsert(ctx, dbsqlc.OrganizationDomainInsertParams{ID: db.NewID(),
			OrganizationID: orgID, Domain: d, CreatedBy: dbcore.Optional(actorID)})
		if dbcore.IsNotFound(err) { // ON CONFLICT DO NOTHING: an organization has it
			owner, err := q.OrganizationDomainOwner(ctx, d)
			if err == nil && owner == orgID {
				return dbcore.Conflict(fmt.Sprintf("%s is already a sign-in domain of this organization", d))
			}
			return dbcore.Conflict(fmt.Sprintf("%s is a sign-in domain of another organization", d))
		}
		out = db.OrganizationDomain(row)
		return dbcore.Wrap(err, "insert organization domain")
	})
	return out, err
}

// RemoveOrganizationDomain removes an organization's sign-in domain (its members stay members); another
// organization's or an unknown domain is ErrNotFound.
func (e *Engine) RemoveOrganizationDomain(ctx context.Context, orgID, domainID string) error {
	_, err := e.core.Q.OrganizationDomainDelete(ctx, dbsqlc.OrganizationDomainDeleteParams{ID: domainID,
		OrganizationID: orgID})
	if dbcore.IsNotFound(err) {
		return dbcore.NotFound("sign-in domain not found")
	}
	return dbcore.Wrap(err, "delete organization domain")
}

// How a person joined an organization by their e-mail domain, in the member_added entry's changes (via).
const (
	// JoinedBySSO: a single sign-on provider said the address is verified.
	JoinedBySSO = "sso_verified_email"
	// JoinedByEmailVerification: the person followed the verification link Pilot e-mailed.
	JoinedByEmailVerification = "email_verification"
)

// DomainJoin is a person whose address was just verified, as the identity engine sees them.
type DomainJoin struct {
	UserID string
	// Email is the verified address; its domain (after the last @) is looked up.
	Email string
	// Via is JoinedBySSO or JoinedByEmailVerification; Provider names the provider for JoinedBySSO.
	Via, Provider string
}

// JoinByEmailDomainTx makes j's user a member of the organization whose sign-in domain is the domain of
// j's address, unless they are one already, in tx (the transaction that verified the address), and
// records member_added in the audit log with how they joined. It answers the organizations joined. The
// caller vouches that the address is verified.
func JoinByEmailDomainTx(ctx context.Context, tx pgx.Tx, auditor db.Auditor, j DomainJoin) ([]string, error) {
	at := strings.LastIndexByte(j.Email, '@')
	if at < 0 {
		return nil, nil
	}
	domain := strings.ToLower(j.Email[at+1:])
	q := dbcore.Queries(tx)
	orgs, err := q.OrganizationDomainJoin(ctx, dbsqlc.OrganizationDomainJoinParams{UserID: j.UserID, Domain: domain})
	if err != nil {
		return nil, dbcore.Wrap(err, "join organization by domain")
	}
	for _, orgID := range orgs {
		changes := map[string]any{"via": j.Via, "domain": domain, "after": map[string]string{"organizationRole": "member"}}
		if j.Provider != "" {
			changes["provider"] = j.Provider
		}
		if err := auditor.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditMemberAdded, OrganizationID: orgID,
			ActorID: j.UserID, Target: db.AuditTarget{Type: "user", ID: j.UserID, Name: j.Email},
			Changes: changes}); err != nil {
			return nil, err
		}
	}
	return orgs, nil
}

package identity

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/db/tenancy"
)

// Sign-in with OpenID Connect providers: the relying party (internal/oidc) proves who a person is at
// their provider; this file keeps what Pilot remembers of it. A provider's subject is linked to one
// account (user_identities). The first sign-in of a subject finds its account by e-mail only when the
// provider says the address is verified; otherwise, or when no account has the address, it creates one
// (just in time), unless the deployment's allowed domains exclude the address. When the provider says the
// address is verified, the sign-in that links or creates the account also makes the person a member of
// the organization whose sign-in domain it has. Each step is one transaction: a refused sign-in leaves
// nothing behind.

// Refusals of a sign-in with a provider, each a page the person can act on (match with errors.Is; each
// is also a db.ErrConflict, db.ErrForbidden or db.ErrInvalid).
var (
	// ErrExternalNoEmail: the provider shared no e-mail address, and no account is linked to the subject.
	ErrExternalNoEmail = errors.New("the provider shared no e-mail address")
	// ErrExternalEmailTaken: an account has the address, but the provider does not say it is verified,
	// so the subject is not linked to it, and no second account may have the address.
	ErrExternalEmailTaken = errors.New("an account has this e-mail address, which the provider does not say is verified")
	// ErrExternalDomain: no account has the address, and its domain is not one accounts may be created for.
	ErrExternalDomain = errors.New("accounts are not created for this e-mail domain")
	// ErrExternalServiceAccount: the address is an agent's service account, which no person signs in to.
	ErrExternalServiceAccount = errors.New("this e-mail address belongs to a service account")
)

// refusal is a sentinel of this file wrapped as the store's kind.
type refusal struct {
	kind, reason error
}

func (r refusal) Error() string   { return r.reason.Error() }
func (r refusal) Unwrap() []error { return []error{r.kind, r.reason} }

// ExternalSignIn is what a provider said about a person it signed in.
type ExternalSignIn struct {
	// Provider is the provider's id in the configuration; Subject its `sub` claim.
	Provider, Subject string
	// Email and EmailVerified are the `email` and `email_verified` claims (either may be missing).
	Email         string
	EmailVerified bool
	// Name is the `name` claim, the new account's name.
	Name string
	// AllowedDomains, when not empty, are the only e-mail domains (lower case) accounts are created for;
	// a created account's address must then be verified by the provider.
	AllowedDomains []string
}

// ExternalResult is the account a sign-in with a provider opens a session for.
type ExternalResult struct {
	User db.User
	// Identity is the subject's link, made by this sign-in when Linked or Created.
	Identity db.UserIdentity
	// Linked: this sign-in linked the subject to an account found by its verified e-mail address.
	Linked bool
	// Created: this sign-in created the account.
	Created bool
	// JoinedOrganizations are the organizations this sign-in made the person a member of, by the domain
	// of the address the provider verified (sign-in domains, db/tenancy/domains.go).
	JoinedOrganizations []string
}

// SignInExternal answers the account of a person a provider signed in: the one linked to the subject,
// else the one whose address the provider verified (linked now), else a new account (created and
// linked now, with a personal organization and workspace as Register makes). Refusals are the
// ErrExternal… errors.
func (e *Engine) SignInExternal(ctx context.Context, in ExternalSignIn) (ExternalResult, error) {
	in.Email = strings.TrimSpace(in.Email)
	var out ExternalResult
	attempt := func() error {
		return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
			var err error
			out, err = e.signInExternal(ctx, tx, q, in)
			return err
		})
	}
	err := attempt()
	// A concurrent first sign-in of the same subject (two tabs) linked it first: this one finds the link.
	if dbcore.IsUnique(err, "user_identities_provider_subject_key") {
		err = attempt()
	}
	return out, err
}

func (e *Engine) signInExternal(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries,
	in ExternalSignIn) (ExternalResult, error) {
	link, err := q.IdentityGet(ctx, dbsqlc.IdentityGetParams{Provider: in.Provider, Subject: in.Subject})
	switch {
	case err == nil:
		if err := q.IdentityTouch(ctx, dbsqlc.IdentityTouchParams{ID: link.ID, Email: in.Email}); err != nil {
			return ExternalResult{}, dbcore.Wrap(err, "touch identity")
		}
		u, err := q.UserGetByID(ctx, link.UserID)
		return ExternalResult{User: db.User(u), Identity: db.UserIdentity(link)}, dbcore.Wrap(err, "get user")
	case !dbcore.IsNotFound(err):
		return ExternalResult{}, dbcore.Wrap(err, "get identity")
	}
	if in.Email == "" {
		return ExternalResult{}, refusal{db.ErrInvalid, ErrExternalNoEmail}
	}
	existing, err := q.UserGetByEmail(ctx, in.Email)
	if err != nil && !dbcore.IsNotFound(err) {
		return ExternalResult{}, dbcore.Wrap(err, "get user by email")
	}
	found := err == nil
	if found && existing.IsService {
		return ExternalResult{}, refusal{db.ErrForbidden, ErrExternalServiceAccount}
	}
	if found && !in.EmailVerified {
		return ExternalResult{}, refusal{db.ErrConflict, ErrExternalEmailTaken}
	}
	res := ExternalResult{User: db.User(existing), Linked: found}
	if !found {
		if !DomainAllowed(in.Email, in.EmailVerified, in.AllowedDomains) {
			return ExternalResult{}, refusal{db.ErrForbidden, ErrExternalDomain}
		}
		reg, err := e.registerIn(ctx, tx, q, in.Email, strings.TrimSpace(truncate(in.Name, 100)), "", "")
		if err != nil {
			return ExternalResult{}, err
		}
		res = ExternalResult{User: reg.User, Created: true}
	}
	if in.EmailVerified && !res.User.EmailVerified {
		if err := q.UserMarkEmailVerified(ctx, res.User.ID); err != nil {
			return ExternalResult{}, dbcore.Wrap(err, "mark email verified")
		}
		res.User.EmailVerified = true
	}
	row, err := q.IdentityInsert(ctx, dbsqlc.IdentityInsertParams{ID: db.NewID(), UserID: res.User.ID,
		Provider: in.Provider, Subject: in.Subject, Email: in.Email})
	if err != nil {
		return ExternalResult{}, dbcore.Wrap(err, "link identity")
	}
	res.Identity = db.UserIdentity(row)
	if err := e.RecordSSOLinkTx(ctx, tx, SSOLink{UserID: res.User.ID, Provider: in.Provider, Subject: in.Subject,
		Email: in.Email}, true); err != nil {
		return ExternalResult{}, err
	}
	// The provider vouches for the address: its person joins the organization of its domain (sign-in
	// domains), at the sign-in that links or creates the account only, so that one an admin removed is not
	// brought back by every later sign-in.
	if in.EmailVerified {
		res.JoinedOrganizations, err = tenancy.JoinByEmailDomainTx(ctx, tx, e.audit, tenancy.DomainJoin{
			UserID: res.User.ID, Email: in.Email, Via: tenancy.JoinedBySSO, Provider: in.Provider})
		if err != nil {
			return ExternalResult{}, err
		}
	}
	return res, nil
}

// ErrExternalLinkedElsewhere is the refusal of a link whose provider's subject is linked to another
// account than the one linking it (also a db.ErrConflict).
var ErrExternalLinkedElsewhere = errors.New("this identity of the provider is linked to another account")

// ExternalLink is a provider's subject a signed-in person links to their account: the account and the
// session that started the link (ExternalLogin.LinkUserID, LinkSessionID), and what the provider said.
type ExternalLink struct {
	UserID, SessionID, Provider, Subject, Email string
}

// LinkExternal links a provider's subject to a signed-in account, in the transaction that records it
// (sso_linked): only while the session that started the link is active (else ErrNotFound), and never a
// subject linked to another account (ErrExternalLinkedElsewhere). A subject already linked to this
// account is no error: its link is answered, marked used, and nothing is recorded.
func (e *Engine) LinkExternal(ctx context.Context, in ExternalLink) (db.UserIdentity, error) {
	in.Email = strings.TrimSpace(in.Email)
	var out db.UserIdentity
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := q.SessionUser(ctx, dbsqlc.SessionUserParams{SessionID: in.SessionID,
			UserID: in.UserID}); dbcore.IsNotFound(err) {
			return dbcore.NotFound("the session that started the link has ended")
		} else if err != nil {
			return dbcore.Wrap(err, "get session")
		}
		link, err := q.IdentityGet(ctx, dbsqlc.IdentityGetParams{Provider: in.Provider, Subject: in.Subject})
		switch {
		case err == nil && link.UserID != in.UserID:
			return refusal{db.ErrConflict, ErrExternalLinkedElsewhere}
		case err == nil:
			out = db.UserIdentity(link)
			return dbcore.Wrap(q.IdentityTouch(ctx, dbsqlc.IdentityTouchParams{ID: link.ID, Email: in.Email}),
				"touch identity")
		case !dbcore.IsNotFound(err):
			return dbcore.Wrap(err, "get identity")
		}
		row, err := q.IdentityInsert(ctx, dbsqlc.IdentityInsertParams{ID: db.NewID(), UserID: in.UserID,
			Provider: in.Provider, Subject: in.Subject, Email: in.Email})
		if err != nil {
			return dbcore.Wrap(err, "link identity")
		}
		out = db.UserIdentity(row)
		return e.RecordSSOLinkTx(ctx, tx, SSOLink{UserID: in.UserID, Provider: in.Provider, Subject: in.Subject,
			Email: in.Email}, true)
	})
	// A concurrent link or sign-in of the same subject won: it is linked to an account now.
	if dbcore.IsUnique(err, "user_identities_provider_subject_key") {
		return e.LinkExternal(ctx, in)
	}
	return out, err
}

// DomainAllowed reports whether an account may be created for email: any address when allowed is
// empty, else a verified address whose domain (after the last @, case-insensitively) is one of allowed.
func DomainAllowed(email string, verified bool, allowed []string) bool {
	if len(allowed) == 0 {
		return true
	}
	at := strings.LastIndexByte(email, '@')
	return verified && at >= 0 && slices.Contains(allowed, strings.ToLower(email[at+1:]))
}

// Identities lists the providers' subjects linked to a user, the oldest first.
func (e *Engine) Identities(ctx context.Context, userID string) ([]db.UserIdentity, error) {
	rows, err := e.core.Q.IdentityListByUser(ctx, userID)
	return dbcore.MapRows(rows, func(r dbsqlc.UserIdentity) db.UserIdentity { return db.UserIdentity(r) }),
		dbcore.Wrap(err, "list identities")
}

// UnlinkIdentity removes one of the user's linked identities, only while the account keeps another way
// to sign in: another identity, or a password when passwordCounts (PASSWORD_LOGIN is not off).
// Another user's or an unknown identity is ErrNotFound; the last way in is ErrConflict.
func (e *Engine) UnlinkIdentity(ctx context.Context, userID, identityID string, passwordCounts bool) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		hash, err := q.UserLockForUpdate(ctx, userID)
		if err != nil {
			return dbcore.Wrap(err, "lock user")
		}
		links, err := q.IdentityListByUser(ctx, userID)
		if err != nil {
			return dbcore.Wrap(err, "list identities")
		}
		i := slices.IndexFunc(links, func(l dbsqlc.UserIdentity) bool { return l.ID == identityID })
		if i < 0 {
			return dbcore.NotFound("identity not found")
		}
		if len(links) == 1 && (hash == "" || !passwordCounts) {
			return dbcore.Conflict("this is the account's only way to sign in: set a password or link another " +
				"provider first")
		}
		if _, err = q.IdentityDelete(ctx, dbsqlc.IdentityDeleteParams{ID: identityID, UserID: userID}); err != nil {
			return dbcore.Wrap(err, "unlink identity")
		}
		l := links[i]
		return e.RecordSSOLinkTx(ctx, tx, SSOLink{UserID: userID, Provider: l.Provider, Subject: l.Subject,
			Email: l.Email}, false)
	})
}

// ExternalLogin is a sign-in under way at a provider: what the callback checks the provider's answer
// against.
type ExternalLogin struct {
	// State is sent to the provider and kept by the browser; only its hash is stored.
	State, Provider, Nonce, CodeVerifier string
	// ReturnTo is the path of the web app to go to once signed in.
	ReturnTo  string
	ExpiresAt time.Time
	// LinkUserID and LinkSessionID, when set, make it a link: the account that links the provider, and
	// the session that started it (the callback must come back with it; LinkExternal).
	LinkUserID, LinkSessionID string
}

// BeginExternalLogin records a sign-in under way (and deletes the ones long expired).
func (e *Engine) BeginExternalLogin(ctx context.Context, l ExternalLogin) error {
	if err := e.core.Q.OIDCLoginDeleteExpired(ctx); err != nil {
		return dbcore.Wrap(err, "delete expired sign-ins")
	}
	h := sha256.Sum256([]byte(l.State))
	return dbcore.Wrap(e.core.Q.OIDCLoginInsert(ctx, dbsqlc.OIDCLoginInsertParams{StateHash: h[:], Provider: l.Provider,
		Nonce: l.Nonce, CodeVerifier: l.CodeVerifier, ReturnTo: l.ReturnTo, ExpiresAt: l.ExpiresAt,
		LinkUserID: dbcore.Optional(l.LinkUserID), LinkSessionID: dbcore.Optional(l.LinkSessionID)}),
		"insert sign-in")
}

// ErrExternalLoginExpired is the refusal of a sign-in under way found too late.
var ErrExternalLoginExpired = errors.New("the sign-in took too long")

// TakeExternalLogin answers the sign-in under way of state at provider and forgets it, so that it is
// taken once: an unknown or already taken state is ErrNotFound, an expired one ErrExternalLoginExpired
// (also ErrNotFound).
func (e *Engine) TakeExternalLogin(ctx context.Context, provider, state string) (ExternalLogin, error) {
	h := sha256.Sum256([]byte(state))
	row, err := e.core.Q.OIDCLoginTake(ctx, dbsqlc.OIDCLoginTakeParams{StateHash: h[:], Provider: provider})
	if dbcore.IsNotFound(err) {
		return ExternalLogin{}, dbcore.NotFound("no sign-in under way with this state")
	}
	if err != nil {
		return ExternalLogin{}, fmt.Errorf("take sign-in: %w", err)
	}
	if !row.Live {
		return ExternalLogin{}, refusal{db.ErrNotFound, ErrExternalLoginExpired}
	}
	out := ExternalLogin{State: state, Provider: row.Provider, Nonce: row.Nonce, CodeVerifier: row.CodeVerifier,
		ReturnTo: row.ReturnTo, ExpiresAt: row.ExpiresAt}
	if row.LinkUserID != nil && row.LinkSessionID != nil {
		out.LinkUserID, out.LinkSessionID = *row.LinkUserID, *row.LinkSessionID
	}
	return out, nil
}

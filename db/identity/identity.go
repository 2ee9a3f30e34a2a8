package identity

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/tenancy"
)

// Registration is what a new account starts with.
type Registration struct {
	User         db.User
	Organization db.Organization
	Workspace    db.Workspace
}

// Register creates a user with their personal organization and workspace, in one transaction.
func (e *Engine) Register(ctx context.Context, email, name, passwordHash string) (Registration, error) {
	return e.register(ctx, email, name, passwordHash, "")
}

// RegisterAndVerify is Register that also e-mails the new user a link verifying their address, as
// SendEmailVerification does, in the same transaction: the account and its e-mail commit together.
func (e *Engine) RegisterAndVerify(ctx context.Context, email, name, passwordHash,
	verifyLink string) (Registration, error) {
	return e.register(ctx, email, name, passwordHash, verifyLink)
}

func (e *Engine) register(ctx context.Context, email, name, passwordHash, verifyLink string) (Registration, error) {
	var reg Registration
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		reg, err = e.registerIn(ctx, tx, q, email, name, passwordHash, verifyLink)
		return err
	})
	return reg, err
}

// registerIn is register in the caller's transaction (a sign-in with a provider creates the account
// and links it together). An empty passwordHash makes an account no password signs in to.
func (e *Engine) registerIn(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, email, name, passwordHash,
	verifyLink string) (Registration, error) {
	var reg Registration
	err := func() error {
		var err error
		var userRow dbsqlc.User
		userRow, err = q.UserInsert(ctx, dbsqlc.UserInsertParams{ID: db.NewID(), Email: email, Name: name,
			PasswordHash: passwordHash})
		reg.User = db.User(userRow)
		if dbcore.IsUnique(err, "users_email_key") {
			return dbcore.Conflict("an account with this e-mail already exists")
		}
		if err != nil {
			return fmt.Errorf("insert user: %w", err)
		}
		orgName := name
		if orgName == "" {
			orgName = strings.SplitN(email, "@", 2)[0]
		}
		if r := []rune(orgName); len(r) > 80 {
			orgName = string(r[:80]) // keeps the personal organization's name within the 100-char limit
		}
		if reg.Organization, err = insertPersonalOrganization(ctx, q, reg.User.ID, orgName+"'s organization",
			personalSlugBase(name, email)); err != nil {
			return err
		}
		if err := q.OrganizationMemberInsert(ctx, dbsqlc.OrganizationMemberInsertParams{
			OrganizationID: reg.Organization.ID, UserID: reg.User.ID, Role: "owner",
		}); err != nil {
			return fmt.Errorf("insert organization owner: %w", err)
		}
		reg.Workspace, err = tenancy.InsertWorkspace(ctx, q, reg.Organization.ID, reg.User.ID, "Personal", "personal", true)
		if err != nil || verifyLink == "" {
			return err
		}
		return e.sendVerification(ctx, tx, q, reg.User, verifyLink)
	}()
	return reg, err
}

var slugUnsafe = regexp.MustCompile(`[^a-z0-9]+`)

// personalSlugBase derives a personal organization's slug from the user's name, or the local part of
// their e-mail when the name gives nothing: lowercase letters, digits and hyphens, 2 to 40 characters.
func personalSlugBase(name, email string) string {
	for _, src := range []string{name, strings.SplitN(email, "@", 2)[0]} {
		slug := strings.Trim(slugUnsafe.ReplaceAllString(strings.ToLower(src), "-"), "-")
		if len(slug) > 40 {
			slug = strings.Trim(slug[:40], "-")
		}
		if len(slug) >= 2 {
			return slug
		}
	}
	return "user"
}

// insertPersonalOrganization creates a personal organization under base, or base with a random suffix
// when base is taken: a registration never fails on a slug. ON CONFLICT DO NOTHING keeps the
// transaction usable after a collision (and waits for a concurrent registration holding the slug).
func insertPersonalOrganization(ctx context.Context, q *dbsqlc.Queries, userID, name,
	base string) (db.Organization, error) {
	slug := base
	for range 20 {
		rows, err := q.OrganizationInsertPersonal(ctx, dbsqlc.OrganizationInsertPersonalParams{ID: db.NewID(), Name: name,
			Slug: slug, OwnerID: userID})
		if err != nil {
			return db.Organization{}, fmt.Errorf("insert personal organization: %w", err)
		}
		if len(rows) == 1 {
			return db.Organization(rows[0]), nil
		}
		b := make([]byte, 3)
		_, _ = rand.Read(b)
		slug = base + "-" + hex.EncodeToString(b)
	}
	return db.Organization{}, fmt.Errorf("insert personal organization: no free slug for %q", base)
}

// UserByID reads a user.
func (e *Engine) UserByID(ctx context.Context, id string) (db.User, error) {
	u, err := e.core.Q.UserGetByID(ctx, id)
	return db.User(u), dbcore.Wrap(err, "get user")
}

// UserByEmail reads a user by e-mail, case-insensitively.
func (e *Engine) UserByEmail(ctx context.Context, email string) (db.User, error) {
	u, err := e.core.Q.UserGetByEmail(ctx, email)
	return db.User(u), dbcore.Wrap(err, "get user by email")
}

// UpdateProfile changes the fields given (nil leaves a field as it is).
func (e *Engine) UpdateProfile(ctx context.Context, userID string, name, jobTitle *string) (db.User, error) {
	u, err := e.core.Q.UserUpdateProfile(ctx, dbsqlc.UserUpdateProfileParams{ID: userID, Name: name, JobTitle: jobTitle})
	return db.User(u), dbcore.Wrap(err, "update profile")
}

// SetPassword stores a new password hash and ends every session of the user (their JWTs, of an older
// session version, were refused already), in one transaction.
func (e *Engine) SetPassword(ctx context.Context, userID, passwordHash string) (db.User, error) {
	var out db.User
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		u, err := q.UserUpdatePassword(ctx, dbsqlc.UserUpdatePasswordParams{ID: userID, PasswordHash: passwordHash})
		if err != nil {
			return dbcore.Wrap(err, "update password")
		}
		out = db.User(u)
		if _, err = q.SessionRevokeAll(ctx, userID); err != nil {
			return dbcore.Wrap(err, "end sessions")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditPasswordChanged, ActorID: userID,
			Target: db.AuditTarget{Type: "user", ID: userID, Name: out.Email}})
	})
	return out, err
}

// SetTOTPSecret stores a pending (not yet enabled) TOTP secret.
func (e *Engine) SetTOTPSecret(ctx context.Context, userID, secret string) error {
	return dbcore.Wrap(e.core.Q.UserSetTOTPSecret(ctx, dbsqlc.UserSetTOTPSecretParams{ID: userID, TotpSecret: &secret}),
		"set totp secret")
}

// ConsumeTOTPStep records that the code of a time step was used. It reports false when that step (or a
// later one) was already accepted: the code is a replay.
func (e *Engine) ConsumeTOTPStep(ctx context.Context, userID string, step int64) (bool, error) {
	n, err := e.core.Q.UserAdvanceTOTPStep(ctx, dbsqlc.UserAdvanceTOTPStepParams{ID: userID, Step: step})
	if err != nil {
		return false, fmt.Errorf("consume totp step: %w", err)
	}
	return n == 1, nil
}

package identity

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/jobs"
)

// The purposes of account tokens, which are also the outbox topics of the e-mails carrying them (their
// RefID is the token's row).
const (
	EmailTopicPasswordReset     = "password_reset"
	EmailTopicEmailVerification = "email_verification"
)

// How long an e-mailed link works.
const (
	PasswordResetTTL     = time.Hour
	EmailVerificationTTL = 24 * time.Hour
)

// tokenBytes is an account token's randomness: 256 bits, written as 64 hex digits.
const tokenBytes = 32

// RequestPasswordReset e-mails a single-use link to reset the password of the account that uses email,
// when there is one (service users excepted), and does nothing otherwise: the caller answers the same
// either way. The link is link followed by the token (link ends with "token=", say); a new request
// replaces the user's previous token, and the link works for PasswordResetTTL.
func (e *Engine) RequestPasswordReset(ctx context.Context, email, link string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		u, err := q.UserGetByEmail(ctx, email)
		if dbcore.IsNotFound(err) || (err == nil && u.IsService) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("get user by email: %w", err)
		}
		return e.mailToken(ctx, tx, q, db.User(u), EmailTopicPasswordReset, PasswordResetTTL, link, func(url string) (string,
			string) {
			return "Reset your Pilot password", fmt.Sprintf("Someone, hopefully you, asked to reset the password of the Pilot "+
				"account of %s.\n\nChoose a new password (the link works once, for an hour):\n%s\n\nIf it was not you, ignore "+
				"this e-mail: your password stays as it is.\n", u.Email, url)
		})
	})
}

// ResetPassword sets a new password for the user of a password-reset token, uses the token up and ends
// every session of the user, as SetPassword does (their rows are revoked and the session version moves
// on). Following the e-mailed link also proves
// the address, so it is marked verified if it is still the account's. An unknown, used or expired token
// is ErrInvalid.
func (e *Engine) ResetPassword(ctx context.Context, token, passwordHash string) (db.User, error) {
	var u db.User
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		t, err := takeToken(ctx, q, token, EmailTopicPasswordReset)
		if err != nil {
			return err
		}
		if _, err := q.UserSetEmailVerified(ctx, dbsqlc.UserSetEmailVerifiedParams{ID: t.UserID,
			Email: t.Email}); err != nil {
			return fmt.Errorf("mark email verified: %w", err)
		}
		row, err := q.UserUpdatePassword(ctx, dbsqlc.UserUpdatePasswordParams{ID: t.UserID, PasswordHash: passwordHash})
		if err != nil {
			return dbcore.Wrap(err, "update password")
		}
		u = db.User(row)
		if _, err = q.SessionRevokeAll(ctx, t.UserID); err != nil {
			return dbcore.Wrap(err, "end sessions")
		}
		if err := e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditPasswordReset, ActorID: u.ID,
			Target: db.AuditTarget{Type: "user", ID: u.ID, Name: u.Email}}); err != nil {
			return err
		}
		// The reset proves the owner: a lockout of sign-ins from unknown devices (lockout.go) ends with it,
		// so the new password signs in from any device at once.
		return dbcore.Wrap(q.LoginFailureClear(ctx, accountKey(u.Email)), "lift the sign-in lockout")
	})
	return u, err
}

// SendEmailVerification e-mails the user a single-use link that verifies their address, link followed
// by the token, valid for EmailVerificationTTL; a new request replaces the previous token. An address
// already verified is ErrConflict.
func (e *Engine) SendEmailVerification(ctx context.Context, userID, link string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.UserGetByID(ctx, userID)
		if err != nil {
			return dbcore.Wrap(err, "get user")
		}
		if row.EmailVerified {
			return dbcore.Conflict("the e-mail address is already verified")
		}
		return e.sendVerification(ctx, tx, q, db.User(row), link)
	})
}

// sendVerification records u's verification token and enqueues its e-mail, in the caller's transaction.
func (e *Engine) sendVerification(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, u db.User, link string) error {
	return e.mailToken(ctx, tx, q, u, EmailTopicEmailVerification, EmailVerificationTTL, link, func(url string) (string,
		string) {
		return "Verify your e-mail address for Pilot",
			fmt.Sprintf("Confirm that %s is your address on Pilot (the link works "+"once, for 24 hours):\n%s\n\nIf you have "+
				"no Pilot account, ignore this e-mail.\n", u.Email, url)
	})
}

// VerifyEmail marks the address a verification token was sent to as verified, and uses the token up; the
// person joins the organization whose sign-in domain the address has (db/tenancy/domains.go). An
// unknown, used or expired token is ErrInvalid, and so is one sent to an address the account no longer
// has.
func (e *Engine) VerifyEmail(ctx context.Context, token string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		t, err := takeToken(ctx, q, token, EmailTopicEmailVerification)
		if err != nil {
			return err
		}
		n, err := q.UserSetEmailVerified(ctx, dbsqlc.UserSetEmailVerifiedParams{ID: t.UserID, Email: t.Email})
		if err != nil {
			return fmt.Errorf("mark email verified: %w", err)
		}
		if n == 0 {
			return dbcore.Invalid("this link was sent to an address the account no longer uses")
		}
		// The address is proven now: its person joins the organization of its domain (sign-in domains).
		_, err = tenancy.JoinByEmailDomainTx(ctx, tx, e.audit, tenancy.DomainJoin{UserID: t.UserID, Email: t.Email,
			Via: tenancy.JoinedByEmailVerification})
		return err
	})
}

// mailToken makes u a new token for purpose, replacing theirs, and enqueues the e-mail that carries its
// link (link followed by the token) to u's address, in the caller's transaction. compose writes the
// e-mail's subject and body around the link.
func (e *Engine) mailToken(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, u db.User, purpose string,
	ttl time.Duration, link string, compose func(url string) (subject, body string)) error {
	token := auth.RandomString(tokenBytes)
	t, err := q.AccountTokenPut(ctx, dbsqlc.AccountTokenPutParams{ID: db.NewID(), UserID: u.ID, Purpose: purpose,
		TokenHash: auth.HashSecret(token), Email: u.Email, ExpiresAt: time.Now().Add(ttl)})
	if err != nil {
		return fmt.Errorf("store %s token: %w", purpose, err)
	}
	subject, body := compose(link + token)
	return e.core.Enqueue(ctx, tx, []river.InsertManyParams{{
		Args:       jobs.SendEmailArgs{Topic: purpose, RefID: t.ID, To: t.Email, Subject: subject, Body: body},
		InsertOpts: &river.InsertOpts{Queue: jobs.QueueEmail},
	}})
}

// takeToken uses up a live token of purpose; anything else is ErrInvalid, with one message whatever the
// reason, so the answer tells nothing about tokens that exist.
func takeToken(ctx context.Context, q *dbsqlc.Queries, token, purpose string) (dbsqlc.AccountToken, error) {
	t, err := q.AccountTokenTake(ctx, dbsqlc.AccountTokenTakeParams{TokenHash: auth.HashSecret(strings.TrimSpace(token)),
		Purpose: purpose})
	if dbcore.IsNotFound(err) {
		return t, dbcore.Invalid("this link is invalid or has expired; ask for a new one")
	}
	if err != nil {
		return t, fmt.Errorf("take %s token: %w", purpose, err)
	}
	return t, nil
}

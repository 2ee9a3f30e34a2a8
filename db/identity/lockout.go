package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// Failed sign-ins are counted as OWASP's device-cookie pattern has it ("Slow Down Online Guessing
// Attacks with Device Cookies"): per account from every client address together, so that a password
// guessed from many addresses is held back, and apart for each device that signed in to the account
// before (it presents the device token that sign-in left), so that a stranger's guesses never lock the
// owner out of the devices they use. Past the limit in LoginFailureWindow, the account refuses attempts
// from unknown devices for LoginFailureWindow and its owner is e-mailed once; a known device that fails
// past the limit itself is treated as unknown for as long. The counts are rows of login_failures, shared
// by every api process.

// LoginFailureWindow is how long failed sign-ins are counted from the first one, and how long a
// lockout lasts.
const LoginFailureWindow = time.Hour

// EmailTopicLoginLockout is the outbox topic of the e-mail telling an account's owner that sign-ins from
// unknown devices are paused; its RefID names the lockout, so the owner hears once per lockout.
const EmailTopicLoginLockout = "login_lockout"

// LoginAttempt is one attempt to sign in, as failures are counted.
type LoginAttempt struct {
	// Email is the address tried. Failures count against it whether or not an account uses it, so
	// that the answers tell nobody which addresses have accounts.
	Email string
	// Device is the nonce of the device token presented with the attempt, when the caller verified it
	// (its signature, and that it names the account of Email); empty otherwise.
	Device string
	// At is when the attempt was made; nil reads the database's clock, the one every api process shares.
	At *time.Time
}

// LoginGate says how an attempt to sign in is treated.
type LoginGate struct {
	// Trusted is an attempt from a known device that is not locked out itself: its failures count
	// against the device, and the account's lockout does not reach it.
	Trusted bool
	// RetryAfter, when positive, refuses the attempt for that long: it comes from no trusted device and
	// the account refuses unknown devices until then.
	RetryAfter time.Duration
}

// LoginFailure is a failed attempt to count.
type LoginFailure struct {
	LoginAttempt
	// Gate is what CheckLogin answered for the attempt: whose failure it is.
	Gate LoginGate
	// Limit is how many failures a key takes in LoginFailureWindow; the one past it locks the key out.
	Limit int
	// ResetLink is the page where the owner may ask for a password reset, named in their e-mail.
	ResetLink string
}

// accountKey is the key of an account's failures: a hash of the address, so the table keeps no
// address that nobody registered.
func accountKey(email string) string {
	h := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return "account:" + hex.EncodeToString(h[:])
}

func deviceKey(nonce string) string { return "device:" + nonce }

// CheckLogin answers how an attempt to sign in is treated: trusted when it carries a known device that
// is not locked out, refused (RetryAfter) when it does not and the account is locked out.
func (e *Engine) CheckLogin(ctx context.Context, a LoginAttempt) (LoginGate, error) {
	keys := []string{accountKey(a.Email)}
	if a.Device != "" {
		keys = append(keys, deviceKey(a.Device))
	}
	locks, err := e.core.Q.LoginFailureLocks(ctx, dbsqlc.LoginFailureLocksParams{At: a.At, Keys: keys})
	if err != nil {
		return LoginGate{}, fmt.Errorf("read login lockouts: %w", err)
	}
	var accountLocked, deviceLocked time.Duration
	for _, l := range locks {
		d := time.Duration(math.Ceil(l.RemainingSecs)) * time.Second
		if l.Key == keys[0] {
			accountLocked = d
		} else {
			deviceLocked = d
		}
	}
	if a.Device != "" && deviceLocked == 0 {
		return LoginGate{Trusted: true}, nil
	}
	return LoginGate{RetryAfter: accountLocked}, nil
}

// RecordLoginFailure counts a failed sign-in against its device when the attempt was trusted, else
// against the account. The failure that locks the account out also e-mails its owner (when an account
// uses the address), in the same transaction: the lockout and its one e-mail commit together.
func (e *Engine) RecordLoginFailure(ctx context.Context, f LoginFailure) error {
	key := accountKey(f.Email)
	if f.Gate.Trusted {
		key = deviceKey(f.Device)
	}
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		lockoutID := dbcore.NewID()
		row, err := q.LoginFailureRecord(ctx, dbsqlc.LoginFailureRecordParams{Key: key, FailureLimit: int64(f.Limit),
			LockoutID: lockoutID, At: f.At, WindowSecs: LoginFailureWindow.Seconds()})
		if err != nil {
			return fmt.Errorf("count login failure: %w", err)
		}
		if !row.Tripped || f.Gate.Trusted {
			return nil
		}
		return e.mailLockout(ctx, tx, q, f, lockoutID, *row.LockedUntil)
	})
}

// mailLockout enqueues the e-mail telling the owner of f's account that sign-ins from unknown devices
// are paused until until, in the caller's transaction. An address no account uses (or a service user's)
// gets nothing.
func (e *Engine) mailLockout(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries, f LoginFailure, lockoutID string,
	until time.Time) error {
	u, err := q.UserGetByEmail(ctx, strings.TrimSpace(f.Email))
	if dbcore.IsNotFound(err) || (err == nil && u.IsService) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get user by email: %w", err)
	}
	body := fmt.Sprintf("Someone tried to sign in to the Pilot account of %s and got the password wrong more than %d "+
		"times within an hour.\n\nTo protect the account, sign-ins from browsers and apps that have never signed in to "+
		"it are paused until %s. Those you signed in with before still sign in as usual.\n\nIf it was you, sign in "+
		"from one of those, or wait. If it was not you, every one of those attempts was refused; if your password is "+
		"short, or one you also use elsewhere, choose a new one (%s) and turn on two-factor authentication.\n",
		u.Email, f.Limit, until.UTC().Format("Monday 2 January 2006 15:04 MST"), f.ResetLink)
	return e.core.Enqueue(ctx, tx, []river.InsertManyParams{{
		Args: jobs.SendEmailArgs{Topic: EmailTopicLoginLockout, RefID: lockoutID, To: u.Email,
			Subject: "Sign-ins to your Pilot account from new devices are paused", Body: body},
		InsertOpts: &river.InsertOpts{Queue: jobs.QueueEmail},
	}})
}

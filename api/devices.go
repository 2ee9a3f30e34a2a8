package api

import (
	"context"
	"net/http"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
)

// Device cookies, after OWASP's "Slow Down Online Guessing Attacks with Device Cookies": a completed
// sign-in leaves a signed device token (the user, their session version, a random nonce; a year) on the
// browser as the pilot_device cookie, and in the answer for API clients, which send it back as
// X-Pilot-Device. Failed logins count per account from every address together (db/identity): past
// Options.LoginAccountFailureLimit an hour, a login that carries no valid device token of that account
// is refused (429, Retry-After) for an hour, while one that does still signs in, its own failures
// counted apart. So a guesser spread over many addresses is stopped, and cannot lock the owner out of
// the devices they use.

const (
	// deviceCookie is the cookie that keeps a device token in browsers.
	deviceCookie = "pilot_device"
	// deviceCookiePath limits the cookie to the one route that reads it.
	deviceCookiePath = "/auth/login"
)

// knownDevice answers the nonce of the first of tokens that is a device token of u at its current
// session version (a password change forgets every device), or "" when none is.
func (s accountOps) knownDevice(u db.User, tokens ...string) string {
	for _, t := range tokens {
		if t == "" {
			continue
		}
		if c, err := s.signer.Verify(t, auth.TypeDevice); err == nil && c.Subject == u.ID && c.Version == u.SessionVersion &&
			c.ID != "" {
			return c.ID
		}
	}
	return ""
}

// loginAttempt is a login with email, from the device named by nonce ("" for none), at the clock's time
// (nil: the database's).
func (s accountOps) loginAttempt(email, nonce string) identity.LoginAttempt {
	a := identity.LoginAttempt{Email: email, Device: nonce}
	if s.opts.LoginClock != nil {
		at := s.opts.LoginClock()
		a.At = &at
	}
	return a
}

// gateLogin refuses an attempt that comes from no known device while its account is locked out: 429
// with Retry-After, the same whether or not an account uses the address.
func (s accountOps) gateLogin(ctx context.Context, a identity.LoginAttempt) (identity.LoginGate, error) {
	g, err := s.identity.CheckLogin(ctx, a)
	if err != nil {
		return g, fail(err)
	}
	if g.RetryAfter > 0 {
		body := newErrorBody(http.StatusTooManyRequests, "too many failed sign-ins to this account; sign in from a "+
			"device you signed in with before, or try again later")
		body.RetryAfter = g.RetryAfter
		return g, body
	}
	return g, nil
}

// refuseLogin counts a failed login against its account or device and answers the 401 of every failed
// login.
// refuseLogin counts a failed login and records it in the audit log (userID is the account of the address
// tried, "" when none: the account's owner sees the entry in their account's audit log).
func (s accountOps) refuseLogin(ctx context.Context, a identity.LoginAttempt, g identity.LoginGate,
	userID string) error {
	if err := s.identity.RecordLoginFailure(ctx, identity.LoginFailure{LoginAttempt: a, Gate: g,
		Limit: s.opts.LoginAccountFailureLimit, ResetLink: s.opts.PublicURL + "/forgot-password"}); err != nil {
		return fail(err)
	}
	if err := s.identity.RecordSignInFailure(ctx, identity.SignInFailure{Email: a.Email,
		UserID: userID, Reason: "password"}); err != nil {
		return fail(err)
	}
	return errUnauthorized("invalid e-mail or password")
}

// startSignIn is startSession for a completed sign-in (a login without a second factor, or the second
// factor's verification): it also leaves a new device token on the client, as the device cookie and in
// the answer.
func (s accountOps) startSignIn(ctx context.Context, u db.User, method string) (*SessionOutput, error) {
	out, err := s.startSession(ctx, u, method)
	if err != nil {
		return nil, err
	}
	tok, claims, err := s.signer.IssueDevice(u.ID, u.SessionVersion)
	if err != nil {
		return nil, err
	}
	//nolint:gosec // G124: Secure in production; development serves plain http on localhost (see startSession)
	out.SetCookie = append(out.SetCookie, http.Cookie{Name: deviceCookie, Value: tok, Path: deviceCookiePath,
		HttpOnly: true, Secure: s.opts.Production, SameSite: http.SameSiteStrictMode, Expires: claims.ExpiresAt.Time})
	out.Body.DeviceToken = tok
	return out, nil
}

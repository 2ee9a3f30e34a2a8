package api

import (
	"context"
	"errors"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/auth"
)

// UserOut is a user as the identity endpoints show it.
type UserOut struct {
	ID               string               `json:"id"`
	Email            string               `json:"email"`
	Name             string               `json:"name"`
	JobTitle         string               `json:"jobTitle"`
	EmailVerified    bool                 `json:"emailVerified"`
	TwoFactorEnabled bool                 `json:"twoFactorEnabled"`
	PilotageRole     tenancy.PilotageRole `json:"pilotageRole"`
}

func userOut(u db.User) *UserOut {
	return &UserOut{ID: u.ID, Email: u.Email, Name: u.Name, JobTitle: u.JobTitle, EmailVerified: u.EmailVerified,
		TwoFactorEnabled: u.TotpEnabled, PilotageRole: tenancy.PilotageRole(u.PilotageRole)}
}

// SessionBody is the answer of register, login and two-factor verification. When two-factor
// authentication is required, only twoFactorRequired and twoFactorToken are set.
type SessionBody struct {
	AccessToken       string   `json:"access_token,omitempty" doc:"JWT for the Authorization header"`
	TokenType         string   `json:"token_type,omitempty" example:"Bearer"`
	ExpiresIn         int64    `json:"expires_in,omitempty" doc:"Lifetime of access_token, in seconds"`
	CSRFToken         string   `json:"csrfToken,omitempty" doc:"Send as X-CSRF-Token on writes authenticated by the session cookie"`
	User              *UserOut `json:"user,omitempty"`
	TwoFactorRequired bool     `json:"twoFactorRequired,omitempty" doc:"True when a TOTP code must be sent to /auth/2fa/verify"`
	TwoFactorToken    string   `json:"twoFactorToken,omitempty" doc:"Short-lived token for /auth/2fa/verify"`
	DeviceToken       string   `json:"deviceToken,omitempty" doc:"Set when a sign-in completes (a login, a second factor verified, an account created, a password changed): marks this client as a device known to the account for a year. Browsers keep it as the pilot_device cookie; other clients send it as X-Pilot-Device on later logins, which then sign in even while the account refuses unknown devices"`
}

// SessionOutput sets the session cookie beside the body, and the device cookie when a sign-in completes.
type SessionOutput struct {
	SetCookie []http.Cookie `header:"Set-Cookie"`
	Body      SessionBody
}

// OKBody is the answer of operations with nothing else to say.
type OKBody struct {
	OK bool `json:"ok" example:"true"`
}

// OKOutput wraps OKBody.
type OKOutput struct{ Body OKBody }

func okOutput() *OKOutput { return &OKOutput{Body: OKBody{OK: true}} }

// registerAuth registers accounts and sessions.
func (s accountOps) registerAuth() {
	tags := []string{"Identity"}

	register(s.Server, huma.Operation{OperationID: "auth-register", Method: http.MethodPost, Path: "/auth/register",
		Summary: "Create an account", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "Creates the user with a personal organization and workspace, starts a session, and e-mails " +
			"a link that verifies the address (see /auth/verify-email). Rate-limited per client address (429). " +
			"Refused (403) when passwords are turned off (PASSWORD_LOGIN=false): accounts then come from providers.",
		Errors: []int{http.StatusConflict, http.StatusTooManyRequests, http.StatusForbidden}},
		Requires{Public: true}, s.createAccount)

	register(s.Server, huma.Operation{OperationID: "auth-login", Method: http.MethodPost, Path: "/auth/login",
		Summary: "Log in", Tags: tags,
		Description: "Answers a session (JWT, HttpOnly cookie and csrfToken) and a device token (the pilot_device " +
			"cookie and deviceToken), or, when two-factor authentication is on, `{twoFactorRequired: true, " +
			"twoFactorToken}` to complete at /auth/2fa/verify. Rate-limited per client address, and per account " +
			"from one client address (429). Failed logins also count per account from every address: past " +
			"LOGIN_ACCOUNT_FAILURE_LIMIT an hour, a login without a device token of that account (the cookie, or " +
			"X-Pilot-Device) answers 429 for an hour, and the owner is e-mailed; a device that signed in before " +
			"still signs in. Every 429 says when to try again in Retry-After. Wrong credentials are a 401. Refused " +
			"(403) when passwords are turned off (PASSWORD_LOGIN=false).",
		Errors: []int{http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusForbidden}},
		Requires{Public: true}, s.login)

	register(s.Server, huma.Operation{OperationID: "auth-logout", Method: http.MethodPost, Path: "/auth/logout",
		Summary: "End the session", Tags: tags,
		Description: "Ends the session named by the bearer token or the session cookie (its token is refused from " +
			"the next request on and its open streams end) and clears the cookie. Without a session it only clears the cookie."},
		Requires{Public: true}, s.logout)

	register(s.Server, huma.Operation{OperationID: "auth-me", Method: http.MethodGet, Path: "/auth/me",
		Summary: "Current user", Tags: tags},
		Requires{Scope: auth.ScopeAccountRead}, s.getMe)

	register(s.Server, huma.Operation{OperationID: "auth-update-me", Method: http.MethodPatch, Path: "/auth/me",
		Summary: "Update the current user's profile", Tags: tags},
		Requires{Scope: auth.ScopeAccountWrite}, s.updateMe)

	register(s.Server, huma.Operation{OperationID: "auth-change-password", Method: http.MethodPost,
		Path: "/auth/change-password", Summary: "Change the password", Tags: tags,
		Description: "Every session issued before the change stops working; the answer carries a fresh one."},
		Requires{JWTOnly: true}, s.changePassword)
}

// RegisterInput is the request of auth-register.
type RegisterInput struct {
	Body RegisterInputBody
}

// RegisterInputBody is the body of a RegisterInput request.
type RegisterInputBody struct {
	Email    string `json:"email" format:"email" maxLength:"254" required:"true"`
	Password string `json:"password" minLength:"8" maxLength:"128" required:"true"`
	Name     string `json:"name,omitempty" maxLength:"100"`
}

func (s accountOps) createAccount(ctx context.Context, in *RegisterInput) (*SessionOutput, error) {
	if s.opts.PasswordLoginOff {
		return nil, errForbidden(passwordsOff)
	}
	if err := s.limitRegister(ctx); err != nil {
		return nil, err
	}
	email := strings.TrimSpace(in.Body.Email)
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		// The email format also accepts "Name <address>" and comments; only a bare address is one.
		body := newErrorBody(http.StatusBadRequest, "validation failed: email: expected a plain e-mail address, like "+
			"name@example.com")
		body.Errors = []FieldError{{Field: "email", Message: "expected a plain e-mail address, like name@example.com"}}
		return nil, body
	}
	hash, err := auth.HashPassword(in.Body.Password)
	if err != nil {
		return nil, err
	}
	reg, err := s.identity.RegisterAndVerify(ctx, email, strings.TrimSpace(in.Body.Name), hash,
		s.opts.PublicURL+verifyEmailPage)
	if err != nil {
		return nil, fail(err)
	}
	// Creating the account is a completed sign-in: this device is known to it from the start.
	return s.startSignIn(ctx, reg.User, "registration")
}

// LoginInput is the request of auth-login.
type LoginInput struct {
	DeviceCookie string `cookie:"pilot_device" doc:"The device token an earlier sign-in left in this browser"`
	DeviceHeader string `header:"X-Pilot-Device" doc:"The deviceToken of an earlier sign-in, for clients that keep no cookies"`
	Body         LoginInputBody
}

// LoginInputBody is the body of a LoginInput request.
type LoginInputBody struct {
	Email    string `json:"email" required:"true" maxLength:"254"`
	Password string `json:"password" required:"true" maxLength:"128"`
}

// passwordsOff is the refusal of a password sign-in or registration when PASSWORD_LOGIN=false.
const passwordsOff = "passwords do not sign in here: sign in with your organization's provider (see /auth/providers)"

func (s accountOps) login(ctx context.Context, in *LoginInput) (*SessionOutput, error) {
	if s.opts.PasswordLoginOff {
		return nil, errForbidden(passwordsOff)
	}
	email := strings.ToLower(strings.TrimSpace(in.Body.Email))
	if err := s.limitLogin(ctx, email); err != nil {
		return nil, err
	}
	// An unknown address goes the way of a known one (a lockout check, a password hash compared, a
	// failure counted), so neither the answers nor their time tell which addresses have accounts.
	u, err := s.identity.UserByEmail(ctx, email)
	known := err == nil
	if err != nil && !errors.Is(err, db.ErrNotFound) {
		return nil, err
	}
	attempt := s.loginAttempt(email, "")
	if known {
		attempt = s.loginAttempt(email, s.knownDevice(u, in.DeviceHeader, in.DeviceCookie))
	}
	gate, err := s.gateLogin(ctx, attempt)
	if err != nil {
		return nil, err
	}
	if !known {
		auth.BurnPasswordCheck(in.Body.Password)
		return nil, s.refuseLogin(ctx, attempt, gate, "")
	}
	if u.IsService || !auth.CheckPassword(in.Body.Password, u.PasswordHash) {
		return nil, s.refuseLogin(ctx, attempt, gate, u.ID)
	}
	if u.TotpEnabled {
		tok, _, err := s.signer.Issue(u.ID, auth.TypeTwoFactor, u.SessionVersion)
		if err != nil {
			return nil, err
		}
		return &SessionOutput{Body: SessionBody{TwoFactorRequired: true, TwoFactorToken: tok}}, nil
	}
	return s.startSignIn(ctx, u, "password")
}

// MeOutput is the answer of auth-me and auth-update-me.
type MeOutput struct {
	Body MeOutputBody
}

// MeOutputBody is the body of a MeOutput request.
type MeOutputBody struct {
	User      *UserOut `json:"user" nullable:"false"` // always set
	CSRFToken string   `json:"csrfToken,omitempty" doc:"Present when authenticated by the session cookie"`
}

func (s accountOps) getMe(ctx context.Context, _ *struct{}) (*MeOutput, error) {
	p := principalFrom(ctx)
	out := &MeOutput{}
	out.Body.User = userOut(p.User)
	if p.ViaCookie {
		out.Body.CSRFToken = s.signer.CSRFToken(p.Session)
	}
	return out, nil
}

// PatchMeInput is the request of auth-update-me.
type PatchMeInput struct {
	Body PatchMeInputBody
}

// PatchMeInputBody is the body of a PatchMeInput request.
type PatchMeInputBody struct {
	Name     *string `json:"name,omitempty" maxLength:"100"`
	JobTitle *string `json:"jobTitle,omitempty" maxLength:"100"`
}

func (s accountOps) updateMe(ctx context.Context, in *PatchMeInput) (*MeOutput, error) {
	u, err := s.identity.UpdateProfile(ctx, principalFrom(ctx).User.ID, trimPtr(in.Body.Name), trimPtr(in.Body.JobTitle))
	if err != nil {
		return nil, fail(err)
	}
	out := &MeOutput{}
	out.Body.User = userOut(u)
	return out, nil
}

// ChangePasswordInput is the request of auth-change-password.
type ChangePasswordInput struct {
	Body ChangePasswordInputBody
}

// ChangePasswordInputBody is the body of a ChangePasswordInput request.
type ChangePasswordInputBody struct {
	CurrentPassword string `json:"currentPassword" required:"true" maxLength:"128"`
	NewPassword     string `json:"newPassword" minLength:"8" maxLength:"128" required:"true"`
}

func (s accountOps) changePassword(ctx context.Context, in *ChangePasswordInput) (*SessionOutput, error) {
	p := principalFrom(ctx)
	if !auth.CheckPassword(in.Body.CurrentPassword, p.User.PasswordHash) {
		return nil, errBadRequest("current password is incorrect")
	}
	hash, err := auth.HashPassword(in.Body.NewPassword)
	if err != nil {
		return nil, err
	}
	u, err := s.identity.SetPassword(ctx, p.User.ID, hash)
	if err != nil {
		return nil, fail(err)
	}
	// The change forgets every device (the session version moves on); the one that made it, knowing the
	// password, is known again.
	return s.startSignIn(ctx, u, "password_change")
}

func trimPtr(p *string) *string {
	if p == nil {
		return nil
	}
	v := strings.TrimSpace(*p)
	return &v
}

func isExpired(t *time.Time) bool { return t != nil && !time.Now().Before(*t) }

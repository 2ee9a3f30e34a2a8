package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
)

// TwoFactorSetupOutput is the answer of auth-2fa-setup.
type TwoFactorSetupOutput struct {
	Body TwoFactorSetupOutputBody
}

// TwoFactorSetupOutputBody is the body of a TwoFactorSetupOutput request.
type TwoFactorSetupOutputBody struct {
	Secret     string `json:"secret" doc:"Base32 TOTP secret"`
	OtpauthURL string `json:"otpauthUrl" doc:"otpauth:// URL for authenticator apps (QR code)"`
}

// TwoFactorEnableInput is the request of auth-2fa-enable.
type TwoFactorEnableInput struct {
	Body TwoFactorEnableInputBody
}

// TwoFactorEnableInputBody is the body of a TwoFactorEnableInput request.
type TwoFactorEnableInputBody struct {
	Password string `json:"password" required:"true" maxLength:"128" doc:"The current password"`
	Code     string `json:"code" required:"true" pattern:"^[0-9]{6}$" doc:"Six-digit TOTP code of the secret from /auth/2fa/setup"`
}

// TwoFactorConfirmInput is the request of auth-2fa-disable and auth-2fa-recovery-codes.
type TwoFactorConfirmInput struct {
	Body TwoFactorConfirmInputBody
}

// TwoFactorConfirmInputBody is the body of a TwoFactorConfirmInput request.
type TwoFactorConfirmInputBody struct {
	Password string `json:"password" required:"true" maxLength:"128" doc:"The current password"`
	Code     string `json:"code" required:"true" minLength:"6" maxLength:"32" doc:"A six-digit TOTP code, or one of the recovery codes (used up)"`
}

// TwoFactorStateOutput is the answer of auth-2fa-disable.
type TwoFactorStateOutput struct {
	Body TwoFactorStateOutputBody
}

// TwoFactorStateOutputBody is the body of a TwoFactorStateOutput request.
type TwoFactorStateOutputBody struct {
	TwoFactorEnabled bool `json:"twoFactorEnabled"`
}

// TwoFactorEnabledOutput is the answer of auth-2fa-enable.
type TwoFactorEnabledOutput struct {
	Body TwoFactorEnabledOutputBody
}

// TwoFactorEnabledOutputBody is the body of a TwoFactorEnabledOutput answer.
type TwoFactorEnabledOutputBody struct {
	TwoFactorEnabled bool     `json:"twoFactorEnabled"`
	RecoveryCodes    []string `json:"recoveryCodes" doc:"Ten one-time codes that stand in for a TOTP code when the authenticator is lost. Shown only now: only their hashes are kept"`
}

// RecoveryCodesOutput is the answer of auth-2fa-recovery-codes.
type RecoveryCodesOutput struct {
	Body RecoveryCodesOutputBody
}

// RecoveryCodesOutputBody is the body of a RecoveryCodesOutput answer.
type RecoveryCodesOutputBody struct {
	RecoveryCodes []string `json:"recoveryCodes" doc:"Ten new one-time codes, replacing every earlier one. Shown only now"`
}

// TwoFactorVerifyInput is the request of auth-2fa-verify.
type TwoFactorVerifyInput struct {
	Body TwoFactorVerifyInputBody
}

// TwoFactorVerifyInputBody is the body of a TwoFactorVerifyInput request.
type TwoFactorVerifyInputBody struct {
	TwoFactorToken string `json:"twoFactorToken" required:"true" maxLength:"2048"`
	Code           string `json:"code" required:"true" minLength:"6" maxLength:"32" doc:"A six-digit TOTP code, or one of the recovery codes (used up)"`
}

// checkTOTP accepts code for u once: a code of a time step already used is refused.
func (s accountOps) checkTOTP(ctx context.Context, u db.User, secret, code string) error {
	step, ok := auth.MatchTOTP(secret, code, time.Now())
	if !ok {
		return errBadRequest("invalid two-factor code")
	}
	fresh, err := s.identity.ConsumeTOTPStep(ctx, u.ID, step)
	if err != nil {
		return err
	}
	if !fresh {
		return errBadRequest("this two-factor code was already used; wait for the next one")
	}
	return nil
}

// secondFactor is a code that stands for the second factor: a TOTP code or a recovery code.
type secondFactor struct {
	totp, recovery string
}

// readSecondFactor reads code as a six-digit TOTP code or a recovery code (in any form a person may type
// it); anything else is a 400 naming the field.
func readSecondFactor(code string) (secondFactor, error) {
	code = strings.TrimSpace(code)
	if len(code) == 6 && strings.Trim(code, "0123456789") == "" {
		return secondFactor{totp: code}, nil
	}
	if canon, ok := auth.NormalizeRecoveryCode(code); ok {
		return secondFactor{recovery: canon}, nil
	}
	const msg = "expected a six-digit code or a recovery code (xxxx-xxxx-xxxx-xxxx)"
	body := newErrorBody(http.StatusBadRequest, "validation failed: code: "+msg)
	body.Errors = []FieldError{{Field: "code", Message: msg}}
	return secondFactor{}, body
}

// checkSecondFactor accepts c for u once: a TOTP code of a step not used before, or one of u's recovery
// codes, which it uses up. A refusal is a 400.
func (s accountOps) checkSecondFactor(ctx context.Context, u db.User, c secondFactor) error {
	if c.totp != "" {
		return s.checkTOTP(ctx, u, *u.TotpSecret, c.totp)
	}
	ok, err := s.identity.UseRecoveryCode(ctx, u.ID, c.recovery)
	if err != nil {
		return err
	}
	if !ok {
		return errBadRequest("invalid two-factor code")
	}
	return nil
}

// checkPassword refuses a wrong current password as change-password does: 400, since a 401 would tell
// the client its session is invalid.
func checkPassword(u db.User, password string) error {
	if !auth.CheckPassword(password, u.PasswordHash) {
		return errBadRequest("current password is incorrect")
	}
	return nil
}

// registerTwoFactor registers two-factor authentication: its setup and the second step of a login.
func (s accountOps) registerTwoFactor() {
	tags := []string{"Two-factor authentication"}

	register(s.Server, huma.Operation{OperationID: "auth-2fa-setup", Method: http.MethodPost, Path: "/auth/2fa/setup",
		Summary: "Start two-factor setup", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "Generates a TOTP secret; two-factor authentication is on once /auth/2fa/enable confirms a code."},
		Requires{JWTOnly: true}, s.setUpTwoFactor)

	register(s.Server, huma.Operation{OperationID: "auth-2fa-enable", Method: http.MethodPost, Path: "/auth/2fa/enable",
		Summary: "Confirm a code and turn two-factor authentication on", Tags: tags,
		Errors: []int{http.StatusConflict, http.StatusTooManyRequests},
		Description: "Needs the current password and a code of the secret from /auth/2fa/setup. Answers ten one-time " +
			"recovery codes, shown only in this answer. Rate-limited as /auth/2fa/verify (429)."},
		Requires{JWTOnly: true}, s.enableTwoFactor)

	register(s.Server, huma.Operation{OperationID: "auth-2fa-disable", Method: http.MethodPost, Path: "/auth/2fa/disable",
		Summary: "Turn two-factor authentication off", Tags: tags, Errors: []int{http.StatusConflict,
			http.StatusTooManyRequests}, Description: "Needs the current password and a TOTP code or a recovery code. Forgets " +
			"the secret and deletes the recovery codes. Rate-limited as /auth/2fa/verify (429)."},
		Requires{JWTOnly: true}, s.disableTwoFactor)

	register(s.Server, huma.Operation{OperationID: "auth-2fa-recovery-codes", Method: http.MethodPost,
		Path: "/auth/2fa/recovery-codes", Summary: "Replace the recovery codes", Tags: tags,
		Errors: []int{http.StatusConflict, http.StatusTooManyRequests}, Description: "Needs the current password and a " +
			"TOTP code or a recovery code. Answers ten new one-time codes, shown only in this answer; every earlier code " +
			"stops working. Rate-limited as /auth/2fa/verify (429)."},
		Requires{JWTOnly: true}, s.renewRecoveryCodes)

	register(s.Server, huma.Operation{OperationID: "auth-2fa-verify", Method: http.MethodPost, Path: "/auth/2fa/verify",
		Summary: "Complete a login with a two-factor code", Tags: tags,
		Errors: []int{http.StatusUnauthorized, http.StatusTooManyRequests},
		Description: "Exchanges the twoFactorToken from /auth/login and a TOTP code, or one of the recovery codes, for " +
			"a session and a device token (the pilot_device cookie and deviceToken, as /auth/login answers them). " +
			"Every code is single-use. Rate-limited per client address and per user (429)."},
		Requires{Public: true}, s.verifyTwoFactor)
}

func (s accountOps) setUpTwoFactor(ctx context.Context, _ *struct{}) (*TwoFactorSetupOutput, error) {
	u := principalFrom(ctx).User
	if u.TotpEnabled {
		return nil, huma.NewError(http.StatusConflict, "two-factor authentication is already enabled")
	}
	secret, url, err := auth.NewTOTP("Pilot", u.Email)
	if err != nil {
		return nil, err
	}
	if err := s.identity.SetTOTPSecret(ctx, u.ID, secret); err != nil {
		return nil, err
	}
	out := &TwoFactorSetupOutput{}
	out.Body.Secret, out.Body.OtpauthURL = secret, url
	return out, nil
}

func (s accountOps) enableTwoFactor(ctx context.Context, in *TwoFactorEnableInput) (*TwoFactorEnabledOutput, error) {
	u := principalFrom(ctx).User
	switch {
	case u.TotpEnabled:
		return nil, huma.NewError(http.StatusConflict, "two-factor authentication is already enabled")
	case u.TotpSecret == nil:
		return nil, errBadRequest("call /auth/2fa/setup first")
	}
	if err := s.confirmSecondFactor(ctx, u, in.Body.Password, secondFactor{totp: in.Body.Code}); err != nil {
		return nil, err
	}
	codes, err := s.identity.EnableTwoFactor(ctx, u.ID)
	if err != nil {
		return nil, fail(err)
	}
	return &TwoFactorEnabledOutput{Body: TwoFactorEnabledOutputBody{TwoFactorEnabled: true, RecoveryCodes: codes}}, nil
}

func (s accountOps) disableTwoFactor(ctx context.Context, in *TwoFactorConfirmInput) (*TwoFactorStateOutput, error) {
	u, err := s.reauthenticate(ctx, in.Body)
	if err != nil {
		return nil, err
	}
	if err := s.identity.DisableTwoFactor(ctx, u.ID); err != nil {
		return nil, fail(err)
	}
	return &TwoFactorStateOutput{Body: TwoFactorStateOutputBody{TwoFactorEnabled: false}}, nil
}

func (s accountOps) renewRecoveryCodes(ctx context.Context, in *TwoFactorConfirmInput) (*RecoveryCodesOutput, error) {
	u, err := s.reauthenticate(ctx, in.Body)
	if err != nil {
		return nil, err
	}
	codes, err := s.identity.RenewRecoveryCodes(ctx, u.ID)
	if err != nil {
		return nil, fail(err)
	}
	return &RecoveryCodesOutput{Body: RecoveryCodesOutputBody{RecoveryCodes: codes}}, nil
}

// reauthenticate is what disabling two-factor authentication or renewing the recovery codes takes: it must
// be on (or a 409), then the current password and a TOTP code or a recovery code, as confirmSecondFactor
// checks them. It answers the signed-in user.
func (s accountOps) reauthenticate(ctx context.Context, in TwoFactorConfirmInputBody) (db.User, error) {
	u := principalFrom(ctx).User
	if !u.TotpEnabled || u.TotpSecret == nil {
		return u, huma.NewError(http.StatusConflict, "two-factor authentication is not enabled")
	}
	c, err := readSecondFactor(in.Code)
	if err != nil {
		return u, err
	}
	return u, s.confirmSecondFactor(ctx, u, in.Password, c)
}

// confirmSecondFactor is what changing the second factor takes: within the rate of second-factor
// attempts, the current password, then a code. A wrong password uses up no code.
func (s accountOps) confirmSecondFactor(ctx context.Context, u db.User, password string, c secondFactor) error {
	if err := s.limitSecondFactor(ctx, u.ID); err != nil {
		return err
	}
	if err := checkPassword(u, password); err != nil {
		return err
	}
	return s.checkSecondFactor(ctx, u, c)
}

func (s accountOps) verifyTwoFactor(ctx context.Context, in *TwoFactorVerifyInput) (*SessionOutput, error) {
	c, err := readSecondFactor(in.Body.Code)
	if err != nil {
		return nil, err
	}
	claims, err := s.signer.Verify(in.Body.TwoFactorToken, auth.TypeTwoFactor)
	if err != nil {
		return nil, errUnauthorized("invalid or expired two-factor token")
	}
	if err := s.limitSecondFactor(ctx, claims.Subject); err != nil {
		return nil, err
	}
	u, err := s.identity.UserByID(ctx, claims.Subject)
	if errors.Is(err, db.ErrNotFound) || (err == nil && (u.SessionVersion != claims.Version || !u.TotpEnabled ||
		u.TotpSecret == nil)) {
		return nil, errUnauthorized("invalid or expired two-factor token")
	}
	if err != nil {
		return nil, err
	}
	if err := s.checkSecondFactor(ctx, u, c); err != nil {
		var eb *ErrorBody
		if errors.As(err, &eb) {
			if err := s.identity.RecordSignInFailure(ctx, identity.SignInFailure{Email: u.Email,
				UserID: u.ID, Reason: "two_factor"}); err != nil {
				return nil, fail(err)
			}
			return nil, errUnauthorized(eb.Message)
		}
		return nil, err
	}
	return s.startSignIn(ctx, u, "two_factor")
}

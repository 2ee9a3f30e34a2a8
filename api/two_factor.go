package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
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

// TwoFactorCodeInput is the request of auth-2fa-enable and auth-2fa-disable.
type TwoFactorCodeInput struct {
	Body TwoFactorCodeInputBody
}

// TwoFactorCodeInputBody is the body of a TwoFactorCodeInput request.
type TwoFactorCodeInputBody struct {
	Code string `json:"code" required:"true" pattern:"^[0-9]{6}$" doc:"Six-digit TOTP code"`
}

// TwoFactorStateOutput is the answer of auth-2fa-enable and auth-2fa-disable.
type TwoFactorStateOutput struct {
	Body TwoFactorStateOutputBody
}

// TwoFactorStateOutputBody is the body of a TwoFactorStateOutput request.
type TwoFactorStateOutputBody struct {
	TwoFactorEnabled bool `json:"twoFactorEnabled"`
}

// TwoFactorVerifyInput is the request of auth-2fa-verify.
type TwoFactorVerifyInput struct {
	Body TwoFactorVerifyInputBody
}

// TwoFactorVerifyInputBody is the body of a TwoFactorVerifyInput request.
type TwoFactorVerifyInputBody struct {
	TwoFactorToken string `json:"twoFactorToken" required:"true" maxLength:"2048"`
	Code           string `json:"code" required:"true" pattern:"^[0-9]{6}$"`
}

func stateOutput(enabled bool) *TwoFactorStateOutput {
	out := &TwoFactorStateOutput{}
	out.Body.TwoFactorEnabled = enabled
	return out
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

// registerTwoFactor registers two-factor authentication: its setup and the second step of a login.
func (s accountOps) registerTwoFactor() {
	tags := []string{"Two-factor authentication"}

	register(s.Server, huma.Operation{OperationID: "auth-2fa-setup", Method: http.MethodPost, Path: "/auth/2fa/setup",
		Summary: "Start two-factor setup", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "Generates a TOTP secret; two-factor authentication is on once /auth/2fa/enable confirms a code."},
		Requires{JWTOnly: true}, s.setUpTwoFactor)

	register(s.Server, huma.Operation{OperationID: "auth-2fa-enable", Method: http.MethodPost, Path: "/auth/2fa/enable",
		Summary: "Confirm a code and turn two-factor authentication on", Tags: tags, Errors: []int{http.StatusConflict}},
		Requires{JWTOnly: true}, s.enableTwoFactor)

	register(s.Server, huma.Operation{OperationID: "auth-2fa-disable", Method: http.MethodPost, Path: "/auth/2fa/disable",
		Summary: "Turn two-factor authentication off (needs a current code)", Tags: tags, Errors: []int{http.StatusConflict}},
		Requires{JWTOnly: true}, s.disableTwoFactor)

	register(s.Server, huma.Operation{OperationID: "auth-2fa-verify", Method: http.MethodPost, Path: "/auth/2fa/verify",
		Summary: "Complete a login with a two-factor code", Tags: tags, Errors: []int{http.StatusTooManyRequests},
		Description: "Exchanges the twoFactorToken from /auth/login and a TOTP code for a session. Codes are single-use."},
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

func (s accountOps) enableTwoFactor(ctx context.Context, in *TwoFactorCodeInput) (*TwoFactorStateOutput, error) {
	u := principalFrom(ctx).User
	switch {
	case u.TotpEnabled:
		return nil, huma.NewError(http.StatusConflict, "two-factor authentication is already enabled")
	case u.TotpSecret == nil:
		return nil, errBadRequest("call /auth/2fa/setup first")
	}
	return s.switchTwoFactor(ctx, u, in.Body.Code, true)
}

func (s accountOps) disableTwoFactor(ctx context.Context, in *TwoFactorCodeInput) (*TwoFactorStateOutput, error) {
	u := principalFrom(ctx).User
	if !u.TotpEnabled || u.TotpSecret == nil {
		return nil, huma.NewError(http.StatusConflict, "two-factor authentication is not enabled")
	}
	return s.switchTwoFactor(ctx, u, in.Body.Code, false)
}

// switchTwoFactor turns u's two-factor authentication on or off, once code checks out against the
// secret u has.
func (s accountOps) switchTwoFactor(ctx context.Context, u db.User, code string, on bool) (*TwoFactorStateOutput, error) {
	if err := s.checkTOTP(ctx, u, *u.TotpSecret, code); err != nil {
		return nil, err
	}
	if err := s.identity.SetTOTPEnabled(ctx, u.ID, on); err != nil {
		return nil, err
	}
	return stateOutput(on), nil
}

func (s accountOps) verifyTwoFactor(ctx context.Context, in *TwoFactorVerifyInput) (*SessionOutput, error) {
	claims, err := s.signer.Verify(in.Body.TwoFactorToken, auth.TypeTwoFactor)
	if err != nil {
		return nil, errUnauthorized("invalid or expired two-factor token")
	}
	if err := s.limitSecondFactor(ctx, claims.Subject); err != nil {
		return nil, err
	}
	u, err := s.identity.UserByID(ctx, claims.Subject)
	if errors.Is(err, db.ErrNotFound) || (err == nil && (u.SessionVersion != claims.Version || !u.TotpEnabled || u.TotpSecret == nil)) {
		return nil, errUnauthorized("invalid or expired two-factor token")
	}
	if err != nil {
		return nil, err
	}
	if err := s.checkTOTP(ctx, u, *u.TotpSecret, in.Body.Code); err != nil {
		var eb *ErrorBody
		if errors.As(err, &eb) {
			return nil, errUnauthorized(eb.Message)
		}
		return nil, err
	}
	return s.startSession(u)
}

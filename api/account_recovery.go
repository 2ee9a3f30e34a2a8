package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/internal/auth"
)

// The web app's pages that e-mailed links open, under Options.PublicURL; each reads the token from the
// query and posts it to the api.
const (
	resetPasswordPage = "/reset-password?token="
	verifyEmailPage   = "/verify-email?token="
)

// registerRecovery registers the e-mailed links: password reset and e-mail verification.
func (s accountOps) registerRecovery() {
	tags := []string{"Identity"}

	register(s.Server, huma.Operation{OperationID: "auth-forgot-password", Method: http.MethodPost,
		Path: "/auth/forgot-password", Summary: "Ask for a password reset link", Tags: tags,
		DefaultStatus: http.StatusAccepted, Errors: []int{http.StatusTooManyRequests},
		Description: "Answers 202 and the same body whether or not an account uses the address, so the answer tells " +
			"nobody which addresses have accounts. When one does, it is e-mailed a link to `" + resetPasswordPage +
			"…` under the public URL, single-use and valid one hour; a new request replaces the previous link. " +
			"Rate-limited per client address (429); an address receives at most three links an hour, whoever asks " +
			"(past that, requests are answered the same and send nothing)."},
		Requires{Public: true}, s.forgotPassword)

	register(s.Server, huma.Operation{OperationID: "auth-reset-password", Method: http.MethodPost,
		Path: "/auth/reset-password", Summary: "Set a new password with a reset link's token", Tags: tags,
		Description: "Uses the token up and ends every session of the account (log in again with the new password; " +
			"two-factor authentication stays as it was). An unknown, used or expired token is 400."},
		Requires{Public: true}, s.resetPassword)

	register(s.Server, huma.Operation{OperationID: "auth-verify-email-send", Method: http.MethodPost,
		Path: "/auth/verify-email/send", Summary: "E-mail a link that verifies my address", Tags: tags,
		DefaultStatus: http.StatusAccepted, Errors: []int{http.StatusConflict, http.StatusTooManyRequests},
		Description: "E-mails the account's address a link to `" + verifyEmailPage + "…` under the public URL, " +
			"single-use and valid 24 hours; a new request replaces the previous link. Registration sends one too. " +
			"409 when the address is already verified. Rate-limited per client address and per account (429)."},
		Requires{Scope: auth.ScopeAccountWrite, KeepsTenancy: true}, s.sendEmailVerification)

	register(s.Server, huma.Operation{OperationID: "auth-verify-email", Method: http.MethodPost,
		Path: "/auth/verify-email", Summary: "Verify my address with a verification link's token", Tags: tags,
		Description: "Sets the account's `emailVerified` and uses the token up. An unknown, used or expired token is 400, " +
			"and so is one sent to an address the account no longer has."},
		Requires{Public: true}, s.verifyEmail)
}

// ForgotPasswordInput is the request of auth-forgot-password.
type ForgotPasswordInput struct {
	Body ForgotPasswordInputBody
}

// ForgotPasswordInputBody is the body of a ForgotPasswordInput request.
type ForgotPasswordInputBody struct {
	Email string `json:"email" required:"true" format:"email" maxLength:"254"`
}

func (s accountOps) forgotPassword(ctx context.Context, in *ForgotPasswordInput) (*OKOutput, error) {
	email := strings.ToLower(strings.TrimSpace(in.Body.Email))
	if err := s.limited(ctx, "too many password reset requests; try again later",
		rateLimit{"forgot:ip:" + clientIPFrom(ctx), forgotPerClient, mailWindow}); err != nil {
		return nil, err
	}
	// Past its rate, an address gets no more e-mails, but the answer stays the same: it must not differ
	// by address, and the limit protects the mailbox, not the caller.
	over, err := s.overLimit(ctx, rateLimit{"forgot:email:" + email, forgotPerEmail, mailWindow})
	if err != nil {
		return nil, err
	}
	if !over {
		if err := s.identity.RequestPasswordReset(ctx, email, s.opts.PublicURL+resetPasswordPage); err != nil {
			return nil, fail(err)
		}
	}
	return okOutput(), nil
}

// ResetPasswordInput is the request of auth-reset-password.
type ResetPasswordInput struct {
	Body ResetPasswordInputBody
}

// ResetPasswordInputBody is the body of a ResetPasswordInput request.
type ResetPasswordInputBody struct {
	Token       string `json:"token" required:"true" minLength:"1" maxLength:"200" doc:"The token of the e-mailed link"`
	NewPassword string `json:"newPassword" minLength:"8" maxLength:"128" required:"true"`
}

func (s accountOps) resetPassword(ctx context.Context, in *ResetPasswordInput) (*OKOutput, error) {
	hash, err := auth.HashPassword(in.Body.NewPassword)
	if err != nil {
		return nil, err
	}
	if _, err := s.identity.ResetPassword(ctx, in.Body.Token, hash); err != nil {
		return nil, fail(err)
	}
	// The sessions the new session version ended must not live on in this process's cache of resolved
	// access until the change's notification arrives (the guard empties it only on authenticated writes).
	s.opts.AccessCache.Flush()
	return okOutput(), nil
}

func (s accountOps) sendEmailVerification(ctx context.Context, _ *struct{}) (*OKOutput, error) {
	u := principalFrom(ctx).User
	if u.EmailVerified {
		return nil, huma.NewError(http.StatusConflict, "the e-mail address is already verified")
	}
	if err := s.limited(ctx, "too many verification e-mails asked for; try again later",
		rateLimit{"verify-send:ip:" + clientIPFrom(ctx), verifySendPerClient, mailWindow},
		rateLimit{"verify-send:user:" + u.ID, verifySendPerUser, mailWindow}); err != nil {
		return nil, err
	}
	return done(s.identity.SendEmailVerification(ctx, u.ID, s.opts.PublicURL+verifyEmailPage))
}

// VerifyEmailInput is the request of auth-verify-email.
type VerifyEmailInput struct {
	Body VerifyEmailInputBody
}

// VerifyEmailInputBody is the body of a VerifyEmailInput request.
type VerifyEmailInputBody struct {
	Token string `json:"token" required:"true" minLength:"1" maxLength:"200" doc:"The token of the e-mailed link"`
}

func (s accountOps) verifyEmail(ctx context.Context, in *VerifyEmailInput) (*OKOutput, error) {
	if err := s.identity.VerifyEmail(ctx, in.Body.Token); err != nil {
		return nil, fail(err)
	}
	s.opts.AccessCache.Flush() // the user's cached row says unverified
	return okOutput(), nil
}

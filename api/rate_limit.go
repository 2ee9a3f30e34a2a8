package api

import (
	"context"
	"net/http"
	"time"
)

// The rate limits' windows and the fixed rates of the account-recovery routes. Login and registration
// rates are options (Options.LoginRateLimit, Options.RegisterRateLimit); the others are not worth a
// setting: they bound e-mails a person needs a handful of.
const (
	// loginWindow is the window of Options.LoginRateLimit (login, the second factor and its management).
	loginWindow = time.Minute
	// registerWindow is the window of Options.RegisterRateLimit.
	registerWindow = time.Hour
	// mailWindow is the window of the limits on routes that send e-mail.
	mailWindow = time.Hour
	// forgotPerClient is how many password resets one client address may ask for in mailWindow.
	forgotPerClient = 10
	// forgotPerEmail is how many reset e-mails one address may receive in mailWindow, whoever asks.
	forgotPerEmail = 3
	// verifySendPerClient and verifySendPerUser bound the verification e-mails one client address and
	// one account may ask for in mailWindow.
	verifySendPerClient = 10
	verifySendPerUser   = 3
)

// rateLimit is one limit: at most n hits of key a window.
type rateLimit struct {
	key    string
	n      int
	window time.Duration
}

// overLimit counts one hit on each limit, in order, and reports whether one was past its rate (the
// limits after it are not counted). The counts live in PostgreSQL, so the limits hold across every api
// process: a client gains nothing by spreading its attempts over replicas.
func (s *Server) overLimit(ctx context.Context, limits ...rateLimit) (bool, error) {
	for _, l := range limits {
		over, err := s.store.RateLimitHit(ctx, l.key, l.n, l.window)
		if err != nil {
			return false, fail(err)
		}
		if over {
			return true, nil
		}
	}
	return false, nil
}

// limited is overLimit answering 429 with msg, and with the longest of the limits' windows as
// Retry-After: the wait the messages name ("try again in a minute"), after which most of the
// attempts counted have left the sliding window.
func (s *Server) limited(ctx context.Context, msg string, limits ...rateLimit) error {
	over, err := s.overLimit(ctx, limits...)
	if err != nil {
		return err
	}
	if over {
		body := newErrorBody(http.StatusTooManyRequests, msg)
		for _, l := range limits {
			body.RetryAfter = max(body.RetryAfter, l.window)
		}
		return body
	}
	return nil
}

// limitLogin refuses a password attempt past the per-client rate, or past the rate of one account from
// one client. The account's limit is keyed by the client address too, so nobody can lock an account
// out by failing its password from elsewhere: a guesser is held back by the per-client limits (and
// argon2id's cost), the owner logs in from their own address. The client address has no "|", so the
// key names one pair.
func (s *Server) limitLogin(ctx context.Context, account string) error {
	ip := clientIPFrom(ctx)
	return s.limited(ctx, "too many login attempts; try again in a minute",
		rateLimit{"login:ip:" + ip, s.opts.LoginRateLimit, loginWindow},
		rateLimit{"login:ip-acct:" + ip + "|" + account, s.opts.LoginRateLimit, loginWindow})
}

// limitSecondFactor refuses a second-factor attempt (a TOTP or recovery code at login, or to turn the
// second factor on or off or renew its recovery codes) past the per-client rate or the user's own.
// Only someone who has the user's password (or session) reaches these checks, so the per-user limit
// spans every address: six-digit codes must not be guessed in parallel from many.
func (s *Server) limitSecondFactor(ctx context.Context, userID string) error {
	return s.limited(ctx, "too many two-factor attempts; try again in a minute",
		rateLimit{"login:ip:" + clientIPFrom(ctx), s.opts.LoginRateLimit, loginWindow},
		rateLimit{"2fa:user:" + userID, s.opts.LoginRateLimit, loginWindow})
}

// limitRegister refuses an account creation past the per-client rate.
func (s *Server) limitRegister(ctx context.Context) error {
	return s.limited(ctx, "too many accounts created from this address; try again later",
		rateLimit{"register:ip:" + clientIPFrom(ctx), s.opts.RegisterRateLimit, registerWindow})
}

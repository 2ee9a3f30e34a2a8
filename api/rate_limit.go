package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// loginWindow is the window of Options.LoginRateLimit.
const loginWindow = time.Minute

// limitLogin refuses a login attempt past the per-client or per-account rate. The counts live in
// PostgreSQL, so the limits hold across every api process: a client gains nothing by spreading its
// attempts over replicas.
func (s *Server) limitLogin(ctx context.Context, account string) error {
	for _, key := range []string{"login:ip:" + clientIPFrom(ctx), "login:acct:" + account} {
		over, err := s.store.RateLimitHit(ctx, key, s.opts.LoginRateLimit, loginWindow)
		if err != nil {
			return fail(err)
		}
		if over {
			return huma.NewError(http.StatusTooManyRequests, "too many login attempts; try again in a minute")
		}
	}
	return nil
}

package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
)

// Every session JWT names a server-side session (its jti): logging in, registering, completing the
// second factor and changing the password open one; logging out or revoking it ends it, and the guard
// refuses its JWT on the next request (REST, /mcp), and its open streams end.

// startSession opens a session for u (device and address from the request), signs its JWT and answers
// it with its cookie and CSRF token. method is how u signed in, for the audit log (identity.NewSession).
func (s accountOps) startSession(ctx context.Context, u db.User, method string) (*SessionOutput, error) {
	userAgent := ""
	if r, _ := rawRequest(ctx); r != nil {
		userAgent = r.UserAgent()
	}
	expires := time.Now().Add(s.signer.TTL())
	sess, err := s.identity.CreateSession(ctx, identity.NewSession{UserID: u.ID, UserAgent: userAgent,
		ClientIP: clientIPFrom(ctx), ExpiresAt: expires, Method: method})
	if err != nil {
		return nil, err
	}
	tok, claims, err := s.signer.IssueSession(u.ID, sess.ID, u.SessionVersion, expires)
	if err != nil {
		return nil, err
	}
	return &SessionOutput{
		// G124: Secure in production; development serves plain http on localhost, where a Secure cookie is never sent back.
		//nolint:gosec // see above
		SetCookie: []http.Cookie{{Name: sessionCookie, Value: tok, Path: "/", HttpOnly: true, Secure: s.opts.Production,
			SameSite: http.SameSiteLaxMode, Expires: claims.ExpiresAt.Time}},
		Body: SessionBody{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int64(s.signer.TTL().Seconds()),
			CSRFToken: s.signer.CSRFToken(claims), User: userOut(u)},
	}, nil
}

// logout ends the caller's session, named by the bearer token or else the session cookie, and clears
// the cookie. Without a valid session it only clears the cookie, so logging out twice is no error.
func (s accountOps) logout(ctx context.Context, _ *struct{}) (*SessionOutput, error) {
	if r, _ := rawRequest(ctx); r != nil {
		token := ""
		if t, err := bearerToken(r.Header.Get("Authorization")); err == nil && !auth.IsPAT(t) {
			token = t
		} else if c, err := r.Cookie(sessionCookie); err == nil {
			token = c.Value
		}
		if claims, err := s.signer.Verify(token, auth.TypeSession); err == nil && isUUID(claims.ID) &&
			isUUID(claims.Subject) {
			if err := s.identity.RevokeSession(ctx, claims.Subject, claims.ID); err != nil && !errors.Is(err, db.ErrNotFound) {
				return nil, err
			}
			// The guard empties the access cache before answering other writes; this operation is public.
			s.opts.AccessCache.Flush()
		}
	}
	//nolint:gosec // G124: Secure in production; development serves plain http on localhost (see startSession)
	return &SessionOutput{SetCookie: []http.Cookie{{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true,
		Secure: s.opts.Production, SameSite: http.SameSiteLaxMode, MaxAge: -1}}}, nil
}

// registerSessions registers the session list and revocation.
func (s accountOps) registerSessions() {
	tags := []string{"Identity"}
	register(s.Server, huma.Operation{OperationID: "auth-sessions-list", Method: http.MethodGet, Path: "/auth/sessions",
		Summary: "List the caller's active sessions", Tags: tags,
		Description: "Every signed-in device or client, the newest first; `current` marks the session of this request."},
		Requires{JWTOnly: true, KeepsTenancy: true}, s.listSessions)
	register(s.Server, huma.Operation{OperationID: "auth-sessions-revoke", Method: http.MethodDelete,
		Path: "/auth/sessions/{sessionId}", Summary: "End one of the caller's sessions", Tags: tags,
		Errors: []int{http.StatusNotFound}, Description: "Its token is refused from the next request on, and its open " +
			"event streams end. Ending the current session is logging out."},
		Requires{JWTOnly: true}, s.revokeSession)
	register(s.Server, huma.Operation{OperationID: "auth-sessions-revoke-others", Method: http.MethodPost,
		Path: "/auth/sessions/revoke-others", Summary: "End every session of the caller but this one", Tags: tags},
		Requires{JWTOnly: true}, s.revokeOtherSessions)
	s.registerSessionState()
}

// SessionOut is one of the caller's sessions.
type SessionOut struct {
	ID         string    `json:"id" format:"uuid"`
	Device     string    `json:"device" doc:"A label derived from the User-Agent, e.g. Firefox on Linux"`
	UserAgent  string    `json:"userAgent"`
	ClientIP   string    `json:"clientIp"`
	CreatedAt  time.Time `json:"createdAt"`
	LastSeenAt time.Time `json:"lastSeenAt" doc:"Recorded at most once a minute"`
	ExpiresAt  time.Time `json:"expiresAt"`
	Current    bool      `json:"current" doc:"The session of this request"`
}

func (s accountOps) listSessions(ctx context.Context, _ *struct{}) (*Output[[]SessionOut], error) {
	current := principalFrom(ctx).Session.ID
	return listOf(func(x db.Session) SessionOut {
		return SessionOut{ID: x.ID, Device: x.Device, UserAgent: x.UserAgent, ClientIP: x.ClientIP, CreatedAt: x.CreatedAt,
			LastSeenAt: x.LastSeenAt, ExpiresAt: x.ExpiresAt, Current: x.ID == current}
	})(s.identity.Sessions(ctx, principalFrom(ctx).User.ID))
}

// RevokeSessionInput is the request of auth-sessions-revoke.
type RevokeSessionInput struct {
	SessionID string `path:"sessionId" format:"uuid"`
}

func (s accountOps) revokeSession(ctx context.Context, in *RevokeSessionInput) (*OKOutput, error) {
	return done(s.identity.RevokeSession(ctx, principalFrom(ctx).User.ID, in.SessionID))
}

// RevokedSessionsOut says how many sessions ended.
type RevokedSessionsOut struct {
	Revoked int64 `json:"revoked"`
}

func (s accountOps) revokeOtherSessions(ctx context.Context, _ *struct{}) (*Output[RevokedSessionsOut], error) {
	p := principalFrom(ctx)
	n, err := s.identity.RevokeOtherSessions(ctx, p.User.ID, p.Session.ID)
	if err != nil {
		return nil, fail(err)
	}
	return &Output[RevokedSessionsOut]{Body: RevokedSessionsOut{Revoked: n}}, nil
}

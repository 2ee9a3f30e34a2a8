package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/auth"
)

// The web app asks at start whether its browser is signed in. /auth/me would answer a signed-out browser
// 401, which browsers log as an error in the console of every signed-out visit; this operation answers
// 200 either way, with signedIn false when the session cookie is missing, invalid, expired or ended.

// registerSessionState registers auth-session.
func (s accountOps) registerSessionState() {
	register(s.Server, huma.Operation{OperationID: "auth-session", Method: http.MethodGet, Path: "/auth/session",
		Summary: "Whether this browser is signed in", Tags: []string{"Identity"},
		Description: "Reads the session cookie only (a bearer token is ignored: use /auth/me). Answers 200 whether " +
			"or not it names a live session: `signedIn` false when there is no cookie or its session is invalid, " +
			"expired or ended; otherwise the user and the csrfToken, as /auth/me."},
		Requires{Public: true}, s.sessionState)
}

// SessionStateOutput is the answer of auth-session.
type SessionStateOutput struct {
	Body SessionStateBody
}

// SessionStateBody says whether the session cookie names a live session, and whose.
type SessionStateBody struct {
	SignedIn  bool     `json:"signedIn" doc:"True when the session cookie names a live session"`
	User      *UserOut `json:"user,omitempty" doc:"The signed-in user, when signedIn"`
	CSRFToken string   `json:"csrfToken,omitempty" doc:"Send as X-CSRF-Token on writes, when signedIn"`
}

func (s accountOps) sessionState(ctx context.Context, _ *struct{}) (*SessionStateOutput, error) {
	out := &SessionStateOutput{}
	r, _ := rawRequest(ctx)
	if r == nil {
		return out, nil
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return out, nil
	}
	claims, err := s.signer.Verify(c.Value, auth.TypeSession)
	if err != nil || !isUUID(claims.ID) || !isUUID(claims.Subject) {
		return out, nil
	}
	u, err := s.identity.SessionUser(ctx, claims.ID, claims.Subject)
	if errors.Is(err, db.ErrNotFound) || (err == nil && u.SessionVersion != claims.Version) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	s.touchSession(ctx, claims.ID)
	out.Body = SessionStateBody{SignedIn: true, User: userOut(u), CSRFToken: s.signer.CSRFToken(claims)}
	return out, nil
}

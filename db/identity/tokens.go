package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// NewAPIToken is a personal access token to store; only the hash of its secret is kept.
type NewAPIToken struct {
	UserID     string
	Name       string
	Prefix     string
	SecretHash []byte
	Scopes     []string
	ExpiresAt  *time.Time
}

// CreateAPIToken stores a personal access token.
func (e *Engine) CreateAPIToken(ctx context.Context, t NewAPIToken) (db.APIToken, error) {
	tok, err := e.core.Q.APITokenInsert(ctx, dbsqlc.APITokenInsertParams{
		ID: db.NewID(), UserID: t.UserID, Name: t.Name, Prefix: t.Prefix, SecretHash: t.SecretHash, Scopes: t.Scopes, ExpiresAt: t.ExpiresAt,
	})
	return db.APIToken(tok), dbcore.Wrap(err, "insert api token")
}

// ListAPITokens lists a user's tokens, newest first.
func (e *Engine) ListAPITokens(ctx context.Context, userID string) ([]db.APIToken, error) {
	toks, err := e.core.Q.APITokenListByUser(ctx, userID)
	return dbcore.MapRows(toks, func(r dbsqlc.ApiToken) db.APIToken { return db.APIToken(r) }), dbcore.Wrap(err, "list api tokens")
}

// RevokeAPIToken deletes one of the user's tokens for good.
func (e *Engine) RevokeAPIToken(ctx context.Context, userID, id string) error {
	n, err := e.core.Q.APITokenDelete(ctx, dbsqlc.APITokenDeleteParams{ID: id, UserID: userID})
	if err != nil {
		return fmt.Errorf("delete api token: %w", err)
	}
	if n == 0 {
		return dbcore.NotFound("token not found")
	}
	return nil
}

// APITokenByHash finds a token by the hash of its secret.
func (e *Engine) APITokenByHash(ctx context.Context, hash []byte) (db.APIToken, error) {
	tok, err := e.core.Q.APITokenGetByHash(ctx, hash)
	return db.APIToken(tok), dbcore.Wrap(err, "get api token")
}

// TouchAPIToken records that a token was used (at most once a minute).
func (e *Engine) TouchAPIToken(ctx context.Context, id string) error {
	return dbcore.Wrap(e.core.Q.APITokenTouch(ctx, id), "touch api token")
}

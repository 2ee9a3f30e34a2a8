package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

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
	var out db.APIToken
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		tok, err := q.APITokenInsert(ctx, dbsqlc.APITokenInsertParams{
			ID: db.NewID(), UserID: t.UserID, Name: t.Name, Prefix: t.Prefix, SecretHash: t.SecretHash, Scopes: t.Scopes,
			ExpiresAt: t.ExpiresAt,
		})
		if err != nil {
			return dbcore.Wrap(err, "insert api token")
		}
		out = db.APIToken(tok)
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditTokenCreated, ActorID: t.UserID,
			Target: db.AuditTarget{Type: "api_token", ID: out.ID, Name: out.Name},
			Changes: map[string]any{"after": map[string]any{"prefix": out.Prefix, "scopes": out.Scopes,
				"expiresAt": out.ExpiresAt}}})
	})
	return out, err
}

// ListAPITokens is one page of a user's tokens, newest first.
func (e *Engine) ListAPITokens(ctx context.Context, userID string, p db.Page) (db.Paged[db.APIToken], error) {
	k, err := p.AfterTime("api-tokens", true)
	if err != nil {
		return db.Paged[db.APIToken]{}, err
	}
	toks, err := e.core.Q.APITokenListByUser(ctx, dbsqlc.APITokenListByUserParams{UserID: userID, AfterAt: k.At,
		AfterID: k.ID, Lim: p.Fetch()})
	if err != nil {
		return db.Paged[db.APIToken]{}, dbcore.Wrap(err, "list api tokens")
	}
	return db.PageOf(p, "api-tokens", dbcore.MapRows(toks, func(r dbsqlc.ApiToken) db.APIToken { return db.APIToken(r) }),
		func(t db.APIToken) any { return db.TimeKey{At: t.CreatedAt, ID: t.ID} }), nil
}

// RevokeAPIToken deletes one of the user's tokens for good.
func (e *Engine) RevokeAPIToken(ctx context.Context, userID, id string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		tok, err := q.APITokenDelete(ctx, dbsqlc.APITokenDeleteParams{ID: id, UserID: userID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("token not found")
		}
		if err != nil {
			return fmt.Errorf("delete api token: %w", err)
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditTokenRevoked, ActorID: userID,
			Target:  db.AuditTarget{Type: "api_token", ID: tok.ID, Name: tok.Name},
			Changes: map[string]any{"before": map[string]any{"prefix": tok.Prefix, "scopes": tok.Scopes}}})
	})
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

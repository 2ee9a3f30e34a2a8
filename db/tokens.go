package db

import (
	"context"
	"fmt"
	"time"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
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
func (s *Store) CreateAPIToken(ctx context.Context, t NewAPIToken) (APIToken, error) {
	tok, err := s.q.APITokenInsert(ctx, dbsqlc.APITokenInsertParams{
		ID: NewID(), UserID: t.UserID, Name: t.Name, Prefix: t.Prefix, SecretHash: t.SecretHash, Scopes: t.Scopes, ExpiresAt: t.ExpiresAt,
	})
	return tok, wrap(err, "insert api token")
}

// ListAPITokens lists a user's tokens, newest first.
func (s *Store) ListAPITokens(ctx context.Context, userID string) ([]APIToken, error) {
	toks, err := s.q.APITokenListByUser(ctx, userID)
	return toks, wrap(err, "list api tokens")
}

// RevokeAPIToken deletes one of the user's tokens for good.
func (s *Store) RevokeAPIToken(ctx context.Context, userID, id string) error {
	n, err := s.q.APITokenDelete(ctx, dbsqlc.APITokenDeleteParams{ID: id, UserID: userID})
	if err != nil {
		return fmt.Errorf("delete api token: %w", err)
	}
	if n == 0 {
		return notFound("token not found")
	}
	return nil
}

// APITokenByHash finds a token by the hash of its secret.
func (s *Store) APITokenByHash(ctx context.Context, hash []byte) (APIToken, error) {
	tok, err := s.q.APITokenGetByHash(ctx, hash)
	return tok, wrap(err, "get api token")
}

// TouchAPIToken records that a token was used (at most once a minute).
func (s *Store) TouchAPIToken(ctx context.Context, id string) error {
	return wrap(s.q.APITokenTouch(ctx, id), "touch api token")
}

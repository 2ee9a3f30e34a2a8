package api

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
)

// TokenOut is a personal access token as listed; the secret is never shown again.
type TokenOut struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Prefix      string     `json:"prefix" doc:"First characters of the secret, to recognise it"`
	TokenPrefix string     `json:"tokenPrefix" doc:"Same as prefix"`
	Scopes      []string   `json:"scopes"`
	ExpiresAt   *time.Time `json:"expiresAt" nullable:"true"`
	LastUsedAt  *time.Time `json:"lastUsedAt" nullable:"true"`
	CreatedAt   time.Time  `json:"createdAt"`
}

// CreatedTokenOut adds the secret, shown only in the creation answer.
type CreatedTokenOut struct {
	TokenOut
	Token  string `json:"token" doc:"The full secret; shown only once"`
	Secret string `json:"secret" doc:"Same as token"`
}

func tokenOut(t db.APIToken) TokenOut {
	return TokenOut{ID: t.ID, Name: t.Name, Prefix: t.Prefix, TokenPrefix: t.Prefix, Scopes: t.Scopes,
		ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt, CreatedAt: t.CreatedAt}
}

// registerTokens registers the caller's personal access tokens.
func (s accountOps) registerTokens() {
	tags := []string{"Personal access tokens"}

	register(s.Server, huma.Operation{OperationID: "api-tokens-create", Method: http.MethodPost, Path: "/api-tokens",
		Summary: "Create a personal access token", Tags: tags, DefaultStatus: http.StatusCreated},
		Requires{JWTOnly: true}, s.createAPIToken)

	register(s.Server, huma.Operation{OperationID: "api-tokens-list", Method: http.MethodGet, Path: "/api-tokens",
		Summary: "List personal access tokens", Tags: tags},
		Requires{JWTOnly: true}, s.listAPITokens)

	register(s.Server, huma.Operation{OperationID: "api-tokens-revoke", Method: http.MethodDelete,
		Path: "/api-tokens/{id}", Summary: "Revoke a personal access token", Tags: tags, Errors: []int{http.StatusNotFound}},
		Requires{JWTOnly: true}, s.revokeAPIToken)
}

// CreateTokenInput is the request of api-tokens-create.
type CreateTokenInput struct {
	Body CreateTokenInputBody
}

// CreateTokenInputBody is the body of a CreateTokenInput request.
type CreateTokenInputBody struct {
	Name      string     `json:"name" required:"true" minLength:"1" maxLength:"100"`
	Scopes    []string   `json:"scopes,omitempty" maxItems:"7" enum:"projects:read,projects:write,pilotage:read,pilotage:write,notifications:read,account:read,account:write" doc:"Default: every scope"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty" nullable:"true" doc:"null or absent: never expires"`
}

func (s accountOps) createAPIToken(ctx context.Context, in *CreateTokenInput) (*Output[CreatedTokenOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	scopes := in.Body.Scopes
	if len(scopes) == 0 {
		// A copy: the sort below must not reorder the shared list (a data race across requests).
		scopes = slices.Clone(auth.AllScopes)
	}
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	if isExpired(in.Body.ExpiresAt) {
		return nil, errBadRequest("expiresAt must be in the future")
	}
	secret, prefix, hash := auth.NewPAT()
	return oneOf(func(tok db.APIToken) CreatedTokenOut {
		return CreatedTokenOut{TokenOut: tokenOut(tok), Token: secret, Secret: secret}
	})(s.identity.CreateAPIToken(ctx, identity.NewAPIToken{UserID: principalFrom(ctx).User.ID, Name: name,
		Prefix: prefix, SecretHash: hash, Scopes: scopes, ExpiresAt: in.Body.ExpiresAt}))
}

// ListAPITokensInput is the request of api-tokens-list.
type ListAPITokensInput struct {
	PageQuery
}

func (s accountOps) listAPITokens(ctx context.Context, in *ListAPITokensInput) (*PageOutput[TokenOut], error) {
	return pageOf(ctx, tokenOut)(s.identity.ListAPITokens(ctx, principalFrom(ctx).User.ID, in.page()))
}

// RevokeAPITokenInput is the request of api-tokens-revoke.
type RevokeAPITokenInput struct {
	ID string `path:"id" format:"uuid"`
}

func (s accountOps) revokeAPIToken(ctx context.Context, in *RevokeAPITokenInput) (*OKOutput, error) {
	return done(s.identity.RevokeAPIToken(ctx, principalFrom(ctx).User.ID, in.ID))
}

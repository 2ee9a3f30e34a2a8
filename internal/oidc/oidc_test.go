package oidc_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/oidc"
	"github.com/pilot-dev/pilot/internal/oidctest"
)

const callback = "http://pilot.test/auth/oidc/corp/callback"

var ada = oidctest.User{ID: "u-ada", Username: "ada", Password: "verysecure", Email: "ada@example.com",
	EmailVerified: true, FirstName: "Ada", LastName: "Lovelace"}

func set(op *oidctest.Provider) *oidc.Set {
	return oidc.New([]oidc.Config{{ID: "corp", Name: "Corp", Issuer: op.Issuer, ClientID: oidctest.ClientID,
		ClientSecret: oidctest.ClientSecret, Scopes: []string{"email", "profile"}}},
		func(id string) string { return "http://pilot.test/auth/oidc/" + id + "/callback" }, nil)
}

// signIn runs the flow through the provider's login form and answers the callback's code and state.
func signIn(t *testing.T, op *oidctest.Provider, p *oidc.Provider) (oidc.Start, string) {
	t.Helper()
	st, err := p.Start(context.Background())
	require.NoError(t, err)
	back, err := op.SignIn(context.Background(), oidctest.Browser(), st.URL, ada.Username, ada.Password)
	require.NoError(t, err)
	require.Equal(t, callback, back.Scheme+"://"+back.Host+back.Path)
	require.Equal(t, st.State, back.Query().Get("state"), "the state comes back")
	return st, back.Query().Get("code")
}

func TestFlowAgainstARealProvider(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	op := oidctest.Start(t, []oidctest.User{ada}, callback)
	p, ok := set(op).Provider("corp")
	require.True(t, ok)

	st, err := p.Start(ctx)
	require.NoError(t, err)
	require.Contains(t, st.URL, "code_challenge_method=S256")
	require.Contains(t, st.URL, "nonce="+st.Nonce)
	require.NotContains(t, st.URL, st.Verifier, "the verifier stays here")

	st, code := signIn(t, op, p)
	id, err := p.Finish(ctx, code, st.Verifier, st.Nonce)
	require.NoError(t, err)
	require.Equal(t, oidc.Identity{Subject: "u-ada", Email: "ada@example.com", EmailVerified: true,
		Name: "Ada Lovelace"}, id)

	_, err = p.Finish(ctx, code, st.Verifier, st.Nonce)
	require.ErrorIs(t, err, oidc.ErrRejected, "a code is used once")

	st, code = signIn(t, op, p)
	_, err = p.Finish(ctx, code, "another-verifier-of-forty-three-characters-at-least", st.Nonce)
	require.ErrorIs(t, err, oidc.ErrRejected, "PKCE: the verifier must match the challenge")

	st, code = signIn(t, op, p)
	_, err = p.Finish(ctx, code, st.Verifier, "another nonce")
	require.ErrorIs(t, err, oidc.ErrInvalidToken, "the nonce is checked")
}

func TestRotatedKeysAreFollowed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	op := oidctest.Start(t, []oidctest.User{ada}, callback)
	p, _ := set(op).Provider("corp")
	st, code := signIn(t, op, p)
	_, err := p.Finish(ctx, code, st.Verifier, st.Nonce)
	require.NoError(t, err)

	old := op.KeyID()
	op.RotateKey()
	require.NotEqual(t, old, op.KeyID())
	st, code = signIn(t, op, p)
	_, err = p.Finish(ctx, code, st.Verifier, st.Nonce)
	require.NoError(t, err, "a token signed by the new key verifies: the keys are read again")
}

func TestProviderDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	op := oidctest.Start(t, []oidctest.User{ada}, callback)
	op.Stop()
	p, _ := set(op).Provider("corp")
	_, err := p.Start(ctx)
	require.ErrorIs(t, err, oidc.ErrUnreachable)

	// Down after discovery: the code exchange does not reach it.
	op = oidctest.Start(t, []oidctest.User{ada}, callback)
	p, _ = set(op).Provider("corp")
	st, code := signIn(t, op, p)
	op.Stop()
	_, err = p.Finish(ctx, code, st.Verifier, st.Nonce)
	require.ErrorIs(t, err, oidc.ErrUnreachable)
}

func TestNoProviders(t *testing.T) {
	t.Parallel()
	var s *oidc.Set
	require.Empty(t, s.Providers())
	_, ok := s.Provider("x")
	require.False(t, ok)
	s = oidc.New(nil, func(string) string { return "" }, http.DefaultClient)
	require.Empty(t, s.Providers())
}

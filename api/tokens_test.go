package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/auth"
)

// tokAllScopes is every scope, in the order the API lists them (auth.AllScopes).
var tokAllScopes = []string{"projects:read", "projects:write", "pilotage:read", "pilotage:write", "notifications:read",
	"account:read", "account:write"}

// tokUser registers email and returns its session token and id.
func tokUser(e *testEnv, email string) (token, id string) {
	e.t.Helper()
	reg := identRegister(e, email, strings.Split(email, "@")[0])
	return reg.AccessToken, reg.User.ID
}

// tokCreate creates a personal access token with body and returns the creation answer.
func tokCreate(e *testEnv, jwt string, body map[string]any) CreatedTokenOut {
	e.t.Helper()
	return decode[CreatedTokenOut](e.t, tokCreateRaw(e, jwt, body))
}

// tokCreateRaw creates a personal access token with body and returns the raw answer.
func tokCreateRaw(e *testEnv, jwt string, body map[string]any) *resp {
	e.t.Helper()
	r := e.do("POST", "/api-tokens", jwt, body)
	requireStatus(e.t, r, http.StatusCreated)
	return r
}

func TestAPITokensCreateAndList(t *testing.T) {
	t.Parallel()
	e := setup(t)
	jwt, userID := tokUser(e, "sam@example.com")

	created := tokCreateRaw(e, jwt, map[string]any{"name": "  ci  "})
	m := decode[CreatedTokenOut](t, created) // createdAt must parse as an RFC 3339 time to decode
	id := m.ID
	require.NotEmpty(t, id)
	require.Equal(t, "ci", m.Name)
	secret := m.Token
	require.True(t, strings.HasPrefix(secret, "pilot_pat_"), secret)
	require.Greater(t, len(secret), len("pilot_pat_")+16)
	require.Equal(t, secret, m.Secret)
	prefix := m.Prefix
	require.NotEmpty(t, prefix)
	require.Less(t, len(prefix), len(secret))
	require.True(t, strings.HasPrefix(secret, prefix), "prefix %q of %q", prefix, secret)
	require.Equal(t, prefix, m.TokenPrefix)
	require.ElementsMatch(t, tokAllScopes, m.Scopes)
	require.Contains(t, bodyFields(t, created), "expiresAt", "null, not left out")
	require.Nil(t, m.ExpiresAt)
	require.False(t, m.CreatedAt.IsZero())

	// Defaulting the scopes must not disturb the package's list of them.
	require.Equal(t, tokAllScopes, auth.AllScopes)

	// Only the hash of the secret is stored.
	require.Equal(t, 1, e.count("SELECT count(*) FROM api_tokens WHERE id = $1 AND user_id = $2 AND secret_hash = $3 "+
		"AND expires_at IS NULL AND last_used_at IS NULL",
		id, userID, auth.HashSecret(secret)))
	require.Equal(t, 0, e.count("SELECT count(*) FROM api_tokens WHERE position($1 in prefix || name || scopes::text) > 0",
		secret))

	// Explicit scopes are kept (deduplicated).
	m2 := tokCreate(e, jwt, map[string]any{"name": "reader", "scopes": []string{"account:read", "projects:read",
		"account:read"}})
	require.ElementsMatch(t, []string{"account:read", "projects:read"}, m2.Scopes)
	require.NotEqual(t, secret, m2.Token)

	list := e.do("GET", "/api-tokens", jwt, nil)
	requireStatus(t, list, http.StatusOK)
	require.NotContains(t, string(list.Body), secret)
	require.NotContains(t, string(list.Body), m2.Token)
	// The listed tokens' own fields: the secret is not serialised at all, lastUsedAt is, as null.
	for _, fields := range decode[[]map[string]json.RawMessage](t, list) {
		require.NotContains(t, fields, "token")
		require.NotContains(t, fields, "secret")
		require.Contains(t, fields, "lastUsedAt")
	}
	l := decode[[]TokenOut](t, list)
	require.Len(t, l, 2)
	byID := map[string]TokenOut{}
	for _, tok := range l {
		byID[tok.ID] = tok
	}
	ci, ok := byID[id]
	require.True(t, ok, "list: %s", list.Body)
	require.Equal(t, "ci", ci.Name)
	require.Equal(t, prefix, ci.Prefix)
	require.ElementsMatch(t, tokAllScopes, ci.Scopes)
	require.Nil(t, ci.ExpiresAt)
	require.Nil(t, ci.LastUsedAt, "never used yet")

	// One use records lastUsedAt.
	before := time.Now().Add(-time.Minute)
	me := e.do("GET", "/auth/me", secret, nil)
	requireStatus(t, me, http.StatusOK)
	require.Equal(t, userID, identMe(t, me).Body.User.ID)
	for _, tok := range decode[[]TokenOut](t, e.do("GET", "/api-tokens", jwt, nil)) {
		switch tok.ID {
		case id:
			require.NotNil(t, tok.LastUsedAt)
			require.True(t, tok.LastUsedAt.After(before), "lastUsedAt %v", tok.LastUsedAt)
		default:
			require.Nil(t, tok.LastUsedAt, "the unused token stays unused")
		}
	}

	// Another user sees none of them.
	other, _ := tokUser(e, "tess@example.com")
	ol := e.do("GET", "/api-tokens", other, nil)
	requireStatus(t, ol, http.StatusOK)
	require.Empty(t, decode[[]TokenOut](t, ol))
}

func TestAPITokensCreateValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	jwt, _ := tokUser(e, "uma@example.com")

	cases := []struct {
		name string
		body any
	}{
		{"name missing", map[string]any{"scopes": []string{"account:read"}}},
		{"name empty", map[string]any{"name": ""}},
		{"name blank", map[string]any{"name": "   "}},
		{"name 101 chars", map[string]any{"name": strings.Repeat("n", 101)}},
		{"unknown scope", map[string]any{"name": "x", "scopes": []string{"account:read", "admin:all"}}},
		{"scope not a string", map[string]any{"name": "x", "scopes": []any{1}}},
		{"expiresAt in the past", map[string]any{"name": "x",
			"expiresAt": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}}, {"expiresAt not a time",
			map[string]any{"name": "x", "expiresAt": "tomorrow"}},
	}
	for _, tc := range cases {
		r := e.do("POST", "/api-tokens", jwt, tc.body)
		require.Equal(t, http.StatusBadRequest, r.Code, "%s: %s", tc.name, r.Body)
		requireStatus(t, r, http.StatusBadRequest)
	}
	require.Equal(t, 0, e.count("SELECT count(*) FROM api_tokens"), "no refused request may create a token")

	// The limits themselves are accepted, and so is an explicit null expiry.
	m := tokCreate(e, jwt, map[string]any{"name": strings.Repeat("n", 100), "expiresAt": nil})
	require.Equal(t, strings.Repeat("n", 100), m.Name)
	require.Nil(t, m.ExpiresAt)
	require.Equal(t, 1, e.count("SELECT count(*) FROM api_tokens"))

	requireStatus(t, e.do("POST", "/api-tokens", "", map[string]any{"name": "anon"}), http.StatusUnauthorized)
}

func TestAPITokensRefusePersonalAccessTokens(t *testing.T) {
	t.Parallel()
	e := setup(t)
	jwt, _ := tokUser(e, "vic@example.com")
	m := tokCreate(e, jwt, map[string]any{"name": "all"})
	pat, id := m.Token, m.ID

	requireStatus(t, e.do("GET", "/api-tokens", pat, nil), http.StatusForbidden)
	requireStatus(t, e.do("POST", "/api-tokens", pat, map[string]any{"name": "escalated"}), http.StatusForbidden)
	requireStatus(t, e.do("DELETE", "/api-tokens/"+id, pat, nil), http.StatusForbidden)
	require.Equal(t, 1, e.count("SELECT count(*) FROM api_tokens"), "nothing created, nothing revoked")

	// The same token still works where its scopes allow.
	requireStatus(t, e.do("GET", "/auth/me", pat, nil), http.StatusOK)
}

func TestAPITokensScopes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	jwt, userID := tokUser(e, "wes@example.com")

	accountRead := tokCreate(e, jwt, map[string]any{"name": "profile", "scopes": []string{"account:read"}}).Token
	me := e.do("GET", "/auth/me", accountRead, nil)
	requireStatus(t, me, http.StatusOK)
	require.Equal(t, userID, identMe(t, me).Body.User.ID)
	requireStatus(t, e.do("PATCH", "/auth/me", accountRead, map[string]any{"name": "Changed"}), http.StatusForbidden)
	require.Equal(t, "wes", identUserName(e, userID))
	requireStatus(t, e.do("GET", "/organizations", accountRead, nil), http.StatusForbidden)

	projectsRead := tokCreate(e, jwt, map[string]any{"name": "projects", "scopes": []string{"projects:read"}}).Token
	orgs := e.do("GET", "/organizations", projectsRead, nil)
	requireStatus(t, orgs, http.StatusOK)
	require.Len(t, decode[[]OrganizationOut](t, orgs), 1)
	requireStatus(t, e.do("POST", "/organizations", projectsRead, map[string]any{"name": "Acme", "slug": "acme"}),
		http.StatusForbidden)
	require.Equal(t, 0, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme'"))
	requireStatus(t, e.do("GET", "/auth/me", projectsRead, nil), http.StatusForbidden)

	// With the write scope, the same request goes through.
	accountWrite := tokCreate(e, jwt, map[string]any{"name": "writer", "scopes": []string{"account:write",
		"projects:write"}}).Token
	requireStatus(t, e.do("PATCH", "/auth/me", accountWrite, map[string]any{"name": "Changed"}), http.StatusOK)
	require.Equal(t, "Changed", identUserName(e, userID))
	requireStatus(t, e.do("POST", "/organizations", accountWrite, map[string]any{"name": "Acme", "slug": "acme"}),
		http.StatusCreated)
	require.Equal(t, 1, e.count("SELECT count(*) FROM organizations WHERE slug = 'acme' AND owner_id = $1", userID))

	// A personal access token needs no CSRF token, even next to a session cookie.
	login := identLogin(e, "wes@example.com", identPassword)
	requireStatus(t, login, http.StatusOK)
	c := identSessionCookie(login)
	r := e.send(req{Method: "PATCH", Path: "/auth/me", Token: accountWrite, Cookies: []*http.Cookie{{Name: c.Name,
		Value: c.Value}}, Body: map[string]any{"name": "Again"}})
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "Again", identUserName(e, userID))
}

func TestAPITokensExpiry(t *testing.T) {
	t.Parallel()
	e := setup(t)
	jwt, _ := tokUser(e, "xena@example.com")

	at := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	m := tokCreate(e, jwt, map[string]any{"name": "short", "expiresAt": at.Format(time.RFC3339)})
	require.NotNil(t, m.ExpiresAt)
	require.True(t, at.Equal(*m.ExpiresAt), "expiresAt %v, want %v", *m.ExpiresAt, at)
	pat, id := m.Token, m.ID
	requireStatus(t, e.do("GET", "/auth/me", pat, nil), http.StatusOK)

	tag, err := e.pool.Exec(context.Background(), "UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE "+
		"id = $1", id)
	require.NoError(t, err)
	require.EqualValues(t, 1, tag.RowsAffected())

	requireStatus(t, e.do("GET", "/auth/me", pat, nil), http.StatusUnauthorized)
	requireStatus(t, e.do("GET", "/organizations", pat, nil), http.StatusUnauthorized)

	// Listed still, with its expiry, so the owner sees why it stopped.
	for _, tok := range decode[[]TokenOut](t, e.do("GET", "/api-tokens", jwt, nil)) {
		require.Equal(t, id, tok.ID)
		require.NotNil(t, tok.ExpiresAt)
		require.True(t, tok.ExpiresAt.Before(time.Now()))
	}
}

func TestAPITokensRevoke(t *testing.T) {
	t.Parallel()
	e := setup(t)
	jwt, _ := tokUser(e, "yara@example.com")
	otherJWT, _ := tokUser(e, "zed@example.com")

	m := tokCreate(e, jwt, map[string]any{"name": "doomed"})
	pat, id := m.Token, m.ID
	keep := tokCreate(e, jwt, map[string]any{"name": "kept"}).Token
	otherM := tokCreate(e, otherJWT, map[string]any{"name": "theirs"})
	otherPat, otherID := otherM.Token, otherM.ID
	requireStatus(t, e.do("GET", "/auth/me", pat, nil), http.StatusOK)

	// Another user's token id is not found, and stays alive.
	requireStatus(t, e.do("DELETE", "/api-tokens/"+otherID, jwt, nil), http.StatusNotFound)
	requireStatus(t, e.do("GET", "/auth/me", otherPat, nil), http.StatusOK)
	// Ids that name nothing.
	requireStatus(t, e.do("DELETE", "/api-tokens/not-a-uuid", jwt, nil), http.StatusNotFound)
	requireStatus(t, e.do("DELETE", "/api-tokens/0190c1d2-0000-7000-8000-000000000000", jwt, nil), http.StatusNotFound)
	require.Equal(t, 3, e.count("SELECT count(*) FROM api_tokens"))

	r := e.do("DELETE", "/api-tokens/"+id, jwt, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, true, decode[OKBody](t, r).OK)
	require.Equal(t, 0, e.count("SELECT count(*) FROM api_tokens WHERE id = $1", id))

	requireStatus(t, e.do("GET", "/auth/me", pat, nil), http.StatusUnauthorized)
	requireStatus(t, e.do("DELETE", "/api-tokens/"+id, jwt, nil), http.StatusNotFound)
	l := decode[[]TokenOut](t, e.do("GET", "/api-tokens", jwt, nil))
	require.Len(t, l, 1)
	require.Equal(t, "kept", l[0].Name)
	requireStatus(t, e.do("GET", "/auth/me", keep, nil), http.StatusOK)
	requireStatus(t, e.do("GET", "/auth/me", otherPat, nil), http.StatusOK)
}

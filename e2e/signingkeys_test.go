package e2e

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// TestNoForgeableSessionsByDefault runs the api as `make run` does, without JWT_SECRET: sessions are
// signed with a random key kept in the database, so a token signed with any key written in the code is
// refused, a restart keeps sessions, and `pilot keys rotate` adds a key without ending them.
func TestNoForgeableSessionsByDefault(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	env := []string{"DATABASE_URL=" + dbURL, "APP_ENV=development", "JWT_SECRET=", "JWT_PREVIOUS_SECRETS="}
	api := start(t, "api", env)

	c := client{t: t, base: api.URL}
	var reg struct {
		AccessToken string `json:"access_token"`
		User        struct {
			ID string `json:"id"`
		} `json:"user"`
	}
	code, raw := c.do("POST", "/auth/register", map[string]any{"email": "victim@example.com", "password": "correct-horse"},
		&reg)
	require.Equal(t, http.StatusCreated, code, raw)
	me := func(token string) int { // on whichever api process runs now
		code, _ := client{t: t, base: api.URL, token: token}.do("GET", "/auth/me", nil, &struct{}{})
		return code
	}
	require.Equal(t, http.StatusOK, me(reg.AccessToken))

	var keyID string
	var secret []byte
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT id, secret FROM signing_keys").Scan(&keyID, &secret))
	require.Len(t, secret, 32)
	var issued auth.Claims
	realKid, _, err := jwt.NewParser().ParseUnverified(reg.AccessToken, &issued)
	require.NoError(t, err)
	require.Equal(t, keyID, realKid.Header["kid"], "the session names the stored key")

	sessionID := issued.ID // the server-side session the registration opened
	forge := func(key []byte, kid string) string {
		claims := auth.Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: reg.User.ID, Issuer: "pilot", ID: sessionID,
			IssuedAt: jwt.NewNumericDate(time.Now()), ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))},
			Type: auth.TypeSession, Version: 1}
		j := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
		if kid != "" {
			j.Header["kid"] = kid
		}
		tok, err := j.SignedString(key)
		require.NoError(t, err)
		return tok
	}
	// The construction is right: with the stored key itself and a live session's id, the token would pass.
	require.Equal(t, http.StatusOK, me(forge(secret, keyID)))
	// Even the stored key cannot make a session up: a token must name a live session row.
	sessionID = "0190c1d2-0000-7000-8000-000000000000"
	require.Equal(t, http.StatusUnauthorized, me(forge(secret, keyID)))
	sessionID = issued.ID
	// Keys that were ever written in code, or that anyone could guess, are refused under every kid.
	for _, constant := range []string{"pilot-development-secret-do-not-use-in-production", "secret", "",
		"e2e-secret-e2e-secret-e2e-secret-e2e"} {
		for _, kid := range []string{"", keyID, auth.StaticKeys([]byte(constant))[0].ID} {
			require.Equal(t, http.StatusUnauthorized, me(forge([]byte(constant), kid)), "key %q kid %q", constant, kid)
		}
	}

	// A restart signs and verifies with the same stored key: the session lives on.
	require.Equal(t, 0, api.terminate(t, 15*time.Second))
	api = start(t, "api", env)
	require.Equal(t, http.StatusOK, me(reg.AccessToken))

	// Rotation adds a key that signs later; the old one keeps verifying.
	cmd := exec.Command(pilotBinary(t), "keys", "rotate")
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "new signing key db-")
	var keys int
	require.NoError(t, pool.QueryRow(context.Background(),
		"SELECT count(*) FROM signing_keys WHERE not_before > now()").Scan(&keys))
	require.Equal(t, 1, keys, "the new key waits for every process to load it")
	require.Equal(t, http.StatusOK, me(reg.AccessToken))

	// With JWT_SECRET set, rotation is the operator's: the command says how.
	cmd = exec.Command(pilotBinary(t), "keys", "rotate")
	cmd.Env = append(cmd.Environ(), "DATABASE_URL="+dbURL, "JWT_SECRET=operator-secret-operator-secret-operator")
	out, err = cmd.CombinedOutput()
	require.Error(t, err)
	require.True(t, strings.Contains(string(out), "JWT_PREVIOUS_SECRETS"), "%s", out)
}

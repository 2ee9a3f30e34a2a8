// Package auth holds Pilot's credential primitives: password hashing, JWTs, personal access token
// secrets, CSRF tokens and TOTP codes. It does no I/O; the api decides when to use which.
package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/alexedwards/argon2id"
	"github.com/golang-jwt/jwt/v5"
	lru "github.com/hashicorp/golang-lru/v2"
)

// passwordParams are fixed so the cost is the same on every host (the library's default parallelism
// follows the CPU count). They follow OWASP's argon2id recommendation: 19 MiB, 2 iterations, 1 lane.
var passwordParams = &argon2id.Params{Memory: 19 * 1024, Iterations: 2, Parallelism: 1, SaltLength: 16, KeyLength: 32}

// HashPassword returns an argon2id hash of password in PHC string format.
func HashPassword(password string) (string, error) {
	h, err := argon2id.CreateHash(password, passwordParams)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return h, nil
}

// CheckPassword reports whether password matches hash, in constant time.
func CheckPassword(password, hash string) bool {
	ok, err := argon2id.ComparePasswordAndHash(password, hash)
	return err == nil && ok
}

// dummyHash is compared against when a login names an unknown e-mail, so that answer takes as long as a
// wrong password and does not reveal which accounts exist.
var dummyHash, _ = HashPassword("pilot-dummy-password")

// BurnPasswordCheck spends the time of one password comparison.
func BurnPasswordCheck(password string) { CheckPassword(password, dummyHash) }

// Token types carried in the "typ" claim.
const (
	TypeSession   = "session"
	TypeTwoFactor = "2fa"
)

// Claims are the claims of Pilot's JWTs.
type Claims struct {
	jwt.RegisteredClaims
	Type string `json:"typ"`
	// Version is the user's session version when the token was issued; a password change bumps it.
	Version int32 `json:"ver"`
}

// Signer issues and verifies HS256 JWTs.
type Signer struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
	// verified remembers tokens whose signature checked out (keyed by the whole token, signature
	// included), so a session's every request does not decode and HMAC it again; expiry and type are
	// still checked on each use.
	verified *lru.Cache[string, Claims]
}

// verifiedTokens is how many verified tokens a Signer remembers (a few MB at most).
const verifiedTokens = 4096

// NewSigner returns a signer whose session tokens live ttl.
func NewSigner(secret []byte, ttl time.Duration) *Signer {
	verified, err := lru.New[string, Claims](verifiedTokens)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &Signer{secret: secret, ttl: ttl, now: time.Now, verified: verified}
}

// TTL is the session token lifetime.
func (s *Signer) TTL() time.Duration { return s.ttl }

// TwoFactorTTL is how long a two-factor token (between password and code) stays valid.
const TwoFactorTTL = 5 * time.Minute

// Issue signs a token of the given type for userID.
func (s *Signer) Issue(userID, typ string, version int32) (string, Claims, error) {
	ttl := s.ttl
	if typ == TypeTwoFactor {
		ttl = TwoFactorTTL
	}
	now := s.now()
	c := Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   userID,
			ID:        RandomString(12),
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
			Issuer:    "pilot",
		},
		Type:    typ,
		Version: version,
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.secret)
	if err != nil {
		return "", c, fmt.Errorf("sign token: %w", err)
	}
	return tok, c, nil
}

// ErrInvalidToken is returned for any token that does not verify.
var ErrInvalidToken = errors.New("invalid or expired token")

// Verify checks a token's signature, expiry and type.
func (s *Signer) Verify(token, typ string) (Claims, error) {
	if c, ok := s.verified.Get(token); ok {
		if c.Type == typ && c.ExpiresAt != nil && s.now().Before(c.ExpiresAt.Time) {
			return c, nil
		}
		return Claims{}, ErrInvalidToken
	}
	var c Claims
	_, err := jwt.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) { return s.secret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithIssuer("pilot"),
		jwt.WithTimeFunc(s.now))
	if err != nil || c.Type != typ || c.Subject == "" {
		return Claims{}, ErrInvalidToken
	}
	s.verified.Add(token, c)
	return c, nil
}

// CSRFToken derives the CSRF token bound to one session (its JWT id), so it needs no storage.
func (s *Signer) CSRFToken(sessionID string) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte("csrf:" + sessionID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CheckCSRF compares a presented CSRF token with the session's, in constant time.
func (s *Signer) CheckCSRF(sessionID, presented string) bool {
	return presented != "" && hmac.Equal([]byte(s.CSRFToken(sessionID)), []byte(presented))
}

// RandomString returns n random bytes, hex encoded.
func RandomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// PATPrefix marks personal access tokens, so they are told apart from JWTs without parsing.
const PATPrefix = "pilot_pat_"

// NewPAT returns a new personal access token secret, its visible prefix and the hash to store.
func NewPAT() (secret, prefix string, hash []byte) {
	secret = PATPrefix + RandomString(24)
	return secret, secret[:len(PATPrefix)+8], HashSecret(secret)
}

// HashSecret hashes a high-entropy secret (token or invitation) for storage and lookup.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// IsPAT reports whether a bearer credential looks like a personal access token.
func IsPAT(token string) bool { return strings.HasPrefix(token, PATPrefix) }

// Scopes a personal access token can carry (spec Part 5).
const (
	ScopeProjectsRead      = "projects:read"
	ScopeProjectsWrite     = "projects:write"
	ScopePilotageRead      = "pilotage:read"
	ScopePilotageWrite     = "pilotage:write"
	ScopeNotificationsRead = "notifications:read"
	ScopeAccountRead       = "account:read"
	ScopeAccountWrite      = "account:write"
)

// AllScopes lists every scope, the default for a new token.
var AllScopes = []string{ScopeProjectsRead, ScopeProjectsWrite, ScopePilotageRead, ScopePilotageWrite,
	ScopeNotificationsRead, ScopeAccountRead, ScopeAccountWrite}

// ValidScope reports whether s is a known scope.
func ValidScope(s string) bool { return slices.Contains(AllScopes, s) }

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
	"sync/atomic"
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
	// TypeDevice marks a device token: the cookie (or header) that a successful sign-in leaves on a
	// browser or client, naming the account (subject) and a random nonce (its id).
	TypeDevice = "device"
)

// Claims are the claims of Pilot's JWTs.
type Claims struct {
	jwt.RegisteredClaims
	Type string `json:"typ"`
	// Version is the user's session version when the token was issued; a password change bumps it.
	Version int32 `json:"ver"`
	// KeyID is the id of the key that signed the token (its "kid" header), not a claim.
	KeyID string `json:"-"`
}

// Key is one HS256 key and the id that JWTs name it by (their "kid" header).
type Key struct {
	ID     string
	Secret []byte
	// NotBefore is when the key starts signing; before then it only verifies, so a rotated key reaches
	// every process before any of them signs with it. The zero time signs at once.
	NotBefore time.Time
	// VerifyOnly keys never sign: a replaced secret kept until its sessions expire.
	VerifyOnly bool
}

// StaticKeys turns configured secrets into keys: secret signs, previous only verify. A key's id is
// derived from its secret, so every process given the same secrets names them the same way.
func StaticKeys(secret []byte, previous ...[]byte) []Key {
	key := func(b []byte, verifyOnly bool) Key {
		h := sha256.Sum256(append([]byte("pilot-kid:"), b...))
		return Key{ID: "env-" + hex.EncodeToString(h[:8]), Secret: b, VerifyOnly: verifyOnly}
	}
	keys := []Key{key(secret, false)}
	for _, p := range previous {
		keys = append(keys, key(p, true))
	}
	return keys
}

// Signer issues and verifies HS256 JWTs with a set of keys: the newest key whose NotBefore has passed
// signs, and every key verifies the tokens that name it. There is no key without a kid and no built-in
// key: a token signed with anything else is refused.
type Signer struct {
	keys atomic.Pointer[keyring]
	ttl  time.Duration
	now  func() time.Time
	// verified remembers tokens whose signature checked out (keyed by the whole token, signature
	// included), so a session's every request does not decode and HMAC it again; expiry and type are
	// still checked on each use, and the key still has to be known.
	verified *lru.Cache[string, Claims]
}

type keyring struct {
	byID   map[string]Key
	sorted []Key // by NotBefore, oldest first
}

// verifiedTokens is how many verified tokens a Signer remembers (a few MB at most).
const verifiedTokens = 4096

// ErrNoKeys is returned when a signer is given no usable key.
var ErrNoKeys = errors.New("no signing key")

// NewSigner returns a signer with keys whose session tokens live ttl.
func NewSigner(keys []Key, ttl time.Duration) (*Signer, error) {
	verified, err := lru.New[string, Claims](verifiedTokens)
	if err != nil {
		panic(err) // only for a size below 1
	}
	s := &Signer{ttl: ttl, now: time.Now, verified: verified}
	if err := s.SetKeys(keys); err != nil {
		return nil, err
	}
	return s, nil
}

// SetKeys replaces the signer's keys (a reload after a rotation). Tokens of a key no longer in the set
// stop verifying.
func (s *Signer) SetKeys(keys []Key) error {
	r := &keyring{byID: make(map[string]Key, len(keys))}
	for _, k := range keys {
		if k.ID == "" || len(k.Secret) == 0 {
			return fmt.Errorf("%w: a key needs an id and a secret", ErrNoKeys)
		}
		r.byID[k.ID] = k
		r.sorted = append(r.sorted, k)
	}
	if !slices.ContainsFunc(r.sorted, func(k Key) bool { return !k.VerifyOnly }) {
		return ErrNoKeys
	}
	slices.SortStableFunc(r.sorted, func(a, b Key) int { return a.NotBefore.Compare(b.NotBefore) })
	if old := s.keys.Swap(r); old != nil {
		for id := range old.byID {
			if _, ok := r.byID[id]; !ok {
				s.verified.Purge() // a key left: forget what it verified
				break
			}
		}
	}
	return nil
}

// signingKey is the newest key that may sign and whose NotBefore has passed (the oldest one that may
// sign if none has yet).
func (s *Signer) signingKey() Key {
	var k Key
	now := s.now()
	for _, c := range s.keys.Load().sorted {
		if !c.VerifyOnly && (k.ID == "" || !c.NotBefore.After(now)) {
			k = c
		}
	}
	return k
}

// SigningKeyID is the id of the key that signs new tokens now.
func (s *Signer) SigningKeyID() string { return s.signingKey().ID }

// TTL is the session token lifetime.
func (s *Signer) TTL() time.Duration { return s.ttl }

// TwoFactorTTL is how long a two-factor token (between password and code) stays valid.
const TwoFactorTTL = 5 * time.Minute

// Issue signs a token of the given type for userID. A session token names no server-side session and
// the api refuses it: sessions are signed by IssueSession.
func (s *Signer) Issue(userID, typ string, version int32) (string, Claims, error) {
	ttl := s.ttl
	if typ == TypeTwoFactor {
		ttl = TwoFactorTTL
	}
	return s.issue(userID, typ, RandomString(12), version, ttl)
}

// DeviceTTL is how long a device token stays valid: a device that signed in to an account keeps being
// known to it for a year (each sign-in renews it).
const DeviceTTL = 365 * 24 * time.Hour

// deviceNonceBytes is a device token's randomness: 128 bits, written as 32 hex digits.
const deviceNonceBytes = 16

// IssueDevice signs a device token for userID at the user's session version, with a fresh random nonce
// (Claims.ID), valid for DeviceTTL. It proves nothing but that this device signed in to the account
// before; it opens no session.
func (s *Signer) IssueDevice(userID string, version int32) (string, Claims, error) {
	return s.issue(userID, TypeDevice, RandomString(deviceNonceBytes), version, DeviceTTL)
}

// IssueSession signs the session token of the server-side session sessionID (its "jti"), valid for the
// signer's TTL; the session row should expire with it (Claims.ExpiresAt).
func (s *Signer) IssueSession(userID, sessionID string, version int32, expires time.Time) (string, Claims, error) {
	return s.issue(userID, TypeSession, sessionID, version, expires.Sub(s.now()))
}

func (s *Signer) issue(userID, typ, id string, version int32, ttl time.Duration) (string, Claims, error) {
	now := s.now()
	c := Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   userID,
			ID:        id,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
			Issuer:    "pilot",
		},
		Type:    typ,
		Version: version,
	}
	key := s.signingKey()
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	t.Header["kid"] = key.ID
	tok, err := t.SignedString(key.Secret)
	c.KeyID = key.ID
	if err != nil {
		return "", c, fmt.Errorf("sign token: %w", err)
	}
	return tok, c, nil
}

// ErrInvalidToken is returned for any token that does not verify.
var ErrInvalidToken = errors.New("invalid or expired token")

// Verify checks a token's signature, expiry and type.
func (s *Signer) Verify(token, typ string) (Claims, error) {
	keys := s.keys.Load()
	if c, ok := s.verified.Get(token); ok {
		if _, known := keys.byID[c.KeyID]; known && c.Type == typ && c.ExpiresAt != nil && s.now().Before(c.ExpiresAt.Time) {
			return c, nil
		}
		return Claims{}, ErrInvalidToken
	}
	var c Claims
	_, err := jwt.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		k, ok := keys.byID[kid]
		if !ok {
			return nil, ErrInvalidToken
		}
		c.KeyID = kid
		return k.Secret, nil
	},
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithIssuer("pilot"),
		jwt.WithTimeFunc(s.now))
	if err != nil || c.Type != typ || c.Subject == "" {
		return Claims{}, ErrInvalidToken
	}
	s.verified.Add(token, c)
	return c, nil
}

// CSRFToken derives the CSRF token bound to one session (its JWT id), with the key that signed the
// session's token, so it needs no storage. It is empty when that key is no longer known.
func (s *Signer) CSRFToken(c Claims) string {
	k, ok := s.keys.Load().byID[c.KeyID]
	if !ok {
		return ""
	}
	m := hmac.New(sha256.New, k.Secret)
	m.Write([]byte("csrf:" + c.ID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CheckCSRF compares a presented CSRF token with the session's, in constant time.
func (s *Signer) CheckCSRF(c Claims, presented string) bool {
	want := s.CSRFToken(c)
	return presented != "" && want != "" && hmac.Equal([]byte(want), []byte(presented))
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

// Scopes a personal access token can carry: one read and one write scope per area (projects,
// pilotage, account), and notifications:read.
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

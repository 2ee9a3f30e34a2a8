package auth

import (
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
)

var testSecret = []byte("auth-test-secret-auth-test-secret")

// newSigner is a signer with secret as its one key.
func newSigner(t *testing.T, secret []byte, ttl time.Duration) *Signer {
	t.Helper()
	s, err := NewSigner(StaticKeys(secret), ttl)
	require.NoError(t, err)
	return s
}

func TestPasswordHashAndCheck(t *testing.T) {
	t.Parallel()
	h1, err := HashPassword("correct-horse")
	require.NoError(t, err)
	h2, err := HashPassword("correct-horse")
	require.NoError(t, err)

	require.True(t, strings.HasPrefix(h1, "$argon2id$v=19$m=19456,t=2,p=1$"), h1)
	require.NotContains(t, h1, "correct-horse")
	require.NotEqual(t, h1, h2, "every hash has its own salt")

	require.True(t, CheckPassword("correct-horse", h1))
	require.True(t, CheckPassword("correct-horse", h2))
	require.False(t, CheckPassword("correct-horsE", h1))
	require.False(t, CheckPassword("", h1))
	require.False(t, CheckPassword("correct-horse", "not-a-hash"))
	require.False(t, CheckPassword("correct-horse", ""))

	// The dummy comparison never matches and never panics.
	BurnPasswordCheck("correct-horse")
	require.False(t, CheckPassword("correct-horse", dummyHash))
}

func TestJWTIssueAndVerify(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret, time.Hour)
	require.Equal(t, time.Hour, s.TTL())

	before := time.Now()
	tok, issued, err := s.Issue("user-1", TypeSession, 3)
	require.NoError(t, err)
	require.Len(t, strings.Split(tok, "."), 3)

	c, err := s.Verify(tok, TypeSession)
	require.NoError(t, err)
	require.Equal(t, "user-1", c.Subject)
	require.Equal(t, TypeSession, c.Type)
	require.Equal(t, int32(3), c.Version)
	require.Equal(t, "pilot", c.Issuer)
	require.Equal(t, issued.ID, c.ID)
	require.NotEmpty(t, c.ID)
	require.WithinDuration(t, before.Add(time.Hour), c.ExpiresAt.Time, 2*time.Second)

	// Each token has its own id.
	tok2, issued2, err := s.Issue("user-1", TypeSession, 3)
	require.NoError(t, err)
	require.NotEqual(t, tok, tok2)
	require.NotEqual(t, issued.ID, issued2.ID)

	// Wrong type.
	_, err = s.Verify(tok, TypeTwoFactor)
	require.ErrorIs(t, err, ErrInvalidToken)

	// Wrong secret, either way round.
	_, err = newSigner(t, []byte("another-secret-another-secret-another"), time.Hour).Verify(tok, TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)
	other, _, err := newSigner(t, []byte("another-secret-another-secret-another"), time.Hour).Issue("user-1", TypeSession,
		3)
	require.NoError(t, err)
	_, err = s.Verify(other, TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)

	// Tampered payload.
	parts := strings.Split(tok, ".")
	forged, _, err := s.Issue("user-2", TypeSession, 3)
	require.NoError(t, err)
	_, err = s.Verify(parts[0]+"."+strings.Split(forged, ".")[1]+"."+parts[2], TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)

	// Garbage.
	for _, g := range []string{"", "garbage", "a.b.c"} {
		_, err = s.Verify(g, TypeSession)
		require.ErrorIs(t, err, ErrInvalidToken, g)
	}
}

func TestJWTExpiry(t *testing.T) {
	t.Parallel()
	expired, _, err := newSigner(t, testSecret, -time.Minute).Issue("user-1", TypeSession, 1)
	require.NoError(t, err)
	_, err = newSigner(t, testSecret, time.Hour).Verify(expired, TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)

	// A two-factor token lives TwoFactorTTL whatever the session lifetime.
	s := newSigner(t, testSecret, 7*24*time.Hour)
	tok, c, err := s.Issue("user-1", TypeTwoFactor, 1)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(TwoFactorTTL), c.ExpiresAt.Time, 2*time.Second)
	_, err = s.Verify(tok, TypeTwoFactor)
	require.NoError(t, err)
	later := newSigner(t, testSecret, 7*24*time.Hour)
	later.now = func() time.Time { return time.Now().Add(TwoFactorTTL + time.Second) }
	_, err = later.Verify(tok, TypeTwoFactor)
	require.ErrorIs(t, err, ErrInvalidToken)
}

// TestDeviceToken: a device token names the user and a fresh nonce, lives DeviceTTL whatever the session
// lifetime, and is neither a session nor a two-factor token (nor the other way round).
func TestDeviceToken(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret, 7*24*time.Hour)
	tok, c, err := s.IssueDevice("user-1", 3)
	require.NoError(t, err)
	require.Equal(t, "user-1", c.Subject)
	require.Equal(t, int32(3), c.Version)
	require.Len(t, c.ID, 2*deviceNonceBytes)
	require.WithinDuration(t, time.Now().Add(DeviceTTL), c.ExpiresAt.Time, 2*time.Second)
	got, err := s.Verify(tok, TypeDevice)
	require.NoError(t, err)
	require.Equal(t, c.ID, got.ID)

	_, again, err := s.IssueDevice("user-1", 3)
	require.NoError(t, err)
	require.NotEqual(t, c.ID, again.ID, "every sign-in gets a nonce of its own")

	for _, typ := range []string{TypeSession, TypeTwoFactor} {
		_, err = s.Verify(tok, typ)
		require.ErrorIs(t, err, ErrInvalidToken, typ)
	}
	session, _, err := s.IssueSession("user-1", "session-1", 3, time.Now().Add(time.Hour))
	require.NoError(t, err)
	_, err = s.Verify(session, TypeDevice)
	require.ErrorIs(t, err, ErrInvalidToken)

	// Another key's device token is refused, and so is one past its year.
	_, err = newSigner(t, []byte("another-secret-another-secret-another"), time.Hour).Verify(tok, TypeDevice)
	require.ErrorIs(t, err, ErrInvalidToken)
	later := newSigner(t, testSecret, 7*24*time.Hour)
	later.now = func() time.Time { return time.Now().Add(DeviceTTL + time.Minute) }
	_, err = later.Verify(tok, TypeDevice)
	require.ErrorIs(t, err, ErrInvalidToken)
}

// sign signs claims with method and key, naming testSecret's key id, for tokens the signer would never
// issue.
func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.Claims) string {
	t.Helper()
	j := jwt.NewWithClaims(method, claims)
	j.Header["kid"] = StaticKeys(testSecret)[0].ID
	tok, err := j.SignedString(key)
	require.NoError(t, err)
	return tok
}

func TestJWTVerifyRefusesForeignShapes(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret, time.Hour)
	good := func() Claims {
		return Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: "user-1", Issuer: "pilot", ID: "x",
			ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}, Type: TypeSession, Version: 1}
	}
	// The construction itself verifies.
	_, err := s.Verify(sign(t, jwt.SigningMethodHS256, testSecret, good()), TypeSession)
	require.NoError(t, err)

	_, err = s.Verify(sign(t, jwt.SigningMethodHS512, testSecret, good()), TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken, "only HS256")
	_, err = s.Verify(sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good()), TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken, "never alg none")

	noExp := good()
	noExp.ExpiresAt = nil
	_, err = s.Verify(sign(t, jwt.SigningMethodHS256, testSecret, noExp), TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken, "expiry is required")

	otherIssuer := good()
	otherIssuer.Issuer = "someone-else"
	_, err = s.Verify(sign(t, jwt.SigningMethodHS256, testSecret, otherIssuer), TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)

	noSubject := good()
	noSubject.Subject = ""
	_, err = s.Verify(sign(t, jwt.SigningMethodHS256, testSecret, noSubject), TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)

	noType := good()
	noType.Type = ""
	_, err = s.Verify(sign(t, jwt.SigningMethodHS256, testSecret, noType), TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)
}

func TestCSRFToken(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret, time.Hour)
	other := newSigner(t, []byte("another-secret-another-secret-another"), time.Hour)
	session := func(s *Signer, id string) Claims {
		c := Claims{KeyID: s.SigningKeyID()}
		c.ID = id
		return c
	}
	sa, sb := session(s, "session-a"), session(s, "session-b")
	a := s.CSRFToken(sa)
	require.NotEmpty(t, a)
	require.Equal(t, a, s.CSRFToken(sa), "derived, so stable")
	require.NotEqual(t, a, s.CSRFToken(sb))
	require.NotEqual(t, a, other.CSRFToken(session(other, "session-a")))
	require.Empty(t, s.CSRFToken(session(other, "session-a")), "a key the signer does not know derives nothing")

	require.True(t, s.CheckCSRF(sa, a))
	require.False(t, s.CheckCSRF(sb, a))
	require.False(t, s.CheckCSRF(sa, ""))
	require.False(t, s.CheckCSRF(sa, a+"x"))
	require.False(t, s.CheckCSRF(Claims{}, ""))
}

func TestSignerNeedsAKeyThatSigns(t *testing.T) {
	t.Parallel()
	_, err := NewSigner(nil, time.Hour)
	require.ErrorIs(t, err, ErrNoKeys)
	_, err = NewSigner([]Key{{ID: "k", Secret: testSecret, VerifyOnly: true}}, time.Hour)
	require.ErrorIs(t, err, ErrNoKeys, "verify-only keys alone cannot sign")
	_, err = NewSigner([]Key{{ID: "", Secret: testSecret}}, time.Hour)
	require.ErrorIs(t, err, ErrNoKeys)
	_, err = NewSigner([]Key{{ID: "k"}}, time.Hour)
	require.ErrorIs(t, err, ErrNoKeys)
}

func TestJWTKeyIDs(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret, time.Hour)
	good := Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: "user-1", Issuer: "pilot", ID: "x",
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}, Type: TypeSession, Version: 1}

	// The right secret without a kid, or under a kid the signer does not have, is refused.
	noKid, err := jwt.NewWithClaims(jwt.SigningMethodHS256, good).SignedString(testSecret)
	require.NoError(t, err)
	_, err = s.Verify(noKid, TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)
	j := jwt.NewWithClaims(jwt.SigningMethodHS256, good)
	j.Header["kid"] = "env-0000000000000000"
	unknown, err := j.SignedString(testSecret)
	require.NoError(t, err)
	_, err = s.Verify(unknown, TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)

	// Ids come from the secrets: the same secret, the same id; another secret, another id.
	require.Equal(t, StaticKeys(testSecret)[0].ID, StaticKeys(testSecret)[0].ID)
	require.NotEqual(t, StaticKeys(testSecret)[0].ID, StaticKeys([]byte("another-secret-another-secret-another"))[0].ID)
	require.NotContains(t, StaticKeys(testSecret)[0].ID, string(testSecret))
}

func TestJWTKeyRotation(t *testing.T) {
	t.Parallel()
	now := time.Now()
	oldKey := Key{ID: "old", Secret: []byte("old-secret-old-secret-old-secret-old")}
	newKey := Key{ID: "new", Secret: []byte("new-secret-new-secret-new-secret-new"), NotBefore: now.Add(2 * time.Minute)}

	s, err := NewSigner([]Key{oldKey}, time.Hour)
	require.NoError(t, err)
	oldTok, oldClaims, err := s.Issue("user-1", TypeSession, 1)
	require.NoError(t, err)
	require.Equal(t, "old", oldClaims.KeyID)

	// Published but not yet signing: the old key signs, the new one already verifies.
	require.NoError(t, s.SetKeys([]Key{oldKey, newKey}))
	require.Equal(t, "old", s.SigningKeyID())
	early, err := NewSigner([]Key{newKey}, time.Hour)
	require.NoError(t, err)
	earlyTok, _, err := early.Issue("user-1", TypeSession, 1) // a process whose clock is ahead
	require.NoError(t, err)
	c, err := s.Verify(earlyTok, TypeSession)
	require.NoError(t, err)
	require.Equal(t, "new", c.KeyID)

	// Once its time has come, the new key signs; the old one still verifies what it signed.
	s.now = func() time.Time { return now.Add(3 * time.Minute) }
	require.Equal(t, "new", s.SigningKeyID())
	_, newClaims, err := s.Issue("user-1", TypeSession, 1)
	require.NoError(t, err)
	require.Equal(t, "new", newClaims.KeyID)
	c, err = s.Verify(oldTok, TypeSession)
	require.NoError(t, err)
	require.Equal(t, "old", c.KeyID)
	require.NotEmpty(t, s.CSRFToken(c), "an old session keeps its CSRF token")

	// Once the old key is dropped, its tokens stop verifying, even those verified before.
	require.NoError(t, s.SetKeys([]Key{newKey}))
	_, err = s.Verify(oldTok, TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken)

	// A verify-only key (a previous JWT_SECRET) verifies but never signs.
	keys := StaticKeys([]byte("current-secret-current-secret-current"), oldKey.Secret)
	require.True(t, keys[1].VerifyOnly)
	env, err := NewSigner(keys, time.Hour)
	require.NoError(t, err)
	require.Equal(t, keys[0].ID, env.SigningKeyID())
	prevTok, _, err := newSigner(t, oldKey.Secret, time.Hour).Issue("user-1", TypeSession, 1)
	require.NoError(t, err)
	_, err = env.Verify(prevTok, TypeSession)
	require.NoError(t, err)
}

func TestPATShape(t *testing.T) {
	t.Parallel()
	secret, prefix, hash := NewPAT()
	require.True(t, strings.HasPrefix(secret, PATPrefix))
	require.Equal(t, "pilot_pat_", PATPrefix)
	require.Len(t, secret, len(PATPrefix)+48, "24 random bytes, hex encoded")
	require.Regexp(t, `^pilot_pat_[0-9a-f]{48}$`, secret)
	require.Equal(t, secret[:len(PATPrefix)+8], prefix)
	require.True(t, strings.HasPrefix(secret, prefix))
	sum := sha256.Sum256([]byte(secret))
	require.Equal(t, sum[:], hash)
	require.Equal(t, hash, HashSecret(secret))
	require.True(t, IsPAT(secret))

	secret2, prefix2, hash2 := NewPAT()
	require.NotEqual(t, secret, secret2)
	require.NotEqual(t, prefix, prefix2)
	require.NotEqual(t, hash, hash2)

	jwtTok, _, err := newSigner(t, testSecret, time.Hour).Issue("user-1", TypeSession, 1)
	require.NoError(t, err)
	require.False(t, IsPAT(jwtTok))
	require.False(t, IsPAT(""))
	require.False(t, IsPAT("pilot_"))
}

func TestScopes(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"projects:read", "projects:write", "pilotage:read", "pilotage:write",
		"notifications:read", "account:read", "account:write"}, AllScopes)
	for _, sc := range AllScopes {
		require.True(t, ValidScope(sc), sc)
	}
	for _, sc := range []string{"", "admin", "projects", "projects:delete", "ACCOUNT:READ"} {
		require.False(t, ValidScope(sc), sc)
	}
}

func TestTOTPCodeMatchesRFC6238(t *testing.T) {
	t.Parallel()
	// RFC 6238 appendix B, SHA-1 secret "12345678901234567890", last six of the eight digits.
	secret := "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
	for unix, want := range map[int64]string{59: "287082", 1111111109: "081804", 1234567890: "005924",
		2000000000: "279037"} {
		code, err := TOTPCode(secret, time.Unix(unix, 0))
		require.NoError(t, err)
		require.Equal(t, want, code, "t=%d", unix)
		step, ok := MatchTOTP(secret, want, time.Unix(unix, 0))
		require.True(t, ok)
		require.Equal(t, unix/30, step)
	}
}

func TestNewTOTP(t *testing.T) {
	t.Parallel()
	secret, url, err := NewTOTP("Pilot", "ann@example.com")
	require.NoError(t, err)
	require.NotEmpty(t, secret)
	require.True(t, strings.HasPrefix(url, "otpauth://totp/"), url)
	require.Contains(t, url, "secret="+secret)
	require.Contains(t, url, "issuer=Pilot")
	other, _, err := NewTOTP("Pilot", "ann@example.com")
	require.NoError(t, err)
	require.NotEqual(t, secret, other)

	code, err := TOTPCode(secret, time.Now())
	require.NoError(t, err)
	_, ok := MatchTOTP(secret, code, time.Now())
	require.True(t, ok)
}

func TestMatchTOTPWindow(t *testing.T) {
	t.Parallel()
	secret := "JBSWY3DPEHPK3PXP"
	// The middle of a step, so ±30s lands on the neighbouring steps.
	const step int64 = 56_666_667
	now := time.Unix(step*30+15, 0)
	codeAt := func(d int64) string {
		c, err := TOTPCode(secret, time.Unix((step+d)*30+15, 0))
		require.NoError(t, err)
		return c
	}
	// The five codes around now differ (fixed secret and time, so this is deterministic).
	seen := map[string]bool{}
	for d := int64(-2); d <= 2; d++ {
		require.False(t, seen[codeAt(d)], "code collision at %d", d)
		seen[codeAt(d)] = true
	}

	for _, d := range []int64{-1, 0, 1} {
		got, ok := MatchTOTP(secret, codeAt(d), now)
		require.True(t, ok, "skew %d", d)
		require.Equal(t, step+d, got, "skew %d", d)
	}
	for _, d := range []int64{-2, 2} {
		got, ok := MatchTOTP(secret, codeAt(d), now)
		require.False(t, ok, "skew %d", d)
		require.Zero(t, got)
	}

	for _, bad := range []string{"", "12345", "1234567", "12ab56", codeAt(0) + "0"} {
		_, ok := MatchTOTP(secret, bad, now)
		require.False(t, ok, bad)
	}
	// A code of another secret does not match.
	otherCode, err := TOTPCode("KRSXG5CTMVRXEZLU", now)
	require.NoError(t, err)
	require.NotContains(t, []string{codeAt(-1), codeAt(0), codeAt(1)}, otherCode, "fixed inputs; pick another secret if "+
		"this ever collides")
	_, ok := MatchTOTP(secret, otherCode, now)
	require.False(t, ok)
}

// A verified token is remembered, but every use still checks its expiry and type, and a token whose
// signature was altered is verified afresh (and refused).
func TestVerifiedTokensStillExpireAndKeepTheirType(t *testing.T) {
	s := newSigner(t, testSecret, time.Hour)
	tok, _, err := s.Issue("user-1", TypeTwoFactor, 1)
	require.NoError(t, err)
	_, err = s.Verify(tok, TypeTwoFactor)
	require.NoError(t, err)
	_, ok := s.verified.Get(tok)
	require.True(t, ok, "a verified token is remembered")
	_, err = s.Verify(tok, TypeSession)
	require.ErrorIs(t, err, ErrInvalidToken, "a remembered token keeps its type")
	tampered := tok[:len(tok)-2] + map[bool]string{true: "AA", false: "BB"}[tok[len(tok)-2:] != "AA"]
	_, err = s.Verify(tampered, TypeTwoFactor)
	require.ErrorIs(t, err, ErrInvalidToken)
	s.now = func() time.Time { return time.Now().Add(TwoFactorTTL + time.Second) }
	_, err = s.Verify(tok, TypeTwoFactor)
	require.ErrorIs(t, err, ErrInvalidToken, "a remembered token still expires")
}

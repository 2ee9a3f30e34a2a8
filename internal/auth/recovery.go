package auth

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
)

// recoveryAlphabet is Crockford's base32 in lower case: no i, l, o or u, so no two symbols look alike
// and a code read aloud or copied by hand survives.
const recoveryAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

var recoveryEncoding = base32.NewEncoding(recoveryAlphabet).WithPadding(base32.NoPadding)

// recoveryCodeBytes is a recovery code's randomness: 80 bits, 16 symbols of five bits. Enough that its
// SHA-256 cannot be searched, so a fast hash stores it safely (HashSecret).
const recoveryCodeBytes = 10

// RecoveryCodeLen is the number of symbols of a recovery code, without its hyphens.
const RecoveryCodeLen = recoveryCodeBytes * 8 / 5

// NewRecoveryCode returns a random one-time recovery code for two-factor authentication, written in
// four groups of four symbols ("7k2m-q9xd-3hbw-e0ta").
func NewRecoveryCode() string {
	b := make([]byte, recoveryCodeBytes)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	s := recoveryEncoding.EncodeToString(b)
	return s[0:4] + "-" + s[4:8] + "-" + s[8:12] + "-" + s[12:16]
}

// NormalizeRecoveryCode reads a recovery code as a person may type it (any case, with or without
// hyphens and spaces, i or l for 1 and o for 0, as Crockford's base32 allows) and answers its
// canonical form, the one HashRecoveryCode hashes; false when s cannot be a recovery code.
func NormalizeRecoveryCode(s string) (string, bool) {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '-' || r == ' ':
			continue
		case r == 'i' || r == 'l':
			r = '1'
		case r == 'o':
			r = '0'
		case !strings.ContainsRune(recoveryAlphabet, r):
			return "", false
		}
		b.WriteRune(r)
	}
	if b.Len() != RecoveryCodeLen {
		return "", false
	}
	return b.String(), true
}

// HashRecoveryCode is the stored form of a recovery code, in whatever form it was typed; false when
// code cannot be a recovery code.
func HashRecoveryCode(code string) ([]byte, bool) {
	canon, ok := NormalizeRecoveryCode(code)
	if !ok {
		return nil, false
	}
	return HashSecret(canon), true
}

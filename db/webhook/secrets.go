package webhook

// This file holds webhook secrets: made at random, shown once as whsec_ and base64, kept sealed with
// AES-GCM under a key derived from the server's secret.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// secretPrefix starts a secret as the Standard Webhooks specification writes it.
const secretPrefix = "whsec_"

// secretBytes is the length of a secret's random key (the specification asks for 24 to 64).
const secretBytes = 32

// developmentServerSecret derives the sealing key outside production when no JWT_SECRET is set: the
// sealed secrets are then only as private as the database. Production requires JWT_SECRET.
const developmentServerSecret = "pilot development server secret: set JWT_SECRET in production"

// newSecret makes a secret's key.
func newSecret() []byte {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return b
}

// formatSecret writes a key as a receiver configures it: whsec_ and its base64.
func formatSecret(key []byte) string { return secretPrefix + base64.StdEncoding.EncodeToString(key) }

// sealer seals secrets with the first of its AEADs and opens them with any (the keys of the previous
// server secrets, after JWT_SECRET was changed).
type sealer struct{ aeads []cipher.AEAD }

// newSealer derives one AES-256-GCM key per server secret (HKDF-SHA256); none: the development key.
func newSealer(serverSecrets [][]byte) (sealer, error) {
	if len(serverSecrets) == 0 {
		serverSecrets = [][]byte{[]byte(developmentServerSecret)}
	}
	var s sealer
	for _, secret := range serverSecrets {
		key, err := hkdf.Key(sha256.New, secret, nil, "pilot webhook secrets", 32)
		if err != nil {
			return s, fmt.Errorf("derive webhook sealing key: %w", err)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return s, fmt.Errorf("webhook sealing cipher: %w", err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return s, fmt.Errorf("webhook sealing cipher: %w", err)
		}
		s.aeads = append(s.aeads, aead)
	}
	return s, nil
}

// seal answers nonce || ciphertext of key.
func (s sealer) seal(key []byte) []byte {
	a := s.aeads[0]
	nonce := make([]byte, a.NonceSize(), a.NonceSize()+len(key)+a.Overhead())
	_, _ = rand.Read(nonce)
	return a.Seal(nonce, nonce, key, nil)
}

// errUnsealable says no server secret opens a sealed secret (JWT_SECRET changed without keeping the
// old one in JWT_PREVIOUS_SECRETS).
var errUnsealable = errors.New("webhook secret: no server secret opens it (was JWT_SECRET changed without " +
	"JWT_PREVIOUS_SECRETS?)")

// open answers the key sealed in b.
func (s sealer) open(b []byte) ([]byte, error) {
	for _, a := range s.aeads {
		if len(b) < a.NonceSize() {
			break
		}
		if key, err := a.Open(nil, b[:a.NonceSize()], b[a.NonceSize():], nil); err == nil {
			return key, nil
		}
	}
	return nil, errUnsealable
}

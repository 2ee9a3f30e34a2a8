package identity

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// SigningKey is a key that signs or verifies session JWTs when none is configured.
type SigningKey struct {
	ID     string
	Secret []byte
	// NotBefore is when the key starts signing; until then it only verifies.
	NotBefore time.Time
}

// signingKeySize is the length of a generated key: HS256's block-sized 256 bits.
const signingKeySize = 32

func newSigningKey() (id string, secret []byte) {
	secret = make([]byte, signingKeySize)
	if _, err := rand.Read(secret); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	kid := make([]byte, 8)
	if _, err := rand.Read(kid); err != nil {
		panic(err)
	}
	return "db-" + hex.EncodeToString(kid), secret
}

// SigningKeys lists the stored signing keys, oldest first, after making a random one if there is none:
// the first process to start creates it, and every process after it reads the same keys.
func (e *Engine) SigningKeys(ctx context.Context) ([]SigningKey, error) {
	var rows []dbsqlc.SigningKey
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		if err := q.SigningKeyLock(ctx); err != nil {
			return err
		}
		id, secret := newSigningKey()
		if err := q.SigningKeyInsertFirst(ctx, dbsqlc.SigningKeyInsertFirstParams{ID: id, Secret: secret}); err != nil {
			return err
		}
		var err error
		rows, err = q.SigningKeyList(ctx)
		return err
	})
	if err != nil {
		return nil, dbcore.Wrap(err, "load signing keys")
	}
	return signingKeys(rows), nil
}

// RotateSigningKey adds a new random key that starts signing after delay (time for every process to
// load it first) and deletes the keys replaced more than keep ago (the session lifetime: nothing they
// signed is still valid). It returns the new key.
func (e *Engine) RotateSigningKey(ctx context.Context, delay, keep time.Duration) (SigningKey, error) {
	var row dbsqlc.SigningKey
	err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
		if err := q.SigningKeyLock(ctx); err != nil {
			return err
		}
		if _, err := q.SigningKeyDeleteSuperseded(ctx, keep.Seconds()); err != nil {
			return err
		}
		id, secret := newSigningKey()
		var err error
		row, err = q.SigningKeyInsert(ctx, dbsqlc.SigningKeyInsertParams{ID: id, Secret: secret, DelaySecs: delay.Seconds()})
		return err
	})
	if err != nil {
		return SigningKey{}, dbcore.Wrap(err, "rotate signing key")
	}
	return signingKeys([]dbsqlc.SigningKey{row})[0], nil
}

func signingKeys(rows []dbsqlc.SigningKey) []SigningKey {
	keys := make([]SigningKey, len(rows))
	for i, r := range rows {
		keys[i] = SigningKey{ID: r.ID, Secret: r.Secret, NotBefore: r.NotBefore}
	}
	return keys
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/config"
)

// keyReloadInterval is how often an api process rereads the stored signing keys; a rotated key starts
// signing two intervals after it is made, so every process has it by then.
const keyReloadInterval = time.Minute

// newSigner signs with JWT_SECRET when it is set (JWT_PREVIOUS_SECRETS still verify); otherwise with
// the random keys kept in the database, made by the first process that starts and reread every
// keyReloadInterval until ctx ends.
func newSigner(ctx context.Context, cfg *config.Config, accounts *identity.Engine,
	logger *slog.Logger) (*auth.Signer, error) {
	if len(cfg.JWTSecret) > 0 {
		return auth.NewSigner(auth.StaticKeys(cfg.JWTSecret, cfg.JWTPreviousSecrets...), cfg.JWTExpiresIn)
	}
	keys, err := storedKeys(ctx, accounts)
	if err != nil {
		return nil, err
	}
	signer, err := auth.NewSigner(keys, cfg.JWTExpiresIn)
	if err != nil {
		return nil, err
	}
	logger.Info("signing sessions with stored random keys (JWT_SECRET unset)", "keys", len(keys), "signing",
		signer.SigningKeyID())
	go func() {
		t := time.NewTicker(keyReloadInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			keys, err := storedKeys(ctx, accounts)
			if err == nil {
				err = signer.SetKeys(keys)
			}
			if err != nil && ctx.Err() == nil {
				logger.Warn("reload signing keys", "error", err)
			}
		}
	}()
	return signer, nil
}

func storedKeys(ctx context.Context, accounts *identity.Engine) ([]auth.Key, error) {
	stored, err := accounts.SigningKeys(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]auth.Key, len(stored))
	for i, k := range stored {
		keys[i] = auth.Key{ID: k.ID, Secret: k.Secret, NotBefore: k.NotBefore}
	}
	return keys, nil
}

// runKeys runs `pilot keys rotate`: a new stored key that signs once every api process has loaded it;
// the keys it replaces verify until their sessions expire. It tells the operator on stdout.
func runKeys(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "rotate" {
		return errors.New("usage: pilot keys rotate")
	}
	if len(cfg.JWTSecret) > 0 {
		return errors.New(
			"JWT_SECRET is set, so sessions are signed with it: to rotate, set JWT_SECRET to a new secret and " +
				"JWT_PREVIOUS_SECRETS to the old one until its sessions expire (JWT_EXPIRES_IN)")
	}
	dbPool, err := openMigrated(ctx, cfg.DatabaseURL, 4)
	if err != nil {
		return err
	}
	defer dbPool.Close()
	key, err := engines.New(dbPool, nil, engines.Options{}).Identity.RotateSigningKey(ctx, 2*keyReloadInterval,
		cfg.JWTExpiresIn)
	if err != nil {
		return err
	}
	logger.Info("signing key rotated", "key", key.ID, "signs_from", key.NotBefore.Format(time.RFC3339))
	_, err = fmt.Fprintf(stdout, "new signing key %s signs from %s; older keys verify until their sessions expire\n",
		key.ID, key.NotBefore.Format(time.RFC3339))
	return err
}

package identity

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/auth"
)

// RecoveryCodeCount is how many recovery codes a user holds after turning two-factor authentication on
// or renewing them.
const RecoveryCodeCount = 10

// EnableTwoFactor turns the user's two-factor authentication on, with the secret SetTOTPSecret left
// waiting, and answers their recovery codes: shown this once, since only their hashes are kept. It is
// ErrConflict when two-factor authentication is already on, ErrInvalid when no secret waits.
func (e *Engine) EnableTwoFactor(ctx context.Context, userID string) ([]string, error) {
	var codes []string
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		n, err := q.UserEnableTOTP(ctx, userID)
		if err != nil {
			return fmt.Errorf("enable totp: %w", err)
		}
		if n == 0 {
			u, err := q.UserGetByID(ctx, userID)
			switch {
			case err != nil:
				return dbcore.Wrap(err, "get user")
			case u.TotpEnabled:
				return dbcore.Conflict("two-factor authentication is already enabled")
			default:
				return dbcore.Invalid("call /auth/2fa/setup first")
			}
		}
		if codes, err = replaceRecoveryCodes(ctx, q, userID); err != nil {
			return err
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditTwoFactorEnabled, ActorID: userID,
			Target: db.AuditTarget{Type: "user", ID: userID}})
	})
	return codes, err
}

// DisableTwoFactor turns the user's two-factor authentication off: it forgets the secret and deletes
// the recovery codes.
func (e *Engine) DisableTwoFactor(ctx context.Context, userID string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if err := q.UserSetTOTPEnabled(ctx, dbsqlc.UserSetTOTPEnabledParams{ID: userID, TotpEnabled: false}); err != nil {
			return fmt.Errorf("disable totp: %w", err)
		}
		if err := q.RecoveryCodesDelete(ctx, userID); err != nil {
			return dbcore.Wrap(err, "delete recovery codes")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditTwoFactorDisabled, ActorID: userID,
			Target: db.AuditTarget{Type: "user", ID: userID}})
	})
}

// RenewRecoveryCodes replaces the user's recovery codes, used or not, with ten new ones, and answers
// them (shown this once). It is ErrConflict when two-factor authentication is off.
func (e *Engine) RenewRecoveryCodes(ctx context.Context, userID string) ([]string, error) {
	var codes []string
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		u, err := q.UserGetByIDForUpdate(ctx, userID)
		if err != nil {
			return dbcore.Wrap(err, "get user")
		}
		if !u.TotpEnabled {
			return dbcore.Conflict("two-factor authentication is not enabled")
		}
		if codes, err = replaceRecoveryCodes(ctx, q, userID); err != nil {
			return err
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditTwoFactorEnabled, ActorID: userID,
			Target: db.AuditTarget{Type: "user", ID: userID}, Changes: map[string]bool{"recoveryCodesRenewed": true}})
	})
	return codes, err
}

func replaceRecoveryCodes(ctx context.Context, q *dbsqlc.Queries, userID string) ([]string, error) {
	if err := q.RecoveryCodesDelete(ctx, userID); err != nil {
		return nil, fmt.Errorf("delete recovery codes: %w", err)
	}
	codes := make([]string, RecoveryCodeCount)
	hashes := make([][]byte, RecoveryCodeCount)
	for i := range codes {
		codes[i] = auth.NewRecoveryCode()
		hashes[i], _ = auth.HashRecoveryCode(codes[i])
	}
	if err := q.RecoveryCodesInsert(ctx, dbsqlc.RecoveryCodesInsertParams{UserID: userID,
		CodeHashes: hashes}); err != nil {
		return nil, fmt.Errorf("insert recovery codes: %w", err)
	}
	return codes, nil
}

// UseRecoveryCode uses up one of the user's recovery codes, as typed; it reports false when code is not
// one of theirs, or was used already.
func (e *Engine) UseRecoveryCode(ctx context.Context, userID, code string) (bool, error) {
	hash, ok := auth.HashRecoveryCode(code)
	if !ok {
		return false, nil
	}
	n, err := e.core.Q.RecoveryCodeUse(ctx, dbsqlc.RecoveryCodeUseParams{UserID: userID, CodeHash: hash})
	if err != nil {
		return false, fmt.Errorf("use recovery code: %w", err)
	}
	return n == 1, nil
}

// RecoveryCodesLeft is the number of the user's unused recovery codes.
func (e *Engine) RecoveryCodesLeft(ctx context.Context, userID string) (int, error) {
	n, err := e.core.Q.RecoveryCodesCount(ctx, userID)
	return int(n), dbcore.Wrap(err, "count recovery codes")
}

// Package identity is the accounts engine: users (registration with a personal organization and
// workspace, profiles, passwords, the second factor and its recovery codes), the e-mailed links that
// reset a password or verify an address, sessions, personal access tokens, the keys that sign
// sessions when none is configured, and the counts of failed sign-ins that lock an account out of
// unknown devices (lockout.go).
package identity

import (
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Engine keeps accounts.
type Engine struct {
	core  *dbcore.Core
	store *db.Store
	audit db.Auditor
}

// New builds the accounts engine on store; auditor records its security events (sign-ins, passwords,
// the second factor, sessions, tokens, single sign-on links) in the audit log.
func New(core *dbcore.Core, store *db.Store, auditor db.Auditor) *Engine {
	return &Engine{core: core, store: store, audit: auditor}
}

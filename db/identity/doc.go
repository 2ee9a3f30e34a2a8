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
}

// New builds the accounts engine on store.
func New(core *dbcore.Core, store *db.Store) *Engine { return &Engine{core: core, store: store} }

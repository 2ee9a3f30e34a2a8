package identity

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
)

// SSOLink is a single sign-on identity linked to (or unlinked from) an account: the provider's name
// ("google", an OIDC issuer's configured name) and the subject it names the person by. Never a token.
type SSOLink struct {
	UserID, Provider, Subject, Email string
}

// RecordSSOLinkTx records in the audit log, in tx (the transaction that links or unlinks the identity),
// that l was linked (linked true) or unlinked: an sso_linked or sso_unlinked account entry naming the
// provider and subject. Single sign-on calls it where it writes the link; a sign-in through single
// sign-on is CreateSession with Method set to the provider's name.
func (e *Engine) RecordSSOLinkTx(ctx context.Context, tx pgx.Tx, l SSOLink, linked bool) error {
	kind := db.AuditSSOUnlinked
	if linked {
		kind = db.AuditSSOLinked
	}
	return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: kind, ActorID: l.UserID,
		Target:  db.AuditTarget{Type: "sso_identity", ID: l.Subject, Name: l.Provider},
		Changes: map[string]string{"provider": l.Provider, "subject": l.Subject, "email": l.Email}})
}

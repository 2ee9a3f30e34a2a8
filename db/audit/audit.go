// Package audit is the audit log engine: it records security and administration events (db.AuditKind)
// in the transaction of the change they describe, lists an organization's or a person's entries by
// keyset, exports them as JSON lines or CSV, and prunes the entries past their retention. The log is
// append-only: the database refuses every update and delete of an entry (migration 00044) but the
// retention job's. docs/audit.md says what is recorded and why.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// Engine keeps the audit log. It implements db.Auditor.
type Engine struct {
	core *dbcore.Core
}

// New builds the audit log engine on core.
func New(core *dbcore.Core) *Engine { return &Engine{core: core} }

var _ db.Auditor = (*Engine)(nil)

// Request is who makes a request and from where: the api's guard puts it in every operation's context
// (WithRequest), so the engines record the caller, the client address and the user agent without every
// signature carrying them.
type Request struct {
	ActorID, ClientIP, UserAgent string
}

type requestKey struct{}

// WithRequest is ctx carrying r.
func WithRequest(ctx context.Context, r Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// RequestFrom is the Request ctx carries (empty when none: a job, a command).
func RequestFrom(ctx context.Context) Request {
	r, _ := ctx.Value(requestKey{}).(Request)
	return r
}

// RecordTx appends e in tx, with the request's client address and user agent, and its caller as the
// actor unless e names one.
func (e *Engine) RecordTx(ctx context.Context, tx pgx.Tx, entry db.AuditEntry) error {
	return record(ctx, dbcore.Queries(tx), entry)
}

// Record appends entry in a transaction of its own: for events that change nothing else in the
// database (a failed sign-in, an export).
func (e *Engine) Record(ctx context.Context, entry db.AuditEntry) error {
	return record(ctx, e.core.Q, entry)
}

func record(ctx context.Context, q *dbsqlc.Queries, entry db.AuditEntry) error {
	if !entry.Kind.Valid() {
		return fmt.Errorf("audit: unknown kind %q", entry.Kind)
	}
	req := RequestFrom(ctx)
	actor := entry.ActorID
	if actor == "" && entry.Kind != db.AuditSignInFailed {
		actor = req.ActorID
	}
	changes := json.RawMessage(`{}`)
	if entry.Changes != nil {
		b, err := json.Marshal(entry.Changes)
		if err != nil {
			return fmt.Errorf("audit: changes: %w", err)
		}
		changes = b
	}
	err := q.AuditInsert(ctx, dbsqlc.AuditInsertParams{ID: dbcore.NewID(),
		OrganizationID: dbcore.Optional(entry.OrganizationID), WorkspaceID: dbcore.Optional(entry.WorkspaceID),
		ProjectID: dbcore.Optional(entry.ProjectID), Kind: string(entry.Kind), ActorID: dbcore.Optional(actor),
		ActorEmail: truncate(entry.ActorEmail, 254), ClientIP: truncate(req.ClientIP, 64),
		UserAgent: truncate(req.UserAgent, 512), TargetType: entry.Target.Type, TargetID: entry.Target.ID,
		TargetName: truncate(entry.Target.Name, 200), Changes: changes})
	return dbcore.Wrap(err, "record audit entry")
}

// truncate cuts s to at most n bytes on a rune boundary: what a client sends (its user agent, an
// address tried) is kept, not refused.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// Filter narrows a list or an export: entries of one actor, of some kinds, at or after Since and
// before Until (zero: no bound).
type Filter struct {
	ActorID      string
	Kinds        []db.AuditKind
	Since, Until time.Time
}

func (f Filter) kinds() []string {
	out := make([]string, len(f.Kinds))
	for i, k := range f.Kinds {
		out[i] = string(k)
	}
	return out
}

func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Lists' names in their cursors.
const (
	orgList     = "audit-log"
	accountList = "account-audit-log"
)

// List is one page of an organization's entries matching f, newest first (at, then id).
func (e *Engine) List(ctx context.Context, orgID string, f Filter, page db.Page) (db.Paged[db.AuditLog], error) {
	after, err := page.AfterTime(orgList, true)
	if err != nil {
		return db.Paged[db.AuditLog]{}, err
	}
	rows, err := e.listOrg(ctx, e.core.Q, orgID, f, after, page.Fetch())
	return db.PageOf(page, orgList, rows, entryKey), err
}

func (e *Engine) listOrg(ctx context.Context, q *dbsqlc.Queries, orgID string, f Filter, after db.TimeKey,
	lim int32) ([]db.AuditLog, error) {
	rows, err := q.AuditListOrg(ctx, dbsqlc.AuditListOrgParams{OrganizationID: &orgID, AfterAt: after.At,
		AfterID: after.ID, ActorID: dbcore.Optional(f.ActorID), Kinds: f.kinds(), Since: optionalTime(f.Since),
		Until: optionalTime(f.Until), Lim: lim})
	return dbcore.MapRows(rows, func(r dbsqlc.AuditLog) db.AuditLog { return db.AuditLog(r) }),
		dbcore.Wrap(err, "list audit log")
}

// ListAccount is one page of a person's account entries (those of no organization) matching f, newest
// first; f.ActorID is ignored.
func (e *Engine) ListAccount(ctx context.Context, userID string, f Filter,
	page db.Page) (db.Paged[db.AuditLog], error) {
	after, err := page.AfterTime(accountList, true)
	if err != nil {
		return db.Paged[db.AuditLog]{}, err
	}
	rows, err := e.core.Q.AuditListAccount(ctx, dbsqlc.AuditListAccountParams{UserID: userID, AfterAt: after.At,
		AfterID: after.ID, Kinds: f.kinds(), Since: optionalTime(f.Since), Until: optionalTime(f.Until),
		Lim: page.Fetch()})
	return db.PageOf(page, accountList,
			dbcore.MapRows(rows, func(r dbsqlc.AuditLog) db.AuditLog { return db.AuditLog(r) }), entryKey),
		dbcore.Wrap(err, "list account audit log")
}

func entryKey(r db.AuditLog) any { return db.TimeKey{At: r.At, ID: r.ID} }

// pruneBatch is how many entries one transaction of Prune deletes.
const pruneBatch = 5000

// Prune deletes the entries recorded before cutoff, in batches, each in a transaction that sets
// pilot.audit_retention locally (the trigger refuses every other delete). It answers how many it deleted.
func (e *Engine) Prune(ctx context.Context, cutoff time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := e.core.InTx(ctx, func(_ pgx.Tx, q *dbsqlc.Queries) error {
			if err := q.AuditAllowRetention(ctx); err != nil {
				return dbcore.Wrap(err, "allow audit retention")
			}
			var err error
			n, err = q.AuditPrune(ctx, dbsqlc.AuditPruneParams{Cutoff: cutoff, Lim: pruneBatch})
			return dbcore.Wrap(err, "prune audit log")
		})
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}

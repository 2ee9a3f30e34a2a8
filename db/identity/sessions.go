package identity

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// NewSession is a session to open for a user who has just proven who they are. Method says how, for
// the audit log's sign_in entry: "password", "two_factor", "registration", "password_change",
// "password_reset" or a single sign-on provider's name.
type NewSession struct {
	UserID, UserAgent, ClientIP string
	ExpiresAt                   time.Time
	Method                      string
}

// CreateSession opens a session; its id is what the session's JWT names. Its device label is derived
// from the User-Agent ("Firefox on Linux", "curl"). The audit log records the sign-in with it.
func (e *Engine) CreateSession(ctx context.Context, in NewSession) (db.Session, error) {
	ua := truncate(in.UserAgent, 512)
	var out db.Session
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.SessionInsert(ctx, dbsqlc.SessionInsertParams{ID: db.NewID(), UserID: in.UserID,
			Device: DeviceLabel(ua), UserAgent: ua, ClientIP: truncate(in.ClientIP, 64), ExpiresAt: in.ExpiresAt})
		if err != nil {
			return dbcore.Wrap(err, "insert session")
		}
		out = db.Session(row)
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditSignIn, ActorID: in.UserID,
			Target:  db.AuditTarget{Type: "session", ID: out.ID, Name: out.Device},
			Changes: map[string]string{"method": in.Method}})
	})
	return out, err
}

// SignInFailure is a refused sign-in: Email the address tried, UserID its account ("" when none uses
// it), Reason why it was refused ("password", "two_factor", or a single sign-on provider's error).
type SignInFailure struct {
	Email, UserID, Reason string
}

// RecordSignInFailure records a refused sign-in in the audit log, with no actor (nobody proved who they
// are) and the account as its target, so that the account's owner sees it in their account's log. It
// changes nothing else, so it has a transaction of its own.
func (e *Engine) RecordSignInFailure(ctx context.Context, f SignInFailure) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditSignInFailed, ActorEmail: f.Email,
			Target: db.AuditTarget{Type: "user", ID: f.UserID, Name: f.Email}, Changes: map[string]string{"reason": f.Reason}})
	})
}

// SessionUser is the user of an active session of theirs (not revoked, not expired); any other
// session is ErrNotFound.
func (e *Engine) SessionUser(ctx context.Context, sessionID, userID string) (db.User, error) {
	row, err := e.core.Q.SessionUser(ctx, dbsqlc.SessionUserParams{SessionID: sessionID, UserID: userID})
	if dbcore.IsNotFound(err) {
		return db.User{}, dbcore.NotFound("session not found")
	}
	return db.User(row.User), dbcore.Wrap(err, "get session user")
}

// TouchSession records that a session was used; it writes at most once a minute per session.
func (e *Engine) TouchSession(ctx context.Context, sessionID string) error {
	return dbcore.Wrap(e.core.Q.SessionTouch(ctx, sessionID), "touch session")
}

// Sessions lists a user's active sessions, the newest first.
func (e *Engine) Sessions(ctx context.Context, userID string) ([]db.Session, error) {
	rows, err := e.core.Q.SessionListActive(ctx, userID)
	return dbcore.MapRows(rows, func(r dbsqlc.Session) db.Session { return db.Session(r) }), dbcore.Wrap(err,
		"list sessions")
}

// RevokeSession ends one of the user's active sessions; another user's, an ended or an unknown one is
// ErrNotFound.
func (e *Engine) RevokeSession(ctx context.Context, userID, sessionID string) error {
	return e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		n, err := q.SessionRevoke(ctx, dbsqlc.SessionRevokeParams{ID: sessionID, UserID: userID})
		if err != nil {
			return fmt.Errorf("revoke session: %w", err)
		}
		if n == 0 {
			return dbcore.NotFound("session not found")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditSessionEnded, ActorID: userID,
			Target: db.AuditTarget{Type: "session", ID: sessionID}})
	})
}

// RevokeOtherSessions ends every active session of the user but keep; it answers how many ended.
func (e *Engine) RevokeOtherSessions(ctx context.Context, userID, keep string) (int64, error) {
	var n int64
	err := e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		n, err = q.SessionRevokeOthers(ctx, dbsqlc.SessionRevokeOthersParams{UserID: userID, KeepID: keep})
		if err != nil || n == 0 {
			return dbcore.Wrap(err, "revoke other sessions")
		}
		return e.audit.RecordTx(ctx, tx, db.AuditEntry{Kind: db.AuditSessionEnded, ActorID: userID,
			Target: db.AuditTarget{Type: "session"}, Changes: map[string]any{"allBut": keep, "ended": n}})
	})
	return n, err
}

// DeleteEndedSessions deletes the sessions that were revoked or expired before cutoff.
func (e *Engine) DeleteEndedSessions(ctx context.Context, cutoff time.Time) (int64, error) {
	n, err := e.core.Q.SessionDeleteEnded(ctx, cutoff)
	return n, dbcore.Wrap(err, "delete ended sessions")
}

// DeviceLabel names the device a User-Agent describes, for people choosing which session to end:
// "Firefox on Linux", "Safari on iOS", "curl"; an empty or unknown agent is "Unknown device".
func DeviceLabel(userAgent string) string {
	ua := strings.ToLower(userAgent)
	if ua == "" {
		return "Unknown device"
	}
	browser := ""
	for _, b := range []struct{ token, name string }{
		{"edg/", "Edge"}, {"opr/", "Opera"}, {"firefox/", "Firefox"}, {"chromium/", "Chromium"}, {"chrome/", "Chrome"},
		{"safari/", "Safari"}, {"curl/", "curl"}, {"wget/", "Wget"}, {"httpie/", "HTTPie"}, {"postmanruntime/", "Postman"},
		{"go-http-client/", "Go client"}, {"python-requests/", "Python requests"}, {"node", "Node.js"},
	} {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	system := ""
	for _, o := range []struct{ token, name string }{
		{"iphone", "iOS"}, {"ipad", "iPadOS"}, {"android", "Android"}, {"windows", "Windows"}, {"mac os x", "macOS"},
		{"macintosh", "macOS"}, {"cros", "ChromeOS"}, {"linux", "Linux"},
	} {
		if strings.Contains(ua, o.token) {
			system = o.name
			break
		}
	}
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "":
		return browser
	case system != "":
		return "A browser on " + system
	}
	return truncate(userAgent, 60)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/internal/oidctest"
)

// auditLog reads every entry of org's audit log matching query, following the pages.
func (e *testEnv) auditLog(token, org, query string) []AuditEntryOut {
	e.t.Helper()
	return e.auditPages(token, "/organizations/"+org+"/audit-log?limit=200&"+query)
}

func (e *testEnv) auditPages(token, next string) []AuditEntryOut {
	e.t.Helper()
	var all []AuditEntryOut
	for next != "" {
		r := e.do("GET", next, token, nil)
		requireStatus(e.t, r, http.StatusOK)
		all = append(all, decode[[]AuditEntryOut](e.t, r)...)
		next = ""
		if l := r.Header.Get("Link"); l != "" {
			next = strings.TrimPrefix(strings.SplitN(l, ">", 2)[0], "<")
		}
	}
	return all
}

// findAudit is the newest entry of kind whose target is targetID ("" matches any), or fails.
func findAudit(t *testing.T, entries []AuditEntryOut, kind db.AuditKind, targetID string) AuditEntryOut {
	t.Helper()
	for _, en := range entries {
		if en.Kind == kind && (targetID == "" || en.TargetID == targetID) {
			return en
		}
	}
	require.Failf(t, "no audit entry", "kind %s target %q in %+v", kind, targetID, entries)
	return AuditEntryOut{}
}

// TestAuditLogRecordsEachKind does each audited action through HTTP, then finds its entry in the
// organization's audit log (or the account's), with the actor, the client address and user agent, the
// target and what changed; refused changes record nothing. Every kind (db.AuditKinds) has its case:
// a new kind fails this test until it has one.
func TestAuditLogRecordsEachKind(t *testing.T) {
	t.Parallel()
	op := oidctest.Start(t, []oidctest.User{opEve}, oidcCallback)
	e := oidcEnv(t, op, nil)
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	ws := wsOf(ann)
	prj, _ := e.project(ann, "Launch")
	pid := path.Base(prj)
	asAnn := func(method, p string, body any) *resp {
		return e.send(req{Method: method, Path: p, Token: ann.Token, Body: body, RemoteAddr: "198.51.100.7:4000",
			Header: map[string]string{"User-Agent": "audit-test/1"}})
	}
	created := func(r *resp) *resp { requireStatus(t, r, http.StatusCreated); return r }
	ok := func(r *resp) *resp { require.Less(t, r.Code, 300, "body: %s", r.Body); return r }

	type tc struct {
		kind    db.AuditKind
		account bool // an account event: read at /auth/audit-log
		do      func() (targetID string)
		check   func(t *testing.T, en AuditEntryOut)
	}
	var hookID, inviteToken, pipelineID, secret, ruleID, tfaSecret, identityID string
	fromAnn := func(r req) *resp {
		r.RemoteAddr, r.Header = "198.51.100.7:4000", map[string]string{"User-Agent": "audit-test/1",
			"Accept": "text/html"}
		return e.send(r)
	}
	cases := []tc{
		{kind: db.AuditTwoFactorEnabled, account: true, do: func() string {
			r := asAnn("POST", "/auth/2fa/setup", nil)
			requireStatus(t, r, http.StatusOK)
			tfaSecret = tfaSetup(t, r).Body.Secret
			ok(asAnn("POST", "/auth/2fa/enable", map[string]any{"password": identPassword,
				"code": tfaCode(t, tfaSecret, time.Now())}))
			return ann.ID
		}},
		{kind: db.AuditTwoFactorDisabled, account: true, do: func() string {
			ok(asAnn("POST", "/auth/2fa/disable", map[string]any{"password": identPassword,
				"code": tfaCode(t, tfaSecret, time.Now().Add(30*time.Second))}))
			return ann.ID
		}},
		{kind: db.AuditSSOLinked, account: true, do: func() string {
			r := asAnn("POST", "/auth/identities/link", map[string]any{"provider": "corp"})
			requireStatus(t, r, http.StatusOK)
			back, err := op.SignIn(context.Background(), oidctest.Browser(), decode[OIDCLinkOut](t, r).URL,
				opEve.Username, opEve.Password)
			require.NoError(t, err)
			r = fromAnn(req{Method: "GET", Path: back.RequestURI(), Cookies: []*http.Cookie{cookieOf(r, oidcStateCookie),
				{Name: sessionCookie, Value: ann.Token}}})
			require.Equal(t, http.StatusFound, r.Code, "body: %s", r.Body)
			identityID = decode[[]IdentityOut](t, asAnn("GET", "/auth/identities", nil))[0].ID
			return opEve.ID
		}, check: func(t *testing.T, en AuditEntryOut) { require.Equal(t, "corp", en.TargetName) }},
		{kind: db.AuditSSOUnlinked, account: true, do: func() string {
			ok(asAnn("DELETE", "/auth/identities/"+identityID, nil))
			return opEve.ID
		}},
		{kind: db.AuditTokenCreated, account: true, do: func() string {
			tok := decode[CreatedTokenOut](t, created(asAnn("POST", "/api-tokens",
				map[string]any{"name": "ci", "scopes": []string{"projects:read"}})))
			secret = tok.Token
			return tok.ID
		}, check: func(t *testing.T, en AuditEntryOut) {
			require.Equal(t, "ci", en.TargetName)
			require.NotContains(t, jsonText(t, en.Changes), secret, "the secret is never recorded")
		}},
		{kind: db.AuditTokenRevoked, account: true, do: func() string {
			id := decode[CreatedTokenOut](t, created(asAnn("POST", "/api-tokens",
				map[string]any{"name": "old", "scopes": []string{"projects:read"}}))).ID
			ok(asAnn("DELETE", "/api-tokens/"+id, nil))
			return id
		}},
		{kind: db.AuditWebhookCreated, do: func() string {
			r := created(asAnn("POST", ws+"/webhooks", map[string]any{"url": "https://hooks.example.com/a",
				"events": []string{"card_created"}}))
			h := decode[WebhookWithSecretOut](t, r)
			hookID, secret = h.ID, h.Secret
			return hookID
		}, check: func(t *testing.T, en AuditEntryOut) {
			require.Equal(t, "https://hooks.example.com/a", en.TargetName)
			require.NotContains(t, jsonText(t, en.Changes), secret, "the secret is never recorded")
		}},
		{kind: db.AuditWebhookChanged, do: func() string {
			ok(asAnn("PATCH", ws+"/webhooks/"+hookID, map[string]any{"enabled": false}))
			return hookID
		}, check: func(t *testing.T, en AuditEntryOut) {
			require.Equal(t, true, en.Changes["before"].(map[string]any)["enabled"])
			require.Equal(t, false, en.Changes["after"].(map[string]any)["enabled"])
		}},
		{kind: db.AuditWebhookDeleted, do: func() string { ok(asAnn("DELETE", ws+"/webhooks/"+hookID, nil)); return hookID }},
		{kind: db.AuditAutomationCreated, do: func() string {
			return decode[RuleOut](t, created(asAnn("POST", prj+"/automations", map[string]any{"name": "Prioritise",
				"trigger": "task_created", "action": map[string]any{"type": "set_priority", "priority": "high"}}))).ID
		}},
		{kind: db.AuditAutomationChanged, do: func() string {
			ruleID = decode[RuleOut](t, created(asAnn("POST", prj+"/automations", map[string]any{"name": "Triage",
				"trigger": "task_created", "action": map[string]any{"type": "set_priority", "priority": "high"}}))).ID
			ok(asAnn("PATCH", prj+"/automations/"+ruleID, map[string]any{"name": "Triage all"}))
			return ruleID
		}},
		{kind: db.AuditAutomationDeleted, do: func() string {
			id := decode[RuleOut](t, created(asAnn("POST", prj+"/automations", map[string]any{"name": "Gone",
				"trigger": "task_created", "action": map[string]any{"type": "set_priority", "priority": "low"}}))).ID
			ok(asAnn("DELETE", prj+"/automations/"+id, nil))
			return id
		}},
		{kind: db.AuditPipelineCreated, do: func() string {
			pipelineID = decode[PipelineOut](t, created(asAnn("POST", ws+"/pipelines", map[string]any{"name": "Release",
				"steps": []pstep{notifyStep("a", pid)}}))).ID
			return pipelineID
		}},
		{kind: db.AuditPipelineChanged, do: func() string {
			ok(asAnn("PATCH", ws+"/pipelines/"+pipelineID, map[string]any{"name": "Ship"}))
			return pipelineID
		}, check: func(t *testing.T, en AuditEntryOut) {
			require.Equal(t, "Release", en.Changes["before"].(map[string]any)["name"])
			require.Equal(t, "Ship", en.Changes["after"].(map[string]any)["name"])
		}},
		{kind: db.AuditPipelineDeleted, do: func() string {
			ok(asAnn("DELETE", ws+"/pipelines/"+pipelineID, nil))
			return pipelineID
		}},
		{kind: db.AuditPluginInstalled, do: func() string {
			created(asAnn("POST", ws+"/plugins/email-digest/install",
				map[string]any{"settings": map[string]any{"subjectPrefix": "[x]"}}))
			return "email-digest"
		}, check: func(t *testing.T, en AuditEntryOut) {
			require.NotContains(t, jsonText(t, en.Changes), "[x]", "setting values are never recorded")
		}},
		{kind: db.AuditPluginSettingsChange, do: func() string {
			ok(asAnn("PATCH", ws+"/plugins/email-digest", map[string]any{"settings": map[string]any{"subjectPrefix": "[y]"}}))
			return "email-digest"
		}, check: func(t *testing.T, en AuditEntryOut) {
			require.NotContains(t, jsonText(t, en.Changes), "[y]", "setting values are never recorded")
		}},
		{kind: db.AuditPluginUninstalled, do: func() string {
			ok(asAnn("DELETE", ws+"/plugins/email-digest", nil))
			return "email-digest"
		}},
		{kind: db.AuditProjectExported, do: func() string { ok(asAnn("GET", prj+"/export", nil)); return pid }},
		{kind: db.AuditProjectImported, do: func() string {
			doc := e.do("GET", prj+"/export", ann.Token, nil)
			return decode[ProjectOut](t, created(asAnn("POST", ws+"/projects/import", json.RawMessage(doc.Body)))).ID
		}},
		{kind: db.AuditProjectDeleted, do: func() string {
			doomed, _ := e.project(ann, "Doomed")
			ok(asAnn("DELETE", doomed, nil))
			return path.Base(doomed)
		}},
		{kind: db.AuditMemberInvited, do: func() string {
			r := created(asAnn("POST", ws+"/members/invite", map[string]any{"email": bob.Email, "role": "member"}))
			inv := decode[InvitationOut](t, r)
			inviteToken = inv.Token
			return inv.ID
		}, check: func(t *testing.T, en AuditEntryOut) { require.Equal(t, bob.Email, en.TargetName) }},
		{kind: db.AuditInvitationRevoked, do: func() string {
			inv := decode[InvitationOut](t, created(asAnn("POST", ws+"/members/invite",
				map[string]any{"email": "carol@example.com", "role": "member"})))
			ok(asAnn("DELETE", ws+"/invitations/"+inv.ID, nil))
			return inv.ID
		}, check: func(t *testing.T, en AuditEntryOut) { require.Equal(t, "carol@example.com", en.TargetName) }},
		{kind: db.AuditMemberAdded, do: func() string {
			requireStatus(t, e.send(req{Method: "POST", Path: "/invitations/" + inviteToken + "/accept", Token: bob.Token,
				RemoteAddr: "198.51.100.7:4000", Header: map[string]string{"User-Agent": "audit-test/1"}}), http.StatusOK)
			return bob.ID
		}, check: func(t *testing.T, en AuditEntryOut) { require.Equal(t, bob.ID, *en.ActorID) }},
		{kind: db.AuditMemberChanged, do: func() string {
			ok(asAnn("PATCH", ws+"/members/"+bob.ID, map[string]any{"role": "admin"}))
			return bob.ID
		}, check: func(t *testing.T, en AuditEntryOut) {
			require.Equal(t, "member", en.Changes["before"].(map[string]any)["role"])
			require.Equal(t, "admin", en.Changes["after"].(map[string]any)["role"])
		}},
		{kind: db.AuditMemberRemoved, do: func() string {
			ok(asAnn("DELETE", ws+"/members/"+bob.ID, nil))
			return bob.ID
		}},
		{kind: db.AuditPasswordChanged, account: true, do: func() string {
			r := asAnn("POST", "/auth/change-password", map[string]any{"currentPassword": "correct-horse",
				"newPassword": "battery-staple"})
			requireStatus(t, r, http.StatusOK)
			ann.Token = decode[SessionBody](t, r).AccessToken
			return ann.ID
		}},
		{kind: db.AuditSignIn, account: true, do: func() string {
			r := e.send(req{Method: "POST", Path: "/auth/login", Body: map[string]any{"email": ann.Email,
				"password": "battery-staple"}, RemoteAddr: "198.51.100.7:4000",
				Header: map[string]string{"User-Agent": "audit-test/1"}})
			requireStatus(t, r, http.StatusOK)
			return ""
		}, check: func(t *testing.T, en AuditEntryOut) { require.Equal(t, "password", en.Changes["method"]) }},
		{kind: db.AuditSignInFailed, account: true, do: func() string {
			r := e.send(req{Method: "POST", Path: "/auth/login", Body: map[string]any{"email": ann.Email,
				"password": "wrong-password"}, RemoteAddr: "198.51.100.7:4000",
				Header: map[string]string{"User-Agent": "audit-test/1"}})
			requireStatus(t, r, http.StatusUnauthorized)
			return ann.ID
		}, check: func(t *testing.T, en AuditEntryOut) {
			require.Nil(t, en.ActorID, "nobody proved who they are")
			require.Equal(t, ann.Email, en.ActorEmail)
		}},
		{kind: db.AuditPasswordReset, account: true, do: func() string {
			ok(asAnn("POST", "/auth/forgot-password", map[string]any{"email": ann.Email}))
			ok(fromAnn(req{Method: "POST", Path: "/auth/reset-password", Body: map[string]any{
				"token": e.resetToken(ann.Email), "newPassword": "battery-staple"}}))
			// The reset ended every session: Ann signs in again.
			r := e.do("POST", "/auth/login", "", map[string]any{"email": ann.Email, "password": "battery-staple"})
			requireStatus(t, r, http.StatusOK)
			ann.Token = decode[SessionBody](t, r).AccessToken
			return ann.ID
		}},
		{kind: db.AuditSessionEnded, account: true, do: func() string {
			r := e.do("POST", "/auth/login", "", map[string]any{"email": ann.Email, "password": "battery-staple"})
			requireStatus(t, r, http.StatusOK)
			ok(e.send(req{Method: "POST", Path: "/auth/logout", Token: decode[SessionBody](t, r).AccessToken,
				RemoteAddr: "198.51.100.7:4000", Header: map[string]string{"User-Agent": "audit-test/1"}}))
			return ""
		}},
	}
	tested := map[db.AuditKind]bool{}
	for _, c := range cases {
		tested[c.kind] = true
		target := c.do()
		var entries []AuditEntryOut
		if c.account {
			entries = e.auditPages(ann.Token, "/auth/audit-log?limit=200")
		} else {
			entries = e.auditLog(ann.Token, ann.OrgSlug, "")
		}
		en := findAudit(t, entries, c.kind, target)
		require.Equal(t, "198.51.100.7", en.ClientIP, "kind %s", c.kind)
		require.Equal(t, "audit-test/1", en.UserAgent, "kind %s", c.kind)
		if c.kind != db.AuditSignInFailed && c.kind != db.AuditMemberAdded {
			require.NotNil(t, en.ActorID, "kind %s", c.kind)
			require.Equal(t, ann.ID, *en.ActorID, "kind %s", c.kind)
		}
		if c.account {
			require.Nil(t, en.OrganizationID, "kind %s", c.kind)
		} else {
			require.NotNil(t, en.OrganizationID, "kind %s", c.kind)
		}
		if c.check != nil {
			c.check(t, en)
		}
	}

	// Organization role changes and deletions: in a team organization.
	org := decode[OrganizationOut](t, created(asAnn("POST", "/organizations",
		map[string]any{"name": "Acme", "slug": "acme"})))
	e.workspace(ann, "acme", "eng")
	e.join(ann, bob, "acme", "eng", "member")
	ok(asAnn("PATCH", "/organizations/acme/members/"+bob.ID, map[string]any{"role": "admin"}))
	en := findAudit(t, e.auditLog(ann.Token, "acme", ""), db.AuditMemberChanged, bob.ID)
	require.Equal(t, "admin", en.Changes["after"].(map[string]any)["role"])
	ok(asAnn("DELETE", "/orgs/acme/workspaces/eng", nil))
	findAudit(t, e.auditLog(ann.Token, "acme", ""), db.AuditWorkspaceDeleted, "")
	ok(asAnn("DELETE", "/organizations/acme", nil))
	require.Equal(t, 1, e.count(`SELECT count(*) FROM audit_log WHERE kind = 'organization_deleted'
		AND organization_id = $1 AND actor_id = $2`, org.ID, ann.ID))
	tested[db.AuditWorkspaceDeleted], tested[db.AuditOrganizationDeleted] = true, true

	// Refused changes record nothing: a member or a hook that is not there, a bad body, a wrong code.
	before := e.count(`SELECT count(*) FROM audit_log`)
	refused := func(r *resp) {
		t.Helper()
		require.True(t, r.Code >= 400 && r.Code < 500, "refused: %d %s", r.Code, r.Body)
	}
	refused(asAnn("PATCH", ws+"/members/"+bob.ID, map[string]any{"role": "admin"}))
	refused(asAnn("PATCH", ws+"/webhooks/"+hookID, map[string]any{"enabled": true}))
	refused(asAnn("PATCH", prj+"/automations/"+ruleID, map[string]any{"name": ""}))
	refused(asAnn("PATCH", ws+"/plugins/email-digest", map[string]any{"settings": map[string]any{}}))
	refused(asAnn("DELETE", ws+"/pipelines/"+pipelineID, nil))
	refused(asAnn("POST", "/auth/2fa/disable", map[string]any{"password": "battery-staple", "code": "000000"}))
	refused(asAnn("DELETE", "/auth/identities/"+identityID, nil))
	require.Equal(t, before, e.count(`SELECT count(*) FROM audit_log`), "a refused change leaves no entry")

	for _, k := range db.AuditKinds {
		require.True(t, tested[k], "kind %s has no case here", k)
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestAuditLogAccessFiltersAndPages(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	bob := e.register("bob@example.com")
	ws := wsOf(ann)
	e.join(ann, bob, ann.OrgSlug, ann.WsSlug, "admin")
	for _, u := range []string{"https://hooks.example.com/1", "https://hooks.example.com/2",
		"https://hooks.example.com/3"} {
		requireStatus(t, e.do("POST", ws+"/webhooks", ann.Token, map[string]any{"url": u,
			"events": []string{"card_created"}}), http.StatusCreated)
	}
	requireStatus(t, e.do("POST", ws+"/webhooks", bob.Token, map[string]any{"url": "https://hooks.example.com/b",
		"events": []string{"card_created"}}),
		http.StatusCreated)

	// Workspace admins who are organization members only are refused; another organization's caller
	// finds nothing.
	requireStatus(t, e.do("GET", "/organizations/"+ann.OrgSlug+"/audit-log", bob.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("GET", "/organizations/"+bob.OrgSlug+"/audit-log", ann.Token, nil), http.StatusNotFound)
	// A token needs the scope.
	requireStatus(t, e.do("GET", "/organizations/"+ann.OrgSlug+"/audit-log", e.pat(ann, []string{"account:read"}), nil),
		http.StatusForbidden)

	// Pages of one follow each other, newest first, without repeating.
	paged := e.auditPages(ann.Token, "/organizations/"+ann.OrgSlug+"/audit-log?limit=1&kind=webhook_created")
	require.Len(t, paged, 4)
	require.Equal(t, "https://hooks.example.com/b", paged[0].TargetName)
	require.Equal(t, "https://hooks.example.com/1", paged[3].TargetName)

	require.Len(t, e.auditLog(ann.Token, ann.OrgSlug, "actor="+bob.ID+"&kind=webhook_created"), 1)
	require.Len(t, e.auditLog(ann.Token, ann.OrgSlug, "kind=webhook_deleted"), 0)
	future := url.QueryEscape("2999-01-01T00:00:00Z")
	require.Empty(t, e.auditLog(ann.Token, ann.OrgSlug, "kind=webhook_created&since="+future))
	require.Len(t, e.auditLog(ann.Token, ann.OrgSlug, "kind=webhook_created&until="+future), 4)

	for _, bad := range []string{"kind=nonsense", "actor=nope", "since=yesterday", "cursor=nope",
		"since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", "limit=0"} {
		requireStatus(t, e.do("GET", "/organizations/"+ann.OrgSlug+"/audit-log?"+bad, ann.Token, nil),
			http.StatusBadRequest)
	}
	// No operation changes an entry.
	requireStatus(t, e.undocumented("DELETE", "/organizations/"+ann.OrgSlug+"/audit-log", ann.Token),
		http.StatusMethodNotAllowed)
}

func TestAuditLogExport(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	ws := wsOf(ann)
	for _, u := range []string{"https://hooks.example.com/1", "https://hooks.example.com/2"} {
		requireStatus(t, e.do("POST", ws+"/webhooks", ann.Token, map[string]any{"url": u,
			"events": []string{"card_created"}}), http.StatusCreated)
	}
	base := "/organizations/" + ann.OrgSlug + "/audit-log/export?kind=webhook_created"

	r := e.do("GET", base, ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "application/x-ndjson", r.Header.Get("Content-Type"))
	require.Contains(t, r.Header.Get("Content-Disposition"), "audit-log.jsonl")
	var lines []audit.Line
	for _, l := range bytes.Split(bytes.TrimSpace(r.Body), []byte("\n")) {
		var got audit.Line
		require.NoError(t, json.Unmarshal(l, &got))
		lines = append(lines, got)
	}
	require.Len(t, lines, 2)
	require.Equal(t, "https://hooks.example.com/2", lines[0].TargetName)
	require.Equal(t, ann.ID, lines[0].ActorID)

	r = e.do("GET", base+"&format=csv", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, "text/csv; charset=utf-8", r.Header.Get("Content-Type"))
	rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3)
	require.Equal(t, audit.CSVHeader, rows[0])
	require.Equal(t, "https://hooks.example.com/1", rows[2][11])

	requireStatus(t, e.do("GET", base+"&format=xml", ann.Token, nil), http.StatusBadRequest)
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// testJWTSecret signs the test servers' tokens.
var testJWTSecret = []byte("test-secret-test-secret-test-secret")

// testSigner is a signer whose tokens live ttl, with secret as its one key.
func testSigner(secret []byte, ttl time.Duration) *auth.Signer {
	s, err := auth.NewSigner(auth.StaticKeys(secret), ttl)
	if err != nil {
		panic(err) // a non-empty secret is always a usable key
	}
	return s
}

// sessionToken opens a server-side session for userID in store and signs its JWT with secret, of the
// given session version, expiring after ttl (negative: already expired).
func sessionToken(t testing.TB, accounts *identity.Engine, secret []byte, userID string, version int32,
	ttl time.Duration) string {
	t.Helper()
	expires := time.Now().Add(ttl)
	sess, err := accounts.CreateSession(context.Background(), identity.NewSession{UserID: userID, UserAgent: "test",
		ExpiresAt: expires})
	require.NoError(t, err)
	tok, _, err := testSigner(secret, time.Hour).IssueSession(userID, sess.ID, version, expires)
	require.NoError(t, err)
	return tok
}

// testEnv is one test's server on its own database.
type testEnv struct {
	t       *testing.T
	handler http.Handler
	eng     *engines.Engines
	pool    *pgxpool.Pool
	river   *river.Client[pgx.Tx] // insert-only, as the api process's: tests list jobs through it
	signer  *auth.Signer
	access  *accesscache.Cache
	// httpURL is the handler served over HTTP, once a test asked for it (mcpURL).
	httpURL string
	// logs holds what the server logged at warn and above (a 503's cause, say), for failure messages.
	logs *serverLog
}

// serverLog is a log destination that handlers on many goroutines write to.
type serverLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *serverLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *serverLog) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type setupOpts struct {
	production        bool
	loginRateLimit    int
	registerRateLimit int
	// options, when set, changes the Options the handler is built with.
	options func(*Options)
}

// setup builds the real api handler on testfactory's store: a fresh database with an insert-only River
// client, as the api process has.
func setup(t *testing.T) *testEnv { return setupWith(t, setupOpts{}) }

func setupWith(t *testing.T, o setupOpts) *testEnv {
	t.Helper()
	b := testfactory.Store(t)
	dbPool, riverClient, eng := b.Pool, b.River, b.Engines
	if o.production { // webhooks refuse internal addresses in production, as the api process's do
		eng = engines.New(dbPool, riverClient, engines.Options{Webhooks: webhook.Options{Production: true}})
	}
	signer := testSigner(testJWTSecret, 7*24*time.Hour)
	if o.loginRateLimit == 0 {
		o.loginRateLimit = 1000
	}
	if o.registerRateLimit == 0 {
		o.registerRateLimit = 1000
	}
	logs := &serverLog{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// Every test runs with the access cache, as the api process does.
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	cache := accesscache.Start(ctx, eng.Store, logger)
	select {
	case <-cache.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("the access cache did not start listening")
	}
	opts := Options{Production: o.production, PublicURL: "http://pilot.test", LoginRateLimit: o.loginRateLimit,
		RegisterRateLimit: o.registerRateLimit, AccessCache: cache}
	if o.options != nil {
		o.options(&opts)
	}
	h := newTestHandler(t, eng, signer, logger, opts)
	return &testEnv{t: t, handler: h, eng: eng, pool: dbPool, river: riverClient, signer: signer, access: cache,
		logs: logs}
}

// resp is a recorded answer.
type resp struct {
	Code   int
	Body   []byte
	Header http.Header
}

// decode decodes the body into T, an operation's output body type (CardOut, []ProjectOut, ErrorBody…).
// It requires that T holds all of the body: encoding the result again gives the same JSON, so a field T
// lacks, a field missing from the body or a null read as a zero value fails the test rather than going
// unseen.
func decode[T any](t *testing.T, r *resp) T {
	t.Helper()
	return decodeJSON[T](t, r.Body)
}

// decodeJSON is decode for any JSON, such as the parts a CardOut carries as raw JSON.
func decodeJSON[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(b, &v), "body: %s", b)
	again, err := json.Marshal(v)
	require.NoError(t, err)
	require.JSONEq(t, string(b), string(again), "the body is not exactly a %T", v)
	return v
}

// decodeTo is decode into *v, for output bodies of an unnamed struct type (MeOutput.Body).
func decodeTo[T any](t *testing.T, r *resp, v *T) {
	t.Helper()
	*v = decode[T](t, r)
}

// bodyFields decodes the body, an object, into its raw fields, for the tests that assert that a field is
// absent or that the body has an exact set of fields: a typed decode reads a missing field as its zero
// value and shows no field its type lacks.
func bodyFields(t *testing.T, r *resp) map[string]json.RawMessage {
	t.Helper()
	return decode[map[string]json.RawMessage](t, r)
}

// checklistItem is an item of CardOut.Checklist, which the api passes on as raw JSON.
type checklistItem struct {
	UnderscoreID string `json:"_id"`
	ID           string `json:"id"`
	Title        string `json:"title"`
	Done         bool   `json:"done"`
	Order        int    `json:"order"`
}

// cardLabel is a label of CardOut.Labels.
type cardLabel struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// cardChecklist decodes a card's checklist.
func cardChecklist(t *testing.T, c CardOut) []checklistItem {
	t.Helper()
	return decodeJSON[[]checklistItem](t, c.Checklist)
}

// cardLabels decodes a card's labels.
func cardLabels(t *testing.T, c CardOut) []cardLabel {
	t.Helper()
	return decodeJSON[[]cardLabel](t, c.Labels)
}

// cardFields decodes a card's custom values by field id; values keep their JSON types (string,
// float64, bool, []any), as the fields' types differ.
func cardFields(t *testing.T, c CardOut) map[string]any {
	t.Helper()
	return decodeJSON[map[string]any](t, c.CustomFields)
}

// req is a request to send; Token goes into the Authorization header. RemoteAddr is the client's
// address ("198.51.100.1:1000"; empty: the recorder's default), which the rate limits key on.
// MayLeaveDocument is set by the tests that send a path or method the OpenAPI document does not have on
// purpose (unknown routes, wrong methods): its answer is checked against the document only when it
// reaches a documented operation (mayLeaveDocument).
type req struct {
	Method, Path, Token string
	Body                any
	Header              map[string]string
	Cookies             []*http.Cookie
	RemoteAddr          string
	MayLeaveDocument    bool
}

func (e *testEnv) send(r req) *resp {
	e.t.Helper()
	var body io.Reader = http.NoBody
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		require.NoError(e.t, err)
		body = bytes.NewReader(buf)
	}
	ctx := context.Background()
	if r.MayLeaveDocument {
		ctx = mayLeaveDocument(ctx)
	}
	hr := httptest.NewRequestWithContext(ctx, r.Method, r.Path, body)
	if r.Body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for k, v := range r.Header {
		hr.Header.Set(k, v)
	}
	for _, c := range r.Cookies {
		hr.AddCookie(c)
	}
	if r.RemoteAddr != "" {
		hr.RemoteAddr = r.RemoteAddr
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, hr)
	return &resp{Code: rec.Code, Body: rec.Body.Bytes(), Header: rec.Header()}
}

// do sends method path with a JSON body (nil for none) as token.
func (e *testEnv) do(method, path, token string, body any) *resp {
	e.t.Helper()
	return e.send(req{Method: method, Path: path, Token: token, Body: body})
}

// undocumented sends method path, which the OpenAPI document does not have (an unknown route, a wrong
// method), as token: see req.MayLeaveDocument.
func (e *testEnv) undocumented(method, path, token string) *resp {
	e.t.Helper()
	return e.send(req{Method: method, Path: path, Token: token, MayLeaveDocument: true})
}

// requireStatus asserts the status and, for errors, the API's one error shape (ErrorBody).
func requireStatus(t *testing.T, r *resp, code int) {
	t.Helper()
	require.Equal(t, code, r.Code, "body: %s", r.Body)
	if code >= 400 {
		requireErrorShape(t, r, code)
	}
}

// requireErrorShape asserts {statusCode, message, error} with a string message.
func requireErrorShape(t *testing.T, r *resp, code int) {
	t.Helper()
	require.Equal(t, "application/json", r.Header.Get("Content-Type"), "body: %s", r.Body)
	// decode requires the body to be exactly an ErrorBody: statusCode a number, message and error strings.
	b := decode[ErrorBody](t, r)
	require.Equal(t, code, b.StatusCode, "body: %s", r.Body)
	require.NotEmpty(t, b.Message)
	wantName := http.StatusText(code)
	if code == 500 {
		wantName = "Internal Error"
	}
	require.Equal(t, wantName, b.ErrorName, "body: %s", r.Body)
}

// user is a registered test user.
type user struct {
	ID, Email, Token string
	// OrgSlug and WsSlug are the personal organization and workspace.
	OrgSlug, WsSlug string
}

// register creates a user through the API and returns its session token.
func (e *testEnv) register(email string) user {
	e.t.Helper()
	r := e.do("POST", "/auth/register", "", map[string]any{"email": email, "password": "correct-horse",
		"name": strings.Split(email, "@")[0]})
	requireStatus(e.t, r, http.StatusCreated)
	s := decode[SessionBody](e.t, r)
	require.NotNil(e.t, s.User)
	orgs := e.do("GET", "/organizations", s.AccessToken, nil)
	requireStatus(e.t, orgs, http.StatusOK)
	return user{ID: s.User.ID, Email: email, Token: s.AccessToken, OrgSlug: decode[[]OrganizationOut](e.t, orgs)[0].Slug,
		WsSlug: "personal"}
}

// org creates an organization owned by u.
func (e *testEnv) org(u user, slug string) {
	e.t.Helper()
	requireStatus(e.t, e.do("POST", "/organizations", u.Token, map[string]any{"name": slug, "slug": slug}),
		http.StatusCreated)
}

// workspace creates a workspace in org as u.
func (e *testEnv) workspace(u user, org, slug string) {
	e.t.Helper()
	requireStatus(e.t, e.do("POST", "/orgs/"+org+"/workspaces", u.Token, map[string]any{"name": slug, "slug": slug}),
		http.StatusCreated)
}

// join invites member into org/ws as admin and accepts as member, with the given workspace role.
func (e *testEnv) join(admin, member user, org, ws, role string) {
	e.t.Helper()
	r := e.do("POST", "/orgs/"+org+"/workspaces/"+ws+"/members/invite", admin.Token, map[string]any{"email": member.Email,
		"role": role})
	requireStatus(e.t, r, http.StatusCreated)
	token := decode[InvitationOut](e.t, r).Token
	requireStatus(e.t, e.do("POST", "/invitations/"+token+"/accept", member.Token, nil), http.StatusOK)
}

// pat creates a personal access token for u with the given scopes (nil: all).
func (e *testEnv) pat(u user, scopes []string) string {
	e.t.Helper()
	body := map[string]any{"name": "test"}
	if scopes != nil {
		body["scopes"] = scopes
	}
	r := e.do("POST", "/api-tokens", u.Token, body)
	requireStatus(e.t, r, http.StatusCreated)
	return decode[CreatedTokenOut](e.t, r).Token
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// fixtures is the env's database and store as testfactory's Bundle, for its assertions (Count,
// EventsButTokens) and, in tests that are not about the HTTP path, its fixtures.
func (e *testEnv) fixtures() *testfactory.Bundle {
	return &testfactory.Bundle{Pool: e.pool, River: e.river, Engines: e.eng}
}

// count runs a COUNT query on the test database.
func (e *testEnv) count(sql string, args ...any) int {
	e.t.Helper()
	return e.fixtures().Count(e.t, sql, args...)
}

// notifyJobs asserts with rivertest that River holds exactly one notify_activity job, on the default
// queue, for each recorded activity someone other than its actor would hear of (a member of its
// project, when its project's members are notified, or one of its recipients), and answers the activity
// each job names, oldest job first.
func (e *testEnv) notifyJobs() []string {
	e.t.Helper()
	ctx := context.Background()
	// The activities recorded for the event feed only notify nobody: they have no job.
	rows, err := e.pool.Query(ctx, `SELECT a.id::text FROM activities a
		WHERE a.type <> ALL($1) AND ((a.notify_members AND EXISTS (SELECT 1 FROM project_members pm
		                                    WHERE pm.project_id = a.project_id AND pm.user_id IS DISTINCT FROM a.actor_id))
		   OR EXISTS (SELECT 1 FROM unnest(a.recipients) r WHERE r IS DISTINCT FROM a.actor_id))`, db.FeedOnlyActivityTypes)
	require.NoError(e.t, err)
	acts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(e.t, err)
	if len(acts) == 0 {
		rivertest.RequireNotInserted(ctx, e.t, riverpgxv5.New(e.pool), jobs.NotifyActivityArgs{}, nil)
		return nil
	}
	want := slices.Repeat([]rivertest.ExpectedJob{{Args: jobs.NotifyActivityArgs{},
		Opts: &rivertest.RequireInsertedOpts{Queue: jobs.QueueDefault}}}, len(acts))
	var named []string
	for _, j := range rivertest.RequireManyInserted(ctx, e.t, riverpgxv5.New(e.pool), want) {
		var args jobs.NotifyActivityArgs
		require.NoError(e.t, json.Unmarshal(j.EncodedArgs, &args))
		named = append(named, args.ActivityID)
	}
	require.ElementsMatch(e.t, acts, named, "one notification job per activity")
	return named
}

// mails lists the e-mails enqueued on topic (tenancy.EmailTopicInvitation, identity.EmailTopicPasswordReset,
// …), oldest first, after checking that each job is on the e-mail queue.
func (e *testEnv) mails(topic string) []jobs.SendEmailArgs {
	e.t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT queue, args FROM river_job
		WHERE kind = $1 AND args->>'topic' = $2 ORDER BY id`, jobs.SendEmailArgs{}.Kind(), topic)
	require.NoError(e.t, err)
	var out []jobs.SendEmailArgs
	for rows.Next() {
		var queue string
		var args jobs.SendEmailArgs
		require.NoError(e.t, rows.Scan(&queue, &args))
		require.Equal(e.t, jobs.QueueEmail, queue)
		out = append(out, args)
	}
	require.NoError(e.t, rows.Err())
	return out
}

// occurrences counts id in ids.
func occurrences(ids []string, id string) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

// sqlLog records the statements sent to PostgreSQL by a setupLogged environment.
type sqlLog struct {
	mu  sync.Mutex
	sql []string
}

func (l *sqlLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	l.sql = append(l.sql, d.SQL)
	l.mu.Unlock()
	return ctx
}

func (l *sqlLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// during answers the statements one request sends, after checking its status.
func (l *sqlLog) during(e *testEnv, method, path, token string, body any, want int) []string {
	e.t.Helper()
	l.mu.Lock()
	from := len(l.sql)
	l.mu.Unlock()
	requireStatus(e.t, e.do(method, path, token, body), want)
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.sql[from:])
}

// setupLogged is an environment whose pool records every statement it sends, without the access cache
// (so a request's statements do not depend on what an earlier one cached).
func setupLogged(t *testing.T) (*testEnv, *sqlLog) {
	t.Helper()
	l := &sqlLog{}
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	require.NoError(t, err)
	cfg.ConnConfig.Tracer = l
	dbPool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(dbPool.Close)
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{})
	require.NoError(t, err)
	eng := engines.New(dbPool, riverClient, engines.Options{})
	signer := testSigner(testJWTSecret, 7*24*time.Hour)
	h := newTestHandler(t, eng, signer, slog.New(slog.NewTextHandler(io.Discard, nil)),
		Options{PublicURL: "http://pilot.test", LoginRateLimit: 1000, RegisterRateLimit: 1000})
	return &testEnv{t: t, handler: h, eng: eng, pool: dbPool, river: riverClient, signer: signer}, l
}

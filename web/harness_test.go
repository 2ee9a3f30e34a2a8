package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/api"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/storage"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
	"github.com/pilot-dev/pilot/workers"
)

// server is a real api (the web app included) on a fresh database, on a loopback port, with a worker
// running the offline planner; e-mails stay in the outbox (river_job), where mailed reads them.
type server struct {
	t   testing.TB
	url string
	b   *testfactory.Bundle
	srv *httptest.Server
}

func startServer(t testing.TB) *server { return startServerWith(t, nil) }

// startServerWith is startServer with the api's Options changed by tune (nil: none), which sees the
// server's URL as PublicURL.
func startServerWith(t testing.TB, tune func(*api.Options)) *server {
	t.Helper()
	b := testfactory.Store(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	cache := accesscache.Start(ctx, b.Store, logger)
	select {
	case <-cache.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("the access cache did not start listening")
	}
	signer, err := auth.NewSigner(auth.StaticKeys([]byte("web-test-secret-web-test-secret!")), 24*time.Hour)
	require.NoError(t, err)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	// The api and the worker share one attachment storage (an import stores its files from the worker).
	opts := api.Options{PublicURL: srv.URL, LoginRateLimit: 1000, RegisterRateLimit: 1000, AccessCache: cache,
		Context: ctx, Storage: storage.NewLocal(t.TempDir())}
	if tune != nil {
		tune(&opts)
	}
	h = api.New(b.Engines, signer, billing.Local{PublicURL: srv.URL}, logger, opts)
	client, _, err := workers.NewClient(b.Pool, workers.Config{Concurrency: 2, Logger: logger, Storage: opts.Storage})
	require.NoError(t, err)
	require.NoError(t, client.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(ctx)
	})
	return &server{t: t, url: srv.URL, b: b, srv: srv}
}

// call makes an API request with a bearer token (empty: none) and decodes the answer into out (nil: none).
func (s *server) call(method, path, token string, body, out any) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(s.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	require.NoError(s.t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(s.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(s.t, err)
	require.Less(s.t, res.StatusCode, 300, "%s %s: %s", method, path, b)
	if out != nil {
		require.NoError(s.t, json.Unmarshal(b, out), "%s", b)
	}
}

// account is a user registered over the API, with the slugs of their personal organization and workspace.
type account struct {
	Email, Password, Token, Org, WS string
}

func (s *server) register(email string) account {
	s.t.Helper()
	a := account{Email: email, Password: "correct horse battery"}
	var sess struct {
		AccessToken string `json:"access_token"`
	}
	s.call("POST", "/auth/register", "", map[string]string{"email": email, "password": a.Password,
		"name": strings.Split(email, "@")[0]}, &sess)
	a.Token = sess.AccessToken
	var orgs []struct{ Slug string }
	s.call("GET", "/organizations", a.Token, nil, &orgs)
	require.NotEmpty(s.t, orgs)
	a.Org = orgs[0].Slug
	var wss []struct{ Slug string }
	s.call("GET", "/orgs/"+a.Org+"/workspaces", a.Token, nil, &wss)
	require.NotEmpty(s.t, wss)
	a.WS = wss[0].Slug
	return a
}

func (a account) ws() string { return "/orgs/" + a.Org + "/workspaces/" + a.WS }

var mailedLink = regexp.MustCompile(`https?://[^\s]+`)

// mailed is the path (and query) of the link in the last e-mail of topic sent to address, read from the
// outbox.
func (s *server) mailed(topic, to string) string {
	s.t.Helper()
	var link string
	require.Eventually(s.t, func() bool {
		rows, err := s.b.Pool.Query(context.Background(), `SELECT args FROM river_job WHERE kind = $1 AND args->>'topic' = $2
			AND args->>'to' = $3 ORDER BY id DESC LIMIT 1`, jobs.SendEmailArgs{}.Kind(), topic, to)
		require.NoError(s.t, err)
		defer rows.Close()
		for rows.Next() {
			var a jobs.SendEmailArgs
			require.NoError(s.t, rows.Scan(&a))
			link = mailedLink.FindString(a.Body)
		}
		return link != ""
	}, 10*time.Second, 50*time.Millisecond, "no %s e-mail to %s", topic, to)
	require.True(s.t, strings.HasPrefix(link, s.url), "the link %s is not on this server", link)
	return strings.TrimPrefix(link, s.url)
}

// The browser: Debian's Chromium, one process for the package's tests, a fresh browser context (its own
// cookies) per page.
var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	dir    string
	err    error
}

const chromiumPath = "/usr/bin/chromium"

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
		_ = os.RemoveAll(browser.dir)
	}
	os.Exit(code)
}

// page opens a new browser context (no cookie shared with another page) and fails the test on a script
// error or a message the browser logs as an error (a Content-Security-Policy refusal among them; failed
// requests, which the API's refusals are, excepted).
func page(t testing.TB) context.Context {
	t.Helper()
	if os.Getenv("PILOT_BROWSER_TESTS") == "0" {
		t.Skip("PILOT_BROWSER_TESTS=0: browser tests skipped")
	}
	browser.once.Do(func() {
		path := chromiumPath
		if p := os.Getenv("PILOT_CHROMIUM"); p != "" {
			path = p
		}
		if _, err := exec.LookPath(path); err != nil {
			browser.err = fmt.Errorf("chromium is not installed at %s (apt-get install -y chromium; .ci/run installs it), or "+
				"set PILOT_BROWSER_TESTS=0 to skip the browser tests", path)
			return
		}
		browser.dir, browser.err = os.MkdirTemp("", "pilot-chromium-")
		if browser.err != nil {
			return
		}
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(path), chromedp.UserDataDir(browser.dir), chromedp.Headless, chromedp.NoSandbox,
			chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.Flag("disable-extensions", true), chromedp.WindowSize(1440, 900),
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(alloc)
		if err := chromedp.Do(ctx); err != nil {
			cancel()
			cancelAlloc()
			browser.err = fmt.Errorf("start chromium: %w", err)
			return
		}
		browser.ctx = ctx
		browser.cancel = func() { cancel(); cancelAlloc() }
	})
	require.NoError(t, browser.err)
	tab, cancel := chromedp.NewContext(browser.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(tab, chromedp.EmulateViewport(1440, 900)))
	var mu sync.Mutex
	var problems []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range chromedp.Console(tab) {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError && m.Source != "network" {
				mu.Lock()
				problems = append(problems, m.String()+" ("+m.URL+")")
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("the page reported %s", p)
		}
	})
	ctx, cancelTimeout := context.WithTimeout(tab, 120*time.Second)
	t.Cleanup(cancelTimeout)
	return ctx
}

// fail ends the test with err, where the page is and what it shows.
func fail(t testing.TB, ctx context.Context, what string, err error) {
	t.Helper()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	loc, _ := chromedp.Run(sctx, chromedp.Location())
	body, _ := chromedp.Run(sctx, chromedp.Text(chromedp.CSS("body")))
	t.Fatalf("%s: %v\nat %s\npage text:\n%s", what, err, loc, body)
}

// do runs browser steps, failing the test on error.
func do(t testing.TB, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		fail(t, ctx, "browser", err)
	}
}

// eval evaluates js in the page, awaiting a promise.
func eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		fail(t, ctx, "evaluate", err)
	}
	return v
}

// text is the text of the first element matching the CSS selector.
func text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		fail(t, ctx, "text of "+sel, err)
	}
	return v
}

// waitFor polls js in the page until it is true.
func waitFor(t testing.TB, ctx context.Context, what, js string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		fail(t, ctx, "waiting for "+what, err)
	}
}

// shot saves a screenshot of the page as docs/screenshots/name.png when PILOT_SCREENSHOTS=1 (make
// screenshots).
func shot(t testing.TB, ctx context.Context, name string, width, height int64) {
	t.Helper()
	if os.Getenv("PILOT_SCREENSHOTS") != "1" {
		return
	}
	do(t, ctx, chromedp.EmulateViewport(width, height), chromedp.Sleep(300*time.Millisecond))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	do(t, ctx, chromedp.EmulateViewport(1440, 900))
	require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "screenshots", name+".png"), png, 0o644))
}

// axeSource is axe-core's script (vendored by vendor.sh into testdata/axe; never served by the app).
var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
	return string(b), err
})

// axeViolation is one rule that axe-core found broken, with the first elements where it is.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// accessible runs axe-core on the screen as the page shows it now and fails the test on every serious or
// critical violation, naming the screen, the rule and where. Every screen a browser test opens is checked.
func accessible(t testing.TB, ctx context.Context, screen string) {
	t.Helper()
	src, err := axeSource()
	require.NoError(t, err, "read axe-core (web/vendor.sh vendors it)")
	if !eval[bool](t, ctx, `typeof window.axe === "object"`) {
		eval[bool](t, ctx, src+";\ntrue")
	}
	found := eval[[]axeViolation](t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
		.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))})))`)
	for _, v := range found {
		t.Errorf("%s: axe-core finds %s (%s): %s, at %s", screen, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "; "))
	}
}

// signIn signs a in through the sign-in page and waits for a workspace's screen.
func signIn(t *testing.T, ctx context.Context, s *server, a account) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(s.url+"/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email), chromedp.SendKeys(chromedp.CSS(`#password`), a.Password+kb.Enter))
	waitFor(t, ctx, "the workspace", `location.pathname.startsWith("/w/") && !!document.querySelector("h1")`)
}

// confirm submits the open confirmation dialog, after checking it for accessibility.
func confirm(t *testing.T, ctx context.Context, screen string) {
	t.Helper()
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`dialog[open] button[type=submit]`)))
	accessible(t, ctx, screen)
	do(t, ctx, chromedp.Click(chromedp.CSS(`dialog[open] button[type=submit]`)))
	waitFor(t, ctx, "the dialog to close", `!document.querySelector("dialog[open]")`)
}

// status is the status of an API request with a bearer token (empty: none).
func (s *server) status(method, path, token string, body string) int {
	s.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	require.NoError(s.t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(s.t, err)
	_ = res.Body.Close()
	return res.StatusCode
}

// projectWithCard creates a project named name in a's workspace, and in its first column a card with
// fields (its title among them); it answers the project's id and the card's.
func (s *server) projectWithCard(a account, name string, fields map[string]any) (string, string) {
	s.t.Helper()
	var prj struct{ ID string }
	s.call("POST", a.ws()+"/projects", a.Token, map[string]string{"name": name}, &prj)
	var cols []struct{ ID string }
	s.call("GET", a.ws()+"/projects/"+prj.ID+"/columns", a.Token, nil, &cols)
	require.NotEmpty(s.t, cols)
	var card struct{ ID string }
	s.call("POST", a.ws()+"/projects/"+prj.ID+"/columns/"+cols[0].ID+"/cards", a.Token, fields, &card)
	return prj.ID, card.ID
}

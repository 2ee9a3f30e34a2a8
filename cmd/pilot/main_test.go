package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/pgtest"
)

// These tests set environment variables (t.Setenv), so none runs in parallel.

// syncBuffer is a process's stderr: written by the logger's goroutines, read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines are the non-empty lines written so far.
func (b *syncBuffer) lines() []string {
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// runCmd runs `pilot args...` in this process and answers its exit code, stdout and stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// badConfig makes any configuration load fail: no DATABASE_URL, a PORT that is no port.
func badConfig(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("PORT", "not-a-port")
}

// testEnv is the environment of a process on a fresh database (its URL answered), logging text at
// info level, with nothing of the developer's environment that would change what it does.
func testEnv(t *testing.T) string {
	t.Helper()
	url := pgtest.URL(t)
	for k, v := range map[string]string{
		"DATABASE_URL": url, "APP_ENV": "development", "LOG_LEVEL": "info", "PORT": "8080", "JWT_SECRET": "",
		"JWT_SECRET_FILE": "", "JWT_PREVIOUS_SECRETS": "", "METRICS_ADDR": "", "OTEL_EXPORTER_OTLP_ENDPOINT": "",
		"SMTP_URL": "", "S3_BUCKET": "", "LLM_API_KEY": "", "LLM_API_KEY_FILE": "", "ATTACHMENTS_DIR": t.TempDir(),
		"SHUTDOWN_GRACE_PERIOD": "5s",
	} {
		t.Setenv(k, v)
	}
	return url
}

func TestHelpReadsNoConfiguration(t *testing.T) {
	badConfig(t)
	for _, arg := range []string{"help", "-h", "--help", "-help"} {
		code, stdout, stderr := runCmd(t, arg)
		require.Equal(t, 0, code, arg)
		require.Equal(t, usage+"\n", stdout, arg)
		require.Empty(t, stderr, "%s: no configuration error", arg)
	}
	for _, want := range []string{"api", "worker", "migrate", "keys rotate", "version", "help", "Configuration table in " +
		"README.md"} {
		require.Contains(t, usage, want)
	}
}

// `pilot openapi` prints the api's OpenAPI document with neither a database nor a valid configuration;
// its server is PUBLIC_URL.
func TestOpenAPIReadsNoDatabase(t *testing.T) {
	badConfig(t)
	t.Setenv("PUBLIC_URL", "https://pilot.example.com/")
	code, stdout, stderr := runCmd(t, "openapi")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	var doc struct {
		OpenAPI string                 `json:"openapi"`
		Servers []struct{ URL string } `json:"servers"`
		Paths   map[string]any         `json:"paths"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	require.Equal(t, "3.1.0", doc.OpenAPI)
	require.Equal(t, "https://pilot.example.com", doc.Servers[0].URL)
	require.Contains(t, doc.Paths, "/auth/login")
	require.Contains(t, usage, "openapi")
}

func TestMissingOrUnknownCommandExits2(t *testing.T) {
	badConfig(t)
	code, stdout, stderr := runCmd(t, "bogus")
	require.Equal(t, 2, code)
	require.Empty(t, stdout)
	require.Equal(t, "pilot: unknown command \"bogus\"\n\n"+usage+"\n", stderr, "usage, to stderr, without reading the "+
		"configuration")

	code, stdout, stderr = runCmd(t)
	require.Equal(t, 2, code)
	require.Empty(t, stdout)
	require.Equal(t, usage+"\n", stderr)
}

func TestVersion(t *testing.T) {
	badConfig(t)
	code, stdout, stderr := runCmd(t, "version")
	require.Equal(t, 0, code)
	require.Empty(t, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 3, stdout)
	require.Equal(t, "pilot dev", lines[0], "dev unless the build sets main.version")
	require.Equal(t, "go "+runtime.Version(), lines[1])
	// A test binary has no VCS stamp; a binary built by go build in a checkout has (e2e's TestCLI).
	require.Regexp(t, `^revision (unknown|[0-9a-f]{7,}( \(.+\))?( modified)?)$`, lines[2])

	old := version
	version = "v1.2.3-4-gabcdef0-dirty"
	t.Cleanup(func() { version = old })
	code, stdout, _ = runCmd(t, "--version")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(stdout, "pilot v1.2.3-4-gabcdef0-dirty\n"), stdout)
}

func TestConfigurationErrorExits1(t *testing.T) {
	badConfig(t)
	code, stdout, stderr := runCmd(t, "api")
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "DATABASE_URL is required")
	require.Contains(t, stderr, "PORT")
}

// requireProcessOnEveryLine asserts that stderr has lines, each naming the process.
func requireProcessOnEveryLine(t *testing.T, stderr []string, process string) {
	t.Helper()
	require.NotEmpty(t, stderr)
	for _, l := range stderr {
		require.Contains(t, l, " process="+process, "every line names its process")
	}
}

func TestLogLinesNameTheProcess(t *testing.T) {
	testEnv(t)
	code, _, stderr := runCmd(t, "migrate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "migrations applied")
	requireProcessOnEveryLine(t, strings.Split(strings.TrimSpace(stderr), "\n"), "migrate")

	code, stdout, stderr := runCmd(t, "keys", "rotate")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "new signing key")
	requireProcessOnEveryLine(t, strings.Split(strings.TrimSpace(stderr), "\n"), "keys")
}

// start runs `pilot args...` in this process until the test ends, and answers its stderr.
func start(t *testing.T, args ...string) *syncBuffer {
	t.Helper()
	stderr := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, io.Discard, stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			require.Equal(t, 0, code, "a stopped process exits 0: %s", stderr)
		case <-time.After(15 * time.Second):
			t.Errorf("pilot %s did not stop: %s", strings.Join(args, " "), stderr)
		}
	})
	return stderr
}

// waitForLine waits until stderr has a line matching re, and answers re's first group in it.
func waitForLine(t *testing.T, stderr *syncBuffer, re *regexp.Regexp) string {
	t.Helper()
	var got string
	require.Eventually(t, func() bool {
		m := re.FindStringSubmatch(stderr.String())
		if m == nil {
			return false
		}
		got = m[1]
		return true
	}, 30*time.Second, 20*time.Millisecond, "no line matching %s: %s", re, stderr)
	return got
}

func getStatus(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestAPILogsNameTheProcess: the api's lines, its access log's included, carry process=api.
func TestAPILogsNameTheProcess(t *testing.T) {
	testEnv(t)
	port := strconv.Itoa(freePort(t))
	t.Setenv("PORT", port)
	t.Setenv("LOG_LEVEL", "debug")
	stderr := start(t, "api")
	waitForLine(t, stderr, regexp.MustCompile(`msg="(api listening)"`))
	code, _ := getStatus(t, "http://127.0.0.1:"+port+"/healthz")
	require.Equal(t, http.StatusOK, code)
	waitForLine(t, stderr, regexp.MustCompile(`msg=(request) process=api method=GET route=/healthz status=200`))
	var own []string // River's and pgx's lines are the process's too
	for _, l := range stderr.lines() {
		if !strings.HasPrefix(l, "\t") { // a stack trace's continuation, if any
			own = append(own, l)
		}
	}
	requireProcessOnEveryLine(t, own, "api")
}

// TestWorkerProbes: the worker serves /healthz and /readyz on its metrics address; /readyz is 200
// once River runs, and 503 while the database refuses connections, then 200 again.
func TestWorkerProbes(t *testing.T) {
	url := testEnv(t)
	t.Setenv("METRICS_ADDR", "127.0.0.1:"+strconv.Itoa(freePort(t)))
	stderr := start(t, "worker")
	addr := waitForLine(t, stderr,
		regexp.MustCompile(`msg="serving metrics" process=worker addr=(\S+) paths=/metrics,/healthz,/readyz`))
	base := "http://" + addr
	require.Eventually(t, func() bool {
		code, _ := getStatus(t, base+"/readyz")
		return code == http.StatusOK
	}, 30*time.Second, 20*time.Millisecond, "the worker becomes ready: %s", stderr)
	code, body := getStatus(t, base+"/healthz")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"status":"ok"}`, body)
	code, body = getStatus(t, base+"/readyz")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"status":"ready"}`, body)
	code, _ = getStatus(t, base+"/metrics")
	require.Equal(t, http.StatusOK, code)

	// The database refuses the worker's connections: not ready, still alive.
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	name := cfg.Database
	admin, err := pgx.Connect(context.Background(), pgtest.AdminURL(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close(context.Background()) }) // after the cleanup below
	exec := func(sql string) {
		t.Helper()
		_, err := admin.Exec(context.Background(), sql)
		require.NoError(t, err)
	}
	exec("ALTER DATABASE " + name + " ALLOW_CONNECTIONS false")
	t.Cleanup(func() { exec("ALTER DATABASE " + name + " ALLOW_CONNECTIONS true") })
	exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "' AND pid <> " +
		"pg_backend_pid()")
	require.Eventually(t, func() bool {
		code, body = getStatus(t, base+"/readyz")
		return code == http.StatusServiceUnavailable
	}, 30*time.Second, 50*time.Millisecond, "not ready without a database")
	require.JSONEq(t, `{"statusCode":503,"message":"database unreachable","error":"Service Unavailable"}`, body)
	code, _ = getStatus(t, base+"/healthz")
	require.Equal(t, http.StatusOK, code, "alive while not ready")

	exec("ALTER DATABASE " + name + " ALLOW_CONNECTIONS true")
	require.Eventually(t, func() bool {
		code, _ = getStatus(t, base+"/readyz")
		return code == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "ready again once the database answers")

	var own []string
	for _, l := range stderr.lines() {
		if !strings.HasPrefix(l, "\t") {
			own = append(own, l)
		}
	}
	requireProcessOnEveryLine(t, own, "worker")
}

func TestJobClientState(t *testing.T) {
	var j jobClientState
	require.EqualError(t, j.check(context.Background()), "the job client has not started")
	stopped := make(chan struct{})
	j.started(stopped)
	require.NoError(t, j.check(context.Background()))
	close(stopped)
	require.EqualError(t, j.check(context.Background()), "the job client stopped")

	j = jobClientState{}
	j.started(make(chan struct{}))
	j.stopping()
	require.EqualError(t, j.check(context.Background()), "the worker is stopping")
}

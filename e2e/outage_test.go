package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// privateCluster starts a PostgreSQL cluster of the test's own through scripts/pg.sh (one the test may
// stop and restart without disturbing the others), answering its directory and admin URL.
func privateCluster(t *testing.T) (dir, url string) {
	t.Helper()
	dir = t.TempDir()
	url = pgScript(t, "start", dir, "--fast")
	t.Cleanup(func() {
		if out, err := exec.Command("../scripts/pg.sh", "stop", dir, "--remove").CombinedOutput(); err != nil {
			t.Logf("stop the private cluster: %v: %s", err, out)
		}
	})
	return dir, url
}

// pgScript runs scripts/pg.sh with args and answers what it printed.
func pgScript(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("../scripts/pg.sh", args...).Output()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		t.Fatalf("pg.sh %s: %v: %s", strings.Join(args, " "), err, exitErr.Stderr)
	}
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// outageLoad creates cards in a loop until stopped, checking every answer: a 2xx, or a 503 in the error
// shape with Retry-After; anything else (a 500 above all) is a failure of the test.
type outageLoad struct {
	c     client
	prj   string
	mu    sync.Mutex
	ok    int
	busy  int // 503s
	wrong []string
}

func (l *outageLoad) create(i int) (status int) {
	body := strings.NewReader(fmt.Sprintf(`{"title":"card %d"}`, i))
	req, _ := http.NewRequest("POST", l.c.base+l.prj+"/cards", body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+l.c.token)
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Do(req)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.wrong = append(l.wrong, "transport: "+err.Error())
		return 0
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		l.ok++
	case resp.StatusCode == http.StatusServiceUnavailable:
		l.busy++
		var eb struct {
			StatusCode *int    `json:"statusCode"`
			Message    *string `json:"message"`
			Error      *string `json:"error"`
		}
		switch {
		case resp.Header.Get("Retry-After") == "":
			l.wrong = append(l.wrong, "503 without Retry-After: "+string(raw))
		case resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(raw, &eb) != nil ||
			eb.StatusCode == nil || *eb.StatusCode != 503 || eb.Message == nil || *eb.Message == "" ||
			eb.Error == nil || *eb.Error != "Service Unavailable":
			l.wrong = append(l.wrong, "503 not in the error shape: "+string(raw))
		}
	default:
		l.wrong = append(l.wrong, fmt.Sprintf("%d: %s", resp.StatusCode, raw))
	}
	return resp.StatusCode
}

func (l *outageLoad) counts() (ok, busy int, wrong []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ok, l.busy, append([]string(nil), l.wrong...)
}

// A PostgreSQL restart under a create load: requests caught in it answer 503 with Retry-After in the
// error shape, never 500; with the database stopped every create is a 503; and creates succeed again
// once it is back, without restarting the api.
func TestDatabaseRestartAnswers503(t *testing.T) {
	dir, dbURL := privateCluster(t)
	api := start(t, "api", baseEnv(dbURL, "DATABASE_MAX_CONNS=8"))
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	c, org, ws := register(t, pool, api, "ops@example.com")
	pool.Close() // the test's own reads are done: the restart should not have to end them
	var prj idOut
	code, raw := c.do("POST", "/orgs/"+org+"/workspaces/"+ws+"/projects", map[string]any{"name": "Outage"}, &prj)
	require.Equal(t, http.StatusCreated, code, raw)
	l := &outageLoad{c: c, prj: "/orgs/" + org + "/workspaces/" + ws + "/projects/" + prj.ID}

	// Four clients create cards throughout.
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				if l.create(w*1_000_000+i) == http.StatusServiceUnavailable {
					time.Sleep(50 * time.Millisecond) // a client honouring Retry-After would wait longer
				}
			}
		})
	}
	defer func() { stop(); wg.Wait() }()
	waitOK := func(n int, what string) {
		t.Helper()
		ok0, _, _ := l.counts()
		deadline := time.Now().Add(30 * time.Second)
		for {
			ok, _, wrong := l.counts()
			require.Empty(t, wrong)
			if ok >= ok0+n {
				return
			}
			require.True(t, time.Now().Before(deadline), "creates did not succeed %s", what)
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitOK(20, "before the restart")

	// A fast restart ends every open session, mid-statement for some.
	pgScript(t, "restart", dir)
	waitOK(20, "after the restart")

	// With the database down, every create is a 503 (the load's requests, and this one).
	pgScript(t, "stop", dir)
	_, busy0, _ := l.counts()
	require.Equal(t, http.StatusServiceUnavailable, l.create(-1))
	deadline := time.Now().Add(10 * time.Second)
	for _, busy, _ := l.counts(); busy < busy0+10 && time.Now().Before(deadline); _, busy, _ = l.counts() {
		time.Sleep(20 * time.Millisecond)
	}
	require.Equal(t, dbURL, pgScript(t, "start", dir, "--fast"), "the cluster is back on its port")
	waitOK(20, "after the database came back")

	stop()
	wg.Wait()
	ok, busy, wrong := l.counts()
	require.Empty(t, wrong, "every answer is a 2xx or a 503 in the error shape with Retry-After")
	require.Greater(t, busy, 10, "requests met the outage")
	t.Logf("%d cards created, %d answers 503", ok, busy)
}

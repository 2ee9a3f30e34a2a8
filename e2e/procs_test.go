// Package e2e runs real `pilot` processes (several api and worker processes on one database) and
// drives them over HTTP, as a deployment would run.
package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// pilotBinary builds cmd/pilot once per test binary.
func pilotBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pilot-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "pilot")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/pilot").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build pilot: %w: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binPath
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// proc is a running pilot process.
type proc struct {
	cmd *exec.Cmd
	URL string // api processes only
	// metrics is the URL of its Prometheus /metrics endpoint, when it was started with a METRICS_ADDR
	// (the soak's processes).
	metrics string
	done    chan struct{}
}

// start runs `pilot <kind>` with env; api processes are waited for until ready.
func start(t testing.TB, kind string, env []string) *proc {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(pilotBinary(t), kind)
	cmd.Env = append(os.Environ(), append([]string{"PORT=" + strconv.Itoa(port), "LOG_LEVEL=warn"}, env...)...)
	logFile, err := os.Create(filepath.Join(t.TempDir(), kind+".log"))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(t, cmd.Start())
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("%s log:\n%s", kind, b)
		}
	})
	if kind == "api" {
		p.URL = "http://127.0.0.1:" + strconv.Itoa(port)
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp, err := http.Get(p.URL + "/readyz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			require.True(t, time.Now().Before(deadline), "api did not become ready")
			time.Sleep(50 * time.Millisecond)
		}
	}
	return p
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("process did not die")
	}
}

// terminate sends SIGTERM and answers the exit code, failing the test if the process outlives within.
func (p *proc) terminate(t *testing.T, within time.Duration) int {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	return p.exitCode(t, within)
}

// exitCode waits for the process to exit and answers its code.
func (p *proc) exitCode(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(within):
		t.Fatalf("process %d still running after %s", p.cmd.Process.Pid, within)
		return -1
	}
}

var _ = context.Background

package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runPilot runs the binary at bin with args and env (added to an environment without DATABASE_URL),
// and answers its exit code, stdout and stderr.
func runPilot(t testing.TB, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestCLI: the built binary's help, version and unknown commands, with their exit codes, none of them
// needing a configuration; and the version the Makefile's -ldflags set.
func TestCLI(t *testing.T) {
	t.Parallel()
	bin := pilotBinary(t)
	for _, arg := range []string{"help", "--help", "-h"} {
		code, stdout, stderr := runPilot(t, bin, []string{"PORT=nope"}, arg)
		require.Equal(t, 0, code, "%s: %s", arg, stderr)
		require.Contains(t, stdout, "usage: pilot <command>")
		require.Contains(t, stdout, "README.md")
		require.Empty(t, stderr, arg)
	}

	code, stdout, stderr := runPilot(t, bin, nil, "frobnicate")
	require.Equal(t, 2, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, `unknown command "frobnicate"`)
	require.Contains(t, stderr, "usage: pilot <command>")

	code, _, stderr = runPilot(t, bin, nil, "migrate")
	require.Equal(t, 1, code, "a command that needs the configuration still checks it")
	require.Contains(t, stderr, "DATABASE_URL is required")

	code, stdout, _ = runPilot(t, bin, nil, "version")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(stdout, "pilot dev\ngo "+runtime.Version()+"\nrevision "), stdout)

	// The Makefile's build target sets the version this way.
	versioned := filepath.Join(t.TempDir(), "pilot")
	out, err := exec.Command("go", "build", "-ldflags", "-X main.version=v1.2.3-e2e", "-o", versioned,
		"../cmd/pilot").CombinedOutput()
	require.NoError(t, err, "%s", out)
	code, stdout, _ = runPilot(t, versioned, nil, "version")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(stdout, "pilot v1.2.3-e2e\n"), stdout)
}

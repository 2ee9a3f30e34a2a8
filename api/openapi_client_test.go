package api

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A TypeScript client generated from the OpenAPI document with openapi-typescript type-checks (tsc,
// strict) a program that logs in, creates a card and reads its checklist and labels, lists cards and
// patches a scope's settings (testdata/tsclient/client.ts): the document types what clients do.
// scripts/openapi-tools.sh installs the pinned tools (tools/openapi) with npm ci the first time.
func TestGeneratedTypeScriptClientTypeChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc, err := OpenAPIDocument("")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "openapi.json"), doc, 0o600))
	for _, name := range []string{"client.ts", "tsconfig.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tsclient", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
	}
	tools, err := filepath.Abs(filepath.Join("..", "scripts", "openapi-tools.sh"))
	require.NoError(t, err)
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(tools, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", args[0], out)
	}
	run("openapi-typescript", "openapi.json", "-o", "schema.d.ts")
	run("tsc", "-p", "tsconfig.json")
}

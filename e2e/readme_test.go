package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/pgtest"
)

// The README's conventions, described in CONTRIBUTING.md ("The README's shell blocks"):
//   - every ```sh or ```bash block runs, in order, in one bash, unless the line right before its fence is
//     readmeSkip (optionally followed by a reason in parentheses);
//   - a command's expected output follows readmeExpect, at the end of the command's last line or on
//     comment lines of their own right after it; "soon: " before the text lets the command run again
//     until its output matches (for what the worker does after a write); "…" stands for any text.
const (
	readmeSkip   = "<!-- readme-test: skip"
	readmeExpect = "# → "
	readmeSoon   = "soon: "
	readmeAny    = "…"
)

// readmeBlock is one fenced block of the README.
type readmeBlock struct {
	line  int // of the opening fence, 1-based
	lang  string
	skip  bool
	lines []string
}

// readmeAssign finds the variables a command line sets: NAME= at its start or after a semicolon.
var readmeAssign = regexp.MustCompile(`(?:^|;\s*)([A-Za-z_][A-Za-z0-9_]*)=`)

// readmeFence matches a fence line and captures its language.
var readmeFence = regexp.MustCompile("^```([A-Za-z0-9_-]*)\\s*$")

// readmeBlocks reads the fenced blocks of a Markdown file; a skip marker anywhere but right before a
// shell block fails the test, so a stale one cannot hide a block.
func readmeBlocks(t *testing.T, path string) []readmeBlock {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var (
		blocks  []readmeBlock
		cur     *readmeBlock
		prev    string
		markerN int
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		case readmeFence.MatchString(line):
			lang := readmeFence.FindStringSubmatch(line)[1]
			skip := strings.HasPrefix(prev, readmeSkip)
			require.False(t, skip && lang != "sh" && lang != "bash",
				"%s:%d: %q marks a ```%s block, which never runs", path, n-1, readmeSkip, lang)
			cur = &readmeBlock{line: n, lang: lang, skip: skip}
		case strings.HasPrefix(line, readmeSkip):
			markerN = n
		case prev != "" && strings.HasPrefix(prev, readmeSkip):
			t.Fatalf("%s:%d: %q must be the line right before a ```sh fence", path, markerN, readmeSkip)
		}
		prev = line
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "%s: a fence is not closed", path)
	return blocks
}

// readmeCheck is a command whose output is checked.
type readmeCheck struct {
	line     int // of the command's last line
	command  string
	expected string // white space squeezed, soon: taken off
	soon     bool
}

// shellQuote quotes s for bash as one word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// globPattern is a bash pattern that matches expected literally, "…" matching any text.
func globPattern(expected string) string {
	parts := strings.Split(expected, readmeAny)
	for i, p := range parts {
		var b strings.Builder
		for _, r := range p {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) || r > unicode.MaxASCII {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		parts[i] = b.String()
	}
	return strings.Join(parts, "*")
}

// readmePrelude defines __check, which runs a command (read from stdin) in the script's shell, squeezes
// the white space of its output and matches it against a pattern, again for up to a minute when soon.
const readmePrelude = `set -euo pipefail
trap 'echo "readme-test: this command failed ($?): $BASH_COMMAND" >&2' ERR
__checks=0
__check() {
  local line=$1 soon=$2 pattern=$3 expected=$4 cmd out got tries=0
  cmd=$(cat)
  while :; do
    if ! out=$(eval "$cmd"); then
      printf '\nREADME.md:%s: the command failed:\n%s\n' "$line" "$cmd" >&2
      exit 1
    fi
    got=$(printf '%s' "$out" | tr -s ' \t\r\n' ' ')
    got=${got# }; got=${got% }
    if [[ $got == $pattern ]]; then break; fi
    if [[ $soon == 1 ]] && (( tries++ < 300 )); then sleep 0.2; continue; fi
    printf '\nREADME.md:%s: the answer is not the one the README promises\n' "$line" >&2
    printf '  command:  %s\n  expected: %s\n  got:      %s\n' "$cmd" "$expected" "$got" >&2
    exit 1
  done
  printf '%s\n' "$out"
  __checks=$((__checks + 1))
}
`

// readmeScript makes one bash script of the blocks that run, each checked command wrapped in __check.
func readmeScript(t *testing.T, blocks []readmeBlock) (script string, checks int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(readmePrelude)
	assigned := map[string]int{} // variable → README line that set it
	for _, bl := range blocks {
		if bl.skip || (bl.lang != "sh" && bl.lang != "bash") {
			continue
		}
		fmt.Fprintf(&b, "\n# README.md:%d\n", bl.line)
		// pending holds the lines of the command last seen, until the next one starts, so the comment lines
		// of its expected output can still claim it.
		var pending []string
		var pendingLine int
		var check *readmeCheck
		flush := func() {
			switch {
			case check != nil:
				soon := 0
				if check.soon {
					soon = 1
				}
				fmt.Fprintf(&b, "__check %d %d %s %s <<'__README_COMMAND'\n%s\n__README_COMMAND\n",
					check.line, soon, shellQuote(globPattern(check.expected)), shellQuote(check.expected), check.command)
				checks++
			case len(pending) > 0:
				b.WriteString(strings.Join(pending, "\n") + "\n")
			}
			pending, check = nil, nil
		}
		expect := func(line int, text string) {
			soon := strings.HasPrefix(text, readmeSoon)
			text = strings.Join(strings.Fields(strings.TrimPrefix(text, readmeSoon)), " ")
			if check == nil {
				require.NotEmpty(t, pending, "README.md:%d: an expected answer follows no command", line)
				check = &readmeCheck{line: pendingLine, command: strings.Join(pending, "\n"), soon: soon}
				check.expected = text
				return
			}
			require.False(t, soon, "README.md:%d: soon: goes on the first line of an answer", line)
			check.expected += " " + text
		}
		continued := false
		for i, line := range bl.lines {
			n := bl.line + 1 + i
			trimmed := strings.TrimSpace(line)
			if !continued {
				for _, m := range readmeAssign.FindAllStringSubmatch(line, -1) {
					first, ok := assigned[m[1]]
					require.False(t, ok, "README.md:%d: %s is set again (first at line %d): give the new value a name of its own",
						n, m[1], first)
					assigned[m[1]] = n
				}
			}
			switch {
			case strings.HasPrefix(trimmed, readmeExpect):
				require.False(t, continued, "README.md:%d: an expected answer inside a command", n)
				expect(n, strings.TrimPrefix(trimmed, readmeExpect))
				continue
			case !continued && strings.HasPrefix(trimmed, "#"): // a comment of its own: no command to check
				flush()
				b.WriteString(line + "\n")
				continue
			case !continued:
				flush()
			}
			cmd, want, found := strings.Cut(line, " "+readmeExpect)
			if found && check == nil {
				pending, pendingLine = append(pending, cmd), n
				expect(n, want)
			} else {
				pending, pendingLine = append(pending, line), n
			}
			continued = strings.HasSuffix(line, `\`)
		}
		flush()
	}
	b.WriteString("\necho \"readme-test: $__checks answers checked\"\n")
	return b.String(), checks
}

// TestReadme runs the README's shell blocks in order, in one bash with set -euo pipefail, against a real
// api and worker on a fresh database, as a new user would after make run, and checks every answer its
// "# → " comments promise. The api's address replaces http://localhost:8080, a free port the webhook
// receiver's localhost:9000. The api waits up to a minute for draft jobs (DRAFT_WAIT), so refine and
// generate-roadmap answer their result however slow the machine; missions and drafts run on the offline
// planner (no LLM_API_KEY).
func TestReadme(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "the README's examples need %s (.ci/run installs it)", tool)
	}
	blocks := readmeBlocks(t, "../README.md")
	script, checks := readmeScript(t, blocks)
	require.Greater(t, checks, 20, "the README's answers to check")

	dbURL := pgtest.URL(t)
	env := []string{"DATABASE_URL=" + dbURL, "APP_ENV=development", "DRAFT_WAIT=1m", "LLM_API_KEY=",
		"LLM_API_KEY_FILE=", "SMTP_URL=", "ATTACHMENTS_DIR=" + t.TempDir()}
	api := start(t, "api", env)
	start(t, "worker", env)
	script = strings.ReplaceAll(script, "http://localhost:8080", api.URL)
	script = strings.ReplaceAll(script, "localhost:9000", "127.0.0.1:"+strconv.Itoa(freePort(t)))

	dir := t.TempDir()
	scriptPath := filepath.Join(dir, "readme.sh")
	require.NoError(t, os.WriteFile(scriptPath, []byte(script), 0o600))
	out, err := os.Create(filepath.Join(dir, "readme.out"))
	require.NoError(t, err)
	defer out.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", scriptPath)
	cmd.Dir = ".." // the checkout, where the README's reader is (go build ./cmd/…)
	cmd.Env = readmeEnv()
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, so the background receiver goes too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	runErr := cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)

	log, err := os.ReadFile(out.Name())
	require.NoError(t, err)
	if runErr != nil || ctx.Err() != nil {
		t.Fatalf("the README's shell blocks failed (%v, %v); their output:\n%s", runErr, ctx.Err(), log)
	}
	t.Logf("the README's shell blocks, run:\n%s", log)
	require.Contains(t, string(log), fmt.Sprintf("readme-test: %d answers checked", checks))
}

// readmeEnv is the environment of the README's shell: what finds its tools and Go's caches, and none of
// the variables the README sets, so a block that uses one before the README sets it fails.
func readmeEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH", name == "HOME", name == "TMPDIR", name == "LANG", strings.HasPrefix(name, "LC_"),
			strings.HasPrefix(name, "GO"), name == "XDG_CACHE_HOME":
			env = append(env, kv)
		}
	}
	return env
}

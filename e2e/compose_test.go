package e2e

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// composeSecrets are the settings compose.yaml hands as files (NAME_FILE=/run/secrets/<name>), never as
// environment variables: those the README's configuration section names as secrets.
var composeSecrets = []string{"DATABASE_URL", "JWT_SECRET", "JWT_PREVIOUS_SECRETS", "SMTP_URL", "S3_ACCESS_KEY_ID",
	"S3_SECRET_ACCESS_KEY", "LLM_API_KEY"}

// composeFile is the part of compose.yaml the test reads.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Secrets     []string          `yaml:"secrets"`
		Volumes     []string          `yaml:"volumes"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	} `yaml:"services"`
	Secrets map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
}

// readmeSettings answers the variables of the README's configuration table, in order.
func readmeSettings(t *testing.T, readme string) []string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Configuration\n")
	require.True(t, ok, "the README's Configuration section")
	section, _, ok = strings.Cut(section, "\n## Architecture\n")
	require.True(t, ok, "the section after Configuration")
	var names []string
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
	}
	require.Greater(t, len(names), 40, "the configuration table's variables")
	return names
}

// TestCompose checks compose.yaml against the README (no container engine runs here, and none is
// needed): the four services and their order (postgres healthy, then migrate, then api and worker), the
// one image by its command, every setting of the configuration table in the environment — the secrets
// as files from ./secrets/, mounted in each Pilot service — and nothing else, and the README's recipe
// making every secret file compose needs.
func TestCompose(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../compose.yaml")
	require.NoError(t, err)
	var c composeFile
	require.NoError(t, yaml.Unmarshal(raw, &c))
	readmeRaw, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	readme := string(readmeRaw)

	names := make([]string, 0, len(c.Services))
	for name := range c.Services {
		names = append(names, name)
	}
	require.ElementsMatch(t, []string{"postgres", "migrate", "api", "worker"}, names)
	pg := c.Services["postgres"]
	require.Equal(t, "${POSTGRES_IMAGE:-postgres:15}", pg.Image, "PostgreSQL from the user's registry")
	require.Equal(t, "/run/secrets/postgres_password", pg.Environment["POSTGRES_PASSWORD_FILE"])
	require.Equal(t, []string{"postgres_password"}, pg.Secrets)
	require.Equal(t, "service_healthy", c.Services["migrate"].DependsOn["postgres"].Condition)

	settings := readmeSettings(t, readme)
	for _, svc := range []string{"migrate", "api", "worker"} {
		s := c.Services[svc]
		require.True(t, strings.HasPrefix(s.Image, "${PILOT_IMAGE:?"), "%s: the image make image built", svc)
		require.Equal(t, []string{svc}, s.Command, "one image, the command picks the process")
		require.Contains(t, s.Volumes, "attachments:/data", svc)
		if svc != "migrate" {
			require.Equal(t, "service_completed_successfully", s.DependsOn["migrate"].Condition, svc)
		}
		want := map[string]bool{}
		for _, name := range settings {
			if slices.Contains(composeSecrets, name) {
				secret := strings.ToLower(name)
				require.NotContains(t, s.Environment, name, "%s: the secret %s comes from a file", svc, name)
				require.Equal(t, "/run/secrets/"+secret, s.Environment[name+"_FILE"], "%s: %s_FILE", svc, name)
				require.Contains(t, s.Secrets, secret, "%s mounts the secret %s", svc, secret)
				want[name+"_FILE"] = true
				continue
			}
			v, ok := s.Environment[name]
			require.True(t, ok, "%s: the README's setting %s is missing from compose.yaml", svc, name)
			require.True(t, strings.HasPrefix(v, "${"+name+":-"), "%s: %s comes from the same variable: %q", svc, name, v)
			want[name] = true
		}
		for name := range s.Environment {
			require.True(t, want[name], "%s: %s is not a setting of the README's configuration table", svc, name)
		}
	}

	for _, name := range composeSecrets {
		require.True(t, strings.Contains(readme, "`"+name+"`"), "the README names %s", name)
	}
	require.Len(t, c.Secrets, len(composeSecrets)+1, "the settings' secrets and PostgreSQL's password")
	for name, s := range c.Secrets {
		require.Equal(t, "./secrets/"+name, s.File, name)
		require.True(t, strings.Contains(readme, "secrets/"+name), "the README's recipe makes the file of the secret %s",
			name)
	}
	gitignore, err := os.ReadFile("../.gitignore")
	require.NoError(t, err)
	require.Contains(t, strings.Split(string(gitignore), "\n"), "/secrets/", "secrets are never committed")
}

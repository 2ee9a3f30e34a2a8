package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// base is the least environment that loads.
func base(extra map[string]string) map[string]string {
	m := map[string]string{"DATABASE_URL": "postgres://pilot@localhost/pilot"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(nil)))
	require.NoError(t, err)
	require.Equal(t, EnvDevelopment, c.Env)
	require.False(t, c.Production())
	require.Equal(t, 8080, c.Port)
	require.Equal(t, "postgres://pilot@localhost/pilot", c.DatabaseURL)
	require.Equal(t, 7*24*time.Hour, c.JWTExpiresIn)
	require.Empty(t, c.JWTSecret, "no built-in secret: the api makes and keeps random keys")
	require.Equal(t, "http://localhost:8080", c.PublicURL)
	require.Equal(t, 10, c.LoginRateLimit)
	require.Equal(t, 10, c.LoginAccountFailureLimit)
	require.Equal(t, 10, c.RegisterRateLimit)
	require.Equal(t, 10*time.Second, c.ShutdownGracePeriod)
}

func TestLoadProductionNeedsJWTSecret(t *testing.T) {
	t.Parallel()
	_, err := load(env(base(map[string]string{"APP_ENV": "production"})))
	require.Error(t, err)
	require.Contains(t, err.Error(), "JWT_SECRET")

	// Never without a secret in production.
	_, err = load(env(base(map[string]string{"APP_ENV": "production", "JWT_SECRET": ""})))
	require.ErrorContains(t, err, "JWT_SECRET")

	_, err = load(env(base(map[string]string{"APP_ENV": "production", "JWT_SECRET": "too-short"})))
	require.ErrorContains(t, err, "JWT_SECRET")

	secret := "0123456789abcdef0123456789abcdef"
	c, err := load(env(base(map[string]string{"APP_ENV": "production", "JWT_SECRET": secret})))
	require.NoError(t, err)
	require.True(t, c.Production())
	require.Equal(t, []byte(secret), c.JWTSecret)

	// A development deployment with its own secret uses it.
	c, err = load(env(base(map[string]string{"JWT_SECRET": "mine"})))
	require.NoError(t, err)
	require.Equal(t, []byte("mine"), c.JWTSecret)
	require.Empty(t, c.JWTPreviousSecrets)
}

func TestLoadJWTPreviousSecrets(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(map[string]string{"JWT_SECRET": "new-secret", "JWT_PREVIOUS_SECRETS": " old-one, ,older "})))
	require.NoError(t, err)
	require.Equal(t, [][]byte{[]byte("old-one"), []byte("older")}, c.JWTPreviousSecrets)

	_, err = load(env(base(map[string]string{"JWT_PREVIOUS_SECRETS": "old-one"})))
	require.ErrorContains(t, err, "JWT_PREVIOUS_SECRETS needs JWT_SECRET")
}

func TestLoadJWTExpiresIn(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{
		"7d":  7 * 24 * time.Hour,
		"1d":  24 * time.Hour,
		"90m": 90 * time.Minute,
		"12h": 12 * time.Hour,
	} {
		c, err := load(env(base(map[string]string{"JWT_EXPIRES_IN": in})))
		require.NoError(t, err, in)
		require.Equal(t, want, c.JWTExpiresIn, in)
	}
	for _, bad := range []string{"garbage", "7", "d", "-1d", "1.5d", "30s", "0d", "-5m"} {
		_, err := load(env(base(map[string]string{"JWT_EXPIRES_IN": bad})))
		require.ErrorContains(t, err, "JWT_EXPIRES_IN", bad)
	}
}

func TestLoadDatabaseURLRequired(t *testing.T) {
	t.Parallel()
	_, err := load(env(map[string]string{}))
	require.ErrorContains(t, err, "DATABASE_URL")
}

func TestLoadPort(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(map[string]string{"PORT": "9090"})))
	require.NoError(t, err)
	require.Equal(t, 9090, c.Port)
	require.Equal(t, "http://localhost:9090", c.PublicURL)

	for _, bad := range []string{"abc", "80a", "0", "-1", "65536", "1e3"} {
		_, err := load(env(base(map[string]string{"PORT": bad})))
		require.ErrorContains(t, err, "PORT", bad)
	}
}

func TestLoadReportsEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	_, err := load(env(map[string]string{"APP_ENV": "production", "PORT": "x", "JWT_EXPIRES_IN": "soon",
		"LOG_LEVEL": "loud"}))
	require.Error(t, err)
	for _, name := range []string{"JWT_SECRET", "DATABASE_URL", "PORT", "JWT_EXPIRES_IN", "LOG_LEVEL"} {
		require.Contains(t, err.Error(), name)
	}
	_, err = load(env(base(map[string]string{"APP_ENV": "staging"})))
	require.ErrorContains(t, err, "APP_ENV")
	_, err = load(env(base(map[string]string{"REGISTER_RATE_LIMIT": "0"})))
	require.ErrorContains(t, err, "REGISTER_RATE_LIMIT must be at least 1")
}

func TestLoadLoginAccountFailureLimit(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(map[string]string{"LOGIN_ACCOUNT_FAILURE_LIMIT": "25"})))
	require.NoError(t, err)
	require.Equal(t, 25, c.LoginAccountFailureLimit)
	for _, bad := range []string{"0", "-1", "many", "1.5"} {
		_, err := load(env(base(map[string]string{"LOGIN_ACCOUNT_FAILURE_LIMIT": bad})))
		require.ErrorContains(t, err, "LOGIN_ACCOUNT_FAILURE_LIMIT", bad)
	}
}

func TestLoadFileVariants(t *testing.T) {
	t.Parallel()
	secretFile := writeFile(t, "  file-secret-file-secret-file-secret-32\n")
	dbFile := writeFile(t, "postgres://from-file/pilot\n")
	c, err := load(env(map[string]string{
		"APP_ENV":           "production",
		"JWT_SECRET_FILE":   secretFile,
		"DATABASE_URL_FILE": dbFile,
	}))
	require.NoError(t, err)
	require.Equal(t, []byte("file-secret-file-secret-file-secret-32"), c.JWTSecret, "trimmed of surrounding whitespace")
	require.Equal(t, "postgres://from-file/pilot", c.DatabaseURL)

	// Both the variable and its file: which was meant cannot be told, so neither is taken.
	_, err = load(env(base(map[string]string{"JWT_SECRET": "plain", "JWT_SECRET_FILE": secretFile})))
	require.ErrorContains(t, err, "JWT_SECRET and JWT_SECRET_FILE are both set: set one of them")

	// A file that cannot be read is an error naming the variable and the file.
	missing := filepath.Join(t.TempDir(), "missing")
	_, err = load(env(base(map[string]string{"JWT_SECRET_FILE": missing})))
	require.ErrorContains(t, err, "JWT_SECRET_FILE: cannot read the file it names: open "+missing)

	// A variable read twice (API_DOCS is) reads its file once and reports its problem once.
	_, err = load(env(base(map[string]string{"API_DOCS_FILE": missing})))
	require.Equal(t, 1, strings.Count(err.Error(), "API_DOCS_FILE"), err.Error())

	// An empty file counts as unset: compose mounts a secret's file whether or not it is used.
	c, err = load(env(base(map[string]string{"LLM_API_KEY_FILE": writeFile(t, "\n")})))
	require.NoError(t, err)
	require.Empty(t, c.LLM.APIKey)
}

// TestLoadSecretFiles reads every secret setting from a file, as compose.yaml hands them (secrets:),
// and checks it lands where the plain variable would.
func TestLoadSecretFiles(t *testing.T) {
	t.Parallel()
	secrets := map[string]struct {
		value string
		got   func(*Config) string
	}{
		"DATABASE_URL": {"postgres://pilot:pw@db/pilot", func(c *Config) string { return c.DatabaseURL }},
		"JWT_SECRET":   {strings.Repeat("j", 32), func(c *Config) string { return string(c.JWTSecret) }},
		"JWT_PREVIOUS_SECRETS": {"old-1,old-2", func(c *Config) string {
			return string(bytes.Join(c.JWTPreviousSecrets, []byte(",")))
		}},
		"SMTP_URL":             {"smtps://u:p@mail.example.com:465", func(c *Config) string { return c.SMTPURL }},
		"S3_ACCESS_KEY_ID":     {"AKIAEXAMPLE", func(c *Config) string { return c.S3AccessKeyID }},
		"S3_SECRET_ACCESS_KEY": {"s3-secret", func(c *Config) string { return c.S3SecretAccessKey }},
		"LLM_API_KEY":          {"sk-example", func(c *Config) string { return c.LLM.APIKey }},
	}
	vars := map[string]string{"APP_ENV": "production", "S3_BUCKET": "pilot"}
	for name, s := range secrets {
		vars[name+"_FILE"] = writeFile(t, s.value+"\n")
	}
	c, err := load(env(vars))
	require.NoError(t, err)
	for name, s := range secrets {
		require.Equal(t, s.value, s.got(c), name)
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	d, err := ParseDuration("3d")
	require.NoError(t, err)
	require.Equal(t, 72*time.Hour, d)
	d, err = ParseDuration("1h30m")
	require.NoError(t, err)
	require.Equal(t, 90*time.Minute, d)
	for _, bad := range []string{"", "d", "xd", "-2d", "soon"} {
		_, err := ParseDuration(bad)
		require.Error(t, err, bad)
	}
}

func TestLoadLLM(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(nil)))
	require.NoError(t, err)
	require.Empty(t, c.LLM.APIKey, "no key: the offline planner")

	c, err = load(env(base(map[string]string{"LLM_BASE_URL": "http://localhost:11434/v1", "LLM_API_KEY": "k",
		"LLM_MODEL": "llama3"})))
	require.NoError(t, err)
	require.Equal(t, "http://localhost:11434/v1", c.LLM.BaseURL)
	require.Equal(t, "k", c.LLM.APIKey)
	require.Equal(t, "llama3", c.LLM.Model)

	_, err = load(env(base(map[string]string{"LLM_BASE_URL": "ftp://models.example"})))
	require.ErrorContains(t, err, "LLM_BASE_URL")
	_, err = load(env(base(map[string]string{"LLM_BASE_URL": "not a url"})))
	require.ErrorContains(t, err, "LLM_BASE_URL")
}

func TestMcpClaimTimeout(t *testing.T) {
	t.Parallel()
	getenv := func(m map[string]string) func(string) string {
		return func(k string) string {
			if k == "DATABASE_URL" {
				return "postgres://pilot@localhost/pilot"
			}
			return m[k]
		}
	}
	c, err := load(getenv(nil))
	require.NoError(t, err)
	require.Equal(t, 10*time.Minute, c.McpClaimTimeout)
	c, err = load(getenv(map[string]string{"MCP_CLAIM_TIMEOUT": "90s"}))
	require.NoError(t, err)
	require.Equal(t, 90*time.Second, c.McpClaimTimeout)
	_, err = load(getenv(map[string]string{"MCP_CLAIM_TIMEOUT": "10ms"}))
	require.ErrorContains(t, err, "MCP_CLAIM_TIMEOUT must be at least 1s")
	_, err = load(getenv(map[string]string{"MCP_CLAIM_TIMEOUT": "soon"}))
	require.ErrorContains(t, err, "MCP_CLAIM_TIMEOUT")
}

func TestLoadAPIDocs(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(nil)))
	require.NoError(t, err)
	require.True(t, c.APIDocs, "the docs page is on by default")
	c, err = load(env(base(map[string]string{"API_DOCS": "off"})))
	require.NoError(t, err)
	require.False(t, c.APIDocs)
	_, err = load(env(base(map[string]string{"API_DOCS": "no"})))
	require.ErrorContains(t, err, `API_DOCS must be on or off, got "no"`)
}

func TestLoadWebhooks(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(nil)))
	require.NoError(t, err)
	require.False(t, c.WebhookAllowPrivate)
	require.Equal(t, 24*time.Hour, c.WebhookAttemptWindow)
	require.Equal(t, 20, c.WebhookFailureLimit)
	require.Equal(t, 30*24*time.Hour, c.WebhookDeliveryRetention)
	c, err = load(env(base(map[string]string{"WEBHOOK_ALLOW_PRIVATE": "true", "WEBHOOK_MAX_ATTEMPT_WINDOW": "2d",
		"WEBHOOK_FAILURE_LIMIT": "5", "WEBHOOK_DELIVERY_RETENTION": "90d"})))
	require.NoError(t, err)
	require.True(t, c.WebhookAllowPrivate)
	require.Equal(t, 48*time.Hour, c.WebhookAttemptWindow)
	require.Equal(t, 5, c.WebhookFailureLimit)
	require.Equal(t, 90*24*time.Hour, c.WebhookDeliveryRetention)
	for _, bad := range []map[string]string{{"WEBHOOK_MAX_ATTEMPT_WINDOW": "10s"}, {"WEBHOOK_MAX_ATTEMPT_WINDOW": "soon"},
		{"WEBHOOK_FAILURE_LIMIT": "0"}, {"WEBHOOK_FAILURE_LIMIT": "many"}, {"WEBHOOK_DELIVERY_RETENTION": "30m"},
		{"WEBHOOK_DELIVERY_RETENTION": "forever"}} {
		_, err := load(env(base(bad)))
		require.ErrorContains(t, err, "WEBHOOK_", bad)
	}
	_, err = load(env(base(map[string]string{"WEBHOOK_DELIVERY_RETENTION": "30m"})))
	require.ErrorContains(t, err, "WEBHOOK_DELIVERY_RETENTION must be at least 1h")
}

func TestLoadAuditRetention(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(nil)))
	require.NoError(t, err)
	require.Equal(t, 365*24*time.Hour, c.AuditRetention)
	c, err = load(env(base(map[string]string{"AUDIT_RETENTION": "90d"})))
	require.NoError(t, err)
	require.Equal(t, 90*24*time.Hour, c.AuditRetention)
	_, err = load(env(base(map[string]string{"AUDIT_RETENTION": "12h"})))
	require.ErrorContains(t, err, "AUDIT_RETENTION must be at least 1d")
	_, err = load(env(base(map[string]string{"AUDIT_RETENTION": "forever"})))
	require.ErrorContains(t, err, "AUDIT_RETENTION")
}

func TestMissionLifecycleDurations(t *testing.T) {
	t.Parallel()
	getenv := func(m map[string]string) func(string) string {
		return func(k string) string {
			if k == "DATABASE_URL" {
				return "postgres://pilot@localhost/pilot"
			}
			return m[k]
		}
	}
	c, err := load(getenv(nil))
	require.NoError(t, err)
	require.Equal(t, 72*time.Hour, c.MissionInputTimeout)
	require.Equal(t, 5*time.Minute, c.MissionStaleAfter)
	c, err = load(getenv(map[string]string{"MISSION_INPUT_TIMEOUT": "2h", "MISSION_STALE_AFTER": "30s"}))
	require.NoError(t, err)
	require.Equal(t, 2*time.Hour, c.MissionInputTimeout)
	require.Equal(t, 30*time.Second, c.MissionStaleAfter)
	for _, name := range []string{"MISSION_INPUT_TIMEOUT", "MISSION_STALE_AFTER"} {
		_, err = load(getenv(map[string]string{name: "10ms"}))
		require.ErrorContains(t, err, name+" must be at least 1s")
		_, err = load(getenv(map[string]string{name: "soon"}))
		require.ErrorContains(t, err, name)
	}
}

// Package config reads the process configuration from the environment, once, at start.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Environments the service knows.
const (
	EnvDevelopment = "development"
	EnvProduction  = "production"
)

// Config is everything a Pilot process reads from its environment.
type Config struct {
	Env              string
	Port             int
	DatabaseURL      string
	DatabaseMaxConns int32
	// JWTSecret (JWT_SECRET) signs session tokens. Empty outside production: the api then signs with
	// random keys kept in the database (made at first start, rotated by `pilot keys rotate`). There is
	// no built-in key.
	JWTSecret []byte
	// JWTPreviousSecrets (JWT_PREVIOUS_SECRETS, comma-separated) still verify the tokens they signed but
	// sign nothing: the old secret after JWT_SECRET is changed, until its sessions have expired.
	JWTPreviousSecrets [][]byte
	JWTExpiresIn       time.Duration
	PublicURL          string
	SMTPURL            string
	SMTPFrom           string
	LogLevel           string
	WorkerConcurrency  int
	TrustProxyHeaders  bool
	// APIDocs (API_DOCS, on or off, default on) serves the docs page /api/docs; the OpenAPI document
	// /api/openapi.json is served either way.
	APIDocs        bool
	LoginRateLimit int
	// LoginAccountFailureLimit (LOGIN_ACCOUNT_FAILURE_LIMIT, default 10) is how many failed sign-ins an
	// hour one account takes, from every address together, before it refuses sign-ins from devices that
	// never signed in to it (429 for an hour; a device that did is counted on its own).
	LoginAccountFailureLimit int
	// RegisterRateLimit (REGISTER_RATE_LIMIT, default 10) is the number of accounts one client address
	// may create an hour.
	RegisterRateLimit   int
	ShutdownGracePeriod time.Duration
	DueDateScanInterval time.Duration
	// EventsRetention (EVENTS_RETENTION, default 7d) is how far back a reader of a workspace's event
	// feed may resume with Last-Event-ID; an older cursor is told to reload.
	EventsRetention time.Duration
	// EventsPollInterval (EVENTS_POLL_INTERVAL, default 20ms) is how often each api process reads new
	// activities for the event feed's readers.
	EventsPollInterval time.Duration
	MissionTimeout     time.Duration
	// MissionInputTimeout (MISSION_INPUT_TIMEOUT, default 72h, at least 1s) is how long a mission's
	// question waits for its requester's answer before the mission expires.
	MissionInputTimeout time.Duration
	// MissionStaleAfter (MISSION_STALE_AFTER, default 5m, at least 1s) is how long a running mission may go
	// without an event before it is marked stale.
	MissionStaleAfter time.Duration
	// McpClaimTimeout (MCP_CLAIM_TIMEOUT, default 10m) is how long an MCP client may stay silent while it
	// holds a claimed mission before the mission returns to the queue (every call of the holder on the
	// mission starts the period again).
	McpClaimTimeout time.Duration
	// McpMaxSessionsPerUser (MCP_MAX_SESSIONS_PER_USER, default 20) bounds the MCP sessions one user
	// holds on an api process: opening one more closes the user's session idle the longest.
	McpMaxSessionsPerUser int
	// McpMaxSessions (MCP_MAX_SESSIONS, default 2000) bounds the MCP sessions of an api process: past
	// it, a new session is refused with 503 (a user at their own cap may still replace one of theirs).
	McpMaxSessions int
	// DraftTimeout bounds one attempt of a draft job; DraftWait is how long refine and generate-roadmap
	// wait for their job before answering 202.
	DraftTimeout      time.Duration
	DraftWait         time.Duration
	WorkerRescueAfter time.Duration
	// WorkerPollInterval is how often a worker looks for new jobs of each queue without being told
	// (WORKER_POLL_INTERVAL, default 1s, River's default): a safety net, since every job is enqueued
	// through River, whose insert notification wakes the workers on commit.
	WorkerPollInterval time.Duration
	// JobFetchCooldown (JOB_FETCH_COOLDOWN, default 10ms) is the shortest time between two fetches of a
	// worker's queue and between two insert notifications of a queue from one process: it bounds how
	// long a job committed during a burst waits for its worker.
	JobFetchCooldown time.Duration
	// AttachmentsDir is the directory attachment files are kept in (ATTACHMENTS_DIR, default
	// .data/attachments) unless S3 is configured. It is created on the first upload.
	AttachmentsDir string
	// S3Bucket, when set, keeps attachment files in this bucket of an S3-compatible service instead
	// (needed once the api runs on several machines). S3Endpoint defaults to AWS, S3Region to
	// us-east-1; without S3AccessKeyID and S3SecretAccessKey, the AWS_* variables or the instance role
	// sign requests.
	S3Bucket, S3Endpoint, S3Region, S3Prefix string
	S3AccessKeyID, S3SecretAccessKey         string
	S3PathStyle                              bool
	// CORSOrigins (CORS_ORIGINS, comma-separated) are the browser origins allowed to call the API
	// cross-origin, with credentials (https://app.example.com: scheme, host and port, no path), in
	// lower case. Empty: no CORS headers at all, so browsers allow same-origin calls only.
	CORSOrigins []string
	// MetricsAddr is the listen address of the process's Prometheus /metrics endpoint (METRICS_ADDR,
	// e.g. ":9090" or "127.0.0.1:9090"; empty: no metrics served). It is a listener of its own, apart
	// from the API's PORT, so that it can stay private.
	MetricsAddr string
	// PprofAddr is the listen address of Go's profiler endpoints, /debug/pprof/ (PPROF_ADDR, e.g.
	// "127.0.0.1:6060"; empty: none). Off by default: profiles show code and memory, so it belongs on
	// loopback or a private network.
	PprofAddr string
	// OTLPEndpoint is the OpenTelemetry collector's OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT,
	// e.g. http://otel-collector:4318; empty: no traces). Spans go to its /v1/traces.
	OTLPEndpoint string
	// OTLPProtocol is OTEL_EXPORTER_OTLP_PROTOCOL: only http/protobuf (the default) is spoken.
	OTLPProtocol string
	// WebhookAllowPrivate (WEBHOOK_ALLOW_PRIVATE, default false) lets webhooks reach loopback, private and
	// link-local addresses in production, where they are refused otherwise (they are allowed outside it).
	WebhookAllowPrivate bool
	// WebhookAttemptWindow (WEBHOOK_MAX_ATTEMPT_WINDOW, default 24h) is how long after an event its
	// delivery is still retried.
	WebhookAttemptWindow time.Duration
	// WebhookFailureLimit (WEBHOOK_FAILURE_LIMIT, default 20) is the run of deliveries failed for good
	// that disables a webhook.
	WebhookFailureLimit int
	// WebhookDeliveryRetention (WEBHOOK_DELIVERY_RETENTION, default 30d) is how long a finished webhook
	// delivery is kept after its last attempt; the worker's periodic sweep deletes older ones.
	WebhookDeliveryRetention time.Duration
	// AuditRetention (AUDIT_RETENTION, default 365d) is how long an audit log entry is kept; the worker's
	// hourly job deletes older ones, the only deletes of the append-only log.
	AuditRetention time.Duration
	// LLM configures agent missions' language model (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL): an
	// OpenAI-compatible server when LLM_API_KEY is set, else the built-in offline planner.
	LLM LLM
	// OIDCProviders are the OpenID Connect providers people may sign in with: OIDC_PROVIDERS names them
	// (comma-separated ids, each read from OIDC_<ID>_ISSUER, _CLIENT_ID, _CLIENT_SECRET, _NAME and
	// _SCOPES), or OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_NAME configure one, whose
	// id is "sso". Empty: no provider.
	OIDCProviders []OIDCProvider
	// OIDCAllowedDomains (OIDC_ALLOWED_DOMAINS, comma-separated, lower-cased) are the only e-mail
	// domains accounts are created for at a provider's first sign-in (the address verified by the
	// provider). Empty: any.
	OIDCAllowedDomains []string
	// PasswordLogin (PASSWORD_LOGIN, true or false, default true) lets people sign in and register with
	// a password. false needs a provider: the way back in for everyone, the first owner included, is
	// setting it to true again (passwords are kept).
	PasswordLogin bool
	// apiDocsRaw is API_DOCS as written, checked by validate.
	apiDocsRaw string
	// passwordLoginRaw is PASSWORD_LOGIN as written, checked by validate.
	passwordLoginRaw string
}

// OIDCProvider is one OpenID Connect provider as the environment configures it.
type OIDCProvider struct {
	// ID names the provider in Pilot's paths (/auth/oidc/<id>/callback): lower-case letters, digits and
	// hyphens, 1 to 40.
	ID string
	// Name is shown on its sign-in button (default: the id).
	Name string
	// Issuer is the provider's issuer URL; discovery reads <issuer>/.well-known/openid-configuration.
	Issuer string
	// ClientID and ClientSecret are Pilot's registration at the provider (the secret may be empty for a
	// public client: the flow uses PKCE either way).
	ClientID, ClientSecret string
	// Scopes are asked for besides openid (default: email profile).
	Scopes []string
}

// oidcSingleID is the id of the provider configured by OIDC_ISSUER.
const oidcSingleID = "sso"

// LLM is the language model as the environment names it; the process turns it into an llm.Config.
type LLM struct {
	// BaseURL is the OpenAI-compatible server (LLM_BASE_URL; empty: llm's default), an http(s) URL.
	BaseURL string
	// APIKey selects that server when set (LLM_API_KEY); empty selects the offline planner.
	APIKey string
	// Model is the model name sent to the server (LLM_MODEL; empty: llm's default).
	Model string
}

// Production reports whether the service runs with production defaults.
func (c *Config) Production() bool { return c.Env == EnvProduction }

// Load reads the configuration from the environment and validates it.
func Load() (*Config, error) {
	return load(os.Getenv)
}

func load(getenv func(string) string) (*Config, error) {
	r := &envReader{getenv: getenv}
	c := r.readStrings()
	r.readNumbers(c)
	r.readDurations(c)
	r.readSecrets(c)
	r.readOrigins(c)
	r.readWebhooks(c)
	r.readOIDC(c)
	if c.PublicURL == "" {
		c.PublicURL = fmt.Sprintf("http://localhost:%d", c.Port)
	}

	r.errs = append(r.errs, c.validate()...)
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("invalid configuration: %w", errors.Join(r.errs...))
	}
	return c, nil
}

// envReader reads variables from an environment, collecting what it cannot read in errs, in the order
// the variables are read.
type envReader struct {
	getenv func(string) string
	errs   []error
	// files holds what each NAME_FILE gave, so that a variable read twice reads its file (and reports
	// its problem) once.
	files map[string]fileValue
}

// fileValue is the content of the file a NAME_FILE variable names, or why it gave none.
type fileValue struct {
	value string
	ok    bool
}

// get reads a variable: from the file NAME_FILE names when set (its content trimmed of surrounding
// whitespace; an empty file counts as unset), else NAME, else def. Every variable has the _FILE variant,
// so that any setting can come from a secret mounted as a file (a container's /run/secrets/…). Setting
// both NAME and NAME_FILE is an error: which one was meant cannot be told.
func (r *envReader) get(name, def string) string {
	path := r.getenv(name + "_FILE")
	if path == "" {
		if v := r.getenv(name); v != "" {
			return v
		}
		return def
	}
	f, seen := r.files[name]
	if !seen {
		f = r.readFile(name, path)
		if r.files == nil {
			r.files = map[string]fileValue{}
		}
		r.files[name] = f
	}
	if !f.ok || f.value == "" {
		return def
	}
	return f.value
}

// readFile reads the file NAME_FILE names, reporting a file that cannot be read and a NAME set as well.
func (r *envReader) readFile(name, path string) fileValue {
	if r.getenv(name) != "" {
		r.errs = append(r.errs, fmt.Errorf("%s and %s_FILE are both set: set one of them", name, name))
		return fileValue{}
	}
	b, err := os.ReadFile(path) //nolint:gosec // G304: the operator names the secret file (NAME_FILE), by design
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s_FILE: cannot read the file it names: %w", name, err))
		return fileValue{}
	}
	return fileValue{value: strings.TrimSpace(string(b)), ok: true}
}

// atoi reads an integer variable.
func (r *envReader) atoi(name, def string) int {
	s := r.get(name, def)
	n, err := strconv.Atoi(s)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s must be an integer, got %q", name, s))
	}
	return n
}

// atoi32 reads a 32-bit integer variable.
func (r *envReader) atoi32(name, def string) int32 {
	s := r.get(name, def)
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s must be a 32-bit integer, got %q", name, s))
	}
	return int32(n)
}

// duration reads a duration variable (see ParseDuration); ok is false when it is not one.
func (r *envReader) duration(name, def string) (d time.Duration, ok bool) {
	d, err := ParseDuration(r.get(name, def))
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %w", name, err))
		return d, false
	}
	return d, true
}

// readStrings reads the variables that are plain strings and flags into a new Config.
func (r *envReader) readStrings() *Config {
	get := r.get
	return &Config{
		Env:               get("APP_ENV", EnvDevelopment),
		DatabaseURL:       get("DATABASE_URL", ""),
		PublicURL:         strings.TrimRight(get("PUBLIC_URL", ""), "/"),
		SMTPURL:           get("SMTP_URL", ""),
		SMTPFrom:          get("SMTP_FROM", "Pilot <no-reply@pilot.local>"),
		LogLevel:          strings.ToLower(get("LOG_LEVEL", "info")),
		TrustProxyHeaders: get("TRUST_PROXY_HEADERS", "false") == "true",
		APIDocs:           get("API_DOCS", "on") != "off",
		apiDocsRaw:        get("API_DOCS", "on"),
		AttachmentsDir:    strings.TrimSpace(get("ATTACHMENTS_DIR", ".data/attachments")),
		S3Bucket:          get("S3_BUCKET", ""),
		S3Endpoint:        strings.TrimRight(get("S3_ENDPOINT", "https://s3.amazonaws.com"), "/"),
		S3Region:          get("S3_REGION", "us-east-1"),
		S3Prefix:          get("S3_PREFIX", ""),
		S3AccessKeyID:     get("S3_ACCESS_KEY_ID", ""),
		S3SecretAccessKey: get("S3_SECRET_ACCESS_KEY", ""),
		S3PathStyle:       get("S3_PATH_STYLE", "false") == "true",
		MetricsAddr:       strings.TrimSpace(get("METRICS_ADDR", "")),
		PprofAddr:         strings.TrimSpace(get("PPROF_ADDR", "")),
		OTLPEndpoint:      strings.TrimSpace(get("OTEL_EXPORTER_OTLP_ENDPOINT", "")),
		OTLPProtocol:      strings.TrimSpace(get("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")),
		LLM: LLM{
			BaseURL: strings.TrimSpace(get("LLM_BASE_URL", "")),
			APIKey:  get("LLM_API_KEY", ""),
			Model:   strings.TrimSpace(get("LLM_MODEL", "")),
		},
	}
}

// readNumbers reads the integer variables into c.
func (r *envReader) readNumbers(c *Config) {
	c.Port = r.atoi("PORT", "8080")
	c.DatabaseMaxConns = r.atoi32("DATABASE_MAX_CONNS", "20")
	c.WorkerConcurrency = r.atoi("WORKER_CONCURRENCY", "20")
	c.LoginRateLimit = r.atoi("LOGIN_RATE_LIMIT", "10")
	c.LoginAccountFailureLimit = r.atoi("LOGIN_ACCOUNT_FAILURE_LIMIT", "10")
	c.RegisterRateLimit = r.atoi("REGISTER_RATE_LIMIT", "10")
	c.McpMaxSessionsPerUser = r.atoi("MCP_MAX_SESSIONS_PER_USER", "20")
	c.McpMaxSessions = r.atoi("MCP_MAX_SESSIONS", "2000")
}

// readDurations reads the duration variables into c.
func (r *envReader) readDurations(c *Config) {
	c.JWTExpiresIn, _ = r.duration("JWT_EXPIRES_IN", "7d")
	c.MissionTimeout, _ = r.duration("MISSION_TIMEOUT", "10m")
	c.MissionInputTimeout, _ = r.duration("MISSION_INPUT_TIMEOUT", "72h")
	c.MissionStaleAfter, _ = r.duration("MISSION_STALE_AFTER", "5m")
	var ok bool
	if c.McpClaimTimeout, ok = r.duration("MCP_CLAIM_TIMEOUT", "10m"); ok && c.McpClaimTimeout < time.Second {
		r.errs = append(r.errs, fmt.Errorf("MCP_CLAIM_TIMEOUT must be at least 1s, got %q", r.get("MCP_CLAIM_TIMEOUT",
			"10m")))
	}
	c.DraftTimeout, _ = r.duration("DRAFT_TIMEOUT", "5m")
	c.DraftWait, _ = r.duration("DRAFT_WAIT", "5s")
	c.WorkerRescueAfter, _ = r.duration("WORKER_RESCUE_AFTER", "1h")
	c.WorkerPollInterval, _ = r.duration("WORKER_POLL_INTERVAL", "1s")
	c.JobFetchCooldown, _ = r.duration("JOB_FETCH_COOLDOWN", "10ms")
	c.DueDateScanInterval, _ = r.duration("DUE_DATE_SCAN_INTERVAL", "1m")
	c.EventsRetention, _ = r.duration("EVENTS_RETENTION", "7d")
	c.EventsPollInterval, _ = r.duration("EVENTS_POLL_INTERVAL", "20ms")
	c.ShutdownGracePeriod, _ = r.duration("SHUTDOWN_GRACE_PERIOD", "10s")
}

// readSecrets reads the JWT secret and the previous ones (comma-separated, blanks dropped) into c.
func (r *envReader) readSecrets(c *Config) {
	c.JWTSecret = []byte(r.get("JWT_SECRET", ""))
	for _, old := range strings.Split(r.get("JWT_PREVIOUS_SECRETS", ""), ",") {
		if old = strings.TrimSpace(old); old != "" {
			c.JWTPreviousSecrets = append(c.JWTPreviousSecrets, []byte(old))
		}
	}
}

// readWebhooks reads the webhook deliveries' settings into c.
func (r *envReader) readWebhooks(c *Config) {
	c.WebhookAllowPrivate = r.get("WEBHOOK_ALLOW_PRIVATE", "false") == "true"
	c.WebhookAttemptWindow, _ = r.duration("WEBHOOK_MAX_ATTEMPT_WINDOW", "24h")
	c.WebhookFailureLimit = r.atoi("WEBHOOK_FAILURE_LIMIT", "20")
	c.WebhookDeliveryRetention, _ = r.duration("WEBHOOK_DELIVERY_RETENTION", "30d")
	c.AuditRetention, _ = r.duration("AUDIT_RETENTION", "365d")
}

// readOrigins reads CORS_ORIGINS (comma-separated, blanks dropped, lower-cased) into c.
func (r *envReader) readOrigins(c *Config) {
	for _, origin := range strings.Split(r.get("CORS_ORIGINS", ""), ",") {
		if origin = strings.TrimSpace(origin); origin != "" {
			c.CORSOrigins = append(c.CORSOrigins, strings.ToLower(origin))
		}
	}
}

// validate answers every problem of the configuration, in a fixed order: the environment and what it
// requires, the numbers and durations, the services Pilot talks to, the CORS origins, then observability.
func (c *Config) validate() []error {
	var errs []error
	errs = append(errs, c.validateEnv()...)
	errs = append(errs, c.validateLimits()...)
	errs = append(errs, c.validateServices()...)
	errs = append(errs, c.validateOrigins()...)
	errs = append(errs, c.validateObservability()...)
	errs = append(errs, c.validateOIDC()...)
	return errs
}

// validateEnv checks APP_ENV, the JWT secrets it requires and the database URL.
func (c *Config) validateEnv() []error {
	var errs []error
	if c.Env != EnvDevelopment && c.Env != EnvProduction {
		errs = append(errs, fmt.Errorf("APP_ENV must be %q or %q, got %q", EnvDevelopment, EnvProduction, c.Env))
	}
	if c.Env == EnvProduction && len(c.JWTSecret) == 0 {
		errs = append(errs, errors.New("JWT_SECRET is required when APP_ENV=production"))
	}
	if c.Env == EnvProduction && len(c.JWTSecret) > 0 && len(c.JWTSecret) < 32 {
		errs = append(errs, errors.New("JWT_SECRET must be at least 32 bytes in production"))
	}
	if len(c.JWTPreviousSecrets) > 0 && len(c.JWTSecret) == 0 {
		errs = append(errs, errors.New("JWT_PREVIOUS_SECRETS needs JWT_SECRET (the secret that signs now)"))
	}
	if c.apiDocsRaw != "on" && c.apiDocsRaw != "off" {
		errs = append(errs, fmt.Errorf("API_DOCS must be on or off, got %q", c.apiDocsRaw))
	}
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("DATABASE_URL is required (make run starts a private PostgreSQL and sets it)"))
	}
	return errs
}

// validateLimits checks the port, the counts and the durations against their bounds.
func (c *Config) validateLimits() []error {
	var errs []error
	if c.Port < 1 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("PORT must be between 1 and 65535, got %d", c.Port))
	}
	if c.DatabaseMaxConns < 2 {
		errs = append(errs, errors.New("DATABASE_MAX_CONNS must be at least 2"))
	}
	if c.WorkerConcurrency < 1 {
		errs = append(errs, errors.New("WORKER_CONCURRENCY must be at least 1"))
	}
	if c.LoginRateLimit < 1 {
		errs = append(errs, errors.New("LOGIN_RATE_LIMIT must be at least 1"))
	}
	if c.LoginAccountFailureLimit < 1 {
		errs = append(errs, errors.New("LOGIN_ACCOUNT_FAILURE_LIMIT must be at least 1"))
	}
	if c.RegisterRateLimit < 1 {
		errs = append(errs, errors.New("REGISTER_RATE_LIMIT must be at least 1"))
	}
	if c.McpMaxSessionsPerUser < 1 {
		errs = append(errs, errors.New("MCP_MAX_SESSIONS_PER_USER must be at least 1"))
	}
	if c.McpMaxSessions < c.McpMaxSessionsPerUser {
		errs = append(errs, errors.New("MCP_MAX_SESSIONS must be at least MCP_MAX_SESSIONS_PER_USER"))
	}
	if c.MissionTimeout < time.Second {
		errs = append(errs, errors.New("MISSION_TIMEOUT must be at least 1s"))
	}
	if c.MissionInputTimeout < time.Second {
		errs = append(errs, errors.New("MISSION_INPUT_TIMEOUT must be at least 1s"))
	}
	if c.MissionStaleAfter < time.Second {
		errs = append(errs, errors.New("MISSION_STALE_AFTER must be at least 1s"))
	}
	if c.DraftTimeout < time.Second {
		errs = append(errs, errors.New("DRAFT_TIMEOUT must be at least 1s"))
	}
	if c.DraftWait < 0 || c.DraftWait > time.Minute {
		errs = append(errs, errors.New("DRAFT_WAIT must be between 0s and 1m"))
	}
	if c.WorkerRescueAfter < time.Second {
		errs = append(errs, errors.New("WORKER_RESCUE_AFTER must be at least 1s"))
	}
	if c.JobFetchCooldown < time.Millisecond {
		errs = append(errs, errors.New("JOB_FETCH_COOLDOWN must be at least 1ms"))
	}
	if c.WorkerPollInterval < c.JobFetchCooldown {
		errs = append(errs, errors.New("WORKER_POLL_INTERVAL must be at least JOB_FETCH_COOLDOWN"))
	}
	if c.DueDateScanInterval < time.Second {
		errs = append(errs, errors.New("DUE_DATE_SCAN_INTERVAL must be at least 1s"))
	}
	if c.EventsRetention < time.Minute {
		errs = append(errs, errors.New("EVENTS_RETENTION must be at least 1m"))
	}
	if c.EventsPollInterval < time.Millisecond || c.EventsPollInterval > 10*time.Second {
		errs = append(errs, errors.New("EVENTS_POLL_INTERVAL must be between 1ms and 10s"))
	}
	if c.WebhookFailureLimit < 1 {
		errs = append(errs, errors.New("WEBHOOK_FAILURE_LIMIT must be at least 1"))
	}
	if c.WebhookAttemptWindow < time.Minute {
		errs = append(errs, errors.New("WEBHOOK_MAX_ATTEMPT_WINDOW must be at least 1m"))
	}
	if c.WebhookDeliveryRetention < time.Hour {
		errs = append(errs, errors.New("WEBHOOK_DELIVERY_RETENTION must be at least 1h"))
	}
	if c.AuditRetention < 24*time.Hour {
		errs = append(errs, errors.New("AUDIT_RETENTION must be at least 1d"))
	}
	if c.JWTExpiresIn < time.Minute {
		errs = append(errs, errors.New("JWT_EXPIRES_IN must be at least 1m"))
	}
	return errs
}

// validateServices checks how Pilot reaches its mail server, attachment storage and language model.
func (c *Config) validateServices() []error {
	var errs []error
	if c.SMTPURL != "" {
		u, err := url.Parse(c.SMTPURL)
		if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Host == "" {
			errs = append(errs, errors.New("SMTP_URL must look like smtp://user:pass@host:port"))
		}
	}
	if c.AttachmentsDir == "" {
		errs = append(errs, errors.New("ATTACHMENTS_DIR must name a directory"))
	} else if st, err := os.Stat(c.AttachmentsDir); err == nil && !st.IsDir() {
		errs = append(errs, fmt.Errorf("ATTACHMENTS_DIR must be a directory, %q is a file", c.AttachmentsDir))
	}
	if c.S3Bucket != "" {
		errs = append(errs, c.validateS3()...)
	}
	if c.LLM.BaseURL != "" {
		if u, err := url.Parse(c.LLM.BaseURL); err != nil {
			errs = append(errs, fmt.Errorf("LLM_BASE_URL must be a URL: %w", err))
		} else if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("LLM_BASE_URL must be an http or https URL, got %q", c.LLM.BaseURL))
		}
	}
	return errs
}

// validateOrigins checks that CORS_ORIGINS lists origins, nothing more.
func (c *Config) validateOrigins() []error {
	var errs []error
	for _, origin := range c.CORSOrigins {
		if !validOrigin(origin) {
			errs = append(errs,
				fmt.Errorf("CORS_ORIGINS must list origins like https://app.example.com (http or https, a host, "+
					"maybe a port, no path, no wildcard), got %q", origin))
		}
	}
	return errs
}

// validOrigin reports whether s is an origin as browsers send it in the Origin header: an http or
// https scheme and a host, maybe a port, and nothing else (no path, not even "/", no query, no user, no
// wildcard).
func validOrigin(s string) bool {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || strings.Contains(s, "*") {
		return false
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return false
		}
	}
	return s == u.Scheme+"://"+u.Host
}

// validateS3 checks the S3 settings, when a bucket is set.
func (c *Config) validateS3() []error {
	var errs []error
	u, err := url.Parse(c.S3Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		errs = append(errs, fmt.Errorf("S3_ENDPOINT must be a base URL like https://s3.eu-west-3.amazonaws.com, got %q",
			c.S3Endpoint))
	}
	if c.S3Region == "" {
		errs = append(errs, errors.New("S3_REGION must not be empty"))
	}
	if (c.S3AccessKeyID == "") != (c.S3SecretAccessKey == "") {
		errs = append(errs, errors.New("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together"))
	}
	return errs
}

// validateObservability checks the metrics listener, the trace exporter and the log level.
func (c *Config) validateObservability() []error {
	var errs []error
	if c.MetricsAddr != "" {
		host, port, err := net.SplitHostPort(c.MetricsAddr)
		n, perr := strconv.Atoi(port)
		switch {
		case err != nil || perr != nil || n < 1 || n > 65535:
			errs = append(errs, fmt.Errorf("METRICS_ADDR must be a listen address like :9090 or 127.0.0.1:9090, got %q",
				c.MetricsAddr))
		case n == c.Port && (host == "" || host == "0.0.0.0" || host == "::"):
			errs = append(errs, fmt.Errorf("METRICS_ADDR must not use PORT (%d): metrics have a listener of their own", c.Port))
		}
	}
	if c.PprofAddr != "" {
		if _, port, err := net.SplitHostPort(c.PprofAddr); err != nil || !validPort(port) {
			errs = append(errs, fmt.Errorf("PPROF_ADDR must be a listen address like 127.0.0.1:6060, got %q", c.PprofAddr))
		}
	}
	if c.OTLPEndpoint != "" {
		u, err := url.Parse(c.OTLPEndpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL like "+
				"http://otel-collector:4318, got %q", c.OTLPEndpoint))
		}
	}
	if c.OTLPProtocol != "http/protobuf" {
		errs = append(errs,
			fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf (the only one Pilot speaks), got %q", c.OTLPProtocol))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("LOG_LEVEL must be debug, info, warn or error, got %q", c.LogLevel))
	}
	return errs
}

// ParseDuration accepts Go durations ("90m") and whole days ("7d").
func ParseDuration(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	return d, nil
}

// validPort reports whether port is a TCP port number, 1 to 65535.
func validPort(port string) bool {
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// Command pilot runs Pilot's processes: `pilot api`, `pilot worker`, `pilot migrate`, `pilot backup`,
// `pilot restore` and `pilot keys rotate`; `pilot openapi` prints the OpenAPI document; `pilot version`
// and `pilot help` say what it is.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/pilot-dev/pilot/api"
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/config"
	"github.com/pilot-dev/pilot/internal/mail"
	"github.com/pilot-dev/pilot/internal/oidc"
	"github.com/pilot-dev/pilot/internal/sessionwatch"
	"github.com/pilot-dev/pilot/internal/storage"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/telemetry"
	"github.com/pilot-dev/pilot/internal/telemetry/sources"
	"github.com/pilot-dev/pilot/llm"
	"github.com/pilot-dev/pilot/workers"
)

// usage is what `pilot help` prints, and what a missing or unknown command prints to stderr.
const usage = `usage: pilot <command>

commands:
  api          serve the HTTP API (migrates first)
  worker       run background jobs (migrates first)
  migrate      apply database migrations and exit; --status lists applied and pending migrations
               without applying any
  backup       write the database (pg_dump), the attachment files and a manifest into one archive:
               pilot backup [--output FILE|-] (default pilot-backup-<time>.tar); consistent while the
               api and workers run
  restore      restore an archive into an empty database and attachment store, then migrate it:
               pilot restore [--force] FILE (--force replaces a database that has tables)
  keys rotate  make a new session signing key (when JWT_SECRET is unset); older keys verify until
               their sessions expire
  openapi      print the API's OpenAPI document (JSON; its server is PUBLIC_URL, or "/" when unset)
               without a database
  version      print the version, the Go version and the VCS revision
  help         print this help (also -h, --help)

Configuration comes from environment variables (DATABASE_URL, PORT, LOG_LEVEL, METRICS_ADDR, ...),
read when a command starts: see the Configuration table in README.md for each one, its default and
meaning.`

// version is the release this binary was built from: the Makefile's build target sets it with
// -ldflags "-X main.version=$(git describe --always --dirty)"; "dev" when built otherwise.
var version = "dev"

// defaultGCPercent is the garbage collector's target unless GOGC is set.
const defaultGCPercent = 400

func main() {
	// No defer: os.Exit below would skip it, so the signal handler is stopped before exiting.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command that args name until it is done or ctx ends, logging to stderr, and answers the
// process's exit code: 0, 1 when the command failed (its configuration included), 2 for a missing or
// unknown command. help and version read no configuration.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return write(stderr, usage+"\n", 2)
	}
	var cmd func(context.Context, *config.Config, *slog.Logger) error
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return write(stdout, usage+"\n", 0)
	case "version", "--version":
		return write(stdout, versionText(), 0)
	case "openapi":
		return printOpenAPI(stdout, stderr)
	case "api":
		cmd = runAPI
	case "worker":
		cmd = runWorker
	case "migrate":
		cmd = func(ctx context.Context, cfg *config.Config, logger *slog.Logger) error {
			return runMigrate(ctx, cfg, logger, args[1:], stdout)
		}
	case "backup":
		cmd = func(ctx context.Context, cfg *config.Config, logger *slog.Logger) error {
			return runBackup(ctx, cfg, logger, args[1:], stdout)
		}
	case "restore":
		cmd = func(ctx context.Context, cfg *config.Config, logger *slog.Logger) error {
			return runRestore(ctx, cfg, logger, args[1:], stdout)
		}
	case "keys":
		cmd = func(ctx context.Context, cfg *config.Config, logger *slog.Logger) error {
			return runKeys(ctx, cfg, logger, args[1:], stdout)
		}
	default:
		return write(stderr, fmt.Sprintf("pilot: unknown command %q\n\n%s\n", args[0], usage), 2)
	}
	cfg, err := config.Load()
	if err != nil {
		return write(stderr, err.Error()+"\n", 1)
	}
	// Every line names its process, so that the lines of several processes read together (a journal,
	// a log store, make run's terminal) can be told apart.
	logger := newLogger(cfg, stderr).With("process", args[0])
	if os.Getenv("GOGC") == "" {
		// Requests allocate short-lived buffers on a small live heap, so the default GOGC=100 collects
		// very often: 400 measured 25-30% more card lists and creates per second (make bench). GOGC set
		// in the environment wins, and GOMEMLIMIT still bounds the heap.
		debug.SetGCPercent(defaultGCPercent)
	}
	if err := cmd(ctx, cfg, logger); err != nil {
		logger.Error("exiting", "command", args[0], "error", err)
		return 1
	}
	return 0
}

// write writes text to w and answers code, or 1 when w failed (a closed pipe): the exit code of a
// command whose answer is text.
func write(w io.Writer, text string, code int) int {
	if _, err := io.WriteString(w, text); err != nil {
		return 1
	}
	return code
}

// printOpenAPI prints the OpenAPI document the api serves, built without a database or the rest of the
// configuration: only PUBLIC_URL is read (its server, "/" when unset).
func printOpenAPI(stdout, stderr io.Writer) int {
	doc, err := api.OpenAPIDocument(strings.TrimRight(os.Getenv("PUBLIC_URL"), "/"))
	var b bytes.Buffer
	if err == nil {
		err = json.Indent(&b, doc, "", "  ")
	}
	if err != nil {
		return write(stderr, "pilot: openapi: "+err.Error()+"\n", 1)
	}
	return write(stdout, b.String()+"\n", 0)
}

// versionText is what `pilot version` prints: the version, the Go toolchain, and the VCS revision Go
// stamped into the binary (with "modified" when the tree had uncommitted changes), when it did.
func versionText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pilot %s\n", version)
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintf(&b, "go %s\nrevision unknown\n", runtime.Version())
		return b.String()
	}
	fmt.Fprintf(&b, "go %s\n", info.GoVersion)
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	rev := settings["vcs.revision"]
	if rev == "" {
		b.WriteString("revision unknown\n")
		return b.String()
	}
	fmt.Fprintf(&b, "revision %s", rev)
	if t := settings["vcs.time"]; t != "" {
		fmt.Fprintf(&b, " (%s)", t)
	}
	if settings["vcs.modified"] == "true" {
		b.WriteString(" modified")
	}
	b.WriteString("\n")
	return b.String()
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.Production() {
		h = slog.NewJSONHandler(w, opts)
	}
	// Lines logged with a request's or a job's context carry its request id and trace ids.
	return slog.New(telemetry.NewLogHandler(h))
}

// startTelemetry builds the process's metrics (nil when METRICS_ADDR is unset; serveMetrics serves
// them) and tracing (exported to OTEL_EXPORTER_OTLP_ENDPOINT; nil when it is unset). The caller shuts
// tracing down, which flushes the last spans.
func startTelemetry(ctx context.Context, cfg *config.Config, logger *slog.Logger,
	service string) (*telemetry.Metrics, *telemetry.Tracing, error) {
	tracing, err := telemetry.NewTracing(ctx, telemetry.TracingConfig{Endpoint: cfg.OTLPEndpoint, Service: service})
	if err != nil {
		return nil, nil, err
	}
	if tracing != nil {
		logger.Info("exporting traces", "endpoint", cfg.OTLPEndpoint)
	}
	if cfg.MetricsAddr == "" {
		return nil, tracing, nil
	}
	return telemetry.NewMetrics(logger), tracing, nil
}

// serveMetrics serves metrics on METRICS_ADDR until ctx ends, with /healthz and /readyz from probes
// when it is not nil; nothing when metrics is nil (METRICS_ADDR unset).
func serveMetrics(ctx context.Context, cfg *config.Config, logger *slog.Logger, metrics *telemetry.Metrics,
	probes http.Handler) error {
	if metrics == nil {
		return nil
	}
	addr, err := metrics.Serve(ctx, cfg.MetricsAddr, probes)
	if err != nil {
		return err
	}
	paths := []string{"/metrics"}
	if probes != nil {
		paths = append(paths, "/healthz", "/readyz")
	}
	logger.Info("serving metrics", "addr", addr.String(), "paths", strings.Join(paths, ","))
	return nil
}

// stopTracing flushes the spans not yet exported, within a few seconds.
func stopTracing(tracing *telemetry.Tracing, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tracing.Shutdown(ctx); err != nil {
		logger.Warn("flush traces", "error", err)
	}
}

// openMigrated opens a pool of maxConns connections and applies the migrations (every process
// migrates at start, under one advisory lock).
func openMigrated(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	dbPool, err := db.OpenPool(ctx, url, maxConns)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, dbPool); err != nil {
		dbPool.Close()
		return nil, err
	}
	return dbPool, nil
}

func runMigrate(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string, stdout io.Writer) error {
	switch {
	case len(args) == 1 && args[0] == "--status":
		return printMigrationStatus(ctx, cfg, stdout)
	case len(args) > 0:
		return fmt.Errorf("migrate: unknown argument %q (pilot migrate [--status])", args[0])
	}
	dbPool, err := openMigrated(ctx, cfg.DatabaseURL, 4)
	if err != nil {
		return err
	}
	dbPool.Close()
	logger.Info("migrations applied")
	return nil
}

// printMigrationStatus lists every migration this binary has and every one the database applied: its
// version, state (applied, pending, or applied but unknown to this binary) and when it was applied, then
// both levels. It changes nothing.
func printMigrationStatus(ctx context.Context, cfg *config.Config, stdout io.Writer) error {
	dbPool, err := db.OpenPool(ctx, cfg.DatabaseURL, 2)
	if err != nil {
		return err
	}
	defer dbPool.Close()
	list, err := db.MigrationStatus(ctx, dbPool)
	if err != nil {
		return err
	}
	var b strings.Builder
	var level int64
	pending := 0
	for _, m := range list {
		state, at, name := "pending", "", m.Name
		switch {
		case m.Applied && m.Name == "":
			state, name = "applied", "(unknown to this binary: a newer Pilot applied it)"
		case m.Applied:
			state = "applied"
		default:
			pending++
		}
		if m.Applied {
			at = m.AppliedAt.UTC().Format(time.RFC3339)
			level = max(level, m.Version)
		}
		fmt.Fprintf(&b, "%05d  %-8s %-20s %s\n", m.Version, state, at, name)
	}
	fmt.Fprintf(&b, "database at %d, this binary at %d, %d pending\n", level, db.MigrationLevel(), pending)
	_, err = io.WriteString(stdout, b.String())
	return err
}

func runAPI(ctx context.Context, cfg *config.Config, logger *slog.Logger) error {
	dbPool, err := openMigrated(ctx, cfg.DatabaseURL, cfg.DatabaseMaxConns)
	if err != nil {
		return err
	}
	defer dbPool.Close()
	metrics, tracing, err := startTelemetry(ctx, cfg, logger, "pilot-api")
	if err != nil {
		return err
	}
	defer stopTracing(tracing, logger)
	// The api answers its probes on PORT (api.New), beside the operations.
	if err := serveMetrics(ctx, cfg, logger, metrics, nil); err != nil {
		return err
	}
	if err := servePprof(ctx, cfg.PprofAddr, logger); err != nil {
		return err
	}
	// Insert-only River client: no queues, never started.
	// Its FetchCooldown spaces the insert notifications it sends per queue. Its middleware put the
	// request id and trace context into each job's metadata.
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{Logger: logger,
		FetchCooldown: cfg.JobFetchCooldown, Middleware: telemetry.RiverMiddleware(nil, tracing)})
	if err != nil {
		return fmt.Errorf("river client: %w", err)
	}
	eng := engines.New(dbPool, riverClient, engines.Options{Webhooks: webhookOptions(cfg)})
	store := eng.Store
	attachments, err := attachmentStorage(cfg)
	if err != nil {
		return err
	}
	relay := stream.Start(ctx, store, stream.Config{Logger: logger, // ctx's end closes every stream
		FeedPoll: cfg.EventsPollInterval, FeedRetention: cfg.EventsRetention})
	access := accesscache.Start(ctx, store, logger)
	sessions := sessionwatch.Start(ctx, store, logger)
	metrics.WatchPool(dbPool)
	metrics.WatchRelay(sources.Relay(relay))
	metrics.WatchAccessCache(sources.Cache(access))
	signer, err := newSigner(ctx, cfg, eng.Identity, logger)
	if err != nil {
		return err
	}
	handler := api.New(eng, signer, billing.Local{PublicURL: cfg.PublicURL}, logger, api.Options{
		Production: cfg.Production(), NoDocs: !cfg.APIDocs, PublicURL: cfg.PublicURL,
		TrustProxyHeaders: cfg.TrustProxyHeaders, LoginRateLimit: cfg.LoginRateLimit,
		LoginAccountFailureLimit: cfg.LoginAccountFailureLimit, RegisterRateLimit: cfg.RegisterRateLimit,
		Storage: attachments, Relay: relay, AccessCache: access, Sessions: sessions,
		Metrics: metrics, Tracing: tracing, DraftWait: cfg.DraftWait, McpClaimTimeout: cfg.McpClaimTimeout,
		McpMaxSessionsPerUser: cfg.McpMaxSessionsPerUser, McpMaxSessions: cfg.McpMaxSessions,
		CORSOrigins: cfg.CORSOrigins, Context: ctx, // ctx's end closes every MCP session
		LanguageModel: languageModel(cfg.LLM), OIDC: oidcProviders(cfg), OIDCAllowedDomains: cfg.OIDCAllowedDomains,
		PasswordLoginOff: !cfg.PasswordLogin,
	})
	srv := &http.Server{
		Addr:              ":" + strconv.Itoa(cfg.Port),
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	// Listen before saying so: "api listening" means a connection is accepted from then on.
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", srv.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	errCh := make(chan error, 1)
	go func() { errCh <- srv.Serve(ln) }()
	logger.Info("api listening", "port", cfg.Port, "env", cfg.Env)
	select {
	case err := <-errCh:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("api shutting down", "grace", cfg.ShutdownGracePeriod)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGracePeriod)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// attachmentStorage keeps attachment files in S3 when S3_BUCKET is set, else under ATTACHMENTS_DIR.
func attachmentStorage(cfg *config.Config) (storage.Storage, error) {
	if cfg.S3Bucket == "" {
		return storage.NewLocal(cfg.AttachmentsDir), nil
	}
	s3, err := storage.NewS3(storage.S3Config{Endpoint: cfg.S3Endpoint, Region: cfg.S3Region, Bucket: cfg.S3Bucket,
		Prefix: cfg.S3Prefix, AccessKeyID: cfg.S3AccessKeyID, SecretAccessKey: cfg.S3SecretAccessKey,
		PathStyle: cfg.S3PathStyle})
	if err != nil {
		return nil, err
	}
	return s3, nil
}

func runWorker(ctx context.Context, cfg *config.Config, logger *slog.Logger) error {
	dbPool, err := openMigrated(ctx, cfg.DatabaseURL, cfg.DatabaseMaxConns)
	if err != nil {
		return err
	}
	defer dbPool.Close()
	metrics, tracing, err := startTelemetry(ctx, cfg, logger, "pilot-worker")
	if err != nil {
		return err
	}
	defer stopTracing(tracing, logger)
	var mailer mail.Sender
	if cfg.SMTPURL != "" {
		if mailer, err = mail.NewSMTP(cfg.SMTPURL, cfg.SMTPFrom); err != nil {
			return err
		}
	}
	attachments, err := attachmentStorage(cfg)
	if err != nil {
		return err
	}
	provider := llm.New(llm.Config{BaseURL: cfg.LLM.BaseURL, APIKey: cfg.LLM.APIKey, Model: cfg.LLM.Model})
	queues := workers.Queues(cfg.WorkerConcurrency)
	riverClient, eng, err := workers.NewClient(dbPool, workers.Config{Concurrency: cfg.WorkerConcurrency,
		DueDateScanInterval: cfg.DueDateScanInterval, MissionTimeout: cfg.MissionTimeout, DraftTimeout: cfg.DraftTimeout,
		MissionInputTimeout: cfg.MissionInputTimeout, MissionStaleAfter: cfg.MissionStaleAfter,
		RescueStuckJobsAfter: cfg.WorkerRescueAfter, PollInterval: cfg.WorkerPollInterval,
		FetchCooldown: cfg.JobFetchCooldown, Mailer: mailer, Logger: logger, LLM: provider, Storage: attachments,
		Middleware: telemetry.RiverMiddleware(metrics, tracing), Webhooks: webhookOptions(cfg),
		AuditRetention: cfg.AuditRetention})
	if err != nil {
		return err
	}
	metrics.WatchPool(dbPool)
	store := eng.Store
	metrics.WatchQueues(sources.Queues(store), slices.Sorted(maps.Keys(queues)))
	// The worker has no other listener: its probes are on the metrics address. /readyz answers 503 until
	// River has started; the listener closes when ctx ends, as the soft stop begins (a probe already in
	// flight then is answered 503).
	jobsRunning := &jobClientState{}
	if err := serveMetrics(ctx, cfg, logger, metrics, telemetry.Probes(logger, workerChecks(store,
		jobsRunning)...)); err != nil {
		return err
	}
	if err := servePprof(ctx, cfg.PprofAddr, logger); err != nil {
		return err
	}
	// Started on a context the signal does not cancel: cancelling Start's context is River's hard stop,
	// which would cancel running jobs at once. SIGTERM is a soft stop (below): no new fetches, running
	// jobs get SHUTDOWN_GRACE_PERIOD to finish, then they are cancelled and released for retry.
	if err := riverClient.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start river: %w", err)
	}
	jobsRunning.started(riverClient.Stopped())
	logger.Info("worker started", "concurrency", cfg.WorkerConcurrency, "llm", provider.Name())
	<-ctx.Done()
	jobsRunning.stopping()
	logger.Info("worker stopping softly", "grace", cfg.ShutdownGracePeriod)
	softCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGracePeriod)
	defer cancel()
	if err := riverClient.Stop(softCtx); err != nil {
		logger.Warn("soft stop timed out; cancelling running jobs", "error", err)
		hardCtx, cancelHard := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancelHard()
		return riverClient.StopAndCancel(hardCtx)
	}
	return nil
}

// webhookOptions are the webhook engine's options from the configuration: the api checks addresses and
// seals secrets with them, the worker delivers.
func webhookOptions(cfg *config.Config) webhook.Options {
	secrets := [][]byte{}
	if len(cfg.JWTSecret) > 0 {
		secrets = append(append(secrets, cfg.JWTSecret), cfg.JWTPreviousSecrets...)
	}
	return webhook.Options{Production: cfg.Production(), AllowPrivate: cfg.WebhookAllowPrivate, ServerSecrets: secrets,
		AttemptWindow: cfg.WebhookAttemptWindow, FailureLimit: cfg.WebhookFailureLimit,
		DeliveryRetention: cfg.WebhookDeliveryRetention}
}

// languageModel is the model agents' missions ask for by default, as the api tells clients: LLM_MODEL (or
// llm's default) when an OpenAI-compatible server is configured, empty for the offline planner. It names what
// llm.New chooses from the same settings.
func languageModel(c config.LLM) string {
	if c.APIKey == "" {
		return ""
	}
	if c.Model == "" {
		return llm.DefaultModel
	}
	return c.Model
}

// oidcProviders builds the OpenID Connect providers of the configuration, once; their redirect URI is
// PUBLIC_URL + /auth/oidc/<id>/callback. Nothing is fetched before a sign-in needs it.
func oidcProviders(cfg *config.Config) *oidc.Set {
	configs := make([]oidc.Config, 0, len(cfg.OIDCProviders))
	for _, p := range cfg.OIDCProviders {
		configs = append(configs, oidc.Config{ID: p.ID, Name: p.Name, Issuer: p.Issuer, ClientID: p.ClientID,
			ClientSecret: p.ClientSecret, Scopes: p.Scopes})
	}
	return oidc.New(configs, func(id string) string { return cfg.PublicURL + "/auth/oidc/" + id + "/callback" }, nil)
}

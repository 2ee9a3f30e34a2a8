// Command pilot runs Pilot's processes: `pilot api`, `pilot worker` and `pilot migrate`.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/pilot-dev/pilot/api"
	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/config"
	"github.com/pilot-dev/pilot/internal/mail"
	"github.com/pilot-dev/pilot/internal/sessionwatch"
	"github.com/pilot-dev/pilot/internal/storage"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/telemetry"
	"github.com/pilot-dev/pilot/internal/telemetry/sources"
	"github.com/pilot-dev/pilot/llm"
	"github.com/pilot-dev/pilot/workers"
)

const usage = `usage: pilot <command>

commands:
  api      serve the HTTP API (migrates first)
  worker   run background jobs (migrates first)
  migrate  apply database migrations and exit
  keys rotate
           make a new session signing key (when JWT_SECRET is unset); older keys verify until their
           sessions expire`

// defaultGCPercent is the garbage collector's target unless GOGC is set.
const defaultGCPercent = 400

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	logger := newLogger(cfg)
	if os.Getenv("GOGC") == "" {
		// Requests allocate short-lived buffers on a small live heap, so the default GOGC=100 collects
		// very often: 400 measured 25-30% more card lists and creates per second (make bench). GOGC set
		// in the environment wins, and GOMEMLIMIT still bounds the heap.
		debug.SetGCPercent(defaultGCPercent)
	}
	var run func(context.Context, *config.Config, *slog.Logger) error
	switch os.Args[1] {
	case "api":
		run = runAPI
	case "worker":
		run = runWorker
	case "migrate":
		run = runMigrate
	case "keys":
		run = func(ctx context.Context, cfg *config.Config, logger *slog.Logger) error {
			return runKeys(ctx, cfg, logger, os.Args[2:])
		}
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}

	// No defer: os.Exit below would skip it, so the signal handler is stopped before exiting.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, cfg, logger)
	stop()
	if err != nil {
		logger.Error("exiting", "command", os.Args[1], "error", err)
		os.Exit(1)
	}
}

func newLogger(cfg *config.Config) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, opts)
	if cfg.Production() {
		h = slog.NewJSONHandler(os.Stderr, opts)
	}
	// Lines logged with a request's or a job's context carry its request id and trace ids.
	return slog.New(telemetry.NewLogHandler(h))
}

// startTelemetry builds the process's metrics (served on METRICS_ADDR; nil when it is unset) and
// tracing (exported to OTEL_EXPORTER_OTLP_ENDPOINT; nil when it is unset). The metrics server stops
// when ctx ends; the caller shuts tracing down, which flushes the last spans.
func startTelemetry(ctx context.Context, cfg *config.Config, logger *slog.Logger, service string) (*telemetry.Metrics, *telemetry.Tracing, error) {
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
	metrics := telemetry.NewMetrics(logger)
	addr, err := metrics.Serve(ctx, cfg.MetricsAddr)
	if err != nil {
		return nil, nil, errors.Join(err, tracing.Shutdown(context.Background()))
	}
	logger.Info("serving metrics", "addr", addr.String(), "path", "/metrics")
	return metrics, tracing, nil
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

func runMigrate(ctx context.Context, cfg *config.Config, logger *slog.Logger) error {
	dbPool, err := openMigrated(ctx, cfg.DatabaseURL, 4)
	if err != nil {
		return err
	}
	dbPool.Close()
	logger.Info("migrations applied")
	return nil
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
	// Insert-only River client: no queues, never started.
	// Its FetchCooldown spaces the insert notifications it sends per queue. Its middleware put the
	// request id and trace context into each job's metadata.
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{Logger: logger, FetchCooldown: cfg.JobFetchCooldown,
		Middleware: telemetry.RiverMiddleware(nil, tracing)})
	if err != nil {
		return fmt.Errorf("river client: %w", err)
	}
	store := db.NewStore(dbPool, riverClient)
	attachments, err := attachmentStorage(cfg)
	if err != nil {
		return err
	}
	relay := stream.Start(ctx, store, stream.Config{Logger: logger}) // ctx's end closes every stream
	access := accesscache.Start(ctx, store, logger)
	sessions := sessionwatch.Start(ctx, store, logger)
	metrics.WatchPool(dbPool)
	metrics.WatchRelay(sources.Relay(relay))
	metrics.WatchAccessCache(sources.Cache(access))
	signer, err := newSigner(ctx, cfg, store, logger)
	if err != nil {
		return err
	}
	handler := api.New(store, signer, billing.Local{PublicURL: cfg.PublicURL}, logger, api.Options{
		Production: cfg.Production(), PublicURL: cfg.PublicURL, TrustProxyHeaders: cfg.TrustProxyHeaders, LoginRateLimit: cfg.LoginRateLimit,
		RegisterRateLimit: cfg.RegisterRateLimit, Storage: attachments, Relay: relay, AccessCache: access, Sessions: sessions, Metrics: metrics,
		Tracing: tracing, DraftWait: cfg.DraftWait,
		McpClaimTimeout: cfg.McpClaimTimeout, McpMaxSessionsPerUser: cfg.McpMaxSessionsPerUser, McpMaxSessions: cfg.McpMaxSessions,
		CORSOrigins: cfg.CORSOrigins, Context: ctx, // ctx's end closes every MCP session
	})
	srv := &http.Server{
		Addr:              ":" + strconv.Itoa(cfg.Port),
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	errCh := make(chan error, 1)
	go func() { errCh <- srv.ListenAndServe() }()
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
		Prefix: cfg.S3Prefix, AccessKeyID: cfg.S3AccessKeyID, SecretAccessKey: cfg.S3SecretAccessKey, PathStyle: cfg.S3PathStyle})
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
	riverClient, store, err := workers.NewClient(dbPool, workers.Config{Concurrency: cfg.WorkerConcurrency,
		DueDateScanInterval: cfg.DueDateScanInterval, MissionTimeout: cfg.MissionTimeout, DraftTimeout: cfg.DraftTimeout, RescueStuckJobsAfter: cfg.WorkerRescueAfter,
		PollInterval: cfg.WorkerPollInterval, FetchCooldown: cfg.JobFetchCooldown, Mailer: mailer, Logger: logger, LLM: provider,
		Storage: attachments, Middleware: telemetry.RiverMiddleware(metrics, tracing)})
	if err != nil {
		return err
	}
	metrics.WatchPool(dbPool)
	metrics.WatchQueues(sources.Queues(store), slices.Sorted(maps.Keys(queues)))
	// Started on a context the signal does not cancel: cancelling Start's context is River's hard stop,
	// which would cancel running jobs at once. SIGTERM is a soft stop (below): no new fetches, running
	// jobs get SHUTDOWN_GRACE_PERIOD to finish, then they are cancelled and released for retry.
	if err := riverClient.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start river: %w", err)
	}
	logger.Info("worker started", "concurrency", cfg.WorkerConcurrency, "llm", provider.Name())
	<-ctx.Done()
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

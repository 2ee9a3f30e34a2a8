// Package db is Pilot's store: the PostgreSQL pool, the embedded migrations, transactions, activity
// recording, ids, pages, streams and plugins, and the record shapes every engine shares. Each domain is
// an engine behind it (db/board, db/mission, …), built once by db/engines. Each write runs in one
// transaction that also enqueues its follow-up River jobs, so a write and its jobs commit together or
// not at all. Handlers and workers call the store and its engines; neither writes SQL.
package db

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLockID is the advisory lock that serialises app and River migrations across processes.
const migrationLockID int64 = 0x70696c6f74 // "pilot"

// OpenPool connects to PostgreSQL and checks the connection.
func OpenPool(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	dbPool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := dbPool.Ping(pingCtx); err != nil {
		dbPool.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return dbPool, nil
}

// Migrate applies the app's and River's migrations under one advisory lock, so processes that start
// together migrate once. A database migrated by a newer Pilot is refused (*SchemaTooNewError, naming
// both levels) before anything runs: this binary's code does not know its schema.
func Migrate(ctx context.Context, dbPool *pgxpool.Pool) (err error) {
	return MigrateTo(ctx, dbPool, 0)
}

// MigrateTo is Migrate stopping at the app migration version (0: every one); the upgrade test builds
// databases at earlier levels with it.
func MigrateTo(ctx context.Context, dbPool *pgxpool.Pool, version int64) (err error) {
	conn, err := dbPool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLockID)
	}()

	if err := CheckNotNewer(ctx, dbPool); err != nil {
		return err
	}
	migrator, err := rivermigrate.New(riverpgxv5.New(dbPool), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}

	sub, err := fs.Sub(migrationFS, "migrations")
	if err != nil {
		return fmt.Errorf("migrations fs: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(dbPool)
	defer func() {
		if cerr := sqlDB.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close migrations connection: %w", cerr))
		}
	}()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, sub)
	if err != nil {
		return fmt.Errorf("goose provider: %w", err)
	}
	if version > 0 {
		_, err = provider.UpTo(ctx, version)
	} else {
		_, err = provider.Up(ctx)
	}
	if err != nil {
		return fmt.Errorf("app migrations: %w", err)
	}
	return nil
}

// MigrationsPending reports whether app migrations remain to be applied (readiness check).
func MigrationsPending(ctx context.Context, dbPool *pgxpool.Pool) (pending bool, err error) {
	sub, err := fs.Sub(migrationFS, "migrations")
	if err != nil {
		return false, err
	}
	sqlDB := stdlib.OpenDBFromPool(dbPool)
	defer func() {
		if cerr := sqlDB.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close migrations connection: %w", cerr))
		}
	}()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, sub)
	if err != nil {
		return false, err
	}
	return provider.HasPending(ctx)
}

// Store runs Pilot's domain operations against PostgreSQL and enqueues their follow-up jobs.
type Store struct {
	core *dbcore.Core
	q    *dbsqlc.Queries
	// audit records the plugin changes in the audit log (db/audit's engine).
	audit Auditor
}

// NewStore builds the store on core, which the engines built beside it share (db/engines builds them
// all, once); auditor records the audit log entries of the store's own changes.
func NewStore(core *dbcore.Core, auditor Auditor) *Store {
	return &Store{core: core, q: core.Q, audit: auditor}
}

// InTx runs fn in a transaction, committing when fn returns nil and rolling back otherwise: callers
// compose the store's …Tx operations in it. A lost connection while beginning or committing is
// ErrUnavailable.
func (s *Store) InTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return dbcore.Unavailable(pgx.BeginFunc(ctx, s.core.Pool, fn))
}

// Ping checks that the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error { return s.core.Pool.Ping(ctx) }

// MigrationsPending reports whether app migrations remain to be applied (readiness).
func (s *Store) MigrationsPending(ctx context.Context) (bool, error) {
	return MigrationsPending(ctx, s.core.Pool)
}

// MigrationFS exposes the embedded migrations (tests key their template database on them).
func MigrationFS() fs.FS { return migrationFS }

// NewID returns a new time-ordered identifier (UUIDv7) as a string.
func NewID() string { return dbcore.NewID() }

// StepWaiter ends the pipeline steps that wait for ref ("mission:<id>", "draft:<id>", a webhook
// delivery's) in the caller's transaction: completed with output merged into the step's, or failed with
// errText. The pipeline engine implements it; missions, drafts, webhooks and the board are handed it
// when they are built, so they end the steps waiting for them without importing the engine that
// imports them.
type StepWaiter interface {
	WaitFinishedTx(ctx context.Context, tx pgx.Tx, ref string, output map[string]any, errText string) error
}

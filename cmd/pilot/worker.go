package main

import (
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/config"
	"github.com/pilot-dev/pilot/internal/mail"
	"github.com/pilot-dev/pilot/workers"
)

// newWorkerClient builds the working River client. The store it hands workers uses the same client, so
// jobs a worker enqueues commit with the worker's writes.
func newWorkerClient(dbPool *pgxpool.Pool, cfg *config.Config, logger *slog.Logger, mailer mail.Sender) (*river.Client[pgx.Tx], error) {
	riverWorkers := river.NewWorkers()
	riverClient, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{
		Logger:  logger,
		Queues:  workers.Queues(cfg.WorkerConcurrency),
		Workers: riverWorkers,
	})
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	store := db.NewStore(dbPool, riverClient)
	if err := workers.Register(riverWorkers, workers.Deps{Store: store, Mailer: mailer, Logger: logger}); err != nil {
		return nil, fmt.Errorf("register workers: %w", err)
	}
	return riverClient, nil
}

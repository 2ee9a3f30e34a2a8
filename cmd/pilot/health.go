package main

import (
	"context"
	"errors"
	"sync"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/telemetry"
)

// databaseChecks are the readiness conditions every process shares, as the api's /readyz checks them:
// the database answers, and every migration is applied.
func databaseChecks(store *db.Store) []telemetry.Check {
	return []telemetry.Check{
		{Failing: "database unreachable", Run: store.Ping},
		{Failing: "migrations not applied", Run: func(ctx context.Context) error {
			pending, err := store.MigrationsPending(ctx)
			if err == nil && pending {
				err = errors.New("migrations pending")
			}
			return err
		}},
	}
}

// workerChecks are the worker's readiness conditions: the database's, and its River client running.
func workerChecks(store *db.Store, jobs *jobClientState) []telemetry.Check {
	return append(databaseChecks(store), telemetry.Check{Failing: "job client not running", Run: jobs.check})
}

// jobClientState tells whether the worker's River client runs: from a successful Start until the
// worker begins to stop, or River stops by itself. River has no "running" accessor: its Stopped
// channel is only valid once Start has returned, so runWorker hands it over then.
type jobClientState struct {
	mu        sync.Mutex
	stopped   <-chan struct{} // the client's Stopped(); nil until started
	isStopped bool
}

// started records that the client runs, until stopped is closed.
func (j *jobClientState) started(stopped <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.stopped = stopped
}

// stopping records that the worker is stopping its client (a soft stop: running jobs finish, nothing
// new is fetched), so the worker is no longer ready.
func (j *jobClientState) stopping() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.isStopped = true
}

func (j *jobClientState) check(context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.isStopped:
		return errors.New("the worker is stopping")
	case j.stopped == nil:
		return errors.New("the job client has not started")
	}
	select {
	case <-j.stopped:
		return errors.New("the job client stopped")
	default:
		return nil
	}
}

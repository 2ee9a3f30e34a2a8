package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Migration is one app migration as `pilot migrate --status` lists it: known to this binary (Name set),
// applied to the database (AppliedAt set), or both.
type Migration struct {
	Version   int64
	Name      string // the file's name; empty for a migration the database has and this binary does not
	Applied   bool
	AppliedAt time.Time
}

// SchemaTooNewError refuses to run against a database migrated by a newer Pilot: this binary's code
// would read and write a schema it does not know.
type SchemaTooNewError struct {
	Database int64 // the highest migration applied to the database
	Binary   int64 // the highest migration this binary has
}

func (e *SchemaTooNewError) Error() string {
	return fmt.Sprintf("the database is at migration %d, newer than this binary's %d: run the Pilot release "+
		"that migrated it (or a newer one), or restore a backup taken at migration %d or older", e.Database,
		e.Binary, e.Binary)
}

// MigrationLevel is the highest app migration this binary has: the level `pilot migrate` brings a
// database to, and the one a backup records.
func MigrationLevel() int64 {
	known, err := knownMigrations()
	if err != nil || len(known) == 0 {
		return 0
	}
	return known[len(known)-1].Version
}

// knownMigrations are the embedded migration files in version order.
func knownMigrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("migration %s: no version number", e.Name())
		}
		out = append(out, Migration{Version: v, Name: e.Name()})
	}
	slices.SortFunc(out, func(a, b Migration) int { return int(a.Version - b.Version) })
	return out, nil
}

// appliedMigrations reads goose's table without creating it: the versions applied, with when. An empty
// database (no table yet) has none.
func appliedMigrations(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) (map[int64]time.Time, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, fmt.Errorf("look for the migrations table: %w", err)
	}
	out := map[int64]time.Time{}
	if !exists {
		return out, nil
	}
	// goose records an undone migration as a row with is_applied false after its applied row; the
	// latest row of each version says.
	rows, err := q.Query(ctx, `SELECT DISTINCT ON (version_id) version_id, is_applied, tstamp
		FROM goose_db_version WHERE version_id > 0 ORDER BY version_id, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("read applied migrations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int64
		var applied bool
		var at time.Time
		if err := rows.Scan(&v, &applied, &at); err != nil {
			return nil, err
		}
		if applied {
			out[v] = at
		}
	}
	return out, rows.Err()
}

// MigrationStatus lists every app migration this binary has and every one the database has applied, in
// version order, without changing the database.
func MigrationStatus(ctx context.Context, dbPool *pgxpool.Pool) ([]Migration, error) {
	known, err := knownMigrations()
	if err != nil {
		return nil, err
	}
	applied, err := appliedMigrations(ctx, dbPool)
	if err != nil {
		return nil, err
	}
	out := make([]Migration, 0, len(known))
	for _, m := range known {
		if at, ok := applied[m.Version]; ok {
			m.Applied, m.AppliedAt = true, at
			delete(applied, m.Version)
		}
		out = append(out, m)
	}
	for v, at := range applied {
		out = append(out, Migration{Version: v, Applied: true, AppliedAt: at})
	}
	slices.SortFunc(out, func(a, b Migration) int { return int(a.Version - b.Version) })
	return out, nil
}

// DatabaseLevel is the highest app migration applied to the database (0 for an empty one).
func DatabaseLevel(ctx context.Context, dbPool *pgxpool.Pool) (int64, error) {
	applied, err := appliedMigrations(ctx, dbPool)
	if err != nil {
		return 0, err
	}
	var top int64
	for v := range applied {
		top = max(top, v)
	}
	return top, nil
}

// DatabaseLevelTx is DatabaseLevel read in tx (a backup's snapshot).
func DatabaseLevelTx(ctx context.Context, tx pgx.Tx) (int64, error) {
	applied, err := appliedMigrations(ctx, tx)
	if err != nil {
		return 0, err
	}
	var top int64
	for v := range applied {
		top = max(top, v)
	}
	return top, nil
}

// CheckNotNewer answers a *SchemaTooNewError when the database has a migration beyond this binary's.
func CheckNotNewer(ctx context.Context, dbPool *pgxpool.Pool) error {
	level, err := DatabaseLevel(ctx, dbPool)
	if err != nil {
		return err
	}
	if binary := MigrationLevel(); level > binary {
		return &SchemaTooNewError{Database: level, Binary: binary}
	}
	return nil
}

// IsSchemaTooNew reports whether err refuses a database newer than the binary.
func IsSchemaTooNew(err error) bool {
	var e *SchemaTooNewError
	return errors.As(err, &e)
}

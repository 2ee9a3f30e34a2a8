package main

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
)

// `pilot migrate --status` lists each migration applied or pending without applying any, and ends with
// both levels.
func TestMigrateStatus(t *testing.T) {
	url := testEnv(t)
	head := db.MigrationLevel()
	require.Greater(t, head, int64(30))

	code, stdout, stderr := runCmd(t, "migrate", "--status")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, regexp.MustCompile(`(?m)^00001  applied  \S+ +00001_foundation\.sql$`), stdout)
	require.Contains(t, stdout, fmt.Sprintf("database at %d, this binary at %d, 0 pending\n", head, head))

	// Undo the last migration: it is pending, and --status leaves it so.
	ctx := context.Background()
	sqlDB, err := goose.OpenDBWithDriver("pgx", url)
	require.NoError(t, err)
	defer sqlDB.Close()
	sub, err := fs.Sub(db.MigrationFS(), "migrations")
	require.NoError(t, err)
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, sub)
	require.NoError(t, err)
	_, err = provider.DownTo(ctx, head-1)
	require.NoError(t, err)
	for range 2 {
		code, stdout, stderr = runCmd(t, "migrate", "--status")
		require.Equal(t, 0, code, stderr)
		require.Regexp(t, regexp.MustCompile(fmt.Sprintf(`(?m)^%05d  pending +%05d_\S+\.sql$`, head, head)), stdout)
		require.Contains(t, stdout, fmt.Sprintf("database at %d, this binary at %d, 1 pending\n", head-1, head))
	}
	code, _, stderr = runCmd(t, "migrate", "--bogus")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `unknown argument \"--bogus\"`)

	code, _, stderr = runCmd(t, "migrate")
	require.Equal(t, 0, code, stderr)
	code, stdout, _ = runCmd(t, "migrate", "--status")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "0 pending\n")
}

// A database a newer Pilot migrated is refused by every process that would migrate it or run on it,
// naming both levels, before anything is changed.
func TestNewerDatabaseRefused(t *testing.T) {
	url := testEnv(t)
	ctx := context.Background()
	head := db.MigrationLevel()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer func() { require.NoError(t, conn.Close(ctx)) }()
	var before, after int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM goose_db_version`).Scan(&before))
	_, err = conn.Exec(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES ($1, true)`, head+3)
	require.NoError(t, err)

	want := fmt.Sprintf("the database is at migration %d, newer than this binary's %d", head+3, head)
	for _, cmd := range []string{"migrate", "api", "worker"} {
		code, _, stderr := runCmd(t, cmd)
		require.Equal(t, 1, code, cmd)
		require.Contains(t, stderr, want, cmd)
	}
	code, stdout, stderr := runCmd(t, "migrate", "--status")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, regexp.MustCompile(fmt.Sprintf(`(?m)^%05d  applied  \S+ +\(unknown to this binary`, head+3)), stdout)
	require.Contains(t, stdout, fmt.Sprintf("database at %d, this binary at %d, 0 pending", head+3, head))
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM goose_db_version`).Scan(&after))
	require.Equal(t, before+1, after, "nothing was applied or undone")
}

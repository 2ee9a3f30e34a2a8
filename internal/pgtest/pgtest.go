// Package pgtest gives each test its own PostgreSQL database, cloned from a migrated template. The
// cluster comes from PILOT_TEST_DATABASE_URL, which `make test` sets after starting a throwaway cluster.
package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pilot-dev/pilot/db"
)

// templateLockID serialises template creation across test binaries.
const templateLockID int64 = 0x70696c6f7474

// AdminURL is the URL of the test cluster's maintenance database.
func AdminURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("PILOT_TEST_DATABASE_URL")
	if u == "" {
		t.Fatal("PILOT_TEST_DATABASE_URL is not set: run the tests with `make test`, which starts a throwaway PostgreSQL")
	}
	return u
}

// URL creates a fresh, migrated database for this test and returns its URL. It is dropped at cleanup.
func URL(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	admin := AdminURL(t)
	tmpl := ensureTemplate(t, admin)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to test cluster: %v", err)
	}
	defer closeAdmin(t, conn)
	name := "t_" + strings.ReplaceAll(db.NewID(), "-", "")
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s STRATEGY FILE_COPY", name, tmpl)); err != nil {
		t.Fatalf("clone template: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			t.Errorf("connect to drop database: %v", err)
			return
		}
		defer closeAdmin(t, c)
		if _, err := c.Exec(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Errorf("drop database: %v", err)
		}
	})
	return withDatabase(admin, name)
}

// Pool returns a pool on a fresh, migrated database, closed at cleanup.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dbPool, err := db.OpenPool(context.Background(), URL(t), 10)
	if err != nil {
		t.Fatalf("open pool: %v", err)
	}
	t.Cleanup(dbPool.Close)
	return dbPool
}

// closeAdmin closes a connection to the test cluster's admin database, reporting a failure to the test.
func closeAdmin(t testing.TB, conn *pgx.Conn) {
	t.Helper()
	if err := conn.Close(context.Background()); err != nil {
		t.Errorf("close admin connection: %v", err)
	}
}

func withDatabase(url, name string) string {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		panic(err)
	}
	q := ""
	if i := strings.Index(url, "?"); i >= 0 {
		q = url[i:]
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s%s", cfg.User, cfg.Host, cfg.Port, name, q)
}

// ensureTemplate creates the migrated template database once per migration set.
func ensureTemplate(t testing.TB, admin string) string {
	t.Helper()
	ctx := context.Background()
	name := "pilot_tmpl_" + migrationsHash(t)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to test cluster: %v", err)
	}
	defer closeAdmin(t, conn)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLockID); err != nil {
		t.Fatalf("lock: %v", err)
	}
	defer func() {
		// Best effort: closing the session just after releases the lock anyway.
		_, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", templateLockID)
	}()
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)",
		name).Scan(&exists); err != nil {
		t.Fatalf("look up template: %v", err)
	}
	if exists {
		return name
	}
	building := name + "_building"
	if _, err := conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", building)); err != nil {
		t.Fatalf("drop stale template: %v", err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		t.Fatalf("create template: %v", err)
	}
	dbPool, err := db.OpenPool(ctx, withDatabase(admin, building), 4)
	if err != nil {
		t.Fatalf("open template: %v", err)
	}
	err = db.Migrate(ctx, dbPool)
	dbPool.Close()
	if err != nil {
		t.Fatalf("migrate template: %v", err)
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, name)); err != nil {
		t.Fatalf("publish template: %v", err)
	}
	return name
}

func migrationsHash(t testing.TB) string {
	h := sha256.New()
	err := fs.WalkDir(db.MigrationFS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(db.MigrationFS(), path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatalf("hash migrations: %v", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// EmptyURL creates an empty database (no migration applied) for this test and returns its URL. It is
// dropped at cleanup.
func EmptyURL(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	admin := AdminURL(t)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to test cluster: %v", err)
	}
	defer closeAdmin(t, conn)
	name := "e_" + strings.ReplaceAll(db.NewID(), "-", "")
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			t.Errorf("connect to drop database: %v", err)
			return
		}
		defer closeAdmin(t, c)
		if _, err := c.Exec(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Errorf("drop database: %v", err)
		}
	})
	return withDatabase(admin, name)
}

// EmptyPool returns a pool on an empty database (EmptyURL), closed at cleanup.
func EmptyPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dbPool, err := db.OpenPool(context.Background(), EmptyURL(t), 4)
	if err != nil {
		t.Fatalf("open pool: %v", err)
	}
	t.Cleanup(dbPool.Close)
	return dbPool
}

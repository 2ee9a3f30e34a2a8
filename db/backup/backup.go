// Package backup writes the whole of a Pilot installation into one archive and restores it: the
// database as PostgreSQL's custom-format dump (pg_dump, pg_restore), the attachment files the dump
// references, and a manifest (Pilot's version, the migration level, rows per table, the SHA-256 of every
// part). A backup is consistent while api and workers run: pg_dump reads one snapshot, exported from a
// transaction that also reads the row counts and the attachment keys, so the files copied are exactly
// those the dump references (a file uploaded during the backup is in neither).
package backup

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/storage"
)

// Names of the archive's parts.
const (
	manifestName   = "manifest.json"
	dumpName       = "database.dump"
	attachmentsDir = "attachments/"
	formatVersion  = 1
)

// Manifest describes an archive; it is its last part.
type Manifest struct {
	Format         int              `json:"format"`
	PilotVersion   string           `json:"pilotVersion"`
	MigrationLevel int64            `json:"migrationLevel"`
	ServerVersion  string           `json:"serverVersion"`
	CreatedAt      time.Time        `json:"createdAt"`
	Tables         map[string]int64 `json:"tables"` // rows per table (schema-qualified), in the snapshot
	// Checksums are each table's TableChecksum in the snapshot: a restore compares them before migrating.
	Checksums   map[string]string `json:"checksums"`
	Attachments int               `json:"attachments"`
	// MissingAttachments are keys the database referenced whose file was gone when copied (deleted
	// between the snapshot and the copy, or lost before): restored rows that name no file.
	MissingAttachments []string        `json:"missingAttachments,omitempty"`
	Parts              map[string]Part `json:"parts"` // every other part of the archive
}

// Part is one file of the archive.
type Part struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Options are what a backup or a restore works with.
type Options struct {
	DatabaseURL  string
	Storage      storage.Storage
	PilotVersion string
	Logger       *slog.Logger
	// PgBinDir, when set, is where pg_dump and pg_restore are; else beside initdb on PATH, in the newest
	// /usr/lib/postgresql/*/bin, or on PATH.
	PgBinDir string
}

// pgTool finds a PostgreSQL client program (pg_dump, pg_restore) and checks that its major version is
// not older than the server's (an older pg_dump refuses a newer server, or dumps it wrongly).
func pgTool(ctx context.Context, name, binDir string, serverMajor int) (string, error) {
	path := ""
	var candidates []string
	if binDir != "" {
		candidates = append(candidates, filepath.Join(binDir, name))
	} else {
		if initdb, err := exec.LookPath("initdb"); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(initdb), name))
		}
		dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		sort.Slice(dirs, func(i, j int) bool { return pgDirMajor(dirs[i]) > pgDirMajor(dirs[j]) })
		for _, d := range dirs {
			candidates = append(candidates, filepath.Join(d, name))
		}
		if p, err := exec.LookPath(name); err == nil {
			candidates = append(candidates, p)
		}
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			path = c
			break
		}
	}
	if path == "" {
		return "", fmt.Errorf("%s not found (beside initdb, in /usr/lib/postgresql/*/bin or on PATH): install "+
			"PostgreSQL's client programs (Debian: postgresql-client-%d)", name, serverMajor)
	}
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	m := regexp.MustCompile(`(\d+)(\.\d+)?`).FindStringSubmatch(string(out))
	if m == nil {
		return "", fmt.Errorf("%s --version: no version in %q", path, out)
	}
	major, _ := strconv.Atoi(m[1])
	if major < serverMajor {
		return "", fmt.Errorf("%s is PostgreSQL %d, older than the server's %d: it cannot dump or restore this "+
			"server; install PostgreSQL %d's client programs (Debian: postgresql-client-%d)", path, major,
			serverMajor, serverMajor, serverMajor)
	}
	return path, nil
}

func pgDirMajor(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// libpqURL is the database URL as pg_dump reads it: pgx's own pool settings removed.
func libpqURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return raw
	}
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func serverMajor(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, string, error) {
	var num int
	var text string
	if err := q.QueryRow(ctx, `SELECT current_setting('server_version_num')::int, current_setting('server_version')`).
		Scan(&num, &text); err != nil {
		return 0, "", fmt.Errorf("read the server's version: %w", err)
	}
	return num / 10000, text, nil
}

// TableChecksum is the query that sums a table's rows into a checksum: the sum of the first 64 bits
// of each row's md5 (of its text form), so it reads the table once, needs no sort and no memory per row,
// and does not depend on the rows' order. %s is the table's quoted name.
const TableChecksum = `SELECT count(*),
	coalesce(sum(('x' || left(md5(t::text), 16))::bit(64)::bigint::numeric), 0)::text FROM %s t`

// tableSums counts the rows of every table of the database's own schemas, with their checksums.
func tableSums(ctx context.Context, tx pgx.Tx) (counts map[string]int64, sums map[string]string, err error) {
	rows, err := tx.Query(ctx, `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`)
	if err != nil {
		return nil, nil, fmt.Errorf("list tables: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, nil, fmt.Errorf("list tables: %w", err)
	}
	counts, sums = make(map[string]int64, len(names)), make(map[string]string, len(names))
	for _, n := range names {
		var c int64
		var sum string
		if err := tx.QueryRow(ctx, fmt.Sprintf(TableChecksum, n)).Scan(&c, &sum); err != nil {
			return nil, nil, fmt.Errorf("sum %s: %w", n, err)
		}
		counts[n], sums[n] = c, sum
	}
	return counts, sums, nil
}

// hashingWriter counts and hashes what is written through it.
type hashingWriter struct {
	w io.Writer
	h hashState
	n int64
}

type hashState interface {
	io.Writer
	Sum([]byte) []byte
}

func (h *hashingWriter) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	_, _ = h.h.Write(p[:n]) // a hash never fails
	h.n += int64(n)
	return n, err
}

// addFile writes the file at path into the archive as name, answering its part.
func addFile(tw *tar.Writer, name, path string) (Part, error) {
	f, err := os.Open(path) //nolint:gosec // a file of the backup's own temporary directory
	if err != nil {
		return Part{}, err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return Part{}, err
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: st.Size(), ModTime: st.ModTime(),
		Typeflag: tar.TypeReg}); err != nil {
		return Part{}, err
	}
	hw := &hashingWriter{w: tw, h: sha256.New()}
	if _, err := io.Copy(hw, f); err != nil {
		return Part{}, fmt.Errorf("archive %s: %w", name, err)
	}
	return Part{Size: hw.n, SHA256: hex.EncodeToString(hw.h.Sum(nil))}, nil
}

// Backup writes the archive to w and answers its manifest. pool is the database's; opts.DatabaseURL
// is given to pg_dump.
func Backup(ctx context.Context, pool *pgxpool.Pool, opts Options, w io.Writer) (*Manifest, error) {
	major, serverText, err := serverMajor(ctx, pool)
	if err != nil {
		return nil, err
	}
	pgDump, err := pgTool(ctx, "pg_dump", opts.PgBinDir, major)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "pilot-backup-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()

	m := &Manifest{Format: formatVersion, PilotVersion: opts.PilotVersion, ServerVersion: serverText,
		CreatedAt: time.Now().UTC(), Parts: map[string]Part{}}
	// One snapshot for all: the exporting transaction stays open until pg_dump is done with it.
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("begin snapshot: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var snapshot string
	if err := tx.QueryRow(ctx, `SELECT pg_export_snapshot()`).Scan(&snapshot); err != nil {
		return nil, fmt.Errorf("export snapshot: %w", err)
	}
	if m.MigrationLevel, err = db.DatabaseLevelTx(ctx, tx); err != nil {
		return nil, err
	}
	if binary := db.MigrationLevel(); m.MigrationLevel > binary {
		return nil, &db.SchemaTooNewError{Database: m.MigrationLevel, Binary: binary}
	}
	if m.Tables, m.Checksums, err = tableSums(ctx, tx); err != nil {
		return nil, err
	}
	keys, err := dbsqlc.New(tx).AttachmentStorageKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("list attachments: %w", err)
	}
	dumpPath := filepath.Join(tmp, dumpName)
	//nolint:gosec // pg_dump found by pgTool, arguments ours
	cmd := exec.CommandContext(ctx, pgDump, "--format=custom", "--snapshot="+snapshot, "--no-owner",
		"--no-privileges", "--file="+dumpPath, "--dbname="+libpqURL(opts.DatabaseURL))
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pg_dump: %w: %s", err, strings.TrimSpace(string(out)))
	}
	_ = tx.Rollback(ctx)

	tw := tar.NewWriter(w)
	if m.Parts[dumpName], err = addFile(tw, dumpName, dumpPath); err != nil {
		return nil, err
	}
	_ = os.Remove(dumpPath)
	for _, key := range keys {
		part, err := copyAttachment(ctx, tw, opts.Storage, key, tmp)
		if errors.Is(err, storage.ErrNotFound) {
			m.MissingAttachments = append(m.MissingAttachments, key)
			if opts.Logger != nil {
				opts.Logger.Warn("attachment file missing: its row is backed up without it", "key", key)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		m.Parts[attachmentsDir+key] = part
		m.Attachments++
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := tw.WriteHeader(&tar.Header{Name: manifestName, Mode: 0o600, Size: int64(len(b)), ModTime: m.CreatedAt,
		Typeflag: tar.TypeReg}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(b); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("finish archive: %w", err)
	}
	return m, nil
}

// copyAttachment spools the file of key (its size goes in the tar header first), then archives it.
func copyAttachment(ctx context.Context, tw *tar.Writer, st storage.Storage, key, tmp string) (Part, error) {
	r, err := st.Open(ctx, key)
	if err != nil {
		return Part{}, err
	}
	defer func() { _ = r.Close() }()
	spool := filepath.Join(tmp, "attachment")
	f, err := os.Create(spool) //nolint:gosec // in the backup's own temporary directory
	if err != nil {
		return Part{}, err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Part{}, fmt.Errorf("read attachment %s: %w", key, err)
	}
	defer func() { _ = os.Remove(spool) }()
	return addFile(tw, attachmentsDir+key, spool)
}

// Report is what a restore did.
type Report struct {
	PilotVersion string // the version that made the backup
	BackupLevel  int64  // the migration level of the backup
	MigratedTo   int64  // the level after the restore (this binary's)
	// Tables and Rows were restored, each table's rows matching the checksum the backup took.
	Tables         int
	Rows           int64
	Attachments    int
	AttachmentSize int64
	Missing        []string // attachment keys the backup lacked (MissingAttachments)
}

// Restore reads the archive from r into the database at opts.DatabaseURL (pool) and the attachment
// store, which must be empty unless force; then it migrates the database to this binary's level.
// Nothing is restored before every part's SHA-256 matches the manifest and the backup's level is known
// to this binary.
func Restore(ctx context.Context, pool *pgxpool.Pool, opts Options, r io.Reader, force bool) (*Report, error) {
	tmp, err := os.MkdirTemp("", "pilot-restore-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	m, err := extract(r, tmp)
	if err != nil {
		return nil, err
	}
	if binary := db.MigrationLevel(); m.MigrationLevel > binary {
		return nil, fmt.Errorf("the backup is at migration %d (Pilot %s), newer than this binary's %d: restore it "+
			"with Pilot %s or newer", m.MigrationLevel, m.PilotVersion, binary, m.PilotVersion)
	}
	major, _, err := serverMajor(ctx, pool)
	if err != nil {
		return nil, err
	}
	pgRestore, err := pgTool(ctx, "pg_restore", opts.PgBinDir, major)
	if err != nil {
		return nil, err
	}
	if err := ensureEmpty(ctx, pool, opts.Storage, force); err != nil {
		return nil, err
	}
	//nolint:gosec // pg_restore found by pgTool, arguments ours
	cmd := exec.CommandContext(ctx, pgRestore, "--no-owner", "--no-privileges", "--single-transaction",
		"--exit-on-error", "--dbname="+libpqURL(opts.DatabaseURL), filepath.Join(tmp, dumpName))
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pg_restore: %w: %s", err, strings.TrimSpace(string(out)))
	}
	rep := &Report{PilotVersion: m.PilotVersion, BackupLevel: m.MigrationLevel, Missing: m.MissingAttachments}
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	counts, sums, err := tableSums(ctx, tx)
	_ = tx.Rollback(ctx)
	if err != nil {
		return nil, err
	}
	for name, want := range m.Tables {
		if counts[name] != want || sums[name] != m.Checksums[name] {
			return nil, fmt.Errorf("restored table %s has %d rows (checksum %s), the backup's manifest says %d (%s)",
				name, counts[name], sums[name], want, m.Checksums[name])
		}
		rep.Tables++
		rep.Rows += want
	}
	for name, part := range m.Parts {
		key, ok := strings.CutPrefix(name, attachmentsDir)
		if !ok {
			continue
		}
		if err := putAttachment(ctx, opts.Storage, key, filepath.Join(tmp, filepath.FromSlash(name))); err != nil {
			return nil, err
		}
		rep.Attachments++
		rep.AttachmentSize += part.Size
	}
	if err := db.Migrate(ctx, pool); err != nil {
		return nil, fmt.Errorf("migrate the restored database: %w", err)
	}
	rep.MigratedTo = db.MigrationLevel()
	return rep, nil
}

func putAttachment(ctx context.Context, st storage.Storage, key, path string) error {
	f, err := os.Open(path) //nolint:gosec // a file of the restore's own temporary directory
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	if _, err := st.Put(ctx, key, f); err != nil {
		return fmt.Errorf("restore attachment %s: %w", key, err)
	}
	return nil
}

// ensureEmpty refuses a database with tables or a store with files, unless force; forced, the
// database's public schema is dropped and made anew (the store's files stay, and a restored one
// replaces one with its key).
func ensureEmpty(ctx context.Context, pool *pgxpool.Pool, st storage.Storage, force bool) error {
	var tables int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&tables); err != nil {
		return fmt.Errorf("look at the database: %w", err)
	}
	storeEmpty := true
	if e, ok := st.(interface {
		Empty(context.Context) (bool, error)
	}); ok {
		var err error
		if storeEmpty, err = e.Empty(ctx); err != nil {
			return fmt.Errorf("look at the attachment store: %w", err)
		}
	}
	if !force {
		var full []string
		if tables > 0 {
			full = append(full, fmt.Sprintf("the database has %d tables", tables))
		}
		if !storeEmpty {
			full = append(full, "the attachment store has files")
		}
		if len(full) > 0 {
			return fmt.Errorf("refusing to restore over existing data (%s): restore into an empty database and "+
				"store, or pass --force to replace the database's contents", strings.Join(full, "; "))
		}
		return nil
	}
	if tables > 0 {
		if _, err := pool.Exec(ctx, `DROP SCHEMA public CASCADE; CREATE SCHEMA public`); err != nil {
			return fmt.Errorf("empty the database: %w", err)
		}
	}
	return nil
}

// extract reads the archive into dir, hashing every part, and answers its manifest once every part
// matches it (and nothing is there that it does not name).
func extract(r io.Reader, dir string) (*Manifest, error) {
	tr := tar.NewReader(r)
	got := map[string]Part{}
	var m *Manifest
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read the archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("the archive holds %q, which is no file", h.Name)
		}
		if h.Name == manifestName {
			m = &Manifest{}
			if err := json.NewDecoder(io.LimitReader(tr, 64<<20)).Decode(m); err != nil {
				return nil, fmt.Errorf("read the manifest: %w", err)
			}
			continue
		}
		key, isAttachment := strings.CutPrefix(h.Name, attachmentsDir)
		if h.Name != dumpName && (!isAttachment || storage.ValidateKey(key) != nil) {
			return nil, fmt.Errorf("the archive holds %q, which no backup has", h.Name)
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		// The name is checked above (the dump, or attachments/ and a valid key, which cannot climb out).
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600) //nolint:gosec // checked above
		if err != nil {
			return nil, err
		}
		hw := &hashingWriter{w: f, h: sha256.New()}
		_, err = io.Copy(hw, tr) //nolint:gosec // G110: a tar is not compressed; each part is hashed against the manifest
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("read %s from the archive: %w", h.Name, err)
		}
		got[h.Name] = Part{Size: hw.n, SHA256: hex.EncodeToString(hw.h.Sum(nil))}
	}
	if m == nil {
		return nil, errors.New("the archive has no manifest: it is no Pilot backup, or it was cut short")
	}
	if m.Format != formatVersion {
		return nil, fmt.Errorf("the archive's format is %d; this binary reads %d", m.Format, formatVersion)
	}
	if _, ok := m.Parts[dumpName]; !ok {
		return nil, errors.New("the manifest names no database dump")
	}
	for _, n := range slices.Sorted(maps.Keys(m.Parts)) {
		g, ok := got[n]
		if !ok {
			return nil, fmt.Errorf("the archive lacks %s, which its manifest names", n)
		}
		if g != m.Parts[n] {
			return nil, fmt.Errorf("%s does not match the manifest (SHA-256 %s, %d bytes; the manifest says %s, %d "+
				"bytes): the archive is damaged", n, g.SHA256, g.Size, m.Parts[n].SHA256, m.Parts[n].Size)
		}
		delete(got, n)
	}
	for n := range got {
		return nil, fmt.Errorf("the archive holds %s, which its manifest does not name", n)
	}
	return m, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/backup"
	"github.com/pilot-dev/pilot/internal/config"
)

// runBackup writes the archive to --output (a file, written whole or not at all, or "-" for stdout),
// by default pilot-backup-<UTC time>.tar in the working directory, and says what it holds.
func runBackup(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string, stdout io.Writer) error {
	output := "pilot-backup-" + time.Now().UTC().Format("20060102T150405Z") + ".tar"
	switch {
	case len(args) == 0:
	case len(args) == 2 && (args[0] == "--output" || args[0] == "-o"):
		output = args[1]
	case len(args) == 1 && strings.HasPrefix(args[0], "--output="):
		output = strings.TrimPrefix(args[0], "--output=")
	default:
		return errors.New("usage: pilot backup [--output FILE|-]")
	}
	if output == "" {
		return errors.New("usage: pilot backup [--output FILE|-]")
	}
	attachments, err := attachmentStorage(cfg)
	if err != nil {
		return err
	}
	// No migration: a backup takes the database as it is, and refuses one newer than the binary.
	dbPool, err := db.OpenPool(ctx, cfg.DatabaseURL, 4)
	if err != nil {
		return err
	}
	defer dbPool.Close()
	opts := backup.Options{DatabaseURL: cfg.DatabaseURL, Storage: attachments, PilotVersion: version, Logger: logger}
	report := stdout
	w := stdout
	var tmp *os.File
	if output == "-" {
		report = io.Discard
	} else {
		if tmp, err = os.CreateTemp(filepath.Dir(output), ".pilot-backup-*"); err != nil {
			return err
		}
		defer func() { _ = os.Remove(tmp.Name()) }() //nolint:gosec // our temporary file (gone once renamed)
		w = tmp
	}
	start := time.Now()
	m, err := backup.Backup(ctx, dbPool, opts, w)
	if tmp != nil {
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), output) //nolint:gosec // the operator names where the archive goes
		}
	}
	if err != nil {
		return err
	}
	var rows int64
	for _, n := range m.Tables {
		rows += n
	}
	logger.Info("backup written", "output", output, "migration", m.MigrationLevel, "tables", len(m.Tables),
		"rows", rows, "attachments", m.Attachments, "missing_attachments", len(m.MissingAttachments),
		"took", time.Since(start).Round(time.Millisecond))
	_, err = fmt.Fprintf(report, "backup %s: Pilot %s, migration %d, %d tables, %d rows, %d attachments (%d missing)\n",
		output, m.PilotVersion, m.MigrationLevel, len(m.Tables), rows, m.Attachments, len(m.MissingAttachments))
	return err
}

// runRestore restores the archive FILE ("-": stdin) into DATABASE_URL's database and the attachment
// store, which must be empty unless --force, migrates it to this binary's level and says what it did.
func runRestore(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string, stdout io.Writer) error {
	var file string
	force := false
	for _, a := range args {
		switch {
		case a == "--force":
			force = true
		case file == "" && (a == "-" || !strings.HasPrefix(a, "-")):
			file = a
		default:
			return errors.New("usage: pilot restore [--force] FILE")
		}
	}
	if file == "" {
		return errors.New("usage: pilot restore [--force] FILE")
	}
	var r io.Reader = os.Stdin
	if file != "-" {
		f, err := os.Open(file) //nolint:gosec // the operator names the archive to restore
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		r = f
	}
	attachments, err := attachmentStorage(cfg)
	if err != nil {
		return err
	}
	dbPool, err := db.OpenPool(ctx, cfg.DatabaseURL, 4)
	if err != nil {
		return err
	}
	defer dbPool.Close()
	start := time.Now()
	rep, err := backup.Restore(ctx, dbPool, backup.Options{DatabaseURL: cfg.DatabaseURL, Storage: attachments,
		PilotVersion: version, Logger: logger}, r, force)
	if err != nil {
		return err
	}
	logger.Info("restored", "file", file, "backup_migration", rep.BackupLevel, "migrated_to", rep.MigratedTo,
		"tables", rep.Tables, "rows", rep.Rows, "attachments", rep.Attachments,
		"took", time.Since(start).Round(time.Millisecond))
	_, err = fmt.Fprintf(stdout, "restored %s (Pilot %s, migration %d): %d tables, %d rows, %d attachments (%d bytes); "+
		"migrated from %d to %d\n", file, rep.PilotVersion, rep.BackupLevel, rep.Tables, rep.Rows, rep.Attachments,
		rep.AttachmentSize, rep.BackupLevel, rep.MigratedTo)
	if err == nil && len(rep.Missing) > 0 {
		_, err = fmt.Fprintf(stdout, "%d attachment files were missing when the backup was made: %s\n",
			len(rep.Missing), strings.Join(rep.Missing, ", "))
	}
	return err
}

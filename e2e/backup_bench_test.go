package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// BenchmarkBackup100k (make bench/backup) measures `pilot backup` and `pilot restore` of a database of
// 100,000 cards (one project, each card with a comment, inserted in SQL) and the archive's size.
func BenchmarkBackup100k(b *testing.B) {
	ctx := context.Background()
	url := pgtest.URL(b)
	pool, err := db.OpenPool(ctx, url, 2)
	require.NoError(b, err)
	defer pool.Close()
	u, o, w, p, c := db.NewID(), db.NewID(), db.NewID(), db.NewID(), db.NewID()
	_, err = pool.Exec(ctx, fmt.Sprintf(`
		INSERT INTO users (id, email, password_hash) VALUES ('%[1]s', 'bench@example.com', 'x');
		INSERT INTO organizations (id, name, slug, owner_id) VALUES ('%[2]s', 'B', 'b', '%[1]s');
		INSERT INTO workspaces (id, organization_id, name, slug, owner_id) VALUES ('%[3]s', '%[2]s', 'W', 'w', '%[1]s');
		INSERT INTO projects (id, workspace_id, name, created_by) VALUES ('%[4]s', '%[3]s', 'P', '%[1]s');
		INSERT INTO columns (id, project_id, name, position) VALUES ('%[5]s', '%[4]s', 'To do', 0);
		INSERT INTO cards (id, project_id, column_id, title, description, created_by)
			SELECT gen_random_uuid(), '%[4]s', '%[5]s', 'Card ' || i, repeat('A line of description. ', 10), '%[1]s'
			FROM generate_series(1, 100000) i;
		INSERT INTO comments (id, card_id, author_id, content)
			SELECT gen_random_uuid(), id, '%[1]s', 'A comment on ' || title FROM cards;`, u, o, w, p, c))
	require.NoError(b, err)
	env := baseEnv(url, "ATTACHMENTS_DIR="+b.TempDir())
	bin := pilotBinary(b)
	for b.Loop() {
		archive := filepath.Join(b.TempDir(), "pilot.tar")
		start := time.Now()
		code, _, stderr := runPilot(b, bin, env, "backup", "--output", archive)
		require.Equal(b, 0, code, stderr)
		backupTook := time.Since(start)
		st, err := os.Stat(archive)
		require.NoError(b, err)
		dst := baseEnv(pgtest.EmptyURL(b), "ATTACHMENTS_DIR="+b.TempDir())
		start = time.Now()
		code, stdout, stderr := runPilot(b, bin, dst, "restore", archive)
		require.Equal(b, 0, code, stderr)
		restoreTook := time.Since(start)
		b.ReportMetric(backupTook.Seconds(), "backup-s")
		b.ReportMetric(restoreTook.Seconds(), "restore-s")
		b.ReportMetric(float64(st.Size())/(1<<20), "archive-MiB")
		b.Logf("backup %s, restore %s, archive %.1f MiB; %s", backupTook.Round(time.Millisecond),
			restoreTook.Round(time.Millisecond), float64(st.Size())/(1<<20), stdout)
	}
}

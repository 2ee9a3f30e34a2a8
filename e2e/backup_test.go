package e2e

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/backup"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// hookReceiver records the webhook deliveries it is sent.
type hookReceiver struct {
	mu   sync.Mutex
	got  []hookDelivery
	seen chan struct{}
}

type hookDelivery struct {
	header http.Header
	body   []byte
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.got = append(h.got, hookDelivery{header: r.Header.Clone(), body: body})
	h.mu.Unlock()
	select {
	case h.seen <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

// signed reports whether d carries a Standard Webhooks signature by secret (whsec_<base64>).
func (d hookDelivery) signed(secret string) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", d.header.Get("webhook-id"), d.header.Get("webhook-timestamp"), d.body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, s := range strings.Fields(d.header.Get("webhook-signature")) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return true
		}
	}
	return false
}

// upload posts data as a card's attachment.
func upload(t testing.TB, c client, path, name string, data []byte) (int, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	pw, err := mw.CreateFormFile("file", name)
	require.NoError(t, err)
	_, _ = pw.Write(data)
	require.NoError(t, mw.Close())
	req, _ := http.NewRequest("POST", c.base+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// waitFor polls get until it answers want, for up to a minute.
func waitFor(t *testing.T, what string, want string, get func() string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := get()
		if got == want {
			return
		}
		require.True(t, time.Now().Before(deadline), "%s: still %q, want %q", what, got, want)
		time.Sleep(100 * time.Millisecond)
	}
}

// tableSums answers each table's row count and checksum (backup.TableChecksum) in the database at url.
func tableSums(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`)
	require.NoError(t, err)
	var names []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		names = append(names, n)
	}
	require.NoError(t, rows.Err())
	out := map[string]string{}
	for _, n := range names {
		var c int64
		var sum string
		require.NoError(t, pool.QueryRow(ctx, fmt.Sprintf(backup.TableChecksum, n)).Scan(&c, &sum))
		out[n] = fmt.Sprintf("%d:%s", c, sum)
	}
	return out
}

// tableMD5 is an independent checksum of a table's contents: md5 of its rows' text, ordered.
func tableMD5(t *testing.T, pool *pgxpool.Pool, table string) string {
	t.Helper()
	var sum string
	require.NoError(t, pool.QueryRow(context.Background(), fmt.Sprintf(
		`SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, E'\n' ORDER BY t::text), '')) FROM %s t`, table)).
		Scan(&sum))
	return sum
}

// TestBackupRestore fills a database through the api with every kind of row, backs it up with `pilot
// backup` while cards and attachments are being written, restores the archive with `pilot restore` into
// a fresh database (a new database in the same test cluster) and a fresh attachment directory, and
// checks: every table's rows equal the snapshot's (checksums), the tables the load did not write equal
// the source's, attachments byte-identical, and a session and a webhook secret still work on an api
// and worker started on the restored database.
func TestBackupRestore(t *testing.T) {
	ctx := context.Background()
	srcURL, dstURL := pgtest.URL(t), pgtest.EmptyURL(t)
	srcFiles, dstFiles := t.TempDir(), t.TempDir()
	receiver := &hookReceiver{seen: make(chan struct{}, 1)}
	hooks := httptest.NewServer(receiver)
	t.Cleanup(hooks.Close)

	srcEnv := baseEnv(srcURL, "ATTACHMENTS_DIR="+srcFiles)
	api := start(t, "api", srcEnv)
	start(t, "worker", srcEnv)
	anon := client{t: t, base: api.URL}
	var auth struct {
		AccessToken string `json:"access_token"`
	}
	code, body := anon.do("POST", "/auth/register", map[string]any{"email": "ann@example.com",
		"password": "correct-horse", "name": "Ann"}, &auth)
	require.Equal(t, 201, code, body)
	ann := client{t: t, base: api.URL, token: auth.AccessToken}
	var out idOut
	code, body = ann.do("POST", "/organizations", map[string]any{"name": "Acme", "slug": "acme"}, &out)
	require.Equal(t, 201, code, body)
	code, body = ann.do("POST", "/orgs/acme/workspaces", map[string]any{"name": "Eng", "slug": "eng"}, &out)
	require.Equal(t, 201, code, body)
	ws := out.ID
	w := "/orgs/acme/workspaces/eng"
	var project idOut
	code, body = ann.do("POST", w+"/projects", map[string]any{"name": "Launch"}, &project)
	require.Equal(t, 201, code, body)
	p := w + "/projects/" + project.ID
	var card idOut
	code, body = ann.do("POST", p+"/cards", map[string]any{"title": "Write the docs", "priority": "high"}, &card)
	require.Equal(t, 201, code, body)
	cardPath := p + "/cards/" + card.ID
	code, body = ann.do("POST", cardPath+"/comments", map[string]any{"content": "first draft"}, &out)
	require.Equal(t, 201, code, body)
	for i := range 3 {
		data := make([]byte, 1000+i*70000)
		_, _ = rand.Read(data)
		code, body = upload(t, ann, cardPath+"/attachments", fmt.Sprintf("f%d.bin", i), data)
		require.Equal(t, 201, code, body)
	}
	code, body = ann.do("POST", w+"/documents", map[string]any{"title": "Runbook", "content": "# Deploy",
		"docType": "reference", "contextType": "workspace", "contextId": ws}, &out)
	require.Equal(t, 201, code, body)
	var agent idOut
	code, body = ann.do("POST", w+"/agents", map[string]any{"name": "Planner", "slug": "planner",
		"autonomyMode": "autonomous"}, &agent)
	require.Equal(t, 201, code, body)
	var mission idOut
	code, body = ann.do("POST", w+"/agents/"+agent.ID+"/missions", map[string]any{"cardId": card.ID,
		"prompt": "Plan the deploy"}, &mission)
	require.Equal(t, 201, code, body)
	waitFor(t, "mission", "completed", func() string {
		var m missionOut
		ann.do("GET", w+"/missions/"+mission.ID, nil, &m)
		return m.Status
	})
	var pipeline idOut
	code, body = ann.do("POST", w+"/pipelines", map[string]any{"name": "Release", "steps": []map[string]any{
		{"id": "card", "type": "create_card", "params": map[string]any{"projectId": project.ID, "title": "Release"}},
		{"id": "tell", "type": "notify", "needs": []string{"card"}, "params": map[string]any{"projectId": project.ID,
			"message": "open"}}}}, &pipeline)
	require.Equal(t, 201, code, body)
	var run idOut
	code, body = ann.do("POST", w+"/pipelines/"+pipeline.ID+"/runs", nil, &run)
	require.Equal(t, 201, code, body)
	waitFor(t, "pipeline run", "completed", func() string {
		var r missionOut
		ann.do("GET", w+"/pipelines/"+pipeline.ID+"/runs/"+run.ID, nil, &r)
		return r.Status
	})
	var hook struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	code, body = ann.do("POST", w+"/webhooks", map[string]any{"url": hooks.URL + "/hook",
		"events": []string{"card_created"}}, &hook)
	require.Equal(t, 201, code, body)
	require.True(t, strings.HasPrefix(hook.Secret, "whsec_"), hook.Secret)

	// The write load: cards with an attachment each, until the backup is done.
	var loaded atomic.Int64
	stop := make(chan struct{})
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		for i := 0; i < 5000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var c idOut
			if code, _ := ann.do("POST", p+"/cards", map[string]any{"title": fmt.Sprintf("load %d", i)}, &c); code != 201 {
				continue
			}
			if code, _ := upload(t, ann, p+"/cards/"+c.ID+"/attachments", "load.txt",
				[]byte(strings.Repeat("x", i+1))); code == 201 {
				loaded.Add(1)
			}
		}
	}()
	for loaded.Load() < 5 {
		time.Sleep(20 * time.Millisecond)
	}
	archive := filepath.Join(t.TempDir(), "pilot.tar")
	code, stdout, stderr := runPilot(t, pilotBinary(t), append(srcEnv, "LOG_LEVEL=warn"), "backup", "--output", archive)
	close(stop)
	<-loadDone
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "backup "+archive+": Pilot dev, migration "+fmt.Sprint(db.MigrationLevel()))
	t.Logf("%s; %d cards with attachments written during the load", strings.TrimSpace(stdout), loaded.Load())

	// The manifest names every part with its SHA-256, the version and level, rows and checksums.
	manifest := readManifest(t, archive)
	require.Equal(t, db.MigrationLevel(), manifest.MigrationLevel)
	require.Equal(t, "dev", manifest.PilotVersion)
	require.Contains(t, manifest.Parts, "database.dump")
	require.Positive(t, manifest.Tables["public.cards"])

	// Restore into the fresh database and store.
	dstEnv := baseEnv(dstURL, "ATTACHMENTS_DIR="+dstFiles)
	code, stdout, stderr = runPilot(t, pilotBinary(t), dstEnv, "restore", archive)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, fmt.Sprintf("restored %s (Pilot dev, migration %d)", archive, manifest.MigrationLevel))
	t.Log(strings.TrimSpace(stdout))
	// Again: the database is no longer empty.
	code, _, stderr = runPilot(t, pilotBinary(t), dstEnv, "restore", archive)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "refusing to restore over existing data")

	src, err := db.OpenPool(ctx, srcURL, 2)
	require.NoError(t, err)
	defer src.Close()
	dst, err := db.OpenPool(ctx, dstURL, 2)
	require.NoError(t, err)
	defer dst.Close()

	// Every table: the rows of the snapshot (the manifest's checksums, which the backup took in it).
	restored := tableSums(t, dst)
	require.Len(t, restored, len(manifest.Tables))
	for name, n := range manifest.Tables {
		require.Equal(t, fmt.Sprintf("%d:%s", n, manifest.Checksums[name]), restored[name], name)
	}
	// The tables the load did not write: equal to the source's now, by an independent checksum.
	for _, table := range []string{"users", "organizations", "workspaces", "workspace_members", "projects",
		"documents", "agents", "agent_missions", "mission_steps", "stream_events", "streams", "pipelines",
		"pipeline_runs", "pipeline_run_steps", "webhooks", "comments", "checklist_items", "goose_db_version"} {
		require.Equal(t, tableMD5(t, src, table), tableMD5(t, dst, table), table)
	}
	var cards, missions int
	require.NoError(t, dst.QueryRow(ctx, `SELECT count(*) FROM cards`).Scan(&cards))
	require.NoError(t, dst.QueryRow(ctx, `SELECT count(*) FROM agent_missions WHERE status = 'completed'`).Scan(&missions))
	require.Greater(t, cards, 2)
	require.Equal(t, 1, missions)

	// Every attachment the restored database references is there, byte-identical to the source's; none
	// that it does not.
	rows, err := dst.Query(ctx, `SELECT storage_key FROM attachments`)
	require.NoError(t, err)
	var keys []string
	for rows.Next() {
		var k string
		require.NoError(t, rows.Scan(&k))
		keys = append(keys, k)
	}
	require.NoError(t, rows.Err())
	require.GreaterOrEqual(t, len(keys), 3+5)
	for _, k := range keys {
		want, err := os.ReadFile(filepath.Join(srcFiles, k))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dstFiles, k))
		require.NoError(t, err, "attachment %s restored", k)
		require.True(t, bytes.Equal(want, got), "attachment %s byte-identical", k)
	}
	var restoredFiles int
	require.NoError(t, filepath.WalkDir(dstFiles, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			restoredFiles++
		}
		return err
	}))
	require.Equal(t, len(keys), restoredFiles)

	// An api and a worker on the restored database: Ann's session still signs her in, and the webhook's
	// secret still signs its deliveries.
	api2 := start(t, "api", dstEnv)
	start(t, "worker", dstEnv)
	ann2 := client{t: t, base: api2.URL, token: auth.AccessToken}
	var me struct {
		User struct {
			Email string `json:"email"`
		} `json:"user"`
	}
	code, body = ann2.do("GET", "/auth/me", nil, &me)
	require.Equal(t, 200, code, body)
	require.Equal(t, "ann@example.com", me.User.Email)
	code, body = ann2.do("POST", p+"/cards", map[string]any{"title": "After the restore"}, &out)
	require.Equal(t, 201, code, body)
	deadline := time.After(time.Minute)
	for {
		receiver.mu.Lock()
		var found *hookDelivery
		for i, d := range receiver.got {
			if bytes.Contains(d.body, []byte("After the restore")) {
				found = &receiver.got[i]
			}
		}
		receiver.mu.Unlock()
		if found != nil {
			require.True(t, found.signed(hook.Secret), "the restored webhook signs with its secret")
			break
		}
		select {
		case <-receiver.seen:
		case <-deadline:
			t.Fatal("no delivery of the card created after the restore")
		}
	}
}

// TestRestoreRefusals: a damaged archive, and one from a newer Pilot, are refused before anything is
// restored, naming what is wrong; an older one is migrated; a database with tables is refused unless
// --force.
func TestRestoreRefusals(t *testing.T) {
	srcEnv := baseEnv(pgtest.URL(t), "ATTACHMENTS_DIR="+t.TempDir())
	archive := filepath.Join(t.TempDir(), "pilot.tar")
	code, _, stderr := runPilot(t, pilotBinary(t), srcEnv, "backup", "--output", archive)
	require.Equal(t, 0, code, stderr)
	manifest := readManifest(t, archive)

	// A newer backup: its level beyond this binary's.
	manifest.MigrationLevel = db.MigrationLevel() + 2
	manifest.PilotVersion = "v9.9.9"
	newer := rewriteArchive(t, archive, func(name string, b []byte) []byte {
		if name == "manifest.json" {
			b, _ = json.Marshal(manifest)
		}
		return b
	})
	dstEnv := baseEnv(pgtest.EmptyURL(t), "ATTACHMENTS_DIR="+t.TempDir())
	code, _, stderr = runPilot(t, pilotBinary(t), dstEnv, "restore", newer)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, fmt.Sprintf("the backup is at migration %d (Pilot v9.9.9), newer than this binary's %d",
		db.MigrationLevel()+2, db.MigrationLevel()))

	// A damaged dump.
	damaged := rewriteArchive(t, archive, func(name string, b []byte) []byte {
		if name == "database.dump" {
			b = append([]byte{}, b...)
			b[len(b)/2] ^= 0xff
		}
		return b
	})
	code, _, stderr = runPilot(t, pilotBinary(t), dstEnv, "restore", damaged)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "database.dump does not match the manifest")

	// Nothing was restored: the database is still empty, so the intact archive restores.
	code, stdout, stderr := runPilot(t, pilotBinary(t), dstEnv, "restore", archive)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "restored")

	// An older backup is migrated to this binary's level.
	oldURL := pgtest.EmptyURL(t)
	oldPool, err := db.OpenPool(context.Background(), oldURL, 2)
	require.NoError(t, err)
	require.NoError(t, db.MigrateTo(context.Background(), oldPool, 30))
	oldPool.Close()
	older := filepath.Join(t.TempDir(), "older.tar")
	code, _, stderr = runPilot(t, pilotBinary(t), baseEnv(oldURL, "ATTACHMENTS_DIR="+t.TempDir()), "backup", "-o", older)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr = runPilot(t, pilotBinary(t), baseEnv(pgtest.EmptyURL(t), "ATTACHMENTS_DIR="+t.TempDir()),
		"restore", older)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, fmt.Sprintf("migrated from 30 to %d", db.MigrationLevel()))

	// Into a database with tables: refused, unless --force.
	code, _, stderr = runPilot(t, pilotBinary(t), srcEnv, "restore", archive)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "refusing to restore over existing data (the database has")
	code, stdout, stderr = runPilot(t, pilotBinary(t), srcEnv, "restore", "--force", archive)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "restored")
}

func readManifest(t *testing.T, archive string) backup.Manifest {
	t.Helper()
	var m backup.Manifest
	rewriteArchive(t, archive, func(name string, b []byte) []byte {
		if name == "manifest.json" {
			require.NoError(t, json.Unmarshal(b, &m))
		}
		return b
	})
	require.NotZero(t, m.Format, "the archive has a manifest")
	return m
}

// rewriteArchive copies the archive with each part passed through edit, answering the copy's path.
func rewriteArchive(t *testing.T, archive string, edit func(name string, b []byte) []byte) string {
	t.Helper()
	f, err := os.Open(archive)
	require.NoError(t, err)
	defer f.Close()
	outPath := filepath.Join(t.TempDir(), "copy.tar")
	out, err := os.Create(outPath)
	require.NoError(t, err)
	defer out.Close()
	tr, tw := tar.NewReader(f), tar.NewWriter(out)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		b = edit(h.Name, b)
		h.Size = int64(len(b))
		require.NoError(t, tw.WriteHeader(h))
		_, err = tw.Write(b)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	return outPath
}

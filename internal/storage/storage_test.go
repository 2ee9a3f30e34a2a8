package storage

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateKey(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"0195f0a2-7b3c-7def-8abc-0123456789ab", "a/b/c.txt", "A_b-9"} {
		require.NoError(t, ValidateKey(k), k)
	}
	for _, k := range []string{"", "/abs", "a//b", "../x", "a/../b", "a/./b", ".hidden", "a/.put-1", `a\b`, "a b", "é",
		"a/", string(bytes.Repeat([]byte("a"), 513))} {
		require.ErrorIs(t, ValidateKey(k), ErrInvalidKey, "%q", k)
	}
}

func TestLocalPutOpenDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "not-yet-created")
	s := NewLocal(root)
	data := bytes.Repeat([]byte("pilot "), 100_000)

	n, err := s.Put(ctx, "cards/one", bytes.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, int64(len(data)), n)

	rc, err := s.Open(ctx, "cards/one")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, data, got)
	onDisk, err := os.ReadFile(filepath.Join(root, "cards", "one"))
	require.NoError(t, err)
	require.Equal(t, data, onDisk)

	// Put replaces.
	_, err = s.Put(ctx, "cards/one", bytes.NewReader([]byte("v2")))
	require.NoError(t, err)
	rc, err = s.Open(ctx, "cards/one")
	require.NoError(t, err)
	got, _ = io.ReadAll(rc)
	_ = rc.Close()
	require.Equal(t, "v2", string(got))

	require.NoError(t, s.Delete(ctx, "cards/one"))
	_, err = s.Open(ctx, "cards/one")
	require.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, s.Delete(ctx, "cards/one"), "deleting a missing object is not an error")
	requireNoTempFiles(t, root)
}

// failingReader yields some bytes, then fails.
type failingReader struct {
	sent bool
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if !f.sent {
		f.sent = true
		return copy(p, "partial content"), nil
	}
	return 0, f.err
}

func TestLocalPutFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	s := NewLocal(root)

	boom := errors.New("client went away")
	_, err := s.Put(ctx, "k1", &failingReader{err: boom})
	require.ErrorIs(t, err, boom, "the reader's error is wrapped")
	_, err = s.Open(ctx, "k1")
	require.ErrorIs(t, err, ErrNotFound)

	// A failed replacement keeps the previous object whole.
	_, err = s.Put(ctx, "k2", bytes.NewReader([]byte("original")))
	require.NoError(t, err)
	_, err = s.Put(ctx, "k2", &failingReader{err: boom})
	require.Error(t, err)
	rc, err := s.Open(ctx, "k2")
	require.NoError(t, err)
	got, _ := io.ReadAll(rc)
	_ = rc.Close()
	require.Equal(t, "original", string(got))

	// A cancelled context stops the copy.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.Put(cctx, "k3", bytes.NewReader([]byte("data")))
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.Open(ctx, "k3")
	require.ErrorIs(t, err, ErrNotFound)
	requireNoTempFiles(t, root)
}

func TestLocalRefusesUnsafeKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	parent := t.TempDir()
	s := NewLocal(filepath.Join(parent, "root"))
	_, err := s.Put(ctx, "../escape", bytes.NewReader([]byte("x")))
	require.ErrorIs(t, err, ErrInvalidKey)
	_, err = os.Stat(filepath.Join(parent, "escape"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = s.Open(ctx, "/etc/passwd")
	require.ErrorIs(t, err, ErrInvalidKey)
	require.ErrorIs(t, s.Delete(ctx, "a/../../b"), ErrInvalidKey)
}

func requireNoTempFiles(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Base(path)[0] == '.' {
			t.Errorf("temporary file left behind: %s", path)
		}
		return nil
	})
	if !errors.Is(err, os.ErrNotExist) {
		require.NoError(t, err)
	}
}

package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Local keeps objects as files under a root directory, one file per key. It suits a single api
// machine, or several sharing one network file system.
type Local struct {
	root string
}

var _ Storage = (*Local)(nil)

// NewLocal returns a Local rooted at dir. The directory is created on the first Put.
func NewLocal(dir string) *Local {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return &Local{root: filepath.Clean(dir)}
}

// Root is the directory objects are kept under.
func (l *Local) Root() string { return l.root }

func (l *Local) path(key string) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Put writes r to a temporary file beside the object's final place, flushes it to disk, then renames
// it into place, so a reader never sees a partial object and a failure leaves none.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	path, err := l.path(key)
	if err != nil {
		return 0, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return 0, fmt.Errorf("put %s: create directory: %w", key, err)
	}
	// Temporary names start with '.', which no key segment may, so they never collide with objects.
	f, err := os.CreateTemp(dir, ".put-*")
	if err != nil {
		return 0, fmt.Errorf("put %s: create temporary file: %w", key, err)
	}
	n, err := io.Copy(f, ctxReader{ctx: ctx, r: r})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return 0, fmt.Errorf("put %s: %w", key, err)
	}
	return n, nil
}

// Open opens the object's file.
func (l *Local) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := l.path(key)
	if err != nil {
		return nil, err
	}
	// G304: path is l.root joined with a key that passed ValidateKey (no "..", no absolute path).
	f, err := os.Open(path) //nolint:gosec // see above
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	return f, nil
}

// Delete removes the object's file; a missing file is not an error.
func (l *Local) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	path, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}

// Empty reports whether no object is stored (a missing root is empty): a restore refuses a store that
// is not, unless forced.
func (l *Local) Empty(ctx context.Context) (bool, error) {
	empty := true
	err := filepath.WalkDir(l.root, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !d.IsDir() {
			empty = false
			return fs.SkipAll
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	return empty, err
}

package sources

// Reading a zip export (Vikunja's archive, Plane's zip of CSV files) safely: the whole archive may expand
// to at most MaxArchiveContent, no entry may expand more than maxZipRatio times its compressed size, and
// every read is capped at the size the entry declares, so a zip bomb is refused in words before it is
// expanded. Entry names are only compared, never used as paths.

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// maxZipEntries bounds the entries of an archive.
	maxZipEntries = 100000
	// maxZipRatio is the largest expansion of an entry of more than 1 MB over its compressed size.
	maxZipRatio = 100
)

// isZip reports whether data starts as a zip archive does.
func isZip(data []byte) bool { return bytes.HasPrefix(data, []byte("PK\x03\x04")) }

// openZip opens data as a zip archive and checks what it would expand to.
func openZip(data []byte) (*zip.Reader, error) {
	r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, unreadable("not a zip archive: %v", err)
	}
	if len(r.File) > maxZipEntries {
		return nil, unreadable("the archive holds %d entries, more than %d", len(r.File), maxZipEntries)
	}
	var total uint64
	for _, f := range r.File {
		total += f.UncompressedSize64
		if total > MaxArchiveContent {
			return nil, unreadable("the archive expands to more than %d MB: refused as a possible zip bomb",
				MaxArchiveContent>>20)
		}
		if f.UncompressedSize64 > 1<<20 && f.UncompressedSize64/max(f.CompressedSize64, 1) > maxZipRatio {
			return nil, unreadable("the archive's entry %q expands more than %d times its compressed size: "+
				"refused as a possible zip bomb", f.Name, maxZipRatio)
		}
	}
	return r, nil
}

// readZipFile reads an entry whole, at most limit bytes and never more than it declares.
func readZipFile(f *zip.File, limit int64) ([]byte, error) {
	if limit < 0 || f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("it is larger than %d bytes", limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	want := int64(f.UncompressedSize64) //nolint:gosec // at most limit, an int64, checked above
	b, err := io.ReadAll(io.LimitReader(rc, want+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > want {
		return nil, fmt.Errorf("it holds more than the %d bytes it declares", want)
	}
	return b, nil
}

// fileName keeps the base name of an attachment's name as an upload's is kept: no directories, no control
// or formatting characters, valid UTF-8, at most 255 bytes, never empty.
func fileName(name string) string {
	name = strings.ToValidUTF8(name, "_")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, name))
	if name == "" || name == "." || name == ".." {
		return "file"
	}
	for len(name) > 255 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	return name
}

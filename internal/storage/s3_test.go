package storage

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	fakeAccessKey = "AKIAPILOTTEST"
	fakeSecretKey = "pilot-test-secret-key"
	fakeRegion    = "eu-west-3"
	fakeBucket    = "pilot-attachments"
)

// fakeS3 is an in-process S3 service for one bucket, speaking the REST protocol for PUT, GET, HEAD and
// DELETE object with path-style addressing. It checks every request's AWS Signature Version 4,
// including the per-chunk signatures of streamed (aws-chunked) uploads, and answers errors in S3's
// XML shape.
type fakeS3 struct {
	mu      sync.Mutex
	objects map[string][]byte
	log     []string // "METHOD key", one per accepted request
}

func newFakeS3() *fakeS3 { return &fakeS3{objects: map[string][]byte{}} }

type s3Error struct {
	XMLName xml.Name `xml:"Error"`
	Code    string   `xml:"Code"`
	Message string   `xml:"Message"`
}

func writeS3Error(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	_ = xml.NewEncoder(w).Encode(s3Error{Code: code, Message: msg})
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	seed, sigErr := verifySigV4(r)
	if sigErr != nil {
		writeS3Error(w, http.StatusForbidden, "SignatureDoesNotMatch", sigErr.Error())
		return
	}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if bucket != fakeBucket {
		writeS3Error(w, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
		return
	}
	if key == "" {
		writeS3Error(w, http.StatusNotImplemented, "NotImplemented", "only object operations")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case http.MethodPut:
		body, err := readS3Body(r, seed)
		if err != nil {
			writeS3Error(w, http.StatusBadRequest, "IncompleteBody", err.Error())
			return
		}
		f.objects[key] = body
		sum := md5.Sum(body)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.WriteHeader(http.StatusOK)
	case http.MethodGet, http.MethodHead:
		body, ok := f.objects[key]
		if !ok {
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			writeS3Error(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
			return
		}
		sum := md5.Sum(body)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2026 15:04:05 GMT")
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("Accept-Ranges", "bytes")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	case http.MethodDelete:
		delete(f.objects, key)
		w.WriteHeader(http.StatusNoContent)
	default:
		writeS3Error(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "method not allowed")
		return
	}
	f.log = append(f.log, r.Method+" "+key)
}

func (f *fakeS3) object(key string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.objects[key]
	return b, ok
}

// sigSeed is what a streamed upload's chunk signatures chain from.
type sigSeed struct {
	signature, amzDate, scope string
	key                       []byte
}

func hmacSHA256(key []byte, s string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return m.Sum(nil)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// awsEscape is SigV4's URI encoding.
func awsEscape(s string, keepSlash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' ||
			c == '~' || (keepSlash && c == '/') {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// verifySigV4 recomputes the request's signature from its canonical form and the known secret.
func verifySigV4(r *http.Request) (sigSeed, error) {
	authz := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(authz, "AWS4-HMAC-SHA256 ")
	if !ok {
		return sigSeed{}, errors.New("missing AWS4-HMAC-SHA256 authorization")
	}
	fields := map[string]string{}
	for p := range strings.SplitSeq(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		fields[k] = v
	}
	cred := strings.Split(fields["Credential"], "/")
	if len(cred) != 5 || cred[0] != fakeAccessKey || cred[2] != fakeRegion || cred[3] != "s3" ||
		cred[4] != "aws4_request" {
		return sigSeed{}, fmt.Errorf("bad credential scope %q", fields["Credential"])
	}
	amzDate := r.Header.Get("X-Amz-Date")
	if !strings.HasPrefix(amzDate, cred[1]) {
		return sigSeed{}, errors.New("x-amz-date does not match the credential date")
	}
	signed := strings.Split(fields["SignedHeaders"], ";")
	if !slices.Contains(signed, "host") || !slices.Contains(signed, "x-amz-content-sha256") || !slices.Contains(signed,
		"x-amz-date") {
		return sigSeed{}, fmt.Errorf("required headers are not signed: %v", signed)
	}
	var canonHeaders strings.Builder
	for _, h := range signed {
		var v string
		switch h {
		case "host":
			v = r.Host
		case "content-length":
			v = strconv.FormatInt(r.ContentLength, 10)
		default:
			v = strings.Join(r.Header.Values(h), ",")
		}
		canonHeaders.WriteString(h + ":" + strings.Join(strings.Fields(v), " ") + "\n")
	}
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var canonQuery []string
	for _, k := range keys {
		vals := slices.Clone(q[k])
		slices.Sort(vals)
		for _, v := range vals {
			canonQuery = append(canonQuery, awsEscape(k, false)+"="+awsEscape(v, false))
		}
	}
	canonical := strings.Join([]string{r.Method, awsEscape(r.URL.Path, true), strings.Join(canonQuery, "&"),
		canonHeaders.String(), fields["SignedHeaders"], r.Header.Get("X-Amz-Content-Sha256")}, "\n")
	scope := strings.Join(cred[1:], "/")
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + sha256Hex([]byte(canonical))
	key := hmacSHA256([]byte("AWS4"+fakeSecretKey), cred[1])
	key = hmacSHA256(key, cred[2])
	key = hmacSHA256(key, cred[3])
	key = hmacSHA256(key, cred[4])
	want := hex.EncodeToString(hmacSHA256(key, toSign))
	if !hmac.Equal([]byte(want), []byte(fields["Signature"])) {
		return sigSeed{}, errors.New("signature does not match")
	}
	return sigSeed{signature: want, amzDate: amzDate, scope: scope, key: key}, nil
}

// readS3Body reads a PUT body: plain (checked against a given SHA-256) or aws-chunked, whose chunk
// signatures are checked when the payload is signed.
func readS3Body(r *http.Request, seed sigSeed) ([]byte, error) {
	mode := r.Header.Get("X-Amz-Content-Sha256")
	if !strings.HasPrefix(mode, "STREAMING-") {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		if mode != "UNSIGNED-PAYLOAD" && mode != sha256Hex(body) {
			return nil, errors.New("payload hash mismatch")
		}
		return body, nil
	}
	signedChunks := mode == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" || mode == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	br := bufio.NewReader(r.Body)
	prev := seed.signature
	var out bytes.Buffer
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("chunk header: %w", err)
		}
		sizeHex, ext, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ";")
		size, err := strconv.ParseInt(sizeHex, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("chunk size %q", sizeHex)
		}
		chunk := make([]byte, size)
		if _, err := io.ReadFull(br, chunk); err != nil {
			return nil, fmt.Errorf("chunk data: %w", err)
		}
		if signedChunks {
			sig := strings.TrimPrefix(ext, "chunk-signature=")
			toSign := "AWS4-HMAC-SHA256-PAYLOAD\n" + seed.amzDate + "\n" + seed.scope + "\n" + prev + "\n" + sha256Hex(nil) +
				"\n" + sha256Hex(chunk)
			want := hex.EncodeToString(hmacSHA256(seed.key, toSign))
			if sig != want {
				return nil, errors.New("chunk signature does not match")
			}
			prev = sig
		}
		out.Write(chunk)
		if size == 0 {
			break // trailers (if any) and the final CRLF follow; nothing of them is needed here
		}
		if crlf, err := br.ReadString('\n'); err != nil || crlf != "\r\n" {
			return nil, errors.New("missing CRLF after chunk")
		}
	}
	if dl := r.Header.Get("X-Amz-Decoded-Content-Length"); dl != "" && dl != strconv.Itoa(out.Len()) {
		return nil, fmt.Errorf("decoded length %d, header says %s", out.Len(), dl)
	}
	return out.Bytes(), nil
}

func newTestS3(t *testing.T, srv *httptest.Server, prefix string) *S3 {
	t.Helper()
	s, err := NewS3(S3Config{Endpoint: srv.URL, Region: fakeRegion, Bucket: fakeBucket, Prefix: prefix, PathStyle: true,
		AccessKeyID: fakeAccessKey, SecretAccessKey: fakeSecretKey, SpoolDir: t.TempDir(), Transport: srv.Client().Transport})
	require.NoError(t, err)
	return s
}

func TestS3PutOpenDelete(t *testing.T) {
	t.Parallel()
	for name, tls := range map[string]bool{"http (streamed, signed chunks)": false, "https (unsigned payload)": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			fake := newFakeS3()
			srv := httptest.NewServer(fake)
			if tls {
				srv.Close()
				srv = httptest.NewTLSServer(fake)
			}
			t.Cleanup(srv.Close)
			s := newTestS3(t, srv, "attachments")

			data := bytes.Repeat([]byte("0123456789abcdef"), 200_000) // 3.2 MB: several 64 KiB chunks
			n, err := s.Put(ctx, "0195f0a2-7b3c-7def-8abc-0123456789ab", bytes.NewReader(data))
			require.NoError(t, err)
			require.Equal(t, int64(len(data)), n)
			stored, ok := fake.object("attachments/0195f0a2-7b3c-7def-8abc-0123456789ab")
			require.True(t, ok, "the object is stored under the prefix")
			require.Equal(t, data, stored)

			rc, err := s.Open(ctx, "0195f0a2-7b3c-7def-8abc-0123456789ab")
			require.NoError(t, err)
			got, err := io.ReadAll(rc)
			require.NoError(t, err)
			require.NoError(t, rc.Close())
			require.Equal(t, data, got)

			n, err = s.Put(ctx, "empty", bytes.NewReader(nil))
			require.NoError(t, err)
			require.Zero(t, n)
			rc, err = s.Open(ctx, "empty")
			require.NoError(t, err)
			got, _ = io.ReadAll(rc)
			_ = rc.Close()
			require.Empty(t, got)

			require.NoError(t, s.Delete(ctx, "0195f0a2-7b3c-7def-8abc-0123456789ab"))
			_, ok = fake.object("attachments/0195f0a2-7b3c-7def-8abc-0123456789ab")
			require.False(t, ok)
			_, err = s.Open(ctx, "0195f0a2-7b3c-7def-8abc-0123456789ab")
			require.ErrorIs(t, err, ErrNotFound)
			require.NoError(t, s.Delete(ctx, "never-there"))
		})
	}
}

func TestS3FailuresStoreNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := newFakeS3()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	s := newTestS3(t, srv, "")

	// A failing reader stores nothing and sends nothing; its error is wrapped.
	boom := errors.New("client went away")
	_, err := s.Put(ctx, "k1", &failingReader{err: boom})
	require.ErrorIs(t, err, boom)
	require.Empty(t, fake.log)
	spool, err := os.ReadDir(s.spoolDir)
	require.NoError(t, err)
	require.Empty(t, spool, "the spool file is removed")

	// Unsafe keys never reach the service.
	_, err = s.Put(ctx, "../k", bytes.NewReader([]byte("x")))
	require.ErrorIs(t, err, ErrInvalidKey)
	_, err = s.Open(ctx, "a//b")
	require.ErrorIs(t, err, ErrInvalidKey)
	require.ErrorIs(t, s.Delete(ctx, ""), ErrInvalidKey)
	require.Empty(t, fake.log)

	// Wrong credentials are refused by the service: the fake really checks signatures.
	bad, err := NewS3(S3Config{Endpoint: srv.URL, Region: fakeRegion, Bucket: fakeBucket, PathStyle: true,
		AccessKeyID: fakeAccessKey, SecretAccessKey: "wrong", SpoolDir: t.TempDir()})
	require.NoError(t, err)
	_, err = bad.Put(ctx, "k2", bytes.NewReader([]byte("x")))
	require.ErrorContains(t, err, "signature")
	_, ok := fake.object("k2")
	require.False(t, ok)
	_, err = bad.Open(ctx, "k2")
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrNotFound)
}

func TestNewS3Validates(t *testing.T) {
	t.Parallel()
	for _, cfg := range []S3Config{
		{Endpoint: "s3.amazonaws.com", Bucket: "b"},
		{Endpoint: "ftp://s3.example.com", Bucket: "b"},
		{Endpoint: "https://s3.example.com/some/path", Bucket: "b"},
		{Endpoint: "https://s3.example.com"},
		{Endpoint: "https://s3.example.com", Bucket: "b", Prefix: "../up"},
		{Endpoint: "https://s3.example.com", Bucket: "b", AccessKeyID: "only-the-id"},
	} {
		_, err := NewS3(cfg)
		require.Error(t, err, "%+v", cfg)
	}
	s, err := NewS3(S3Config{Endpoint: "https://s3.eu-west-3.amazonaws.com", Region: "eu-west-3", Bucket: "b",
		Prefix: "files"})
	require.NoError(t, err)
	require.Equal(t, "files/", s.prefix)
	require.Equal(t, os.TempDir(), s.spoolDir)
}

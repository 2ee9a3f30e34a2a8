package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config configures an S3-compatible object store (AWS S3, MinIO, Ceph, R2, ...).
type S3Config struct {
	// Endpoint is the service's base URL, e.g. https://s3.eu-west-3.amazonaws.com or
	// http://minio.internal:9000; its scheme decides TLS.
	Endpoint string
	Region   string
	Bucket   string
	// Prefix is put before every key, e.g. "attachments/"; keys never leave it.
	Prefix string
	// AccessKeyID and SecretAccessKey sign requests. When both are empty, credentials come from the
	// AWS_* environment variables, then the instance's IAM role.
	AccessKeyID, SecretAccessKey string
	// PathStyle forces bucket-in-path addressing (most self-hosted services need it); otherwise it is
	// chosen from the endpoint.
	PathStyle bool
	// SpoolDir holds uploads while they are read, before they are sent with their size (default: the
	// system's temporary directory).
	SpoolDir string
	// Transport replaces the HTTP transport (tests, custom TLS roots).
	Transport http.RoundTripper
}

// S3 keeps objects in a bucket of an S3-compatible service.
type S3 struct {
	client   *minio.Client
	bucket   string
	prefix   string
	spoolDir string
}

var _ Storage = (*S3)(nil)

// NewS3 builds an S3 storage. It makes no request: a wrong bucket or credentials show on first use.
func NewS3(cfg S3Config) (*S3, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("s3 endpoint must be a base URL like https://host[:port], got %q", cfg.Endpoint)
	}
	if cfg.Bucket == "" {
		return nil, errors.New("s3 bucket is required")
	}
	if cfg.Prefix != "" {
		if err := ValidateKey(strings.TrimSuffix(cfg.Prefix, "/")); err != nil {
			return nil, fmt.Errorf("s3 prefix: %w", err)
		}
		if !strings.HasSuffix(cfg.Prefix, "/") {
			cfg.Prefix += "/"
		}
	}
	var creds *credentials.Credentials
	switch {
	case cfg.AccessKeyID != "" && cfg.SecretAccessKey != "":
		creds = credentials.NewStaticV4(cfg.AccessKeyID, cfg.SecretAccessKey, "")
	case cfg.AccessKeyID == "" && cfg.SecretAccessKey == "":
		creds = credentials.NewChainCredentials([]credentials.Provider{&credentials.EnvAWS{}, &credentials.IAM{}})
	default:
		return nil, errors.New("s3 needs both an access key id and a secret access key, or neither")
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(u.Host, &minio.Options{Creds: creds, Secure: u.Scheme == "https", Region: cfg.Region,
		BucketLookup: lookup, Transport: cfg.Transport})
	if err != nil {
		return nil, fmt.Errorf("s3 client: %w", err)
	}
	if cfg.SpoolDir == "" {
		cfg.SpoolDir = os.TempDir()
	}
	return &S3{client: client, bucket: cfg.Bucket, prefix: cfg.Prefix, spoolDir: cfg.SpoolDir}, nil
}

func (s *S3) object(key string) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return s.prefix + key, nil
}

// Put reads r into a spool file first, so the object is sent in one PUT with its exact size (S3 has no
// single PUT of unknown length) and a failed read stores nothing.
func (s *S3) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	name, err := s.object(key)
	if err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(s.spoolDir, "pilot-s3-put-*")
	if err != nil {
		return 0, fmt.Errorf("put %s: create spool file: %w", key, err)
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	n, err := io.Copy(f, ctxReader{ctx: ctx, r: r})
	if err != nil {
		return 0, fmt.Errorf("put %s: %w", key, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("put %s: rewind spool file: %w", key, err)
	}
	if _, err := s.client.PutObject(ctx, s.bucket, name, f, n,
		minio.PutObjectOptions{ContentType: "application/octet-stream"}); err != nil {
		return 0, fmt.Errorf("put %s: %w", key, err)
	}
	return n, nil
}

// Open starts reading the object; a missing object is ErrNotFound.
func (s *S3) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	name, err := s.object(key)
	if err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, name, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	// GetObject is lazy: Stat sends the request and surfaces a missing object now rather than on Read.
	if _, err := obj.Stat(); err != nil {
		_ = obj.Close()
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey ||
			minio.ToErrorResponse(err).StatusCode == http.StatusNotFound {
			return nil, fmt.Errorf("open %s: %w", key, ErrNotFound)
		}
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	return obj, nil
}

// Delete removes the object; S3 answers a missing object's delete as a success too.
func (s *S3) Delete(ctx context.Context, key string) error {
	name, err := s.object(key)
	if err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.bucket, name, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}

// Empty reports whether the bucket holds no object under the prefix: a restore refuses a store that is
// not, unless forced.
func (s *S3) Empty(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	obj, ok := <-s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix, Recursive: true,
		MaxKeys: 1})
	switch {
	case !ok:
		return true, nil
	case obj.Err != nil:
		return false, fmt.Errorf("list %s: %w", s.bucket, obj.Err)
	}
	return false, nil
}

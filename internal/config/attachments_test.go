package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAttachmentsDir(t *testing.T) {
	t.Parallel()
	getenv := func(m map[string]string) func(string) string {
		return func(k string) string {
			if k == "DATABASE_URL" {
				return "postgres://pilot@localhost/pilot"
			}
			return m[k]
		}
	}

	c, err := load(getenv(nil))
	require.NoError(t, err)
	require.Equal(t, ".data/attachments", c.AttachmentsDir)

	dir := t.TempDir()
	c, err = load(getenv(map[string]string{"ATTACHMENTS_DIR": dir}))
	require.NoError(t, err)
	require.Equal(t, dir, c.AttachmentsDir)

	// A directory that does not exist yet is fine: it is created on the first upload.
	c, err = load(getenv(map[string]string{"ATTACHMENTS_DIR": filepath.Join(dir, "later")}))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "later"), c.AttachmentsDir)

	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	_, err = load(getenv(map[string]string{"ATTACHMENTS_DIR": file}))
	require.ErrorContains(t, err, "ATTACHMENTS_DIR must be a directory")

	_, err = load(getenv(map[string]string{"ATTACHMENTS_DIR": "   "}))
	require.ErrorContains(t, err, "ATTACHMENTS_DIR must name a directory")
}

func TestS3Config(t *testing.T) {
	t.Parallel()
	getenv := func(m map[string]string) func(string) string {
		return func(k string) string {
			if k == "DATABASE_URL" {
				return "postgres://pilot@localhost/pilot"
			}
			return m[k]
		}
	}
	c, err := load(getenv(nil))
	require.NoError(t, err)
	require.Empty(t, c.S3Bucket, "S3 is off unless a bucket is named")

	c, err = load(getenv(map[string]string{"S3_BUCKET": "files", "S3_ENDPOINT": "http://minio:9000/",
		"S3_REGION": "eu-west-3", "S3_ACCESS_KEY_ID": "id", "S3_SECRET_ACCESS_KEY": "secret", "S3_PATH_STYLE": "true",
		"S3_PREFIX": "attachments"}))
	require.NoError(t, err)
	require.Equal(t, "http://minio:9000", c.S3Endpoint)
	require.Equal(t, "eu-west-3", c.S3Region)
	require.True(t, c.S3PathStyle)
	require.Equal(t, "attachments", c.S3Prefix)

	c, err = load(getenv(map[string]string{"S3_BUCKET": "files"}))
	require.NoError(t, err)
	require.Equal(t, "https://s3.amazonaws.com", c.S3Endpoint)
	require.Equal(t, "us-east-1", c.S3Region)

	_, err = load(getenv(map[string]string{"S3_BUCKET": "files", "S3_ENDPOINT": "minio:9000"}))
	require.ErrorContains(t, err, "S3_ENDPOINT must be a base URL")
	_, err = load(getenv(map[string]string{"S3_BUCKET": "files", "S3_ACCESS_KEY_ID": "id"}))
	require.ErrorContains(t, err, "must be set together")
}

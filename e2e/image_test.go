package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/x509"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// imageUID is the image's non-root user (image/passwd, image/Containerfile's USER).
const imageUID = 65532

// TestImage builds the container image as `make image` does (scripts/image.sh, with buildah or podman,
// in a private vfs storage), exports it as an OCI archive and checks what is in it: its config (user,
// entrypoint, command, version label), its one layer (a static /pilot, an /etc/passwd naming the user,
// parseable CA certificates, /tmp 1777, /data the user's), and that the unpacked binary prints its
// version under chroot as that user. Last it runs `pilot version` in a container with podman, and skips
// only that part, saying why, when the machine cannot run containers. Without buildah or podman, or
// without root (chroot), the whole test skips: .ci/run installs them.
func TestImage(t *testing.T) {
	t.Parallel()
	builder := ""
	for _, b := range []string{"buildah", "podman"} {
		if _, err := exec.LookPath(b); err == nil {
			builder = b
			break
		}
	}
	if builder == "" {
		t.Skip("neither buildah nor podman is installed (Debian: apt-get install buildah podman); .ci/run installs them")
	}
	if os.Geteuid() != 0 {
		t.Skip("building into a private storage and running the binary under chroot need root")
	}

	dir := t.TempDir()
	storageConf := filepath.Join(dir, "storage.conf")
	require.NoError(t, os.WriteFile(storageConf, []byte("[storage]\ndriver = \"vfs\"\n"+
		"runroot = \""+filepath.Join(dir, "run")+"\"\ngraphroot = \""+filepath.Join(dir, "root")+"\"\n"), 0o600))
	env := append(os.Environ(), "CONTAINERS_STORAGE_CONF="+storageConf, "BUILDAH_ISOLATION=chroot")

	const version = "v9.8.7-image"
	archive := filepath.Join(dir, "image.tar")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "../scripts/image.sh")
	build.Env = append(slices.Clone(env), "VERSION="+version, "IMAGE=localhost/pilot-test", "BUILDER="+builder,
		"IMAGE_ARCHIVE="+archive)
	start := time.Now()
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	ref := strings.TrimSpace(string(out))
	require.Equal(t, "localhost/pilot-test:"+version, ref, "the image is tagged with the version")
	st, err := os.Stat(archive)
	require.NoError(t, err)
	t.Logf("image %s built with %s in %s; OCI archive %.1f MB", ref, builder,
		time.Since(start).Round(100*time.Millisecond), float64(st.Size())/1e6)

	cfg, layer := readOCIArchive(t, archive)
	require.Equal(t, "65532:65532", cfg.Config.User, "a numeric non-root user")
	require.Equal(t, []string{"/pilot"}, cfg.Config.Entrypoint)
	require.Equal(t, []string{"api"}, cfg.Config.Cmd, "pilot api unless the command says worker or migrate")
	require.Equal(t, version, cfg.Config.Labels["org.opencontainers.image.version"])
	require.Contains(t, cfg.Config.Env, "ATTACHMENTS_DIR=/data/attachments")

	root := filepath.Join(dir, "rootfs")
	files := unpackLayer(t, layer, root)
	// Exactly what the Containerfile puts in: nothing more comes along (no shell, no base image).
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	require.ElementsMatch(t, []string{"data", "etc", "etc/group", "etc/passwd", "etc/ssl", "etc/ssl/certs",
		"etc/ssl/certs/ca-certificates.crt", "pilot", "tmp"}, names)

	bin := files["pilot"]
	require.Equal(t, 0, bin.Uid, "the binary is root's: the user cannot change it")
	require.Equal(t, int64(0o755), bin.Mode&0o7777)
	f, err := elf.Open(filepath.Join(root, "pilot"))
	require.NoError(t, err)
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "static: no dynamic loader")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	require.Empty(t, libs, "static: no shared libraries")
	require.NoError(t, f.Close())

	passwd, err := os.ReadFile(filepath.Join(root, "etc/passwd"))
	require.NoError(t, err)
	require.Contains(t, string(passwd), "\npilot:x:65532:65532:", "the config's user has a name")
	require.Equal(t, imageUID, files["data"].Uid, "/data is the user's: local attachments are written there")
	require.Equal(t, int64(0o1777), files["tmp"].Mode&0o7777, "/tmp is everyone's, sticky")
	pem, err := os.ReadFile(filepath.Join(root, "etc/ssl/certs/ca-certificates.crt"))
	require.NoError(t, err)
	require.True(t, x509.NewCertPool().AppendCertsFromPEM(pem), "the CA bundle holds certificates")
	require.Greater(t, bytes.Count(pem, []byte("BEGIN CERTIFICATE")), 50, "the whole CA bundle")

	// The unpacked image runs its binary as its user, with nothing else around it.
	run := exec.CommandContext(ctx, "/pilot", "version")
	run.Dir = "/"
	run.Env = []string{}
	run.SysProcAttr = &syscall.SysProcAttr{Chroot: root,
		Credential: &syscall.Credential{Uid: imageUID, Gid: imageUID}}
	out, err = run.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.True(t, strings.HasPrefix(string(out), "pilot "+version+"\ngo "), "%s", out)

	t.Run("container", func(t *testing.T) {
		runInContainer(ctx, t, env, ref, version)
	})
}

// runInContainer runs `pilot version` in a container of the image with podman. Podman exits 125 to 127
// when it or the OCI runtime cannot start the container (the machine's limits, cgroups, a missing
// runtime); those skip, with podman's message. Any other failure is the image's, and fails.
func runInContainer(ctx context.Context, t *testing.T, env []string, ref, version string) {
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed, so no container can run here (Debian: apt-get install podman)")
	}
	// Without a network and at lowered limits: a container may not raise a limit, and some sandboxes
	// refuse even setting one to its current value.
	args := []string{"run", "--rm", "--network", "none", "--ulimit", "nofile=1024:1024",
		"--ulimit", "nproc=1024:1024", ref, "version"}
	var refusals []string
	for _, runtime := range []string{"", "runc", "crun"} {
		cmdArgs, name := args, "podman (its default runtime)"
		if runtime != "" {
			name = "podman --runtime " + runtime
			if _, err := exec.LookPath(runtime); err != nil {
				continue
			}
			cmdArgs = append([]string{"--runtime", runtime}, args...)
		}
		cmd := exec.CommandContext(ctx, "podman", cmdArgs...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() >= 125 && exit.ExitCode() <= 127 {
			refusals = append(refusals, name+": "+strings.TrimSpace(stderr.String()))
			continue
		}
		require.NoError(t, err, "pilot version in the container: %s%s", stdout.String(), stderr.String())
		require.True(t, strings.HasPrefix(stdout.String(), "pilot "+version+"\n"), stdout.String())
		t.Logf("ran in a container with %s: %s; refused before: %q", name, strings.SplitN(stdout.String(), "\n", 2)[0],
			refusals)
		return
	}
	t.Skipf("this machine cannot run a container (the image was checked unpacked, and its binary ran "+
		"under chroot): %s", strings.Join(refusals, "; "))
}

// ociConfig is the part of an OCI image configuration the test reads.
type ociConfig struct {
	Config struct {
		User       string
		Env        []string
		Entrypoint []string
		Cmd        []string
		Labels     map[string]string
	} `json:"config"`
}

// readOCIArchive reads an oci-archive: its one image's configuration and its one layer (gzip tar).
func readOCIArchive(t *testing.T, archive string) (ociConfig, []byte) {
	t.Helper()
	f, err := os.Open(archive)
	require.NoError(t, err)
	defer f.Close()
	blobs := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			blobs[path.Clean(h.Name)] = b
		}
	}
	blob := func(digest string) []byte {
		b, ok := blobs["blobs/"+strings.Replace(digest, ":", "/", 1)]
		require.True(t, ok, "blob %s in the archive", digest)
		return b
	}
	var index struct {
		Manifests []struct{ Digest string } `json:"manifests"`
	}
	require.NoError(t, json.Unmarshal(blobs["index.json"], &index))
	require.Len(t, index.Manifests, 1)
	var manifest struct {
		Config struct{ Digest string } `json:"config"`
		Layers []struct{ Digest, MediaType string }
	}
	require.NoError(t, json.Unmarshal(blob(index.Manifests[0].Digest), &manifest))
	require.Len(t, manifest.Layers, 1, "FROM scratch: the image is one layer")
	var cfg ociConfig
	require.NoError(t, json.Unmarshal(blob(manifest.Config.Digest), &cfg))
	return cfg, blob(manifest.Layers[0].Digest)
}

// unpackLayer writes a gzip tar layer's directories and files under root and answers their headers by
// name (without a trailing slash).
func unpackLayer(t *testing.T, layer []byte, root string) map[string]*tar.Header {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(layer))
	require.NoError(t, err)
	headers := map[string]*tar.Header{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		name := strings.TrimSuffix(path.Clean(h.Name), "/")
		require.False(t, strings.HasPrefix(name, "..") || path.IsAbs(name), "a layer entry outside its root: %s", name)
		headers[name] = h
		target := filepath.Join(root, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(target, 0o755))
		case tar.TypeReg:
			require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode&0o777))
			require.NoError(t, err)
			_, err = io.Copy(out, tr)
			require.NoError(t, err)
			require.NoError(t, out.Close())
		default:
			t.Fatalf("unexpected entry %s (type %c) in the layer", name, h.Typeflag)
		}
	}
	return headers
}

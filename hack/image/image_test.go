package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kscale/kscale/internal/cli/entrypoint"
)

var testStamp = Stamp{Version: "v0.0.0-imagetest", Revision: "0123456789abcdef0123456789abcdef01234567", BuildDate: "2026-01-02T03:04:05Z"}

// TestImage builds the image twice from the same inputs, compares the
// digests, and reads the first build back with go-containerregistry:
// names, platforms, config, files, and the binary of this machine's
// architecture running `version` and dispatching on an entry point.
func TestImage(t *testing.T) {
	platforms := []Platform{{"linux", "amd64"}, {"linux", "arm64"}}
	dir := t.TempDir()
	var results [2]*Result
	for i, name := range []string{"a", "b"} {
		start := time.Now()
		res, err := Build(t.Context(), Options{
			Repo: "../..", Out: filepath.Join(dir, name), Archive: filepath.Join(dir, name+".tar"),
			Platforms: platforms, Stamp: testStamp,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("build %s took %s", name, time.Since(start).Round(time.Millisecond))
		results[i] = res
	}
	if !slices.Equal(results[0].Images, results[1].Images) {
		t.Errorf("two builds of the same inputs differ:\n%v\n%v", results[0].Images, results[1].Images)
	}
	if a, b := fileDigest(t, filepath.Join(dir, "a.tar")), fileDigest(t, filepath.Join(dir, "b.tar")); a != b {
		t.Errorf("archives differ: %x, %x", a, b)
	}

	p, err := layout.FromPath(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := root.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != len(variants) {
		t.Fatalf("layout lists %d images, want %d", len(m.Manifests), len(variants))
	}
	for i, desc := range m.Manifests {
		v := variants[i]
		if desc.Annotations[RefNameAnnotation] != v.name || desc.MediaType != types.OCIImageIndex {
			t.Errorf("layout entry %d: %s %q, want an OCI index named %q", i, desc.MediaType, desc.Annotations[RefNameAnnotation], v.name)
		}
		idx, err := root.ImageIndex(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkIndex(t, idx, v, platforms)
	}
}

// checkIndex checks one variant's index: one image per platform, its
// config, and (for the kscale image) its files.
func checkIndex(t *testing.T, idx v1.ImageIndex, v variant, platforms []Platform) {
	t.Helper()
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != len(platforms) {
		t.Fatalf("%s: %d manifests, want %d", v.name, len(m.Manifests), len(platforms))
	}
	for i, desc := range m.Manifests {
		p := platforms[i]
		if desc.Platform == nil || desc.Platform.OS != p.OS || desc.Platform.Architecture != p.Arch {
			t.Errorf("%s manifest %d: platform %v, want %s", v.name, i, desc.Platform, p)
		}
		img, err := idx.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		c := cfg.Config
		switch {
		case cfg.OS != p.OS || cfg.Architecture != p.Arch:
			t.Errorf("%s %s: config for %s/%s", v.name, p, cfg.OS, cfg.Architecture)
		case !slices.Equal(c.Entrypoint, v.entrypoint) || !slices.Equal(c.Cmd, v.cmd):
			t.Errorf("%s %s: entrypoint %q cmd %q, want %q %q", v.name, p, c.Entrypoint, c.Cmd, v.entrypoint, v.cmd)
		case c.User != "65534:65534" || c.WorkingDir != "/":
			t.Errorf("%s %s: user %q workdir %q, want 65534:65534 and /", v.name, p, c.User, c.WorkingDir)
		case cfg.Created.Format(time.RFC3339) != testStamp.BuildDate || c.Labels["org.opencontainers.image.version"] != testStamp.Version:
			t.Errorf("%s %s: created %s, labels %v", v.name, p, cfg.Created, c.Labels)
		}
		if v.name == "kscale" {
			checkFiles(t, img, p)
		}
	}
}

// checkFiles reads the image's files: the static binary for the platform,
// one link per upstream entry point, the CA bundle, the non-root user, all
// with the build date as time; it runs the binary of this machine's
// architecture.
func checkFiles(t *testing.T, img v1.Image, p Platform) {
	t.Helper()
	root := t.TempDir()
	files := extract(t, img, root)
	for _, name := range entrypoint.Names() {
		if h := files[name]; h == nil || h.Typeflag != tar.TypeSymlink || h.Linkname != binaryPath {
			t.Errorf("%s: /%s is not a link to /%s", p, name, binaryPath)
		}
	}
	if h := files["tmp"]; h == nil || h.Mode != 0o1777 {
		t.Errorf("%s: /tmp missing or not 1777", p)
	}
	if h := files[binaryPath]; h == nil || h.Mode != 0o755 || h.Uid != 0 {
		t.Fatalf("%s: /kscale missing, or not 0755 and owned by root", p)
	}
	passwd, _ := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if !strings.Contains(string(passwd), "nobody:x:65534:65534:") {
		t.Errorf("%s: /etc/passwd lacks the non-root user: %s", p, passwd)
	}
	pem, _ := os.ReadFile(filepath.Join(root, caPath))
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) || bytes.Count(pem, []byte("BEGIN CERTIFICATE")) < 100 {
		t.Errorf("%s: %s holds %d certificates, want the Mozilla roots", p, caPath, bytes.Count(pem, []byte("BEGIN CERTIFICATE")))
	}
	checkELF(t, filepath.Join(root, binaryPath), p)
	if p.Arch != runtime.GOARCH {
		return
	}
	out, err := exec.CommandContext(t.Context(), filepath.Join(root, binaryPath), "version").CombinedOutput()
	want := "kscale " + testStamp.Version + " (revision " + testStamp.Revision + ", built " + testStamp.BuildDate + ", go"
	if err != nil || !strings.HasPrefix(string(out), want) {
		t.Errorf("%s: kscale version = %q, %v; want it to start with %q", p, out, err, want)
	}
	// Called by an upstream name, the binary runs that component.
	for _, name := range entrypoint.Names() {
		sub, _ := entrypoint.Subcommand(name)
		out, err := exec.CommandContext(t.Context(), filepath.Join(root, name), "--help").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "kscale "+sub+" [flags]") {
			t.Errorf("%s: /%s --help = %v:\n%.300s\nwant the usage of kscale %s", p, name, err, out, sub)
		}
	}
}

// extract writes the image's files under root and returns their headers by name.
func extract(t *testing.T, img v1.Image, root string) map[string]*tar.Header {
	t.Helper()
	rc := mutate.Extract(img)
	defer func() { _ = rc.Close() }()
	tr := tar.NewReader(rc)
	created, _ := time.Parse(time.RFC3339, testStamp.BuildDate)
	files := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(created) {
			t.Errorf("%s: time %s, want the build date", h.Name, h.ModTime)
		}
		files[path.Clean(h.Name)] = h
		dst := filepath.Join(root, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(dst, 0o755)
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, dst)
		case tar.TypeReg:
			var data []byte
			if data, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(dst, data, os.FileMode(h.Mode))
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkELF checks the binary's architecture and that it is static (no
// program interpreter).
func checkELF(t *testing.T, path string, p Platform) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[p.Arch]
	if f.Machine != want {
		t.Errorf("%s: binary for %s, want %s", p, f.Machine, want)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			t.Errorf("%s: binary is dynamically linked", p)
		}
	}
}

func fileDigest(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

func TestParsePlatforms(t *testing.T) {
	got, err := parsePlatforms("linux/amd64, linux/arm64")
	if err != nil || !slices.Equal(got, []Platform{{"linux", "amd64"}, {"linux", "arm64"}}) {
		t.Errorf("parsePlatforms = %v, %v", got, err)
	}
	for _, bad := range []string{"", "linux", "windows/amd64", "linux/s390x"} {
		if _, err := parsePlatforms(bad); err == nil || !strings.Contains(err.Error(), "--platforms") {
			t.Errorf("parsePlatforms(%q) = %v, want an error naming --platforms", bad, err)
		}
	}
}

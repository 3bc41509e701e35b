package main

import (
	"archive/tar"
	"bytes"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"golang.org/x/crypto/x509roots/fallback/bundle"

	"github.com/kscale/kscale/internal/cli/entrypoint"
)

// The image's non-root user: nobody, as upstream's manifests run it
// (runAsUser 65534).
const (
	uid  = 65534
	user = "65534:65534"
)

// Paths inside the image.
const (
	binaryPath = "kscale"
	caPath     = "etc/ssl/certs/ca-certificates.crt"
)

// entry is one file of the root file system.
type entry struct {
	name string
	mode int64
	typ  byte
	body []byte
	link string
}

// rootFS returns the image's files for the binary at bin: the binary, a
// link per upstream entry point, the CA bundle, passwd and group with the
// non-root user, and /tmp.
func rootFS(bin string) ([]entry, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("reading the binary: %w", err)
	}
	cas, err := caBundle()
	if err != nil {
		return nil, err
	}
	files := []entry{
		{name: binaryPath, mode: 0o755, typ: tar.TypeReg, body: data},
		{name: "etc/", mode: 0o755, typ: tar.TypeDir},
		{name: "etc/ssl/", mode: 0o755, typ: tar.TypeDir},
		{name: "etc/ssl/certs/", mode: 0o755, typ: tar.TypeDir},
		{name: caPath, mode: 0o644, typ: tar.TypeReg, body: cas},
		{name: "etc/passwd", mode: 0o644, typ: tar.TypeReg, body: []byte(
			"root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n")},
		{name: "etc/group", mode: 0o644, typ: tar.TypeReg, body: []byte("root:x:0:\nnobody:x:65534:\n")},
		{name: "tmp/", mode: 0o1777, typ: tar.TypeDir},
	}
	for _, name := range entrypoint.Names() {
		files = append(files, entry{name: name, mode: 0o777, typ: tar.TypeSymlink, link: binaryPath})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, nil
}

// caBundle renders the Mozilla roots of x509roots/fallback as PEM, leaving
// out the roots whose extra constraints (distrust after a date) a PEM file
// cannot carry.
func caBundle() ([]byte, error) {
	var buf bytes.Buffer
	for root := range bundle.Roots() {
		if root.Constraint != nil {
			continue
		}
		if err := pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate}); err != nil {
			return nil, fmt.Errorf("encoding the CA bundle: %w", err)
		}
	}
	return buf.Bytes(), nil
}

// writeTar writes files as a tar stream with every time set to mtime and
// root ownership, so the bytes depend only on the files.
func writeTar(w io.Writer, files []entry, mtime time.Time) error {
	tw := tar.NewWriter(w)
	for _, f := range files {
		h := &tar.Header{
			Typeflag: f.typ, Name: f.name, Linkname: f.link, Mode: f.mode, Size: int64(len(f.body)),
			ModTime: mtime, Format: tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("writing tar header %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.body); err != nil {
			return fmt.Errorf("writing %s: %w", f.name, err)
		}
	}
	return tw.Close()
}

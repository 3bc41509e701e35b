package main

import (
	"archive/tar"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// writeLayout replaces dir with an OCI image layout whose index.json lists
// every named index.
func writeLayout(dir string, images []namedIndex) (*Result, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("clearing %s: %w", dir, err)
	}
	var root v1.ImageIndex = empty.Index
	res := &Result{}
	for _, img := range images {
		root = mutate.AppendManifests(root, mutate.IndexAddendum{
			Add: img.index, Descriptor: v1.Descriptor{Annotations: map[string]string{RefNameAnnotation: img.name}},
		})
		d, err := img.index.Digest()
		if err != nil {
			return nil, err
		}
		res.Images = append(res.Images, Named{Name: img.name, Digest: d.String()})
	}
	if _, err := layout.Write(dir, root); err != nil {
		return nil, fmt.Errorf("writing the image layout %s: %w", dir, err)
	}
	return res, nil
}

// writeArchive writes the layout dir as a tar archive (what
// oci-archive: transports read), entries sorted, times fixed.
func writeArchive(dir, archive string, mtime time.Time) (err error) {
	var files []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing %s: %w", dir, err)
	}
	sort.Strings(files)
	if err := os.MkdirAll(filepath.Dir(archive), 0o755); err != nil {
		return err
	}
	f, err := os.Create(archive)
	if err != nil {
		return fmt.Errorf("creating %s: %w", archive, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	tw := tar.NewWriter(f)
	for _, path := range files {
		if err := addToArchive(tw, dir, path, mtime); err != nil {
			return err
		}
	}
	return tw.Close()
}

func addToArchive(tw *tar.Writer, dir, path string, mtime time.Time) error {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return err
	}
	info, err := os.Lstat(path)
	if err != nil {
		return err
	}
	h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Format: tar.FormatUSTAR}
	if info.IsDir() {
		h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
		return tw.WriteHeader(h)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, int64(len(data))
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("archiving %s: %w", rel, err)
	}
	_, err = tw.Write(data)
	return err
}

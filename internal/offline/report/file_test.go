package report

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreate: a directory or a missing parent is a *PathError naming the
// path; a committed report replaces the path, a discarded one leaves no
// file behind.
func TestCreate(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{dir, filepath.Join(dir, "missing", "r.html")} {
		_, err := Create(path)
		var pe *PathError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), path) {
			t.Errorf("Create(%s) = %v, want a *PathError naming the path", path, err)
		}
	}
	path := filepath.Join(dir, "r.html")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(func(w io.Writer) error { _, err := io.WriteString(w, "page"); return err }); err != nil {
		t.Fatal(err)
	}
	f.Discard()
	if got, err := os.ReadFile(path); err != nil || string(got) != "page" {
		t.Errorf("committed report: %q, %v; want \"page\"", got, err)
	}
	f, err = Create(filepath.Join(dir, "other.html"))
	if err != nil {
		t.Fatal(err)
	}
	f.Discard()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("after a discarded report the directory holds %d files, want only r.html", len(entries))
	}
}

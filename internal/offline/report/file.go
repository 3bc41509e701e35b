package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// PathError is a report path that cannot be written: a directory, or a
// place where no file can be created.
type PathError struct {
	Path string
	Err  error
}

// Error names the path and the reason.
func (e *PathError) Error() string {
	if errors.Is(e.Err, errIsDir) {
		return e.Path + " is a directory"
	}
	return fmt.Sprintf("cannot create %s: %v", e.Path, e.Err)
}

// Unwrap returns the reason.
func (e *PathError) Unwrap() error { return e.Err }

// errIsDir is the reason for a path that is a directory.
var errIsDir = errors.New("is a directory")

// File is a report being written: a temporary file beside the path,
// created before the simulation so an unwritable path fails at once, and
// renamed onto the path when the report is complete.
type File struct {
	path string
	tmp  *os.File
	done bool
}

// Create starts a report at path; the error is a *PathError when the path
// cannot take a file.
func Create(path string) (*File, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, &PathError{Path: path, Err: errIsDir}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kscale-report-*.html")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &PathError{Path: path, Err: err}
	}
	return &File{path: path, tmp: tmp}, nil
}

// Commit renders the page into the temporary file and moves it onto the
// path.
func (r *File) Commit(render func(io.Writer) error) error {
	if err := render(r.tmp); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := r.tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := r.tmp.Close(); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := os.Rename(r.tmp.Name(), r.path); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	r.done = true
	return nil
}

// Discard removes the temporary file unless the report was committed.
func (r *File) Discard() {
	if !r.done {
		_ = r.tmp.Close()
		_ = os.Remove(r.tmp.Name())
	}
}

package manifesttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesCycles checks that an overlay below its own base (which
// kustomize refuses: the base directory contains the overlay's) fails.
func TestLoadRefusesCycles(t *testing.T) {
	root := t.TempDir()
	overlay := filepath.Join(root, "mon")
	if err := os.Mkdir(overlay, 0o750); err != nil {
		t.Fatal(err)
	}
	write := func(dir, resources string) {
		t.Helper()
		data := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: " + resources + "\n"
		if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(root, "[]")
	write(overlay, "[..]")
	rec := &recorder{TB: t}
	Load(rec, overlay)
	if !strings.Contains(strings.Join(rec.errs, "\n"), "a cycle kustomize refuses") {
		t.Errorf("errors %q, want the cycle reported", rec.errs)
	}
}

// recorder collects a test's errors instead of failing it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Helper() {}

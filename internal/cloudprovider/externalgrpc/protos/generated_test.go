package protos_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate regenerates every .proto of the repository with
// hack/proto/generate.sh into a temporary tree and compares it with the
// committed Go code: a .proto edited without `make proto` fails here.
func TestGeneratedUpToDate(t *testing.T) {
	if _, err := exec.LookPath("protoc"); err != nil {
		t.Fatal("protoc is missing; install it with: apt-get install -y protobuf-compiler")
	}
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.CommandContext(t.Context(), filepath.Join(root, "hack/proto/generate.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/proto/generate.sh: %v\n%s", err, b)
	}
	all := append(mustGlob(t, out, "internal/*/*/protos/*.pb.go"), mustGlob(t, out, "internal/*/*/*/protos/*.pb.go")...)
	if len(all) < 4 {
		t.Fatalf("generated %v, want the Go code of both protocols", all)
	}
	for _, gen := range all {
		rel, _ := filepath.Rel(out, gen)
		want, err := os.ReadFile(gen)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatalf("%s: %v (run make proto)", rel, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what its .proto generates; run make proto", rel)
		}
	}
}

func mustGlob(t *testing.T, dir, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

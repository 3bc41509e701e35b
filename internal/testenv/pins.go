package testenv

import (
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// ExpectPin fails t unless the go.mod file at goMod requires module at
// version: the version a test environment names and the tool module
// `make testbin` builds it from must agree.
func ExpectPin(t testing.TB, goMod, module, version string) {
	t.Helper()
	data, err := os.ReadFile(goMod)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax(goMod, data, nil)
	if err != nil {
		t.Fatalf("parsing %s: %v", goMod, err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == module {
			if r.Mod.Version != version {
				t.Errorf("%s pins %s at %s, want %s", goMod, module, r.Mod.Version, version)
			}
			return
		}
	}
	t.Errorf("%s does not require %s (want %s)", goMod, module, version)
}

// ExpectMissingBinary fails t unless err is a *MissingBinaryError whose
// text names `make testbin` and every one of names (for example the
// environment variable that points at the binary's directory).
func ExpectMissingBinary(t testing.TB, err error, names ...string) {
	t.Helper()
	var missing *MissingBinaryError
	if !errors.As(err, &missing) {
		t.Fatalf("error = %v, want a MissingBinaryError", err)
	}
	for _, n := range append([]string{"make testbin"}, names...) {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %s", err, n)
		}
	}
}

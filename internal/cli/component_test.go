package cli

import (
	"testing"

	"github.com/spf13/pflag"
)

// expectDefaults fails the test for every flag of want that lookup does not
// find or whose default differs.
func expectDefaults(t *testing.T, lookup func(string) *pflag.Flag, want map[string]string) {
	t.Helper()
	for name, def := range want {
		f := lookup(name)
		if f == nil {
			t.Errorf("flag --%s is missing", name)
			continue
		}
		if f.DefValue != def {
			t.Errorf("--%s default = %q, want %q", name, f.DefValue, def)
		}
	}
}

// Package optionstest checks, in the providers' tests, what parsing a node
// group's autoscaling options returned.
package optionstest

import (
	"strings"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Valid checks the outcome against want, the texts OptionsInvalid must
// mention: with want set, every text is mentioned and no option is set;
// with want empty, invalid is empty. It reports whether the options are
// valid, so the caller goes on to check their values.
func Valid(t testing.TB, o cloudprovider.Options, invalid string, want []string) bool {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(invalid, w) {
			t.Errorf("OptionsInvalid %q does not mention %q", invalid, w)
		}
	}
	if want != nil {
		if o.Set() {
			t.Errorf("options %+v set despite %q", o, invalid)
		}
		return false
	}
	if invalid != "" {
		t.Fatalf("OptionsInvalid %q", invalid)
	}
	return true
}

// Duration checks an optional duration; want 0 means unset.
func Duration(t testing.TB, what string, got *time.Duration, want time.Duration) {
	t.Helper()
	if (got == nil) != (want == 0) || (got != nil && *got != want) {
		t.Errorf("%s %v, want %v", what, got, want)
	}
}

// Fraction checks an optional number; want 0 means unset.
func Fraction(t testing.TB, what string, got *float64, want float64) {
	t.Helper()
	if (got == nil) != (want == 0) || (got != nil && *got != want) {
		t.Errorf("%s %v, want %v", what, got, want)
	}
}

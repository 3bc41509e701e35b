package options

import (
	"fmt"
	"strconv"
	"strings"
)

// MinMax is a "min:max" pair of non-negative integers, as --cores-total and
// --memory-total take. It implements pflag.Value.
type MinMax struct {
	// Min is the lower bound.
	Min int64
	// Max is the upper bound.
	Max int64
}

// String formats the pair as "min:max".
func (m *MinMax) String() string { return fmt.Sprintf("%d:%d", m.Min, m.Max) }

// Set parses "min:max".
func (m *MinMax) Set(s string) error {
	lo, hi, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Errorf("want min:max, got %q", s)
	}
	a, err := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
	if err != nil {
		return fmt.Errorf("parsing min of %q: %w", s, err)
	}
	b, err := strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
	if err != nil {
		return fmt.Errorf("parsing max of %q: %w", s, err)
	}
	if a < 0 || b < a {
		return fmt.Errorf("want 0 <= min <= max, got %q", s)
	}
	m.Min, m.Max = a, b
	return nil
}

// Type names the value kind for help output.
func (m *MinMax) Type() string { return "min:max" }

package cost

import (
	"errors"
	"testing"
)

// FuzzParse checks that any input either fails with an *Error or yields a
// table that passes Validate.
func FuzzParse(f *testing.F) {
	f.Add([]byte("defaultCost: 1\nrules:\n  - verb: LIST\n    scope: cluster\n    cost: 12.5\n"))
	f.Add([]byte(`{"defaultCost": 0.5, "rules": [{"resource": "pods", "cost": 2}]}`))
	f.Add([]byte("defaultCost: 1\nrules: [\n"))
	f.Add([]byte("defaultCost: &a 1\nrules: [{cost: *a}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		table, err := Parse(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			return
		}
		if err := table.Validate(); err != nil {
			t.Fatalf("parsed table invalid: %v", err)
		}
	})
}

package scenario

import (
	"os"
	"testing"
)

// FuzzParse checks that no input makes Parse panic and that it returns
// either a scenario or a ParseError, never both or neither.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("testdata/valid.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 1m\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if (s == nil) == (err == nil) {
			t.Fatalf("scenario %v and error %v", s, err)
		}
		if err != nil && !IsParseError(err) {
			t.Fatalf("error is not a ParseError: %T %v", err, err)
		}
	})
}

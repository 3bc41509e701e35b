package scenario

import (
	yaml "go.yaml.in/yaml/v3"

	"github.com/kscale/kscale/internal/yamlstrict"
)

// ParseError is one problem in a scenario file, at a line.
type ParseError = yamlstrict.ParseError

// IsParseError reports whether err is or wraps a ParseError.
func IsParseError(err error) bool { return yamlstrict.IsParseError(err) }

// MaxFileSize bounds what Parse accepts.
const MaxFileSize = yamlstrict.MaxFileSize

// Parse reads and validates one scenario file. On any problem it returns
// nil and an error made of *ParseError values.
func Parse(data []byte) (*Scenario, error) {
	var s Scenario
	root, err := yamlstrict.DecodeStrict(data, &s)
	if err != nil {
		return nil, err
	}
	if err := validate(&s, tree{root}); err != nil {
		return nil, err
	}
	return &s, nil
}

// PeekKind returns the kind field of a YAML map document, or "" when it
// has none or is no map; simulate uses it to pick the parser.
func PeekKind(data []byte) (kind string) {
	defer func() {
		if recover() != nil {
			kind = ""
		}
	}()
	var head struct {
		Kind string `yaml:"kind"`
	}
	if len(data) > MaxFileSize || yaml.Unmarshal(data, &head) != nil {
		return ""
	}
	return head.Kind
}

// tree finds line numbers of fields for validation messages.
type tree struct{ root *yaml.Node }

// line returns the line of the deepest node along path (string keys and
// int indices); for a key it is the key's own line.
func (t tree) line(path ...any) int { return yamlstrict.Line(t.root, path...) }

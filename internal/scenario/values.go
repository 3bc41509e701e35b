package scenario

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kscale/kscale/internal/yamlstrict"
)

// The value types of scenario files, shared with the other strictly read
// files (see package yamlstrict).
type (
	// Duration is a Go duration string such as "7m" or "1h30m".
	Duration = yamlstrict.Duration
	// Resources is a resource list such as {cpu: "1", memory: 24Gi}.
	Resources = yamlstrict.Resources
	// K8s holds a Kubernetes API value written in its usual YAML form.
	K8s[T any] = yamlstrict.K8s[T]
	// Capacity is a non-negative number or "unlimited".
	Capacity = yamlstrict.Capacity
	// Size is a storage quantity such as 10Gi.
	Size = yamlstrict.Size
)

func lineErr(line int, msg string) error { return &ParseError{Line: line, Msg: msg} }

// Settings are the autoscaler options keyed by flag name; values may be
// scalars or lists (joined with commas).
type Settings struct {
	// Values maps flag names to their string values.
	Values map[string]string
	// Lines maps flag names to their line numbers.
	Lines map[string]int
}

// UnmarshalYAML reads a flat map of scalars and lists of scalars.
func (s *Settings) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return lineErr(n.Line, "autoscaler: want a map of flag names to values")
	}
	s.Values, s.Lines = map[string]string{}, map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		val, err := settingValue(v)
		if err != nil {
			return lineErr(v.Line, fmt.Sprintf("autoscaler.%s: %v", k.Value, err))
		}
		if _, dup := s.Values[k.Value]; dup {
			return lineErr(k.Line, fmt.Sprintf("autoscaler.%s: set twice", k.Value))
		}
		s.Values[k.Value], s.Lines[k.Value] = val, k.Line
	}
	return nil
}

func settingValue(v *yaml.Node) (string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		return v.Value, nil
	case yaml.SequenceNode:
		parts := make([]string, 0, len(v.Content))
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode {
				return "", fmt.Errorf("want a list of scalars")
			}
			parts = append(parts, e.Value)
		}
		return strings.Join(parts, ","), nil
	default:
		return "", fmt.Errorf("want a scalar or a list of scalars")
	}
}

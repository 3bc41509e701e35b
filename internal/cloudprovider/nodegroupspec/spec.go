package nodegroupspec

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxNameLength bounds a node group name in --nodes; the longest names the
// supported clouds allow (an ASG name, a namespace-qualified Kubernetes
// object) stay well below it.
const MaxNameLength = 1024

// Static is one --nodes value: a node group named by the user with the
// bounds the autoscaler must keep it within.
type Static struct {
	// Min is the smallest size the autoscaler may set.
	Min int
	// Max is the largest size the autoscaler may set.
	Max int
	// Name is the provider's name for the group, for example an ASG name
	// or Gardener's `<namespace>.<machinedeployment>`.
	Name string
}

// ParseStatic parses one --nodes value of the form `min:max:name`. The name
// may itself contain colons; it must not be empty.
func ParseStatic(s string) (Static, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 {
		return Static{}, fmt.Errorf("parsing %q: want min:max:name", s)
	}
	minSize, err := strconv.Atoi(parts[0])
	if err != nil || minSize < 0 {
		return Static{}, fmt.Errorf("parsing %q: min size %q is not a non-negative integer", s, parts[0])
	}
	maxSize, err := strconv.Atoi(parts[1])
	if err != nil || maxSize < 0 {
		return Static{}, fmt.Errorf("parsing %q: max size %q is not a non-negative integer", s, parts[1])
	}
	switch name := parts[2]; {
	case maxSize < minSize:
		return Static{}, fmt.Errorf("parsing %q: max size %d is below min size %d", s, maxSize, minSize)
	case name == "":
		return Static{}, fmt.Errorf("parsing %q: the node group name is empty", s)
	case len(name) > MaxNameLength:
		return Static{}, fmt.Errorf("parsing %q: the node group name is longer than %d bytes", s[:32]+"...", MaxNameLength)
	}
	return Static{Min: minSize, Max: maxSize, Name: parts[2]}, nil
}

// ParseStaticList parses every --nodes value and rejects a name given twice.
func ParseStaticList(values []string) ([]Static, error) {
	out := make([]Static, 0, len(values))
	seen := make(map[string]bool, len(values))
	for _, v := range values {
		s, err := ParseStatic(v)
		if err != nil {
			return nil, err
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("parsing %q: node group %q is given twice", v, s.Name)
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	return out, nil
}

// Discovery is one --node-group-auto-discovery value split at its provider
// prefix: `asg:tag=...` has Provider "asg" and Spec "tag=...".
type Discovery struct {
	// Provider is the prefix before the first colon, for example "asg" or
	// "clusterapi".
	Provider string
	// Spec is everything after the first colon; its format is the
	// provider's.
	Spec string
}

// ParseDiscovery splits one --node-group-auto-discovery value at its first
// colon and checks that the prefix is one of want.
func ParseDiscovery(s string, want ...string) (Discovery, error) {
	prefix, spec, ok := strings.Cut(s, ":")
	if !ok || prefix == "" {
		return Discovery{}, fmt.Errorf("parsing %q: want <provider>:<spec>", s)
	}
	for _, w := range want {
		if prefix == w {
			return Discovery{Provider: prefix, Spec: spec}, nil
		}
	}
	return Discovery{}, fmt.Errorf("parsing %q: discoverer %q is not supported here (want %s)", s, prefix, strings.Join(want, ", "))
}

// KeyValues splits a comma-separated list of key=value pairs, the form the
// clusterapi and most other discoverers use, keeping their order. Every
// item must have a non-empty key and an equals sign.
func KeyValues(spec string) ([][2]string, error) {
	if spec == "" {
		return nil, nil
	}
	items := strings.Split(spec, ",")
	out := make([][2]string, 0, len(items))
	for _, item := range items {
		k, v, ok := strings.Cut(item, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("parsing %q: item %q is not key=value", spec, item)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

package yamlstrict

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	sigsyaml "sigs.k8s.io/yaml"

	corev1 "k8s.io/api/core/v1"
)

// Duration is a Go duration string such as "7m" or "1h30m".
type Duration struct {
	time.Duration
}

// UnmarshalYAML parses a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return lineErr(n.Line, "want a duration such as 7m or 1h30m")
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return lineErr(n.Line, fmt.Sprintf("bad duration %q: want a value such as 7m or 1h30m", n.Value))
	}
	d.Duration = v
	return nil
}

// MarshalYAML prints the duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// Resources is a resource list such as {cpu: "1", memory: 24Gi}.
type Resources corev1.ResourceList

// UnmarshalYAML parses a map of resource names to quantities.
func (r *Resources) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return lineErr(n.Line, "want a map of resource names to quantities, e.g. {cpu: \"1\", memory: 2Gi}")
	}
	out := Resources{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode || k.Value == "" {
			return lineErr(v.Line, fmt.Sprintf("resource %q: want a quantity", k.Value))
		}
		q, err := parseQuantity(v.Value)
		if err != nil {
			return lineErr(v.Line, fmt.Sprintf("resource %q: %v", k.Value, err))
		}
		out[corev1.ResourceName(k.Value)] = q
	}
	*r = out
	return nil
}

// maxQuantity is the largest resource quantity a scenario may write: its
// milli-value still fits an int64.
var maxQuantity = resource.MustParse("9e15")

// parseQuantity parses a quantity that is neither negative nor above
// maxQuantity.
func parseQuantity(v string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(v)
	switch {
	case err != nil:
		return q, fmt.Errorf("bad quantity %q", v)
	case q.Sign() < 0:
		return q, fmt.Errorf("quantity %q is negative", v)
	case q.Cmp(maxQuantity) > 0:
		return q, fmt.Errorf("quantity %q is above %s, the largest counted exactly in milli-units", v, maxQuantity.String())
	}
	return q, nil
}

// Size is a storage quantity such as 10Gi.
type Size struct {
	// Quantity is the parsed value.
	resource.Quantity
}

// UnmarshalYAML parses a quantity that is neither negative nor above
// 9e15 (see Resources).
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return lineErr(n.Line, "want a storage size such as 10Gi")
	}
	q, err := parseQuantity(n.Value)
	if err != nil {
		return lineErr(n.Line, fmt.Sprintf("storage size: %v; want a quantity such as 10Gi", err))
	}
	s.Quantity = q
	return nil
}

// MarshalYAML prints the quantity.
func (s Size) MarshalYAML() (any, error) { return s.String(), nil }

// List returns the resources as a corev1.ResourceList copy.
func (r Resources) List() corev1.ResourceList { return corev1.ResourceList(r).DeepCopy() }

// K8s holds a Kubernetes API value (affinity, tolerations, spread
// constraints, taints) written in its usual YAML form and decoded strictly.
type K8s[T any] struct {
	// Value is the decoded object.
	Value T
}

// UnmarshalYAML decodes the node through the Kubernetes JSON field names,
// rejecting unknown fields.
func (k *K8s[T]) UnmarshalYAML(n *yaml.Node) error {
	budget := maxExpandedNodes
	resolved, err := expandAliases(n, &budget)
	if err != nil {
		return lineErr(n.Line, err.Error())
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(resolved); err != nil {
		return lineErr(n.Line, fmt.Sprintf("re-encoding: %v", err))
	}
	if err := sigsyaml.UnmarshalStrict(buf.Bytes(), &k.Value); err != nil {
		msg := strings.TrimPrefix(err.Error(), "error unmarshaling JSON: while decoding JSON: ")
		msg = strings.TrimPrefix(msg, "json: ")
		return lineErr(n.Line, msg)
	}
	return nil
}

// Capacity is how many more instances a group's cloud can deliver: a
// non-negative number or "unlimited" (the default).
type Capacity struct {
	// Limit is the number; negative means unlimited.
	Limit int
}

// UnmarshalYAML parses a number or "unlimited".
func (c *Capacity) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "unlimited" {
		c.Limit = -1
		return nil
	}
	var v int
	if n.Kind != yaml.ScalarNode || n.Decode(&v) != nil || v < 0 {
		return lineErr(n.Line, fmt.Sprintf("capacity: want a non-negative number or \"unlimited\", got %q", n.Value))
	}
	c.Limit = v
	return nil
}

// maxExpandedNodes bounds the nodes a Kubernetes value may expand to once
// its aliases are resolved, so aliases cannot multiply a small file.
const maxExpandedNodes = 100000

// expandAliases copies the node with every alias replaced by a copy of
// the node its anchor names, wherever that anchor is in the file, so the
// value can be re-encoded on its own.
func expandAliases(n *yaml.Node, budget *int) (*yaml.Node, error) {
	*budget--
	if *budget < 0 {
		return nil, fmt.Errorf("aliases expand to more than %d YAML nodes", maxExpandedNodes)
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return expandAliases(n.Alias, budget)
	}
	out := *n
	out.Anchor = ""
	out.Content = nil
	for _, c := range n.Content {
		e, err := expandAliases(c, budget)
		if err != nil {
			return nil, err
		}
		out.Content = append(out.Content, e)
	}
	return &out, nil
}

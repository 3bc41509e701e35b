package model

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// PodID names a pod.
type PodID struct {
	// Namespace is the pod's namespace.
	Namespace string
	// Name is the pod's name.
	Name string
}

// VPAID names a VerticalPodAutoscaler.
type VPAID struct {
	// Namespace is the VPA's namespace.
	Namespace string
	// Name is the VPA's name.
	Name string
}

// AggregateKey identifies an aggregate: containers of the same name in pods
// of one namespace with an identical label set share one.
type AggregateKey struct {
	// Namespace is the pods' namespace.
	Namespace string
	// Container is the container name.
	Container string
	// Labels is the pods' label set in canonical form (see LabelsKey).
	Labels string
}

// LabelsKey returns the canonical form of a label set: "k=v" pairs sorted
// by key and joined by commas.
func LabelsKey(set map[string]string) string {
	if len(set) == 0 {
		return ""
	}
	keys := make([]string, 0, len(set))
	n := 0
	for k, v := range set {
		keys = append(keys, k)
		n += len(k) + len(v) + 2
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(set[k])
	}
	return b.String()
}

// labelsFromKey parses a LabelsKey back into a label set.
func labelsFromKey(key string) labels.Set {
	set := labels.Set{}
	if key == "" {
		return set
	}
	for pair := range strings.SplitSeq(key, ",") {
		k, v, _ := strings.Cut(pair, "=")
		set[k] = v
	}
	return set
}

// labelsMatchKey reports whether set has exactly the labels of key,
// without allocating.
func labelsMatchKey(set map[string]string, key string) bool {
	if key == "" {
		return len(set) == 0
	}
	n := 0
	for pair := range strings.SplitSeq(key, ",") {
		k, v, _ := strings.Cut(pair, "=")
		if got, ok := set[k]; !ok || got != v {
			return false
		}
		n++
	}
	return n == len(set)
}

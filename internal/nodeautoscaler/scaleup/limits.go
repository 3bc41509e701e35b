package scaleup

import (
	"math"

	corev1 "k8s.io/api/core/v1"
)

// Limits are the cluster-wide bounds on a scale-up.
type Limits struct {
	// MaxNodesTotal is --max-nodes-total; 0 means none.
	MaxNodesTotal int
	// MaxCores and MaxMemoryBytes are the upper --cores-total and
	// --memory-total bounds; 0 means none.
	MaxCores, MaxMemoryBytes int64
	// MaxNodesPerScaleUp is --max-nodes-per-scaleup.
	MaxNodesPerScaleUp int
	// Nodes, Cores and MemoryBytes are what the cluster has now, upcoming
	// nodes included.
	Nodes       int
	Cores       float64
	MemoryBytes int64
}

// NodesBudget is how many nodes may still be added cluster-wide.
func (l Limits) NodesBudget() int {
	if l.MaxNodesTotal <= 0 {
		return math.MaxInt32
	}
	return max(0, l.MaxNodesTotal-l.Nodes)
}

// Add counts n more nodes like tmpl.
func (l *Limits) Add(n int, tmpl *corev1.Node) {
	l.Nodes += n
	l.Cores += float64(n) * tmpl.Status.Capacity.Cpu().AsApproximateFloat64()
	l.MemoryBytes += int64(n) * tmpl.Status.Capacity.Memory().Value()
}

// Apply trims increases to the per-scale-up, node, core and memory
// limits, using the chosen template's size, and names the limit that cut.
func (l Limits) Apply(incs []Increase, tmpl *corev1.Node) ([]Increase, string) {
	allowed, by := l.MaxNodesPerScaleUp, "max-nodes-per-scaleup"
	if allowed <= 0 {
		allowed = math.MaxInt32
	}
	if b := l.NodesBudget(); b < allowed {
		allowed, by = b, "max-nodes-total"
	}
	if tmpl != nil {
		if c := tmpl.Status.Capacity.Cpu().AsApproximateFloat64(); l.MaxCores > 0 && c > 0 {
			if b := int((float64(l.MaxCores) - l.Cores) / c); b < allowed {
				allowed, by = max(0, b), "cores-total"
			}
		}
		if m := tmpl.Status.Capacity.Memory().Value(); l.MaxMemoryBytes > 0 && m > 0 {
			if b := int((l.MaxMemoryBytes - l.MemoryBytes) / m); b < allowed {
				allowed, by = max(0, b), "memory-total"
			}
		}
	}
	total := 0
	for _, inc := range incs {
		total += inc.Delta
	}
	if total <= allowed {
		return incs, ""
	}
	for total > allowed {
		i := len(incs) - 1
		for j := range incs {
			if incs[j].Delta > incs[i].Delta {
				i = j
			}
		}
		incs[i].Delta--
		total--
	}
	out := incs[:0]
	for _, inc := range incs {
		if inc.Delta > 0 {
			out = append(out, inc)
		}
	}
	return out, by
}

// ExceededBy returns the resources that n more nodes like tmpl would take
// above --cores-total or --memory-total (none when they fit).
func (l Limits) ExceededBy(tmpl *corev1.Node, n int) []string {
	var out []string
	if c := float64(n) * tmpl.Status.Capacity.Cpu().AsApproximateFloat64(); l.MaxCores > 0 && l.Cores+c > float64(l.MaxCores) {
		out = append(out, ResourceCores)
	}
	if m := int64(n) * tmpl.Status.Capacity.Memory().Value(); l.MaxMemoryBytes > 0 && l.MemoryBytes+m > l.MaxMemoryBytes {
		out = append(out, ResourceMemory)
	}
	return out
}

package scaleup

import (
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
)

// Labels that may differ between similar groups.
var ignoredLabels = map[string]bool{
	"kubernetes.io/hostname":                                  true,
	"topology.kubernetes.io/zone":                             true,
	"failure-domain.beta.kubernetes.io/zone":                  true,
	"topology.ebs.csi.aws.com/zone":                           true,
	"node.kubernetes.io/instance-type":                        true,
	"beta.kubernetes.io/instance-type":                        true,
	"alpha.eksctl.io/nodegroup-name":                          true,
	"eks.amazonaws.com/nodegroup":                             true,
	"k8s.amazonaws.com/eniConfig":                             true,
	"node.kubernetes.io/exclude-from-external-load-balancers": true,
	// Upstream's basic set also ignores the region.
	"topology.kubernetes.io/region":            true,
	"failure-domain.beta.kubernetes.io/region": true,
	// Per-zone CSI topology keys Gardener's provider extensions put on each
	// zone's MachineDeployment of a worker pool (GCP, Azure, OpenStack,
	// STACKIT, Alicloud); AWS's is above.
	"topology.gke.io/zone":                          true,
	"topology.disk.csi.azure.com/zone":              true,
	"topology.cinder.csi.openstack.org/zone":        true,
	"topology.manila.csi.openstack.org/zone":        true,
	"topology.block-storage.csi.stackit.cloud/zone": true,
	"topology.diskplugin.csi.alibabacloud.com/zone": true,
	// Gardener labels each node with its Machine's name.
	"node.gardener.cloud/machine-name": true,
}

// distribute turns the chosen option into increases: alone, or with
// balancing as its estimate split the nodes over the similar groups
// (smallest group first, as far as the pods fit each group's template).
func distribute(in Input, best expander.Option, splits map[string][]Increase) []Increase {
	if (!in.Balance && !isZeroOrMax(in, best.Group)) || len(splits[best.Group]) == 0 {
		return []Increase{{Group: best.Group, Delta: best.NodeCount, Pods: len(best.Pods)}}
	}
	out := slices.Clone(splits[best.Group])
	slices.SortFunc(out, func(a, b Increase) int { return strings.Compare(a.Group, b.Group) })
	return out
}

// Similarity configures which groups balancing treats as similar
// (--balancing-label, --balancing-ignore-label and the three difference
// ratios).
type Similarity struct {
	// Labels, when set, are the only thing compared: two templates are
	// similar when both carry each label with the same value.
	Labels []string
	// IgnoredLabels may differ, on top of the built-in set.
	IgnoredLabels []string
	// MaxAllocatableDifferenceRatio bounds the relative difference of each
	// allocatable resource.
	MaxAllocatableDifferenceRatio float64
	// MaxFreeDifferenceRatio bounds the relative difference of each
	// resource left once the template's DaemonSet pods are placed.
	MaxFreeDifferenceRatio float64
	// MemoryDifferenceRatio bounds the relative difference of memory
	// capacity; every other capacity must be equal.
	MemoryDifferenceRatio float64
}

// DefaultSimilarity is upstream's default comparison.
func DefaultSimilarity() Similarity {
	return Similarity{MaxAllocatableDifferenceRatio: 0.05, MaxFreeDifferenceRatio: 0.05, MemoryDifferenceRatio: 0.015}
}

// similar reports whether two templates offer the same node, the way
// upstream's comparators decide it: with Labels set, by those labels alone;
// otherwise equal capacity (memory within MemoryDifferenceRatio), each
// allocatable and free resource within its ratio, and equal labels but
// the ignored ones. kscale also requires equal taints in the second mode,
// so a balanced estimate never places pods on a group that repels them.
func similar(a, b *template.Template, s Similarity) bool {
	if a == nil || b == nil || a.Node == nil || b.Node == nil {
		return false
	}
	if len(s.Labels) > 0 {
		return sameLabelValues(a.Node.Labels, b.Node.Labels, s.Labels)
	}
	na, nb := a.Node, b.Node
	return sameCapacity(na.Status.Capacity, nb.Status.Capacity, s.MemoryDifferenceRatio) &&
		withinRatio(na.Status.Allocatable, nb.Status.Allocatable, s.MaxAllocatableDifferenceRatio) &&
		withinRatio(free(a), free(b), s.MaxFreeDifferenceRatio) &&
		sameLabels(na.Labels, nb.Labels, s.IgnoredLabels) && sameTaints(na.Spec.Taints, nb.Spec.Taints)
}

// sameLabelValues reports whether both label sets carry every key with
// the same value.
func sameLabelValues(a, b map[string]string, keys []string) bool {
	for _, k := range keys {
		va, oka := a[k]
		vb, okb := b[k]
		if !oka || !okb || va != vb {
			return false
		}
	}
	return true
}

// sameCapacity reports whether both nodes have the same resources, equal
// but for memory, which may differ by the ratio.
func sameCapacity(a, b corev1.ResourceList, memRatio float64) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		qb, ok := b[name]
		switch {
		case !ok:
			return false
		case name == corev1.ResourceMemory:
			if !near(qa, qb, memRatio) {
				return false
			}
		case qa.Cmp(qb) != 0:
			return false
		}
	}
	return true
}

// withinRatio reports whether both lists have the same resources, each
// within the ratio of the larger.
func withinRatio(a, b corev1.ResourceList, ratio float64) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		qb, ok := b[name]
		if !ok || !near(qa, qb, ratio) {
			return false
		}
	}
	return true
}

func near(a, b resource.Quantity, ratio float64) bool {
	x, y := a.AsApproximateFloat64(), b.AsApproximateFloat64()
	hi, lo := math.Max(x, y), math.Min(x, y)
	return hi-lo <= hi*ratio
}

// free is what the template's node has left for CPU, memory, ephemeral
// storage and every other resource its DaemonSet pods request, once they
// are placed.
func free(t *template.Template) corev1.ResourceList {
	requested := corev1.ResourceList{corev1.ResourceCPU: {}, corev1.ResourceMemory: {}, corev1.ResourceEphemeralStorage: {}}
	for _, p := range t.DaemonSetPods {
		for _, c := range p.Spec.Containers {
			for name, q := range c.Resources.Requests {
				sum := requested[name]
				sum.Add(q)
				requested[name] = sum
			}
		}
	}
	out := make(corev1.ResourceList, len(requested))
	for name, req := range requested {
		f := t.Node.Status.Allocatable[name].DeepCopy()
		f.Sub(req)
		out[name] = f
	}
	return out
}

func sameLabels(a, b map[string]string, extra []string) bool {
	ignored := func(k string) bool { return ignoredLabels[k] || slices.Contains(extra, k) }
	count := 0
	for k, v := range a {
		if ignored(k) {
			continue
		}
		if w, ok := b[k]; !ok || w != v {
			return false
		}
		count++
	}
	for k := range b {
		if !ignored(k) {
			count--
		}
	}
	return count == 0
}
func sameTaints(a, b []corev1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value || a[i].Effect != b[i].Effect {
			return false
		}
	}
	return true
}

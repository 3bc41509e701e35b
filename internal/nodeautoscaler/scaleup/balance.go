package scaleup

import (
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
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
	if !in.Balance || len(splits[best.Group]) == 0 {
		return []Increase{{Group: best.Group, Delta: best.NodeCount, Pods: len(best.Pods)}}
	}
	out := slices.Clone(splits[best.Group])
	slices.SortFunc(out, func(a, b Increase) int { return strings.Compare(a.Group, b.Group) })
	return out
}

// similar reports whether two templates offer the same node: equal CPU,
// memory within 5%, and equal labels apart from the ignored ones.
func similar(a, b *corev1.Node) bool {
	if a == nil || b == nil {
		return false
	}
	if a.Status.Allocatable.Cpu().MilliValue() != b.Status.Allocatable.Cpu().MilliValue() {
		return false
	}
	ma, mb := float64(a.Status.Allocatable.Memory().Value()), float64(b.Status.Allocatable.Memory().Value())
	if math.Abs(ma-mb) > 0.05*math.Max(ma, mb) {
		return false
	}
	return sameLabels(a.Labels, b.Labels) && sameTaints(a.Spec.Taints, b.Spec.Taints)
}

func sameLabels(a, b map[string]string) bool {
	count := 0
	for k, v := range a {
		if ignoredLabels[k] {
			continue
		}
		if b[k] != v {
			return false
		}
		count++
	}
	for k := range b {
		if !ignoredLabels[k] {
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

package scaleup

import (
	"math"
	"slices"

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
}

// distribute turns the chosen option into increases: alone, or spread
// over the similar groups that could also take the pods, filling the
// smallest group first.
func distribute(in Input, best expander.Option, opts []expander.Option) []Increase {
	if !in.Balance {
		return []Increase{{Group: best.Group, Delta: best.NodeCount, Pods: len(best.Pods)}}
	}
	size := map[string]int{}
	room := map[string]int{}
	for _, g := range in.Groups {
		size[g.ID], room[g.ID] = g.Target, g.Max-g.Target
	}
	set := []string{best.Group}
	for _, o := range opts {
		if o.Group != best.Group && similar(best.Template, o.Template) && fitsAll(o, best.Pods) {
			set = append(set, o.Group)
		}
	}
	added := map[string]int{}
	for range best.NodeCount {
		pick := ""
		for _, g := range set {
			if added[g] < room[g] && (pick == "" || size[g]+added[g] < size[pick]+added[pick]) {
				pick = g
			}
		}
		if pick == "" {
			break
		}
		added[pick]++
	}
	slices.Sort(set)
	var out []Increase
	for _, g := range set {
		if added[g] > 0 {
			out = append(out, Increase{Group: g, Delta: added[g], Pods: len(best.Pods)})
		}
	}
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

// fitsAll reports whether the option's estimate placed every given pod, so
// the group can take the chosen option's pods (a zone-pinned pod excludes
// the groups of other zones).
func fitsAll(o expander.Option, pods []*corev1.Pod) bool {
	placed := make(map[*corev1.Pod]bool, len(o.Pods))
	for _, p := range o.Pods {
		placed[p] = true
	}
	for _, p := range pods {
		if !placed[p] {
			return false
		}
	}
	return true
}

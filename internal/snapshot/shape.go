package snapshot

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/scenario"
)

// simLabels are node labels the simulation sets on every node itself
// (hostname, instance type, zone); a group's labels leave them out.
var simLabels = map[string]bool{
	nodetemplate.LabelHostname: true, nodetemplate.LabelInstanceType: true, nodetemplate.LabelInstanceTypeBeta: true,
	nodetemplate.LabelZone: true, nodetemplate.LabelZoneBeta: true,
}

// Taints written by the autoscaler and the node controller that a new node
// of the group would not have; they stay on the node, never on the group.
const (
	taintToBeDeleted       = "ToBeDeletedByClusterAutoscaler"
	taintDeletionCandidate = "DeletionCandidateOfClusterAutoscaler"
)

// shape is what a scenario node group says about its nodes' hardware.
type shape struct {
	instanceTypes []string
	resources     scenario.Resources
	reserved      scenario.Resources
}

// key identifies equal shapes.
func (s shape) key() string {
	return fmt.Sprintf("%v|%s|%s", s.instanceTypes, listKey(s.resources), listKey(s.reserved))
}

func listKey(r scenario.Resources) string {
	keys := slices.Sorted(maps.Keys(r))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		q := r[k]
		parts = append(parts, string(k)+"="+q.String())
	}
	return strings.Join(parts, ",")
}

// shapeOf describes a node's hardware: a catalog instance type when the
// node's instance-type label names one with exactly the node's capacity,
// otherwise its capacity inline; reserved is capacity minus allocatable.
func shapeOf(n *corev1.Node) shape {
	capacity := nonZero(n.Status.Capacity)
	var s shape
	if it, err := inmemory.LookupInstanceType(n.Labels[nodetemplate.LabelInstanceType]); err == nil &&
		equality.Semantic.DeepEqual(nonZero(it.Capacity), capacity) {
		s.instanceTypes = []string{it.Name}
	} else {
		s.resources = scenario.Resources(capacity)
	}
	for r, c := range capacity {
		a, ok := n.Status.Allocatable[r]
		if !ok || a.Cmp(c) >= 0 {
			continue
		}
		c.Sub(a)
		if s.reserved == nil {
			s.reserved = scenario.Resources{}
		}
		s.reserved[r] = c
	}
	return s
}

func nonZero(l corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for r, q := range l {
		if !q.IsZero() {
			out[r] = q.DeepCopy()
		}
	}
	return out
}

// groupLabels are the labels of a node that a group's template carries.
func groupLabels(n *corev1.Node) map[string]string {
	out := map[string]string{}
	for k, v := range n.Labels {
		if !simLabels[k] {
			out[k] = v
		}
	}
	return out
}

// commonLabels are the template labels every node has with one value, and
// the keys that are left out because they differ.
func commonLabels(nodes []*corev1.Node) (map[string]string, []string) {
	common := groupLabels(nodes[0])
	differ := map[string]bool{}
	for _, n := range nodes[1:] {
		l := groupLabels(n)
		for k, v := range common {
			if w, ok := l[k]; !ok || w != v {
				delete(common, k)
				differ[k] = true
			}
		}
		for k := range l {
			if _, ok := common[k]; !ok && !differ[k] && !simLabels[k] {
				differ[k] = true
			}
		}
	}
	return common, slices.Sorted(maps.Keys(differ))
}

// nodeTaints are a node's taints without the not-ready and unreachable
// taints (the scenario's notReady stands for them) and without TimeAdded;
// a cordoned node has the unschedulable taint even before the node
// controller added it.
func nodeTaints(n *corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
			continue
		}
		out = append(out, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	cordon := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	if n.Spec.Unschedulable && !slices.ContainsFunc(out, func(t corev1.Taint) bool { return t.Key == cordon.Key }) {
		out = append(out, cordon)
	}
	return out
}

// templateTaint reports whether a taint describes the group rather than
// the state of one node.
func templateTaint(t corev1.Taint) bool {
	return !strings.HasPrefix(t.Key, "node.kubernetes.io/") && !strings.HasPrefix(t.Key, "node.cloudprovider.kubernetes.io/") &&
		t.Key != taintToBeDeleted && t.Key != taintDeletionCandidate
}

// commonTaints are the template taints every node has.
func commonTaints(nodes []*corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range nodeTaints(nodes[0]) {
		if !templateTaint(t) {
			continue
		}
		all := true
		for _, n := range nodes[1:] {
			all = all && slices.Contains(nodeTaints(n), t)
		}
		if all {
			out = append(out, t)
		}
	}
	return out
}

// ready reports whether the node's Ready condition is True.
func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// failedSince returns when the node's Ready condition turned not True,
// when that was over a second after the node registered: the node had
// been Ready and failed, by the readiness rule of the live loop
// (internal/nodeautoscaler/clusterstate), which counts such a node unready
// rather than starting.
func failedSince(n *corev1.Node) (time.Time, bool) {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			return c.LastTransitionTime.Time, c.LastTransitionTime.After(n.CreationTimestamp.Add(time.Second))
		}
	}
	return time.Time{}, false
}

func zoneOf(n *corev1.Node) string {
	if z := n.Labels[nodetemplate.LabelZone]; z != "" {
		return z
	}
	return n.Labels[nodetemplate.LabelZoneBeta]
}

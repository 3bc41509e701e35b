package nodetemplate

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Well-known node labels the template sets.
const (
	LabelHostname   = "kubernetes.io/hostname"
	LabelZone       = "topology.kubernetes.io/zone"
	LabelZoneBeta   = "failure-domain.beta.kubernetes.io/zone"
	LabelRegion     = "topology.kubernetes.io/region"
	LabelRegionBeta = "failure-domain.beta.kubernetes.io/region"
	LabelArch       = "kubernetes.io/arch"
	LabelOS         = "kubernetes.io/os"
	// MultipleTypes is the instance type label value of a mixed group.
	MultipleTypes = "<multiple>"
)

// IgnoreTaint reports whether a taint key is stripped from templates
// (startup, status and ignore taints).
type IgnoreTaint func(key string) bool

// FromProvider builds a group's template node from the provider's
// description: for several instance types the minimum of each resource,
// allocatable from the estimator, labels and taints from the tags.
func FromProvider(g cloudprovider.NodeGroup, est *Estimator, ignore IgnoreTaint) (*corev1.Node, error) {
	t := g.Template
	if t.UnavailableReason != "" {
		return nil, fmt.Errorf("building template of node group %q: %s", g.ID, t.UnavailableReason)
	}
	if len(t.InstanceTypes) == 0 {
		return nil, fmt.Errorf("building template of node group %q: no instance types", g.ID)
	}
	capacity, alloc := corev1.ResourceList{}, corev1.ResourceList{}
	for i, it := range t.InstanceTypes {
		c, a := est.Resources(it)
		minInto(capacity, c, i == 0)
		minInto(alloc, a, i == 0)
	}
	name := "template-node-for-" + g.ID
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: genericLabels(g, name)},
		Spec:       corev1.NodeSpec{ProviderID: "template:///" + g.ID},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: alloc,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}}},
	}
	n.Spec.Taints = keptTaints(t.Taints, ignore)
	if err := applyTags(n, t.Tags, ignore); err != nil {
		return nil, fmt.Errorf("building template of node group %q: %w", g.ID, err)
	}
	return n, nil
}

func genericLabels(g cloudprovider.NodeGroup, name string) map[string]string {
	it := MultipleTypes
	if len(g.Template.InstanceTypes) == 1 {
		it = g.Template.InstanceTypes[0].Name
	}
	l := map[string]string{LabelHostname: name, LabelArch: architecture(g.Template.InstanceTypes), LabelOS: "linux"}
	if it != "" {
		l[LabelInstanceType], l[LabelInstanceTypeBeta] = it, it
	}
	if len(g.Template.Zones) > 0 {
		l[LabelZone], l[LabelZoneBeta] = g.Template.Zones[0], g.Template.Zones[0]
	}
	if g.Template.Region != "" {
		l[LabelRegion], l[LabelRegionBeta] = g.Template.Region, g.Template.Region
	}
	return l
}

// architecture is the kubernetes.io/arch value of a group's instances: the
// first type's (a group's machine image has one architecture), amd64 when
// the provider names none.
func architecture(types []cloudprovider.InstanceType) string {
	if len(types) > 0 && types[0].Architecture != "" {
		return types[0].Architecture
	}
	return "amd64"
}

// keptTaints copies the template's explicit taints without ignored keys.
func keptTaints(ts []corev1.Taint, ignore IgnoreTaint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range ts {
		if ignore == nil || !ignore(t.Key) {
			out = append(out, t)
		}
	}
	return out
}

// applyTags applies the node-template tag convention: label/<key>=value,
// taint/<key>=value:Effect (replacing an explicit taint of the same key and
// effect), resources/<name>=quantity (capacity and allocatable both).
func applyTags(n *corev1.Node, tags map[string]string, ignore IgnoreTaint) error {
	for k, v := range tags {
		switch {
		case strings.HasPrefix(k, cloudprovider.TagLabelPrefix):
			n.Labels[strings.TrimPrefix(k, cloudprovider.TagLabelPrefix)] = v
		case strings.HasPrefix(k, cloudprovider.TagTaintPrefix):
			key := strings.TrimPrefix(k, cloudprovider.TagTaintPrefix)
			val, effect, ok := strings.Cut(v, ":")
			if !ok {
				return fmt.Errorf("taint tag %q: want value:Effect, got %q", k, v)
			}
			if ignore == nil || !ignore(key) {
				tt := corev1.Taint{Key: key, Value: val, Effect: corev1.TaintEffect(effect)}
				n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(o corev1.Taint) bool { return o.MatchTaint(&tt) })
				n.Spec.Taints = append(n.Spec.Taints, tt)
			}
		case strings.HasPrefix(k, cloudprovider.TagResourcePrefix):
			q, err := resource.ParseQuantity(v)
			if err != nil {
				return fmt.Errorf("resource tag %q: %w", k, err)
			}
			r := corev1.ResourceName(strings.TrimPrefix(k, cloudprovider.TagResourcePrefix))
			n.Status.Capacity[r], n.Status.Allocatable[r] = q, q.DeepCopy()
		}
	}
	sortTaints(n.Spec.Taints)
	return nil
}

// sortTaints orders taints by key, then effect, keeping equal ones stable.
func sortTaints(ts []corev1.Taint) {
	slices.SortStableFunc(ts, func(a, b corev1.Taint) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(string(a.Effect), string(b.Effect))
	})
}

// FromLiveNode is the upstream mode: a sanitized copy of a live node of the
// group, renamed, with ignored taints stripped.
func FromLiveNode(groupID string, live *corev1.Node, ignore IgnoreTaint) *corev1.Node {
	n := live.DeepCopy()
	name := "template-node-for-" + groupID
	n.ObjectMeta = metav1.ObjectMeta{Name: name, Labels: n.Labels, Annotations: n.Annotations}
	n.Labels[LabelHostname] = name
	n.Spec.ProviderID = "template:///" + groupID
	n.Spec.Unschedulable = false
	var taints []corev1.Taint
	for _, t := range n.Spec.Taints {
		if ignore == nil || !ignore(t.Key) {
			taints = append(taints, t)
		}
	}
	n.Spec.Taints = taints
	return n
}

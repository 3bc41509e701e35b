package recommendation

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Bounds are the merged LimitRange items of one type in one namespace:
// the lowest Max, the highest Min and the last Default of each resource.
type Bounds struct {
	// Min is the highest Min of any item, per resource.
	Min corev1.ResourceList
	// Max is the lowest Max of any item, per resource.
	Max corev1.ResourceList
	// Default is the Default (limit) of the last item that sets one, per resource.
	Default corev1.ResourceList
	// Present reports that an item of this type sets Min, Max or Default
	// (even to an empty list): upstream then processes the pod as one
	// under a LimitRange of that type.
	Present bool
}

// Limits are the LimitRange bounds that apply to one pod.
type Limits struct {
	// Container merges the items of type Container.
	Container Bounds
	// Pod merges the items of type Pod.
	Pod Bounds
}

// MergeLimitRanges merges the items of the namespace's LimitRanges, in the
// order given, into the bounds for containers and for whole pods.
func MergeLimitRanges(ranges []corev1.LimitRange) Limits {
	var l Limits
	for i := range ranges {
		for _, item := range ranges[i].Spec.Limits {
			switch item.Type {
			case corev1.LimitTypeContainer:
				l.Container.merge(item)
			case corev1.LimitTypePod:
				l.Pod.merge(item)
			}
		}
	}
	return l
}

func (b *Bounds) merge(item corev1.LimitRangeItem) {
	b.Present = b.Present || item.Min != nil || item.Max != nil || item.Default != nil
	for name, q := range item.Max {
		if cur, ok := b.Max[name]; !ok || q.Cmp(cur) < 0 {
			b.Max = set(b.Max, name, q)
		}
	}
	for name, q := range item.Min {
		if cur, ok := b.Min[name]; !ok || q.Cmp(cur) > 0 {
			b.Min = set(b.Min, name, q)
		}
	}
	for name, q := range item.Default {
		b.Default = set(b.Default, name, q)
	}
}

func set(list corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) corev1.ResourceList {
	if list == nil {
		list = corev1.ResourceList{}
	}
	list[name] = q.DeepCopy()
	return list
}

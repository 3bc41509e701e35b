package simulator

import (
	"cmp"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// group is a pod equivalence group: pods of one controller (or
// consecutive owner-less pods) whose scheduling-relevant fields are equal,
// so one evaluation serves them all.
type group struct {
	spec     *podSpec
	pods     []*corev1.Pod
	earliest time.Time
	expired  bool
}

type groupKey struct {
	namespace string
	owner     types.UID
}

// groupPods splits pods into equivalence groups, keeping input order
// within a group. Groups are returned in order of first appearance.
func groupPods(pods []*corev1.Pod, now time.Time) []*group {
	var out []*group
	buckets := map[groupKey][]*group{}
	for _, p := range pods {
		key := groupKey{namespace: p.Namespace, owner: controllerUID(p)}
		expired := spreadExpired(p, now)
		g := findGroup(buckets[key], p, expired, key.owner == "")
		if g == nil {
			g = &group{spec: newPodSpec(p, now), expired: expired, earliest: p.CreationTimestamp.Time}
			buckets[key] = append(buckets[key], g)
			out = append(out, g)
		}
		g.pods = append(g.pods, p)
		if p.CreationTimestamp.Before(&metav1.Time{Time: g.earliest}) {
			g.earliest = p.CreationTimestamp.Time
		}
	}
	return out
}

// findGroup returns the group in the bucket the pod is equivalent to.
// Owner-less pods are compared with the newest group only.
func findGroup(bucket []*group, p *corev1.Pod, expired, ownerless bool) *group {
	start := 0
	if ownerless {
		start = max(0, len(bucket)-1)
	}
	for _, g := range bucket[start:] {
		if g.expired == expired && equivalent(g.spec.pod, p) {
			return g
		}
	}
	return nil
}

func controllerUID(p *corev1.Pod) types.UID {
	for i := range p.OwnerReferences {
		if r := &p.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r.UID
		}
	}
	return ""
}

// equivalent reports whether two pods have equal scheduling-relevant
// fields: labels, containers' requests and ports, init containers,
// overhead, pod-level resources, node selection, tolerations, affinity,
// spread constraints, volumes and priority.
func equivalent(a, b *corev1.Pod) bool {
	if a == b {
		return true
	}
	sa, sb := &a.Spec, &b.Spec
	if sa.NodeName != sb.NodeName || !maps.Equal(a.Labels, b.Labels) || !maps.Equal(sa.NodeSelector, sb.NodeSelector) ||
		!equalPtr(sa.Priority, sb.Priority) || !sameContainers(sa.Containers, sb.Containers) ||
		!sameContainers(sa.InitContainers, sb.InitContainers) || !equalList(sa.Overhead, sb.Overhead) {
		return false
	}
	if a.Annotations[SpreadTimeoutAnnotation] != b.Annotations[SpreadTimeoutAnnotation] {
		return false
	}
	return equalPtrDeep(sa.Resources, sb.Resources) && equalPtrDeep(sa.Affinity, sb.Affinity) &&
		equalSliceDeep(sa.Tolerations, sb.Tolerations) && equalSliceDeep(sa.TopologySpreadConstraints, sb.TopologySpreadConstraints) &&
		sameClaims(sa.Volumes, sb.Volumes)
}

// sameClaims compares the PersistentVolumeClaims two pods mount, in order.
// Pods with generic ephemeral volumes own per-pod claims and are never
// equivalent.
func sameClaims(a, b []corev1.Volume) bool {
	i, j := 0, 0
	for {
		for i < len(a) && a[i].PersistentVolumeClaim == nil && a[i].Ephemeral == nil {
			i++
		}
		for j < len(b) && b[j].PersistentVolumeClaim == nil && b[j].Ephemeral == nil {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i].Ephemeral != nil || b[j].Ephemeral != nil || a[i].PersistentVolumeClaim.ClaimName != b[j].PersistentVolumeClaim.ClaimName {
			return false
		}
		i, j = i+1, j+1
	}
}

// equalPtrDeep compares pointed-to values, short-cutting nil and identical
// pointers before reflecting.
func equalPtrDeep[T any](a, b *T) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	return equality.Semantic.DeepEqual(a, b)
}

// equalSliceDeep compares slices, short-cutting empty ones before reflecting.
func equalSliceDeep[T any](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return equality.Semantic.DeepEqual(a, b)
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func sameContainers(a, b []corev1.Container) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		ca, cb := &a[i], &b[i]
		if !equalList(ca.Resources.Requests, cb.Resources.Requests) || !slices.Equal(ca.Ports, cb.Ports) ||
			!equalPtr(ca.RestartPolicy, cb.RestartPolicy) {
			return false
		}
	}
	return true
}

func equalList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, qa := range a {
		qb, ok := b[k]
		if !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// sortForScheduling orders groups as the scheduling queue does: higher
// priority first, then earlier creation.
func sortForScheduling(groups []*group) {
	slices.SortStableFunc(groups, func(a, b *group) int {
		if c := cmp.Compare(b.spec.priority, a.spec.priority); c != 0 {
			return c
		}
		return a.earliest.Compare(b.earliest)
	})
}

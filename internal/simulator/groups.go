package simulator

import (
	"cmp"
	"hash/maphash"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
)

// group is a pod equivalence group: pods of one controller (or
// consecutive owner-less pods) whose scheduling-relevant fields are equal,
// so one evaluation serves them all.
type group struct {
	spec     *podSpec
	pods     []*corev1.Pod
	earliest time.Time
}

type groupKey struct {
	namespace string
	owner     types.UID
	// labels fingerprints an owner-less pod's labels, so owner-less pods
	// with equal labels (and, after the comparison, equal specs) share a
	// group wherever they come in the list, without comparing each pod
	// with every earlier class.
	labels uint64
}

// groupCache remembers the last grouping: the pods (a private copy, to
// detect changes) and the time and binding mode it was made for.
type groupCache struct {
	pods    []*corev1.Pod
	now     time.Time
	unbound bool
	groups  []*group
}

// groupPods splits pods into equivalence groups, keeping input order
// within a group; groups come in order of first appearance. Grouping the
// same pods again at the same time (the remaining pods of
// FilterSchedulable, then one Estimate per node group) reuses the last
// grouping after an element-wise pointer comparison.
// unbound makes every pod count as unbound: spec.nodeName neither
// separates groups nor restricts placement.
func (s *Snapshot) groupPods(pods []*corev1.Pod, now time.Time, unbound bool) []*group {
	if c := s.groups; c != nil && c.now.Equal(now) && c.unbound == unbound && slices.Equal(c.pods, pods) {
		return slices.Clone(c.groups)
	}
	groups := buildGroups(pods, now, unbound, s.removedSpecs(len(pods)))
	s.rememberGroups(pods, now, unbound, groups)
	return slices.Clone(groups)
}

func (s *Snapshot) rememberGroups(pods []*corev1.Pod, now time.Time, unbound bool, groups []*group) {
	s.groups = &groupCache{pods: slices.Clone(pods), now: now, unbound: unbound, groups: groups}
}

// spreadTimeout returns the pod's SpreadTimeoutAnnotation for grouping. A
// pod without a hard spread constraint counts as having none: the timeout
// could drop nothing. Its parsed spec, when known and parsed, tells that
// without reading the pod.
func spreadTimeout(p *corev1.Pod, spec *podSpec) (string, bool) {
	if spec != nil && spec.parseErr == nil {
		if len(spec.spread) == 0 {
			return "", false
		}
	} else if !hasHardSpread(p) {
		return "", false
	}
	v, ok := p.Annotations[SpreadTimeoutAnnotation]
	return v, ok
}

// hasHardSpread reports whether the pod has a DoNotSchedule topology spread
// constraint.
func hasHardSpread(p *corev1.Pod) bool {
	for i := range p.Spec.TopologySpreadConstraints {
		if p.Spec.TopologySpreadConstraints[i].WhenUnsatisfiable == corev1.DoNotSchedule {
			return true
		}
	}
	return false
}

// buildGroups groups pods; specs, when not nil, holds the parsed specs of
// some of the pods (see removedSpecs).
func buildGroups(pods []*corev1.Pod, now time.Time, unbound bool, specs map[*corev1.Pod]*podSpec) []*group {
	type classKey struct {
		rep     *corev1.Pod
		expired bool
	}
	var out []*group
	reps := map[repKey][]rep{}
	byClass := map[classKey]*group{}
	var last classKey
	var lastGroup *group
	var lastSig podSig
	var prev *corev1.Pod
	var prevSpec *podSpec
	var prevTimeout string
	var h maphash.Hash
	for _, p := range pods {
		key := groupKey{namespace: p.Namespace, owner: controllerUID(p)}
		var class *corev1.Pod
		var sig podSig
		spec := specs[p]
		timeout, hasTimeout := spreadTimeout(p, spec)
		// A pod equivalent to the last class's representative has its
		// signature (equal containers), so the signature is computed
		// only for pods that start or look up another class. A pod that
		// shares its parsed spec with the previous pod is equivalent to
		// it (see sameSpec), hence to the representative.
		if lastGroup != nil && last.rep.Namespace == key.namespace && controllerUID(last.rep) == key.owner &&
			(sameSpec(prev, p, prevSpec, spec, unbound) && timeout == prevTimeout ||
				len(last.rep.Spec.Containers) == len(p.Spec.Containers) && equivalent(last.rep, p, unbound)) {
			class, sig = last.rep, lastSig
		} else {
			sig = signature(p)
			if key.owner == "" {
				key.labels = labelsFingerprint(&h, p.Labels)
			}
			class = findRep(reps[repKey{key, sig}], p, sig, unbound)
		}
		ck := classKey{class, hasTimeout && spreadExpired(p, now)}
		g := lastGroup
		if ck != last || g == nil {
			g = byClass[ck]
		}
		if g == nil {
			g = &group{spec: newPodSpec(p, now), earliest: p.CreationTimestamp.Time}
			if unbound {
				g.spec.nodeName = ""
			}
			byClass[ck] = g
			if class == p {
				rk := repKey{key, sig}
				reps[rk] = append(reps[rk], rep{pod: p, sig: sig})
			}
			out = append(out, g)
		}
		last, lastGroup, lastSig = ck, g, sig // equivalent pods have equal signatures
		prev, prevSpec, prevTimeout = p, spec, timeout
		g.pods = append(g.pods, p)
		if p.CreationTimestamp.Time.Before(g.earliest) {
			g.earliest = p.CreationTimestamp.Time
		}
	}
	return out
}

// repKey finds the classes a pod may belong to: those of its controller
// (or owner-less label set) with the same signature.
type repKey struct {
	group groupKey
	sig   podSig
}

// maxRepCompare bounds how many of the newest classes with a pod's key a
// pod is compared with, so pods that differ only where the signature does
// not look cost linear, not quadratic, time; at worst an equivalent pod
// starts its own group.
const maxRepCompare = 8

// rep is a class representative with a cheap signature to rule out most
// non-equivalent pods before the full comparison.
type rep struct {
	pod *corev1.Pod
	sig podSig
}

// podSig is a pod's container counts and first container's CPU and
// memory requests.
type podSig struct {
	containers, inits int
	cpu, mem          int64
}

func signature(p *corev1.Pod) podSig {
	sig := podSig{containers: len(p.Spec.Containers), inits: len(p.Spec.InitContainers)}
	if len(p.Spec.Containers) > 0 {
		req := p.Spec.Containers[0].Resources.Requests
		if q, ok := req[corev1.ResourceCPU]; ok {
			sig.cpu = q.MilliValue()
		}
		if q, ok := req[corev1.ResourceMemory]; ok {
			sig.mem = q.Value()
		}
	}
	return sig
}

// findRep returns the representative in reps the pod is equivalent to, or
// the pod itself.
func findRep(reps []rep, p *corev1.Pod, sig podSig, unbound bool) *corev1.Pod {
	start := max(0, len(reps)-maxRepCompare)
	for _, r := range reps[start:] {
		if r.sig == sig && equivalent(r.pod, p, unbound) {
			return r.pod
		}
	}
	return p
}

// labelsFingerprint hashes a label set independently of map order; h is
// scratch space (its seed is fixed by its first use).
func labelsFingerprint(h *maphash.Hash, labels map[string]string) uint64 {
	var sum uint64
	for k, v := range labels {
		h.Reset()
		h.WriteString(k)
		h.WriteByte(0)
		h.WriteString(v)
		sum += h.Sum64()
	}
	return sum
}

func controllerUID(p *corev1.Pod) types.UID {
	for i := range p.OwnerReferences {
		if r := &p.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r.UID
		}
	}
	return ""
}

// SameSchedulingClass reports whether kube-scheduler must judge two
// unbound pods alike: both have the same controller and scheduler, live in
// the same namespace and have equal scheduling-relevant fields (those a
// scale-up simulation groups pods by). Pods without a controller are never
// of one class.
func SameSchedulingClass(a, b *corev1.Pod) bool {
	uid := controllerUID(a)
	return uid != "" && uid == controllerUID(b) && a.Namespace == b.Namespace &&
		a.Spec.SchedulerName == b.Spec.SchedulerName && equivalent(a, b, true)
}

// equivalent reports whether two pods have equal scheduling-relevant
// fields: labels, containers' requests and ports, init containers,
// overhead, pod-level resources, node selection, tolerations, affinity,
// spread constraints (and, with a hard one, the spread timeout), volumes
// and priority.
func equivalent(a, b *corev1.Pod, unbound bool) bool {
	if a == b {
		return true
	}
	sa, sb := &a.Spec, &b.Spec
	if (!unbound && sa.NodeName != sb.NodeName) || !maps.Equal(a.Labels, b.Labels) || !maps.Equal(sa.NodeSelector, sb.NodeSelector) ||
		!equalPtr(sa.Priority, sb.Priority) || !sameContainers(sa.Containers, sb.Containers) ||
		!sameContainers(sa.InitContainers, sb.InitContainers) || !equalList(sa.Overhead, sb.Overhead) {
		return false
	}
	// The spread constraints are compared below: b has a hard one if a has.
	if hasHardSpread(a) && a.Annotations[SpreadTimeoutAnnotation] != b.Annotations[SpreadTimeoutAnnotation] {
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
// priority first, then earlier creation. Ties keep the input order (groups
// come in order of their first pod), so callers decide it: the node
// autoscaler passes pending pods sorted by creation, namespace and name.
func sortForScheduling(groups []*group) {
	slices.SortStableFunc(groups, func(a, b *group) int {
		if c := cmp.Compare(b.spec.priority, a.spec.priority); c != 0 {
			return c
		}
		return a.earliest.Compare(b.earliest)
	})
}

// sameSpec reports, without reading the pods' specs, that two pods of one
// namespace and controller with equal spread-timeout annotations (the
// caller compares those) are equivalent: they carry one parsed spec from
// the snapshot (not nil) and, unless unbound, have one node name. Pods
// share a spec only when they are equivalent but for those two fields:
// equal plain pods bound to one node (boundSpec), or pods one equivalence
// group placed.
func sameSpec(a, b *corev1.Pod, sa, sb *podSpec, unbound bool) bool {
	return sa != nil && sa == sb && (unbound || a.Spec.NodeName == b.Spec.NodeName)
}

// minSpecHints is the number of pods from which grouping looks up the
// specs of pods removed since the last fork: below it the lookup map costs
// more than the comparisons it saves.
const minSpecHints = 64

// removedSpecs maps the pods removed from the snapshot since the last Fork
// to their parsed specs (nil without an open fork, or for fewer than
// minSpecHints pods): the pods of removed nodes that a simulation then
// reschedules are grouped without comparing their specs field by field.
func (s *Snapshot) removedSpecs(pods int) map[*corev1.Pod]*podSpec {
	if len(s.forks) == 0 || pods < minSpecHints {
		return nil
	}
	log := s.journal[s.forks[len(s.forks)-1]:]
	n := 0
	for i := range log {
		if log[i].op == opRemovePod {
			n++
		}
	}
	if n < minSpecHints {
		return nil
	}
	specs := make(map[*corev1.Pod]*podSpec, n)
	for i := range log {
		if c := &log[i]; c.op == opRemovePod {
			specs[c.entry.pod] = c.entry.spec
		}
	}
	return specs
}

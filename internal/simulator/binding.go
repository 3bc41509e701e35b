package simulator

import (
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/storage/volume"

	"github.com/kscale/kscale/internal/scheduling"
)

// This file holds late binding: which late-binding claims a node can
// bind, and the claims placements assume bound, as kube-scheduler's
// VolumeBinding plugin and its Reserve do.

// claimKey names a claim.
type claimKey = types.NamespacedName

// assumedClaim is how a placement bound a late-binding claim, as the
// scheduler's Reserve assumes it until the volume controller binds it: to
// an available volume, or to be provisioned for the node.
type assumedClaim struct {
	node string
	pv   string
}

// useClaims counts the pod's claim volumes as used (delta 1) or no longer
// used (-1) by a bound pod, for ReadWriteOncePod; on use it also assumes
// the pod's unbound late-binding claims bound on the node, as Reserve does.
func (s *Snapshot) useClaims(e *podEntry, n *nodeInfo, delta int) {
	pod := e.pod
	for i := range pod.Spec.Volumes {
		c := pod.Spec.Volumes[i].PersistentVolumeClaim
		if c == nil {
			continue
		}
		if s.claimUsers == nil {
			s.claimUsers = map[claimKey]int{}
		}
		key := claimKey{Namespace: pod.Namespace, Name: c.ClaimName}
		if s.claimUsers[key] += delta; s.claimUsers[key] <= 0 {
			delete(s.claimUsers, key)
		}
	}
	if delta > 0 {
		s.assumeClaims(pod, n.node)
	}
}

// assumeClaims binds the pod's unbound late-binding claims on the node
// (those not assumed yet and without a selected node): each to the
// smallest available matching volume, in order of size, or else to be
// provisioned for the node.
func (s *Snapshot) assumeClaims(pod *corev1.Pod, node *corev1.Node) {
	var match []*corev1.PersistentVolumeClaim
	for _, c := range podClaims(pod) {
		pvc, ok := s.claim(pod.Namespace, c.name)
		if !ok || pvc.Spec.VolumeName != "" {
			continue
		}
		if _, done := s.assumed[claimKey{Namespace: pvc.Namespace, Name: pvc.Name}]; done {
			continue
		}
		if _, selected := pvc.Annotations[annSelectedNode]; selected {
			continue
		}
		if delay, err := s.delayBinding(pvc); err == nil && delay {
			match = append(match, pvc)
		}
	}
	sort.Sort(bySize(match))
	chosen := map[string]*corev1.PersistentVolume{}
	for _, c := range match {
		a := assumedClaim{node: node.Name}
		pv, err := volume.FindMatchingVolume(c, s.volumesOfClass(volume.GetPersistentVolumeClaimClass(c)), node, chosen, true, true)
		if err == nil && pv != nil {
			chosen[pv.Name] = pv
			a = assumedClaim{pv: pv.Name}
		}
		s.assume(claimKey{Namespace: c.Namespace, Name: c.Name}, a)
	}
}

func (s *Snapshot) assume(key claimKey, a assumedClaim) {
	if s.assumed == nil {
		s.assumed = map[claimKey]assumedClaim{}
	}
	old, had := s.assumed[key]
	s.assumed[key] = a
	s.recordFunc(func() { restore(s.assumed, key, old, had) })
}

// canBind reports whether every late-binding claim can be bound on the
// node: a claim with a selected node only there; otherwise an available
// matching volume (the smallest, each used once), or else a class that
// provisions dynamically into the node's topology.
func (s *Snapshot) canBind(claims []*corev1.PersistentVolumeClaim, node *corev1.Node) bool {
	var match, provision []*corev1.PersistentVolumeClaim
	for _, c := range claims {
		selected, ok := c.Annotations[annSelectedNode]
		if a, assumed := s.assumed[claimKey{Namespace: c.Namespace, Name: c.Name}]; assumed && a.pv == "" {
			selected, ok = a.node, true
		}
		if ok {
			if selected != node.Name {
				return false
			}
			provision = append(provision, c)
			continue
		}
		match = append(match, c)
	}
	if len(match) > 0 {
		sort.Sort(bySize(match))
		chosen := map[string]*corev1.PersistentVolume{}
		for _, c := range match {
			pv, err := volume.FindMatchingVolume(c, s.volumesOfClass(volume.GetPersistentVolumeClaimClass(c)), node, chosen, true, true)
			if err != nil {
				return false
			}
			if pv == nil {
				provision = append(provision, c)
				continue
			}
			chosen[pv.Name] = pv
		}
	}
	for _, c := range provision {
		class, ok := s.classes[volume.GetPersistentVolumeClaimClass(c)]
		if !ok || class.Provisioner == "" || class.Provisioner == noProvisioner || !matchTopology(class.AllowedTopologies, node.Labels) {
			return false
		}
	}
	return true
}

type bySize []*corev1.PersistentVolumeClaim

func (a bySize) Len() int      { return len(a) }
func (a bySize) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a bySize) Less(i, j int) bool {
	qi, qj := a[i].Spec.Resources.Requests[corev1.ResourceStorage], a[j].Spec.Resources.Requests[corev1.ResourceStorage]
	return qi.Cmp(qj) < 0
}

// volumesOfClass lists the class's volumes; a volume assumed bound to a
// claim carries that claim's reference, as in the scheduler's cache.
func (s *Snapshot) volumesOfClass(class string) []*corev1.PersistentVolume {
	var out []*corev1.PersistentVolume
	for _, pv := range s.pvs {
		if volume.GetPersistentVolumeClass(pv) == class {
			out = append(out, pv)
		}
	}
	for key, a := range s.assumed {
		if a.pv == "" {
			continue
		}
		i := slices.IndexFunc(out, func(pv *corev1.PersistentVolume) bool { return pv.Name == a.pv })
		pvc, ok := s.pvcs[key]
		if i < 0 || !ok {
			continue
		}
		bound := out[i].DeepCopy()
		bound.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
			Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID}
		out[i] = bound
	}
	return out
}

// matchTopology reports whether the labels match one of a class's allowed
// topology terms (each requirement: the label has one of the values); no
// terms match everything.
func matchTopology(terms []corev1.TopologySelectorTerm, labels map[string]string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		if len(t.MatchLabelExpressions) == 0 {
			continue
		}
		ok := true
		for _, req := range t.MatchLabelExpressions {
			v, has := labels[req.Key]
			if !has || !scheduling.Contains(req.Values, v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

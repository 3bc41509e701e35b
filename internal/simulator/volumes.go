package simulator

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/storage/ephemeral"
	"k8s.io/component-helpers/storage/volume"

	"github.com/kscale/kscale/internal/scheduling"
)

// Annotations and names of the volume binding protocol.
const (
	annSelectedNode = "volume.kubernetes.io/selected-node"
	noProvisioner   = "kubernetes.io/no-provisioner"
	// unboundHandlePrefix stands for kube-scheduler's random prefix of the
	// volume handle it counts an unbound claim under.
	unboundHandlePrefix = "unbound"
)

// volumeState is what the volume plugins' PreFilters prepare for a group:
// its ReadWriteOncePod claims, the volumes of fully
// bound claims, the late-binding claims still to bind, the volumes' zone
// labels and the attachable CSI volumes.
type volumeState struct {
	// rwop are the pod's ReadWriteOncePod claims; one a bound pod uses
	// rejects every node.
	rwop    []types.NamespacedName
	bound   []*corev1.PersistentVolume
	delayed []*corev1.PersistentVolumeClaim
	zones   scheduling.ZoneTopologies
	csi     map[string]string
}

// podClaim is one claim a pod mounts: through a claim volume, or a
// generic ephemeral volume's claim.
type podClaim struct {
	name      string
	ephemeral bool
}

func podClaims(pod *corev1.Pod) []podClaim {
	var out []podClaim
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, podClaim{name: v.PersistentVolumeClaim.ClaimName})
		case v.Ephemeral != nil:
			out = append(out, podClaim{name: ephemeral.VolumeClaimName(pod, v), ephemeral: true})
		}
	}
	return out
}

func (s *Snapshot) claim(ns, name string) (*corev1.PersistentVolumeClaim, bool) {
	pvc, ok := s.pvcs[types.NamespacedName{Namespace: ns, Name: name}]
	return pvc, ok
}

// inTreeVolume names a claim of the pod bound to a volume of an in-tree
// plugin kube-scheduler migrates to CSI, or returns "".
func (s *Snapshot) inTreeVolume(pod *corev1.Pod) string {
	if len(pod.Spec.Volumes) == 0 {
		return ""
	}
	for _, c := range podClaims(pod) {
		pvc, ok := s.claim(pod.Namespace, c.name)
		if !ok || pvc.Spec.VolumeName == "" {
			continue
		}
		if pv, ok := s.pvs[pvc.Spec.VolumeName]; ok && scheduling.InTreeMigratedPV(pv) {
			return "persistent volume " + pv.Name + " of an in-tree plugin (translated to CSI by kube-scheduler)"
		}
	}
	return ""
}

// prepareVolumes runs the volume plugins' PreFilters in kube-scheduler's
// order (VolumeRestrictions, VolumeBinding, VolumeZone) and returns the
// first rejection, which applies to every node.
func (r *run) prepareVolumes(g *groupState) *FitError {
	pod := g.spec.pod
	claims := podClaims(pod)
	if len(claims) == 0 {
		return nil
	}
	st := &volumeState{}
	if fe := r.restrictionsPreFilter(pod, st); fe != nil {
		return fe
	}
	if fe := r.bindingPreFilter(pod, claims, st); fe != nil {
		return fe
	}
	if fe := r.zonePreFilter(pod, st); fe != nil {
		return fe
	}
	st.csi = map[string]string{}
	r.s.attachable(pod, st.csi)
	g.vol = st
	return nil
}

// restrictionsPreFilter looks up every claim volume (a missing claim
// rejects the pod) and notes the ReadWriteOncePod ones.
func (r *run) restrictionsPreFilter(pod *corev1.Pod, st *volumeState) *FitError {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.PersistentVolumeClaim == nil {
			continue
		}
		pvc, ok := r.s.claim(pod.Namespace, v.PersistentVolumeClaim.ClaimName)
		if !ok {
			return &FitError{Filter: FilterVolumeRestrictions, Reason: fmt.Sprintf("persistentvolumeclaim %q not found", v.PersistentVolumeClaim.ClaimName)}
		}
		if slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteOncePod) {
			st.rwop = append(st.rwop, types.NamespacedName{Namespace: pod.Namespace, Name: pvc.Name})
		}
	}
	return nil
}

// bindingPreFilter checks every claim exists and can be used (not lost,
// not being deleted, an ephemeral one owned by the pod) and sorts them
// into fully bound and late-binding ones; an unbound claim that binds
// immediately rejects the pod.
func (r *run) bindingPreFilter(pod *corev1.Pod, claims []podClaim, st *volumeState) *FitError {
	reject := func(format string, args ...any) *FitError {
		return &FitError{Filter: FilterVolumeBinding, Reason: fmt.Sprintf(format, args...)}
	}
	pvcs := make([]*corev1.PersistentVolumeClaim, len(claims))
	for i, c := range claims {
		pvc, ok := r.s.claim(pod.Namespace, c.name)
		switch {
		case !ok && c.ephemeral:
			return reject("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", c.name)
		case !ok:
			return reject("persistentvolumeclaim %q not found", c.name)
		case pvc.Status.Phase == corev1.ClaimLost:
			return reject("persistentvolumeclaim %q bound to non-existent persistentvolume %q", pvc.Name, pvc.Spec.VolumeName)
		case pvc.DeletionTimestamp != nil:
			return reject("persistentvolumeclaim %q is being deleted", pvc.Name)
		case c.ephemeral:
			if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
				return reject("%s", err.Error())
			}
		}
		pvcs[i] = pvc
	}
	immediate := false
	for _, pvc := range pvcs {
		if scheduling.ClaimFullyBound(pvc) {
			if pv, ok := r.s.pvs[pvc.Spec.VolumeName]; ok {
				st.bound = append(st.bound, pv)
			}
			continue
		}
		delay, err := r.s.delayBinding(pvc)
		if err != nil {
			return reject("%s", err.Error())
		}
		if delay && pvc.Spec.VolumeName == "" {
			st.delayed = append(st.delayed, pvc)
		} else {
			immediate = true
		}
	}
	if immediate {
		return reject("%s", scheduling.ReasonVolumeUnboundImmediate)
	}
	return nil
}

// delayBinding reports whether the claim's class binds when a pod is
// scheduled (WaitForFirstConsumer); a claim without class binds at once.
func (s *Snapshot) delayBinding(pvc *corev1.PersistentVolumeClaim) (bool, error) {
	name := volume.GetPersistentVolumeClaimClass(pvc)
	if name == "" {
		return false, nil
	}
	class, ok := s.classes[name]
	if !ok {
		return false, fmt.Errorf("storageclass.storage.k8s.io %q not found", name)
	}
	return class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer, nil
}

// zonePreFilter collects the zone labels of the volumes the pod's claim
// volumes are bound to; a missing volume rejects the pod.
func (r *run) zonePreFilter(pod *corev1.Pod, st *volumeState) *FitError {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.PersistentVolumeClaim == nil {
			continue
		}
		pvc, _ := r.s.claim(pod.Namespace, v.PersistentVolumeClaim.ClaimName)
		if pvc == nil || pvc.Spec.VolumeName == "" {
			continue // unbound: late-binding ones are skipped, others were rejected
		}
		pv, ok := r.s.pvs[pvc.Spec.VolumeName]
		if !ok {
			return &FitError{Filter: FilterVolumeZone, Reason: fmt.Sprintf("persistentvolume %q not found", pvc.Spec.VolumeName)}
		}
		st.zones = append(st.zones, scheduling.PVZoneTopologies(pv)...)
	}
	return nil
}

// attachable adds the pod's CSI volumes to out, by unique name (driver and
// handle) to driver: claims bound to CSI volumes, and unbound claims
// under their class's provisioner. Claims that cannot be looked up are
// skipped.
func (s *Snapshot) attachable(pod *corev1.Pod, out map[string]string) {
	for _, c := range podClaims(pod) {
		pvc, ok := s.claim(pod.Namespace, c.name)
		if !ok {
			continue
		}
		driver, handle := s.csiDriverInfo(pvc)
		if driver != "" && handle != "" {
			out[driver+"/"+handle] = driver
		}
	}
}

func (s *Snapshot) csiDriverInfo(pvc *corev1.PersistentVolumeClaim) (string, string) {
	if pv, ok := s.pvs[pvc.Spec.VolumeName]; ok && pvc.Spec.VolumeName != "" {
		if pv.Spec.CSI == nil {
			return "", ""
		}
		return pv.Spec.CSI.Driver, pv.Spec.CSI.VolumeHandle
	}
	class, ok := s.classes[volume.GetPersistentVolumeClaimClass(pvc)]
	if !ok {
		return "", ""
	}
	return class.Provisioner, unboundHandlePrefix + "-" + pvc.Namespace + "/" + pvc.Name
}

// volumeFailure runs the volume filters on the node, in kube-scheduler's
// order: VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone.
func (g *groupState) volumeFailure(s *Snapshot, n *nodeInfo) (string, string) {
	spec := g.spec
	for _, v := range spec.diskVolumes {
		for _, e := range n.pods {
			if scheduling.DiskConflict(v, e.pod.Spec.Volumes) {
				return FilterVolumeRestrictions, scheduling.ReasonDiskConflict
			}
		}
	}
	st := g.vol
	if st == nil {
		return "", ""
	}
	for _, key := range st.rwop {
		if s.claimUsers[key] > 0 {
			return FilterVolumeRestrictions, scheduling.ReasonReadWriteOncePod
		}
	}
	if len(st.csi) > 0 && s.exceedsVolumeLimits(st.csi, n) {
		return FilterNodeVolumeLimits, scheduling.ReasonMaxVolumeCount
	}
	for _, pv := range st.bound {
		if !scheduling.PVMatchesNode(pv, n.node) {
			return FilterVolumeBinding, scheduling.ReasonVolumeNodeConflict
		}
	}
	if len(st.delayed) > 0 && !s.canBind(st.delayed, n.node) {
		return FilterVolumeBinding, scheduling.ReasonVolumeBindConflict
	}
	if !st.zones.Match(n.node) {
		return FilterVolumeZone, scheduling.ReasonVolumeZoneConflict
	}
	return "", ""
}

// exceedsVolumeLimits reports whether the pod's new CSI volumes (those no
// pod on the node uses yet) exceed a driver's attach limit in the node's
// CSINode.
func (s *Snapshot) exceedsVolumeLimits(newVolumes map[string]string, n *nodeInfo) bool {
	csiNode, ok := s.csiNodes[n.node.Name]
	if !ok {
		return false
	}
	limits := map[string]int{}
	for _, d := range csiNode.Spec.Drivers {
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			limits[d.Name] = int(*d.Allocatable.Count)
		}
	}
	if len(limits) == 0 {
		return false
	}
	attached := map[string]string{}
	for _, e := range n.pods {
		s.attachable(e.pod, attached)
	}
	used, wanted := map[string]int{}, map[string]int{}
	for _, driver := range attached {
		used[driver]++
	}
	for name, driver := range newVolumes {
		if _, ok := attached[name]; !ok {
			wanted[driver]++
		}
	}
	for driver, k := range wanted {
		if limit, ok := limits[driver]; ok && used[driver]+k > limit {
			return true
		}
	}
	return false
}

package snapshot

import (
	"cmp"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/volume"

	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/scheduling"
)

// This file carries the pods' claims, the volumes they are bound to and
// the storage classes. The simulation names pods <workload>-<n>, so a
// claim whose name follows its pod's (a StatefulSet's claim template, a
// generic ephemeral volume's claim) is renamed after the pod's simulated
// name.

// isTemplateVolume reports whether the volume mounts the claim a
// StatefulSet's claim template makes for the pod: <volume>-<pod>.
func isTemplateVolume(p *corev1.Pod, v corev1.Volume) bool {
	return v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == v.Name+"-"+p.Name
}

// claimVolumes are the pod's claim and ephemeral volumes as the pod
// template writes them; a claim template's volume is the workload's
// volumeClaimTemplates, not a pod volume.
func claimVolumes(p *corev1.Pod) []scenario.Volume {
	var out []scenario.Volume
	for _, v := range p.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil && !isTemplateVolume(p, v):
			out = append(out, scenario.Volume{Name: v.Name, Type: scenario.VolumeClaim, Claim: v.PersistentVolumeClaim.ClaimName})
		case v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil:
			cs := claimSpecOf(v.Ephemeral.VolumeClaimTemplate.Spec)
			out = append(out, scenario.Volume{Name: v.Name, Type: scenario.VolumeEphemeral, Ephemeral: &cs})
		}
	}
	return out
}

// claimSpecOf is the class, size and access modes of a claim spec.
func claimSpecOf(s corev1.PersistentVolumeClaimSpec) scenario.ClaimSpec {
	cs := scenario.ClaimSpec{Size: scenario.Size{Quantity: s.Resources.Requests[corev1.ResourceStorage]}, AccessModes: slices.Clone(s.AccessModes)}
	if s.StorageClassName != nil {
		cs.StorageClass = *s.StorageClassName
	}
	if len(cs.AccessModes) == 1 && cs.AccessModes[0] == corev1.ReadWriteOnce {
		cs.AccessModes = nil // the default
	}
	return cs
}

// simPodOrder orders a workload's pods as the simulation creates and
// places them: the bound pods by node name (the order on binds them in),
// then the pending ones; each by name.
func simPodOrder(pods []*corev1.Pod) []*corev1.Pod {
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(a, b *corev1.Pod) int {
		if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
			if a.Spec.NodeName == "" {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.Spec.NodeName, b.Spec.NodeName), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// nameSimPods records the simulated name of each pod of a workload.
func (b *builder) nameSimPods(w *scenario.Workload, pods []*corev1.Pod) {
	for i, p := range simPodOrder(pods) {
		name := w.Name + "-" + strconv.Itoa(i+1)
		if w.Kind == kindDaemonSet {
			name = w.Name + "-" + p.Spec.NodeName
		}
		b.simPod[p.Namespace+"/"+p.Name] = simPod{name: name, workload: w.Name, n: i + 1}
	}
}

// simPod is a kept pod's name in the simulation, its workload and its
// number there.
type simPod struct {
	name, workload string
	n              int
}

// claimTemplates sets the workload's claim templates from the template
// volumes of its first pod, with the class, size and access modes of the
// first claim one of its pods has.
func (b *builder) claimTemplates(w *scenario.Workload, g *podGroup, claims map[string]*corev1.PersistentVolumeClaim) {
	for _, v := range g.pods[0].Spec.Volumes {
		if !isTemplateVolume(g.pods[0], v) {
			continue
		}
		var found *corev1.PersistentVolumeClaim
		for _, p := range g.pods {
			if c := claims[p.Namespace+"/"+v.Name+"-"+p.Name]; c != nil {
				found = c
				break
			}
		}
		if w.Kind == kindPods && len(g.pods) == 1 {
			// One bare or terminating pod: its claim keeps its name.
			w.Pod.Volumes = append(w.Pod.Volumes, scenario.Volume{Name: v.Name, Type: scenario.VolumeClaim, Claim: v.PersistentVolumeClaim.ClaimName})
			continue
		}
		if found == nil || w.Kind != kindReplicaSet {
			b.res.notef("%s: its claim template %s is left out (no claim of it exists, or the workload is no StatefulSet's); where its pods fit may change", g.owner, v.Name)
			continue
		}
		w.VolumeClaimTemplates = append(w.VolumeClaimTemplates, scenario.ClaimTemplate{Name: v.Name, ClaimSpec: claimSpecOf(found.Spec)})
	}
}

// buildStorage writes the storage classes, the claims the kept pods
// mount (renamed after their pods where the name follows the pod's) and
// the volumes they are bound to, and the available volumes. Claims and
// volumes the scenario cannot hold are noted and their pods' volumes
// dropped.
func (b *builder) buildStorage(c *Cluster, claims map[string]*corev1.PersistentVolumeClaim) {
	s := b.res.Scenario
	classes := map[string]bool{}
	for _, sc := range sortedBy(c.StorageClasses, func(sc storagev1.StorageClass) string { return sc.Name }) {
		classes[sc.Name] = true
		out := scenario.StorageClass{Name: sc.Name, Provisioner: sc.Provisioner}
		if sc.VolumeBindingMode != nil {
			out.VolumeBindingMode = string(*sc.VolumeBindingMode)
		}
		out.AllowedTopologies.Value = sc.AllowedTopologies
		s.StorageClasses = append(s.StorageClasses, out)
	}
	pvs := map[string]*corev1.PersistentVolume{}
	for i := range c.PersistentVolumes {
		pvs[c.PersistentVolumes[i].Name] = &c.PersistentVolumes[i]
	}
	written, usedPV := map[string]string{}, map[string]bool{}
	for _, p := range b.keptPods {
		sp := b.simPod[p.Namespace+"/"+p.Name]
		w := b.workloadByName(sp.workload)
		for _, v := range p.Spec.Volumes {
			templated := isTemplateVolume(p, v) && hasTemplate(w, v.Name)
			live, sim := claimNames(p, v, sp.name, templated)
			if live == "" || (isTemplateVolume(p, v) && !templated && !hasVolume(w, v.Name)) {
				continue
			}
			pvc := claims[p.Namespace+"/"+live]
			if pvc == nil && (templated || v.Ephemeral != nil) {
				b.res.notef("pod %s/%s: its claim %s does not exist yet; the simulation creates it (from the claim template or the ephemeral volume), as its controller would", p.Namespace, p.Name, live)
				continue
			}
			if why := b.claimProblem(pvc, live, classes); why != "" {
				b.res.notef("pod %s/%s: its volume %s is left out: %s; where the pod fits may change", p.Namespace, p.Name, v.Name, why)
				dropVolume(w, v.Name)
				continue
			}
			if v.Ephemeral != nil && !metav1.IsControlledBy(pvc, p) {
				b.res.notef("claim %s/%s: it is not owned by pod %s, which the simulation gives it to", pvc.Namespace, pvc.Name, p.Name)
			}
			key := p.Namespace + "/" + sim
			if _, done := written[key]; done {
				continue
			}
			written[key] = live
			out := scenario.PersistentVolumeClaim{Name: sim, Namespace: p.Namespace, ClaimSpec: claimSpecOf(pvc.Spec)}
			if pv := pvs[pvc.Spec.VolumeName]; pv != nil && usedPV[pv.Name] {
				b.res.notef("claim %s/%s: its volume %s is bound to another claim too; written unbound", pvc.Namespace, pvc.Name, pv.Name)
			} else if pv != nil && scheduling.ClaimFullyBound(pvc) {
				out.Volume, usedPV[pv.Name] = pv.Name, true
			} else if pvc.Spec.VolumeName != "" {
				b.res.notef("claim %s/%s: its binding to volume %s is not complete or the volume is missing; written unbound", pvc.Namespace, pvc.Name, pvc.Spec.VolumeName)
			}
			b.claimApproximations(pvc)
			s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, out)
		}
	}
	for _, pv := range sortedBy(c.PersistentVolumes, func(pv corev1.PersistentVolume) string { return pv.Name }) {
		available := pv.Spec.ClaimRef == nil && pv.DeletionTimestamp == nil && (pv.Status.Phase == "" || pv.Status.Phase == corev1.VolumeAvailable)
		if usedPV[pv.Name] || available {
			s.PersistentVolumes = append(s.PersistentVolumes, volumeOf(&pv))
		}
	}
	slices.SortFunc(s.PersistentVolumeClaims, func(x, y scenario.PersistentVolumeClaim) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	if len(s.PersistentVolumeClaims) > 0 {
		b.res.Header = append(b.res.Header, "Claims of claim templates and ephemeral volumes are renamed after the simulated pods "+
			"(<volume>-<workload>-<n>, <workload>-<n>-<volume>): running pods by node name, then pending ones.")
	}
}

// claimNames returns the live and simulated name of the claim the volume
// mounts (a claim template's when templated), or "" for a volume without
// claim.
func claimNames(p *corev1.Pod, v corev1.Volume, simName string, templated bool) (live, sim string) {
	switch {
	case templated:
		return v.PersistentVolumeClaim.ClaimName, v.Name + "-" + simName
	case v.PersistentVolumeClaim != nil:
		return v.PersistentVolumeClaim.ClaimName, v.PersistentVolumeClaim.ClaimName
	case v.Ephemeral != nil:
		return p.Name + "-" + v.Name, simName + "-" + v.Name
	}
	return "", ""
}

// claimProblem says why a claim cannot be written, or "".
func (b *builder) claimProblem(pvc *corev1.PersistentVolumeClaim, name string, classes map[string]bool) string {
	switch {
	case pvc == nil:
		return "its claim " + name + " does not exist"
	case pvc.DeletionTimestamp != nil || pvc.Status.Phase == corev1.ClaimLost:
		return "its claim " + name + " is being deleted or lost"
	}
	class := volume.GetPersistentVolumeClaimClass(pvc)
	if class != "" && !classes[class] {
		return "its claim " + name + " names storage class " + class + ", which does not exist"
	}
	if pvc.Spec.Resources.Requests.Storage().Sign() <= 0 {
		return "its claim " + name + " requests no storage"
	}
	return ""
}

// claimApproximations notes the claim's fields the scenario drops.
func (b *builder) claimApproximations(pvc *corev1.PersistentVolumeClaim) {
	if pvc.Spec.Selector != nil || pvc.Spec.DataSource != nil || (pvc.Spec.VolumeMode != nil && *pvc.Spec.VolumeMode == corev1.PersistentVolumeBlock) {
		b.res.notef("claim %s/%s: its selector, data source or block volume mode is not captured (which volumes it may bind to)", pvc.Namespace, pvc.Name)
	}
	if _, ok := pvc.Annotations["volume.kubernetes.io/selected-node"]; ok && pvc.Spec.VolumeName == "" {
		b.res.notef("claim %s/%s: its selected node (a provisioning in progress) is not captured", pvc.Namespace, pvc.Name)
	}
}

func hasVolume(w *scenario.Workload, name string) bool {
	return w != nil && slices.ContainsFunc(w.Pod.Volumes, func(v scenario.Volume) bool { return v.Name == name })
}

func hasTemplate(w *scenario.Workload, name string) bool {
	return w != nil && slices.ContainsFunc(w.VolumeClaimTemplates, func(t scenario.ClaimTemplate) bool { return t.Name == name })
}

// dropVolume removes a pod volume or claim template from the workload.
func dropVolume(w *scenario.Workload, name string) {
	if w == nil {
		return
	}
	w.Pod.Volumes = slices.DeleteFunc(w.Pod.Volumes, func(v scenario.Volume) bool { return v.Name == name })
	w.VolumeClaimTemplates = slices.DeleteFunc(w.VolumeClaimTemplates, func(t scenario.ClaimTemplate) bool { return t.Name == name })
}

// volumeOf is the scenario's form of a volume: class, capacity, access
// modes, node affinity and zone labels.
func volumeOf(pv *corev1.PersistentVolume) scenario.PersistentVolume {
	out := scenario.PersistentVolume{Name: pv.Name, StorageClass: volume.GetPersistentVolumeClass(pv),
		Capacity: scenario.Size{Quantity: pv.Spec.Capacity[corev1.ResourceStorage]}, AccessModes: slices.Clone(pv.Spec.AccessModes)}
	if len(out.AccessModes) == 1 && out.AccessModes[0] == corev1.ReadWriteOnce {
		out.AccessModes = nil
	}
	if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil && len(a.Required.NodeSelectorTerms) > 0 {
		out.NodeAffinity = &scenario.K8s[corev1.NodeSelector]{Value: *a.Required.DeepCopy()}
	}
	for _, k := range []string{corev1.LabelTopologyZone, corev1.LabelTopologyRegion, corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion} {
		if v, ok := pv.Labels[k]; ok {
			if out.Labels == nil {
				out.Labels = map[string]string{}
			}
			out.Labels[k] = v
		}
	}
	return out
}

// sortedBy returns pointers to the items, sorted by key.
func sortedBy[T any](items []T, key func(T) string) []T {
	out := slices.Clone(items)
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// dropUnlistedClaims drops the volumes the scenario could not load, noting
// them: claim volumes whose claim is not written (a DaemonSet written from
// its template mounting a claim), and ephemeral volumes and claim
// templates of a class that does not exist or without size.
func (b *builder) dropUnlistedClaims() {
	listed, classes := map[string]bool{}, map[string]bool{}
	for _, c := range b.res.Scenario.PersistentVolumeClaims {
		listed[c.Namespace+"/"+c.Name] = true
	}
	for _, c := range b.res.Scenario.StorageClasses {
		classes[c.Name] = true
	}
	bad := func(cs scenario.ClaimSpec) bool {
		return (cs.StorageClass != "" && !classes[cs.StorageClass]) || cs.Size.Sign() <= 0
	}
	for i := range b.res.Scenario.Workloads {
		w := &b.res.Scenario.Workloads[i]
		for _, v := range slices.Clone(w.Pod.Volumes) {
			if (v.Type == scenario.VolumeClaim && !listed[w.Namespace+"/"+v.Claim]) || (v.Ephemeral != nil && bad(*v.Ephemeral)) {
				b.res.notef("workload %s: its volume %s is left out: its claim is not written, or of a storage class that does not exist, or without size; where the pods fit may change", w.Name, v.Name)
				dropVolume(w, v.Name)
			}
		}
		for _, t := range slices.Clone(w.VolumeClaimTemplates) {
			if bad(t.ClaimSpec) {
				b.res.notef("workload %s: its claim template %s is left out: of a storage class that does not exist, or without size; where the pods fit may change", w.Name, t.Name)
				dropVolume(w, t.Name)
			}
		}
	}
}

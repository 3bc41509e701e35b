package offline

import (
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/storage/volume"

	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/scheduling"
	"github.com/kscale/kscale/internal/simulator"
)

// storage is the simulated cluster's StorageClasses, PersistentVolumes and
// claims, and plays the volume controllers: it binds the claims the
// simulation creates (Immediate ones at once, late-binding ones when their
// pod is bound), as a PV controller and a provisioner do. Claims the
// scenario lists keep the binding it gives them. Objects are replaced,
// never changed in place; gen counts the changes.
type storage struct {
	classes map[string]*storagev1.StorageClass
	pvs     map[string]*corev1.PersistentVolume
	pvcs    map[string]*corev1.PersistentVolumeClaim
	// pvOrder and pvcOrder keep the lists in creation order.
	pvOrder, pvcOrder []string
	classOrder        []string
	gen               int
}

func newStorage() *storage {
	return &storage{classes: map[string]*storagev1.StorageClass{}, pvs: map[string]*corev1.PersistentVolume{},
		pvcs: map[string]*corev1.PersistentVolumeClaim{}}
}

// load adds the scenario's classes, volumes and claims; a claim's volume
// names the claim back, and both are bound.
func (st *storage) load(scn *scenario.Scenario) {
	for _, sc := range scn.StorageClasses {
		mode := storagev1.VolumeBindingMode(sc.VolumeBindingMode)
		if mode == "" {
			mode = storagev1.VolumeBindingImmediate
		}
		st.classOrder = append(st.classOrder, sc.Name)
		st.classes[sc.Name] = &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: sc.Name}, Provisioner: sc.Provisioner,
			VolumeBindingMode: &mode, AllowedTopologies: sc.AllowedTopologies.Value}
	}
	for _, v := range scn.PersistentVolumes {
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: v.Name, Labels: maps.Clone(v.Labels)},
			Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: v.Capacity.Quantity},
				AccessModes: scenario.ClaimSpec{AccessModes: v.AccessModes}.Modes(), StorageClassName: v.StorageClass,
				PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "kscale.dev/simulated", VolumeHandle: v.Name}}},
			Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable}}
		if v.NodeAffinity != nil {
			pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: v.NodeAffinity.Value.DeepCopy()}
		}
		st.putPV(pv)
	}
	for _, c := range scn.PersistentVolumeClaims {
		pvc := newClaim(c.Namespace, c.Name, c.ClaimSpec)
		st.putPVC(pvc)
		if c.Volume != "" {
			st.bind(pvc, st.pvs[c.Volume])
		}
	}
}

// newClaim is an unbound claim of the spec.
func newClaim(namespace, name string, cs scenario.ClaimSpec) *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
		UID: types.UID("pvc-" + namespace + "/" + name)},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: cs.Modes(),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: cs.Size.Quantity}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	if cs.StorageClass != "" {
		class := cs.StorageClass
		pvc.Spec.StorageClassName = &class
	}
	return pvc
}

func (st *storage) putPV(pv *corev1.PersistentVolume) {
	if _, ok := st.pvs[pv.Name]; !ok {
		st.pvOrder = append(st.pvOrder, pv.Name)
	}
	st.pvs[pv.Name] = pv
	st.gen++
}

func (st *storage) putPVC(pvc *corev1.PersistentVolumeClaim) {
	k := pvc.Namespace + "/" + pvc.Name
	if _, ok := st.pvcs[k]; !ok {
		st.pvcOrder = append(st.pvcOrder, k)
	}
	st.pvcs[k] = pvc
	st.gen++
}

// bind binds the claim and the volume to each other, as the PV controller
// completes a binding.
func (st *storage) bind(pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) {
	b := pv.DeepCopy()
	b.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID}
	b.Status.Phase = corev1.VolumeBound
	st.putPV(b)
	c := pvc.DeepCopy()
	c.Spec.VolumeName = pv.Name
	c.Annotations = map[string]string{scheduling.AnnBindCompleted: "yes"}
	c.Status.Phase = corev1.ClaimBound
	c.Status.Capacity = b.Spec.Capacity
	c.Status.AccessModes = b.Spec.AccessModes
	st.putPVC(c)
}

// ensureClaims creates the claims a new pod mounts that do not exist yet:
// its claim templates' and its ephemeral volumes' (owned by the pod); a
// listed ephemeral claim becomes the pod's. New claims of Immediate
// classes are bound at once.
func (st *storage) ensureClaims(wl *workload, p *corev1.Pod) {
	for _, t := range wl.spec.VolumeClaimTemplates {
		name := t.Name + "-" + p.Name
		if _, ok := st.pvcs[p.Namespace+"/"+name]; !ok {
			st.create(newClaim(p.Namespace, name, t.ClaimSpec))
		}
	}
	for _, v := range wl.spec.Pod.Volumes {
		if v.Ephemeral == nil {
			continue
		}
		name := p.Name + "-" + v.Name
		pvc, ok := st.pvcs[p.Namespace+"/"+name]
		if ok {
			pvc = pvc.DeepCopy()
		} else {
			pvc = newClaim(p.Namespace, name, *v.Ephemeral)
		}
		yes := true
		pvc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: &yes}}
		if ok {
			st.putPVC(pvc)
		} else {
			st.create(pvc)
		}
	}
}

// create adds a claim the simulation made and binds it when its class
// binds at once: to a matching available volume, or to a new one when the
// class provisions.
func (st *storage) create(pvc *corev1.PersistentVolumeClaim) {
	st.putPVC(pvc)
	class := st.classes[volume.GetPersistentVolumeClaimClass(pvc)]
	if class != nil && class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer {
		return
	}
	if pv := st.matching(pvc, nil); pv != nil {
		st.bind(pvc, pv)
		return
	}
	if class == nil || !provisions(class) {
		return
	}
	var affinity *corev1.VolumeNodeAffinity
	if len(class.AllowedTopologies) > 0 {
		affinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{}}
		for _, t := range class.AllowedTopologies {
			term := corev1.NodeSelectorTerm{}
			for _, r := range t.MatchLabelExpressions {
				term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOpIn, Values: r.Values})
			}
			affinity.Required.NodeSelectorTerms = append(affinity.Required.NodeSelectorTerms, term)
		}
	}
	st.provision(pvc, class, affinity)
}

func provisions(class *storagev1.StorageClass) bool {
	return class.Provisioner != "" && class.Provisioner != "kubernetes.io/no-provisioner"
}

// matching is the smallest available volume the claim may bind to (on the
// node, when given), or nil.
func (st *storage) matching(pvc *corev1.PersistentVolumeClaim, node *corev1.Node) *corev1.PersistentVolume {
	class := volume.GetPersistentVolumeClaimClass(pvc)
	var vols []*corev1.PersistentVolume
	for _, name := range st.pvOrder {
		if pv := st.pvs[name]; volume.GetPersistentVolumeClass(pv) == class {
			vols = append(vols, pv)
		}
	}
	pv, err := volume.FindMatchingVolume(pvc, vols, node, nil, node != nil, true)
	if err != nil {
		return nil
	}
	return pv
}

// provision creates a volume of the class for the claim, with the node
// affinity given, and binds them.
func (st *storage) provision(pvc *corev1.PersistentVolumeClaim, class *storagev1.StorageClass, affinity *corev1.VolumeNodeAffinity) {
	name := "pvc-" + pvc.Namespace + "-" + pvc.Name
	for i := 2; st.pvs[name] != nil; i++ {
		name = fmt.Sprintf("pvc-%s-%s-%d", pvc.Namespace, pvc.Name, i)
	}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: pvc.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes: pvc.Spec.AccessModes, StorageClassName: class.Name, NodeAffinity: affinity,
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: class.Provisioner, VolumeHandle: name}}}}
	st.bind(pvc, pv)
}

// bindOnNode binds the pod's unbound late-binding claims for the node it
// was bound to, as kube-scheduler's volume binding and a provisioner do:
// to the smallest matching available volume, or else to a new volume in
// the node's zone (its host without a zone label).
func (st *storage) bindOnNode(p *corev1.Pod, node *corev1.Node) {
	if node == nil {
		return
	}
	for _, name := range scheduling.PodClaimNames(p) {
		pvc, ok := st.pvcs[p.Namespace+"/"+name]
		if !ok || pvc.Spec.VolumeName != "" {
			continue
		}
		class := st.classes[volume.GetPersistentVolumeClaimClass(pvc)]
		if class == nil || class.VolumeBindingMode == nil || *class.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
			continue
		}
		if pv := st.matching(pvc, node); pv != nil {
			st.bind(pvc, pv)
			continue
		}
		if provisions(class) {
			st.provision(pvc, class, nodeTopology(node))
		}
	}
}

// nodeTopology is the node affinity a provisioner gives a volume made for
// the node: its zone, or its host without a zone label.
func nodeTopology(node *corev1.Node) *corev1.VolumeNodeAffinity {
	key := corev1.LabelTopologyZone
	v, ok := node.Labels[key]
	if !ok {
		key, v = corev1.LabelHostname, node.Labels[corev1.LabelHostname]
	}
	return &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{v}}}}}}}
}

// lists returns the objects in creation order.
func (st *storage) lists() ([]*storagev1.StorageClass, []*corev1.PersistentVolume, []*corev1.PersistentVolumeClaim) {
	classes := make([]*storagev1.StorageClass, 0, len(st.classOrder))
	for _, n := range st.classOrder {
		classes = append(classes, st.classes[n])
	}
	pvs := make([]*corev1.PersistentVolume, 0, len(st.pvOrder))
	for _, n := range st.pvOrder {
		pvs = append(pvs, st.pvs[n])
	}
	pvcs := make([]*corev1.PersistentVolumeClaim, 0, len(st.pvcOrder))
	for _, k := range st.pvcOrder {
		pvcs = append(pvcs, st.pvcs[k])
	}
	return classes, pvs, pvcs
}

// addTo puts every object into a simulator snapshot.
func (st *storage) addTo(snap *simulator.Snapshot) {
	classes, pvs, pvcs := st.lists()
	for _, c := range classes {
		snap.AddStorageClass(c)
	}
	for _, pv := range pvs {
		snap.AddPersistentVolume(pv)
	}
	for _, pvc := range pvcs {
		snap.AddPersistentVolumeClaim(pvc)
	}
}

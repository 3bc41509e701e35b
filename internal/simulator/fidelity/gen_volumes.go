package fidelity

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Annotations of the volume binding protocol.
const (
	annBindCompleted = "pv.kubernetes.io/bind-completed"
	annSelectedNode  = "volume.kubernetes.io/selected-node"
	noProvisioner    = "kubernetes.io/no-provisioner"
)

// storageClasses creates the classes every cluster has: two dynamically
// provisioned late-binding ones (one limited to zones z1 and z2), an
// immediate one and a static local one.
func (g *gen) storageClasses() {
	wffc, imm := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	class := func(name, provisioner string, mode storagev1.VolumeBindingMode) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode}
	}
	fast := class("fast", csiDriver, wffc)
	fast.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
		{Key: keyZone, Values: []string{"z1", "z2"}}}}}
	g.c.StorageClasses = append(g.c.StorageClasses, fast, class("standard", csiDriver, wffc),
		class("immediate", csiDriver, imm), class("local", noProvisioner, wffc))
}

// volumes creates claims in random namespaces: bound ones with their
// volumes (node affinity, zone labels, sometimes a missing volume or a
// missing bind-completed annotation), unbound late-binding and immediate
// ones, and local claims with available local volumes on some nodes.
func (g *gen) volumes() {
	for i := range 2 + g.r.IntN(10) {
		pvc := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pvc%d", i), Namespace: pick(g, namespaces), UID: g.newUID("pvc")},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{pick(g, []corev1.PersistentVolumeAccessMode{
					corev1.ReadWriteOnce, corev1.ReadWriteOnce, corev1.ReadWriteOncePod, corev1.ReadWriteMany})},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: mebi(pick(g, []int64{1024, 10240, 51200}))}},
			},
		}
		switch x := g.r.IntN(20); {
		case x < 9:
			g.bindClaim(pvc)
		case x < 14:
			pvc.Spec.StorageClassName = ptr.To(pick(g, []string{"fast", "standard"}))
			if g.chance(0.15) {
				pvc.Annotations = map[string]string{annSelectedNode: pick(g, g.c.Nodes).Name}
			}
		case x < 16:
			pvc.Spec.StorageClassName = pick(g, []*string{ptr.To("immediate"), ptr.To(""), nil})
		default:
			pvc.Spec.StorageClassName = ptr.To(pick(g, []string{"local", "local", "standard"}))
			for range g.r.IntN(3) {
				g.staticVolume(*pvc.Spec.StorageClassName, pvc)
			}
		}
		if g.chance(0.1) {
			g.feature("volumes/claim selector or block mode")
			if g.chance(0.5) {
				pvc.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": pick(g, []string{"fast", "slow"})}}
			} else {
				pvc.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
			}
		}
		g.c.PersistentVolumeClaims = append(g.c.PersistentVolumeClaims, pvc)
	}
}

// bindClaim binds the claim to a new CSI volume (sometimes left out of the
// cluster, sometimes without the bind-completed annotation).
func (g *gen) bindClaim(pvc *corev1.PersistentVolumeClaim) {
	class := pick(g, []string{"fast", "standard"})
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-" + pvc.Namespace + "-" + pvc.Name, Labels: map[string]string{}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:         corev1.ResourceList{corev1.ResourceStorage: pvc.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:      pvc.Spec.AccessModes,
			StorageClassName: class,
			ClaimRef:         &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: csiDriver, VolumeHandle: "vol-" + pvc.Namespace + "-" + pvc.Name}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	}
	switch g.r.IntN(5) {
	case 0, 1:
		pv.Spec.NodeAffinity = nodeAffinityOn(keyZone, some(g, zones, 2))
	case 2:
		pv.Spec.NodeAffinity = nodeAffinityOn(keyHost, []string{pick(g, g.c.Nodes).Labels[keyHost]})
	}
	switch g.r.IntN(6) {
	case 0:
		pv.Labels[keyZone] = pick(g, zones)
	case 1:
		pv.Labels[keyBetaZone] = pick(g, zones) + "__" + pick(g, zones)
	case 2:
		pv.Labels[keyRegion] = pick(g, []string{"r1", "r2"})
	}
	pvc.Spec.StorageClassName = &class
	pvc.Spec.VolumeName = pv.Name
	pvc.Status.Phase = corev1.ClaimBound
	if !g.chance(0.07) {
		pvc.Annotations = map[string]string{annBindCompleted: "yes"}
	}
	if g.chance(0.05) {
		pv.Spec.CSI = nil
		pv.Spec.AWSElasticBlockStore = &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-" + pvc.Name}
	}
	if !g.chance(0.05) {
		g.c.PersistentVolumes = append(g.c.PersistentVolumes, pv)
	}
}

func nodeAffinityOn(key string, values []string) *corev1.VolumeNodeAffinity {
	return &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}}}}}}
}

// staticVolume adds a volume of the class on a random node (by hostname,
// sometimes by matchFields, which volume node affinity never matches):
// usually available, sometimes released, being deleted, pre-bound to the
// claim or to another, labelled for claim selectors, or of block mode.
func (g *gen) staticVolume(class string, claim *corev1.PersistentVolumeClaim) {
	n := pick(g, g.c.Nodes)
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("static-%d", len(g.c.PersistentVolumes)),
			Labels: map[string]string{"tier": pick(g, []string{"fast", "slow"})}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: mebi(pick(g, []int64{512, 10240, 102400}))},
			AccessModes:            []corev1.PersistentVolumeAccessMode{pick(g, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadWriteOnce, corev1.ReadWriteMany})},
			StorageClassName:       class,
			PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disk"}},
			NodeAffinity:           nodeAffinityOn(keyHost, []string{n.Labels[keyHost]}),
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable},
	}
	switch g.r.IntN(14) {
	case 0:
		pv.Status.Phase = corev1.VolumeReleased
	case 1:
		pv.DeletionTimestamp = &metav1.Time{Time: time.Unix(1_700_000_100, 0)}
	case 2:
		pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: claim.Namespace, Name: claim.Name}
	case 3:
		pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: claim.Namespace, Name: "other"}
	case 4:
		pv.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
	case 5:
		pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions = nil
		pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchFields = []corev1.NodeSelectorRequirement{
			{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{n.Name}}}
	}
	g.c.PersistentVolumes = append(g.c.PersistentVolumes, pv)
}

// podVolumes mounts one or two volumes: claims of the pod's namespace (a
// missing one sometimes), generic ephemeral volumes (their claim usually
// created and owned by the pod), inline GCE disks that conflict, or an
// emptyDir.
func (g *gen) podVolumes(p *corev1.Pod) {
	g.feature("volumes")
	var claims []*corev1.PersistentVolumeClaim
	for _, c := range g.c.PersistentVolumeClaims {
		if c.Namespace == p.Namespace && (p.Spec.NodeName == "" || c.Spec.VolumeName != "") {
			claims = append(claims, c)
		}
	}
	for i := range 1 + g.r.IntN(2) {
		v := corev1.Volume{Name: fmt.Sprintf("v%d", i)}
		switch x := g.r.IntN(20); {
		case x < 11 && len(claims) > 0:
			c := pick(g, claims)
			g.claimFeature(c)
			v.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}
		case x < 12:
			g.feature("volumes/claim missing")
			v.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "absent"}
		case x < 15 && p.Spec.NodeName == "":
			g.ephemeral(p, &v)
		case x < 18:
			g.inlineDisk(&v)
		default:
			v.EmptyDir = &corev1.EmptyDirVolumeSource{}
		}
		p.Spec.Volumes = append(p.Spec.Volumes, v)
	}
}

// inlineDisk makes v an inline iSCSI or RBD disk from a small set, so
// they conflict, or (rarely) an in-tree cloud disk, which the simulator
// answers as not simulated.
func (g *gen) inlineDisk(v *corev1.Volume) {
	switch g.r.IntN(10) {
	case 0:
		g.feature("volumes/inline GCE disk (not simulated)")
		v.GCEPersistentDisk = &corev1.GCEPersistentDiskVolumeSource{PDName: pick(g, []string{"disk-1", "disk-2"}), ReadOnly: g.chance(0.4)}
	case 1:
		g.feature("volumes/inline AWS EBS (not simulated)")
		v.AWSElasticBlockStore = &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: pick(g, []string{"vol-1", "vol-2"})}
	case 2, 3, 4, 5:
		g.feature("volumes/inline iSCSI")
		v.ISCSI = &corev1.ISCSIVolumeSource{TargetPortal: "10.0.0.9:3260", IQN: pick(g, []string{"iqn.2024-01.com.example:a", "iqn.2024-01.com.example:b"}),
			Lun: 0, ReadOnly: g.chance(0.4)}
	default:
		g.feature("volumes/inline RBD")
		v.RBD = &corev1.RBDVolumeSource{CephMonitors: some(g, []string{"m1", "m2", "m3"}, 2), RBDPool: "rbd",
			RBDImage: pick(g, []string{"img-1", "img-2"}), ReadOnly: g.chance(0.4)}
	}
}

func (g *gen) claimFeature(c *corev1.PersistentVolumeClaim) {
	if c.Spec.Selector != nil || c.Spec.VolumeMode != nil {
		g.feature("volumes/claim selector or block mode")
	}
	for _, pv := range g.c.PersistentVolumes {
		if pv.Name == c.Spec.VolumeName && pv.Spec.AWSElasticBlockStore != nil {
			g.feature("volumes/claim bound to an in-tree EBS volume (not simulated)")
		}
	}
	switch {
	case c.Spec.VolumeName != "":
		g.feature("volumes/claim bound")
	case c.Spec.StorageClassName != nil && *c.Spec.StorageClassName == "local":
		g.feature("volumes/claim unbound local (static volumes)")
	case c.Spec.StorageClassName != nil && (*c.Spec.StorageClassName == "fast" || *c.Spec.StorageClassName == "standard"):
		g.feature("volumes/claim unbound WaitForFirstConsumer")
	default:
		g.feature("volumes/claim unbound Immediate")
	}
	for _, m := range c.Spec.AccessModes {
		if m == corev1.ReadWriteOncePod {
			g.feature("volumes/claim ReadWriteOncePod")
		}
	}
}

// ephemeral makes v a generic ephemeral volume and usually creates its
// claim, owned by the pod.
func (g *gen) ephemeral(p *corev1.Pod, v *corev1.Volume) {
	g.feature("volumes/ephemeral")
	class := pick(g, []string{"fast", "standard"})
	v.Ephemeral = &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}}
	if g.chance(0.15) {
		return // not created yet
	}
	owner := metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: ptr.To(true)}
	if g.chance(0.1) {
		owner.UID = "someone-else"
	}
	g.c.PersistentVolumeClaims = append(g.c.PersistentVolumeClaims, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-" + v.Name, Namespace: p.Namespace, OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: mebi(1024)}}},
	})
}

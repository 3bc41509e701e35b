package scheduling

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/storage/ephemeral"
	"k8s.io/component-helpers/storage/volume"
)

// Reasons of kube-scheduler's volume plugins (VolumeRestrictions,
// NodeVolumeLimits, VolumeBinding, VolumeZone).
const (
	ReasonVolumeNodeConflict     = "node(s) didn't match PersistentVolume's node affinity"
	ReasonVolumeBindConflict     = "node(s) didn't find available persistent volumes to bind"
	ReasonVolumePVNotExist       = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
	ReasonVolumeUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"
	ReasonVolumeZoneConflict     = "node(s) had no available volume zone"
	ReasonDiskConflict           = "node(s) had no available disk"
	ReasonReadWriteOncePod       = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
	ReasonMaxVolumeCount         = "node(s) exceed max volume count"
)

// AnnBindCompleted is set on a claim once the PV controller finished
// binding it; kube-scheduler counts a claim as bound only with it.
const AnnBindCompleted = "pv.kubernetes.io/bind-completed"

// PVMatchesNode reports whether the PersistentVolume's required node
// affinity admits the node's labels, as the VolumeBinding plugin checks it
// (match fields never match). A volume without node affinity matches
// every node.
func PVMatchesNode(pv *corev1.PersistentVolume, node *corev1.Node) bool {
	return volume.CheckNodeAffinity(pv, node.Labels) == nil
}

// ClaimFullyBound reports whether the claim is bound to a volume and the
// binding is complete.
func ClaimFullyBound(pvc *corev1.PersistentVolumeClaim) bool {
	_, ok := pvc.Annotations[AnnBindCompleted]
	return pvc.Spec.VolumeName != "" && ok
}

// PodClaimNames returns the names of the PersistentVolumeClaims the pod
// mounts, in its namespace: claims and generic ephemeral volumes' claims.
func PodClaimNames(pod *corev1.Pod) []string {
	var out []string
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			out = append(out, ephemeral.VolumeClaimName(pod, v))
		}
	}
	return out
}

// ZoneTopologies are the zone and region labels of a PersistentVolume the
// VolumeZone filter checks, each with the set of values it allows.
type ZoneTopologies []zoneTopology

type zoneTopology struct {
	key    string
	values []string
}

// zoneKeys are the node labels the VolumeZone filter looks at.
var zoneKeys = []string{corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion, corev1.LabelTopologyZone, corev1.LabelTopologyRegion}

// PVZoneTopologies returns the volume's zone and region labels; a
// multi-zone value ("a__b") allows each zone. Values that do not parse
// (an empty zone in the list) are ignored, as kube-scheduler does.
func PVZoneTopologies(pv *corev1.PersistentVolume) ZoneTopologies {
	var out ZoneTopologies
	for _, key := range zoneKeys {
		v, ok := pv.Labels[key]
		if !ok {
			continue
		}
		var values []string
		valid := true
		for _, z := range strings.Split(v, "__") {
			z = strings.TrimSpace(z)
			if z == "" {
				valid = false
				break
			}
			values = append(values, z)
		}
		if valid {
			out = append(out, zoneTopology{key: key, values: values})
		}
	}
	return out
}

// Match reports whether the node is in every topology's allowed values. A
// node without any zone or region label matches (a single-zone cluster).
// A beta label of the volume is matched against the node's GA label when
// the node lacks the beta one.
func (z ZoneTopologies) Match(node *corev1.Node) bool {
	if len(z) == 0 {
		return true
	}
	hasAny := false
	for _, k := range zoneKeys {
		if _, ok := node.Labels[k]; ok {
			hasAny = true
			break
		}
	}
	if !hasAny {
		return true
	}
	for _, t := range z {
		v, ok := node.Labels[t.key]
		if !ok {
			v, ok = node.Labels[gaZoneKey(t.key)]
		}
		if !ok || !Contains(t.values, v) {
			return false
		}
	}
	return true
}

func gaZoneKey(key string) string {
	switch key {
	case corev1.LabelFailureDomainBetaZone:
		return corev1.LabelTopologyZone
	case corev1.LabelFailureDomainBetaRegion:
		return corev1.LabelTopologyRegion
	}
	return key
}

// Contains reports whether s holds v.
func Contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// HasDiskConflictVolume reports whether the volume is one the
// VolumeRestrictions filter checks for conflicts (inline iSCSI, RBD, GCE
// PD or AWS EBS).
func HasDiskConflictVolume(v *corev1.Volume) bool {
	return v.GCEPersistentDisk != nil || v.AWSElasticBlockStore != nil || v.RBD != nil || v.ISCSI != nil
}

// DiskConflict reports whether the volume cannot be mounted on a node where
// a pod with the given volumes runs: the same GCE disk or iSCSI target
// unless both are read-only, the same EBS volume, or the same RBD image on
// an overlapping monitor set unless both are read-only.
func DiskConflict(v *corev1.Volume, existing []corev1.Volume) bool {
	for i := range existing {
		e := &existing[i]
		switch {
		case v.GCEPersistentDisk != nil && e.GCEPersistentDisk != nil:
			if v.GCEPersistentDisk.PDName == e.GCEPersistentDisk.PDName && (!v.GCEPersistentDisk.ReadOnly || !e.GCEPersistentDisk.ReadOnly) {
				return true
			}
		case v.AWSElasticBlockStore != nil && e.AWSElasticBlockStore != nil:
			if v.AWSElasticBlockStore.VolumeID == e.AWSElasticBlockStore.VolumeID {
				return true
			}
		case v.ISCSI != nil && e.ISCSI != nil:
			if v.ISCSI.IQN == e.ISCSI.IQN && (!v.ISCSI.ReadOnly || !e.ISCSI.ReadOnly) {
				return true
			}
		case v.RBD != nil && e.RBD != nil:
			a, b := v.RBD, e.RBD
			if overlap(a.CephMonitors, b.CephMonitors) && a.RBDPool == b.RBDPool && a.RBDImage == b.RBDImage && (!a.ReadOnly || !b.ReadOnly) {
				return true
			}
		}
	}
	return false
}

func overlap(a, b []string) bool {
	for _, x := range a {
		if Contains(b, x) {
			return true
		}
	}
	return false
}

// InTreeCloudDisk reports whether the volume is an inline volume of an
// in-tree plugin that kube-scheduler translates to CSI (CSI migration) and
// then counts towards CSI attach limits: the simulator does not model that.
func InTreeCloudDisk(v *corev1.Volume) bool {
	return v.GCEPersistentDisk != nil || v.AWSElasticBlockStore != nil || v.AzureDisk != nil || v.AzureFile != nil ||
		v.Cinder != nil || v.PortworxVolume != nil || v.VsphereVolume != nil
}

// InTreeMigratedPV reports whether the PersistentVolume uses an in-tree
// plugin that kube-scheduler translates to CSI (its node affinity and
// attach limits then depend on the node's CSINode): the simulator does not
// model that.
func InTreeMigratedPV(pv *corev1.PersistentVolume) bool {
	s := &pv.Spec.PersistentVolumeSource
	return s.GCEPersistentDisk != nil || s.AWSElasticBlockStore != nil || s.AzureDisk != nil || s.AzureFile != nil ||
		s.Cinder != nil || s.PortworxVolume != nil || s.VsphereVolume != nil
}

package conformance

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func volumeCases() []Case {
	return []Case{
		{
			Name:                   "bound local volume pins the pod to its node",
			Nodes:                  nodes(3),
			PersistentVolumes:      []*corev1.PersistentVolume{localPV("conf-pv-a", "conf-claim-a", hostnameKey, "n2")},
			PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{boundPVC("conf-claim-a", "conf-pv-a")},
			Pod:                    fixture.Pod("in", withClaim("conf-claim-a")),
			Want:                   "n2", WantFilter: fVolume,
		},
		{
			Name:                   "volume node affinity excludes the only free node",
			Nodes:                  []*corev1.Node{node("a1", "a"), node("b1", "b")},
			Existing:               []*corev1.Pod{fill("a1")},
			PersistentVolumes:      []*corev1.PersistentVolume{localPV("conf-pv-b", "conf-claim-b", zoneKey, "a")},
			PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{boundPVC("conf-claim-b", "conf-pv-b")},
			Pod:                    fixture.Pod("in", withClaim("conf-claim-b")),
			Want:                   "", WantFilter: fVolume,
		},
	}
}

func localPV(name, claim, key, value string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: quantity("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              "conformance-local",
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/data"}},
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: fixture.DefaultNamespace, Name: claim},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				in(key, value),
			}}},
		},
	}
}

func boundPVC(name, volume string) *corev1.PersistentVolumeClaim {
	class := "conformance-local"
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: fixture.DefaultNamespace,
			Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &class,
			VolumeName:       volume,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: quantity("1Gi")}},
		},
	}
}

func withClaim(claim string) fixture.PodOption {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
		}})
	}
}

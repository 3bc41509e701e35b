package scenario

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestParseStorage(t *testing.T) {
	s := parseFile(t, "testdata/storage.yaml")
	if len(s.StorageClasses) != 2 || s.StorageClasses[0].VolumeBindingMode != BindingWaitForFirstConsumer ||
		s.StorageClasses[0].AllowedTopologies.Value[0].MatchLabelExpressions[0].Values[1] != "z2" {
		t.Fatalf("storage classes: %+v", s.StorageClasses)
	}
	pv := s.PersistentVolumes[0]
	if pv.Capacity.String() != "10Gi" || pv.NodeAffinity.Value.NodeSelectorTerms[0].MatchExpressions[0].Values[0] != "z1" {
		t.Fatalf("volume: %+v", pv)
	}
	c := s.PersistentVolumeClaims
	if c[0].Namespace != "default" || c[0].Volume != "pv-db-1" || c[1].Modes()[0] != corev1.ReadWriteMany || c[0].Modes()[0] != corev1.ReadWriteOnce {
		t.Fatalf("claims: %+v", c)
	}
	if tpl := s.Workloads[0].VolumeClaimTemplates; len(tpl) != 1 || tpl[0].Size.String() != "10Gi" {
		t.Fatalf("claim templates: %+v", tpl)
	}
	if v := s.Workloads[1].Pod.Volumes; v[0].Claim != "shared" || v[1].Ephemeral.StorageClass != "zonal" {
		t.Fatalf("pod volumes: %+v", v)
	}
}

func TestParseStorageErrors(t *testing.T) {
	head := "apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 10m\n"
	class := "storageClasses:\n  - {name: c, provisioner: p}\n"
	tests := []struct {
		name, file, want string
	}{
		{"class without provisioner", head + "storageClasses:\n  - {name: c}\n", "line 5: storageClasses \"c\": provisioner: required"},
		{"binding mode", head + "storageClasses:\n  - name: c\n    provisioner: p\n    volumeBindingMode: Later\n",
			"line 7: storageClasses \"c\": volumeBindingMode: must be Immediate or WaitForFirstConsumer"},
		{"class twice", head + class + "  - {name: c, provisioner: q}\n", "line 6: storageClasses.name: \"c\" defined twice"},
		{"bad topology", head + "storageClasses:\n  - name: c\n    provisioner: p\n    allowedTopologies: [{matchLabels: {}}]\n",
			"line 7: unknown field \"matchLabels\""},
		{"volume size", head + "persistentVolumes:\n  - {name: v, capacity: big}\n", "line 5: storage size: bad quantity \"big\""},
		{"negative size", head + "persistentVolumes:\n  - {name: v, capacity: -1Gi}\n", "line 5: storage size: quantity \"-1Gi\" is negative"},
		{"size too large", head + "persistentVolumeClaims:\n  - {name: d, size: 10Ei}\n", "line 5: storage size: quantity \"10Ei\" is above 9e15"},
		{"volume without capacity", head + "persistentVolumes:\n  - {name: v}\n", "line 5: persistentVolumes \"v\": capacity: required"},
		{"access mode", head + "persistentVolumes:\n  - {name: v, capacity: 1Gi, accessModes: [ReadWriteSometimes]}\n",
			"line 5: persistentVolumes v: accessModes: must be some of"},
		{"empty affinity", head + "persistentVolumes:\n  - name: v\n    capacity: 1Gi\n    nodeAffinity: {nodeSelectorTerms: []}\n",
			"line 7: persistentVolumes \"v\": nodeAffinity: needs nodeSelectorTerms"},
		{"claim class", head + "persistentVolumeClaims:\n  - {name: d, storageClass: fast, size: 1Gi}\n",
			"line 5: persistentVolumeClaims default/d: storageClass: \"fast\" is not a listed storage class"},
		{"claim size", head + class + "persistentVolumeClaims:\n  - {name: d, storageClass: c}\n", "line 7: persistentVolumeClaims default/d: size: required"},
		{"claim volume", head + class + "persistentVolumeClaims:\n  - {name: d, storageClass: c, size: 1Gi, volume: v}\n",
			"line 7: persistentVolumeClaims \"default/d\": volume: \"v\" is not a listed persistent volume"},
		{"volume bound twice", head + class + "persistentVolumes:\n  - {name: v, capacity: 1Gi}\npersistentVolumeClaims:\n" +
			"  - {name: d, size: 1Gi, volume: v}\n  - {name: e, size: 1Gi, volume: v}\n",
			"line 10: persistentVolumeClaims \"default/e\": volume: \"v\" is bound to claim \"default/d\" already"},
		{"claim twice", head + "persistentVolumeClaims:\n  - {name: d, size: 1Gi}\n  - {name: d, namespace: default, size: 1Gi}\n",
			"line 6: persistentVolumeClaims.name: \"default/d\" defined twice"},
		{"template kind", head + class + "workloads:\n  - name: w\n    kind: Job\n    volumeClaimTemplates: [{name: data, storageClass: c, size: 1Gi}]\n",
			"line 9: workloads \"w\": volumeClaimTemplates are only for kind ReplicaSet"},
		{"template name clash", head + class + "workloads:\n  - name: w\n    kind: ReplicaSet\n    volumeClaimTemplates: [{name: data, storageClass: c, size: 1Gi}]\n" +
			"    pod:\n      volumes: [{name: data, type: emptyDir}]\n",
			"line 9: workloads \"w\": volumeClaimTemplates.name: \"data\" names another volume of the pod"},
		{"claim volume without claim", head + "workloads:\n  - name: w\n    kind: Pods\n    pod:\n      volumes: [{name: data, type: persistentVolumeClaim}]\n",
			"line 8: workloads \"w\": pod.volumes \"data\": claim: required for type persistentVolumeClaim"},
		{"claim not listed", head + "persistentVolumeClaims:\n  - {name: d, size: 1Gi}\nworkloads:\n  - name: w\n    namespace: other\n    kind: Pods\n" +
			"    pod:\n      volumes: [{name: data, type: persistentVolumeClaim, claim: d}]\n",
			"line 11: workloads \"w\": pod.volumes \"data\": claim: \"d\" is not a listed claim of namespace other"},
		{"ephemeral without claim", head + "workloads:\n  - name: w\n    kind: Pods\n    pod:\n      volumes: [{name: data, type: ephemeral}]\n",
			"line 8: workloads \"w\": pod.volumes \"data\": ephemeral: required for type ephemeral"},
		{"ephemeral size", head + "workloads:\n  - name: w\n    kind: Pods\n    pod:\n      volumes: [{name: data, type: ephemeral, ephemeral: {}}]\n",
			"line 8: workloads w: pod.volumes data: size: required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectParseError(t, tt.file, tt.want) })
	}
}

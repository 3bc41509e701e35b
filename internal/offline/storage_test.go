package offline

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scenario"
)

// TestStorageBinding checks the claims the simulation creates and binds:
// a claim template's late-binding claim gets a volume in the zone of the
// node its pod is bound to, an Immediate one a volume at once (with the
// class's allowed topology), an ephemeral one is owned by its pod, and a
// listed claim keeps its binding.
func TestStorageBinding(t *testing.T) {
	scn, err := scenario.Parse([]byte(`apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 1m
autoscaler: {scale-down-enabled: false}
nodeGroups:
  - {name: a, max: 3, zone: z1, resources: {cpu: "4", memory: 16Gi}}
nodes:
  - {name: a-1, group: a}
storageClasses:
  - {name: late, provisioner: p, volumeBindingMode: WaitForFirstConsumer}
  - name: now
    provisioner: p
    allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [z1]}]}]
persistentVolumes:
  - {name: old, storageClass: late, capacity: 1Gi}
persistentVolumeClaims:
  - {name: data-db-1, storageClass: late, size: 1Gi, volume: old}
workloads:
  - name: db
    kind: ReplicaSet
    replicas: 2
    volumeClaimTemplates: [{name: data, storageClass: late, size: 1Gi}]
    pod:
      requests: {cpu: 100m}
      volumes: [{name: tmp, type: ephemeral, ephemeral: {storageClass: now, size: 2Gi}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(scn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := w.cluster.storage
	zoneOf := func(claim string) string {
		t.Helper()
		pvc := st.pvcs["default/"+claim]
		if pvc == nil || pvc.Spec.VolumeName == "" || pvc.Status.Phase != corev1.ClaimBound {
			t.Fatalf("claim %s = %+v, want it bound", claim, pvc)
		}
		pv := st.pvs[pvc.Spec.VolumeName]
		if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Name != claim {
			t.Fatalf("volume %s is bound to %+v, want %s", pv.Name, pv.Spec.ClaimRef, claim)
		}
		if pv.Spec.NodeAffinity == nil {
			return ""
		}
		return pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values[0]
	}
	if st.pvcs["default/data-db-1"].Spec.VolumeName != "old" || zoneOf("data-db-1") != "" {
		t.Errorf("data-db-1 = %+v, want it kept on volume old", st.pvcs["default/data-db-1"])
	}
	if z := zoneOf("data-db-2"); z != "z1" {
		t.Errorf("data-db-2's volume is in zone %q, want z1, the zone of the node db-2 runs on", z)
	}
	for _, c := range []string{"db-1-tmp", "db-2-tmp"} {
		if z := zoneOf(c); z != "z1" {
			t.Errorf("%s's volume is in zone %q, want z1 (the class's allowed topology)", c, z)
		}
		if owner := st.pvcs["default/"+c].OwnerReferences; len(owner) != 1 || owner[0].Kind != "Pod" || owner[0].Name+"-tmp" != c {
			t.Errorf("%s is owned by %+v, want its pod", c, owner)
		}
	}
	if w.pending != 0 {
		t.Errorf("%d pods pending, want both db pods running", w.pending)
	}
}

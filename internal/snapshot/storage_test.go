package snapshot

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/scenario"
)

func zonalPV(name, zone string, claim *corev1.PersistentVolumeClaim) corev1.PersistentVolume {
	pv := corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
		StorageClassName: "zonal", Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}}},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable}}
	if claim != nil {
		pv.Spec.ClaimRef = &corev1.ObjectReference{Namespace: claim.Namespace, Name: claim.Name}
		pv.Status.Phase = corev1.VolumeBound
		claim.Spec.VolumeName = name
		claim.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
	}
	return pv
}

func claim(name, class string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.PersistentVolumeClaimSpec{
		StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}}}
}

func withVolumes(vs ...corev1.Volume) fixture.PodOption {
	return func(p *corev1.Pod) { p.Spec.Volumes = append(p.Spec.Volumes, vs...) }
}

func claimVolume(name, claim string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

// storageCluster has a StatefulSet whose running pod db-0 and pending pod
// db-1 have claims bound to zonal volumes, an available volume, a bare
// pod with a generic ephemeral volume and one whose claim is missing.
func storageCluster() *Cluster {
	db := map[string]string{"app": "db"}
	nodes := []*corev1.Node{
		m5large("b-1", fixture.WithNodeLabels(map[string]string{eksLabel: "b"}), fixture.WithZone("z2")),
	}
	pods := []*corev1.Pod{
		ownedPod("db-0", "StatefulSet", "db", "b-1", fixture.WithLabels(db), fixture.WithRequests("cpu", "1"), withVolumes(claimVolume("data", "data-db-0"))),
		ownedPod("db-1", "StatefulSet", "db", "", fixture.WithLabels(db), fixture.WithRequests("cpu", "1"), withVolumes(claimVolume("data", "data-db-1"))),
		fixture.Pod("tmp", fixture.WithLabels(map[string]string{"app": "tmp"}), fixture.UnschedulablePod(), withVolumes(corev1.Volume{Name: "scratch",
			VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
				Spec: claim("", "zonal").Spec}}}})),
		fixture.Pod("lost", fixture.WithLabels(map[string]string{"app": "lost"}), fixture.UnschedulablePod(), withVolumes(claimVolume("data", "gone"))),
		fixture.Pod("solo", fixture.WithLabels(map[string]string{"app": "solo"}), fixture.UnschedulablePod(), withVolumes(claimVolume("data", "data-solo"))),
	}
	c := cluster(nodes, pods)
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	c.StorageClasses = []storagev1.StorageClass{{ObjectMeta: metav1.ObjectMeta{Name: "zonal"}, Provisioner: "ebs.csi.aws.com", VolumeBindingMode: &wffc}}
	d0, d1, solo := claim("data-db-0", "zonal"), claim("data-db-1", "zonal"), claim("data-solo", "zonal")
	c.PersistentVolumes = []corev1.PersistentVolume{zonalPV("pv-0", "z2", d0), zonalPV("pv-1", "z1", d1), zonalPV("spare", "z1", nil),
		zonalPV("pv-solo", "z2", solo)}
	c.PersistentVolumeClaims = []corev1.PersistentVolumeClaim{*d0, *d1, *claim("unused", "zonal"), *solo}
	return c
}

func TestConvertStorage(t *testing.T) {
	res, err := Convert(storageCluster(), defaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Scenario
	db := mustWorkload(t, res, "db")
	if len(db.VolumeClaimTemplates) != 1 || db.VolumeClaimTemplates[0].Name != "data" || db.VolumeClaimTemplates[0].StorageClass != "zonal" ||
		len(db.Pod.Volumes) != 0 {
		t.Errorf("db = %+v, want the claim template data and no pod volume", db)
	}
	// db-0 runs, so it is the simulation's db-1; pending db-1 is db-2.
	want := []scenario.PersistentVolumeClaim{
		{Name: "data-db-1", Namespace: "default", Volume: "pv-0"},
		{Name: "data-db-2", Namespace: "default", Volume: "pv-1"},
		{Name: "data-solo", Namespace: "default", Volume: "pv-solo"},
	}
	if len(s.PersistentVolumeClaims) != len(want) {
		t.Fatalf("claims = %+v, want %+v", s.PersistentVolumeClaims, want)
	}
	for i, w := range want {
		if c := s.PersistentVolumeClaims[i]; c.Name != w.Name || c.Volume != w.Volume || c.StorageClass != "zonal" || c.Size.String() != "10Gi" {
			t.Errorf("claim %d = %+v, want %+v", i, c, w)
		}
	}
	var pvs []string
	for _, pv := range s.PersistentVolumes {
		pvs = append(pvs, pv.Name)
	}
	if strings.Join(pvs, ",") != "pv-0,pv-1,pv-solo,spare" || s.PersistentVolumes[1].NodeAffinity.Value.NodeSelectorTerms[0].MatchExpressions[0].Values[0] != "z1" {
		t.Errorf("volumes = %+v, want pv-0, pv-1 and spare with their zones", s.PersistentVolumes)
	}
	if v := mustWorkload(t, res, "tmp").Pod.Volumes; len(v) != 1 || v[0].Type != scenario.VolumeEphemeral || v[0].Ephemeral.StorageClass != "zonal" {
		t.Errorf("tmp volumes = %+v, want the ephemeral volume", v)
	}
	if v := mustWorkload(t, res, "solo").Pod.Volumes; len(v) != 1 || v[0].Claim != "data-solo" {
		t.Errorf("solo volumes = %+v, want its claim by name (one bare pod)", v)
	}
	if v := mustWorkload(t, res, "lost").Pod.Volumes; len(v) != 0 {
		t.Errorf("lost volumes = %+v, want the volume of the missing claim dropped", v)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "pod default/lost: its volume data is left out: its claim gone does not exist") || strings.Contains(notes, "cannot express its volume") {
		t.Errorf("notes:\n%s", notes)
	}
	if err := Fit(res); err != nil {
		t.Fatalf("the snapshot does not load: %v", err)
	}
}

func mustWorkload(t *testing.T, r *Result, name string) *scenario.Workload {
	t.Helper()
	w := workloadNamed(r, name)
	if w == nil {
		t.Fatalf("no workload %s in %+v", name, r.Scenario.Workloads)
	}
	return w
}

package snapshot

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kscale/kscale/internal/fixture"
)

// FuzzConvert checks that any valid cluster objects give a file that
// parses and loads: odd group label values, app labels, owners, requests,
// taints and zones.
func FuzzConvert(f *testing.F) {
	f.Add("spot", "web", "ReplicaSet", "web-abc", "500m", "dedicated", "eu-1a", false)
	f.Add("Pool_A.b", "", "StatefulSet", "db.x", "3", "node.kubernetes.io/unschedulable", "", true)
	f.Add("", "a-b", "DaemonSet", "agent", "0", "x/y", "z", false)
	f.Add("unmanaged-1", "unmanaged-1", "Job", "j", "100", "ToBeDeletedByClusterAutoscaler", "z", false)
	f.Fuzz(func(t *testing.T, group, app, kind, owner, cpu, taintKey, zone string, notReady bool) {
		q, err := resource.ParseQuantity(cpu)
		if err != nil || q.Sign() < 0 || len(validation.IsValidLabelValue(group)) > 0 || len(validation.IsValidLabelValue(app)) > 0 ||
			len(validation.IsValidLabelValue(zone)) > 0 || len(validation.IsDNS1123Subdomain(owner)) > 0 ||
			len(validation.IsQualifiedName(taintKey)) > 0 || len(validation.IsDNS1123Subdomain(kind)) > 0 && kind != "ReplicaSet" && kind != "StatefulSet" && kind != "DaemonSet" && kind != "Job" {
			return // the API server rejects such objects
		}
		nodeOpts := []fixture.NodeOption{fixture.WithNodeLabels(map[string]string{eksLabel: group}),
			fixture.WithTaints(fixture.Taint(taintKey, "", corev1.TaintEffectNoSchedule))}
		if zone != "" {
			nodeOpts = append(nodeOpts, fixture.WithZone(zone))
		}
		if notReady {
			nodeOpts = append(nodeOpts, fixture.NotReady())
		}
		labels := map[string]string{}
		if app != "" {
			labels["app"] = app
		}
		podOpts := []fixture.PodOption{fixture.WithLabels(labels), fixture.WithRequests("cpu", cpu),
			fixture.WithOwner(appsv1.SchemeGroupVersion.WithKind(kind), owner, "uid")}
		c := cluster([]*corev1.Node{fixture.Node("n-1", nodeOpts...), fixture.Node("n-2")}, []*corev1.Pod{
			fixture.Pod("p-1", append(podOpts, fixture.OnNode("n-1"), fixture.Running())...),
			fixture.Pod("p-2", append(podOpts, fixture.UnschedulablePod())...),
			fixture.Pod("p-3", fixture.WithLabels(labels), fixture.OnNode("n-2"), fixture.Running()),
		}, fixture.PDB("pdb", app))
		convertRoundTrip(t, c)
	})
}

// FuzzConvertStorage checks that any valid claims, volumes and classes
// give a file that parses and loads: odd claim and class names, sizes,
// zones, bindings, claim templates and ephemeral volumes.
func FuzzConvertStorage(f *testing.F) {
	f.Add("data-db-0", "zonal", "10Gi", "z1", true, true, false)
	f.Add("x", "", "1", "", false, false, true)
	f.Add("data-db-0", "missing", "0", "z.2", true, false, false)
	f.Fuzz(func(t *testing.T, claimName, class, size, zone string, bound, template, ephemeral bool) {
		q, err := resource.ParseQuantity(size)
		if err != nil || q.Sign() < 0 || len(validation.IsDNS1123Subdomain(claimName)) > 0 || len(validation.IsValidLabelValue(zone)) > 0 ||
			(class != "" && len(validation.IsDNS1123Subdomain(class)) > 0) {
			return // the API server rejects such objects
		}
		c := storageCluster()
		for _, have := range c.PersistentVolumeClaims {
			if have.Name == claimName {
				return // one claim of a name
			}
		}
		pvc := claim(claimName, class)
		pvc.Spec.Resources.Requests[corev1.ResourceStorage] = q
		c.PersistentVolumeClaims = append(c.PersistentVolumeClaims, *pvc)
		if bound {
			c.PersistentVolumes = append(c.PersistentVolumes, zonalPV("pv-fuzz", zone, &c.PersistentVolumeClaims[len(c.PersistentVolumeClaims)-1]))
		}
		vol := claimVolume("v", claimName)
		name := "p"
		if template {
			vol.Name, name = "v", strings.TrimPrefix(claimName, "v-")
		}
		if ephemeral {
			vol = corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
				VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: pvc.Spec}}}}
		}
		if len(validation.IsDNS1123Subdomain(name)) > 0 {
			return
		}
		c.Pods = append(c.Pods, *ownedPod(name, "StatefulSet", "s", "b-1", withVolumes(vol)))
		convertRoundTrip(t, c)
	})
}

// convertRoundTrip converts c and checks that the snapshot loads (see
// roundTrip): every snapshot must.
func convertRoundTrip(t *testing.T, c *Cluster) {
	t.Helper()
	res, err := Convert(c, defaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, res)
}

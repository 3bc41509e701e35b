package chartcheck

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// upstreamProbes are the liveness probes upstream's manifests set (or, for
// gardener-custom-metrics, which sets none, its health listener), by
// container: path, port name and that port's number (compatibility spec
// §4). kscale serves /healthz too, but an operator's probes and alerts
// use these.
var upstreamProbes = map[string]struct {
	path string
	port int32
}{
	"node-autoscaler": {"/health-check", 8085},
	"recommender":     {"/health-check", 8942},
	"updater":         {"/health-check", 8943},
	"admission":       {"/health-check", 8944},
	"custom-metrics":  {"/healthz", 8081},
}

// TestProbesAreUpstreams checks the liveness probe of every container the
// chart renders (and so, by TestChartMatchesKustomize, of deploy/).
func TestProbesAreUpstreams(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range driftCases {
		r, err := Render(chartDir, Release{Name: "kscale", Namespace: "kube-system"}, readValues(t, "testdata/values/"+tc.values))
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range r.Objects {
			if obj.GetKind() != "Deployment" {
				continue
			}
			var d appsv1.Deployment
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &d); err != nil {
				t.Fatal(err)
			}
			for _, c := range d.Spec.Template.Spec.Containers {
				want, ok := upstreamProbes[c.Name]
				if !ok {
					t.Errorf("%s: container %s has no upstream probe listed", tc.values, c.Name)
					continue
				}
				seen[c.Name] = true
				p := c.LivenessProbe
				if p == nil || p.HTTPGet == nil {
					t.Errorf("%s: container %s: no HTTP liveness probe", tc.values, c.Name)
					continue
				}
				port := int32(0)
				for _, cp := range c.Ports {
					if cp.Name == p.HTTPGet.Port.StrVal {
						port = cp.ContainerPort
					}
				}
				if p.HTTPGet.Path != want.path || port != want.port {
					t.Errorf("%s: container %s probes %s on port %d, want upstream's %s on %d", tc.values, c.Name, p.HTTPGet.Path, port, want.path, want.port)
				}
			}
		}
	}
	for name := range upstreamProbes {
		if !seen[name] {
			t.Errorf("no rendering has a container %s", name)
		}
	}
}

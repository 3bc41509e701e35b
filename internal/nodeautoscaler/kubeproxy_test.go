package nodeautoscaler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// TestTemplateKubeProxyPod runs a scale-up from zero through the provider's
// template (r5.xlarge, 4 CPUs): a pending pod asking for 3950m fits the
// template as kscale builds it, and not once --template-kube-proxy-pod puts
// upstream's 100m kube-proxy pod on it, as upstream 1.36 decides.
func TestTemplateKubeProxyPod(t *testing.T) {
	for _, tc := range []struct {
		kubeProxy  bool
		wantTarget int
	}{{false, 1}, {true, 0}} {
		a, cloud, cl, rec, _, now := newLoop(t, func(o *options.Options) { o.TemplateKubeProxyPod = tc.kubeProxy })
		cl.pods = []*corev1.Pod{fixture.Pod("tight", fixture.WithRequests("cpu", "3950m", "memory", "1Gi"), fixture.UnschedulablePod())}
		if err := a.RunOnce(t.Context(), now); err != nil {
			t.Fatal(err)
		}
		_, high, _ := cloud.Group("ng-high")
		_, low, _ := cloud.Group("ng-low")
		if high+low != tc.wantTarget {
			t.Fatalf("--template-kube-proxy-pod=%v: targets ng-high %d, ng-low %d, want %d in all (events %+v)",
				tc.kubeProxy, high, low, tc.wantTarget, *rec)
		}
	}
}

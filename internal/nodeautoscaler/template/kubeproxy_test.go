package template

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// TestPodsKubeProxy checks --template-kube-proxy-pod: off, a template
// carries only DaemonSet pods; on, also upstream's fake kube-proxy mirror
// pod with 100m CPU, kept beside a kube-proxy DaemonSet's pod.
func TestPodsKubeProxy(t *testing.T) {
	node := fixture.Node("template-node-for-ng")
	proxyDS := fixture.DaemonSet("kube-proxy", fixture.WithRequests("cpu", "150m"))
	proxyDS.Namespace = metav1.NamespaceSystem
	for _, tc := range []struct {
		name      string
		ds        []*appsv1.DaemonSet
		kubeProxy bool
		wantPods  int
		wantCPU   int64 // millis requested by all pods
		wantFake  bool
	}{
		{name: "off, no DaemonSets", wantPods: 0},
		{name: "off, kube-proxy DaemonSet", ds: []*appsv1.DaemonSet{proxyDS}, wantPods: 1, wantCPU: 150},
		{name: "on, no DaemonSets", kubeProxy: true, wantPods: 1, wantCPU: KubeProxyCPUMillis, wantFake: true},
		{name: "on, kube-proxy DaemonSet: both kept", ds: []*appsv1.DaemonSet{proxyDS}, kubeProxy: true, wantPods: 2,
			wantCPU: 150 + KubeProxyCPUMillis, wantFake: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods := Pods(node, "ng", tc.ds, PodOptions{RequestsFromLimits: true, KubeProxy: tc.kubeProxy})
			if len(pods) != tc.wantPods {
				t.Fatalf("got %d pods, want %d", len(pods), tc.wantPods)
			}
			var cpu int64
			fake := 0
			for _, p := range pods {
				if p.Spec.NodeName != node.Name {
					t.Errorf("pod %s bound to %q, want the template node", p.Name, p.Spec.NodeName)
				}
				for _, c := range p.Spec.Containers {
					cpu += c.Resources.Requests.Cpu().MilliValue()
				}
				if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
					fake++
					assertFakeKubeProxy(t, p)
				}
			}
			if cpu != tc.wantCPU {
				t.Errorf("pods request %dm CPU, want %dm", cpu, tc.wantCPU)
			}
			if (fake == 1) != tc.wantFake || fake > 1 {
				t.Errorf("%d fake kube-proxy pods, want it %v", fake, tc.wantFake)
			}
		})
	}
}

// assertFakeKubeProxy checks the fields upstream's fake pod has and that
// decide how it is counted: a running static pod of kube-system with the
// kube-proxy component label, system-critical priority, requesting CPU
// only.
func assertFakeKubeProxy(t *testing.T, p *corev1.Pod) {
	t.Helper()
	if p.Namespace != metav1.NamespaceSystem || p.Labels["component"] != "kube-proxy" || p.Labels["tier"] != "node" {
		t.Errorf("fake pod %s/%s labels %v", p.Namespace, p.Name, p.Labels)
	}
	if p.Annotations["kubernetes.io/config.source"] != "file" || p.Status.Phase != corev1.PodRunning {
		t.Errorf("fake pod is not a running static pod: %v, %s", p.Annotations, p.Status.Phase)
	}
	if p.Spec.Priority == nil || *p.Spec.Priority != 2000000000 {
		t.Errorf("fake pod priority %v, want 2000000000", p.Spec.Priority)
	}
	req := p.Spec.Containers[0].Resources.Requests
	if len(req) != 1 || req.Cpu().MilliValue() != 100 {
		t.Errorf("fake pod requests %v, want cpu 100m only", req)
	}
}

package recommendation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// BenchmarkProcess processes one pod of three containers with limits, a
// policy and container and pod LimitRanges: the per-pod work of both the
// webhook (per pod creation) and the updater (per pod per loop).
func BenchmarkProcess(b *testing.B) {
	pod := fixture.Pod("p", fixture.WithRequests("cpu", "100m", "memory", "128Mi"), fixture.WithLimits("cpu", "200m", "memory", "256Mi"),
		fixture.WithContainer("b", "cpu", "50m", "memory", "64Mi"), fixture.WithContainer("c", "cpu", "10m", "memory", "32Mi"))
	pod.Spec.Containers[1].Resources.Limits = rl("cpu", "100m", "memory", "128Mi")
	r := rec(same("app", rl("cpu", "587m", "memory", "380258472")), same("b", rl("cpu", "30m", "memory", "100Mi")), same("c", rl("cpu", "5m", "memory", "10Mi")))
	p := policy(vpav1.ContainerResourcePolicy{ContainerName: "*", MinAllowed: rl("cpu", "10m"), MaxAllowed: rl("cpu", "500m")})
	limits := MergeLimitRanges([]corev1.LimitRange{
		limitRange(corev1.LimitTypeContainer, corev1.LimitRangeItem{Max: rl("cpu", "2", "memory", "4Gi"), Min: rl("memory", "16Mi")}),
		limitRange(corev1.LimitTypePod, corev1.LimitRangeItem{Max: rl("cpu", "4", "memory", "8Gi")}),
	})
	b.ReportAllocs()
	for b.Loop() {
		if res := Process(pod, r, p, limits); len(res.Containers) != 3 {
			b.Fatal(len(res.Containers))
		}
	}
}

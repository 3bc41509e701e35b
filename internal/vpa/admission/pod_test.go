package admission

import (
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// TestPodPatchApplies applies the patch to pods with and without
// annotations, requests and limits, and checks the resulting pod.
func TestPodPatchApplies(t *testing.T) {
	target := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("300Mi")}
	rec := &vpav1.RecommendedPodResources{ContainerRecommendations: []vpav1.RecommendedContainerResources{
		{ContainerName: "side", Target: target, LowerBound: target, UpperBound: target},
	}}
	vpa := &vpav1.VerticalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "v"}}
	tests := []struct {
		name       string
		pod        *corev1.Pod
		wantLimits bool
	}{
		{name: "no resources, no annotations", pod: fixture.Pod("p", fixture.WithContainer("side"), func(p *corev1.Pod) {
			p.Spec.Containers[1].Resources = corev1.ResourceRequirements{}
		})},
		{name: "existing annotations and limits", pod: fixture.Pod("p", fixture.WithContainer("side", "cpu", "100m", "memory", "100Mi"), func(p *corev1.Pod) {
			p.Annotations = map[string]string{"keep": "me"}
			p.Spec.Containers[1].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}
		}), wantLimits: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			processed := recommendation.Process(tc.pod, rec, nil, recommendation.Limits{})
			raw, err := json.Marshal(tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			ops, err := json.Marshal(PodPatch(tc.pod, vpa, processed))
			if err != nil {
				t.Fatal(err)
			}
			patch, err := jsonpatch.DecodePatch(ops)
			if err != nil {
				t.Fatal(err)
			}
			out, err := patch.Apply(raw)
			if err != nil {
				t.Fatalf("applying %s: %v", ops, err)
			}
			got := &corev1.Pod{}
			if err := json.Unmarshal(out, got); err != nil {
				t.Fatal(err)
			}
			side := got.Spec.Containers[1].Resources
			if q := side.Requests[corev1.ResourceCPU]; q.Cmp(resource.MustParse("250m")) != 0 {
				t.Errorf("side cpu request = %s, want 250m", q.String())
			}
			if q := side.Requests[corev1.ResourceMemory]; q.Cmp(resource.MustParse("300Mi")) != 0 {
				t.Errorf("side memory request = %s, want 300Mi", q.String())
			}
			if q, ok := side.Limits[corev1.ResourceCPU]; tc.wantLimits && q.Cmp(resource.MustParse("500m")) != 0 || !tc.wantLimits && ok {
				t.Errorf("side cpu limit = %s (set %v), want 500m only when the pod had a limit", q.String(), ok)
			}
			if got.Annotations[ObservedContainersAnnotation] != "app, side" {
				t.Errorf("observed containers = %q, want \"app, side\"", got.Annotations[ObservedContainersAnnotation])
			}
			if tc.pod.Annotations != nil && got.Annotations["keep"] != "me" {
				t.Errorf("existing annotation lost: %v", got.Annotations)
			}
			if app := got.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]; app.Cmp(resource.MustParse("100m")) != 0 {
				t.Errorf("container app without a recommendation changed: %s", app.String())
			}
		})
	}
}
